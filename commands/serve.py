"""`ledger serve`: the players' screen, a read-only live web page of the fight (Starlette, uvicorn, Jinja2).

One poller per server watches the event log's head (every POLL seconds, on SQLite and PostgreSQL alike); when it
moves, the server catches the read models up from the log, renders the page once per view, and pushes it to
every open page as a Server-Sent Event. The screen only answers GET (and HEAD); the one write is a player's
answer to their own hero's pending roll on their page, /p/TOKEN (commands/player_page.py).
"""

from __future__ import annotations

import asyncio
import hmac
import importlib.util
import ipaddress
import re
import signal
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click

from commands.context import AppContext, pass_app
from commands.live import HEARTBEAT, sse
from commands.params import number
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput

SERVE_EXTRA = ("starlette", "uvicorn", "jinja2")  # pyproject.toml's `serve` extra: none of it in a plain install
POLL = 0.25  # seconds between looks at the log's head: a change shows within a second
ODDS = "odds"  # the GM's view with the quick forecast (`/?gm=T&odds=1`, off by default; never a player's)
HERE = Path(__file__).parent / "screen"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri "
    "'none'; form-action 'none'; frame-ancestors 'none'"
)


@command(C.SERVE)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    callback=lambda ctx, param, value: listen_address(value),
    help="Address to listen on; anything but loopback lets other machines in.",
)
@click.option("--port", default=8080, show_default=True, type=number("port"), help="Port to listen on.")
@click.option("--gm-token", metavar="T", help="Also serve the GM's view (everything shown) at /?gm=T.")
@click.option(
    "--show-hp",
    "show_hp",
    multiple=True,
    metavar="NAME|all",
    help="Show this NPC's HP as numbers to players (repeatable; 'all' for every NPC). Default: a word.",
)
@pass_app
def serve(app: AppContext, host: str, port: int, gm_token: str | None, show_hp: tuple[str, ...]) -> None:
    """Serve the players' screen: a live, read-only page of the campaign and the fight, for a phone or the TV.

    \b
    It shows the current encounter (order, who is up, round or page, HP bars, conditions, marks,
    minion counts), the last rulings in words and each hero's HP chart, and follows every command by
    any writer within a second, without a reload. Players see NPC HP as a word (unhurt, hurt,
    bloodied, down) unless --show-hp names the NPC (or says all); the P&P GM sheet is never shown to
    them. With --gm-token T, /?gm=T shows everything. Needs the `serve` extra: pip install -e '.[serve]'.
    Example: ledger serve --port 8080 --gm-token s3cret --show-hp Bob
    """
    if not all(importlib.util.find_spec(m) for m in SERVE_EXTRA):
        raise BadInput("ledger serve needs the serve extra (Starlette, uvicorn, Jinja2): pip install -e '.[serve]'")
    # lazy: the web server (the serve extra), for `ledger serve`; kept out of a plain install's commands
    import uvicorn

    # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
    from projections.screen import Visibility

    _ = app.read  # refuses a missing or empty ledger before the server starts
    # lazy: the guard (stdlib), for `ledger serve`
    from commands.guard import can_listen

    why = can_listen(host, port)
    if why is not None:
        raise BadInput(
            f"can't listen on {host} port {port}: {why}", "give --host an address of this machine, or --port"
        )
    names = {n.strip().casefold() for n in show_hp}
    players = Visibility(all_hp="all" in names, show_hp=frozenset(names - {"all"}))
    web = build_app(app, players, gm_token)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    base = f"http://{shown}:{port}/"
    reached = reach_url(host, port)
    recorded = record_where(app, reached)
    click.echo(
        f"serving {app.ledger.target.describe()} at {base} (players)"
        + (f"; GM view: {base}?gm=<token>" if gm_token else "")
    )
    if not loopback(host):
        click.echo(f"warning: --host {host} is not a loopback address: other machines can open this page", err=True)
    click.echo("read-only but for players' own rolls at /p/TOKEN (ledger player link); press Ctrl+C to stop")
    screen: Screen = web.state.screen

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            screen.close_streams()  # each open stream ends its response: connections close cleanly, no tracebacks

    # lazy: the guard (Host header, deadlines, bounded connections), for `ledger serve`
    from commands.guard import Guard, server_options

    guarded = Guard(web, host, port)  # what a browser or socket sends is checked before any route (commands/guard.py)
    config = uvicorn.Config(
        guarded, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1, **server_options()
    )

    def stop(sig: int, frame: Any) -> None:  # uvicorn raises the SIGTERM it handled again once it has stopped
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)  # so the lines below run (forget where this server listened) and exit 0
    try:
        Server(config).run()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl+C it handled once the server has stopped
        pass
    finally:
        if recorded:
            try:
                app.ledger.players.stopped(reached)
            except Exception:  # noqa: BLE001 - the database went away meanwhile: the row is only a hint
                pass


def record_where(app: AppContext, url: str) -> bool:
    """Note where this server is reached (side table ledger_serve) so `player link` prints a link that works; a
    ledger on a read-only medium (or a database that refuses the write) is served all the same, unrecorded."""
    try:
        app.ledger.players.serving(url)
    except Exception:  # noqa: BLE001 - any refusal of the side table's write: serving never needs it
        return False
    return True


def reach_url(host: str, port: int) -> str:
    """The URL the players' phones open for a server listening on `host`:`port`: the machine's own network
    address when it listens on every interface (0.0.0.0, ::), `localhost` for loopback, else the host as given."""
    if host in ("0.0.0.0", "::"):
        host = lan_address() or host
    elif host in ("127.0.0.1", "::1"):
        host = "localhost"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def lan_address() -> str | None:
    """This machine's address on its network (the source address of its default route; no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, only used to pick the interface
            found = str(s.getsockname()[0])
        except OSError:
            return None
    return None if ipaddress.ip_address(found).is_loopback or found == "0.0.0.0" else found


def unreachable_from_a_phone(url: str) -> bool:
    """Whether a page URL names this machine's loopback (localhost, 127.x, ::1) or no address at all (0.0.0.0): a
    phone can't open it."""
    # lazy: URL parsing, for `player link`'s warning
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def listen_address(value: str) -> str:
    """`--host`: an IP address or a host name (RFC 1123), never empty; BadInput otherwise."""
    host = (value or "").strip()
    if not host:
        raise BadInput("--host is empty", "give 127.0.0.1 (this machine only) or an address of this machine")
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    label = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
    if len(host) > 253 or not all(label.match(x) for x in labels) or labels[-1].isdigit():
        raise BadInput(
            f"--host '{host}' is neither an IP address nor a host name", "e.g. 127.0.0.1, ::1, 0.0.0.0 or localhost"
        )
    return host


def loopback(host: str) -> bool:
    """Whether every address `host` names is this machine's loopback (a name that can't be resolved is not)."""
    try:
        found = {ai[4][0] for ai in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in found)


class Screen:
    """The server's state: the read side, the last page per view, and the open streams."""

    def __init__(self, app: AppContext, players: Any, gm_token: str | None) -> None:
        # lazy: jinja2 and its markupsafe (the serve extra), for `ledger serve`; kept out of a plain install's commands
        from jinja2 import Environment, FileSystemLoader, select_autoescape
        from markupsafe import Markup

        self.app = app
        self.players = players
        self.gm_token = gm_token
        self.env = Environment(
            loader=FileSystemLoader(HERE), autoescape=select_autoescape(default=True, default_for_string=True)
        )
        self.css = Markup((HERE / "screen.css").read_text())  # our own file, not data: inlined as is
        self.head = -1
        self.streams: set[tuple[bool | str, asyncio.Queue[tuple[int, str] | None]]] = set()
        self.hero_streams: set[Any] = set()  # the players' pages' streams (commands/player_page.py, HeroStream)
        self.pages_state: Any = None  # commands/player_page.py's Pages, once the routes are built
        self.pages: dict[bool | str, tuple[int, str]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lock = threading.Lock()  # the poller and the pages' threads share the read side
        self.odds: tuple[tuple[int, int], str] | None = None  # the quick forecast's line, by (log head, trials)
        self.odds_lock = threading.Lock()  # renders run on threads: one forecast per head, the others wait for it

    def close_streams(self) -> None:
        """Tell every open stream to end (safe from a signal handler: it only schedules)."""
        loop = self.loop
        if loop is None:
            return
        for _, queue in list(self.streams):
            loop.call_soon_threadsafe(queue.put_nowait, None)
        for hero in list(self.hero_streams):
            loop.call_soon_threadsafe(hero.queue.put_nowait, None)

    def is_gm(self, token: str | None) -> bool:
        """Whether a request carries the GM's token (compared in constant time)."""
        return bool(self.gm_token and token and hmac.compare_digest(token.encode(), self.gm_token.encode()))

    def model(self, gm: bool) -> dict[str, Any]:
        """The page model for one view, with its HP charts drawn."""
        # lazy: markupsafe (the serve extra), for `ledger serve`; kept out of a plain install's commands
        from markupsafe import Markup

        # lazy: the read side (SQLAlchemy); kept out of `ledger --help`
        from projections.report import PALETTE, chart
        from projections.screen import Visibility, page

        p = page(self.app.read, Visibility(gm=True) if gm else self.players)
        for i, h in enumerate(p["heroes"]):
            h["svg"] = Markup(chart(h, PALETTE[i % len(PALETTE)], _span(h["points"]))) if h["points"] else ""
        return p

    def checked(self) -> None:
        """Before a page is answered: the read models caught up and checked against the log, as every one-shot reader
        checks them (commands/context.py): a row edited since the last head move is never shown; the page is then
        built from a fresh fold of the log."""
        with self.lock:
            self.app.caught_up()

    def render(self, gm: bool | str, *, whole: bool, token: str | None = None) -> tuple[int, str]:
        """The page (or its main part, for a stream) for one view, at the current head; the view `odds` is the GM's
        with the quick forecast (`ledger odds`), which only the GM's toggle turns on."""
        if whole:
            self.checked()
        p = self.model(bool(gm))
        if gm == ODDS:
            p["odds"] = self.odds_at(int(p["head"]))
        if whole:
            query = f"?gm={quote(token, safe='')}" if gm and token else ""
            events = "/events" + query + ("&odds=1" if gm == ODDS else "")
            toggle = (query + ("" if gm == ODDS else "&odds=1")) if gm and token else ""
            return p["head"], self.env.get_template("page.html").render(
                p=p, css=self.css, script="/screen.js", events=events, toggle=toggle, odds=gm == ODDS
            )
        return p["head"], self.env.get_template("main.html").render(p=p)

    def odds_at(self, head: int) -> str:
        """The quick forecast's line at this log head: played once per head (its seed and options are fixed by the
        ledger's state, `quick_odds`), then read by every request and stream of the odds view until the log moves."""
        # lazy: the simulator, for the GM's odds view only
        from commands.odds import QUICK, odds_line, quick_odds

        key = (head, QUICK)
        with self.odds_lock:
            if self.odds is None or self.odds[0] != key:
                self.odds = (key, odds_line(quick_odds(self.app.ledger)))
            return self.odds[1]

    def catch_up(self) -> int:
        """Fold new events into the read models (writers may leave that to readers); the log's head."""
        read = self.app.read
        with read.engine.connect() as conn:
            head = read.max_seq(conn)
        if head != self.head:
            self.checked()  # damaged read models are answered from a fresh fold of the log
        return head

    async def watch(self) -> None:
        """Look at the log's head whenever another process may have written (commands/live.py's wake-up, or every
        POLL seconds at the latest); when it moves, render each open view once and push it to its streams; push
        each player's page its hero's part and the roll asked of it when they change."""
        self.loop = asyncio.get_running_loop()
        # lazy: the wake-up (sqlite3, or psycopg's LISTEN), for `ledger serve`
        from commands.live import Wakeup
        from ledger.storage.target import parse_target

        wake = Wakeup(parse_target(self.app.db))
        try:
            while True:
                try:
                    head = await asyncio.to_thread(self.catch_up)
                    moved = head != self.head
                    if moved:
                        self.head = head
                        for gm in {gm for gm, _ in self.streams} | ({False} if self.hero_streams else set()):
                            self.pages[gm] = await asyncio.to_thread(self.render, gm, whole=False)
                        for gm, queue in list(self.streams):
                            queue.put_nowait(self.pages[gm])
                    if self.hero_streams and self.pages_state is not None:
                        await asyncio.to_thread(self.pages_state.push, moved)
                except Exception as e:  # a busy or briefly unreachable database: keep serving, try again
                    click.echo(f"warning: can't read the ledger just now: {str(e).splitlines()[0]}", err=True)
                    self.app.reset()
                await wake.wait(POLL)
        finally:
            wake.close()


def build_app(app: AppContext, players: Any, gm_token: str | None) -> Any:
    """The Starlette application: the page, its script, and its event stream; GET only."""
    # lazy: the web framework, for `ledger serve`; kept out of `ledger --help`
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    screen = Screen(app, players, gm_token)
    headers = {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }

    def view(request: Request) -> bool | str | None:
        token = request.query_params.get("gm")
        if token is None:
            return False
        if not screen.is_gm(token):
            return None
        return ODDS if request.query_params.get("odds") == "1" else True

    async def index(request: Request) -> Response:
        gm = view(request)
        if gm is None:
            return PlainTextResponse("wrong GM token", status_code=403, headers=headers)
        head, html = await asyncio.to_thread(screen.render, gm, whole=True, token=request.query_params.get("gm"))
        return HTMLResponse(html, headers=headers)

    async def script(request: Request) -> Response:
        return Response((HERE / "screen.js").read_bytes(), media_type="text/javascript", headers=headers)

    async def events(request: Request) -> Response:
        gm = view(request)
        if gm is None:
            return PlainTextResponse("wrong GM token", status_code=403, headers=headers)
        return StreamingResponse(
            stream(request, gm), media_type="text/event-stream", headers={**headers, "X-Accel-Buffering": "no"}
        )

    async def stream(request: Request, gm: bool | str) -> AsyncIterator[str]:
        queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()
        entry = (gm, queue)
        screen.streams.add(entry)
        try:
            queue.put_nowait(await asyncio.to_thread(screen.render, gm, whole=False))
            yield "retry: 1000\n\n"
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield ": keep-alive\n\n"
                    continue
                if item is None:  # the server is stopping
                    return
                yield sse(*item)
        finally:
            screen.streams.discard(entry)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        task = asyncio.create_task(screen.watch())
        try:
            yield
        finally:
            task.cancel()

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/screen.js", script, methods=["GET"]),
        Route("/events", events, methods=["GET"]),
    ]
    # lazy: the players' pages; kept out of `ledger --help`
    from commands.player_page import routes as player_routes

    routes += player_routes(screen, headers)  # the players' pages, /p/TOKEN (`ledger player link`)
    web = Starlette(routes=routes, lifespan=lifespan)
    web.state.screen = screen
    return web


def _span(points: list[dict[str, Any]]) -> tuple[int, int]:
    return (points[0]["ruling"], points[-1]["ruling"]) if points else (0, 0)
