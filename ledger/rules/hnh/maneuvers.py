"""H&H actions besides attacks: Grab, Escape, Trip, Disarm, Smash, Feint, Demoralize, Aim, Extra Effort, Seize
Initiative.

Source: gameplay.txt (Actions: Aim, Disarm, Escape, Grab, Smash, Trip; Maneuvers: Demoralize, Feint), the-basics.txt
(Extra Effort), conditions.txt (Restrained, Bound, Prone, Vulnerable). Readings: docs/interpretations.md (Actions).

Counters: grabbing:NAME / grabbed-by:NAME (a hold), feint:NAME (1 spent, 2 once the feinter's next turn started; the
target is vulnerable against the feinter's next attack), aim (the next attack aims), extra-effort (1: fatigue at the
start of the next turn), extra-strength (the +1 Strength ends at the start of the next turn), seize-initiative.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.errors import BadInput, ImpossibleAction, LedgerError
from ledger.model.dice import Dice
from ledger.model.sheet import (
    CHECK_RESOLVED,
    CONDITION_IMPOSED,
    COUNTERS_CHANGED,
    DAMAGE_APPLIED,
    EFFECT_RESOLVED,
    MINIONS_DEFEATED,
    TRAITS_CHANGED,
    Effect,
    Sheet,
    apply_all,
)
from ledger.rules.contract import FOURTH
from ledger.rules.durations import holds_duration, of_condition
from ledger.rules.hnh.checks import (
    Rolled,
    active_defense,
    check_penalty,
    defense_rank,
    degrees,
    find_power,
    opposed_winner,
    roll_check,
    trait_bonus,
    versus_dc,
)
from ledger.rules.hnh.conditions import effective, impose_effects, removed, require_able
from ledger.rules.hnh.victory import pay
from ledger.rules.options import Options

OBJECT_STATES = ("intact", "bent", "broken", "destroyed")
AIM_AT = "aim-at:"  # aim-at:TARGET -- the target aimed at (`act NAME aim --against WHO`)
INCREASED = "increased-rank:"  # increased-rank:POWER -- extra effort's +1 rank for 1 round
AIM_VULNERABLE = "aim-vulnerable"  # 1: the aim made the aimer vulnerable; 2: they were already (from version 4)
EFFORTS = ("action", "bonus", "increased-rank", "power-stunt", "resistance", "retry", "speed", "strength")


def _need(other: Sheet | None) -> Sheet:
    assert other is not None  # Action.other == "needed"
    return other


def _int(options: Options, key: str, default: int) -> int:
    v = options.get(key)
    return default if v is None else int(v)


def strike(
    attacker: Sheet, target: Sheet, dice: Dice, bonus: int, *, close: bool = True, modifier: int = 0
) -> tuple[bool, dict[str, Any]]:
    """An attack check (roll `attack`) against Parry (close) or Dodge (roll `defense`): hit or miss."""
    require_able(attacker, "act")
    prone = prone_modifier(attacker, target, close)
    atk = roll_check(dice, "attack", bonus + modifier + prone + check_penalty(attacker), "attack")
    dfn = active_defense(target, "parry" if close else "dodge", dice, "defense")
    hit = not atk.automatic_failure and (atk.critical == "success" or atk.total >= dfn.total or dfn.automatic_failure)
    return hit, {
        "attack": atk.data(),
        "defense": "parry" if close else "dodge",
        "defense_check": dfn.data(),
        "modifier": modifier,
        **({"prone": prone} if prone else {}),
        "hit": hit,
    }


def prone_modifier(attacker: Sheet, target: Sheet, close: bool) -> int:
    """Prone (conditions.txt): -1 on the prone character's close attacks; +1 to close attacks against them (-1
    ranged)."""
    mine = -1 if close and "prone" in effective(attacker.conditions) else 0
    theirs = (1 if close else -1) if "prone" in effective(target.conditions) else 0
    return mine + theirs


def opposed(actor: Sheet, mine: Rolled, other: Sheet, theirs: Rolled) -> dict[str, Any]:
    """An opposed check's winner and degrees (ties to the higher bonus)."""
    winner = opposed_winner(actor.name, mine, other.name, theirs)
    return {
        "check": mine.data(),
        "against": theirs.data(),
        "winner": winner,
        "degrees": degrees(mine.total - theirs.total),
    }


def unarmed_bonus(sheet: Sheet) -> int:
    """Close Combat: Unarmed, else Fighting."""
    return sheet.trait("close-combat-unarmed", sheet.trait("fighting"))


# -- Grab, Escape, release ------------------------------------------------------------------------------
def grab(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Grab: attack check, then Strength against Strength; win by 1 degree restrained, by 2 bound; improving a hold."""
    target = _need(other)
    strength = max(actor.trait("strength"), _int(options, "rank", 0))  # "use whichever is higher"
    holding = bool(actor.counter(f"grabbing:{target.name}"))
    data: dict[str, Any] = {"action": "grab", "attacker": actor.name, "target": target.name, "strength": strength}
    if not holding:
        hit, info = strike(actor, target, dice, unarmed_bonus(actor))
        data.update(info)
        if not hit:
            return [Effect(EFFECT_RESOLVED, target.name, data)]
    else:
        require_able(actor, "grab")
    mine = roll_check(dice, "strength", strength + check_penalty(actor), "ability")
    theirs = roll_check(dice, "against", target.trait("strength") + check_penalty(target), "ability")
    res = opposed(actor, mine, target, theirs)
    data.update(res, improving=holding)
    out = [Effect(EFFECT_RESOLVED, target.name, data)]
    if res["winner"] == actor.name:
        cond = "bound" if holding or res["degrees"] >= 2 else "restrained"
        out += impose_effects(target, cond, f"grabbed by {actor.name}")
        if not holding:  # "You are hindered and vulnerable while grabbing and holding an opponent"
            out += _hold(actor, target)
    elif res["winner"] == target.name and holding:  # "if you lose the target escapes"
        out += release_effects(actor, target, "escaped the hold")
    return out


def _hold(actor: Sheet, target: Sheet) -> list[Effect]:
    out = [
        Effect(COUNTERS_CHANGED, actor.name, {"counters": {f"grabbing:{target.name}": 1}}),
        Effect(COUNTERS_CHANGED, target.name, {"counters": {f"grabbed-by:{actor.name}": 1}}),
    ]
    me = actor
    for c in ("hindered", "vulnerable"):
        if c not in me.conditions:
            step = impose_effects(me, c, f"holding {target.name}")
            out += step
            me = apply_all(me, step)
    return out


def release_effects(holder: Sheet, held: Sheet, note: str) -> list[Effect]:
    """A grab ends: the hold's conditions go on both sides."""
    out = [removed(held, c, note) for c in ("restrained", "bound") if c in held.conditions]
    out += [removed(holder, c, note) for c in ("hindered", "vulnerable") if c in holder.conditions]
    out += [
        Effect(COUNTERS_CHANGED, holder.name, {"counters": {f"grabbing:{held.name}": None}}),
        Effect(COUNTERS_CHANGED, held.name, {"counters": {f"grabbed-by:{holder.name}": None}}),
    ]
    return out


def fallen_holds(effects: list[Effect], sheet_of: Callable[[str], Sheet]) -> list[Effect]:
    """A hold ends when either side dies or falls from a minion group: the other side's hold conditions go."""
    gone = {e.target for e in effects if e.event == MINIONS_DEFEATED}
    gone |= {e.target for e in effects if e.event == CONDITION_IMPOSED and e.data.get("condition") == "dead"}
    out: list[Effect] = []
    for e in effects:
        if e.target not in gone or e.event not in (DAMAGE_APPLIED, COUNTERS_CHANGED):
            continue
        for key, value in (e.data.get("counters") or {}).items():
            side, _, partner = key.partition(":")
            if value is not None or side not in ("grabbing", "grabbed-by"):
                continue
            mine = f"{'grabbed-by' if side == 'grabbing' else 'grabbing'}:{e.target}"
            try:
                other = sheet_of(partner)
            except LedgerError:  # the partner is no longer on the roster: nothing of theirs to end
                continue
            if not other.counter(mine):
                continue
            lost = ("restrained", "bound") if side == "grabbing" else ("hindered", "vulnerable")
            note = f"{e.target} fell: the hold ends"
            out += [removed(other, c, note) for c in lost if c in other.conditions]
            out.append(Effect(COUNTERS_CHANGED, other.name, {"counters": {mine: None}}))
    return out


def unable_holds(effects: list[Effect], sheet_of: Callable[[str], Sheet]) -> list[Effect]:
    """A holder who can no longer take the free action that maintains the hold (stunned, and so incapacitated or
    dying) lets go: Grab, "If you are unable to take the free action maintain the hold, the target is automatically
    released"."""
    out: list[Effect] = []
    for name in dict.fromkeys(e.target for e in effects if e.event == CONDITION_IMPOSED and e.target):
        try:
            holder = sheet_of(name)
        except LedgerError:
            continue
        if "stunned" not in effective(holder.conditions):
            continue
        for key in sorted(k for k in holder.counters if k.startswith("grabbing:")):
            try:
                held = sheet_of(key.partition(":")[2])
            except LedgerError:
                continue
            out += release_effects(holder, held, f"{holder.name} can't maintain the hold")
            holder = apply_all(holder, out)
    return out


def release(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Release a grabbed target (a free action)."""
    target = _need(other)
    if not actor.counter(f"grabbing:{target.name}"):
        raise ImpossibleAction(f"{actor.name} is not holding {target.name}")
    return release_effects(actor, target, "released")


def escape(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Escape: a skill check (Athletics, or `trait`) against the routine check of the holder's Strength."""
    holder = _need(other)
    if not actor.counter(f"grabbed-by:{holder.name}"):
        raise ImpossibleAction(f"{actor.name} is not held by {holder.name}")
    trait = str(options.get("trait") or "athletics")
    key, bonus, _ = trait_bonus(actor, trait if trait in actor.traits else "strength")
    r = roll_check(dice, "check", bonus + check_penalty(actor), "ability")
    dc = max(holder.trait("strength"), _int(options, "rank", 0))
    success, deg = versus_dc(r, dc)
    data = {"action": "escape", "trait": key, **r.data(), "dc": dc, "success": success, "degrees": deg}
    out = [Effect(CHECK_RESOLVED, actor.name, data)]
    return out + (release_effects(holder, actor, "escaped") if success else [])


# -- Trip, Disarm, Smash ---------------------------------------------------------------------------------
def trip(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Trip: close attack at -1 against Parry; then damage rank against Acrobatics (or Agility): the loser is prone."""
    target = _need(other)
    hit, info = strike(actor, target, dice, unarmed_bonus(actor), modifier=-1)
    data: dict[str, Any] = {"action": "trip", "attacker": actor.name, "target": target.name, **info}
    if not hit:
        return [Effect(EFFECT_RESOLVED, target.name, data)]
    power = roll_check(dice, "power", _int(options, "rank", actor.trait("strength")), "power")
    skill = "acrobatics" if "acrobatics" in target.traits else "agility"
    theirs = roll_check(dice, "against", trait_bonus(target, skill)[1] + check_penalty(target), "ability")
    res = opposed(actor, power, target, theirs)
    data.update(res, resisted_with=skill)
    out = [Effect(EFFECT_RESOLVED, target.name, data)]
    if res["winner"] == actor.name and "prone" not in target.conditions:
        out += impose_effects(target, "prone", f"tripped by {actor.name}")
    return out


def disarm(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Disarm: attack at -1 (-2 hand held, -1 more ranged); then damage rank against Strength (held) or the binding's
    Toughness."""
    target = _need(other)
    held = options.get("held", True) is not False
    ranged = str(options.get("range") or "close") == "ranged"
    hit, info = strike(
        actor,
        target,
        dice,
        _int(options, "bonus", unarmed_bonus(actor)),
        close=not ranged,
        modifier=(-2 if held else -1) - (1 if ranged else 0),
    )
    data: dict[str, Any] = {
        "action": "disarm",
        "attacker": actor.name,
        "target": target.name,
        "item": options.get("item", "item"),
        **info,
    }
    if not hit:
        return [Effect(EFFECT_RESOLVED, target.name, data)]
    power = roll_check(dice, "power", _int(options, "rank", actor.trait("strength")), "power")
    resist = target.trait("strength") if held else _int(options, "binding", 0)
    theirs = roll_check(dice, "against", resist, "ability" if held else "passive")
    res = opposed(actor, power, target, theirs)
    data.update(res, dropped=res["winner"] == actor.name)
    return [Effect(EFFECT_RESOLVED, target.name, data)]


def smash(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Smash: attack the holder's defense (-1 for a held object); then damage against the object's Toughness."""
    target = _need(other)
    held = options.get("held", True) is not False
    ranged = str(options.get("range") or "close") == "ranged"
    hit, info = strike(
        actor, target, dice, _int(options, "bonus", unarmed_bonus(actor)), close=not ranged, modifier=-1 if held else 0
    )
    data: dict[str, Any] = {
        "action": "smash",
        "attacker": actor.name,
        "target": target.name,
        "item": options.get("item", "item"),
        **info,
    }
    if not hit:
        return [Effect(EFFECT_RESOLVED, target.name, data)]
    power = roll_check(dice, "power", _int(options, "rank", actor.trait("strength")), "power")
    resist = roll_check(dice, "toughness", _int(options, "object-toughness", 0), "passive")
    diff = resist.total - power.total
    before = OBJECT_STATES.index(str(options.get("object-state") or "intact"))
    steps = 0 if diff >= 0 else degrees(diff)  # Damaging Objects: 1 bent, 2 broken, 3+ destroyed; cumulative
    state = OBJECT_STATES[min(3, before + steps)]
    data.update(power=power.data(), resistance=resist.data(), difference=diff, object_state=state)
    return [Effect(EFFECT_RESOLVED, target.name, data)]


# -- Feint, Demoralize, Aim ----------------------------------------------------------------------------------
def feint(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Feint: Deception against the better of the target's Deception or Insight; success: vulnerable to the next
    attack."""
    target = _need(other)
    require_able(actor, "feint")
    mine_bonus = actor.trait("deception", actor.trait("presence"))
    their_bonus, best = max(
        (target.trait("deception", target.trait("presence")), "deception"),
        (target.trait("insight", target.trait("awareness")), "insight"),
    )
    mine = roll_check(dice, "check", mine_bonus + check_penalty(actor), "ability")
    theirs = roll_check(dice, "against", their_bonus + check_penalty(target), "ability")
    res = opposed(actor, mine, target, theirs)
    out = [
        Effect(
            EFFECT_RESOLVED,
            target.name,
            {"action": "feint", "attacker": actor.name, "target": target.name, "resisted_with": best, **res},
        )
    ]
    if res["winner"] == actor.name:
        out.append(Effect(COUNTERS_CHANGED, actor.name, {"counters": {f"feint:{target.name}": 1}}))
    return out


def demoralize(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Demoralize: Intimidation against the better of Insight or Will; impaired (disabled at 4 degrees) until the end of
    the target's next turn."""
    target = _need(other)
    require_able(actor, "demoralize")
    skill = next((t for t in ("intimidation", "demoralize") if t in actor.traits), "presence")
    mine = roll_check(dice, "check", actor.trait(skill) + check_penalty(actor), "ability")
    resist = max(target.trait("insight", target.trait("awareness")), defense_rank(target, "will"))
    theirs = roll_check(dice, "against", resist + check_penalty(target), "ability")
    res = opposed(actor, mine, target, theirs)
    out = [
        Effect(
            EFFECT_RESOLVED,
            target.name,
            {"action": "demoralize", "attacker": actor.name, "target": target.name, "skill": skill, **res},
        )
    ]
    if res["winner"] != actor.name:
        return out
    cond = "disabled" if res["degrees"] >= 4 else "impaired"
    if cond in target.conditions:
        return out
    out += impose_effects(target, cond, f"demoralized by {actor.name}")
    return out + [Effect(COUNTERS_CHANGED, target.name, {"counters": {f"until-end-of-turn:{cond}": 1}})]


def aim(actor: Sheet, other: Sheet | None, options: Options, dice: Dice, version: int = 0) -> list[Effect]:
    """Aim: the next attack gets the aim bonus; vulnerable while aiming (until that attack or the next turn ends).

    From version 4 the aim remembers whether it made the aimer vulnerable (`aim-vulnerable` 1) or found them so
    already (2): its end takes only its own vulnerability along (Aim: "You are vulnerable while aiming")."""
    require_able(actor, "aim")
    ctr: dict[str, int | None] = {"aim": 1, **{k: None for k in actor.counters if k.startswith(AIM_AT)}}
    if other is not None:  # Aim: "a bonus to hit when you make the attack against that target"
        ctr[AIM_AT + other.name] = 1
    if version >= FOURTH:
        ctr[AIM_VULNERABLE] = 2 if "vulnerable" in actor.conditions else 1
    out = [Effect(COUNTERS_CHANGED, actor.name, {"counters": ctr})]
    if "vulnerable" not in actor.conditions:
        out += impose_effects(actor, "vulnerable", "aiming")
    return out


def aim_begun(sheet: Sheet) -> bool:
    """Whether the aim was started in the aimer's turn still in progress (its duration to the end of the next turn
    has both ends of turn still to pass): Aim, "You can't attack the target the same turn you start aiming"."""
    return sheet.counter(f"until-end:{sheet.name}:aim") >= 2


def aimed_at(sheet: Sheet, target: str) -> bool:
    """Whether an aim holds for an attack on `target`: none named, or this one ("attacking a different target
    spoils")."""
    named = [k[len(AIM_AT) :] for k in sheet.counters if k.startswith(AIM_AT)]
    return bool(sheet.counter("aim")) and (not named or target in named)


def end_aim(sheet: Sheet, note: str) -> list[Effect]:
    """Aim is spent (or lost): the counter and the aiming vulnerability go."""
    if not sheet.counter("aim"):
        return []
    gone: dict[str, int | None] = {"aim": None, **{k: None for k in sheet.counters if k.startswith(AIM_AT)}}
    gone.update(of_condition(sheet, "aim"))  # and the duration that counts it, if one does (ledger/rules/hnh/timed.py)
    own = AIM_VULNERABLE not in sheet.counters or sheet.counter(AIM_VULNERABLE) == 1  # the aim's own vulnerability
    if AIM_VULNERABLE in sheet.counters:
        gone[AIM_VULNERABLE] = None
    out = [Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone})]
    return out + ([removed(sheet, "vulnerable", note)] if own and "vulnerable" in sheet.conditions else [])


def turn_started(sheet: Sheet) -> dict[str, int | None]:
    """A turn starts: feints spent before it now last to its end, and so does an ally's aid."""
    out: dict[str, int | None] = {k: 2 for k, v in sheet.counters.items() if k.startswith("feint:") and v == 1}
    out = {k: v for k, v in out.items() if not holds_duration(sheet, f"feint ({k[6:]})")}  # a duration counts it
    if any(k.startswith(AIDS) and not holds_duration(sheet, _aid_name(k)) for k in sheet.counters):
        out["aid-running"] = 1
    return out


AIDS = ("aid-attack:", "aid-defense:")


def _aid_name(key: str) -> str:
    """The name a duration gives an ally's aid (ledger/rules/hnh/timed.py): `aid attack (Bob)`."""
    head, _, who = key.partition(":")
    return f"{head.replace('-', ' ')} ({who})"


def turn_ended(sheet: Sheet) -> list[Effect]:
    """The end of the turn after a feint or an aim: unused, they are lost."""
    done: dict[str, int | None] = {
        k: None
        for k, v in sheet.counters.items()
        if k.startswith("feint:") and v >= 2 and not holds_duration(sheet, f"feint ({k[6:]})")
    }
    if sheet.counter("aid-running"):  # Aid: "for 1 round" -- to the end of the ally's next turn
        done["aid-running"] = None
        done.update({k: None for k in sheet.counters if k.startswith(AIDS) and not holds_duration(sheet, _aid_name(k))})
    out = [Effect(COUNTERS_CHANGED, sheet.name, {"counters": done})] if done else []
    if holds_duration(sheet, "aim"):  # a duration counts it (the tracker's version 3): it ends the aim
        pass
    elif sheet.counter("aim") >= 2:
        out += end_aim(sheet, "aim not used")
    elif sheet.counter("aim"):
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"aim": 2}}))
    return out


# -- Extra Effort, Seize Initiative --------------------------------------------------------------------------
def extra_effort(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Extra Effort: one benefit (once per turn); fatigued at the start of the next turn."""
    require_able(actor, "use extra effort")
    benefit = str(options.get("benefit") or "")
    if benefit not in EFFORTS:
        raise BadInput("choose the benefit of the extra effort", f"-o benefit={'|'.join(EFFORTS)}")
    if actor.counter("extra-effort"):
        raise ImpossibleAction(
            f"{actor.name} already used extra effort this turn", "extra effort is limited to once per turn"
        )
    out = [
        Effect(
            EFFECT_RESOLVED,
            actor.name,
            {"action": "extra-effort", "benefit": benefit, "cost": "fatigued at the start of the next turn"},
        ),
        Effect(COUNTERS_CHANGED, actor.name, {"counters": {"extra-effort": 1}}),
    ]
    if benefit == "increased-rank" and options.get("power"):  # "Increase one of your hero's power effects by +1
        # rank for 1 round" (named from version 4: -o power=NAME; the +1 is read by the attack, combat.weapon)
        key = find_power(actor, str(options["power"]))
        if key is None:
            raise BadInput(f"{actor.name} has no power '{options['power']}'", f"powers: {', '.join(actor.powers)}")
        if str(actor.powers[key].get("duration") or "").lower() == "permanent":
            raise ImpossibleAction(f"{key} is permanent", "Increased Rank: permanent effects cannot be increased")
        out.append(Effect(COUNTERS_CHANGED, actor.name, {"counters": {f"{INCREASED}{key}": 1}}))
    if benefit == "strength":  # "Increase the hero's Strength rank by +1 for 1 round"
        out += [
            Effect(
                TRAITS_CHANGED,
                actor.name,
                {"traits": {"strength": actor.trait("strength") + 1}, "note": "extra effort"},
            ),
            Effect(COUNTERS_CHANGED, actor.name, {"counters": {"extra-strength": 1}}),
        ]
    return out


def effort_cost(sheet: Sheet) -> list[Effect]:
    """Start of the turn after extra effort: fatigued (progressing), and +1 Strength ends."""
    out: list[Effect] = []
    if sheet.counter("extra-strength") and not holds_duration(sheet, "extra strength"):  # else a duration ends it
        out += [
            Effect(
                TRAITS_CHANGED,
                sheet.name,
                {"traits": {"strength": sheet.trait("strength") - 1}, "note": "extra effort over"},
            ),
            Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"extra-strength": None}}),
        ]
    if sheet.counter("extra-effort"):
        out.append(Effect(COUNTERS_CHANGED, sheet.name, {"counters": {"extra-effort": None}}))
        now = apply_all(sheet, out)
        if not now.has("dead"):
            out += impose_effects(now, "fatigued", "extra effort")
    return out


def seize_initiative(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Seize Initiative: with the advantage, a victory point makes the hero go first when initiative is next rolled."""
    if actor.trait("seize-initiative") <= 0:
        raise ImpossibleAction(
            f"{actor.name} lacks the Seize Initiative advantage",
            "add --trait seize-initiative=1 (or spend a heroic feat)",
        )
    if actor.counter("seize-initiative"):
        raise ImpossibleAction(f"{actor.name} is already set to seize the initiative")
    return [
        pay(actor, 1, "seize-initiative"),
        Effect(COUNTERS_CHANGED, actor.name, {"counters": {"seize-initiative": 1}}),
    ]
