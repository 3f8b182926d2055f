"""Players act from their hero's page (docs/serve.md, "Players act"): during the hero's turn the page offers the
actions the rules allow now, built from the hero's sheet and the tracker; a pick becomes a request the GM sees as
the ruling's sentence to be made (`ledger pending`), records exactly that command when accepted (the ruling keeps who
asked), and nothing when refused or expired. Whatever the page sends is checked as the Roll button's answer is:
token, origin, JSON, single-use nonce, rate, expiry. Over real HTTP against a real `ledger serve`."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.conftest import Cli
from tests.players import SEED, finish, post, state, table, waiting
from tests.serving import EventStream, Server, serving

START = ("--roll", "Ann=+,+,+", "--roll", "Bob=0,0,0", "--roll", "Cat=-,-,-")  # initiative Ann 4, Bob 0, Cat -4


def offered(server: Server, page: str) -> tuple[str | None, list[tuple[str, str]]]:
    """(the action nonce, [(choice id, label)]) the hero's page offers now, read from its stream's `hero` event."""
    stream = EventStream(server, page.lstrip("/") + "/events")
    try:
        _, html = stream.until('id="card"')
    finally:
        stream.close()
    nonce = re.search(r'id="act-form" data-nonce="([^"]*)"', html)
    pairs = re.findall(r'<option value="([^"]+)">([^<]+)</option>', html)
    unescape = [(v.replace("&#39;", "'").replace("&amp;", "&"), t.replace("&#39;", "'")) for v, t in pairs]
    return (nonce.group(1) if nonce else None), unescape


def ask(server: Server, page: str, label: str) -> tuple[int, Any]:
    """Pick the choice with this label and ask the GM, as the page's form does."""
    nonce, choices = offered(server, page)
    choice = next(v for v, t in choices if t == label)
    return post(server, page, {"nonce": nonce, "choice": choice}, to="/act")


def test_a_heros_turn_offers_its_actions_and_an_accepted_request_records_who_asked(cli: Cli, db: str):
    """rules/hnh gameplay.txt, Taking Your Turn: on Ann's turn her page offers attacks at the foes in the fight,
    the system's actions, her checks and ending or delaying the turn; Cat, not up, is offered nothing. Ann's pick
    shows in `ledger pending` as the sentence to be made and the command; `pending accept` records exactly that
    attack, with `asked_by: Ann` in the ruling's intent."""
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    with serving(db) as server:
        nonce, choices = offered(server, paths["Ann"])
        labels = [t for _, t in choices]
        assert (
            nonce
            and "Ann attacks Bob" in labels
            and "Ann ends the turn" in labels
            and "Ann: grab against Bob" in labels
        )
        assert "Ann attacks Cat" in labels and "Ann attacks Ann" not in labels  # never herself
        assert offered(server, paths["Cat"]) == (None, [])  # not Cat's turn
        status, body = ask(server, paths["Ann"], "Ann attacks Bob")
        assert status == 200 and "request 1" in body["message"], body
    listed = cli.json("pending")
    assert [(x["number"], x["hero"], x["said"], x["command"]) for x in listed] == [  # type: ignore[union-attr]
        (1, "Ann", "Ann attacks Bob", ["attack", "Ann", "Bob"])
    ]
    assert "Ann asks: Ann attacks Bob" in cli.ok("pending").stdout
    with serving(db) as server:
        gm = waiting(db, "pending", "accept", "1")  # the attack asks Ann's page for her rolls, as any would
        what = []
        while gm.poll() is None:
            doc = state(server, paths["Ann"])
            if doc["request"] is None:
                time.sleep(0.1)
                continue
            what.append(doc["request"]["what"])
            post(server, paths["Ann"], {"request": doc["request"]["id"], "nonce": doc["nonce"], "seed": SEED})
        code, out, err = finish(gm)
        assert what and what[0] == "Ann's attack roll", what
    assert code == 0, err
    assert re.match(r"ruling \d+: Ann (hits|misses|critically hits) Bob", out), out
    last = cli.json("log", "-n", "1")[0]  # type: ignore[index]
    assert last["data"]["command"] == "attack" and last["data"]["intent"]["asked_by"] == "Ann"
    assert cli.json("pending") == []  # settled
    again = cli("pending", "accept", "1")
    assert again.exit_code == 2 and "accepted" in again.stderr


def test_refused_and_expired_requests_record_nothing(cli: Cli, db: str):
    """docs/serve.md, Players act: `pending refuse N` records nothing and the page reads "refused by the GM"; a
    request past its time can't be accepted (exit 2, nothing recorded); `pending edit N` without a command prints
    the request's command for the GM to change."""
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    head = len(cli.json("log"))  # type: ignore[arg-type]
    with serving(db) as server:
        assert ask(server, paths["Ann"], "Ann ends the turn")[0] == 200
        assert cli.ok("pending", "edit", "1").stdout.strip() == "ledger pending edit 1 -- encounter next"
        cli.ok("pending", "refuse", "1")
        stream = EventStream(server, paths["Ann"].lstrip("/") + "/events")
        _, html = stream.until("refused by the GM")
        stream.close()
        assert ask(server, paths["Ann"], "Ann delays the turn")[0] == 200
    # the request's time runs out (two minutes): made to have run out by moving its expiry into the past
    from ledger.storage.players import ACTIONS, Players
    from ledger.storage.target import parse_target

    Players(parse_target(db))._run(f"UPDATE {ACTIONS} SET expires = 0 WHERE num = 2")
    r = cli("pending", "accept", "2")
    assert r.exit_code == 2 and "expired" in r.stderr
    assert len(cli.json("log")) == head  # type: ignore[arg-type]


def test_an_edited_request_records_the_gms_command_asked_by_the_hero(cli: Cli, db: str):
    """docs/serve.md, Players act: `pending edit N -- COMMAND` records the GM's own version (a check given its DC),
    still marked as asked by the hero."""
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    with serving(db) as server:
        assert ask(server, paths["Ann"], "Ann makes an agility check")[0] == 200
    cli.ok("pending", "edit", "1", "--", "check", "Ann", "agility", "--dc", "12", "--roll", "check=0,0,0")
    last = cli.json("log", "-n", "1")[0]  # type: ignore[index]
    assert last["data"]["command"] == "check" and last["data"]["intent"]["asked_by"] == "Ann"
    assert last["data"]["intent"]["dc"] == 12


def test_the_act_endpoint_refuses_what_a_page_would_never_send(cli: Cli, db: str):
    """docs/serve.md, Security of the page's writes: a cross-origin or Origin-less POST, a non-JSON body, a replayed
    or foreign nonce, a choice the turn doesn't offer and a request from a hero who is not up are refused, and
    nothing reaches `ledger pending`; past the rate, 429."""
    paths = table(cli)
    cli.ok("encounter", "start", "Ann", "Bob", "Cat", *START)
    with serving(db) as server:
        nonce, choices = offered(server, paths["Ann"])
        good = {"nonce": nonce, "choice": choices[0][0]}
        assert post(server, paths["Ann"], good, origin="http://evil.example", to="/act")[0] == 403
        assert post(server, paths["Ann"], good, origin=None, to="/act")[0] == 403
        assert post(server, paths["Ann"], b"nonce=x", headers={"Content-Type": "text/plain"}, to="/act")[0] == 415
        assert post(server, paths["Ann"], {**good, "choice": "0:attack Ann Ann --rank 20"}, to="/act")[0] == 400
        assert post(server, paths["Ann"], good, to="/act")[0] == 403  # the nonce was spent by the bad choice
        nonce, choices = offered(server, paths["Ann"])
        assert post(server, paths["Cat"], {"nonce": nonce, "choice": choices[0][0]}, to="/act")[0] == 403  # not hers
        assert cli.json("pending") == []  # nothing of the refused tries reached the GM
        status, _ = post(server, paths["Ann"], {"nonce": nonce, "choice": choices[0][0]}, to="/act")
        assert status == 200  # another page can't spend Ann's nonce; her own page's request goes through, once
        assert post(server, paths["Ann"], {"nonce": nonce, "choice": choices[0][0]}, to="/act")[0] == 403
        assert len(cli.json("pending")) == 1  # type: ignore[arg-type]
        statuses = [post(server, paths["Cat"], {"nonce": "x", "choice": "y"}, to="/act")[0] for _ in range(12)]
        assert set(statuses) == {403}  # refused requests never lock a page out: the bound counts accepted ones only


def test_the_choices_leave_out_what_the_rules_refuse_now(cli: Cli, db: str):
    """hnh-site/gameplay.txt, Escape - Move Action ("You attempt to escape from a successful grab") and Grab (the
    holder may release): a hero held by no one is not offered escape, nor release while holding no one; once Bob
    holds Ann, her turn offers escape against Bob (and release against no one). Asked of the same rules the ruling
    uses (projections/choices.py), read from the hero's page choices."""
    from ledger.storage.target import parse_target
    from projections.choices import choices
    from projections.db import ReadSide

    cli.ok("init", "--system", "hnh", "--name", "Holds")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--trait", "strength=2", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "fighting=4", "--trait", "strength=4")
    cli.ok("encounter", "start", "Bob", "Ann", "--init", "Bob=9", "--init", "Ann=5")
    cli.ok("act", "Bob", "grab", "--against", "Ann", "--roll", "attack=+,+,+", "--roll", "defense=-,-,-",
           "--roll", "strength=+,+,0", "--roll", "against=-,-,0")  # fmt: skip
    cli.ok("encounter", "next")
    cli.ok("encounter", "show")  # a read: the read models caught up with the log
    read = ReadSide(parse_target(db))
    try:
        labels = [c["label"] for c in choices(read, "Ann")]
    finally:
        read.close()
    assert "Ann: escape against Bob" in labels
    assert not any(label.startswith("Ann: release") for label in labels)  # Ann holds no one
    cli.ok("undo")
    cli.ok("undo")
    cli.ok("encounter", "next")  # Ann's turn, held by no one
    cli.ok("encounter", "show")
    read = ReadSide(parse_target(db))
    try:
        labels = [c["label"] for c in choices(read, "Ann")]
    finally:
        read.close()
    assert labels and not any("escape" in label or "release" in label for label in labels), labels


def test_a_heros_page_offers_no_action_the_turns_budget_has_no_room_for(cli: Cli, db: str):
    """hnh-site/gameplay.txt, Number Of Actions and Standard Action ("you can only use 1 standard action during your
    turn"), and Delay ("You cannot delay if you have already taken an action on your turn"): once Ann's attack is
    recorded, her page (over HTTP) offers no attack, no grab (a standard action) and no delay, but still her checks
    and the turn's end; the tracker shows what she has spent, `verify` finds the read side true to the log, and an
    undo gives her page its attacks back."""
    cli.ok("init", "--system", "hnh", "--name", "Budget")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--trait", "agility=1", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=9")
    url = cli.json("player", "link", "Ann")["url"]  # type: ignore[index]
    page = "/p/" + url.rsplit("/p/", 1)[1]
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=5")
    with serving(db) as server:
        labels = [t for _, t in offered(server, page)[1]]
        assert {"Ann attacks Bob", "Ann: grab against Bob", "Ann delays the turn"} <= set(labels), labels
        cli.ok("attack", "Ann", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0")
        labels = [t for _, t in offered(server, page)[1]]
        assert not any(t.startswith(("Ann attacks", "Ann: grab")) for t in labels), labels
        assert "Ann delays the turn" not in labels
        assert "Ann ends the turn" in labels and "Ann makes a fighting check" in labels
        ann = next(e for e in cli.json("encounter", "show")["order"] if e["name"] == "Ann")  # type: ignore[index]
        assert ann["spent"]["standard"] == 1, ann
        cli.ok("verify")
        cli.ok("undo")
        labels = [t for _, t in offered(server, page)[1]]
        assert "Ann attacks Bob" in labels and "Ann delays the turn" in labels, labels


def _labels(cli: Cli, db: str, hero: str) -> list[str]:
    """The labels of the hero's page choices, read after a read brought the read models up to the log."""
    from ledger.storage.target import parse_target
    from projections.choices import choices
    from projections.db import ReadSide

    cli.ok("encounter", "show")
    read = ReadSide(parse_target(db))
    try:
        return [c["label"] for c in choices(read, hero)]
    finally:
        read.close()


def test_a_campaign_that_only_warns_still_offers_an_action_over_the_budget(cli: Cli, db: str):
    """The campaign's `action-economy` setting (docs/interpretations.md, The action budget): with `warn` the GM may
    record an action over the budget (hnh-site/gameplay.txt, Standard Action), so the page still offers it."""
    cli.ok("init", "--system", "hnh", "--name", "Warned", "-o", "action-economy=warn")
    cli.ok("character", "add", "Ann", "--trait", "fighting=4", "--pc")
    cli.ok("character", "add", "Bob", "--trait", "toughness=9")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=9", "--init", "Bob=5")
    cli.ok("attack", "Ann", "Bob", "--roll", "attack=0,0,0", "--roll", "defense=0,0,0")
    assert "Ann attacks Bob" in _labels(cli, db, "Ann")


def test_a_d20_hero_who_attacked_is_offered_no_full_action_but_another_attack(cli: Cli, db: str):
    """d20-supers.txt, Attacks ("Full action ... Partial action"): a full action takes the round, so after an attack
    (a partial action) the page offers no run or charge, and another attack still (docs/interpretations.md, d20
    Supers, Actions in a round). Collosal Failures and Spectacular Success ("when doing skills"): a check of each of
    the six abilities (given or not) and of each skill is offered, none of a number of the sheet such as hp or
    attack, which `ledger check` refuses."""
    cli.ok("init", "--system", "d20", "--name", "Round")
    cli.ok("character", "add", "Ann", "--trait", "attack=3", "--trait", "hp=20", "--trait", "str=14",
           "--trait", "climb=4", "--pc")  # fmt: skip
    cli.ok("character", "add", "Bob", "--trait", "hp=12")
    cli.ok("encounter", "start", "Ann", "Bob", "--init", "Ann=20", "--init", "Bob=5")
    before = _labels(cli, db, "Ann")
    assert {"Ann: run", "Ann: charge", "Ann attacks Bob"} <= set(before), before
    checks = sorted(t for t in before if t.endswith(" check"))
    want = [f"Ann makes {'an' if t[0] in 'aeiou' else 'a'} {t} check" for t in ("str", "dex", "con", "int", "wis",
            "cha", "climb")]  # fmt: skip
    assert checks == sorted(want), checks
    cli.ok("check", "Ann", "wis", "--dc", "10")  # an ability the sheet leaves at 10, checked all the same
    refused = cli("check", "Ann", "hp", "--dc", "10")  # what the page does not offer, the GM is refused too
    assert refused.exit_code == 2 and "not a skill to check" in refused.output, refused.output
    cli.ok("attack", "Ann", "Bob", "--roll", "attack=2", "--roll", "damage=1")
    after = _labels(cli, db, "Ann")
    assert "Ann attacks Bob" in after and "Ann: run" not in after and "Ann: charge" not in after, after
