"""P&P special effects counted as durations (the tracker's version 3): pages are the duration's rounds, the rest of the
scene its `scene:`; the P&P rules that read the pages (defeat by an effect, the end of the scene) read them there.

Text: prowlers-and-paragons.txt, Combat (Attacks: "Special effects: last 1 page for every 2 net successes ... If
the duration of a special effect ever equals or exceeds the target's current Health, the target is "defeated" by
the special effect, which then lasts for the rest of the scene"). Counting: ledger/rules/durations.py.

Counters: `effect:NAME` = DURATION while a duration on its condition counts its pages (else the pages left, or
SCENE, counted by the effect's own end-of-page tick, ledger/rules/pnp/combat.py); `scene:defeated` = 1 while a
defeat by an effect lasts for the rest of the scene.
"""

from __future__ import annotations

from typing import Any

from ledger.model.sheet import Effect, Sheet
from ledger.rules.durations import HELD, ROUNDS, TOTAL, counters_for, name_key, retimed
from ledger.rules.durations import SCENE as SCENE_KEY
from ledger.rules.pnp.core import EFFECT_CONDITIONS, EFFECT_PREFIX, SCENE

DURATION = -2  # `effect:NAME`'s value while a duration counts its pages
PAGES_SINCE = 3  # the tracker's version from which special effects are durations (ledger/rulings/deciders/durations.py)


def condition_of(effect: str) -> str:
    """The condition a special effect imposes (its own name if none is declared)."""
    return EFFECT_CONDITIONS.get(effect, effect)


def pages(sheet: Sheet, effect: str) -> int:
    """Pages left of a special effect a duration counts: its rounds, or SCENE for the rest of the scene."""
    cond = condition_of(effect)
    return SCENE if sheet.counter(SCENE_KEY + cond) else sheet.counter(ROUNDS + cond)


def as_durations(effects: list[Effect], up: str | None, version: int) -> list[Effect]:
    """From the tracker's version 3, the effects' `effect:NAME` pages become the duration `--rounds PAGES` on its
    condition (a page of the bearer's in progress does not count, as for the GM's), SCENE the duration `--scene` on
    it and on the defeat it brings (the rest of the scene)."""
    if version < PAGES_SINCE:
        return effects

    def convert(bearer: str, given: dict[str, Any]) -> dict[str, Any]:
        counters: dict[str, Any] = {}
        for key, value in given.items():
            if not key.startswith(EFFECT_PREFIX) or value is None or (value != SCENE and value <= 0):
                counters[key] = value
                continue
            cond = condition_of(key[len(EFFECT_PREFIX) :])
            counters[key] = DURATION
            if value == SCENE:
                counters.update({ROUNDS + cond: None, TOTAL + cond: None, HELD + cond: None})
                counters.update({SCENE_KEY + cond: 1, SCENE_KEY + "defeated": 1})
            else:
                held = up is not None and name_key(up) == name_key(bearer)
                counters.update(counters_for(cond, rounds=int(value), held=held))
        return counters

    return retimed(effects, convert)
