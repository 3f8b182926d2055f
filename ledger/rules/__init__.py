"""The rules engines: one package per game system (`hnh/`, `d20/`, `pnp/`) behind one contract (contract.py).

A system is found by its key: the package `ledger.rules.<key>`, whose `system` module holds `RULES`. Adding a system is
adding a package; nothing else names the systems.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from ledger.errors import BadInput

if TYPE_CHECKING:
    from ledger.rules.contract import RuleSystem


@cache
def system_keys() -> tuple[str, ...]:
    """The keys of every rule-system package here."""
    return tuple(
        sorted(
            e.name
            for folder in __path__
            for e in os.scandir(folder)
            if e.is_dir() and e.name.isidentifier() and os.path.isfile(os.path.join(e.path, "__init__.py"))
        )
    )  # the packages beside this file (what pkgutil.iter_modules finds, without importing pkgutil)


@cache
def declarations(system: str) -> ModuleType | None:
    """A system's declarations module (`options.py`: option declarations, roll owners, its title and words),
    without loading its rules; None for a key no package has."""
    if system not in system_keys():
        return None
    return importlib.import_module(f"{__name__}.{system}.options")


def title(system: str) -> str:
    """A system's name ("Prowlers & Paragons"); an unknown key as it is."""
    return str(getattr(declarations(system), "TITLE", system))


def health_word(system: str) -> str:
    """What a system calls the track damage lowers (HP; P&P: Health)."""
    return str(getattr(declarations(system), "HEALTH_WORD", "HP"))


def round_word(system: str) -> str:
    """What a system calls one pass through the order (round; P&P: page)."""
    return str(getattr(declarations(system), "ROUND_WORD", "round"))


def tally_room(system: str) -> tuple[str, ...]:
    """The keys of a system's round tally that count room in the budget, not an action taken (H&H: extra effort's
    added action)."""
    return tuple(getattr(declarations(system), "TALLY_ROOM", ()))


def get_rules(system: str) -> RuleSystem:
    """The rules of a system key (importing that system only); an unknown key is bad input."""
    if system not in system_keys():
        raise BadInput(f"unknown system '{system}'", f"choose one of: {', '.join(system_keys())}")
    rules: RuleSystem = importlib.import_module(f"{__name__}.{system}.system").RULES
    return rules
