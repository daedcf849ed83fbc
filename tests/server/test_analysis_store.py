"""The analyses in the store (capicua/store/analyses.py, migration 0004) and the
server's :class:`~capicua.server.analyst.Analyst` on top of it, on every
database of the ``database_url`` fixture."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest
from http_answers import analysis_answer
from sqlalchemy import inspect

from capicua.bots import analysis, decide
from capicua.engine import Match, make_rules, parse_action
from capicua.server.analyst import Analyst, choices, expected
from capicua.store import Store, tablelogs
from capicua.store import analyses as stored
from capicua.table.log import Open, read_log

BUDGET = 10.0


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    s = Store(database_url)
    s.migrate()
    yield s
    s.close()


def played_table(store: Store, table_id: str, seed: str, hands: int = 1, stand_in_from: int = 99) -> dict[str, Any]:
    """A table whose log holds ``hands`` hands played by botagorda, seat 0 a guest
    (its choices ``by`` human, or stand_in from its ``stand_in_from``-th play on),
    and whose match row holds the record: returns the record."""
    seats = [{"seat": 0, "kind": "human", "name": "Ana"}] + [
        {"seat": s, "kind": "bot", "name": f"B{s}", "level": "botagorda"} for s in (1, 2, 3)
    ]
    entry = Open(table_id, "cubano", {}, "ab" * 32, tuple(seats), seed=seed).to_json()
    tablelogs.create_table(store, entry, seed, 2)
    match = Match(make_rules("cubano"), seed)
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []
    mine = 0
    for _ in range(hands):
        match.start_hand()
        entries.append({"op": "start_hand", "at": 0, "present": [0]})
        while match.phase == "play":
            seat = match.turn
            assert seat is not None
            action = parse_action(decide("botagorda", match.view(seat), rng.randrange(1 << 30)), 9)
            by = "bot"
            if seat == 0:
                by = "human" if mine < stand_in_from else "stand_in"
                mine += 1
            match.apply(seat, action)
            entries.append({"op": "action", "at": 0, "seat": seat, "action": action.to_json(), "by": by})
    record = match.record()
    append = tablelogs.Append(table_id, 2, entries, status="playing", scores=list(match.scores), match_number=1,
                              record=record)
    assert tablelogs.append_many(store, [append]) == [None]
    return record


def test_analyses_round_trip(store: Store) -> None:
    record = played_table(store, "t_store1", "an-store-1")
    results = analysis.analyse_hand(record, 1, [0, 2], table="t_store1", budget_ms=BUDGET)
    stored.save(store, "t_store1", 1, 1, results)
    rows = stored.load(store, "t_store1", 1)
    assert [(r["hand"], r["seat"]) for r in rows] == [(1, 0), (1, 2)]
    assert [r["result"] for r in rows] == results
    assert all(r["computed_at"].endswith("+00:00") for r in rows)
    again = [{**results[0], "precision": 12.5}]
    stored.save(store, "t_store1", 1, 1, again)  # recomputed: replaces that seat's row only
    rows = stored.load(store, "t_store1", 1)
    assert [r["result"]["precision"] for r in rows] == [12.5, results[1]["precision"]]
    assert stored.load(store, "t_store1", 2) == [] and stored.load(store, "t_nobody", 1) == []


def test_inputs_and_what_is_expected(store: Store) -> None:
    record = played_table(store, "t_store2", "an-store-2", hands=2, stand_in_from=6)
    inputs = stored.inputs(store, "t_store2", 1)
    assert inputs is not None and inputs.record == record
    by_hand = choices(read_log(inputs.entries), 1)
    assert sorted(by_hand) == [1, 2]
    for hand, chosen in by_hand.items():
        plays = [a["seat"] for a in record["hands"][hand - 1]["actions"] if "play" in a]
        assert [seat for seat, _ in chosen] == plays
    zero = [by for hand in (1, 2) for seat, by in by_hand[hand] if seat == 0]
    assert zero[:6] == ["human"] * 6 and set(zero[6:]) == {"stand_in"}
    wanted = expected(inputs, 1)
    assert wanted[1] == ([0], [by for _, by in by_hand[1]])  # the seat with a player's own choices
    assert stored.inputs(store, "t_store2", 2) is None
    assert stored.table_known(store, "t_store2") and not stored.table_known(store, "t_nobody")


def test_a_hand_in_play_is_never_expected() -> None:
    inputs = stored.MatchInputs(
        record={"hands": [{"result": {"kind": "domino"}}, {"result": None}]},
        entries=[
            Open("t_1", "cubano", {}, "s", ()).to_json(),
            {"op": "start_hand"}, {"op": "action", "seat": 0, "action": {}, "by": "human"},
            {"op": "start_hand"}, {"op": "action", "seat": 0, "action": {}, "by": "human"},
            {"op": "rematch"}, {"op": "start_hand"}, {"op": "action", "seat": 2, "action": {}, "by": "human"},
        ],
    )
    assert sorted(expected(inputs, 1)) == [1]  # hand 2 is not over: its tiles are still hidden
    assert choices(read_log(inputs.entries), 2) == {1: [(2, "human")]}


def test_the_migration_adds_the_table_to_a_database_of_the_previous_schema(database_url: str) -> None:
    s = Store(database_url)
    try:
        s.migrate("0003")
        assert "analyses" not in inspect(s.engine).get_table_names()
        s.migrate()
        columns = {c["name"] for c in inspect(s.engine).get_columns("analyses")}
        assert columns == {"table_id", "match_number", "hand", "seat", "result", "computed_at"}
    finally:
        s.close()


def test_the_analyst_computes_stores_and_serves(store: Store) -> None:
    """pending -> ready through the store, the same analysis as the pure function
    given the log's ``by`` (the stand-in's plays are not judged)."""
    record = played_table(store, "t_store3", "an-store-3", stand_in_from=3)

    async def run() -> tuple[Any, Any, Any]:
        analyst = Analyst(store, None, budget_ms=BUDGET)  # None: the loop's default thread pool
        first = await analysis_answer(analyst, "t_store3", "1")
        for _ in range(600):
            if not analyst.queued:
                break
            await asyncio.sleep(0.05)
        second = await analysis_answer(analyst, "t_store3", "1")
        analyst.hand_ended("t_store3", 1, 1)  # told again: already stored, nothing recomputed
        for _ in range(600):
            if not analyst.queued:
                break
            await asyncio.sleep(0.05)
        errors = [await analysis_answer(analyst, t, m) for t, m in (("t_nobody", "1"), ("t_store3", "2"), ("t_store3", "x"),
                                                          ("t_store3", "0"), ("../etc", "1"))]
        await analyst.close()
        return first, second, errors

    first, second, errors = asyncio.run(run())
    assert first == (200, {"status": "pending", "hands": []})
    status, body = second
    inputs = stored.inputs(store, "t_store3", 1)
    assert inputs is not None
    by = [b for _, b in choices(read_log(inputs.entries), 1)[1]]
    assert "stand_in" in by
    want = analysis.analyse_hand(record, 1, [0], table="t_store3", match=1, budget_ms=BUDGET, chosen_by=by)
    assert status == 200 and body == {"status": "ready", "hands": want}
    assert want[0]["decisions"] and len(want[0]["decisions"]) < len(analysis.decisions(record, 1, [0]))
    assert [(s, b["error"]["code"]) for s, b in errors] == [
        (404, "unknown_table"), (404, "unknown_match"), (400, "malformed"), (400, "malformed"), (404, "unknown_table"),
    ]


def test_a_failed_analysis_is_logged_once_and_left_out(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    from sqlalchemy import update

    from capicua.store.models import MatchRow

    record = played_table(store, "t_store4", "an-store-4")
    broken = {**record, "hands": [{**record["hands"][0], "actions": record["hands"][0]["actions"][:3]}]}
    with store.sessions.begin() as s:  # a record the engine refuses (its hand ends too soon)
        s.execute(update(MatchRow).where(MatchRow.table_id == "t_store4").values(record=broken))

    async def run() -> list[Any]:
        analyst = Analyst(store, None, budget_ms=BUDGET)
        answers = [await analysis_answer(analyst, "t_store4", "1")]
        for _ in range(600):
            if not analyst.queued:
                break
            await asyncio.sleep(0.05)
        answers += [await analysis_answer(analyst, "t_store4", "1"), await analysis_answer(analyst, "t_store4", "1")]
        analyst.hand_ended("t_store4", 1, 1)
        await asyncio.sleep(0.1)
        await analyst.close()
        return answers

    with caplog.at_level("WARNING", logger="capicua.analysis"):
        answers = asyncio.run(run())
    assert answers[0] == (200, {"status": "pending", "hands": []})
    assert answers[1:] == [(200, {"status": "ready", "hands": []})] * 2
    warnings = [r for r in caplog.records if r.name == "capicua.analysis"]
    assert len(warnings) == 1 and "RecordError" in warnings[0].getMessage()
    assert warnings[0].exc_info is None  # one line, no traceback
    assert stored.load(store, "t_store4", 1) == []


def test_a_full_backlog_leaves_new_hands_to_the_first_request(store: Store) -> None:
    played_table(store, "t_store5", "an-store-5")

    async def run() -> tuple[int, Any, Any]:
        analyst = Analyst(store, None, budget_ms=BUDGET, backlog=2)
        for hand in (7, 8):  # two hands of another table fill the backlog (nothing has run yet)
            analyst.hand_ended("t_other", 1, hand)
        analyst.hand_ended("t_store5", 1, 1)
        full = len(analyst.queued)
        dropped = ("t_store5", 1, 1) not in analyst.queued
        for _ in range(600):
            if not analyst.queued:
                break
            await asyncio.sleep(0.05)
        first = await analysis_answer(analyst, "t_store5", "1")  # finds it missing: queued now
        for _ in range(600):
            if not analyst.queued:
                break
            await asyncio.sleep(0.05)
        second = await analysis_answer(analyst, "t_store5", "1")
        await analyst.close()
        return full if dropped else -1, first, second

    full, first, second = asyncio.run(run())
    assert full == 2
    assert first[1]["status"] == "pending" and second[1]["status"] == "ready" and second[1]["hands"]


def test_the_analyst_rests_for_the_rest_of_its_duty_cycle(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``duty=0.25`` the analyst rests three times as long as each hand took."""
    import capicua.server.analyst as http

    record = played_table(store, "t_duty", "an-duty", stand_in_from=3)
    hands = len(record["hands"])
    rests: list[float] = []
    took: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        rests.append(seconds)
        await real_sleep(0)

    def slow(url: str, key: Any, budget_ms: Any = None) -> bool:
        import time

        started = time.monotonic()
        time.sleep(0.02)
        took.append(time.monotonic() - started)
        return True

    monkeypatch.setattr(http, "analyse_stored_hand", slow)

    async def run() -> None:
        analyst = Analyst(store, None, budget_ms=BUDGET, duty=0.25)
        monkeypatch.setattr(http.asyncio, "sleep", sleep)
        for hand in range(1, hands + 1):
            analyst.hand_ended("t_duty", 1, hand)
        for _ in range(600):
            if not analyst.queued and len(rests) >= hands:
                break
            await real_sleep(0.01)
        monkeypatch.setattr(http.asyncio, "sleep", real_sleep)
        await analyst.close()

    asyncio.run(run())
    assert len(rests) == hands and len(took) == hands
    assert all(rest >= 3 * t * 0.99 for rest, t in zip(rests, took, strict=True))  # 3x what the job took
