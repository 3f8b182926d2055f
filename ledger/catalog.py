"""Every command of the ledger, declared once: its words, its CLI module, the ruling it records and its decider.

From this table come the CLI's command table (commands/main.py loads a command's module on first use), the
decider table that re-derivation uses (ledger/rulings/deciders/table.py), `ledger options`, completion and
docs/cli.md (commands/reference.py). A command that records a ruling is passed to `Ledger.record` as its
`Command` value, never as a bare string; tests/unit/test_catalog.py fails if a click command, a stored command
name, a decider, a `Ledger` method or a rule system's declaration is missing from it.

This module imports nothing at run time, so reading it costs a one-shot command nothing. Each ruling command names
its intent's type (ledger/intents.py, read by mypy alone): `Ledger.record(C.ROLL, intent)` takes only a `RollIntent`,
so mypy rejects a bare dict or another command's intent.

Stored names (`Command.stored`) are written into every ruling's intent: they never change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:
    from ledger import intents as I

IntentT = TypeVar("IntentT")


class Command(NamedTuple, Generic[IntentT]):
    """One command of the CLI, and the ruling it records if it records one (whose intent is an `IntentT`)."""

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
) -> Command[Any]:
    return Command(name, cli, stored=name, decider=decider, method=method, rules=rules, kind=kind)


# -- rulings: each stored name, its decider and its `Ledger` method ---------------------------------------
INIT: Command[I.InitIntent] = _ruling("init", "campaign", None, "init", rules=True)  # ruling 1: never decided again
SESSION: Command[None] = Command("session", "campaign", group=True)
SESSION_START: Command[I.SessionStartIntent] = _ruling(
    "session start", "campaign", "core.session_start", "start_session"
)
SESSION_END: Command[I.SessionEndIntent] = _ruling("session end", "campaign", "core.session_end", "end_session")
CHARACTER: Command[None] = Command("character", "characters", group=True)
CHARACTER_ADD: Command[I.CharacterAddIntent] = _ruling(
    "character add", "characters", "core.character_add", "add_character"
)
CHARACTER_IMPORT: Command[None] = Command(
    "character import", "characters", stored="character add", method="import_character"
)
CHARACTER_COPY: Command[I.CharacterCopyIntent] = _ruling(
    "character copy", "characters", "core.character_copy", "copy_character"
)
CHARACTER_SET: Command[I.CharacterSetIntent] = _ruling(
    "character set", "characters", "core.character_set", "set_traits"
)
CHARACTER_RETIRE: Command[I.NameIntent] = _ruling(
    "character retire", "characters", "core.character_retire", "retire_character"
)
ROLL: Command[I.RollIntent] = _ruling("roll", "play", "play.roll", "roll")
DAMAGE: Command[I.DamageIntent] = _ruling("damage", "play", "play.damage", "damage", rules=True)
CONDITION: Command[None] = Command("condition", "play", group=True)
CONDITION_ADD: Command[I.ConditionIntent] = _ruling("condition add", "play", "play.condition_add", "condition")
CONDITION_REMOVE: Command[I.ConditionIntent] = _ruling("condition remove", "play", "play.condition_remove", "condition")
ATTACK: Command[I.AttackIntent] = _ruling("attack", "actions", "play.attack", "attack", rules=True)
CHECK: Command[I.CheckIntent] = _ruling("check", "actions", "play.check", "check", rules=True)
RECOVER: Command[I.RecoverIntent] = _ruling("recover", "actions", "play.recover", "recover", rules=True)
SPEND: Command[I.SpendIntent] = _ruling("spend", "actions", "play.spend", "spend")
GAIN: Command[I.GainIntent] = _ruling("gain", "actions", "play.gain", "gain")
HAZARD: Command[I.HazardIntent] = _ruling("hazard", "actions", "play.hazard", "hazard", rules=True)
REVIVE: Command[I.ReviveIntent] = _ruling("revive", "actions", "play.revive", "revive")
ACT: Command[I.ActIntent] = _ruling("act", "actions", "play.act", "act", rules=True)
ENCOUNTER: Command[None] = Command("encounter", "encounter", group=True)
ENCOUNTER_START: Command[I.EncounterStartIntent] = _ruling(
    "encounter start", "encounter", "encounter.start", "start_encounter"
)
ENCOUNTER_NEXT: Command[I.TurnIntent] = _ruling("encounter next", "encounter", "encounter.next_", "next_turn")
ENCOUNTER_DELAY: Command[I.TurnIntent] = _ruling("encounter delay", "encounter", "encounter.delay", "delay_turn")
ENCOUNTER_ACT: Command[I.NameIntent] = _ruling("encounter act", "encounter", "encounter.act", "act_now")
ENCOUNTER_JOIN: Command[I.JoinIntent] = _ruling("encounter join", "encounter", "encounter.join", "join_encounter")
ENCOUNTER_REVEAL: Command[I.RevealIntent] = _ruling("encounter reveal", "encounter", "encounter.reveal", "reveal")
ENCOUNTER_REMOVE: Command[I.NameIntent] = _ruling(
    "encounter remove", "encounter", "encounter.remove", "remove_from_encounter"
)
ENCOUNTER_END: Command[I.NoIntent] = _ruling("encounter end", "encounter", "encounter.end", "end_encounter")
SCENE: Command[None] = Command("scene", "scene", group=True)
SCENE_END: Command[I.NoIntent] = _ruling("scene end", "scene", "encounter.scene", "end_scene")
UNDO: Command[I.NoIntent] = _ruling(
    "undo", "history", None, "undo", kind="undo"
)  # decided from the log itself (ledger/history/undo.py)
REDO: Command[I.NoIntent] = _ruling("redo", "history", None, "redo", kind="redo")
RETRACT: Command[I.RetractIntent] = _ruling(
    "retract", "audit", None, "retract", kind="retract"
)  # decided by re-derivation (ledger/history/rederive.py)

# -- commands that read (or move whole logs) and record no ruling ------------------------------------------
CHARACTER_LIST: Command[None] = Command("character list", "characters")
CHARACTER_SHOW: Command[None] = Command("character show", "characters")
ENCOUNTER_SHOW: Command[None] = Command("encounter show", "encounter")
ENCOUNTER_LOG: Command[None] = Command("encounter log", "encounter")
SESSION_SHOW: Command[None] = Command("session show", "history")
WHY: Command[None] = Command("why", "audit")
LOG: Command[None] = Command("log", "history")
TIMELINE: Command[None] = Command("timeline", "history")
VERIFY: Command[None] = Command("verify", "history")
REBUILD: Command[None] = Command("rebuild", "history")
OPTIONS: Command[None] = Command("options", "reference")
EXPORT: Command[None] = Command("export", "export")
IMPORT: Command[None] = Command("import", "export")
DEMO: Command[None] = Command("demo", "demo")
PLAY: Command[None] = Command("play", "shell")
SERVE: Command[None] = Command("serve", "serve")
ODDS: Command[None] = Command("odds", "odds")
PLAYER: Command[None] = Command("player", "players", group=True)
PLAYER_LINK: Command[None] = Command("player link", "players")
PLAYER_REVOKE: Command[None] = Command("player revoke", "players")
PENDING: Command[None] = Command("pending", "pending", group=True)
PENDING_ACCEPT: Command[None] = Command("pending accept", "pending")
PENDING_EDIT: Command[None] = Command("pending edit", "pending")
PENDING_REFUSE: Command[None] = Command("pending refuse", "pending")

COMMANDS: tuple[Command[Any], ...] = tuple(v for v in dict(globals()).values() if isinstance(v, Command))
BY_NAME: dict[str, Command[Any]] = {c.name: c for c in COMMANDS}
STORED: dict[str, Command[Any]] = {c.stored: c for c in COMMANDS if c.stored == c.name}  # stored name -> its command


def top_level() -> list[str]:
    """The first words of every command (what `ledger --help` lists)."""
    return sorted({c.name.split(" ", 1)[0] for c in COMMANDS})


def modules_of(word: str) -> list[str]:
    """The CLI modules that define `word` or a sub-command of it (the group's own module first)."""
    found = [c.cli for c in COMMANDS if c.name == word] + [c.cli for c in COMMANDS if c.parent == word]
    return list(dict.fromkeys(found))
