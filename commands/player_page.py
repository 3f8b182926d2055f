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
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
from markupsafe import Markup
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from commands.guard import UNKNOWN, Rates
from commands.live import HEARTBEAT, sse
from ledger.aggregates import name_key
from ledger.errors import BadInput
from ledger.model.dice import DiceSpec, parse_faces
from ledger.model.dice_scheme import seed_ok
from ledger.storage.players import ALIVE, Players, token_hash
from ledger.storage.target import parse_target
from projections.db import sheets

HERE = Path(__file__).parent / "screen"  # the page's template and script (beside the screen's)
NONCE_BYTES = 16
MAX_NONCES = 10_000  # pages' nonces kept at once (oldest dropped first)
ACT_SECONDS = 120.0  # how long a player's request for an action waits for the GM
STATE_WORDS = {
    "open": "waiting for the GM", "accepted": "accepted", "edited": "accepted as the GM changed it",
    "refused": "refused by the GM", "expired": "expired: nothing was recorded", "withdrawn": "replaced by a newer one",
}  # fmt: skip
GET_RATE = (240, 60.0)  # at most 240 reads a minute per token (a page polls once a second)
POST_RATE = (10, 60.0)  # at most 10 answers a minute per token
MAX_SEED_BYTES = 64
ASKS_SHOWN = 10  # the hero's latest asks listed on the page, with their fates


class HeroStream:
    """One open player's page's live connection: its hero, its queue of events, the request it was last shown."""

    def __init__(self, key: str, name: str) -> None:
        self.key = key
        self.name = name
        self.queue: asyncio.Queue[tuple[str, int, str] | None] = asyncio.Queue()
        self.shown: str | None = None  # the id of the request last pushed (None: none)
        self.asked: tuple[int, str] | None = None  # the hero's latest action request (number, state) last pushed


class Pages:
    """The players' side of the server: links looked up by token, per-page nonces, per-token rates."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.players = Players(parse_target(screen.app.db))
        self.nonces: dict[str, tuple[str, str, float]] = {}  # nonce -> (hero key, request id, expires)
        self.reads = Rates(*GET_RATE)  # fixed-size tables (commands/guard.py): no memory grows per token tried
        self.answers = Rates(*POST_RATE)

    def allowed(self, key: str, kind: str) -> bool:
        """Whether this page (a token's hash, or the slot every unknown token shares) may read once more now, or may
        still answer (an answer is counted only once accepted: `answered`)."""
        if kind == "get":
            return self.reads.take(key)
        return not self.answers.full(key)

    def answered(self, key: str) -> None:
        """Count one accepted answer against the page's allowance."""
        self.answers.count(key)

    def _issue(self, hero_key: str, purpose: str, expires: float) -> str:
        """A fresh single-use nonce for this hero's page, good for `purpose` (a request's id, or "act") until
        `expires`; the table is bounded (the oldest dropped first)."""
        if len(self.nonces) >= MAX_NONCES:
            self.nonces.pop(next(iter(self.nonces)))
        n = secrets.token_urlsafe(NONCE_BYTES)
        self.nonces[n] = (hero_key, purpose, expires)
        return n

    def _spend(self, hero_key: str, nonce: str, purpose: str) -> float | None:
        """Spend a nonce this hero's page was given for `purpose`: its expiry, or None if it is no such nonce (a
        replay, another page's, or one for something else). Spent either way: a replay of the POST is refused."""
        held = self.nonces.get(nonce)
        if held is None or held[0] != hero_key or held[1] != purpose:
            return None
        del self.nonces[nonce]
        return held[2]

    def nonce(self, hero_key: str, request: dict[str, Any] | None) -> str | None:
        """A fresh single-use nonce for this page to answer this request with."""
        return None if request is None else self._issue(hero_key, request["id"], request["expires"])

    def asks(self, hero_key: str) -> dict[int, dict[str, Any]]:
        """The hero's asks as the log records them (the campaign's), newest last: each one's counter, roll and fate."""
        campaign = self.screen.app.ledger.campaign()
        return {int(n): a for n, a in getattr(campaign, "asks", {}).items() if name_key(str(a.get("hero"))) == hero_key}

    def state(self, hero_key: str, request: Any = False) -> dict[str, Any]:
        """What the page shows: the roll asked for now (read now unless given; by what it is for, with the nonce to
        answer it), what became of the latest request, and the hero's asks as the log records them. A request is
        offered only while the log holds its ask open and its command still waits; otherwise it is closed here, and
        the page says why."""
        if request is False:
            request = self.players.pending(hero_key)
        logged = self.asks(hero_key)
        listed = [
            {
                "ask": n,
                "roll": a.get("name"),
                "counter": a.get("counter"),
                "session": a.get("session"),
                "fate": a.get("fate") or "open",
                "why": a.get("why") or "",
                "seed": a.get("seed"),
            }
            for n, a in sorted(logged.items())[-ASKS_SHOWN:]
        ]
        shown, status = None, None
        if request is not None:
            held = logged.get(request["ask"], {})
            fate = held.get("fate")
            alive = request["alive"] > time.time() - ALIVE
            if request["state"] == "open" and (fate is not None or not held):
                why = f"the log closed the ask ({fate}: {held.get('why')})" if fate else "the log holds no such ask"
                self.players.close(request["id"], "cancelled", why)
                request = {**request, "state": "cancelled", "why": why}
            elif request["state"] == "open" and not alive:
                why = "the GM's command is no longer waiting"
                self.players.close(request["id"], "cancelled", why)
                request = {**request, "state": "cancelled", "why": why}
            elif request["state"] == "open" and request["expires"] <= time.time():
                request = {**request, "state": "expired", "why": "the GM's wait ran out"}
            spec = request["spec"]
            if request["state"] == "open":
                shown = {
                    "id": request["id"],
                    "ask": request["ask"],
                    "counter": held.get("counter"),
                    "what": spec.get("what", request["roll"]),
                    "purpose": spec.get("purpose", request["roll"]),
                    "also": list(spec.get("also") or []),  # rolls the same tap makes if the rules need them
                    "roll": request["roll"],
                    "notation": spec.get("notation"),
                    "count": spec.get("count"),
                    "fudge": spec.get("kind") == "fudge",
                    "seconds": max(0, int(request["expires"] - time.time())),
                }
            else:
                status = {"ask": request["ask"], "text": _status(request, held, alive)}
        nonce = self.nonce(hero_key, request) if shown is not None and request is not None else None
        return {"request": shown, "nonce": nonce, "status": status, "asks": listed}

    def sheet(self, hero: str) -> dict[str, Any] | None:
        """The hero's own sheet, from the read side (caught up by the server's poller)."""
        read = self.screen.app.read
        with read.engine.connect() as conn:
            row = conn.execute(
                select(sheets.c.sheet).where(sheets.c.name == hero).where(sheets.c.active).limit(1)
            ).first()
        return dict(row[0]) if row is not None else None

    def hero_part(self, name: str) -> str:
        """The hero's own part of their page: the dice card (their latest rolls) and their sheet."""
        # lazy: the read side's words (SQLAlchemy), for `ledger serve`
        from ledger.model.roll_purpose import purpose
        from ledger.rules import health_word
        from projections.screen import campaign_system, hero_rolls

        read = self.screen.app.read
        rolls = hero_rolls(read, name)
        for r in rolls:
            for x in r["rolls"]:
                x["purpose"] = purpose(x["roll"], name, r["command"])
        return str(
            self.screen.env.get_template("hero.html").render(
                name=name,
                sheet=self.sheet(name),
                rolls=rolls,
                act=self.act_state(name_key(name), name),
                p={"hp_label": health_word(campaign_system(read))},
            )
        )

    def act_state(self, hero_key: str, name: str) -> dict[str, Any]:
        """The hero's action choices now (with a nonce to ask with) and their latest request's state."""
        # lazy: the read side's choices (SQLAlchemy), for `ledger serve`
        from projections.choices import choices

        found = choices(self.screen.app.read, name)
        latest = self.players.latest_proposal(hero_key)
        if latest is not None:
            latest["words_state"] = STATE_WORDS.get(latest["state"], latest["state"])
        return {"choices": found, "nonce": self.act_nonce(hero_key) if found else None, "latest": latest}

    def act_nonce(self, hero_key: str) -> str:
        """A single-use nonce for this hero's page to ask for one action with."""
        return self._issue(hero_key, "act", time.time() + ACT_SECONDS)

    def act(self, hero_key: str, name: str, body: Any) -> tuple[int, str]:
        """Check and record one request for an action; (HTTP status, what to tell the page)."""
        # lazy: the read side's choices (SQLAlchemy), for `ledger serve`
        from projections.choices import choices

        if (
            not isinstance(body, dict)
            or not isinstance(body.get("nonce"), str)
            or not isinstance(body.get("choice"), str)
        ):
            return 400, "an action needs the page's nonce and one of its choices"
        expires = self._spend(hero_key, body["nonce"], "act")
        if expires is None:
            return 403, "this page's request is not valid (already sent, or from another page): reload the page"
        if expires <= time.time():
            return 410, "this choice is too old: pick again"
        offered = {c["id"]: c for c in choices(self.screen.app.read, name)}
        if not offered:
            return 409, "it is not your hero's turn now"
        picked = offered.get(body["choice"][:500])
        if picked is None:
            return 400, "that is not one of this turn's choices: pick again"
        num = self.players.propose(hero_key, name, picked["words"], picked["label"], ACT_SECONDS)
        return 200, f"asked the GM (request {num}): {picked['label']}"

    def push(self, moved: bool) -> None:
        """From the server's watcher (a thread): to each open player's page, the shared screen and its hero's part
        when the log moved, and the roll asked of its hero whenever that changed (with a fresh nonce)."""
        loop = self.screen.loop
        by_hero: dict[str, list[HeroStream]] = {}
        for s in list(self.screen.hero_streams):
            by_hero.setdefault(s.key, []).append(s)
        head = self.screen.head
        for key, streams in by_hero.items():
            if not self.players.linked(key):  # revoked while open: the page's stream ends
                for s in streams:
                    loop.call_soon_threadsafe(s.queue.put_nowait, None)
                continue
            request = self.players.pending(key)
            latest = self.players.latest_proposal(key)
            mark = (latest["num"], latest["state"]) if latest else None
            changed = any(s.asked != mark for s in streams)
            part = self.hero_part(streams[0].name) if moved or changed else None
            for s in streams:
                s.asked = mark
            for s in streams:
                if moved:
                    loop.call_soon_threadsafe(s.queue.put_nowait, ("screen", head, self.screen.pages[False][1]))
                if part is not None:
                    loop.call_soon_threadsafe(s.queue.put_nowait, ("hero", head, part))
                seen = f"{request['id']}:{request['state']}" if request else None
                if seen != s.shown or moved:  # a new ask, its fate, or the log's list of asks
                    s.shown = seen
                    doc = orjson.dumps(self.state(key, request)).decode()
                    loop.call_soon_threadsafe(s.queue.put_nowait, ("ask", head, doc))

    def answer(self, hero_key: str, body: Any) -> tuple[int, str]:
        """Check and record one answer; (HTTP status, what to tell the page)."""
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("nonce"), str)
            or not isinstance(body.get("request"), str)
        ):
            return 400, "a roll needs its request and the page's nonce"
        if self._spend(hero_key, body["nonce"], body["request"]) is None:
            return 403, "this page's answer is not valid (already sent, or not for this request): reload the page"
        request = self.players.request(body["request"])
        if request is None or request["hero_key"] != hero_key:
            return 403, "no such request on this page"
        if request["state"] != "open" or request["expires"] <= time.time():
            return 410, "this roll is no longer asked for (answered, cancelled or expired)"
        if request["alive"] <= time.time() - ALIVE:
            return 410, "the GM's command is no longer waiting for this roll: nothing would be recorded"
        if request["ask"] not in self.screen.app.ledger.campaign().open_asks():
            return 410, "the log has closed this ask: nothing would be recorded"
        spec = request["spec"]
        if isinstance(body.get("seed"), str):
            seed = body["seed"]
            if not seed_ok(seed) or len(seed) > 2 * MAX_SEED_BYTES:
                return 400, "the page's seed must be 16 to 64 random bytes in lowercase hex"
            answer: dict[str, Any] = {"seed": seed, "ask": request["ask"]}
        elif isinstance(body.get("faces"), str):
            shape = DiceSpec(spec["kind"], int(spec["count"]), int(spec["sides"]), int(spec.get("modifier", 0)))
            try:
                parse_faces(request["roll"], body["faces"][:200], shape)
            except BadInput as e:
                return 400, e.message
            answer = {"faces": body["faces"][:200], "ask": request["ask"]}
        else:
            return 400, "send a seed (tap Roll) or the faces of your dice"
        if not self.players.answer(body["request"], answer):
            return 410, "this roll is no longer asked for (answered, cancelled or expired)"
        return 200, f"sent (ask of ruling {request['ask']}): waiting for the GM's ledger to record it"


def _status(request: dict[str, Any], held: dict[str, Any], alive: bool) -> str:
    """What became of the page's latest request, in words, from the log first (never "rolling" when nothing will
    be recorded)."""
    fate = held.get("fate")
    if fate == "answered":
        return f"recorded: your {request['roll']} roll is in ruling {held.get('by')}"
    if fate is not None:
        return f"not recorded: the ask of ruling {request['ask']} was {fate} ({held.get('why')})"
    if request["state"] == "answered":
        if alive:
            return "sent: waiting for the GM's ledger to record it"
        return "sent, but the GM's command is no longer waiting: nothing will be recorded"
    return f"not recorded: {request.get('why') or request['state']}"


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
        if len(token) > 64:
            return missing
        found = await asyncio.to_thread(pages.players.hero_of, token)
        key = token_hash(token) if found is not None else UNKNOWN  # unknown tokens share one slot
        if not pages.allowed(key, kind):
            return PlainTextResponse("too many requests", 429, headers={**headers, "Retry-After": "10"})
        return missing if found is None else found

    async def page(request: Request) -> Response:
        found = await hero(request, "get")
        if isinstance(found, Response):
            return found
        key, name = found
        html = await asyncio.to_thread(render, key, name, request.url.path)
        return Response(html, media_type="text/html; charset=utf-8", headers=headers)

    def render(key: str, name: str, path: str) -> str:
        screen.checked()  # the hero's sheet and the shared screen: never a row the one-shot readers would refuse
        return str(
            screen.env.get_template("player.html").render(
                name=name,
                hero=name,
                part=Markup(pages.hero_part(name)),  # noqa: S704 - our own template's output, escaped there
                ask=pages.state(key),
                path=path,
                css=screen.css,
                p=screen.model(False),
            )
        )

    async def events(request: Request) -> Response:
        found = await hero(request, "get")
        if isinstance(found, Response):
            return found
        return StreamingResponse(
            stream(request, *found), media_type="text/event-stream", headers={**headers, "X-Accel-Buffering": "no"}
        )

    async def stream(request: Request, key: str, name: str) -> AsyncIterator[str]:
        entry = HeroStream(key, name)
        ask = await asyncio.to_thread(pages.players.pending, key)
        await asyncio.to_thread(screen.checked)  # never a row the one-shot readers would refuse
        entry.shown = f"{ask['id']}:{ask['state']}" if ask else None
        latest = await asyncio.to_thread(pages.players.latest_proposal, key)
        entry.asked = (latest["num"], latest["state"]) if latest else None
        head, main = await asyncio.to_thread(screen.render, False, whole=False)
        part = await asyncio.to_thread(pages.hero_part, name)
        state = orjson.dumps(await asyncio.to_thread(pages.state, key, ask)).decode()
        screen.hero_streams.add(entry)
        try:
            yield "retry: 1000\n\n"
            for item in (("screen", head, main), ("hero", head, part), ("ask", head, state)):
                yield sse(item[1], item[2], item[0])
            while True:
                try:
                    got = await asyncio.wait_for(entry.queue.get(), HEARTBEAT)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield ": keep-alive\n\n"
                    continue
                if got is None:  # the server is stopping, or the link was revoked
                    return
                yield sse(got[1], got[2], got[0])
        finally:
            screen.hero_streams.discard(entry)

    async def pending(request: Request) -> Response:
        found = await hero(request, "get")
        if isinstance(found, Response):
            return found
        return JSONResponse(await asyncio.to_thread(pages.state, found[0]), headers=headers)

    async def posted(request: Request, what: str, handle: Any) -> Response:
        """A POST from the hero's own page (same origin, JSON, a live token within its rate): `handle(hero key, hero,
        body)` in a thread gives (status, message); only accepted ones count against the page's allowance."""
        if not same_origin(request):
            return PlainTextResponse(f"refused: {what} from the player's own page only", 403, headers=headers)
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
        status, text = await asyncio.to_thread(handle, found[0], found[1], body)
        if status == 200:
            pages.answered(token_hash(request.path_params["token"]))
        return JSONResponse({"ok": status == 200, "message": text}, status, headers=headers)

    async def roll(request: Request) -> Response:
        return await posted(request, "a roll is sent", lambda key, _name, body: pages.answer(key, body))

    async def act(request: Request) -> Response:
        return await posted(request, "an action is asked", pages.act)

    async def script(request: Request) -> Response:
        return Response((HERE / "player.js").read_bytes(), media_type="text/javascript", headers=headers)

    return [
        Route("/player.js", script, methods=["GET"]),
        Route("/p/{token}", page, methods=["GET"]),
        Route("/p/{token}/request", pending, methods=["GET"]),
        Route("/p/{token}/events", events, methods=["GET"]),
        Route("/p/{token}/roll", roll, methods=["POST"]),
        Route("/p/{token}/act", act, methods=["POST"]),
    ]
