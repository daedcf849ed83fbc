"""The parque's matchmaking queue in the real store, on SQLite and PostgreSQL
(issue 24, items 1 and 5): near ratings seated together, neighbours once the
chosen wait ran out, one row per player, the queue kept across a restart, and
never two tables for one player, even with matchers of several processes at once."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from capicua.engine.rules import make_rules
from capicua.server.matchmaker import plan_tables
from capicua.standings.ratings import NEW_RATING
from capicua.store import Store, parque, queue, tablelogs
from capicua.store.models import ParqueTableRow, RatingRow, TableSeatRow
from capicua.table.core import CoreConfig, TableCore
from capicua.table.log import Open

pytestmark = pytest.mark.xdist_group("store")

T0 = datetime(2026, 12, 5, 12, 0, 0)


def later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def players(store: Store, ratings: list[float]) -> list[str]:
    """New guests with these μ on the friends' board."""
    made = []
    with store.sessions.begin() as s:
        for mu in ratings:
            pid, _ = store.create_player(f"p{len(made)}")
            s.add(RatingRow(player_id=pid, board="friends", mu=mu, sigma=2.0, score=mu - 6, matches=5, won=2,
                            updated_at=T0))
            made.append(pid)
    return made


def seats_of(store: Store) -> dict[str, list[tuple[int, str, str | None]]]:
    """Every table's seats: (seat, kind, player)."""
    with store.sessions() as s:
        rows = s.execute(select(TableSeatRow.table_id, TableSeatRow.seat, TableSeatRow.kind, TableSeatRow.player_id)
                         .order_by(TableSeatRow.table_id, TableSeatRow.seat)).all()
    tables: dict[str, list[tuple[int, str, str | None]]] = {}
    for tid, seat, kind, player in rows:
        tables.setdefault(tid, []).append((seat, kind, player))
    return tables


@pytest.fixture
def store(database_url: str) -> Any:
    st = Store(database_url)
    st.migrate()
    yield st
    st.close()


def test_near_ratings_are_seated_together_and_the_table_loads(store: Store) -> None:
    low = players(store, [10.0, 12.0, 11.0, 13.0])
    high = players(store, [40.0, 41.0, 43.0, 42.0])
    for i, pid in enumerate([*low, *high][::-1]):  # interleaved arrival makes no difference
        queue.join(store, pid, f"n{i}", 1, "cubano", None, now=later(i * 0.1))
    opened = queue.match_round(store, plan_tables, now=later(1))
    assert sorted(sorted(t.players) for t in opened) == sorted([sorted(low), sorted(high)])
    tables = seats_of(store)
    for t in opened:
        seats = tables[t.table_id]
        assert [kind for _, kind, _ in seats] == ["human"] * 4
        # the strongest and the weakest are partners (seats 0 and 2)
        by_seat = [p for _, _, p in seats]
        group = low if by_seat[0] in low else high
        ranked = sorted(group, key=lambda p: [10.0, 12.0, 11.0, 13.0, 40.0, 41.0, 43.0, 42.0][[*low, *high].index(p)])
        assert {by_seat[0], by_seat[2]} == {ranked[0], ranked[3]}
        # the stored table is a table the core can run
        loaded = store.load_table(t.table_id)
        assert loaded is not None
        TableCore(Open.from_json(loaded["events"][0]), CoreConfig())
        assert queue.poll(store, t.players[0], now=later(2)) == {
            "state": "seated", "table_id": t.table_id, "preset": "cubano"}
    with store.sessions() as s:
        assert {r.table_id: r.kind for r in s.scalars(select(ParqueTableRow))} == {
            t.table_id: "matched" for t in opened}
    assert queue.match_round(store, plan_tables, now=later(3)) == []  # nobody waits any more


def test_far_ratings_wait_until_the_window_widens_and_neighbours_fill_when_the_wait_runs_out(store: Store) -> None:
    a, b, c = players(store, [20.0, 34.0, 35.0])
    queue.join(store, a, "ana", 1, "cubano", 30, now=T0)
    queue.join(store, b, "beto", 3, "cubano", 30, now=T0)
    queue.join(store, c, "cari", 2, "cubano", None, now=T0)  # never neighbours
    for t in (1, 10, 20):
        for p in (a, b, c):
            queue.poll(store, p, now=later(t))
        assert queue.match_round(store, plan_tables, now=later(t)) == []
    # 30 s: ana's and beto's waits ran out; at 14 apart (window ±10.5) they still sit apart
    for p in (a, b, c):
        queue.poll(store, p, now=later(30))
    opened = queue.match_round(store, plan_tables, now=later(30))
    assert sorted(t.players for t in opened) == sorted([(a,), (b,)])
    # cari chose never: she waits on, alone
    assert queue.poll(store, c, now=later(31))["state"] == "waiting"  # type: ignore[index]
    for t in opened:
        assert [kind for _, kind, _ in seats_of(store)[t.table_id]] == ["human", "bot", "bot", "bot"]


def test_two_players_whose_wait_ran_out_sit_as_rivals_with_two_neighbours(store: Store) -> None:
    a, b = players(store, [24.0, 26.0])
    queue.join(store, a, "ana", 1, "cubano", 60, now=T0)
    queue.join(store, b, "beto", 1, "cubano", 30, now=later(5))
    for p in (a, b):
        queue.poll(store, p, now=later(34))
    assert queue.match_round(store, plan_tables, now=later(34)) == []  # nobody's wait ran out yet
    for p in (a, b):
        queue.poll(store, p, now=later(35))
    # beto's 30 s ran out; ana, who waits a minute for neighbours, plays with him now rather than later
    [table] = queue.match_round(store, plan_tables, now=later(35))
    assert seats_of(store)[table.table_id] == [(0, "human", b), (1, "human", a), (2, "bot", None), (3, "bot", None)]


def test_one_row_per_player_a_seated_player_cannot_queue_and_leaving(store: Store) -> None:
    a, b = players(store, [25.0, 25.0])
    queue.join(store, a, "ana", 1, "cubano", 30, now=T0)
    with pytest.raises(queue.QueueRefused) as refused:
        queue.join(store, a, "ana", 1, "domino-9", None, now=later(1))
    assert refused.value.code == "already_queued"
    assert queue.poll(store, a, now=later(2)) == {
        "state": "waiting", "preset": "cubano", "wait": 30, "waited_s": 2, "waiting": 1}
    assert queue.leave(store, a) and not queue.leave(store, a)
    assert queue.poll(store, a, now=later(3)) is None
    queue.join(store, a, "ana", 1, "cubano", 30, now=later(3))
    queue.join(store, b, "beto", 1, "cubano", 30, now=later(3))
    for p in (a, b):
        queue.poll(store, p, now=later(40))
    [table] = queue.match_round(store, plan_tables, now=later(40))
    # ana's table is being played: she cannot queue again, and leaving does not unseat her
    assert not queue.leave(store, a)
    with pytest.raises(queue.QueueRefused) as refused:
        queue.join(store, a, "ana", 1, "cubano", 30, now=later(41))
    assert refused.value.code == "at_a_table" and table.table_id in str(refused.value)


def test_a_row_not_polled_for_30_s_is_dropped(store: Store) -> None:
    a, b = players(store, [25.0, 25.0])
    queue.join(store, a, "ana", 1, "cubano", None, now=T0)
    queue.join(store, b, "beto", 1, "cubano", None, now=T0)
    queue.poll(store, a, now=later(25))
    assert queue.match_round(store, plan_tables, now=later(31)) == []
    assert queue.poll(store, b, now=later(32)) is None  # closed the page: gone
    assert queue.poll(store, a, now=later(32))["state"] == "waiting"  # type: ignore[index]
    assert queue.waiting_players(store, 10) == {
        "counts": {"cubano": 1}, "players": [{"nickname": "ana", "level": 1, "preset": "cubano"}]}


def test_only_players_whose_page_polled_lately_are_seated(store: Store) -> None:
    """A table deals once all its players are there: a page that stopped polling a few
    seconds ago (closed, or its phone asleep) is not given a seat meanwhile."""
    a, b, c = players(store, [25.0, 25.0, 25.0])
    for p in (a, b, c):
        queue.join(store, p, p, 1, "cubano", 30, now=T0)
    queue.poll(store, a, now=later(31))
    queue.poll(store, b, now=later(31))
    queue.poll(store, c, now=later(24))  # 7 s ago: its page may be gone
    [table] = queue.match_round(store, plan_tables, now=later(31))
    assert sorted(table.players) == sorted([a, b])
    assert queue.poll(store, c, now=later(32))["state"] == "waiting"  # type: ignore[index]


def test_the_queue_survives_a_restart(database_url: str) -> None:
    first = Store(database_url)
    first.migrate()
    pids = players(first, [25.0, 26.0])
    now = datetime.now(UTC).replace(tzinfo=None)
    for pid in pids:
        queue.join(first, pid, pid, 1, "cubano", 30, now=now - timedelta(seconds=31))
        queue.poll(first, pid, now=now)
    first.close()
    second = Store(database_url)  # the server started again
    second.migrate()
    [table] = queue.match_round(second, plan_tables, now=now)
    assert sorted(table.players) == sorted(pids)
    assert queue.poll(second, pids[0])["table_id"] == table.table_id  # type: ignore[index]
    second.close()


def test_new_players_start_at_the_new_rating(store: Store) -> None:
    pid, _ = store.create_player("nuevo")
    queue.join(store, pid, "nuevo", 0, "cubano", None, now=T0)
    with store.sessions() as s:
        from capicua.store.models import QueueEntryRow

        row = s.get(QueueEntryRow, pid)
        assert row is not None and row.rating == NEW_RATING.mu


def test_matchers_of_several_processes_never_seat_a_player_twice(pg_server: Any) -> None:
    """Four matchers (each its own engine, as four processes would be) run rounds as
    fast as they can while players keep joining: every player is seated at one table
    at most, and each table's players are the rows that name it."""
    url = pg_server.create_database()
    stores = [Store(url) for _ in range(5)]
    stores[0].migrate()
    pids = players(stores[0], [20.0 + (i % 7) for i in range(48)])
    done = threading.Event()
    errors: list[BaseException] = []

    def matcher(st: Store) -> None:
        try:
            while not done.is_set():
                # far in the future: every wait ran out, so every round seats whoever waits
                queue.match_round(st, plan_tables, now=datetime.now(UTC).replace(tzinfo=None) + timedelta(seconds=1))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=matcher, args=(st,)) for st in stores[1:]]
    for t in threads:
        t.start()
    try:
        for pid in pids:
            queue.join(stores[0], pid, pid, 1, "cubano", 0)  # neighbours at once: every round seats someone
    finally:
        while any(queue.poll(stores[0], pid)["state"] == "waiting" for pid in pids):  # type: ignore[index]
            pass
        done.set()
        for t in threads:
            t.join(20)
    assert not errors, errors
    seated = Counter(p for seats in seats_of(stores[0]).values() for _, _, p in seats if p is not None)
    assert set(seated) == set(pids) and max(seated.values()) == 1
    for pid in pids:
        table = queue.poll(stores[0], pid)["table_id"]  # type: ignore[index]
        assert (pid in [p for _, _, p in seats_of(stores[0])[table]])
    for st in stores:
        st.close()
    pg_server.drop_database(url)


def test_the_parque_lists_public_lobbies_with_a_free_seat_and_listed_tables_being_played(store: Store) -> None:
    host, _ = store.create_player("Yuli")
    friend, _ = store.create_player("Cheo")

    def lobby(tid: str, friends: int) -> None:
        seats = [{"seat": 0, "kind": "human", "name": "Yuli", "player": host, "level": "medio", "character": "mima"}]
        seats += [{"seat": s, "kind": "human", "name": "Cheo", "player": friend, "level": "medio", "character": "fefa"}
                  if s <= friends else {"seat": s, "kind": "empty", "name": ""} for s in range(1, 4)]
        tablelogs.create_table(store, Open(tid, "cubano", {}, "sec", tuple(seats), True, host).to_json(), "seed", 2)

    now = datetime.now(UTC).replace(tzinfo=None)
    lobby("t_open", 1)
    lobby("t_full", 3)
    lobby("t_bylink", 1)
    with pytest.raises(queue.QueueRefused) as refused:
        parque.set_public(store, "t_open", friend, True)
    assert refused.value.code == "not_host"
    for tid in ("t_open", "t_full"):
        assert parque.set_public(store, tid, host, True) and parque.is_public(store, tid)
    assert not parque.is_public(store, "t_bylink")
    listed = parque.listing(store, 10, now=now)
    assert [t["table_id"] for t in listed["waiting"]] == ["t_open"]  # full: waits for Empezar, not for players
    assert listed["waiting"][0] == {
        "table_id": "t_open", "preset": "cubano", "target": make_rules("cubano").target, "seats": 4, "free": 2, "host": "Yuli",
        "players": ["Yuli", "Cheo"], "neighbours": []}
    assert parque.listing(store, 10, now=now + timedelta(seconds=parque.LOBBY_LIVE_S + 1))["waiting"] == []
    a, b = players(store, [25.0, 25.0])
    for pid in (a, b):
        queue.join(store, pid, pid, 1, "cubano", 30, now=now - timedelta(seconds=31))
        queue.poll(store, pid, now=now)
    [table] = queue.match_round(store, plan_tables, now=now)
    assert [t["table_id"] for t in parque.listing(store, 10, now=now)["playing"]] == [table.table_id]
    assert parque.listing(store, 10, now=now + timedelta(seconds=parque.PLAYING_LIVE_S + 1))["playing"] == []
