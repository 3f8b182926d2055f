"""ledger/words/describe.py: the one describer of events and intents, pure and import-light (CLI.md, Additions agreed
in the second round: a ruling's first line is a sentence)."""

from __future__ import annotations

import subprocess
import sys

from ledger.words.describe import HpFold, dice_line, event_line, intent_line, ruling_lines, sentence
from tests.conftest import REPO


def ev(t: str, character: str | None, **data: object) -> dict[str, object]:
    return {"type": t, "character": character, "data": data}


def test_describe_imports_neither_sqlalchemy_nor_click() -> None:
    """README.md, How it works (a write never imports the read side): write commands print from the ruling's result
    without loading the read side."""
    code = (
        "import sys, ledger.words.describe; print(sorted(m for m in ('sqlalchemy', 'click', 'eventsourcing', "
        "'projections') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "[]"


def test_a_floored_hp_change_reads_from_what_the_character_had() -> None:
    """P&P Health stops at 0: the fold knows it was 3, where `hp + amount` would say 20."""
    fold = HpFold()
    fold.before(ev("CharacterAdded", "Boss", sheet={"name": "Boss", "hp": 3, "max_hp": 3}))
    hit = ev("DamageApplied", "Boss", amount=20, hp=0)
    assert event_line(hit, fold.before(hit)) == "Boss: HP 3 -> 0"
    assert (
        event_line(ev("DamageApplied", "Boss", amount=2, hp=1)) == "Boss: HP 3 -> 1"
    )  # no history: from the change itself


def test_a_ruling_names_the_change_once_per_character_and_merges_conditions() -> None:
    """CLI.md, Additions agreed in the second round: one sentence; `now dying and prone` rather than a list of
    events."""
    events = [
        ev(
            "DiceRolled",
            "Ann",
            name="power",
            notation="3dF+8",
            faces=[0, 0, 0],
            total=8,
            source="rolled",
            used=True,
            **{"for": "Ann"},
        ),
        {**ev("DamageApplied", "Ann", amount=4, hp=-1), "hp_before": 3},
        ev("ConditionImposed", "Ann", condition="dying"),
        ev("ConditionImposed", "Ann", condition="prone"),
    ]
    assert sentence(events) == "Ann takes 4 damage: HP 3 -> -1, now dying and prone."
    assert ruling_lines(events) == [sentence(events), "  Ann power: 3dF+8 [0 0 0] = 8"]


def test_dice_lines_mark_entered_and_unused_rolls() -> None:
    """CLI.md, Entering dice: a roll entered but not needed is kept and marked unused."""
    d = {
        "name": "damage",
        "notation": "1d4",
        "faces": [3],
        "total": 3,
        "source": "entered",
        "used": False,
        "for": "Thug",
    }
    assert dice_line(d) == "Thug damage: 1d4 [3] = 3 (entered, unused)"


def test_a_long_intent_is_summarised_in_one_line() -> None:
    """README.md, A short tour: an imported sheet's powers and traits are counted, not listed; values are kept as
    given."""
    powers = {f"power {i}": {"effect": "Damage", "rank": i} for i in range(9)}
    line = intent_line(
        "character add", {"name": "Suit", "typed_traits": {str(i): i for i in range(20)}, "powers": powers, "pc": True}
    )
    assert line == "character add name=Suit 20 traits 9 powers pc=yes"
    assert intent_line("attack", {"two-weapon": False, "rank": 0}) == "attack two-weapon=no rank=0"


def test_a_contest_names_who_tried_what_on_whom() -> None:
    """hnh maneuvers (grab, trip, disarm, demoralize): the one who acts is the subject, the winner and degrees
    follow."""
    grab = ev(
        "EffectResolved",
        "Thug",
        action="grab",
        attacker="Ann",
        target="Thug",
        hit=True,
        winner="Ann",
        degrees=2,
        attack={"total": 7},
        defense_check={"total": 0},
    )
    bound = ev("ConditionImposed", "Thug", condition="bound")
    assert sentence([grab, bound]) == "Ann tries to grab Thug (7 vs 0, hits, Ann wins by 2 degrees): now bound."


def test_no_sentence_shows_an_event_name_or_none() -> None:
    """CLI.md, Output (a person reads sentences): an event no sentence knows says its values in words, never its
    class name; a value never given (None) is left out; an action's verb agrees (`crawls away`)."""
    said = sentence([ev("EffectResolved", None, weather="rain")])
    assert said == "Weather rain." and "EffectResolved" not in said
    assert sentence([ev("EffectResolved", None, scene="ended")]) == "The scene ends (effects ended for no one)."
    moved = sentence([ev("EffectResolved", "Foe", action="move", **{"with": None})])
    assert "None" not in moved and moved.startswith("Foe moves")
    assert sentence([ev("EffectResolved", "Mook 3", action="crawl away")]) == "Mook 3 crawls away."
    aid = sentence([ev("CheckResolved", "Ann", check="check", total=None, dc=0)])
    assert "check check" not in aid and "None" not in aid


def test_possessives_of_names_ending_in_s_are_one_spelling() -> None:
    """The turn of a group named Goons is Goons' turn, in the log and in the tracker alike."""
    assert event_line(ev("TurnAdvanced", None, round=1, current="Goons"), None, "pnp") == "page 1: Goons' turn"
    assert event_line(ev("TurnAdvanced", None, round=1, current="Ann"), None, "hnh") == "round 1: Ann's turn"


def test_a_group_of_several_joins_in_the_plural() -> None:
    """A minion group of five is several people: `Goons x5 join the campaign`; one character `joins`."""
    group = ev("CharacterAdded", "Goons", sheet={"name": "Goons", "minion": True, "count": 5, "hp": 5, "max_hp": 5})
    assert sentence([group], system="pnp") == "Goons x5 join the campaign: Health 5/5."
    one = ev("CharacterAdded", "Ann", sheet={"name": "Ann", "hp": 6, "max_hp": 6})
    assert sentence([one], system="hnh") == "Ann joins the campaign: HP 6/6."


def test_a_smash_says_what_became_of_the_object() -> None:
    """hnh-site/gadgets-and-gear, Damaging Objects: a smash leaves the object bent, broken or destroyed."""
    smash = ev("EffectResolved", "Cy", action="smash", attacker="Ann", target="Cy", item="shield", hit=True)
    assert sentence([{**smash, "data": {**smash["data"], "object_state": "broken"}}]).endswith("the shield is broken.")
