"""Replays over HTTP (docs/protocol.md, "Replay"): a finished match served step
by step from its stored record, checked move for move against the record
replayed independently with the engine; the refusals (unknown table, unknown
match, unfinished match, a malformed number) as coded errors and as the page's status."""

from __future__ import annotations

import copy
import gzip
import json
import re
from typing import Any

import httpx
import pytest
from conftest import drive

from capicua.engine import Match, replay
from capicua.store import Store

pytestmark = pytest.mark.xdist_group("server")


def has_event(f: dict[str, Any], kind: str) -> bool:
    return f.get("type") == "events" and any(e["event"]["kind"] == kind for e in f["events"])


def finished_match(srv: Any, seed: str = "replay-1", say: str | None = "agua") -> tuple[str, dict[str, Any]]:
    """A match to 50 played to its end by a guest (first legal move) and three botagorda
    neighbours, the guest saying ``say`` once at the start; returns the table id and its stored record."""
    table_id, token = srv.table_with_seed(seed, options={"target": 50})
    c = srv.client()
    c.hello(table_id, token)
    if say:
        c.send({"type": "say", "phrase": say})
    drive(c, lambda f: has_event(f, "match_end"))
    c.close()
    store = Store(srv.database_url)
    try:
        record = store.load_table(table_id)["record"]
    finally:
        store.close()
    return table_id, record


def position(record: dict[str, Any], hand: int, actions: int) -> Match:
    """The match after the first ``actions`` entries of hand ``hand`` (0-based), rebuilt by the
    engine's own replay of a shortened record (the last hand of a record may be unfinished)."""
    short = copy.deepcopy(record)
    last = short["hands"][hand]
    short["hands"] = short["hands"][:hand] + [last]
    last["actions"] = last["actions"][:actions]
    over = actions == len(record["hands"][hand]["actions"])
    if not over:
        last["result"] = None
    if not (over and hand == len(record["hands"]) - 1):
        short["result"] = None
    short["scores"] = _scores_after(record, hand if over else hand - 1)
    return replay(short)


def _scores_after(record: dict[str, Any], hand: int) -> list[int]:
    if hand < 0:
        return [0] * len(record["scores"])
    return list(record["hands"][hand]["result"]["scores"])


def as_record_action(ev: dict[str, Any]) -> dict[str, Any]:
    if ev["kind"] == "play":
        return {"seat": ev["seat"], "play": ev["tile"], "end": ev["end"]}
    assert ev["kind"] == "pass"
    return {"seat": ev["seat"], "pass": True}


def without_seat_players(value: Any) -> Any:
    """``value`` without the ``player`` of every human seat in it (the profile a name links to)."""
    if isinstance(value, list):
        return [without_seat_players(v) for v in value]
    if isinstance(value, dict):
        human = value.get("kind") == "human"
        return {k: without_seat_players(v) for k, v in value.items() if not (human and k == "player")}
    return value


def test_a_replay_matches_the_stored_record_move_for_move(live_server: Any, database_url: str) -> None:
    srv = live_server(database_url=database_url)
    table_id, record = finished_match(srv)
    assert record["result"] is not None
    r = srv.get(f"/api/replay/{table_id}/1")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["match"] == 1 and body["result"] == record["result"] and body["scores"] == record["scores"]
    assert body["table"]["status"] == "finished" and [s["name"] for s in body["table"]["seats"]][0] == "Ana"
    assert len(body["hands"]) == len(record["hands"])
    last_seq = 0
    for h, (hand, rec) in enumerate(zip(body["hands"], record["hands"], strict=True)):
        frames = hand["frames"]
        assert hand["hand"] == h + 1 and frames[0]["events"][0]["event"]["kind"] == "hand_start"
        moves = [e["event"] for f in frames for e in f["events"] if e["event"]["kind"] in ("play", "pass")]
        assert [as_record_action(ev) for ev in moves] == rec["actions"]
        done = 0
        for f in frames:
            assert f["type"] == "events" and f["seq"] == f["events"][-1]["seq"]
            assert [e["seq"] for e in f["events"]] == list(range(last_seq + 1, f["seq"] + 1))
            last_seq = f["seq"]
            done += sum(1 for e in f["events"] if e["event"]["kind"] in ("play", "pass"))
            expected = position(record, h, done)
            view = f["view"]
            # The spectator's view, as the engine gives it at that position, with every hand face up.
            spectator = expected.view(None)
            assert {k: v for k, v in view.items() if k != "revealed"} == {
                k: v for k, v in spectator.items() if k != "revealed"
            }
            assert view["revealed"] == [expected.view(s)["hand"] for s in range(4)]
            assert view["counts"] == [len(tiles) for tiles in view["revealed"]]
        # Who made each move, as the table log says: the guest at seat 0, the neighbours elsewhere.
        for ev in moves:
            assert ev["by"] == ("auto" if ev["kind"] == "pass" else "human" if ev["seat"] == 0 else "bot")
        proof = hand["proof"]
        assert proof["hash_ok"] is True and proof["deal_matches"] is True
        assert proof["published_hash"] == rec["seed_hash"] and proof["hands"] == rec["deal"]["hands"]
        assert proof["sleeping"] == rec["deal"]["sleeping"]
    final = body["hands"][-1]["frames"][-1]
    assert has_event(final, "match_end") and final["view"]["phase"] == "match_over"
    # What was said: the guest's phrase, after one of the first hand's steps (the first, or a
    # neighbour's play that came before it), with the seq that step ended at.
    said = [f for f in body["said"] if f["by"] == "player"]
    assert [(f["seat"], f["phrase"], f["name"]) for f in said] == [(0, "agua", "Ana")]
    assert said[0]["seq"] in [f["seq"] for f in body["hands"][0]["frames"][:4]]
    assert all(f["type"] == "said" and {"es", "en"} <= set(f) for f in body["said"])
    # Hidden nothing is left to hide, but no token is in the answer, and a player id only as a
    # guest's seat's link to their profile (a player id is ``p_`` and 16 hex digits; a random
    # table id may hold "p_" itself).
    assert "token" not in json.dumps(body)
    assert not re.search(r"\bp_[0-9a-f]{16}\b", json.dumps(without_seat_players(body)))


def test_a_replay_of_a_later_match_numbers_its_events_after_the_earlier_one(live_server: Any, database_url: str) -> None:
    srv = live_server(database_url=database_url)
    table_id, token = srv.table_with_seed("replay-2", options={"target": 50})
    c = srv.client()
    c.hello(table_id, token)
    first_end = drive(c, lambda f: has_event(f, "match_end"))
    c.send({"type": "rematch"})
    c.send({"type": "say", "phrase": "agua"})
    second_end = drive(c, lambda f: has_event(f, "match_end") and f["seq"] > first_end["seq"])
    c.close()
    one, two = srv.get(f"/api/replay/{table_id}/1").json(), srv.get(f"/api/replay/{table_id}/2").json()
    assert one["hands"][-1]["frames"][-1]["seq"] == first_end["seq"]
    assert two["hands"][0]["frames"][0]["events"][0]["seq"] == first_end["seq"] + 1
    assert two["hands"][-1]["frames"][-1]["seq"] == second_end["seq"]
    # The last step shows what the guest saw at the end (but for their own seat and tiles: a replay is a spectator's).
    public = ("seat", "hand", "legal")
    last_view = two["hands"][-1]["frames"][-1]["view"]
    assert {k: v for k, v in last_view.items() if k not in public} == {
        k: v for k, v in second_end["view"].items() if k not in public
    }
    assert [f["phrase"] for f in one["said"] if f["by"] == "player"] == []
    assert [f["phrase"] for f in two["said"] if f["by"] == "player"] == ["agua"]


def test_replay_refusals_are_coded_errors_and_the_page_says_so(live_server: Any, database_url: str) -> None:
    srv = live_server(database_url=database_url)
    table_id, record = finished_match(srv, say=None)
    playing, token = srv.table_with_seed("replay-3")
    c = srv.client()
    c.hello(playing, token)  # the first hand is dealt: a match in play
    c.settle()
    c.close()
    cases = [
        (f"{table_id}/2", 404, "unknown_match"),
        ("t_nosuchtable/1", 404, "unknown_table"),
        ("t_bad$id/1", 404, "unknown_table"),
        (f"{playing}/1", 409, "match_not_over"),
        (f"{table_id}/0", 400, "malformed"),
        (f"{table_id}/x", 400, "malformed"),
        (f"{table_id}/%C2%B2", 400, "malformed"),
        (f"{table_id}/999999", 400, "malformed"),
    ]
    for path, status, code in cases:
        r = srv.get(f"/api/replay/{path}")
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), path
        assert set(r.json()["error"]) == {"code", "message"}
        page = srv.get(f"/replay/{path}")
        assert page.status_code == status and 'id="replay"' in page.text, path
    ok = srv.get(f"/replay/{table_id}/1")
    assert ok.status_code == 200 and "replay.js" in ok.text


def test_a_replay_goes_gzipped_to_a_client_that_takes_it(live_server: Any, database_url: str) -> None:
    srv = live_server(database_url=database_url)
    table_id, _ = finished_match(srv, say=None)
    url = f"{srv.base}/api/replay/{table_id}/1"
    plain = httpx.get(url, headers={"Accept-Encoding": "identity"})
    zipped = httpx.get(url, headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers and zipped.headers["content-encoding"] == "gzip"
    assert zipped.json() == plain.json()
    raw = len(plain.content)
    packed = len(gzip.compress(plain.content))
    print(f"replay of {len(plain.json()['hands'])} hands: {raw} bytes of JSON, {packed} gzipped")
