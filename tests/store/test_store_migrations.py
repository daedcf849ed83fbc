"""Migrations (issue 12 item 9): every migration upgrades an empty database and one
holding data of an earlier schema, on SQLite and on PostgreSQL (``database_url``).

The data of an earlier schema is what the server writes: a bots-only match is played
to its end (and another table left mid-match) on a scratch database, and the rows of
the tables that the earlier schema has are copied, column by column, into the
database under test, migrated only that far. After ``upgrade head`` the tables load
and play on from their log as they were."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sockets_at import hello
from sqlalchemy import MetaData, inspect, select, text

from capicua.server.adapters.memory import LocalBus, LoopClock
from capicua.server.adapters.sql import StoreLog
from capicua.server.registry import Tables
from capicua.store import MIGRATIONS, Store, tablelogs
from capicua.table.core import CoreConfig

pytestmark = pytest.mark.xdist_group("store")

# The tables each schema revision has, in an order that respects their foreign keys.
TABLES_AT = {
    "0001": ["players", "matches", "seats", "match_events"],
    "0002": ["players", "matches", "seats", "match_events", "table_matches"],
}


def head_revision() -> str:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def bots(seat: int, level: str = "random") -> dict[str, Any]:
    name = ("Fefa", "Cuca", "Pancho", "Yoli")[seat]
    return {"seat": seat, "kind": "bot", "name": name, "level": level, "character": name.lower()}


def play_on_scratch(url: str) -> dict[str, Any]:
    """A finished bots-only match and a table mid-match, through the real table code
    and the store. Returns what the tables showed."""
    from capicua.server.adapters.botpool import PoolBots

    async def main() -> dict[str, Any]:
        store = Store(url)
        store.migrate()
        log = StoreLog(store)
        tables = Tables(log, LocalBus(), LoopClock(), PoolBots(None, (0.0, 0.0)), CoreConfig(auto_next_ms=0))
        pid, _ = store.create_player("Ana")
        done = await tables.open("cubano", {"target": 50}, [bots(s) for s in range(4)], seed="finished")
        while done.core.status != "finished":
            await asyncio.sleep(0.01)
        seats = [{"seat": 0, "kind": "human", "name": "Ana", "player": pid, "level": "random",
                  "character": "mima"}, *(bots(s) for s in (1, 2, 3))]
        going = await tables.open("cubano", {}, seats, seed="going")
        hello(tables, going.id, "ana", lambda frame: None, pid, "Ana")  # the hand starts; the neighbours play up to Ana's turn
        while going.core.match.turn != 0 or not going.inbox.empty():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        shown = {
            "finished": (done.id, done.core.match.record(), done.core.seq),
            "going": (going.id, going.core.match.record(), going.core.seq),
        }
        await tables.close()
        log.close()
        store.close()
        return shown

    return asyncio.run(main())


def copy_rows(source_url: str, target: Store, tables: list[str]) -> dict[str, int]:
    """Rows of ``tables`` from the scratch database into ``target``, only the columns
    the target has (its schema is the earlier one). Returns the row counts."""
    source = Store(source_url)
    have = MetaData()
    have.reflect(target.engine, only=tables)
    src = MetaData()
    src.reflect(source.engine, only=tables)
    counts = {}
    with source.engine.connect() as read, target.engine.begin() as write:
        for name in tables:
            # The log's own row ids are left to the target (copied ids would not move
            # PostgreSQL's sequence, and the next append would reuse one); rows go in order.
            cols = [c.name for c in have.tables[name].columns if (name, c.name) != ("match_events", "id")]
            query = select(*(src.tables[name].c[c] for c in cols))
            if name == "match_events":
                query = query.order_by(src.tables[name].c.id)
            rows = [dict(r._mapping) for r in read.execute(query)]
            if rows:
                write.execute(have.tables[name].insert(), rows)
            counts[name] = len(rows)
    source.close()
    return counts


def revision_of(store: Store) -> str:
    with store.engine.connect() as conn:
        return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one())


def test_an_empty_database_upgrades_to_the_newest_schema(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    assert revision_of(store) == head_revision()
    names = set(inspect(store.engine).get_table_names())
    assert set(TABLES_AT["0002"]) <= names
    store.close()


@pytest.mark.parametrize("earlier", ["0001", "0002"])
def test_a_database_with_data_of_an_earlier_schema_upgrades_and_its_tables_play_on(
    database_url: str, earlier: str, tmp_path: Path
) -> None:
    scratch = f"sqlite:///{tmp_path / 'scratch.sqlite3'}"
    shown = play_on_scratch(scratch)
    store = Store(database_url)
    store.migrate(earlier)
    assert revision_of(store) == earlier
    counts = copy_rows(scratch, store, TABLES_AT[earlier])
    assert counts["matches"] == 2 and counts["match_events"] > 20
    store.migrate()
    assert revision_of(store) == head_revision()
    # Each match of a table has its row (0002 makes them for tables of the first schema).
    finished_id, finished_record, _ = shown["finished"]
    matches = tablelogs.match_records(store, finished_id)
    assert [(m["number"], m["status"]) for m in matches] == [(1, "finished")]
    assert matches[0]["record"] == finished_record

    async def reload() -> None:
        log = StoreLog(store)
        tables = Tables(log, LocalBus(), LoopClock(), _no_bots(), CoreConfig(auto_next_ms=0))
        for table_id, record, seq in shown.values():
            again = await tables.get(table_id)
            assert again is not None and again.core.seq == seq
            assert again.core.match.record() == record
        # The upgraded log takes appends where it stopped.
        going_id, _, _ = shown["going"]
        row = store.load_match(going_id)
        assert row is not None
        await log.append(going_id, len(row["events"]), [{"op": "say", "seat": 0, "phrase": "agua"}], None)
        await tables.close()
        log.close()

    asyncio.run(reload())
    row = store.load_match(shown["going"][0])
    assert row is not None and row["events"][-1]["op"] == "say"
    store.close()


def _no_bots() -> Any:
    from capicua.server.adapters.botpool import PoolBots

    return PoolBots(None, (1e6, 1e6))  # the neighbours of the table mid-match never move


def test_servers_starting_at_once_on_a_new_database_both_migrate_it(database_url: str, tmp_path: Path) -> None:
    """Two processes migrate the same empty database at the same moment (servers
    started together): one waits for the other and finds the schema made instead of
    failing to make a table twice."""
    import subprocess
    import sys
    import time

    go = tmp_path / "go"
    code = (
        "import pathlib, time\n"
        "import alembic.command\n"
        "from capicua.store import Store\n"
        f"store = Store({database_url!r})\n"
        f"while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.005)\n"
        "store.migrate()\n"
        "store.close()\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(1.0)  # let them import and wait at the line (not a timed assertion)
    go.touch()
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    store = Store(database_url)
    assert revision_of(store) == head_revision()
    store.close()
