"""The record itself: undo, redo, retraction with re-derivation, verify, export, import and why."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ledger import catalog as C
from ledger.aggregates import ruling_id
from ledger.app.core import LedgerCore, check_text
from ledger.errors import BadInput, Conflict, NotInitialised
from ledger.history import undo
from ledger.rulings.draft import Draft
from ledger.storage.secrets import session_dice
from ledger.storage.store import now_iso

if TYPE_CHECKING:
    from ledger.intents import (
        RetractIntent,
        Undone,
    )


class HistoryCommands(LedgerCore):
    """Commands that change or check the history as a whole, not play."""

    # -- undo, redo and retraction ----------------------------------------------------------
    def undo(self) -> Undone:
        """Retract the latest live ruling; state becomes the refold of the history without it."""

        def decide(d: Draft) -> dict[str, Any]:
            target = d.campaign.latest_live()
            if target is None:
                raise Conflict("nothing to undo")
            return undo.set_live(self.store, d, target, live=False)

        return cast("Undone", self.rule(C.UNDO, {}, decide))

    def redo(self) -> Undone:
        """Restore the latest undone ruling (until a new ruling is made)."""

        def decide(d: Draft) -> dict[str, Any]:
            if not d.campaign.redo:
                raise Conflict("nothing to redo")
            return undo.set_live(self.store, d, d.campaign.redo[-1], live=True)

        return cast("Undone", self.rule(C.REDO, {}, decide))

    def plan_retraction(self, target: int, *, rolls: Mapping[str, str] | None = None) -> Any:
        """What retracting ruling `target` would change (nothing is appended): see ledger/history/rederive.py."""
        # lazy: re-derivation, for retract; kept out of a one-shot write
        from ledger.history.rederive import Rederiver, validate_target

        campaign = self.campaign()
        validate_target(campaign, target)
        undo.sealed(self.store.repository.get(ruling_id(target)), "retract")
        return Rederiver(
            self.store,
            self.seed,
            campaign,
            target,
            _retract_rolls(rolls),
            {},
            {**session_dice(self.dice_secrets, campaign), "player_dice": False},
            secrets=self.dice_secrets.get,
        ).plan()

    def retract(
        self,
        target: int,
        *,
        rolls: Mapping[str, str] | None = None,
        fixed: Mapping[str, Any] | None = None,
        plan: Any = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Retract a contested ruling: re-derive later rulings and append the retraction with the amended outcomes.

        `plan` is the plan shown to the GM (`plan_retraction`): under the writer lock, if the log head has not
        moved since it was made, exactly that plan is committed, without deciding anything again; if another
        writer moved the head, the retraction is planned again there, keeping the plan's new rolls (and `fixed`,
        rolls an earlier plan made), and the result says `"replanned": true`.
        """
        # lazy: re-derivation, for retract; kept out of a one-shot write
        from ledger.history.rederive import Rederiver, commit, validate_target

        entered = _retract_rolls(rolls)
        kept = {**dict(fixed or {}), **({r.name: r for r in plan.rolled} if plan is not None else {})}
        replanned = False

        def decide(d: Draft) -> dict[str, Any]:
            nonlocal replanned
            validate_target(d.campaign, target)
            undo.sealed(self.store.repository.get(ruling_id(target)), "retract")
            if plan is not None and plan.target == target and plan.current(d.campaign):
                return commit(d, plan)  # the head is where the plan saw it: commit the plan that was shown
            replanned = plan is not None  # another writer moved the head (or no plan was shown): plan here
            fresh = Rederiver(
                self.store,
                self.seed,
                d.campaign,
                target,
                entered,
                kept,
                {**session_dice(self.dice_secrets, d.campaign), "player_dice": False},
                secrets=self.dice_secrets.get,
            ).plan()
            return commit(d, fresh)

        intent: RetractIntent = {"target": target}
        if entered and session_dice(self.dice_secrets, self.campaign()).get("scheme", 1) >= 2:
            intent["entered"] = entered  # scheme 2: the entered dice are part of the record
        if reason is not None:  # an empty --reason "" is refused, not dropped
            intent["reason"] = check_text("reason", reason)
        result = self.rule(C.RETRACT, intent, decide)
        return {**result, "replanned": replanned}

    # -- the record itself: verify, export, import -------------------------------------------
    def verify(self, *, expect: str | None = None, dice: bool = False) -> Any:
        """Everything the write side trusts, checked (ledger/audit/verify.py): chain, versions, integrity, snapshots,
        and with `dice` every committed die of revealed sessions. The read models are checked by the read side."""
        # lazy: the chain walk, for verify; kept out of a one-shot write
        from ledger.audit.chain import notifications
        from ledger.audit.verify import dice_problems, verify_store

        self._require_events()
        report = verify_store(self.store, expect)
        if dice:
            found, report.dice = dice_problems(notifications(self.store.recorder))
            report.problems += found
        return report

    def log_size(self) -> int:
        """How many events the log holds (for progress bars)."""
        return int(self.store.recorder.max_notification_id() or 0)

    def export_jsonl(self, out: Any, *, step: Callable[[int], None] | None = None) -> Any:
        """Write the whole log, byte for byte, as JSON lines with a header (ledger/history/exchange.py); its summary."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.history.exchange import export_jsonl

        self.campaign()  # refuses an empty ledger with the usual message
        snapshots = self.store.snapshots.recorder if self.store.snapshots is not None else None
        return export_jsonl(self.store.recorder, out, exported_at=now_iso(), step=step, snapshots=snapshots)

    def check_import(self, path: str, *, step: Callable[[int], None] | None = None) -> Any:
        """An export file read and checked whole (header, counts, types, every hash link) before anything is written."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.history.exchange import read_export, require_empty

        if not (self.target.kind == "sqlite" and not os.path.exists(self.target.path)):
            require_empty(self.store.recorder, self.target.describe())  # refuse early, before reading a big file
        return read_export(path, step)

    def write_import(self, checked: Any, *, step: Callable[[int], None] | None = None) -> Any:
        """Write a checked export into this (empty) ledger in one transaction; its summary."""
        # lazy: export and import; kept out of a one-shot write
        from ledger.history.exchange import write_import

        self.require_writable()
        return write_import(self.store, checked, self.target.describe(), step)

    def _require_events(self) -> None:
        """Refuse a ledger with nothing in it (without decoding anything: a damaged log is still walked)."""
        empty = self.target.kind == "sqlite" and not os.path.exists(self.target.path)
        if empty or not self.store.recorder.max_notification_id():
            raise NotInitialised(f"no campaign in {self.target.describe()}", "start one: ledger init --system hnh")

    def why(self, name: str, field: str | None) -> dict[str, Any]:
        """Which live rulings made a value on a character's sheet (ledger/history/why.py)."""
        # lazy: `ledger why` only; kept out of a one-shot write
        from ledger.history.why import explain

        campaign = self.campaign()
        return explain(self.store, campaign, self.store.amendments(campaign), name, field)


def _retract_rolls(rolls: Mapping[str, str] | None) -> dict[str, str]:
    """`--roll N.NAME=FACES` for rolls re-derivation needs that were never made."""
    out = {}
    for key, faces in (rolls or {}).items():
        number, dot, name = key.partition(".")
        if not dot or not number.isdigit() or not name:
            raise BadInput(f"--roll '{key}' must name the ruling: N.NAME=FACES", "for example --roll 7.damage=5")
        out[key] = faces
    return out
