"""Import a Humans & Heroes character-creator save file (version 2) into traits and powers.

Source: fixtures/README.md (purchased ranks; defense totals; layered Toughness), hnh-site/defenses.txt,
effect-protection.txt ("layered ... the Defensive Roll advantage stacks"), effect-affliction.txt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ledger.errors import BadInput
from ledger.model.dice import ascii_int
from ledger.rules.hnh.afflictions import slug
from ledger.rules.hnh.options import AFFLICTION_DEGREES

ABILITY_KEYS = ("Strength", "Agility", "Fighting", "Dexterity", "Stamina", "Intellect", "Awareness", "Presence")
DEFENSE_BASE = {"Dodge": "agility", "Parry": "fighting", "Fortitude": "stamina", "Will": "presence"}
CORE = {a.lower() for a in ABILITY_KEYS} | {d.lower() for d in DEFENSE_BASE} | {"toughness", "improved-initiative"}
AFFLICTION_WORDS = frozenset().union(*AFFLICTION_DEGREES)  # the conditions an Affliction may impose


def _rank(value: Any, what: str) -> int:
    """A whole-number rank; None, '' and '--' are an absent trait (0)."""
    if value is None or value in ("", "--", "-"):
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise BadInput(f"{what} is not a number: {value!r}")
    try:
        return ascii_int(value)
    except ValueError:
        raise BadInput(f"{what} is not a number: {value!r}") from None


def _list(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = data.get(key, [])
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise BadInput(f"the save file's {key} is not a list of entries")
    return items


def abilities(data: Mapping[str, Any]) -> dict[str, int]:
    """The eight abilities as saved; an absent ability counts as 0."""
    ab = data.get("Abilities")
    if not isinstance(ab, dict):
        raise BadInput("the save file has no Abilities")
    return {k.lower(): _rank(ab.get(k), k) for k in ABILITY_KEYS}


def toughness(ab: Mapping[str, int], effects: list[Mapping[str, Any]], advantages: list[Mapping[str, Any]]) -> int:
    """Toughness = max(Stamina, best Protection rank) + Defensive Roll ranks (layered; none from Growth)."""
    prot = [_rank(p.get("rank"), "Protection rank") for p in effects if p.get("effect") == "Protection"]
    return max([ab["stamina"], *prot]) + advantage_rank(advantages, "Defensive Roll")


def advantage_rank(advantages: list[Mapping[str, Any]], name: str) -> int:
    """Ranks of an advantage (1 when it has no rank), 0 when absent."""
    return sum(_rank(a.get("rank", 1), name) or 1 for a in advantages if a.get("name") == name)


def skills(ab: Mapping[str, int], entries: list[Mapping[str, Any]]) -> dict[str, int]:
    """Skill totals (ability + ranks) under lower-case hyphenated keys: 'ranged-combat-pistols', 'perception'."""
    out: dict[str, int] = {}
    for s in entries:
        name, sub = str(s.get("name") or ""), str(s.get("subtype") or "")
        if not name:
            raise BadInput("a skill in the save file has no name")
        key = slug(sub) if name == "Other" and sub else slug(f"{name} {sub}")
        if key in CORE:
            key = f"skill-{key}"
        total = ab.get(str(s.get("ability") or "").lower(), 0) + _rank(s.get("rank"), f"skill {name}")
        out[key] = max(total, out.get(key, total))
    return out


def _attack_bonus(ab: Mapping[str, int], power: Mapping[str, Any], rng: str, entries: list[Mapping[str, Any]]) -> int:
    skill_name = "Close Combat" if rng == "close" else "Ranged Combat"
    for s in entries:
        if s.get("name") == skill_name and power.get("skill") and s.get("subtype") == power.get("skill"):
            return ab.get(str(s.get("ability") or "").lower(), 0) + _rank(s.get("rank"), skill_name)
    return ab["fighting"] if rng == "close" else ab["dexterity"]


def _affliction(power: Mapping[str, Any], mods: list[Mapping[str, Any]]) -> dict[str, Any]:
    text = str(power.get("text") or "")
    found = [w for w in re.findall(r"[a-z]+", text.lower()) if w in AFFLICTION_WORDS]
    conds = list(dict.fromkeys(found))[:3]
    extras = " ".join(str(m.get("text", "")) + " " + str(m.get("name", "")) for m in mods).lower()
    out: dict[str, Any] = {"resisted-by": "will" if re.search(r"\bwill\b", text.lower()) else "fortitude"}
    if conds:
        out["conditions"] = conds
    for flag in ("cumulative", "progressive", "regressive", "unrecoverable"):
        if flag in extras:
            out[flag] = True
    if "instant recovery" in extras:  # effect-affliction.txt, Flaws
        out["instant-recovery"] = True
    limited = sum(1 for m in mods if "limited degree" in f"{m.get('text', '')} {m.get('name', '')}".lower())
    if limited:
        out["limited-degree"] = min(2, limited * max(1, int(_rank_of(mods, "limited degree"))))
    return out


def _rank_of(mods: list[Mapping[str, Any]], name: str) -> int:
    """How many applications a modifier has (its `applications` or `rank`, else 1)."""
    for m in mods:
        if name in f"{m.get('text', '')} {m.get('name', '')}".lower():
            try:
                return int(m.get("applications") or m.get("rank") or 1)
            except (TypeError, ValueError):
                return 1
    return 1


def power_entry(
    ab: Mapping[str, int], p: Mapping[str, Any], equipment: bool, entries: list[Mapping[str, Any]]
) -> dict[str, Any]:
    """One power or piece of equipment as Sheet.powers data."""
    effect = p.get("effect")
    if not isinstance(effect, str) or not effect:
        raise BadInput("a power in the save file has no effect")
    mods = p.get("Modifiers") or []
    if not isinstance(mods, list):
        raise BadInput(f"the modifiers of {effect} are not a list")
    names = [str(m.get("name", "")) for m in mods if isinstance(m, dict)]
    texts = " ".join(str(m.get("text", "")) for m in mods if isinstance(m, dict)).lower()
    rng = str(p.get("range") or "personal").lower()
    entry: dict[str, Any] = {
        "effect": effect,
        "rank": _rank(p.get("rank"), f"{effect} rank"),
        "range": rng,
        "action": str(p.get("action") or ""),
        "duration": str(p.get("duration") or ""),
        "text": str(p.get("text") or ""),
        "equipment": equipment,
        "modifiers": names,
    }
    if "Area" in names:
        entry["area"] = True
    if effect in ("Damage", "Affliction"):
        entry["attack"] = _attack_bonus(ab, p, rng, entries)
        if p.get("skill"):
            entry["skill"] = str(p["skill"])
    if effect == "Damage":
        if "strength-based" in texts:
            entry["strength-based"] = True
        if any(n.startswith("Alternate Resistance") for n in names) and "will" in texts:
            entry["resisted-by"] = "will"
    if effect == "Affliction":
        entry.update(_affliction(p, [m for m in mods if isinstance(m, dict)]))
    return entry


def _power_name(p: Mapping[str, Any]) -> str:
    if p.get("name"):
        return slug(str(p["name"])) or slug(str(p["effect"]))
    first = re.split(r"[.:;(]", str(p.get("text") or ""))[0]
    return slug(first)[:40].strip("-") or slug(str(p["effect"]))


def import_character(data: dict[str, Any]) -> tuple[str, dict[str, int], dict[str, dict[str, Any]]]:
    """(name, traits, powers) from a character-creator save; a malformed file is BadInput."""
    if not isinstance(data, dict):
        raise BadInput("a character save file is a JSON object")
    hero = data.get("Hero")
    if not isinstance(hero, dict) or not isinstance(hero.get("name"), str) or not hero["name"].strip():
        raise BadInput("the save file has no Hero name", "is this a Humans & Heroes character-creator file?")
    ab = abilities(data)
    defenses = data.get("Defenses") or {}
    if not isinstance(defenses, dict):
        raise BadInput("the save file's Defenses are not a mapping")
    powers_in, equip_in = _list(data, "Powers"), _list(data, "Equipment")
    advantages, skill_entries = _list(data, "Advantages"), _list(data, "Skills")
    traits: dict[str, int] = dict(ab)
    for d, base in DEFENSE_BASE.items():
        traits[d.lower()] = ab[base] + _rank(defenses.get(d), d)
    traits["toughness"] = toughness(ab, powers_in + equip_in, advantages)
    ii = advantage_rank(advantages, "Improved Initiative")
    if ii:
        traits["improved-initiative"] = ii
    if advantage_rank(advantages, "Diehard"):
        traits["diehard"] = 1
    traits.update(skills(ab, skill_entries))
    powers: dict[str, dict[str, Any]] = {}
    for p, equipment in [(p, False) for p in powers_in] + [(p, True) for p in equip_in]:
        entry = power_entry(ab, p, equipment, skill_entries)
        key, n = _power_name(p), 2
        while key in powers:
            key, n = f"{_power_name(p)}-{n}", n + 1
        powers[key] = entry
    return hero["name"].strip(), traits, powers
