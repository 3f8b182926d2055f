"""The campaign, its sessions and its roster: init, session start and end, character add, copy, set, retire, import."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from ledger import catalog as C
from ledger.aggregates import CAMPAIGN_ID, Campaign
from ledger.app.core import LedgerCore
from ledger.errors import BadInput, Conflict
from ledger.model.bounds import check_intent, check_name, whole
from ledger.model.names import lookalike
from ledger.rules import get_rules
from ledger.storage.secrets import new_secret, session_dice

if TYPE_CHECKING:
    from ledger.intents import (
        CharacterAddIntent,
        CharacterCopyIntent,
        CharacterSetIntent,
        InitIntent,
        InitResult,
        NameIntent,
        Recorded,
        SessionEndIntent,
        SessionStartIntent,
    )


class RosterCommands(LedgerCore):
    """Commands that open the campaign and its sessions and keep its roster."""

    # -- campaign ---------------------------------------------------------------------------
    def init(self, system: str, name: str | None = None, settings: Mapping[str, Any] | None = None) -> InitResult:
        """Create the campaign (ruling 1), with the system's campaign settings (its `init` options, typed)."""
        typed = get_rules(system).parse_options("init", settings or {})  # an unknown system is bad input
        check_intent({"system": system, "name": name})  # refused before the database file is created
        try:
            existing: Campaign = self.store.repository.get(CAMPAIGN_ID)
        except AggregateNotFoundError:
            existing = None  # type: ignore[assignment]
        if existing is not None:
            raise Conflict(
                f"{self.target.describe()} already holds a {existing.system} campaign",
                "use another --db for a new campaign",
            )
        self.require_writable()
        title = name or "Campaign"
        intent: InitIntent = {"system": system, "name": title}
        if typed:
            intent["settings"] = typed
        draft = self._draft(None, 1, C.INIT.kind, C.INIT.name, intent, None)
        draft.open_campaign(
            Campaign._create(
                Campaign.CampaignCreated, id=CAMPAIGN_ID, ruling=1, system=system, name=title, settings=typed
            )
        )
        try:
            self._commit(draft)
        except IntegrityError:
            raise Conflict(f"{self.target.describe()} already holds a campaign") from None
        result: InitResult = {"ruling": 1, "system": system, "name": title}
        if typed:
            result["settings"] = typed
        return result

    def start_session(
        self, title: str | None = None, *, commit_dice: bool = False, new_day: bool = False, player_dice: bool = False
    ) -> Recorded:
        """Open a play session; with commit_dice, draw its dice secret and record only its commitment (scheme 3);
        `player_dice` also asks each linked hero's rolls of their player's page; `new_day` also starts an in-game
        day (H&H: victory points back to 2)."""
        # lazy: committed dice only (hmac); kept out of a one-shot write
        from ledger.model.dice_scheme import VERSION

        intent: SessionStartIntent = {"title": title}
        if not (commit_dice or player_dice):
            if new_day:
                intent["new_day"] = True
            return self.record(C.SESSION_START, intent)
        secret, commitment = new_secret(VERSION, player_dice)
        self.dice_secrets.put(commitment, secret)
        intent["commitment"] = commitment
        intent["scheme"] = VERSION
        if player_dice:
            intent["player_dice"] = True
        if new_day:
            intent["new_day"] = True
        try:
            return self.record(C.SESSION_START, intent)
        except BaseException:
            self.dice_secrets.drop(commitment)
            raise

    def end_session(self) -> Recorded:
        """Close the open play session, revealing its dice secret if it committed one."""
        # lazy: committed dice only (hmac); kept out of a one-shot write
        from ledger.model.dice_scheme import commit

        found = session_dice(self.dice_secrets, self.campaign())
        secret = found.get("secret")
        version, players = int(found.get("scheme", 1)), bool(found.get("player_dice"))
        if secret and commit(secret, version, players) != found.get("commitment"):
            secret = None  # not the committed secret: nothing to reveal (the session ends; verify --dice fails it)
        intent: SessionEndIntent = {"reveal": secret.hex()} if secret else {}
        asked = bool(self.campaign().open_asks())
        result = self.record(C.SESSION_END, intent)
        if asked:  # the pages stop asking at once, and the waiting commands stop (ledger/storage/wait.py)
            self.players.cancel_all("the session ended")
        return result

    # -- characters -------------------------------------------------------------------------
    def add_character(
        self,
        name: str,
        traits: Mapping[str, str],
        *,
        minion: bool = False,
        count: int = 1,
        pc: bool = False,
        powers: Mapping[str, Mapping[str, Any]] | None = None,
        typed_traits: Mapping[str, Any] | None = None,
        power_parts: Mapping[str, Mapping[str, str]] | None = None,
        copies: int | None = None,
        hidden: bool = False,
    ) -> Recorded:
        """Add a character with validated traits (and powers' parts, typed by the campaign's rules); with `copies`,
        NAME 1 .. NAME N with the same sheet, in one ruling; `hidden` keeps it off the players' screen until it
        acts or the GM reveals it (a hero can't be hidden from its player)."""
        name = check_name(name)
        self._distinct(name)
        count = whole("count", count)
        if count > 1 and not minion:
            raise BadInput("--count is for minion groups", "add --minion")
        intent: CharacterAddIntent = {"name": name, "traits": dict(traits), "minion": minion, "count": count, "pc": pc}
        if copies is not None:
            intent["copies"] = whole("copies", copies)
            check_name(f"{name} {copies}")
        if power_parts:
            powers = {**(powers or {}), **self.rules().power_parts(power_parts, traits)}
        if powers:
            intent["powers"] = {k: dict(v) for k, v in powers.items()}
        if typed_traits:
            intent["typed_traits"] = dict(typed_traits)
        if hidden:
            if pc:
                raise BadInput("a hero can't be --hidden: a player always sees their own hero", "hide NPCs only")
            intent["hidden"] = True
        return self.record(C.CHARACTER_ADD, intent)

    def _distinct(self, name: str) -> None:
        """Refuse a new name that prints like an existing character's (a look-alike letter of another script, a
        fullwidth form), suggesting the existing one."""
        found = lookalike(name, self.campaign().names())
        if found is not None:
            raise Conflict(
                f"'{name}' looks just like the existing character '{found}' but is spelled with other characters",
                f"to mean them, type '{found}'; for a new character, pick a name that reads differently",
            )

    def copy_character(self, name: str, new: str, *, copies: int | None = None, count: int | None = None) -> Recorded:
        """A new character NEW with NAME's stat block (traits, powers), fresh; `copies`: NEW 1 .. NEW N."""
        new = check_name(new)
        self._distinct(new)  # the same checks as `character add`: no look-alike of a name on the roster
        intent: CharacterCopyIntent = {"name": name, "new": new}
        if copies is not None:
            intent["copies"] = whole("copies", copies)
            check_name(f"{new} {copies}")
        if count is not None:
            intent["count"] = whole("count", count)
        return self.record(C.CHARACTER_COPY, intent)

    def set_traits(self, name: str, traits: Mapping[str, str]) -> Recorded:
        """Change a character's traits by the GM's ruling (values the rules can't hold are refused)."""
        if not traits:
            raise BadInput(
                "give at least one --trait KEY=VALUE", "for example: ledger character set Ann --trait agility=4"
            )
        intent: CharacterSetIntent = {"name": name, "traits": dict(traits)}
        return self.record(C.CHARACTER_SET, intent)

    def retire_character(self, name: str) -> Recorded:
        """Take a character out of play, keeping its history (`character list --all` still shows it)."""
        intent: NameIntent = {"name": name}
        return self.record(C.CHARACTER_RETIRE, intent)

    def import_character(self, path: str, *, pc: bool = True) -> Recorded:
        """Add a character from a character-creator save file (JSON), if the campaign's system reads them."""
        try:
            with open(path, "rb") as f:
                data = orjson.loads(f.read())
        except OSError as e:
            raise BadInput(f"can't read {path}: {e.strerror}") from None
        except orjson.JSONDecodeError as e:
            raise BadInput(f"{path} is not JSON: {e}") from None
        name, traits, powers = self.rules().import_character(data)
        return self.add_character(name, {}, pc=pc, powers=powers, typed_traits=traits)
