"""`ledger serve` under attack: what any browser or socket on the network can send is checked here, before a route.

- **Host**: a request whose Host header is not a name this server answers to gets 421. A page on another site
  that rebinds its own name to this server's address (DNS rebinding) sends its own name as Host, so it can read
  nothing. Answered: IP literals (a name can be rebound, an address can't), `localhost`, and the name `serve
  --host` gave; with the served port, if the header names one.
- **Time**: a connection must finish its request's headers within HEADER_SECONDS of opening (or of its last
  answer), and a request's body must arrive within BODY_SECONDS; otherwise it is closed (or answered 408).
  Connections at once are bounded (uvicorn's `limit_concurrency`: 503 beyond).
- **Memory**: per-token counts live in a table of fixed size (`Rates`): trying any number of tokens grows nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import OrderedDict, deque
from typing import Any

HEADER_SECONDS = 5.0  # to send a request's headers
BODY_SECONDS = 10.0  # to send a request's body
KEEP_ALIVE_SECONDS = 5.0  # an idle connection between requests
CONNECTIONS = 200  # at once; beyond, 503
RATE_SLOTS = 1024  # tokens whose counts are kept at once (the least recently seen goes first)
UNKNOWN = "?"  # the one slot every token that is no live link shares


def can_listen(host: str, port: int) -> str | None:
    """Why `serve` can't listen on host:port (None when it can): a name that resolves to nothing, an address that is
    not this machine's, a port in use or not allowed. Tried with a socket of its own before the server starts."""
    # lazy: sockets, for `ledger serve`
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as e:
        return f"'{host}' does not resolve to an address ({e.strerror or e})"
    last = ""
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(address)
                return None
        except OSError as e:
            last = e.strerror or str(e)
    return last or "no address to listen on"


def host_names(host: str) -> set[str]:
    """The Host names (without port) a server listening on `host` answers to, beside any IP literal."""
    names = {"localhost"}
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        names.add(host.rstrip(".").lower())  # a name the GM chose: the players' phones use it
    return names


def host_ok(header: str | None, names: set[str], port: int) -> bool:
    """Whether a Host header names this server: an IP literal or one of `names`, and this port if it says one."""
    if not header or len(header) > 300:
        return False
    value = header.strip().lower()
    if value.startswith("["):  # [v6]:port
        end = value.find("]")
        if end < 0:
            return False
        name, rest = value[1:end], value[end + 1 :]
        if rest and not rest.startswith(":"):
            return False
        given = rest[1:] if rest else ""
    else:
        name, _, given = value.partition(":")
    if given and given != str(port):
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name.rstrip(".") in names


class Guard:
    """ASGI middleware: the Host check and the body's deadline, before any route runs."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self.app = app
        self.names = host_names(host)
        self.port = port

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if not host_ok(host, self.names, self.port):
            body = b"wrong Host: this server answers to its own address only"
            await send(
                {
                    "type": "http.response.start",
                    "status": 421,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            receive = _deadline(receive, send)
        try:
            await self.app(scope, receive, send)
        except BodyTimeout:
            pass  # answered 408 already


class BodyTimeout(Exception):
    """A request's body did not arrive in time."""


def _deadline(receive: Any, send: Any) -> Any:
    """`receive` for a request with a body: the whole body within BODY_SECONDS, else 408 and the connection closed."""
    end = time.monotonic() + BODY_SECONDS
    done = False

    async def timed() -> Any:
        nonlocal done
        if done:
            return await receive()  # after the body: the disconnect, whenever it comes
        try:
            message = await asyncio.wait_for(receive(), max(0.0, end - time.monotonic()))
        except TimeoutError:
            await send(
                {
                    "type": "http.response.start",
                    "status": 408,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")],
                }
            )
            await send({"type": "http.response.body", "body": b"the request's body did not arrive in time"})
            raise BodyTimeout() from None
        if message.get("type") != "http.request" or not message.get("more_body"):
            done = True
        return message

    return timed


def protocol() -> type:
    """uvicorn's h11 protocol with a deadline for each request's headers (a half-open connection is closed)."""
    # lazy: uvicorn (the serve extra), for `ledger serve`
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Deadlined(H11Protocol):
        header_task: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.header_task is not None:
                self.header_task.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self.header_task is not None:
                self.header_task.cancel()
            self.header_task = self.loop.call_later(HEADER_SECONDS, self._late)

        def _late(self) -> None:
            waiting = self.cycle is None or self.cycle.response_complete  # no request's headers since the timer
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return Deadlined


def server_options() -> dict[str, Any]:
    """uvicorn.Config's share of the guard."""
    return {
        "http": protocol(),
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "limit_concurrency": CONNECTIONS,
        "h11_max_incomplete_event_size": 16 * 1024,
    }


class Rates:
    """Sliding-window counts per token in a table of fixed size: at most RATE_SLOTS tokens at once (the least recently
    seen is dropped first), and one shared slot for every token that is no live link."""

    def __init__(self, limit: int, window: float, slots: int = RATE_SLOTS) -> None:
        self.limit, self.window, self.slots = limit, window, slots
        self.table: OrderedDict[str, deque[float]] = OrderedDict()

    def _queue(self, key: str) -> deque[float]:
        q = self.table.get(key)
        if q is None:
            if len(self.table) >= self.slots:
                self.table.popitem(last=False)
            q = self.table[key] = deque(maxlen=self.limit)
        self.table.move_to_end(key)
        now = time.monotonic()
        while q and q[0] < now - self.window:
            q.popleft()
        return q

    def full(self, key: str) -> bool:
        """Whether `key` has used its whole allowance in the window."""
        return len(self._queue(key)) >= self.limit

    def count(self, key: str) -> None:
        """Count one use of `key`'s allowance."""
        self._queue(key).append(time.monotonic())

    def take(self, key: str) -> bool:
        """Count one use if the allowance has room; whether it had."""
        if self.full(key):
            return False
        self.count(key)
        return True
