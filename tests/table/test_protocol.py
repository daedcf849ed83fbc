"""The websocket protocol of docs/protocol.md against a live uvicorn server:
every error code, resync after a dropped connection, whole hands and a whole
match driven through the socket, and the HTTP API."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

import pytest
from conftest import drive

from capicua.engine import Match, make_rules, replay
from capicua.store import Store

pytestmark = pytest.mark.xdist_group("server")

FROZEN = (1e6, 1e6)  # bots that never get to move during a test


def has_event(f: dict[str, Any], kind: str) -> bool:
    return f.get("type") == "events" and any(e["event"]["kind"] == kind for e in f["events"])


def event_of(f: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(e["event"] for e in f["events"] if e["event"]["kind"] == kind)


def seed_with_opener(opener: int, preset: str = "cubano") -> str:
    """A match seed whose first-opener draw picks ``opener``."""
    for i in range(1000):
        seed = f"seed-{opener}-{i}"
        if Match(make_rules(preset), seed).setup["opener"] == opener:
            return seed
    raise AssertionError("no seed found")


# ------------------------------------------------------------------ HTTP API


def test_http_api(live_server: Any) -> None:
    srv = live_server()
    assert srv.get("/healthz").json() == {"ok": True, "bots": "ok", "analysis": "ok", "store": "ok"}
    presets = srv.get("/api/presets").json()
    assert "cubano" in [p["name"] for p in presets["presets"]]
    roster = srv.get("/api/neighbours").json()["neighbours"]
    assert len(roster) >= 6 and all({"id", "name", "level", "style", "avatar"} <= set(n) for n in roster)
    r = srv.post("/api/tables", {"nickname": "  Ana  ", "partner_level": "medio", "rival_level": "dificil"})
    assert r.status_code == 200
    body = r.json()
    assert body["seat"] == 0 and body["table_id"].startswith("t_") and body["token"]
    summary = srv.get(f"/api/tables/{body['table_id']}").json()
    assert summary["seats"][0]["name"] == "Ana" and summary["seats"][0]["kind"] == "human"
    assert [s["kind"] for s in summary["seats"][1:]] == ["bot"] * 3
    assert summary["seats"][2]["level"] == "medio" and summary["seats"][1]["level"] == "dificil"
    assert len({s["character"] for s in summary["seats"][1:]}) == 3
    assert "token" not in json.dumps(summary) and body["token"] not in json.dumps(summary)
    # The same guest token opens a second table as the same player.
    again = srv.post("/api/tables", {"nickname": "Ana", "token": body["token"]}).json()
    assert again["token"] == body["token"] and again["table_id"] != body["table_id"]
    # Errors.
    assert srv.get("/api/tables/t_nothere").status_code == 404
    assert srv.get("/api/tables/t_nothere").json()["error"]["code"] == "unknown_table"
    for bad in ({}, {"nickname": ""}, {"nickname": "x" * 40}, {"nickname": "Ana", "partner_level": "god"}):
        r = srv.post("/api/tables", bad)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", bad
    r = srv.post("/api/tables", {"nickname": "Ana", "options": {"target": 7}})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules"
    r = srv.post("/api/tables", {"nickname": "Ana", "preset": "nope"})
    assert r.json()["error"]["code"] == "bad_rules"
    import httpx

    r = httpx.post(srv.base + "/api/tables", content=b"{not json", timeout=10)
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"


def test_verify_endpoint_matches_the_engine(live_server: Any) -> None:
    srv = live_server()
    m = Match(make_rules("cubano"), "verify-me")
    m.start_hand()
    hand = m.hand
    got = srv.get(f"/api/verify?seed={hand.seed}&preset=cubano").json()
    assert got["seed_hash"] == hand.seed_hash
    assert got["hands"] == hand.deals[-1]["hands"] and got["sleeping"] == hand.deals[-1]["sleeping"]
    assert srv.get("/api/verify?preset=cubano").json()["error"]["code"] == "malformed"
    assert srv.get("/api/verify?seed=abc&preset=nope").json()["error"]["code"] == "bad_rules"


def test_verify_endpoint_takes_the_table_options(live_server: Any) -> None:
    """Options that change the deal (here: no redeal on five doubles) travel in ?options=JSON."""
    srv = live_server()
    seed = next(f"five-doubles-{i}" for i in range(1000) if _first_deal_voided(f"five-doubles-{i}"))
    m = Match(make_rules("cubano", redeal_five_doubles="off"), seed)
    m.start_hand()
    hand = m.hand
    opts = json.dumps({"redeal_five_doubles": "off"})
    got = srv.get("/api/verify?" + urlencode({"seed": hand.seed, "preset": "cubano", "options": opts, "hand": 1})).json()
    assert got["hands"] == hand.deals[-1]["hands"] and got["voided"] == []
    plain = srv.get("/api/verify?" + urlencode({"seed": hand.seed, "preset": "cubano"})).json()
    assert plain["hands"] != hand.deals[-1]["hands"]  # without the options the check would be wrong
    assert srv.get("/api/verify?" + urlencode({"seed": "abc", "options": "[1]"})).json()["error"]["code"] == "malformed"
    assert srv.get("/api/verify?" + urlencode({"seed": "abc", "options": '{"nope": 1}'})).json()["error"]["code"] == "bad_rules"


def _first_deal_voided(seed: str) -> bool:
    m = Match(make_rules("cubano"), seed)
    m.start_hand()
    return len(m.hand.deals) > 1


# --------------------------------------------------------------- error codes


def test_malformed_too_large_too_fast_unauthorized_unknown_table(live_server: Any) -> None:
    srv = live_server(rate_limit=(40, 3600.0))
    t = srv.new_table()
    c = srv.client()
    # Before hello: intents are unauthorized.
    c.send({"type": "play", "seq": 0, "tile": [0, 0], "end": None})
    assert c.error()["code"] == "unauthorized"
    for raw in ("{not json", "[1, 2]", '"hello"', json.dumps({"type": "shout"}), json.dumps({"no": "type"}),
                json.dumps({"type": "play", "seq": "x", "tile": [1, 2]}),
                json.dumps({"type": "play", "seq": 1, "tile": "5-3"}),
                json.dumps({"type": "play", "seq": 1, "tile": [1, 2], "end": 5}),
                json.dumps({"type": "redeal", "seq": 1, "accept": "yes"}),
                json.dumps({"type": "next_hand"}),
                json.dumps({"type": "hello", "table": 5, "token": "x"})):
        c.send(raw)
        err = c.error()
        assert err["code"] == "malformed", raw
        assert err["message"]
    c.send("x" * 5000)
    assert c.error()["code"] == "too_large"
    c.send({"type": "hello", "table": "t_nosuchtable", "token": t["token"]})
    assert c.error()["code"] == "unknown_table"
    c.send({"type": "hello", "table": t["table_id"], "token": "not-the-token"})
    assert c.error()["code"] == "unauthorized"
    # The socket still works after all those errors.
    c.send({"type": "ping"})
    assert c.until(lambda f: f["type"] in ("pong", "error"))["type"] == "pong"
    assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
    c.close()
    # A hello without a token watches: no seat, the public view, and it cannot act.
    w = srv.client()
    w.send({"type": "hello", "table": t["table_id"]})
    welcome = w.until(lambda f: f["type"] in ("welcome", "error"))
    assert welcome["type"] == "welcome" and welcome["seat"] is None
    sync = w.until(lambda f: f["type"] == "sync")
    assert "hand" not in sync["view"]
    w.send({"type": "next_hand", "seq": sync["seq"]})
    assert w.error()["code"] == "watcher"
    w.close()
    # too_fast: a limiter of 3 frames per hour makes the 4th frame too fast.
    srv2 = live_server(rate_limit=(3, 3600.0))
    c2 = srv2.client()
    for _ in range(3):
        c2.send({"type": "ping"})
        assert c2.recv()["type"] == "pong"
    c2.send({"type": "ping"})
    assert c2.error()["code"] == "too_fast"
    c2.close()


def test_illegal_stale_bad_phase_change_nothing(live_server: Any) -> None:
    # Seat 0 opens (the draw picks it): bots frozen so that nothing moves by itself.
    srv = live_server(bot_delay=FROZEN)
    tid, token = srv.table_with_seed(seed_with_opener(0))
    c = srv.client()
    assert c.hello(tid, token)["type"] == "welcome"
    c.until(lambda f: has_event(f, "hand_start"))
    start = c.until(lambda f: f["type"] == "events" and f["view"]["turn"] == 0) if not c.my_turn() else c.frames[-1]
    seq, view = c.seq, c.view
    assert view["turn"] == 0 and view["opener"] == 0
    not_mine = next(t for t in ([a, b] for a in range(10) for b in range(a, 10)) if t not in view["hand"])
    c.send({"type": "play", "seq": seq, "tile": not_mine, "end": None})
    assert c.error()["code"] == "illegal"
    c.send({"type": "play", "seq": seq, "tile": view["hand"][0], "end": "left"})  # first tile takes end null
    assert c.error()["code"] == "illegal"
    c.send({"type": "play", "seq": seq, "tile": [3, 11], "end": None})
    assert c.error()["code"] == "malformed"
    c.send({"type": "play", "seq": seq - 1, "tile": view["hand"][0], "end": None})
    assert c.error()["code"] == "stale"
    c.send({"type": "play", "seq": seq + 5, "tile": view["hand"][0], "end": None})
    assert c.error()["code"] == "stale"
    c.send({"type": "next_hand", "seq": seq})
    err = c.error()
    assert err["code"] == "bad_phase" and err["seq"] == seq
    # Nothing changed: a fresh connection sees the same view at the same seq.
    c2 = srv.client()
    c2.hello(tid, token)
    sync = c2.until(lambda f: f["type"] == "sync")
    assert sync["seq"] == seq and sync["view"] == view
    assert start is not None
    # A legal play goes through and moves the table on by one event (bots frozen).
    c.send({"type": "play", "seq": seq, "tile": view["legal"][0]["tile"], "end": None})
    ev = c.until(lambda f: f["type"] == "events")
    assert ev["seq"] == seq + 1
    assert ev["events"] == [{"seq": seq + 1, "event": {"kind": "play", "seat": 0, "tile": view["legal"][0]["tile"], "end": None,
                                                   "by": "human"}}]
    c.close()
    c2.close()


def test_out_of_turn(live_server: Any) -> None:
    # Seat 1 (a rival bot) is drawn to open; the bots are frozen, so it stays seat 1's turn.
    srv = live_server(bot_delay=FROZEN)
    tid, token = srv.table_with_seed(seed_with_opener(1))
    c = srv.client()
    c.hello(tid, token)
    c.until(lambda f: has_event(f, "hand_start"))
    assert c.view["turn"] == 1 and c.view["legal"] == []
    c.send({"type": "play", "seq": c.seq, "tile": c.view["hand"][0], "end": None})
    err = c.error()
    assert err["code"] == "out_of_turn" and err["seq"] == c.seq
    c.close()


def test_first_opener_substitution_partner_of_a_bot_opens(live_server: Any) -> None:
    # The draw picks seat 2 (the bot partner); the connected human in seat 0 opens instead.
    srv = live_server(bot_delay=FROZEN)
    tid, token = srv.table_with_seed(seed_with_opener(2))
    c = srv.client()
    c.hello(tid, token)
    ev = event_of(c.until(lambda f: has_event(f, "hand_start")), "hand_start")
    assert ev["opener"] == 0 and ev["opener_drawn"] == 2
    assert c.view["turn"] == 0 and c.view["legal"]
    c.close()


# -------------------------------------------------------------------- resync


def test_resync_after_a_dropped_connection(live_server: Any) -> None:
    srv = live_server()
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    # Play until our first play is acknowledged, then drop the socket at once.
    mine = drive(c, lambda f: f["type"] == "events" and any(
        e["event"]["kind"] == "play" and e["event"]["seat"] == 0 for e in f["events"]))
    last = mine["seq"]
    c.close()
    c2 = srv.client()
    assert c2.hello(t["table_id"], t["token"], last_seq=last)["type"] == "welcome"
    got: list[dict[str, Any]] = []

    def settled(f: dict[str, Any]) -> bool:
        if f["type"] in ("events", "sync"):
            got.append(f)
        v = f.get("view")
        return bool(v) and (v["turn"] == 0 or v["phase"] != "play")

    c2.until(settled)
    c2.settle()
    # Either the missed events in order, numbered on from last_seq, or (nothing missed) a sync.
    if got[0]["type"] == "events":
        seqs = [e["seq"] for f in got for e in f["events"]]
        assert seqs == list(range(last + 1, last + 1 + len(seqs)))
        assert got[0].get("replayed") is True
    # And what the client ends up with is exactly a fresh sync.
    c3 = srv.client()
    c3.hello(t["table_id"], t["token"])
    sync = c3.until(lambda f: f["type"] == "sync")
    assert sync["seq"] == c2.seq and sync["view"] == c2.view
    c2.close()
    c3.close()


def test_resync_with_missed_events_and_a_fresh_sync_when_too_old(live_server: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    tid, token = srv.table_with_seed(seed_with_opener(0))
    c = srv.client()
    c.hello(tid, token)
    c.until(lambda f: f.get("view") and f["view"]["turn"] == 0)
    first = c.seq
    c.close()
    # While nobody listens, seat 0's play goes in through another socket.
    c2 = srv.client()
    c2.hello(tid, token, last_seq=first)
    c2.until(lambda f: f["type"] == "sync")
    c2.send({"type": "play", "seq": first, **c2.view["legal"][0]})
    c2.until(lambda f: f["type"] == "events" and f["seq"] == first + 1)
    c2.close()
    c3 = srv.client()
    c3.hello(tid, token, last_seq=first)
    f = c3.until(lambda f: f["type"] in ("events", "sync"))
    assert f["type"] == "events" and f["seq"] == first + 1 and f["replayed"] is True
    assert [e["event"]["kind"] for e in f["events"]] == ["play"] and f["events"][0]["event"]["seat"] == 0
    c3.close()
    # Shrink the table's history: a client that missed more than it holds gets a sync.
    from collections import deque

    shell = srv.run(srv.tables.get(tid))

    async def shrink() -> None:
        shell.core.history = deque(maxlen=0)

    srv.run(shrink())
    c4 = srv.client()
    c4.hello(tid, token, last_seq=first)
    f = c4.until(lambda f: f["type"] in ("events", "sync"))
    assert f["type"] == "sync" and f["seq"] == first + 1
    c4.close()


# --------------------------------------------------------------- whole games


def test_a_whole_match_through_the_websocket(live_server: Any) -> None:
    srv = live_server()
    # A whole match to 100: the neighbours' lines are drawn at random from the table's
    # secret, and a match to 50 sometimes passed without one (the test then failed).
    t = srv.new_table(options={"target": 100})
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    chats: list[dict[str, Any]] = []
    seqs: list[int] = []

    def stop(f: dict[str, Any]) -> bool:
        if f["type"] == "said":
            chats.append(f)
        if f["type"] == "events":
            seqs.extend(e["seq"] for e in f["events"])
        return has_event(f, "match_end")

    end = drive(c, stop)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    v = end["view"]
    assert v["phase"] == "match_over" and max(v["scores"]) >= 100 and v["match_result"]["winner"] in (0, 1)
    assert chats
    for ch in chats:
        assert set(ch) >= {"seq", "seat", "phrase", "es", "en", "by", "name"} and ch["seat"] != 0
        assert ch["by"] == "neighbour"
    assert srv.get(f"/api/tables/{t['table_id']}").json()["status"] == "finished"
    # The store holds the finished record, and it replays to the same result.
    store = Store(srv.database_url)
    row = store.load_table(t["table_id"])
    assert row["status"] == "finished"
    m = replay(row["record"])
    assert m.match_result == v["match_result"] and m.scores == v["scores"]
    store.close()
    c.send({"type": "next_hand", "seq": c.seq})
    assert c.error()["code"] == "bad_phase"
    c.close()


def test_hand_end_events_and_revealed_hands(live_server: Any) -> None:
    srv = live_server()
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    end = drive(c, lambda f: has_event(f, "hand_end"))
    ev, v = event_of(end, "hand_end"), end["view"]
    assert ev["result_kind"] in ("domino", "tranque", "tie") and ev["seed"]
    assert v["revealed"] is not None and len(v["revealed"]) == 4
    from capicua.engine import seed_hash

    assert seed_hash(ev["seed"]) == v["seed_hash"]
    c.close()


def test_a_bots_only_table_plays_a_whole_match(live_server: Any) -> None:
    srv = live_server()
    seats = [{"seat": i, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
             for i, n in enumerate(("Cuca", "Pancho", "Yoli", "Chucho"))]
    shell = srv.run(srv.tables.open("cubano", {"target": 50}, seats, seed="bots-only"))

    store = Store(srv.database_url)

    async def finished_and_stored() -> None:  # the core finishes before its last append is written
        while shell.core.status != "finished" or store.load_table(shell.id)["status"] != "finished":
            await asyncio.sleep(0.05)

    srv.run(asyncio.wait_for(finished_and_stored(), 60))
    m = shell.core.match
    assert m.phase == "match_over" and max(m.scores) >= 50
    assert replay(store.load_table(shell.id)["record"]).scores == m.scores
    store.close()


def test_an_idle_table_leaves_memory_and_loads_again(live_server: Any) -> None:
    srv = live_server(idle_s=0.3)
    t = srv.new_table(options={"target": 50})
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    end = drive(c, lambda f: has_event(f, "match_end"))
    c.close()

    async def gone() -> None:
        while t["table_id"] in srv.tables.shells:
            await asyncio.sleep(0.05)

    srv.run(asyncio.wait_for(gone(), 20))
    # A GET of the finished match answers from the store and does not load it.
    assert srv.get(f"/api/tables/{t['table_id']}").json()["status"] == "finished"
    assert t["table_id"] not in srv.tables.shells
    # A later hello loads the finished match from its log.
    c2 = srv.client()
    c2.hello(t["table_id"], t["token"])
    sync = c2.until(lambda f: f["type"] == "sync")
    assert sync["view"]["phase"] == "match_over" and sync["view"]["scores"] == end["view"]["scores"]
    c2.close()
