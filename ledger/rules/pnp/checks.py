"""Prowlers & Paragons challenge rolls: thresholds, opposed rolls, narrative control, chases.

Text: prowlers-and-paragons.txt, Challenge Rolls; Thresholds; Embellishments; Compromises; Range and Movement.
"""

from __future__ import annotations

from typing import Any

from ledger.errors import BadInput
from ledger.model.dice import Dice, ascii_int
from ledger.model.sheet import CHECK_RESOLVED, NOTE_RECORDED, Effect, Sheet
from ledger.rules.options import Options
from ledger.rules.pnp import options as declared
from ledger.rules.pnp.core import (
    DEFAULT_THRESHOLD,
    THREAT,
    THRESHOLDS,
    Narration,
    ceil_half,
    challenge_row,
    charge,
    check_options,
    is_travel_power,
    norm,
    opt_flag,
    opt_int,
    opt_text,
    other_boost,
    require_able,
    reroll_owed,
    roll_pool,
    trait_rank,
    travel_powers,
)

GM = "GM"  # who narrates for the Opponent when no player opposes the roll

CHECK_OPTIONS = {o.name: o.help for o in declared.CHECK}
CHASE_OPTIONS = {o.name: o.help for o in declared.CHASE}


def threshold(value: str | int) -> int:
    """A threshold: a whole number of at least 0, or a name from the Thresholds table."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    else:
        text = norm(str(value))
        if text in THRESHOLDS:
            return THRESHOLDS[text][0]
        try:
            n = ascii_int(text)
        except ValueError:
            raise BadInput(f"'{value}' is not a threshold", f"a number or one of: {', '.join(THRESHOLDS)}") from None
    if n < 0:
        raise BadInput(f"a threshold can't be below 0, got {n}")
    return n


def narration(row: Narration, actor: str, opponent: str, given: Options) -> tuple[dict[str, Any], list[Effect]]:
    """Who narrates and who may embellish, and the embellishment, compromise and note given, as notes."""
    names = {"actor": actor, "opponent": opponent}
    narrator, embellisher = names[row.narrator], names[row.embellisher] if row.embellisher else None
    data = {"outcome": row.outcome, "narrator": narrator, "narrator_role": row.narrator, "embellisher": embellisher}
    emb, comp, note = (opt_text(given, k) for k in ("embellishment", "compromise", "note"))
    if emb and comp:
        raise BadInput("a compromise is offered instead of the embellishment: give one of them")
    if (emb or comp) and embellisher is None:
        raise BadInput(f"a {row.outcome} allows no embellishment or compromise", f"{narrator} narrates alone")
    notes = []
    if emb:
        notes.append(Effect(NOTE_RECORDED, actor, {"kind": "embellishment", "by": embellisher, "text": emb}))
    if comp:
        notes.append(
            Effect(
                NOTE_RECORDED, actor, {"kind": "compromise", "by": narrator, "instead_of": embellisher, "text": comp}
            )
        )
    if note:
        notes.append(Effect(NOTE_RECORDED, actor, {"kind": "note", "text": note}))
    return data, notes


def _opponent_voice(opponent: Sheet | None) -> str:
    """The Opponent's narrator: the opposing hero's player, otherwise the GM."""
    return opponent.name if opponent is not None and opponent.pc else GM


def check(
    sheet: Sheet,
    trait: str,
    *,
    dc: int | None,
    against: tuple[Sheet, str] | None,
    options: Options,
    dice: Dice,
) -> list[Effect]:
    """A challenge roll: successes minus a threshold (a number, a named one, or the opponent's successes)."""
    given = check_options(options, CHECK_OPTIONS, "check")
    require_able(sheet, "act")
    key, rank = trait_rank(sheet, trait)
    if sum((dc is not None, "threshold" in given, against is not None)) > 1:
        raise BadInput("give one threshold: a DC, a threshold or an opponent")
    extra, reroll = opt_int(given, "extra-dice"), opt_flag(given, "reroll")
    data: dict[str, Any] = {"trait": key, "rank": rank, "extra_dice": extra, "dice": rank + extra}
    opponent: Sheet | None = None
    if against is not None:
        opponent, o_trait = against
        if opponent.name == sheet.name:
            raise BadInput(f"{sheet.name} can't oppose themselves")
        require_able(opponent, "resist")
        o_key, o_rank = trait_rank(opponent, o_trait)
        data.update(threshold_source="opposed", opponent=opponent.name, opponent_trait=o_key, opponent_dice=o_rank)
    elif dc is not None:
        data.update(threshold_source="dc", threshold=threshold(dc))
    elif "threshold" in given:
        data.update(threshold_source="threshold", threshold=threshold(given["threshold"]))
    else:
        data.update(threshold_source="default", threshold=THRESHOLDS[DEFAULT_THRESHOLD][0])
    costs, adversity_due = charge(sheet, extra_dice=extra, reroll=reroll)
    other = other_boost(given, opponent, "against")

    if opponent is not None:  # "they first make their own challenge roll against you"
        data["opponent_dice"] += other.extra
        data["threshold"], o_rerolled = roll_pool(
            dice, "against", data["opponent_dice"], reroll=other.reroll, reroll_name="against-reroll"
        )
        data.update(
            other.data(),
            **({"opponent_successes_before_reroll": o_rerolled["successes_before_reroll"]} if o_rerolled else {}),
        )
    successes, rerolled = roll_pool(dice, "check", rank + extra, reroll=reroll)
    net = successes - data["threshold"]
    told, notes = narration(challenge_row(net), sheet.name, _opponent_voice(opponent), given)
    data.update(successes=successes, **rerolled, net=net, **told, adversity_due=adversity_due + other.adversity_due)
    data.update(adversity_reroll=reroll_owed(sheet, reroll) + other.reroll_due)
    return [*costs, *other.costs, Effect(CHECK_RESOLVED, sheet.name, data), *notes]


def chase_trait(sheet: Sheet, named: str) -> tuple[str, int]:
    """The trait a character chases with: Agility or a Travel Power (default the higher rank); minions, Threat."""
    if sheet.minion:
        return trait_rank(sheet, THREAT)
    if named:
        key = norm(named)
        if key != "agility" and not is_travel_power(sheet, key):
            raise BadInput(f"chases use Agility or a Travel Power, not '{key}'")
        return trait_rank(sheet, key)
    choices = [(sheet.trait(k), 1, k) for k in travel_powers(sheet)]
    choices.append((sheet.trait("agility"), 0, "agility"))  # an Agility not listed is 0 dice (core.trait_rank)
    rank, _, key = max(choices)
    return key, rank


def _chase_dice(sheet: Sheet, key: str, rank: int, other: Sheet, other_key: str) -> tuple[int, bool]:
    """Dice in the chase: half Agility, rounded up, on foot against a Travel Power."""
    halved = key == "agility" and not sheet.minion and is_travel_power(other, other_key)
    return (ceil_half(rank) if halved else rank), halved


def chase(a: Sheet, b: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """A chase: an opposed roll of Agility or Travel Powers; `b` rolls first ('against'), then `a` ('chase')."""
    given = check_options(options, CHASE_OPTIONS, "chase")
    if a.name == b.name:
        raise BadInput(f"{a.name} can't chase themselves")
    require_able(a, "chase")
    require_able(b, "chase")
    a_key, a_rank = chase_trait(a, opt_text(given, "with"))
    b_key, b_rank = chase_trait(b, opt_text(given, "against-with"))
    a_dice, a_half = _chase_dice(a, a_key, a_rank, b, b_key)
    b_dice, b_half = _chase_dice(b, b_key, b_rank, a, a_key)
    extra, reroll = opt_int(given, "extra-dice"), opt_flag(given, "reroll")
    costs, adversity_due = charge(a, extra_dice=extra, reroll=reroll)
    other = other_boost(given, b, "against")
    b_dice += other.extra

    against, o_rerolled = roll_pool(dice, "against", b_dice, reroll=other.reroll, reroll_name="against-reroll")
    successes, rerolled = roll_pool(dice, "chase", a_dice + extra, reroll=reroll)
    net = successes - against
    told, notes = narration(challenge_row(net), a.name, _opponent_voice(b), given)
    data: dict[str, Any] = {
        "kind": "chase", "trait": a_key, "rank": a_rank, "halved": a_half, "extra_dice": extra,
        "dice": a_dice + extra, "opponent": b.name, "opponent_trait": b_key, "opponent_rank": b_rank,
        "opponent_halved": b_half, "opponent_dice": b_dice, "threshold_source": "opposed", "threshold": against,
        "successes": successes, **rerolled, "net": net, **told, "adversity_due": adversity_due + other.adversity_due,
        "adversity_reroll": reroll_owed(a, reroll) + other.reroll_due,
        **other.data(),
        **({"opponent_successes_before_reroll": o_rerolled["successes_before_reroll"]} if o_rerolled else {}),
    }  # fmt: skip
    return [*costs, *other.costs, Effect(CHECK_RESOLVED, a.name, data), *notes]
