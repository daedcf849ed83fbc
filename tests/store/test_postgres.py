"""The event log's writers (issue 12 item 8): appends are sharded by table over
several writer threads, so one table's slow or blocked commit never holds up
another table's, on a real PostgreSQL; a table's appends stay fenced and in
order whatever the number of writers, on both databases."""

from __future__ import annotations

import asyncio
import time
import zlib
from typing import Any

import pytest

from capicua.server.adapters.sql import StoreLog, default_writers
from capicua.server.ports import StaleAppend
from capicua.store import Store, tablelogs
from capicua.table.log import Open

pytestmark = pytest.mark.xdist_group("store")

GUARD_S = 20.0  # a guard against hangs, not a timed assertion


def make_table(store: Store, table_id: str) -> None:
    seats = [{"seat": s, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
             for s, n in enumerate(("Fefa", "Cuca", "Pancho", "Yoli"))]
    tablelogs.create_table(store, Open(table_id, "cubano", {}, "sec", tuple(seats)).to_json(), "seed", 2)


def ids_on_different_writers(writers: int) -> tuple[str, str]:
    """Two table ids that :class:`StoreLog` gives to different writer threads."""
    first = "t_blocked"
    shard = zlib.crc32(first.encode()) % writers
    other = next(f"t_free{i}" for i in range(100) if zlib.crc32(f"t_free{i}".encode()) % writers != shard)
    return first, other


def waiting_locks(url: str) -> int:
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()
        return int(row[0]) if row else 0


def test_a_blocked_tables_commit_never_holds_up_another_table(pg_server: Any) -> None:
    """One table's row is locked by another session (its append waits for the lock);
    an append of another table commits meanwhile. With one writer thread for every
    table it would wait behind the blocked one."""
    import psycopg

    url = pg_server.create_database()
    store = Store(url)
    store.migrate()
    log = StoreLog(store)
    assert log.writers == default_writers(store) > 1
    blocked, free = ids_on_different_writers(log.writers)
    make_table(store, blocked)
    make_table(store, free)
    locker = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
    locker.execute("SELECT 1 FROM tables WHERE id = %s FOR UPDATE", (blocked,))  # held until rollback

    async def main() -> None:
        stuck = asyncio.create_task(log.append(blocked, 1, [{"op": "say", "seat": 0}], None, epoch=1))
        started = time.monotonic()
        while await asyncio.to_thread(waiting_locks, url) == 0:  # the blocked append waits for the row
            assert time.monotonic() - started < GUARD_S and not stuck.done()
            await asyncio.sleep(0.02)
        t0 = time.perf_counter()
        await asyncio.wait_for(log.append(free, 1, [{"op": "say", "seat": 1}], None, epoch=1), GUARD_S)
        print(f"the free table's append took {1000 * (time.perf_counter() - t0):.1f} ms beside a blocked one")
        assert not stuck.done()
        locker.rollback()
        await asyncio.wait_for(stuck, GUARD_S)

    try:
        asyncio.run(main())
    finally:
        locker.close()
    for table_id, seat in ((blocked, 0), (free, 1)):
        row = store.load_table(table_id)
        assert row is not None and [e["op"] for e in row["events"]] == ["open", "say"]
        assert row["events"][1]["seat"] == seat
    log.close()
    store.close()


@pytest.mark.parametrize("writers", [1, 3])
def test_many_tables_on_several_writers_keep_every_log_whole_and_fenced(database_url: str, writers: int) -> None:
    """Twelve tables append at once, each its own entries one after another (as a
    table does), on one and on three writer threads: every log holds exactly its
    entries in order, and a position written twice is refused once, as stale,
    without changing the log."""
    store = Store(database_url)
    store.migrate()
    log = StoreLog(store, writers=writers)
    tables = [f"t_{i}" for i in range(12)]
    for t in tables:
        make_table(store, t)

    async def play(table_id: str) -> None:
        for n in range(1, 21):
            await log.append(table_id, n, [{"op": "say", "seat": n % 4, "n": n}], None, epoch=1)

    async def main() -> None:
        await asyncio.gather(*(play(t) for t in tables))
        with pytest.raises(StaleAppend):
            await log.append(tables[0], 5, [{"op": "say", "seat": 0, "n": -1}], None, epoch=1)
        # Two copies of a table append the same position at once: one of them wins.
        got = await asyncio.gather(
            log.append(tables[1], 21, [{"op": "say", "seat": 0, "n": 21}], None, epoch=1),
            log.append(tables[1], 21, [{"op": "say", "seat": 0, "n": -21}], None, epoch=1),
            return_exceptions=True,
        )
        assert sorted(type(g).__name__ for g in got) == ["NoneType", "StaleAppend"]

    asyncio.run(main())
    assert log.healthy
    for t in tables:
        row = store.load_table(t)
        assert row is not None
        said = [e["n"] for e in row["events"][1:]]
        assert said == list(range(1, 22 if t == tables[1] else 21))
    log.close()
    store.close()


def test_a_cluster_whose_test_process_was_killed_is_stopped_by_the_next_one() -> None:
    """A test process killed by a timeout never stops its cluster; the next cluster's
    start stops and deletes it (its directory names its owner, who is gone)."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import psycopg
    from pgserver import find_bin_dir, reap_orphans

    here = Path(__file__).resolve().parent
    proc = subprocess.Popen([sys.executable, str(here.parent / "pgserver.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    root = Path(url.split("host=")[1].split("&")[0]).parent
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    psycopg.connect(dsn).close()  # it serves
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=GUARD_S)
    assert root.exists()
    reap_orphans(find_bin_dir())
    assert not root.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn, connect_timeout=5).close()
