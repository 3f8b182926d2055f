"""Every stored intent fits its command's TypedDict (ledger/intents.py): the types describe the JSON
the ledger has always stored, in old ledgers (../shared/fixtures/ledgers/) and in new ones."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger import catalog
from ledger import intents as I
from tests.conftest import SHARED, Cli

LEDGERS = SHARED / "fixtures" / "ledgers"
INTENT_OF: dict[str, Any] = {
    "init": I.InitIntent,
    "session start": I.SessionStartIntent,
    "session end": I.SessionEndIntent,
    "character add": I.CharacterAddIntent,
    "character copy": I.CharacterCopyIntent,
    "character set": I.CharacterSetIntent,
    "character retire": I.NameIntent,
    "roll": I.RollIntent,
    "damage": I.DamageIntent,
    "condition add": I.ConditionIntent,
    "condition remove": I.ConditionIntent,
    "attack": I.AttackIntent,
    "check": I.CheckIntent,
    "recover": I.RecoverIntent,
    "spend": I.SpendIntent,
    "gain": I.GainIntent,
    "hazard": I.HazardIntent,
    "revive": I.ReviveIntent,
    "act": I.ActIntent,
    "encounter start": I.EncounterStartIntent,
    "encounter next": I.TurnIntent,
    "encounter delay": I.TurnIntent,
    "encounter act": I.NameIntent,
    "encounter join": I.JoinIntent,
    "encounter remove": I.NameIntent,
    "encounter reveal": I.RevealIntent,
    "encounter end": I.NoIntent,
    "scene end": I.NoIntent,
    "undo": I.NoIntent,
    "redo": I.NoIntent,
    "retract": I.RetractIntent,
}


def _stored(cli: Cli, tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(command, intent) of every ruling in the ledger, read from its JSONL export."""
    out = tmp_path / "out.jsonl"
    cli.ok("export", "--format", "jsonl", "-o", str(out))
    rows = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    return [
        (r["state"]["command"], r["state"]["intent"])
        for r in rows
        if str(r.get("topic", "")).endswith("Ruling.RulingRecorded")
    ]


def _misfits(found: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Each intent with a key its TypedDict doesn't declare, or without one it requires."""
    bad = []
    for command, intent in found:
        td = INTENT_OF[command]
        keys = set(intent)
        if not keys <= td.__required_keys__ | td.__optional_keys__ or not td.__required_keys__ <= keys:
            bad.append(f"{command}: {sorted(keys)}")
    return bad


def test_every_stored_command_name_has_its_intent_type() -> None:
    """Each stored command name of ledger/catalog.py has an intent TypedDict here."""
    assert set(INTENT_OF) == {c.stored for c in catalog.COMMANDS if c.stored}


@pytest.mark.parametrize("name", sorted(p.name for p in LEDGERS.glob("*.ledger")))
def test_old_ledgers_intents_fit_their_types(name: str, tmp_path: Path) -> None:
    """The intents the first release stored fit the TypedDicts (keys old rulings lack are NotRequired)."""
    shutil.copy(LEDGERS / name, tmp_path / name)
    found = _stored(Cli(str(tmp_path / name)), tmp_path)
    assert found and _misfits(found) == []


def test_new_intents_fit_their_types(cli: Cli, tmp_path: Path) -> None:
    """A session using most commands stores intents that fit the TypedDicts, key for key."""
    for args in (
        ("init", "--system", "hnh"),
        ("session", "start", "One"),
        ("character", "add", "Ann", "--trait", "fighting=6", "--trait", "parry=5", "--trait", "toughness=4", "--pc"),
        ("character", "add", "Thug", "--trait", "parry=2", "--trait", "dodge=2", "--trait", "toughness=2"),
        ("character", "add", "Bob", "--trait", "toughness=3"),
        ("roll", "3dF", "--for", "Ann"),
        ("damage", "Thug", "--amount", "1"),
        ("damage", "Thug", "--rank", "1"),
        ("condition", "add", "Thug", "prone", "--note", "tripped"),
        ("condition", "remove", "Thug", "prone"),
        ("character", "add", "Mook", "--trait", "toughness=1", "--copies", "2"),
        ("character", "copy", "Bob", "Bea"),
        ("character", "set", "Bea", "--trait", "toughness=4"),
        ("attack", "Ann", "Thug", "--rank", "2"),
        ("check", "Ann", "fighting", "--dc", "10"),
        ("recover", "Thug", "--hours", "1"),
        ("encounter", "start", "Ann", "Thug"),
        ("act", "Ann", "action", "-o", "kind=free", "-o", "what=shout"),
        (
            "attack",
            "Ann",
            "Thug",
            "Bob",
            "--with",
            "fighting",
            "--rank",
            "2",
            "--range",
            "area",
            "--cover",
            "Bob=partial",
            "-o",
            "improve=power",
        ),
        ("act", "Ann", "ready", "-o", "what=strike the first through the door"),
        ("condition", "add", "Ann", "dazed", "--rounds", "1"),
        ("condition", "add", "Thug", "vulnerable", "--until", "end", "--of", "Ann"),
        ("encounter", "next"),
        ("encounter", "delay"),
        ("encounter", "join", "Bob"),
        ("encounter", "join", "Mook", "--hidden"),
        ("character", "add", "Ghost", "--trait", "toughness=1", "--hidden"),
        ("roll", "1d20", "--secret"),
        ("damage", "Thug", "--amount", "1", "--secret"),
        ("encounter", "reveal", "Mook 1", "--ruling", "3"),
        ("encounter", "remove", "Bob"),
        ("encounter", "end"),
        ("encounter", "start", "Ann", "Mook", "--group-init", "Mook"),
        ("encounter", "join", "Falling Debris", "--hazard", "--init", "3", "--note", "a fire"),
        ("encounter", "end"),
        ("undo",),
        ("redo",),
        ("character", "retire", "Bea"),
        ("retract", "7", "--yes", "--reason", "a second look"),
        ("session", "end"),
    ):
        cli.ok(*args)
    found = _stored(cli, tmp_path)
    assert {c for c, _ in found} >= {"roll", "damage", "check", "encounter join", "retract", "session end"}
    assert "encounter reveal" in {c for c, _ in found}
    assert {k for _, i in found for k in i} >= {"hidden", "secret"}
    assert _misfits(found) == []
