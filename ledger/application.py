"""The one way in: one method per GM command, each appending exactly one ruling (or refusing, appending nothing).

A command method checks what needs no state, types and validates its options against the campaign's rule
system (ledger/rules/options.py), then records one ruling with its decider (ledger/rulings/deciders/): the decider
is named right there, so go-to-definition leads from `Ledger.attack` to `play.attack` to the rules.

The methods live by kind in ledger/app/: the ruling loop (core.py), the campaign and roster (roster.py), play
(play.py), the encounter tracker (fight.py) and the record itself (history.py).
"""

from __future__ import annotations

from ledger.app.core import WAIT, LedgerCore, check_text, default_actor
from ledger.app.fight import FightCommands
from ledger.app.history import HistoryCommands
from ledger.app.play import PlayCommands
from ledger.app.roster import RosterCommands

__all__ = ["WAIT", "Ledger", "LedgerCore", "check_text", "default_actor"]


class Ledger(RosterCommands, PlayCommands, FightCommands, HistoryCommands):
    """A campaign ledger on one database: every GM command, each one ruling."""
