"""`ledger serve`'s players' pages, /p/TOKEN: a hero's sheet, the shared screen, and the roll the GM's command waits
for.

The one write anywhere in `serve`: answering the page's own hero's pending request (POST /p/TOKEN/roll), once.
It must come from the page itself: the same origin (Origin header), JSON, a nonce the server handed to this page
for this request (single use), before the request expires, within a bounded rate per token. A token that is
no live link gets 404, whatever the path; a request of another hero is refused as if it did not exist.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ledger.errors import BadInput
from ledger.model.dice import DiceSpec, parse_faces
from ledger.storage.players import Players, token_hash
from ledger.storage.target import parse_target
from projections.db import sheets

HERE = Path(__file__).parent / "screen"  # the page's template and script (beside the screen's)
NONCE_BYTES = 16
MAX_NONCES = 10_000  # pages' nonces kept at once (oldest dropped first)
GET_RATE = (240, 60.0)  # at most 240 reads a minute per token (a page polls once a second)
POST_RATE = (10, 60.0)  # at most 10 answers a minute per token
MAX_SEED_BYTES = 64


class Pages:
    """The players' side of the server: links looked up by token, per-page nonces, per-token rates."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.players = Players(parse_target(screen.app.db))
        self.nonces: dict[str, tuple[str, str, float]] = {}  # nonce -> (hero key, request id, expires)
        self.hits: dict[tuple[str, str], deque[float]] = {}

    def allowed(self, token: str, kind: str) -> bool:
        """Whether this token may make one more request of this kind now (a sliding window)."""
        limit, window = GET_RATE if kind == "get" else POST_RATE
        now = time.monotonic()
        q = self.hits.setdefault((token_hash(token), kind), deque())
        while q and q[0] < now - window:
            q.popleft()
        if len(q) >= limit:
            return False
        q.append(now)
        return True

    def nonce(self, hero_key: str, request: dict[str, Any] | None) -> str | None:
        """A fresh single-use nonce for this page to answer this request with."""
        if request is None:
            return None
        if len(self.nonces) >= MAX_NONCES:
            self.nonces.pop(next(iter(self.nonces)))
        n = secrets.token_urlsafe(NONCE_BYTES)
        self.nonces[n] = (hero_key, request["id"], request["expires"])
        return n

    def state(self, hero_key: str) -> dict[str, Any]:
        """What the page shows of its pending request: the roll asked for, and the nonce to answer it with."""
        request = self.players.pending(hero_key)
        shown = None
        if request is not None:
            spec = request["spec"]
            shown = {
                "id": request["id"],
                "what": spec.get("what", request["roll"]),
                "roll": request["roll"],
                "notation": spec.get("notation"),
                "count": spec.get("count"),
                "fudge": spec.get("kind") == "fudge",
                "seconds": max(0, int(request["expires"] - time.time())),
            }
        return {"request": shown, "nonce": self.nonce(hero_key, request)}

    def sheet(self, hero: str) -> dict[str, Any] | None:
        """The hero's own sheet, from the read side (caught up by the server's poller)."""
        read = self.screen.app.read
        with read.engine.connect() as conn:
            row = conn.execute(
                select(sheets.c.sheet).where(sheets.c.name == hero).where(sheets.c.active).limit(1)
            ).first()
        return dict(row[0]) if row is not None else None

    def answer(self, hero_key: str, body: Any) -> tuple[int, str]:
        """Check and record one answer; (HTTP status, what to tell the page)."""
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("nonce"), str)
            or not isinstance(body.get("request"), str)
        ):
            return 400, "a roll needs its request and the page's nonce"
        held = self.nonces.get(body["nonce"])
        if held is None or held[0] != hero_key or held[1] != body["request"]:
            return 403, "this page's answer is not valid (already sent, or not for this request): reload the page"
        del self.nonces[body["nonce"]]  # spent: a replay of this POST is refused
        request = self.players.request(body["request"])
        if request is None or request["hero_key"] != hero_key:
            return 403, "no such request on this page"
        if request["state"] != "open" or request["expires"] <= time.time():
            return 410, "this roll is no longer asked for (answered, cancelled or expired)"
        spec = request["spec"]
        if isinstance(body.get("seed"), str):
            seed = body["seed"].strip().lower()
            try:
                size = len(bytes.fromhex(seed))
            except ValueError:
                size = 0
            if not 16 <= size <= MAX_SEED_BYTES:
                return 400, "the page's seed must be 16 to 64 random bytes in hex"
            answer: dict[str, Any] = {"seed": seed}
        elif isinstance(body.get("faces"), str):
            shape = DiceSpec(spec["kind"], int(spec["count"]), int(spec["sides"]), int(spec.get("modifier", 0)))
            try:
                parse_faces(request["roll"], body["faces"][:200], shape)
            except BadInput as e:
                return 400, e.message
            answer = {"faces": body["faces"][:200]}
        else:
            return 400, "send a seed (tap Roll) or the faces of your dice"
        if not self.players.answer(body["request"], answer):
            return 410, "this roll is no longer asked for (answered, cancelled or expired)"
        return 200, "sent: the GM's ledger is rolling it now"


def same_origin(request: Any) -> bool:
    """A POST from the page itself: its Origin is this server's own (and the browser does not call it cross-site)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host")
    if not origin or not host:
        return False
    if request.headers.get("sec-fetch-site") not in (None, "same-origin"):
        return False
    return bool(origin == f"{request.url.scheme}://{host}")


def routes(screen: Any, headers: dict[str, str]) -> list[Any]:
    """The /p/TOKEN routes, for `build_app` in commands/serve.py."""
    pages = Pages(screen)
    screen.pages_state = pages
    missing = PlainTextResponse("no such page (the link may have been replaced or revoked)", 404, headers=headers)

    async def hero(request: Request, kind: str) -> tuple[str, str] | Response:
        token = request.path_params["token"]
        if not pages.allowed(token, kind):
            return PlainTextResponse("too many requests", 429, headers={**headers, "Retry-After": "10"})
        found = await asyncio.to_thread(pages.players.hero_of, token)
        return missing if found is None else found

    async def page(request: Request) -> Response:
        found = await hero(request, "get")
        if isinstance(found, Response):
            return found
        key, name = found
        html = await asyncio.to_thread(render, key, name, request.url.path)
        return Response(html, media_type="text/html; charset=utf-8", headers=headers)

    def render(key: str, name: str, path: str) -> str:
        return screen.env.get_template("player.html").render(
            name=name,
            hero=name,
            sheet=pages.sheet(name),
            ask=pages.state(key),
            path=path,
            css=screen.css,
            p=screen.model(False),
        )

    async def pending(request: Request) -> Response:
        found = await hero(request, "get")
        if isinstance(found, Response):
            return found
        return JSONResponse(await asyncio.to_thread(pages.state, found[0]), headers=headers)

    async def roll(request: Request) -> Response:
        if not same_origin(request):
            return PlainTextResponse("refused: a roll is sent from the player's own page only", 403, headers=headers)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return PlainTextResponse("refused: send JSON", 415, headers=headers)
        found = await hero(request, "post")
        if isinstance(found, Response):
            return found
        raw = await request.body()
        try:
            body = orjson.loads(raw[:4096])
        except orjson.JSONDecodeError:
            body = None
        status, text = await asyncio.to_thread(pages.answer, found[0], body)
        return JSONResponse({"ok": status == 200, "message": text}, status, headers=headers)

    async def script(request: Request) -> Response:
        return Response((HERE / "player.js").read_bytes(), media_type="text/javascript", headers=headers)

    return [
        Route("/player.js", script, methods=["GET"]),
        Route("/p/{token}", page, methods=["GET"]),
        Route("/p/{token}/request", pending, methods=["GET"]),
        Route("/p/{token}/roll", roll, methods=["POST"]),
    ]
