"""Where a forecast starts, read from a ledger's write side: the running encounter, the state after ruling N, or a
planned fight of named characters. Nothing is written: the aggregates are read, or folded from their live records.

The state after ruling N is the live history's (retracted and undone rulings left out, as `character show --at N`
reads it): each aggregate's live records of rulings 1..N folded by the domain's own folds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger.aggregates import CAMPAIGN_ID, Campaign, fold_campaign, fold_character, live_records
from ledger.encounter import ENCOUNTER_ID, fold_encounter, round_tallies
from ledger.errors import BadInput, NotFound, did_you_mean
from ledger.model.sheet import Sheet, is_gm_pool
from ledger.odds.engine import FOES, HEROES, Fighter, Start
from ledger.odds.tactics import best_attack, spending
from ledger.rules import get_rules
from ledger.rules.contract import RuleSystem
from ledger.rulings.deciders.durations import TRACKER
from ledger.storage.store import EventStore


class Reads(Protocol):
    """What a forecast reads of a Ledger (ledger/app/core.py LedgerCore)."""

    @property
    def store(self) -> EventStore: ...

    def campaign(self) -> Campaign: ...


def fighter(rules: RuleSystem, sheet: Sheet, side: str) -> Fighter:
    """A combatant with its plain attack's options, typed by the rules' declarations as `ledger attack` types them."""
    given, danger = best_attack(rules, sheet)
    spends = spending(rules, sheet, given)
    spend = (spends[0], spends[1], rules.parse_options("attack", spends[2])) if spends is not None else None
    return Fighter(sheet.name, side, sheet, rules.parse_options("attack", given), danger, spend)


def side_of(sheet: Sheet, sides: Mapping[str, str]) -> str:
    """Heroes: player characters (and characters `--side NAME=heroes` puts there); foes: the rest."""
    found = next((v for k, v in sides.items() if k.casefold() == sheet.name.casefold()), None)
    return found or (HEROES if sheet.pc else FOES)


class World:
    """A ledger's aggregates as they stand now, or as they stood right after ruling `at`."""

    def __init__(self, ledger: Reads, at: int | None = None) -> None:
        self.ledger = ledger
        self.campaign = ledger.campaign()
        top = int(self.campaign.rulings)
        if at is not None and not 1 <= at <= top:
            raise BadInput(f"there is no ruling {at}", f"rulings run 1 to {top}")
        self.at = at
        self.ruling = at if at is not None else top
        self.rules = get_rules(self.campaign.system)
        if at is not None:
            self.dead = self.campaign.dead_set() | set(range(at + 1, top + 1))
            self.found = ledger.store.amendments(self.campaign)
            self.domain = self._fold(CAMPAIGN_ID, fold_campaign)
        else:
            self.domain = self.campaign.domain

    def _fold(self, aid: UUID, fold: Any) -> Any:
        history = [e for e in self.ledger.store.events.get(aid) if getattr(e, "ruling", 0) <= self.ruling]
        mine = {n: [r for r in recs if r["aggregate"] == aid.hex] for n, recs in self.found.items() if n <= self.ruling}
        return fold(live_records(history, self.dead, mine))

    def entry(self, name: str) -> dict[str, Any] | None:
        """The roster entry of a name (case-insensitive)."""
        return self.domain["roster"].get(name.strip().casefold())

    def sheet(self, name: str, cid: str | None = None) -> Sheet | None:
        """A character's sheet (None: not on the roster, or no longer the character `cid` names)."""
        entry = self.entry(name)
        if entry is None or (cid is not None and entry["id"] != cid):
            return None
        if self.at is None:
            try:
                return Sheet.from_dict(self.ledger.store.repository.get(UUID(entry["id"])).sheet)
            except AggregateNotFoundError:
                return None
        state = self._fold(UUID(entry["id"]), fold_character)
        return Sheet.from_dict(state["sheet"]) if state["active"] and state["sheet"] else None

    def encounter(self) -> dict[str, Any] | None:
        """The running encounter's state (None: none runs)."""
        try:
            if self.at is None:
                state = dict(self.ledger.store.repository.get(ENCOUNTER_ID).state)
            else:
                state = self._fold(ENCOUNTER_ID, fold_encounter)
        except AggregateNotFoundError:
            return None
        return state if state.get("active") else None

    def running(self, sides: Mapping[str, str]) -> Start:
        """The running encounter as the forecast's start: its order, who is up, the round, who has acted."""
        state = self.encounter()
        if state is None:
            where = f" at ruling {self.at}" if self.at is not None else ""
            raise NotFound(
                f"no encounter is running{where}", "start one, or name a planned fight: ledger odds A B --vs C D"
            )
        fighters: list[Fighter] = []
        turn = 0
        for k, e in enumerate(state["order"]):
            sheet = self.sheet(e["name"], e["id"])
            if sheet is None:
                continue
            if k == state["turn"]:
                turn = len(fighters)
            fighters.append(fighter(self.rules, sheet, side_of(sheet, sides)))
        check_sides(fighters)
        acted = frozenset(n for n, tally in (round_tallies(state) or {}).items() if tally)
        up = state["order"][state["turn"]]["name"] if state["order"] else None
        return Start(self.campaign.system, tuple(fighters), turn, int(state["round"]), acted, TRACKER, self.ruling, up)

    def planned(self, heroes: Sequence[str], foes: Sequence[str], sides: Mapping[str, str]) -> Start:
        """A planned fight of named characters (their sheets as they stand): initiative is rolled in every trial."""
        fighters: list[Fighter] = []
        seen: set[str] = set()
        for names, side in ((heroes, HEROES), (foes, FOES)):
            for name in names:
                entry = self.entry(name)
                sheet = self.sheet(name) if entry is not None else None
                if sheet is None or is_gm_pool(sheet.to_dict()):
                    known = [str(e["name"]) for e in self.domain["roster"].values()]
                    raise NotFound(
                        f"no character called '{name}'", did_you_mean(name, known, "see: ledger character list")
                    )
                if sheet.name.casefold() in seen:
                    raise BadInput(f"{sheet.name} is named twice", "name each combatant once")
                seen.add(sheet.name.casefold())
                fighters.append(fighter(self.rules, sheet, side_of(sheet, {**{sheet.name: side}, **sides})))
        check_sides(fighters)
        return Start(self.campaign.system, tuple(fighters), 0, 1, frozenset(), TRACKER, self.ruling, None, True)


def check_sides(fighters: Sequence[Fighter]) -> None:
    """A fight has someone on each side."""
    for side in (HEROES, FOES):
        if not any(f.side == side for f in fighters):
            other = "foes" if side == HEROES else "heroes"
            raise BadInput(
                f"no one is on the {side}' side",
                f"mark a side: --side NAME={side} (player characters are heroes, the rest {other})"
                if side == HEROES
                else "name them after --vs, or --side NAME=foes",
            )
