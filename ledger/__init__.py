"""The campaign ledger: an event-sourced record of superhero tabletop play."""

from __future__ import annotations

__version__ = "0.1.0"
