"""Fair-deal verification (issue 10, items 5 and 15): the deal recomputed from a
revealed seed is the deal that was played, for every hand and after accepted
on-request redeals, with the engine's own deal code; ``/api/verify`` reads its
query strictly, answers coded errors (never 500), never reveals an unfinished
hand and recomputes off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from capicua.cli import main
from capicua.engine import Match, RedealAnswer, make_rules, seed_hash
from capicua.server.http import verify as verify_http
from capicua.server.http.errors import HttpError
from capicua.table.fairness import (
    ANSWER_KEYS,
    HandNotOver,
    VerifyError,
    hand_to_verify,
    verify_deal,
    verify_record_hand,
)


def play_match(rules: Any, seed: str, accept_redeal: bool = True, max_hands: int = 60) -> Match:
    """A whole match, every seat playing its first legal move (redeals accepted or declined)."""
    m = Match(rules, seed)
    while m.phase != "match_over":
        if m.phase in ("new", "hand_over"):
            if len(m.hands) == max_hands:
                break
            m.start_hand()
            continue
        seat = m.turn
        assert seat is not None
        if m.phase == "redeal_question":
            m.apply(seat, RedealAnswer(accept_redeal))
        else:
            m.apply(seat, m.legal_moves()[0])
    return m


def test_verify_after_an_accepted_redeal_gives_the_deal_played() -> None:
    rules = make_rules("cubano", redeal_five_doubles="on_request")
    m = Match(rules, "s36")
    m.start_hand(frozenset({0}))
    shown_deal = m.hand.deals[-1]
    m.apply(1, RedealAnswer(True))
    played = m.hand.deals[-1]
    seed = m.hand.seed
    # From the seed: the seat that showed (the hand's voided list names it) voids the first deal.
    got = verify_deal("cubano", seed, {"redeal_five_doubles": "on_request"}, shown=[1])
    assert {"hands": got["hands"], "sleeping": got["sleeping"]} == played
    assert got["deals"] == len(m.hand.deals) and got["voided"] == m.hand.voided
    assert got["voided"][0]["reason"] == "five_doubles_shown" and got["voided"][0]["seat"] == 1
    # Without it, the first (voided) deal: what /api/verify answered before.
    first = verify_deal("cubano", seed, {"redeal_five_doubles": "on_request"})
    assert {"hands": first["hands"], "sleeping": first["sleeping"]} == shown_deal
    # From the record, once the hand is over: every fact from the record.
    while m.hand.result is None:
        seat = m.turn
        m.apply(seat, m.legal_moves()[0] if m.phase == "play" else RedealAnswer(False))
    answer = verify_record_hand(m.record(), 1)
    assert answer["deal_matches"] is True and answer["hash_ok"] is True
    assert answer["published_hash"] == m.hand.seed_hash == seed_hash(seed)
    assert {"hands": answer["hands"], "sleeping": answer["sleeping"]} == played


# (preset, options): a deal-decided opener on the first hand only (la-plaza), on every
# hand (block, all-fives), redeals on request, and a game whose deal after a blocked
# hand depends on it (2 tiles each: a deal without any double is common).
CASES = [
    ("cubano", {}),
    ("la-plaza", {}),
    ("block", {"players": 3}),
    ("all-fives", {"players": 3}),
    ("cubano", {"redeal_five_doubles": "on_request"}),
    ("block", {"players": 2, "hand_size": 2, "next_opener_after_win": "winner"}),
]


@pytest.mark.parametrize(("preset", "options"), CASES, ids=[f"{p}-{sorted(o.items())}" for p, o in CASES])
def test_verify_reproduces_every_hand_of_played_matches(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    checked = voided = 0
    for i in range(6):
        m = play_match(rules, f"verify-{i}", accept_redeal=i % 2 == 0)
        record = m.record()
        for hand in m.hands:
            if hand.result is None:
                continue
            n = hand.number
            answer = verify_record_hand(record, n)
            assert set(answer) == set(ANSWER_KEYS)
            assert answer["deal_matches"] is True and answer["hash_ok"] is True, (i, n)
            assert answer["voided"] == hand.voided and answer["deals"] == len(hand.deals)
            previous = m.hands[n - 2].result["kind"] if n > 1 else None
            shown = [v["seat"] for v in hand.voided if v["reason"] == "five_doubles_shown"]
            by_seed = verify_deal(preset, hand.seed, options, n, previous, shown)
            assert by_seed["hands"] == hand.deals[-1]["hands"] and by_seed["sleeping"] == hand.deals[-1]["sleeping"]
            checked += 1
            voided += len(hand.voided)
    assert checked > 6
    if preset == "block" and options.get("hand_size") == 2:
        assert voided > 0  # the case exercises the no-double void after every kind of hand


def test_a_deal_that_depends_on_the_previous_hand_asks_for_it() -> None:
    rules = make_rules("block", players=2, hand_size=2, next_opener_after_win="winner")
    # After a win the winner opens (no deal rule); after a tranque the highest double does,
    # so a deal without any double is void only then. Find a seed where that matters.
    seed = next(
        s for s in (f"dep-{i}" for i in range(200))
        if verify_deal("block", s, dict(rules.options), 2, "domino")["hands"]
        != verify_deal("block", s, dict(rules.options), 2, "tranque")["hands"]
    )
    with pytest.raises(VerifyError, match="previous=") as info:
        verify_deal("block", seed, dict(rules.options), 2)
    assert info.value.code == "malformed"
    assert verify_deal("block", seed, dict(rules.options), 2, "tie")["voided"]


def test_verify_record_hand_keeps_an_unfinished_hand_secret() -> None:
    m = Match(make_rules("cubano"), "secret")
    m.start_hand()
    for n in (1, 2):
        with pytest.raises(HandNotOver) as info:
            verify_record_hand(m.record(), n)
        assert (info.value.code, verify_http.http_error(info.value).status) == ("hand_not_over", 409)
        assert m.hand.seed not in str(info.value)


def test_cli_verify_hand_of_a_record_and_by_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "r.jsonl"
    assert main(["sim", "--preset", "la-plaza", "--matches", "2", "--seed", "v", "--records", str(records)]) == 0
    capsys.readouterr()
    record = json.loads(records.read_text().splitlines()[1])
    last = len(record["hands"])
    assert main(["verify", "--record", str(records), "--match", "1", "--hand", str(last)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["hand"] == last and answer["deal_matches"] is True and answer["hash_ok"] is True
    assert {"hands": answer["hands"], "sleeping": answer["sleeping"]} == record["hands"][-1]["deal"]
    seed = record["hands"][-1]["result"]["seed"]
    previous = record["hands"][-2]["result"]["kind"]
    assert main(["verify", "--preset", "la-plaza", "--seed", seed, "--hand", str(last), "--previous", previous]) == 0
    assert json.loads(capsys.readouterr().out)["hands"] == answer["hands"]
    # A tampered deal is reported (exit 1), an unknown hand refused (exit 2).
    dealt = record["hands"][-1]["deal"]["hands"]
    dealt[0][0], dealt[1][0] = dealt[1][0], dealt[0][0]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(record))
    assert main(["verify", "--record", str(one), "--hand", str(last)]) == 1
    assert json.loads(capsys.readouterr().out)["deal_matches"] is False
    assert main(["verify", "--record", str(one), "--hand", str(last + 1)]) == 2
    assert json.loads(capsys.readouterr().out)["code"] == "hand_not_over"


# ----------------------------------------------------------------- /api/verify


class FakeStore:
    """The store's records of each table's matches (what the tables wrote at hand ends)."""

    def __init__(self, **records: dict[str, Any]) -> None:
        self.stored = records

    async def records(self, table_id: str) -> list[dict[str, Any]] | None:
        record = self.stored.get(table_id)
        if record is None:
            return None
        rules = record["rules"]
        return [{"number": 1, "record": record, "preset": rules["preset"], "options": rules["options"]}]


class FakeManager:
    """The live matches (each table's first, being played) and the store's records."""

    def __init__(self, store: FakeStore | None = None, **tables: Match) -> None:
        self.matches = tables
        self.store = store or FakeStore()

    def hand_record(self, table_id: str, match_number: int | None, hand: int) -> dict[str, Any] | None:
        match = self.matches.get(table_id)
        if match is None or match_number not in (None, 1):
            return None
        return hand_to_verify(match, hand)


def answer(manager: FakeManager, query: dict[str, str]) -> Any:
    return verify_http.answer(manager, manager.store, query)


def ask(query: dict[str, str], manager: Any = None) -> tuple[int, dict[str, Any]]:
    """``(status, body)`` as ``/api/verify`` answers ``query``."""
    try:
        return 200, asyncio.run(answer(manager or FakeManager(), query))
    except HttpError as exc:
        return exc.status, exc.body()


DEEP = "[" * 999 + "]" * 999
BAD_QUERIES = [
    # The request: options that void every deal (the set and the hand size are not a table's).
    ({"seed": "a", "options": json.dumps({"players": 2, "partnership": False, "max_pip": 12, "hand_size": 45})}, "bad_rules"),
    ({"seed": "a", "hand": "²"}, "malformed"),
    ({"seed": "a", "hand": "9" * 5000}, "malformed"),
    ({"seed": "a", "hand": "0"}, "malformed"),
    ({"seed": "a", "hand": "-1"}, "malformed"),
    ({"seed": "a", "options": DEEP}, "malformed"),
    ({"seed": "a", "options": '{"target": NaN}'}, "malformed"),
    ({"seed": "a", "options": "[1]"}, "malformed"),
    ({"seed": "a", "options": '{"nope": 1}'}, "bad_rules"),
    ({"seed": "a", "preset": "nope"}, "bad_rules"),
    ({"seed": "a", "previous": "maybe", "hand": "2"}, "malformed"),
    ({"seed": "a", "shown": "x"}, "malformed"),
    ({"seed": "a" * 201}, "malformed"),
    ({"seed": "a\x00b"}, "malformed"),
    ({}, "malformed"),
    ({"seed": "a", "colour": "red"}, "malformed"),
    ({"table": "t_nothere", "hand": "1"}, "unknown_table"),
    ({"table": "../../etc", "hand": "1"}, "unknown_table"),
]


@pytest.mark.parametrize(("query", "code"), BAD_QUERIES, ids=[str(i) for i in range(len(BAD_QUERIES))])
def test_bad_verify_queries_get_a_coded_error(query: dict[str, str], code: str) -> None:
    status, body = ask(query)
    assert body["error"]["code"] == code and body["error"]["message"]
    assert status == {"malformed": 400, "bad_rules": 400, "unknown_table": 404}[code]


def test_verify_seed_form_answers_the_documented_shape() -> None:
    m = Match(make_rules("cubano", target=50), "shape")
    m.start_hand()
    status, body = ask({"seed": m.hand.seed, "preset": "cubano", "options": '{"target": 50}', "hand": "1"})
    assert status == 200 and list(body) == list(ANSWER_KEYS)
    assert body["options"] == {"target": 50} and body["hand"] == 1
    assert (body["published_hash"], body["hash_ok"], body["deal_matches"]) == (None, None, None)
    assert {"hands": body["hands"], "sleeping": body["sleeping"]} == m.hand.deals[-1]


def test_a_seat_that_did_not_show_five_doubles_is_no_deal() -> None:
    status, body = ask({"seed": "a", "shown": "0"})
    assert (status, body["error"]["code"]) == (422, "no_deal")


def test_verify_table_form_compares_with_the_published_hash_and_never_reveals_a_hand_in_play() -> None:
    m = play_match(make_rules("cubano", target=500), "table-form", max_hands=2)
    assert m.phase == "hand_over"
    m.start_hand()
    manager = FakeManager(t_abc=m)
    status, body = ask({"table": "t_abc", "hand": "1"}, manager)
    assert status == 200 and list(body) == list(ANSWER_KEYS)
    first = m.hands[0]
    assert body["seed"] == first.seed and body["published_hash"] == first.seed_hash
    assert body["hash_ok"] is True and body["deal_matches"] is True
    current = m.hand
    assert current.result is None  # hand 3 is being played
    for n in (str(current.number), str(current.number + 1)):
        status, body = ask({"table": "t_abc", "hand": n}, manager)
        assert (status, body["error"]["code"]) == (409, "hand_not_over")
        assert current.seed not in json.dumps(body)


def test_verify_table_form_reads_a_table_that_is_not_live_from_the_store() -> None:
    m = play_match(make_rules("cubano", target=500), "stored", max_hands=2)
    manager = FakeManager(FakeStore(t_old=m.record()))
    status, body = ask({"table": "t_old", "hand": "2"}, manager)
    assert status == 200 and body["deal_matches"] is True and body["hash_ok"] is True
    assert body["seed"] == m.hands[1].seed and body["published_hash"] == m.hands[1].seed_hash
    status, body = ask({"table": "t_old", "hand": "3"}, manager)
    assert (status, body["error"]["code"]) == (409, "hand_not_over")
    # A stored record whose deal was altered says so instead of vouching for it.
    record = m.record()
    record["hands"][0]["deal"]["sleeping"].reverse()
    status, body = ask({"table": "t_bad", "hand": "1"}, FakeManager(FakeStore(t_bad=record)))
    assert status == 200 and body["deal_matches"] is False and body["hash_ok"] is True


def test_verify_recomputes_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[int] = []
    real = verify_http.verify_deal

    def spy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(verify_http, "verify_deal", spy)

    async def main_loop() -> tuple[int, int]:
        await answer(FakeManager(), {"seed": "a"})
        return 200, threading.get_ident()

    status, loop_thread = asyncio.run(main_loop())
    assert status == 200 and threads and threads[0] != loop_thread


def test_live_verify_never_answers_500_and_keeps_the_loop_free(live_server: Any) -> None:
    srv = live_server()
    bad = "/api/verify?" + urlencode(
        {"seed": "a", "options": json.dumps({"players": 2, "partnership": False, "max_pip": 12, "hand_size": 45})}
    )
    started = time.perf_counter()
    for _ in range(10):
        r = srv.get(bad)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules"
    print(f"10 refused verify requests: {(time.perf_counter() - started) * 1000:.0f} ms")
    for query in ("hand=%C2%B2&seed=a", "hand=" + "9" * 5000 + "&seed=a",
                  "seed=a&options=" + "%5B" * 999 + "%5D" * 999):
        r = srv.get("/api/verify?" + query)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", query
    # The table form on a live table whose first hand is in play: the seed stays secret.
    table_id, token = srv.table_with_seed("live-verify")
    r = srv.get(f"/api/verify?table={table_id}&hand=1")
    assert r.status_code == 409 and r.json()["error"]["code"] == "hand_not_over"
    c = srv.client()
    c.hello(table_id, token)
    c.until(lambda f: f.get("type") == "events" and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
    r = srv.get(f"/api/verify?table={table_id}&hand=1")
    assert r.status_code == 409 and r.json()["error"]["code"] == "hand_not_over"
    shell = srv.run(srv.tables.get(table_id))
    assert shell.core.match.hand.seed not in r.text
    c.close()
    r = srv.get("/api/verify?table=t_nothere&hand=1")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_table"


def test_live_declined_redeal_moves_the_table_on(live_server: Any) -> None:
    """Issue item 4 at the table: the human's 'keep the deal' answer is an event with its own seq."""
    srv = live_server()
    rules = make_rules("cubano", redeal_five_doubles="on_request")
    # A seed whose first deal gives the human (seat 0) five doubles, so that they are asked.
    seed = next(s for s in (f"ask-{i}" for i in range(3000)) if _asks_seat_0(rules, s))
    table_id, token = srv.table_with_seed(seed, options={"redeal_five_doubles": "on_request"})
    c = srv.client()
    c.hello(table_id, token)
    c.until(lambda f: f.get("type") == "events" and f["view"]["phase"] == "redeal_question")
    c.settle()
    asked_at = c.seq
    c.send({"type": "redeal", "seq": asked_at, "accept": False})
    f = c.until(lambda f: f.get("type") in ("events", "error"))
    assert f["type"] == "events" and f["events"][0] == {"seq": asked_at + 1, "event": {"kind": "redeal_declined", "seat": 0}}
    assert f["view"]["phase"] in ("play", "hand_over")
    c.close()


def _asks_seat_0(rules: Any, seed: str) -> bool:
    m = Match(rules, seed)
    m.start_hand(frozenset({0}))
    return m.phase == "redeal_question" and m.turn == 0
