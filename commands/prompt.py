"""The session shell's prompt on a terminal (prompt_toolkit, as pgcli and IPython use it).

Completion of commands, options, names, conditions, traits and roll names with their help (commands/complete.py),
fuzzy matching, a bottom toolbar with the round, who is up and the next two with their HP, history in
~/.ledger_history (plain lines, as the readline shell kept it) with Ctrl-R search and suggestions from it.
Imported only by an interactive `ledger play`: scripts never load prompt_toolkit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import click
from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.history import History

from commands.complete import Completer, as_prompt_completer

PROMPT = "ledger> "
HISTORY = "~/.ledger_history"
HISTORY_LINES = 1000
LIBEDIT_HEADER = "_HiStOrY_V2_"


class Host(Protocol):
    """What the prompt reads from the shell session (commands/shell.py `Session`)."""

    group: click.Group

    def character_names(self) -> Sequence[tuple[str, str]]: ...  # noqa: D102

    def condition_names(self) -> Sequence[tuple[str, str]]: ...  # noqa: D102

    def system(self) -> str | None: ...  # noqa: D102

    def sheet(self, name: str) -> Mapping[str, Any] | None: ...  # noqa: D102

    def toolbar(self) -> str: ...  # noqa: D102

    def first_request(self) -> int | None: ...  # noqa: D102


class PlainHistory(History):
    """History kept one command a line (the readline shell's file reads as is; the newest 1,000 are kept)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def load_history_strings(self) -> Iterable[str]:
        """Newest first, as prompt_toolkit asks."""
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                lines = [ln.rstrip("\n") for ln in f if ln.strip() and ln.rstrip("\n") != LIBEDIT_HEADER]
        except OSError:
            return []
        return [ln.replace("\\040", " ") for ln in reversed(lines[-HISTORY_LINES:])]

    def store_string(self, string: str) -> None:
        """Append one command; trim the file to the newest lines now and then."""
        if "\n" in string or not string.strip():
            return
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(string + "\n")
            if os.path.getsize(self.path) > HISTORY_LINES * 200:
                with open(self.path, encoding="utf-8", errors="replace") as f:
                    keep = f.readlines()[-HISTORY_LINES:]
                with open(self.path, "w", encoding="utf-8") as f:
                    f.writelines(keep)
        except OSError:  # a read-only home: history is a convenience, never a failure
            pass


def prompt_session(session: Host, *, input: Any = None, output: Any = None) -> PromptSession[str]:
    """A prompt for `session`: its completer, toolbar and history (input/output given in tests)."""
    completer = Completer(
        session.group, session.character_names, session.condition_names, system=session.system, sheet=session.sheet
    )
    # lazy: prompt_toolkit's key bindings, for the interactive shell
    from prompt_toolkit.key_binding import KeyBindings

    keys = KeyBindings()

    @keys.add("f2")
    def _accept(event: Any) -> None:  # one key accepts the oldest request from a player's page
        num = session.first_request()
        if num is not None:
            event.app.current_buffer.text = f"pending accept {num}"
            event.app.current_buffer.validate_and_handle()

    return PromptSession(
        PROMPT,
        key_bindings=keys,
        refresh_interval=1.0,  # the toolbar shows a player's request within a second
        history=PlainHistory(os.path.expanduser(HISTORY)),
        completer=as_prompt_completer(completer),
        complete_while_typing=True,
        auto_suggest=AutoSuggestFromHistory(),
        bottom_toolbar=session.toolbar,
        input=input,
        output=output,
    )
