"""`player link|revoke`: each hero's page at the table (`ledger serve` serves it at /p/TOKEN)."""

from __future__ import annotations

import io

import click

from commands.context import AppContext, pass_app
from commands.registry import command, group
from ledger import catalog as C
from ledger.errors import BadInput

BASE = "http://localhost:8080/"
BASE_MAX = 200  # characters in --base (a link must fit a QR code a phone can scan)


@group(C.PLAYER)
def player() -> None:
    """Players' pages: a link per hero, where its player sees their sheet and rolls their own dice."""


def _hero(app: AppContext, name: str) -> tuple[str, str]:
    """(key, name) of a live hero (a character added with --pc); anything else is refused."""
    # lazy: the event classes (eventsourcing); kept out of `ledger --help`
    from ledger.aggregates import name_key

    sheet = app.ledger.sheet(name)  # refuses an unknown name with a suggestion
    if not sheet.pc:
        raise BadInput(f"{sheet.name} is not a hero: only a player's character gets a page", "add heroes with --pc")
    return name_key(sheet.name), sheet.name


@command(C.PLAYER_LINK)
@click.argument("name")
@click.option("--qr", is_flag=True, help="Also print the link as a QR code (text; no terminal needed).")
@click.option(
    "--base",
    default=None,
    metavar="URL",
    help="Where the players' phones reach `ledger serve` (default: where the running server listens).",
)
@pass_app
def link(app: AppContext, name: str, qr: bool, base: str | None) -> None:
    """Print the URL of NAME's page (a new link ends the old one); only a hash of it is kept, never in the log.

    \b
    The page (served by `ledger serve`) shows the hero's sheet and the shared screen, and in a session
    started with --player-dice asks the player for each of the hero's rolls. Anyone with the URL is that
    player: send it to them alone; `ledger player revoke NAME` ends it. The link uses the address and
    port the running `ledger serve` listens on (it records them), else http://localhost:8080/; --base
    overrides. A link only this machine can open (localhost) is printed with a warning.
    Example: ledger player link Ann --qr --base http://192.168.1.20:8080/
    """
    # lazy: serve's address helpers (stdlib only), for the link's warning
    from commands.serve import lan_address, unreachable_from_a_phone

    key, hero = _hero(app, name)
    base = check_base(base) if base is not None else (app.ledger.players.served() or BASE)
    token = app.ledger.players.new_token()  # the old link stays until the new one is printed
    url = base.rstrip("/") + "/p/" + token
    if unreachable_from_a_phone(url):
        here = lan_address()
        use = f"ledger serve --host {here}" if here else "ledger serve --host ADDRESS (this machine's on the network)"
        click.echo(f"warning: a phone can't open {base.rstrip('/')}/ (this machine only): run {use}", err=True)
    text = f"{hero}'s page: {url}"
    if qr:
        # lazy: segno, for the QR code; kept out of `ledger --help`
        import segno

        out = io.StringIO()
        try:
            segno.make(url, error="m").terminal(out=out, compact=True)
        except segno.DataOverflowError:
            raise BadInput(
                f"the link is too long for a QR code ({len(url)} characters)", "give a shorter --base"
            ) from None
        text += "\n" + out.getvalue().rstrip("\n")
    app.emit({"name": hero, "url": url}, text)
    app.ledger.players.link(key, hero, token)  # printed: now it replaces the old one


def check_base(base: str) -> str:
    """`--base`: an http(s) URL with a host (the page's path is added to it); BadInput otherwise."""
    # lazy: URL parsing, for `player link --base`
    from urllib.parse import urlsplit

    example = "e.g. --base http://192.168.1.20:8080/"
    shown = base if len(base) <= 80 and base.isprintable() else repr(base[:80]) + ("…" if len(base) > 80 else "")
    if len(base) > BASE_MAX:
        raise BadInput(f"--base is {len(base)} characters long; at most {BASE_MAX}", example)
    if not base or any(c.isspace() or not c.isprintable() for c in base):
        raise BadInput(f"--base {shown or repr(base)} is empty or holds spaces or control characters", example)
    try:
        parts = urlsplit(base)
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError as e:
        raise BadInput(f"--base {shown} is not a URL: {e}", example) from None
    host = parts.hostname or ""
    if (
        parts.scheme not in ("http", "https")
        or not host
        or "@" in parts.netloc
        or parts.query
        or parts.fragment
        or "#" in base
        or not _host_ok(host)
    ):
        raise BadInput(f"--base {shown} is not an http(s) address of a server", example)
    return base


def _host_ok(host: str) -> bool:
    """An IP address or a host name (RFC 1123 labels)."""
    # lazy: address parsing, for `player link --base`
    import ipaddress
    import re

    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    label = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
    return len(host) <= 253 and all(label.match(x) for x in host.rstrip(".").split("."))


@command(C.PLAYER_REVOKE)
@click.argument("name")
@pass_app
def revoke(app: AppContext, name: str) -> None:
    """End NAME's page link: its URL stops working at once (a roll it was asked for is cancelled).

    Example: ledger player revoke Ann
    """
    key, hero = _hero(app, name)
    had = app.ledger.players.revoke(key)
    app.emit({"name": hero, "revoked": had}, f"{hero}'s link revoked" if had else f"{hero} had no link")
