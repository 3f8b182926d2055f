"""Every command of the ledger, declared once: its words, its CLI module, the ruling it records and its decider.

From this table come the CLI's command table (commands/main.py loads a command's module on first use), the
decider table that re-derivation uses (ledger/rulings/deciders/table.py), `ledger options`, completion and
docs/cli.md (commands/reference.py). A command that records a ruling is passed to `Ledger.record` as its
`Command` value, never as a bare string; tests/unit/test_catalog.py fails if a click command, a stored command
name, a decider, a `Ledger` method or a rule system's declaration is missing from it.

This module imports nothing, so reading it costs a one-shot command nothing.

Stored names (`Command.stored`) are written into every ruling's intent: they never change.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """One command of the CLI, and the ruling it records if it records one."""

    name: str  # the words after `ledger` ("encounter next")
    cli: str  # the module under commands/ that defines its click command
    stored: str | None = None  # the name stored in its rulings ("character import" stores "character add")
    decider: str | None = None  # "module.function" under ledger/rulings/deciders/: how its ruling is decided again
    method: str | None = None  # the `Ledger` method that records it
    rules: bool = False  # whether the rule systems declare options and rolls for it (`-o KEY=VALUE`, `--roll`)
    group: bool = False  # a group of sub-commands (`ledger session ...`)
    kind: str = "play"  # the kind of ruling it records: play, undo, redo or retract (stored on the ruling)

    @property
    def word(self) -> str:
        """Its last word: the name click knows it by inside its group."""
        return self.name.rpartition(" ")[2]

    @property
    def parent(self) -> str | None:
        """The group it belongs to (`session` for `session start`), or None at the top level."""
        head, _, _ = self.name.rpartition(" ")
        return head or None


def _ruling(
    name: str, cli: str, decider: str | None, method: str, *, rules: bool = False, kind: str = "play"
) -> Command:
    return Command(name, cli, stored=name, decider=decider, method=method, rules=rules, kind=kind)


# -- rulings: each stored name, its decider and its `Ledger` method ---------------------------------------
INIT = _ruling("init", "campaign", None, "init", rules=True)  # ruling 1: never decided again
SESSION = Command("session", "campaign", group=True)
SESSION_START = _ruling("session start", "campaign", "core.session_start", "start_session")
SESSION_END = _ruling("session end", "campaign", "core.session_end", "end_session")
CHARACTER = Command("character", "characters", group=True)
CHARACTER_ADD = _ruling("character add", "characters", "core.character_add", "add_character")
CHARACTER_IMPORT = Command("character import", "characters", stored="character add", method="import_character")
CHARACTER_COPY = _ruling("character copy", "characters", "core.character_copy", "copy_character")
CHARACTER_SET = _ruling("character set", "characters", "core.character_set", "set_traits")
CHARACTER_RETIRE = _ruling("character retire", "characters", "core.character_retire", "retire_character")
ROLL = _ruling("roll", "play", "play.roll", "roll")
DAMAGE = _ruling("damage", "play", "play.damage", "damage", rules=True)
CONDITION = Command("condition", "play", group=True)
CONDITION_ADD = _ruling("condition add", "play", "play.condition_add", "condition")
CONDITION_REMOVE = _ruling("condition remove", "play", "play.condition_remove", "condition")
ATTACK = _ruling("attack", "actions", "play.attack", "attack", rules=True)
CHECK = _ruling("check", "actions", "play.check", "check", rules=True)
RECOVER = _ruling("recover", "actions", "play.recover", "recover", rules=True)
SPEND = _ruling("spend", "actions", "play.spend", "spend")
GAIN = _ruling("gain", "actions", "play.gain", "gain")
HAZARD = _ruling("hazard", "actions", "play.hazard", "hazard", rules=True)
REVIVE = _ruling("revive", "actions", "play.revive", "revive")
ACT = _ruling("act", "actions", "play.act", "act", rules=True)
ENCOUNTER = Command("encounter", "encounter", group=True)
ENCOUNTER_START = _ruling("encounter start", "encounter", "encounter.start", "start_encounter")
ENCOUNTER_NEXT = _ruling("encounter next", "encounter", "encounter.next_", "next_turn")
ENCOUNTER_DELAY = _ruling("encounter delay", "encounter", "encounter.delay", "delay_turn")
ENCOUNTER_ACT = _ruling("encounter act", "encounter", "encounter.act", "act_now")
ENCOUNTER_JOIN = _ruling("encounter join", "encounter", "encounter.join", "join_encounter")
ENCOUNTER_REMOVE = _ruling("encounter remove", "encounter", "encounter.remove", "remove_from_encounter")
ENCOUNTER_END = _ruling("encounter end", "encounter", "encounter.end", "end_encounter")
SCENE = Command("scene", "scene", group=True)
SCENE_END = _ruling("scene end", "scene", "encounter.scene", "end_scene")
UNDO = _ruling("undo", "history", None, "undo", kind="undo")  # decided from the log itself (ledger/rulings/undo.py)
REDO = _ruling("redo", "history", None, "redo", kind="redo")
RETRACT = _ruling(
    "retract", "audit", None, "retract", kind="retract"
)  # decided by re-derivation (ledger/rulings/rederive.py)

# -- commands that read (or move whole logs) and record no ruling ------------------------------------------
CHARACTER_LIST = Command("character list", "characters")
CHARACTER_SHOW = Command("character show", "characters")
ENCOUNTER_SHOW = Command("encounter show", "encounter")
ENCOUNTER_LOG = Command("encounter log", "encounter")
SESSION_SHOW = Command("session show", "history")
WHY = Command("why", "audit")
LOG = Command("log", "history")
TIMELINE = Command("timeline", "history")
VERIFY = Command("verify", "history")
REBUILD = Command("rebuild", "history")
OPTIONS = Command("options", "reference")
EXPORT = Command("export", "export")
IMPORT = Command("import", "export")
DEMO = Command("demo", "demo")
PLAY = Command("play", "shell")
SERVE = Command("serve", "serve")
PLAYER = Command("player", "players", group=True)
PLAYER_LINK = Command("player link", "players")
PLAYER_REVOKE = Command("player revoke", "players")

COMMANDS: tuple[Command, ...] = tuple(v for v in dict(globals()).values() if isinstance(v, Command))
BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}
STORED: dict[str, Command] = {c.stored: c for c in COMMANDS if c.stored == c.name}  # stored name -> its command


def top_level() -> list[str]:
    """The first words of every command (what `ledger --help` lists)."""
    return sorted({c.name.split(" ", 1)[0] for c in COMMANDS})


def modules_of(word: str) -> list[str]:
    """The CLI modules that define `word` or a sub-command of it (the group's own module first)."""
    found = [c.cli for c in COMMANDS if c.name == word] + [c.cli for c in COMMANDS if c.parent == word]
    return list(dict.fromkeys(found))
