"""A retraction's plan: what retracting one ruling changes, as shown to the GM and as committed.

`Plan.summary` is the plain data `retract --json` prints and the text diff reads; the re-derivation that makes
a plan is ledger/history/rederive.py, the dice it replays are `ReplayDice`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ledger.aggregates import Campaign
from ledger.history.rediff import readable
from ledger.model.dice import DiceBox, DiceSpec, Roll

Records = list[dict[str, Any]]


@dataclass
class Change:
    """A later ruling whose outcome differs without the retracted one."""

    ruling: int
    command: str
    before: Records
    after: Records
    refused: str | None
    dice: list[dict[str, Any]]
    hp: dict[str, list[int | None]] = field(default_factory=dict)  # each record's character's HP before it
    reads: list[str] | None = None  # what the new decision read


@dataclass
class Plan:
    """What retracting `target` changes: re-derived rulings and the aggregates' states before and after."""

    target: int
    command: str
    number: int
    changes: list[Change] = field(default_factory=list)
    states: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)  # aggregates the re-derived history makes that the log has not
    rolled: list[Roll] = field(default_factory=list)
    head: tuple[int, str] = (0, "")  # the campaign's version and chain head the plan was made at
    system: str = ""
    names: dict[str, str] = field(default_factory=dict)  # character aggregate id -> name
    groups: list[str] = field(default_factory=list)  # the minion groups of several it read (their verbs are plural)
    decided: int = 0  # how many later rulings were decided again
    retracted: Records = field(default_factory=list)  # the contested ruling's outcome as it stands

    def current(self, campaign: Campaign) -> bool:
        """Whether the log head is where it was when this plan was made (so committing it appends what was shown)."""
        return self.head == (campaign.version, campaign.last_hash)

    def summary(self) -> dict[str, Any]:
        """Plain data for --json and the text diff: every re-derived ruling in full, then which of them change an
        outcome and which only shift values (ledger/history/rediff.py)."""
        out = {
            "target": self.target,
            "command": self.command,
            "system": self.system,
            "names": self.names,
            "groups": self.groups,
            "retracted": self.retracted,
            "rederived": [
                {
                    "ruling": c.ruling,
                    "command": c.command,
                    "refused": c.refused,
                    "before": c.before,
                    "after": c.after,
                    "new_dice": c.dice,
                    "hp_before": c.hp,
                }
                for c in self.changes
            ],
            "states": {k: {"kind": self.kinds[k], "before": b, "after": a} for k, (b, a) in self.states.items()},
            "decided_again": self.decided,
            "new_rolls": [
                {"ruling": int(r.name.split(".")[0]), **r.to_data(), "name": r.name.split(".", 1)[1]}
                for r in self.rolled
            ],
        }
        return {**out, **readable(out)}


class ReplayDice:
    """Recorded faces first; a roll never made comes from the GM's `N.NAME` entry, a fixed earlier roll, or the box."""

    def __init__(self, number: int, recorded: dict[str, Roll], box: DiceBox, fixed: dict[str, Roll]) -> None:
        self.number = number
        self.recorded = recorded
        self.box = box
        self.fixed = fixed
        self.taken: dict[str, Roll] = {}
        self.new: list[Roll] = []

    def take(self, name: str, spec: DiceSpec) -> Roll:
        """Hand back the recorded roll; otherwise supply a new one and remember it."""
        rec = self.recorded.get(name)
        if rec is not None and len(rec.faces) == spec.count:
            roll = Roll(name, spec, rec.faces, rec.source)
        else:
            key = f"{self.number}.{name}"
            old = self.fixed.get(key)
            roll = replace(old, spec=spec) if old and len(old.faces) == spec.count else self.box.take(key, spec)
            roll = replace(roll, name=name, spec=spec, used=True)  # keeps a committed die's commitment
            self.new.append(replace(roll, name=key))
        self.taken[name] = roll
        return roll

    def unused(self, *_: Any) -> list[Roll]:
        """Replay keeps no unused rolls of its own."""
        return []

    @property
    def entered(self) -> dict[str, str]:
        """The recorded rolls' names, as a live box's entered rolls (initiative rolls are named after participants)."""
        return dict.fromkeys(self.recorded, "")
