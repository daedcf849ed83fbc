"""Ownership by lease, fenced at the store (issue 23): a table's lease in PostgreSQL
(its epoch grows with each holder; the database's clock times it), and an append
made under a lease another process has since taken is refused in its own
transaction: the stale owner drops the table and its sockets hear nothing more."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from sockets_at import hello, intent
from sqlalchemy import func, select, update

from capicua.server import metrics
from capicua.server.adapters.botpool import PoolBots
from capicua.server.adapters.leases import LocalLeases, SqlLeases
from capicua.server.adapters.memory import LocalBus, LoopClock
from capicua.server.adapters.sql import StoreLog
from capicua.server.ports import Fenced, Holder, Lease
from capicua.server.registry import Tables
from capicua.store import Store, tablelogs
from capicua.store import leases as stored
from capicua.store.models import TableEventRow, TableLeaseRow
from capicua.table import protocol
from capicua.table.core import CoreConfig

pytestmark = pytest.mark.xdist_group("server")

FROZEN = (1e6, 1e6)  # the neighbours never move: every entry in these logs is the test's doing
HOUR_MS = 3_600_000  # a lease that never runs out by itself during a test


@pytest.fixture
def pg_store(pg_server: Any) -> Iterator[Store]:
    url = pg_server.create_database()
    store = Store(url)
    store.migrate()
    try:
        yield store
    finally:
        store.close()
        pg_server.drop_database(url)


def run_out(store: Store, table_id: str) -> None:
    """The table's lease runs out now, its holder unchanged: the holder stopped
    renewing (it died, or it is paused) for the lease's time."""
    with store.engine.begin() as conn:
        conn.execute(update(TableLeaseRow).where(TableLeaseRow.table_id == table_id).values(expires_at=func.now()))


def entries_of(store: Store, table_id: str) -> list[dict[str, Any]]:
    with store.sessions() as s:
        return list(s.scalars(select(TableEventRow.data).where(TableEventRow.table_id == table_id)
                              .order_by(TableEventRow.seq)))


def seats(player: str) -> list[dict[str, Any]]:
    return [{"seat": 0, "kind": "human", "name": "Ana", "player": player, "level": "random", "character": "mima"},
            *({"seat": s, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
              for s, n in ((1, "Cuca"), (2, "Pancho"), (3, "Yoli")))]


def test_a_lease_is_one_holders_at_a_time_and_its_epoch_only_grows(pg_store: Store) -> None:
    async def main() -> None:
        pid, _ = pg_store.create_player("Ana")
        log = StoreLog(pg_store, leased=True)
        await log.create("t_lease", {"op": "open", "table": "t_lease", "preset": "cubano", "options": {},
                                     "secret": "s" * 64, "seats": seats(pid), "private": False, "host": None})
        a, b = SqlLeases(pg_store, "a", HOUR_MS), SqlLeases(pg_store, "b", HOUR_MS)
        assert await a.acquire("t_none") is None  # no such table: no lease, no row
        first = await a.acquire("t_lease")
        assert first == Lease("t_lease", "a", 1)
        assert await b.acquire("t_lease") == Lease("t_lease", "a", 1)  # held live: b is told who holds it
        assert await a.renew([first]) == []
        run_out(pg_store, "t_lease")
        taken = await b.acquire("t_lease")
        assert taken == Lease("t_lease", "b", 2, took_over=True)
        assert await a.renew([first]) == [first]  # a learns it lost the lease
        assert await b.renew([taken]) == []
        await a.release(first)  # not a's any more: changes nothing
        assert await a.acquire("t_lease") == Lease("t_lease", "b", 2)  # b holds it
        await b.release(taken)
        again = await a.acquire("t_lease")  # released: taken at once, not over anyone
        assert again == Lease("t_lease", "a", 3)
        mine = await a.acquire("t_lease")  # its own, taken again (a new copy of the table): a new epoch
        assert mine == Lease("t_lease", "a", 4)
        a.close()
        b.close()
        log.close()

    asyncio.run(main())


def test_the_holders_of_many_leases_are_read_at_once_on_the_databases_clock(pg_store: Store) -> None:
    """What a gateway watching the owners its sockets follow reads: each table's holder
    and its time left as the database's now() sees it: live, ran out (its holder kept),
    given up (no holder); a table never leased is left out."""
    async def main() -> None:
        pid, _ = pg_store.create_player("Ana")
        log = StoreLog(pg_store, leased=True)
        for tid in ("t_live", "t_out", "t_free", "t_never"):
            await log.create(tid, {"op": "open", "table": tid, "preset": "cubano", "options": {},
                                   "secret": "s" * 64, "seats": seats(pid), "private": False, "host": None})
        a, b = SqlLeases(pg_store, "a", 2_000), SqlLeases(pg_store, "b", HOUR_MS)
        await a.acquire("t_live")
        await a.acquire("t_out")
        freed = await b.acquire("t_free")
        assert freed is not None
        await b.release(freed)
        run_out(pg_store, "t_out")
        ids = ["t_live", "t_out", "t_free", "t_never", "t_none"]
        found = stored.holders(pg_store, ids)
        assert set(found) == {"t_live", "t_out", "t_free"}
        owner, left_ms = found["t_live"]
        assert owner == "a" and 0 < left_ms <= 2_000  # the 2 s lease, less the moments since
        assert found["t_out"][0] == "a" and found["t_out"][1] <= 0
        assert found["t_free"] == (stored.FREE, found["t_free"][1]) and found["t_free"][1] <= 0
        assert stored.holders(pg_store, []) == {}
        seen = await b.holders(ids)  # the port: the same reading
        assert seen["t_live"].owner == "a" and seen["t_live"].live
        assert not seen["t_out"].live and not seen["t_free"].live and "t_never" not in seen
        a.close()
        b.close()
        log.close()

    asyncio.run(main())


def test_sql_leases_need_postgresql(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'one.sqlite3'}")
    with pytest.raises(ValueError, match="PostgreSQL"):
        SqlLeases(store)
    store.close()


def test_an_append_under_a_lease_taken_since_is_refused_in_its_transaction(pg_store: Store) -> None:
    """The fence at the store: the epoch is checked where the entries are written; in a
    group commit the fenced append alone is left out."""
    async def main() -> None:
        pid, _ = pg_store.create_player("Ana")
        log = StoreLog(pg_store, leased=True)
        for tid in ("t_one", "t_two"):
            await log.create(tid, {"op": "open", "table": tid, "preset": "cubano", "options": {},
                                   "secret": "s" * 64, "seats": seats(pid), "private": False, "host": None})
        a, b = SqlLeases(pg_store, "a", HOUR_MS), SqlLeases(pg_store, "b", HOUR_MS)
        one, two = await a.acquire("t_one"), await a.acquire("t_two")
        assert one is not None and two is not None
        await log.append("t_one", 1, [{"op": "say", "seat": 0, "n": 1}], None, one.epoch)
        run_out(pg_store, "t_one")
        taken = await b.acquire("t_one")
        assert taken is not None and taken.epoch == 2
        await log.append("t_one", 2, [{"op": "say", "seat": 0, "n": 2}], None, taken.epoch)
        with pytest.raises(Fenced):
            await log.append("t_one", 3, [{"op": "say", "seat": 0, "n": 3}], None, one.epoch)
        # One transaction with a fenced append and a good one: the good one is written.
        results = await asyncio.to_thread(tablelogs.append_many, pg_store, [
            tablelogs.Append("t_one", 3, [{"op": "say", "seat": 0, "n": -3}], one.epoch),
            tablelogs.Append("t_two", 2, [{"op": "say", "seat": 0, "n": 1}], two.epoch),
        ])
        assert isinstance(results[0], tablelogs.FencedLog) and results[1] is None
        assert [e.get("n") for e in entries_of(pg_store, "t_one")] == [None, 1, 2]
        assert [e.get("n") for e in entries_of(pg_store, "t_two")] == [None, 1]
        a.close()
        b.close()
        log.close()

    asyncio.run(main())


def _sample(name: str) -> float:
    return metrics.REGISTRY.get_sample_value(name) or 0.0


def test_an_owner_that_lost_its_lease_appends_nothing_and_says_nothing(pg_store: Store) -> None:
    """Owner A runs a table under epoch 1 and stops renewing (paused past its lease);
    B takes the lease (epoch 2), loads the table and appends. A's next append is
    refused: A drops the table, writes nothing and its socket hears no frame after it."""
    async def main() -> None:
        pid, _ = pg_store.create_player("Ana")
        log = StoreLog(pg_store, leased=True)
        pool = PoolBots(None, FROZEN)
        config = CoreConfig(auto_next_ms=0)
        a = Tables(log, LocalBus(), LoopClock(), pool, config, leases=SqlLeases(pg_store, "a", HOUR_MS))
        b = Tables(log, LocalBus(), LoopClock(), pool, config, leases=SqlLeases(pg_store, "b", HOUR_MS))
        shell = await a.open("cubano", {}, seats(pid), seed="fenced")
        heard_a: list[str] = []
        hello(a, shell.id, "sock-a", heard_a.append, pid, "Ana")
        await asyncio.sleep(0.3)
        assert shell.lease.epoch == 1 and any(json.loads(f)["type"] == "welcome" for f in heard_a)
        assert await b.route(shell.id) == protocol.Route(shell.id, "a")  # A holds it: B routes there
        assert await b.get(shell.id) is None and not b.shells

        run_out(pg_store, shell.id)  # A, paused, renews no more
        takeovers, fenced = _sample("capicua_lease_takeovers_total"), _sample("capicua_fenced_appends_total")
        copy = await b.get(shell.id)
        assert copy is not None and copy.lease == Lease(shell.id, "b", 2, took_over=True)
        assert _sample("capicua_lease_takeovers_total") == takeovers + 1  # /metrics counts it
        heard_b: list[str] = []
        hello(b, copy.id, "sock-b", heard_b.append, pid, "Ana")
        intent(b, copy.id, "sock-b", protocol.Say("agua"))
        await asyncio.sleep(0.3)
        written = entries_of(pg_store, shell.id)
        assert sum(1 for e in written if e["op"] == "say") == 1  # B's, under epoch 2

        before = len(heard_a)
        intent(a, shell.id, "sock-a", protocol.Say("agua"))  # A wakes up and acts on its copy
        await asyncio.sleep(0.3)
        assert shell.stopped and shell.id not in a.shells
        assert len(heard_a) == before, heard_a[before:]  # not a frame after the refused append
        assert entries_of(pg_store, shell.id) == written  # and nothing of it in the log
        assert _sample("capicua_fenced_appends_total") == fenced + 1
        assert not copy.stopped and await b.route(shell.id) == protocol.Route(shell.id, "b")
        await a.close()
        await b.close()
        log.close()

    asyncio.run(main())


def test_a_table_that_leaves_gives_its_lease_up_and_renewal_drops_a_lost_one(pg_store: Store) -> None:
    """Renewed while the table is here; given up when it leaves (the next process takes it
    at once, not over anyone); lost at renewal: dropped without a word."""
    async def main() -> None:
        pid, _ = pg_store.create_player("Ana")
        log = StoreLog(pg_store, leased=True)
        pool = PoolBots(None, FROZEN)
        a = Tables(log, LocalBus(), LoopClock(), pool, idle_ms=0, leases=SqlLeases(pg_store, "a", HOUR_MS))
        b = Tables(log, LocalBus(), LoopClock(), pool, leases=SqlLeases(pg_store, "b", HOUR_MS))
        shell = await a.open("cubano", {}, seats(pid), seed="renew")
        await asyncio.sleep(0.2)
        assert await a.renew() == 0 and a.held[shell.id] is shell.lease
        assert await a.sweep() == 1 and shell.id not in a.held  # idle: gone, its lease given up
        copy = await b.get(shell.id)
        assert copy is not None and copy.lease == Lease(shell.id, "b", 2)  # free: no takeover
        again = await a.get(shell.id)
        assert again is None  # B holds it
        run_out(pg_store, shell.id)
        back = await a.get(shell.id)
        assert back is not None and back.lease.epoch == 3
        heard: list[Any] = []
        b.bus.subscribe(copy.id, (protocol.PUBLIC,), heard.append)  # hears whatever B says to the table
        assert await b.renew() == 1  # B finds it lost the lease: the table is dropped, silently
        assert copy.stopped and copy.id not in b.shells and copy.id not in b.held
        assert heard == []
        await a.close()
        await b.close()
        log.close()

    asyncio.run(main())


def test_in_one_process_every_lease_is_granted_with_a_new_epoch() -> None:
    async def main() -> None:
        leases = LocalLeases("here")
        first = await leases.acquire("t_x")
        second = await leases.acquire("t_x")
        assert (first, second) == (Lease("t_x", "here", 1), Lease("t_x", "here", 2))
        assert await leases.renew([first, second]) == [first]  # the older copy's is not the table's
        await leases.release(second)
        assert (await leases.acquire("t_x")).epoch == 3  # never back
        assert await leases.holders(["t_x", "t_y"]) == {"t_x": Holder("here", leases.ttl_ms)}

    asyncio.run(main())
