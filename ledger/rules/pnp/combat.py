"""Prowlers & Paragons combat: attacks and defenses, damage, special effects and their pages, movement.

Text: prowlers-and-paragons.txt, Combat; Range and Movement; Attacks and Defenses.
"""

from __future__ import annotations

from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice
from ledger.model.sheet import (
    ATTACK_RESOLVED,
    CONDITION_IMPOSED,
    CONDITION_REMOVED,
    COUNTERS_CHANGED,
    DAMAGE_APPLIED,
    EFFECT_RESOLVED,
    MINIONS_DEFEATED,
    Effect,
    Sheet,
)
from ledger.rules.contract import FOURTH
from ledger.rules.durations import ROUNDS, of_condition
from ledger.rules.options import Options
from ledger.rules.pnp import options as declared
from ledger.rules.pnp import timed
from ledger.rules.pnp.core import (
    EFFECT_CONDITIONS,
    EFFECT_PREFIX,
    NOT_DEFENSES,
    SCENE,
    THREAT,
    ceil_half,
    charge,
    check_options,
    defense_kind,
    is_defeated,
    is_power,
    is_travel_power,
    norm,
    opt_flag,
    opt_int,
    opt_text,
    other_boost,
    power_meta,
    require_able,
    require_character,
    reroll_owed,
    roll_pool,
    trait_rank,
    travel_powers,
)
from ledger.rules.pnp.options import RANGES

ATTACK_OPTIONS = {o.name: o.help for o in declared.ATTACK}


def effect_counters(sheet: Sheet) -> dict[str, int]:
    """Active special effects: effect name -> pages left (SCENE for the rest of the scene), kept by the effect's own
    counter or, from the tracker's version 3, by the duration on its condition (ledger/rules/pnp/timed.py)."""
    out: dict[str, int] = {}
    for key, value in sheet.counters.items():
        if key.startswith(EFFECT_PREFIX):
            name = key[len(EFFECT_PREFIX) :]
            out[name] = timed.pages(sheet, name) if value == timed.DURATION else value
    return out


def own_pages(sheet: Sheet) -> dict[str, int]:
    """Special effects whose pages their own counter counts (not a duration; not the rest of the scene)."""
    return {k[len(EFFECT_PREFIX) :]: v for k, v in sheet.counters.items() if k.startswith(EFFECT_PREFIX) and v > 0}


def _impose(sheet: Sheet, condition: str, **data: Any) -> list[Effect]:
    """ConditionImposed unless the sheet already has it."""
    return [] if sheet.has(condition) else [Effect(CONDITION_IMPOSED, sheet.name, {"condition": condition, **data})]


def defeat_by_effects(sheet: Sheet, hp: int) -> list[Effect]:
    """Timed effects whose pages now equal or exceed current Health defeat the target for the rest of the scene."""
    hit = {name: pages for name, pages in effect_counters(sheet).items() if pages != SCENE and pages >= hp}
    if not hit or hp <= 0:
        return []
    return [
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {EFFECT_PREFIX + n: SCENE for n in hit}}),
        *_impose(sheet, "defeated", note=f"defeated by {', '.join(sorted(hit))}"),
        Effect(EFFECT_RESOLVED, sheet.name, {"defeated_by": sorted(hit), "health": hp, "until": "scene"}),
    ]


def lose_health(sheet: Sheet, amount: int) -> list[Effect]:
    """Damage: Health falls by the amount (never below 0); each point defeats one minion; at 0, defeated.

    The damage recorded is what was actually taken (overkill is noted apart); damage that changes nothing is refused.
    """
    have = sheet.count if sheet.minion else sheet.hp
    if have <= 0:
        who = f"every one of {sheet.name} is" if sheet.minion else f"{sheet.name} is at 0 Health and"
        raise ImpossibleAction(f"{who} already defeated: the damage would change nothing", "nothing was recorded")
    if amount <= 0:
        raise BadInput(f"{amount} damage changes nothing", "give the damage taken: --amount N (at least 1)")
    taken = min(amount, have)
    overkill = {"overkill": amount - taken} if amount > taken else {}
    if sheet.minion:
        count = sheet.count - taken
        effects = [
            Effect(DAMAGE_APPLIED, sheet.name, {"amount": taken, "hp": count, **overkill}),
            Effect(MINIONS_DEFEATED, sheet.name, {"defeated": taken, "count": count}),
        ]
        return effects + (_impose(sheet, "defeated") if count == 0 else [])
    hp = sheet.hp - taken
    effects = [Effect(DAMAGE_APPLIED, sheet.name, {"amount": taken, "hp": hp, **overkill})]
    return effects + (_impose(sheet, "defeated") if hp == 0 else defeat_by_effects(sheet, hp))


def special_effect(sheet: Sheet, effect: str, net: int, version: int = 0) -> tuple[int, bool, list[Effect]]:
    """Pages (1 per 2 net successes, rounded up), whether it defeats the target, and its sheet effects. From version
    4 a GM's longer duration on the same condition (`condition add Boss stunned --rounds 3`) stands: the longer of
    the two lasts."""
    pages = ceil_half(net)
    key, condition = EFFECT_PREFIX + effect, EFFECT_CONDITIONS[effect]
    old = effect_counters(sheet).get(effect, 0)
    if version >= FOURTH and old != SCENE:
        old = max(old, sheet.counter(ROUNDS + condition))
    defeats = pages >= sheet.hp or old == SCENE
    counter = SCENE if defeats else max(old, pages)
    effects = [
        Effect(COUNTERS_CHANGED, sheet.name, {"counters": {key: counter}}),
        *_impose(sheet, condition),
        *(_impose(sheet, "defeated", note=f"defeated by {effect}") if defeats else []),
    ]
    return pages, defeats, effects


def best_defense(sheet: Sheet) -> tuple[str, int, str]:
    """The highest-ranked active or passive defense (Agility wins ties); ('none', 0, 'none') without one."""
    options = [
        (v, kind == "active", k, kind)
        for k, v in sheet.traits.items()
        if isinstance(v, int) and (kind := defense_kind(sheet, k)) is not None
    ]
    if not options:
        return "none", 0, "none"
    rank, _, key, kind = max(options)
    return key, rank, kind


def choose_defense(target: Sheet, given: Options, effect: str | None, resist: str) -> tuple[str, int, str]:
    """The trait the target rolls: Threat for minions, the named resistance, a GM override, or the best defense."""
    if target.minion:
        return THREAT, target.trait(THREAT), "threat"
    if effect and resist:
        key, rank = trait_rank(target, resist)
        return key, rank, "resist"
    chosen = norm(opt_text(given, "defend-with"))
    if not chosen:
        return best_defense(target)
    if chosen in NOT_DEFENSES:
        raise BadInput(
            f"{chosen.capitalize()} is not a defense",
            "Might and Toughness never defend: use Agility or a power like Armor",
        )
    kind = defense_kind(target, chosen)
    if kind is None:
        raise BadInput(f"'{chosen}' is not a defense", "defenses are Agility and powers like Armor or Force Field")
    key, rank = trait_rank(target, chosen)
    return key, rank, kind


def _effect_name(given: Options, attacker: Sheet, trait: str) -> str | None:
    """The special effect this attack inflicts, if any (option 'effect', else the power's own)."""
    name = norm(opt_text(given, "effect") or str(power_meta(attacker, trait).get("effect", "")))
    if not name:
        return None
    by_condition = {c: e for e, c in EFFECT_CONDITIONS.items()}
    name = by_condition.get(name, name)
    if name not in EFFECT_CONDITIONS:
        raise BadInput(f"'{name}' is not a special effect", f"known: {', '.join(EFFECT_CONDITIONS)}")
    return name


def attack(attacker: Sheet, target: Sheet, options: Options, dice: Dice, version: int = 0) -> list[Effect]:
    """An attack roll against the target's defense roll; net successes become damage, pages or defeated minions."""
    given = check_options(options, ATTACK_OPTIONS, "attack")
    require_able(attacker, "attack")
    if attacker.name == target.name:
        raise BadInput(f"{attacker.name} can't attack themselves")
    require_character(target)
    if is_defeated(target):
        raise ImpossibleAction(f"{target.name} is already defeated and out of the fight")
    named = opt_text(given, "with")
    if not named and not attacker.minion:
        raise BadInput("say which trait or power attacks", "for example with=blast, or with=might and weapon-bonus=2")
    trait, rank = trait_rank(attacker, named or THREAT)
    bonus = opt_int(given, "weapon-bonus")
    if bonus and (attacker.minion or is_power(trait)):
        raise BadInput(f"a Weapon Bonus adds to an Ability or Talent, not to {trait}")
    effect = _effect_name(given, attacker, trait)
    resist = opt_text(given, "resist") or str(power_meta(attacker, trait).get("resist", ""))
    if opt_text(given, "resist") and not effect:
        raise BadInput("'resist' names what resists a special effect: give an effect too")
    defense, d_rank, d_kind = choose_defense(target, given, effect, resist)
    extra, reroll = opt_int(given, "extra-dice"), opt_flag(given, "reroll")
    costs, adversity_due = charge(attacker, extra_dice=extra, reroll=reroll)
    guard = other_boost(given, target, "defense")

    successes, rerolled = roll_pool(dice, "attack", rank + bonus + extra, reroll=reroll)
    threshold, d_rerolled = roll_pool(
        dice, "defense", d_rank + guard.extra, reroll=guard.reroll, reroll_name="defense-reroll"
    )
    net = successes - threshold
    data: dict[str, Any] = {
        "target": target.name, "with": trait, "rank": rank, "weapon_bonus": bonus, "extra_dice": extra,
        "dice": rank + bonus + extra, "successes": successes, **rerolled,
        "defense": defense, "defense_kind": d_kind, "defense_dice": d_rank + guard.extra, "threshold": threshold,
        **guard.data(),
        **({"defense_successes_before_reroll": d_rerolled["successes_before_reroll"]} if d_rerolled else {}),
        "net": net, "hit": net > 0, "adversity_due": adversity_due + guard.adversity_due,
        "adversity_reroll": reroll_owed(attacker, reroll) + guard.reroll_due,
    }  # fmt: skip
    outcome: list[Effect] = []
    if net <= 0:
        data["outcome"] = "miss"
    elif target.minion:
        data.update(outcome="minions", defeated=min(net, target.count))
        outcome = lose_health(target, net)
    elif effect:
        pages, defeats, outcome = special_effect(target, effect, net, version)
        data.update(outcome="effect", effect=effect, pages=pages, defeated_by_effect=defeats)
    else:
        data.update(outcome="damage", damage=net, health=max(target.hp - net, 0))
        outcome = lose_health(target, net)
    return [*costs, *guard.costs, Effect(ATTACK_RESOLVED, attacker.name, data), *outcome]


def end_of_turn(sheet: Sheet) -> list[Effect]:
    """A page of the character's own turn has passed: timed effects lose a page; at 0 they end."""
    ticking = own_pages(sheet)  # a duration counts the others (ledger/rules/durations.py)
    if not ticking:
        return []
    changes = {EFFECT_PREFIX + n: (p - 1 if p > 1 else None) for n, p in ticking.items()}
    ended = sorted(n for n, p in ticking.items() if p <= 1)
    effects = [Effect(COUNTERS_CHANGED, sheet.name, {"counters": changes})]
    effects += [
        Effect(CONDITION_REMOVED, sheet.name, {"condition": EFFECT_CONDITIONS[n]})
        for n in ended
        if n in EFFECT_CONDITIONS
    ]
    if ended:
        effects.append(Effect(EFFECT_RESOLVED, sheet.name, {"ended": ended}))
    return effects


def end_of_scene(sheet: Sheet) -> list[Effect]:
    """Every special effect ends with the scene; defeat by an effect ends with it unless Health is 0."""
    active = effect_counters(sheet)
    if not active:
        return []
    gone: dict[str, int | None] = {EFFECT_PREFIX + n: None for n in active}
    for n in active:
        if sheet.counter(EFFECT_PREFIX + n) == timed.DURATION:  # and the duration that counted its pages
            gone.update(of_condition(sheet, timed.condition_of(n)))
    effects = [Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone})]
    effects += [
        Effect(CONDITION_REMOVED, sheet.name, {"condition": EFFECT_CONDITIONS[n]})
        for n in sorted(active)
        if n in EFFECT_CONDITIONS and sheet.has(EFFECT_CONDITIONS[n])
    ]
    if SCENE in active.values() and sheet.has("defeated") and sheet.hp > 0:
        effects.append(Effect(CONDITION_REMOVED, sheet.name, {"condition": "defeated", "note": "the scene ended"}))
    return effects


def travel_power_named(sheet: Sheet, named: str) -> str:
    """The Travel Power a move names (`with`), which the sheet must have ('' when none is named)."""
    if not named.strip():
        return ""
    key, _ = trait_rank(sheet, named)
    if not is_travel_power(sheet, key):
        raise BadInput(f"{key} is not a Travel Power", "mark it one: character add ... --power NAME:travel=yes")
    return key


def move(sheet: Sheet, from_range: str, to_range: str, travel_power: bool) -> int:
    """Pages to move: 1 within Close Range; 2 a range class, or 1 with a Travel Power."""
    require_able(sheet, "move")
    a, b = (norm(r) for r in (from_range, to_range))
    for r in (a, b):
        if r not in RANGES:
            raise BadInput(f"'{r}' is not a range class", f"ranges: {', '.join(RANGES)}")
    if travel_power and not travel_powers(sheet):
        raise BadInput(f"{sheet.name} has no Travel Power")
    if a == b == "close":
        return 1
    return abs(RANGES.index(a) - RANGES.index(b)) * (1 if travel_power else 2)
