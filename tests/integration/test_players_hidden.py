"""Hidden from the table (docs/serve.md, "Hidden from the players"): a character added or brought in `--hidden` and a
ruling recorded `--secret` are reachable on no route a player's token opens, until the GM reveals them (or the
character acts); the GM's view shows them, and the record, verify and the exports hold them unchanged."""

from __future__ import annotations

import json

from tests.conftest import Cli
from tests.players import SEED, post, table
from tests.serving import EventStream, serving

SECRET_ROLL = "1d20+17"  # a notation found nowhere else on the page


def hidden_fight(cli: Cli) -> dict[str, str]:
    """hnh: heroes Ann and Cat (linked), Bob in the open, Ghost hidden from the start, Shade joining hidden; one GM
    roll recorded --secret; the paths of the heroes' pages."""
    paths = table(cli)
    cli.ok("character", "add", "Ghost", "--trait", "fighting=3", "--hidden")
    cli.ok("character", "add", "Shade", "--trait", "fighting=3")
    start = ("--roll", "Ann=+,+,+", "--roll", "Ghost=0,0,+", "--roll", "Bob=-,-,-", "--roll", "Cat=-,-,0")
    cli.ok("encounter", "start", "Ann", "Ghost", "Bob", "Cat", *start)
    cli.ok("encounter", "join", "Shade", "--hidden", "--roll", "Shade=0,0,0")
    cli.ok("roll", SECRET_ROLL, "--secret")
    return paths


def player_routes(server, paths: dict[str, str]) -> dict[str, str]:
    """What every route a player's token reaches answers (GETs, each page's stream's first events, and a POST)."""
    out: dict[str, str] = {}
    for path in ("/", "/screen.js", "/player.js"):
        out[path] = server.get(path)[1]
    for hero, page in paths.items():
        for sub in ("", "/request"):
            status, body = server.get(page + sub)
            assert status == 200, (page + sub, status)
            out[f"{hero}{sub}"] = body
        stream = EventStream(server, page.lstrip("/") + "/events")
        out[f"{hero}/events"] = "\n".join(stream.next()[1] for _ in range(3))  # screen, hero, ask
        stream.close()
        out[f"{hero}/roll"] = json.dumps(post(server, page, {"request": "x", "nonce": "y", "seed": SEED}))
    stream = EventStream(server, "events")
    out["/events"] = stream.next()[1]
    stream.close()
    return out


def test_hidden_characters_and_secret_rulings_reach_no_player_route(cli: Cli, db: str):
    """CLI.md, fourth round (Hidden): Ghost (character add --hidden), Shade (encounter join --hidden) and the
    --secret roll appear on no player route: not the roster or tracker, not the last rulings, not the live streams,
    not the heroes' pages; the GM's view (/?gm=T) shows all three."""
    paths = hidden_fight(cli)
    with serving(db, "--gm-token", "gm") as server:
        seen = player_routes(server, paths)
        gm = server.get("/?gm=gm")[1]
    for route, body in seen.items():
        for hidden in ("Ghost", "Shade", SECRET_ROLL):
            assert hidden not in body, f"{hidden} on the player route {route}"
    assert "Bob" in seen["/"] and "Ann" in seen["/"]  # the open part of the fight is there
    assert "Ghost" in gm and "Shade" in gm and SECRET_ROLL in gm and "hidden from the players" in gm


def test_reveal_and_acting_show_them_from_then_on(cli: Cli, db: str):
    """CLI.md, fourth round: `encounter reveal NAME` shows a hidden character, `encounter reveal --ruling N` a secret
    ruling, and a hidden character that acts (attack) shows itself; the one still hidden stays off the screen."""
    paths = hidden_fight(cli)
    secret = cli.json("log", "-n", "1")[0]["ruling"]  # type: ignore[index]
    cli.ok("encounter", "reveal", "Ghost", "--ruling", str(secret))
    cli.ok("attack", "Shade", "Bob", "--rank", "1", "--roll", "attack=-,-,-", "--roll", "defense=+,+,+")
    with serving(db) as server:
        seen = player_routes(server, paths)
    assert "Ghost" in seen["/"] and SECRET_ROLL in seen["/"] and "Shade" in seen["/"]
    cli.ok("character", "add", "Wraith", "--trait", "fighting=1", "--hidden")
    with serving(db) as server:
        assert "Wraith" not in server.get("/")[1] and "Wraith" not in server.get(paths["Ann"])[1]


def test_the_record_verify_and_exports_are_unchanged_by_hiding(cli: Cli, db: str, tmp_path):
    """CLI.md, fourth round: hidden is a matter of the players' screen only; the log, `character list`,
    `encounter show`, verify and the exports hold the hidden character and the secret roll in full."""
    hidden_fight(cli)
    assert "Ghost" in cli.ok("character", "list").stdout
    assert "Shade" in cli.ok("encounter", "show").stdout
    assert SECRET_ROLL in cli.ok("log", "-n", "1").stdout
    assert cli.json("verify")["ok"] is True  # type: ignore[index]
    out = tmp_path / "x.md"
    cli.ok("export", "--format", "md", "-o", str(out))
    text = out.read_text()
    assert "Ghost" in text and SECRET_ROLL in text


def test_heroes_cant_be_hidden(cli: Cli, db: str):
    """CLI.md, fourth round: a player always sees their own hero: --hidden on a hero is one line, exit 2."""
    table(cli)
    for args in (("character", "add", "Dee", "--pc", "--hidden"), ("encounter", "join", "Ann", "--hidden")):
        r = cli(*args)
        assert r.exit_code == 2 and "hero" in r.stderr and len(r.stderr.strip().splitlines()) == 2, r.stderr
