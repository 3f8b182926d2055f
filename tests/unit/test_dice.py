"""Dice: notation, the three mechanics, entered faces and seeded rolls (DESIGN.md, Dice; CLI.md, Entering dice)."""

from __future__ import annotations

import pytest

from ledger.errors import BadInput
from ledger.history.rederive import ReplayDice
from ledger.model.dice import DiceBox, Roll, d20, fudge, parse_faces, parse_notation, pool, pool_successes


def test_pool_counts_two_and_four_as_one_success_and_six_as_two():
    """prowlers-and-paragons.txt, Making a Challenge Roll: one success for every 2 or 4, two for every 6."""
    assert pool_successes((1, 2, 3, 4, 5, 6)) == 4
    assert pool_successes((6, 6)) == 4
    assert pool_successes((1, 3, 5)) == 0


def test_fudge_roll_totals_faces_plus_bonus_and_flags_criticals():
    """hnh-site/the-basics.txt, Critical Success/failure: all three dice +1 or all -1 are criticals."""
    r = Roll("attack", fudge(5), (1, 1, 1), "entered")
    assert r.total == 8 and r.all_plus and not r.all_minus
    r = Roll("attack", fudge(5), (-1, -1, -1), "entered")
    assert r.total == 2 and r.all_minus
    assert not Roll("attack", fudge(0), (1, 1, 0), "entered").all_plus


@pytest.mark.parametrize(
    ("expr", "kind", "count", "sides", "mod"),
    [
        ("3dF", "fudge", 3, 3, 0),
        ("3dF+2", "fudge", 3, 3, 2),
        ("1d20+3", "d20", 1, 20, 3),
        ("2d6+1", "sum", 2, 6, 1),
        ("1d8-1", "sum", 1, 8, -1),
        ("5d6 pool", "pool", 5, 6, 0),
    ],
)
def test_notation_parses_ordinary_dice_expressions(expr, kind, count, sides, mod):
    """DESIGN.md, Dice: weapon damage uses ordinary notation (1d8+2); CLI.md roll: 3dF, 1d20+3, 5d6 pool, 2d6+1."""
    spec = parse_notation(expr)
    assert (spec.kind, spec.count, spec.sides, spec.modifier) == (kind, count, sides, mod)


def test_a_bare_d6_count_is_a_pool_only_in_pnp():
    """CLI.md, roll: `5d6 pool (pnp)`; elsewhere 5d6 is a sum."""
    assert parse_notation("5d6", pools=True).kind == "pool"
    assert parse_notation("5d6").kind == "sum"
    assert parse_notation("2d6+1", pools=True).kind == "sum"


@pytest.mark.parametrize("bad", ["", "d", "3d", "1d1", "abc", "1d20+", "101d6", "4d6kq", "(1d6"])
def test_bad_notation_is_bad_input(bad):
    """DESIGN.md, Errors and bad input: malformed dice are refused with a clear message."""
    with pytest.raises(BadInput):
        parse_notation(bad)


def test_no_dice_at_all_is_an_expression_totalling_zero():
    """CLI.md third round, dice notation as the d20 library reads it: `0d6` rolls no die and totals 0."""
    spec = parse_notation("0d6")
    assert spec.kind == "expr" and spec.total(()) == 0


def test_fudge_faces_accept_symbols_and_numbers():
    """CLI.md, Entering dice: Fudge dice as +, -, 0 (or 1, -1, 0)."""
    assert parse_faces("attack", "+,0,-", fudge()) == (1, 0, -1)
    assert parse_faces("attack", "1, -1, 0", fudge()) == (1, -1, 0)


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("+,+", fudge()),
        ("+,+,+,+", fudge()),
        ("2,0,1", fudge()),
        ("0", d20()),
        ("21", d20()),
        ("x", d20()),
        ("1,7,3", pool(3)),
        ("1,2", pool(3)),
    ],
)
def test_faces_of_the_wrong_kind_or_count_are_bad_input(text, spec):
    """CLI.md, Entering dice: a roll given with the wrong number or kind of faces is bad input."""
    with pytest.raises(BadInput):
        parse_faces("r", text, spec)


def test_entered_faces_are_used_and_marked_entered():
    """CLI.md, Entering dice: the GM may type the faces of physical dice; recorded with their source."""
    box = DiceBox(entered={"attack": "17"})
    r = box.take("attack", d20(4))
    assert (r.faces, r.total, r.source) == ((17,), 21, "entered")


def test_seeded_rolls_repeat_for_the_same_seed_ruling_and_name():
    """CLI.md, --seed: make the ledger's own dice rolls reproducible."""
    a = DiceBox(seed=42, salt="7").take("attack", fudge())
    b = DiceBox(seed=42, salt="7").take("attack", fudge())
    assert a.faces == b.faces and a.source == "seeded"
    other_rulings = {DiceBox(seed=42, salt=str(n)).take("attack", fudge()).faces for n in range(20)}
    assert len(other_rulings) > 1  # each ruling gets its own rolls


def test_unused_entered_rolls_are_kept_and_marked_unused():
    """CLI.md, Entering dice: a roll entered but not needed is kept in the ruling, marked unused."""
    box = DiceBox(entered={"attack": "1", "damage": "3"})
    box.take("attack", d20())
    unused = box.unused({"attack": d20(), "damage": parse_notation("1d8")})
    assert [(r.name, r.faces, r.used) for r in unused] == [("damage", (3,), False)]


def test_an_entered_roll_the_command_does_not_take_is_bad_input():
    """CLI.md, Entering dice: roll names are the command's own; others are refused."""
    box = DiceBox(entered={"oops": "3"})
    with pytest.raises(BadInput):
        box.unused({"attack": d20()})


def test_replay_hands_back_recorded_faces_and_never_rolls():
    """DESIGN.md, The ruling: history never re-rolls (a retraction's replay takes each recorded roll as it was)."""
    rec = ReplayDice(1, {"attack": Roll("attack", d20(), (12,), "rolled")}, DiceBox(entered={"1.confirm": "4"}), {})
    assert rec.take("attack", d20(3)).total == 15 and not rec.new
    assert rec.take("confirm", d20(3)).faces == (4,)  # a roll never made: the GM's `N.NAME` entry, recorded as new
    assert [r.name for r in rec.new] == ["1.confirm"]
