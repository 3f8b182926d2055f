"""H&H actions of a turn that are no attack: stand, any other action by its kind, ready, shaking an ally free of a
trance, maintaining a Concentration or Sustained power, and extra effort's immediate Resistance check.

Texts: hnh-site/gameplay.txt (Action Types: Full Turn Action, Standard, Move, Free, Reaction; Stand - Move Action;
Ready - Standard Action; Maintaining Effects; Ending Your Turn: "End any Concentration or Sustained duration effects
that you have not maintained"; Death and Power Loss), hnh-site/conditions.txt (Entranced: "An ally can also shake a
character free of the condition with an interaction skill check (DC = effect rank)"), hnh-site/the-basics.txt (Extra
Effort, Resistance: "Gain an immediate additional defense check against any single ongoing effect or condition"),
hnh-site/effect-affliction.txt (Concentration). Readings: docs/interpretations.md (Fourth pass).

Counters: `ready` (a readied action, until the start of the next turn), `sustaining:POWER` (1: maintained this turn
or started in it; 2: not yet maintained this turn), `concentrating:POWER:TARGET` (a Concentration Affliction on
TARGET), `resisted-control:AFFLICTION` (the one extra effort against control spent).
"""

from __future__ import annotations

from typing import Any

from ledger.errors import BadInput, ImpossibleAction
from ledger.model.dice import Dice
from ledger.model.sheet import CHECK_RESOLVED, COUNTERS_CHANGED, EFFECT_RESOLVED, Effect, Sheet, apply_all
from ledger.rules.hnh.afflictions import change_degree, ongoing
from ledger.rules.hnh.checks import degrees, find_power, roll_check, trait_bonus, versus_dc
from ledger.rules.hnh.conditions import check_penalty, effective, removed, require_able
from ledger.rules.hnh.health import passive_roll
from ledger.rules.options import Options

KINDS = ("standard", "move", "free", "full", "reaction")
INTERACTION = ("persuasion", "deception", "intimidation")  # the-basics.txt: the interaction skills
SUSTAINING = "sustaining:"
CONCENTRATING = "concentrating:"
MAINTAINED, DUE = 1, 2
READY = "ready"


def stand(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Stand: prone no more, a move action; as a free action with Instant Up, or by a DC 10 Acrobatics check (roll
    `check`) whose failure wastes the move action "flopping onto the ground"."""
    require_able(actor, "stand")
    if "prone" not in actor.conditions:
        raise ImpossibleAction(f"{actor.name} is not prone", "Stand: you stand up from a prone position")
    data: dict[str, Any] = {"action": "stand", "character": actor.name}
    if actor.trait("instant-up") > 0:
        return [Effect(EFFECT_RESOLVED, actor.name, {**data, "free": "instant up"}), removed(actor, "prone", "stood")]
    if not options.get("acrobatics"):
        return [Effect(EFFECT_RESOLVED, actor.name, data), removed(actor, "prone", "stood")]
    key, bonus, _ = trait_bonus(actor, "acrobatics" if "acrobatics" in actor.traits else "agility")
    r = roll_check(dice, "check", bonus + check_penalty(actor), "ability")
    success, deg = versus_dc(r, 10)
    out = [Effect(CHECK_RESOLVED, actor.name, {"trait": key, **r.data(), "dc": 10, "success": success})]
    if not success:  # "you wasted a move action flopping onto the ground"
        return [*out, Effect(EFFECT_RESOLVED, actor.name, {"action": "try to stand", "kind": "move"})]
    return [*out, Effect(EFFECT_RESOLVED, actor.name, {**data, "kind": "free"}), removed(actor, "prone", "stood")]


def stood_for_free(before: Sheet, after: Sheet, options: Options) -> bool:
    """Whether a stand cost only a free action: Instant Up, or an Acrobatics check that succeeded."""
    return before.trait("instant-up") > 0 or (bool(options.get("acrobatics")) and "prone" not in after.conditions)


def action(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Any other action, by its kind (Action Types): full turn, standard, move, free or a reaction; what it was."""
    kind = str(options.get("kind") or "standard")
    if kind != "free":  # Stunned: "can't take any actions"; free actions while dazed are fine
        require_able(actor, "act")
    what = str(options.get("what") or "")
    if not what:
        raise BadInput("say what the action is", "-o what=TEXT (for example -o what=reload)")
    return [Effect(EFFECT_RESOLVED, actor.name, {"action": what, "kind": kind})]


def ready(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Ready: a standard action (or a full turn, to ready a full-turn action) to take an action later as a reaction;
    it expires at the start of the next turn (ledger/rules/hnh/timed.py gives it that duration)."""
    require_able(actor, "ready an action")
    what = str(options.get("what") or "")
    if not what:
        raise BadInput("say what is readied and when", "-o what='hit the first one through the door'")
    doing = what if what.lower().startswith("to ") else f"to {what}"
    data = {"action": f"ready {doing}", "kind": str(options.get("kind") or "standard")}
    return [Effect(EFFECT_RESOLVED, actor.name, data), Effect(COUNTERS_CHANGED, actor.name, {"counters": {READY: 1}})]


def use_ready(sheet: Sheet) -> list[Effect]:
    """The readied action is taken (an action out of the character's own turn): the readiness is spent."""
    if not sheet.counter(READY):
        return []
    data = {"timed_effect": READY, "expired": "used"}
    gone: dict[str, int | None] = {READY: None, **{k: None for k in sheet.counters if k.endswith(f":{READY}")}}
    return [Effect(EFFECT_RESOLVED, sheet.name, data), Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone})]


def shake(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Shake an entranced ally free: an interaction skill check (roll `check`) against the effect's rank (the
    Affliction that entranced them, else `-o dc=N`); success ends the trance and the Affliction behind it."""
    target = other
    assert target is not None  # Action.other == "needed"
    require_able(actor, "shake anyone free")
    if "entranced" not in target.conditions:
        raise ImpossibleAction(f"{target.name} is not entranced")
    behind = [(a, d) for a, d in ongoing(target) if "entranced" in a.at(d)]
    dc = options.get("dc")
    if dc is None:
        if not behind:
            raise BadInput("the trance's effect rank is not recorded", "give its DC: -o dc=RANK")
        dc = behind[0][0].rank
    trait = str(options.get("trait") or next((t for t in INTERACTION if t in actor.traits), "presence"))
    key, bonus, _ = trait_bonus(actor, trait)
    r = roll_check(dice, "check", bonus + check_penalty(actor), "ability")
    success, deg = versus_dc(r, int(dc))
    data = {"trait": key, **r.data(), "dc": int(dc), "success": success, "degrees": deg, "shaking": target.name}
    out = [Effect(CHECK_RESOLVED, actor.name, data)]
    if not success:
        return out
    now = target
    for a, d in behind:
        step = change_degree(now, a, d, 0, f"shaken free by {actor.name}")
        out += step
        now = apply_all(now, step)
    if "entranced" in now.conditions:
        out.append(removed(now, "entranced", f"shaken free by {actor.name}"))
    return out


# -- Concentration and Sustained powers ---------------------------------------------------------------------
def duration_of(sheet: Sheet, power: str) -> str:
    """A power's duration as its sheet gives it (concentration, sustained, ...; lower case)."""
    return str(sheet.powers.get(power, {}).get("duration") or "").strip().lower()


def _power(actor: Sheet, options: Options) -> str:
    name = str(options.get("power") or "")
    key = find_power(actor, name) if name else None
    if key is None:
        have = [p for p in actor.powers if duration_of(actor, p) in ("concentration", "sustained")]
        raise BadInput(
            f"{actor.name} has no power '{name}'", f"-o power=NAME ({', '.join(have) or 'none to maintain'})"
        )
    if duration_of(actor, key) not in ("concentration", "sustained"):
        raise BadInput(f"{key} is not a Concentration or Sustained power", "only those are maintained turn by turn")
    return key


def maintain(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """Use or maintain a Concentration (a standard action) or Sustained (a free action) power this turn; a
    Concentration Affliction maintained on its target makes them check again with no attack check (roll `resist`)."""
    key = _power(actor, options)
    require_able(actor, f"maintain {key}")
    kind = "standard" if duration_of(actor, key) == "concentration" else "free"
    out = [
        Effect(EFFECT_RESOLVED, actor.name, {"action": f"maintain {key}", "kind": kind}),
        Effect(COUNTERS_CHANGED, actor.name, {"counters": {SUSTAINING + key: MAINTAINED}}),
    ]
    if other is None or duration_of(actor, key) != "concentration":
        return out
    running = [(a, d) for a, d in ongoing(other) if a.name == _slug(key)]
    if not running:
        return out
    a, degree = running[0]
    out.append(Effect(COUNTERS_CHANGED, actor.name, {"counters": {f"{CONCENTRATING}{key}:{other.name}": 1}}))
    return out + again(other, a, degree, dice, "resist", f"{key}: concentration")


def _slug(name: str) -> str:
    # lazy: the affliction's key (afflictions.slug), the same floor
    from ledger.rules.hnh.afflictions import slug

    return slug(name)


def again(target: Sheet, a: Any, degree: int, dice: Dice, roll: str, note: str) -> list[Effect]:
    """A new defense check against a running Affliction (Concentration: "the target must make a new defense check
    against it, with no attack check required"): as the first, the worse of the two degrees stands."""
    # lazy: the Affliction's resolution (afflictions.py), the same floor
    from ledger.rules.hnh.afflictions import resolve_affliction

    return resolve_affliction(target, a, dice, resist_roll=roll)


def unmaintained(sheet: Sheet) -> list[Effect]:
    """End of the bearer's turn: a Concentration or Sustained power not maintained this turn ends; the maintained
    ones are due again next turn."""
    out: list[Effect] = []
    changes: dict[str, int | None] = {}
    for key, value in sorted(sheet.counters.items()):
        if not key.startswith(SUSTAINING):
            continue
        power = key[len(SUSTAINING) :]
        if value == MAINTAINED:
            changes[key] = DUE
            continue
        changes[key] = None
        changes.update({k: None for k in sheet.counters if k.startswith(f"{CONCENTRATING}{power}:")})
        out.append(Effect(EFFECT_RESOLVED, sheet.name, {"timed_effect": power, "expired": "not maintained"}))
    return out + ([Effect(COUNTERS_CHANGED, sheet.name, {"counters": changes})] if changes else [])


def power_loss(sheet: Sheet) -> list[Effect]:
    """Death's Power Loss: every power being maintained ends (Death: "ones that are not permanent or continuous
    duration would end anyway due to lack of maintenance")."""
    gone = {k: None for k in sheet.counters if k.startswith((SUSTAINING, CONCENTRATING))}
    if not gone:
        return []
    lost = sorted(k[len(SUSTAINING) :] for k in gone if k.startswith(SUSTAINING))
    said = [Effect(EFFECT_RESOLVED, sheet.name, {"timed_effect": p, "expired": "death: power loss"}) for p in lost]
    return [*said, Effect(COUNTERS_CHANGED, sheet.name, {"counters": gone})]


def drop(actor: Sheet, other: Sheet | None, options: Options, dice: Dice) -> list[Effect]:
    """End a power you maintain (a free action: Maintaining Effects)."""
    key = _power(actor, options)
    if SUSTAINING + key not in actor.counters:
        raise ImpossibleAction(f"{actor.name} is not maintaining {key}")
    gone: dict[str, int | None] = {SUSTAINING + key: None}
    gone.update({k: None for k in actor.counters if k.startswith(f"{CONCENTRATING}{key}:")})
    return [
        Effect(EFFECT_RESOLVED, actor.name, {"timed_effect": key, "expired": "ended by choice"}),
        Effect(COUNTERS_CHANGED, actor.name, {"counters": gone}),
    ]


# -- extra effort: Resistance ----------------------------------------------------------------------------------
def resist_now(actor: Sheet, options: Options, dice: Dice) -> list[Effect]:
    """Extra effort's Resistance: an immediate defense check (roll `resist`, DC the Affliction's rank) against one
    ongoing Affliction (`-o effect=NAME`, or the only one); success ends it (a Regressive one by its degrees). While
    compelled or controlled it is against the control, once while it lasts."""
    running = ongoing(actor)
    name = str(options.get("effect") or "")
    chosen = [(a, d) for a, d in running if not name or a.name == _slug(name)]
    if not chosen:
        have = ", ".join(a.name for a, _ in running) or "none"
        raise ImpossibleAction(f"{actor.name} has no ongoing effect '{name or '?'}' to resist", f"ongoing: {have}")
    if len(chosen) > 1:
        raise BadInput("name the ongoing effect resisted", f"-o effect={'|'.join(a.name for a, _ in chosen)}")
    a, degree = chosen[0]
    ruled = {"compelled", "controlled"} & set(effective(actor.conditions))
    once = f"resisted-control:{a.name}"
    if ruled:
        if not {"compelled", "controlled"} & set(a.at(degree)):
            raise ImpossibleAction(f"while {'/'.join(sorted(ruled))}, extra effort resists only the control")
        if actor.counter(once):
            raise ImpossibleAction(f"{actor.name} already fought {a.name}'s control once", "the-basics.txt, Resistance")
    r = passive_roll(actor, a.defense, dice, "resist")
    success = r.total >= a.rank
    data = {"trait": a.defense, "effect": a.name, "dc": a.rank, **r.data()}
    data.update(success=success, degrees=degrees(r.total - a.rank), extra_effort="resistance")
    out = [Effect(CHECK_RESOLVED, actor.name, data)]
    if ruled:
        out.append(Effect(COUNTERS_CHANGED, actor.name, {"counters": {once: 1}}))
    if success:
        new = max(0, degree - degrees(r.total - a.rank)) if "regressive" in a.flags else 0
        out += change_degree(apply_all(actor, out), a, degree, new, f"{a.name}: resisted")
    return out
