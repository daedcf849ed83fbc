"""Migrations (issue 12 item 9): every migration upgrades an empty database and one
holding data of an earlier schema, on SQLite and on PostgreSQL (``database_url``).

The data of an earlier schema is what the server writes: a bots-only match is played
to its end, another table left mid-match, a guests' match finished (results, ratings,
levels, achievements, a stand-in) and an analysis stored, on a scratch database; the
rows of the tables that the earlier schema has are copied, column by column and under
the names that schema gave them (:data:`OLD_NAMES`), into the database under test,
migrated only that far. After ``upgrade head`` the tables load and play on from their
log as they were.

Issue 22 renamed the schema (0007: tables are tables, matches are matches): a database
at 0006 keeps every row through the upgrade and back down, and the models agree with
the schema the migrations make."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic_helpers import downgrade, head_revision, revision_of
from sockets_at import hello
from sqlalchemy import MetaData, inspect, select, text
from standings_helpers import Table, find, seats

from capicua.server.adapters.memory import LocalBus, LoopClock
from capicua.server.adapters.sql import StoreLog
from capicua.server.registry import Tables
from capicua.store import Store, analyses, standings, tablelogs
from capicua.store.models import Base
from capicua.store.nicknames import search_key
from capicua.table.core import CoreConfig

pytestmark = pytest.mark.xdist_group("store")

# The tables each schema revision has, under its names, in an order that respects their foreign keys.
TABLES_AT = {
    "0001": ["players", "matches", "seats", "match_events"],
    "0002": ["players", "matches", "seats", "match_events", "table_matches"],
    "0006": ["players", "matches", "seats", "match_events", "table_matches", "results", "ratings", "rating_history",
             "player_levels", "player_achievements", "analyses", "stand_ins"],
}
# A table's name before 0007 → its name now, and its columns renamed.
OLD_NAMES: dict[str, tuple[str, dict[str, str]]] = {
    "matches": ("tables", {}),
    "seats": ("table_seats", {"match_id": "table_id"}),
    "match_events": ("table_events", {"match_id": "table_id"}),
    "table_matches": ("matches", {}),
}
# Row ids the database gives (copied ids would not move PostgreSQL's sequences).
GIVEN_IDS = {("match_events", "id"), ("results", "id"), ("rating_history", "id")}


def bots(seat: int, level: str = "random") -> dict[str, Any]:
    name = ("Fefa", "Cuca", "Pancho", "Yoli")[seat]
    return {"seat": seat, "kind": "bot", "name": name, "level": level, "character": name.lower()}


def play_on_scratch(url: str) -> dict[str, Any]:
    """A finished bots-only match and a table mid-match, through the real table code
    and the store; a guests' match finished through the log's append (Beto away from
    its first move: a neighbour stood in for him) and an analysis of one of its hands.
    Returns what the tables showed, and what the guests' table and Ana's profile said."""
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

    shown = asyncio.run(main())
    store = Store(url)
    ana = store.create_player("Lola")[0]
    beto = store.create_player("Beto")[0]
    guests = Table(store, "t_guests", seats({0: ana, 2: beto}))
    guests.log({"op": "presence", "seat": 2, "online": False})
    assert guests.finish(find(lambda r: r["result"]["winner"] == 0)) == [None]
    analyses.save(store, "t_guests", 1, 1, [{"seat": 0, "decisions": [{"at": 3, "loss": 0.25}]}])
    said = {
        "ana": ana, "beto": beto, "profile": standings.profile(store, ana, ana),
        "beto_profile": standings.profile(store, beto), "analyses": analyses.load(store, "t_guests", 1),
        "matches": tablelogs.match_records(store, "t_guests"),
    }
    assert said["beto_profile"] is not None and said["beto_profile"]["stand_in_matches"] == 1
    store.close()
    return {"shown": shown, "said": said}


def copy_rows(source_url: str, target: Store, tables: list[str]) -> dict[str, int]:
    """Rows of ``tables`` (named as the target's schema names them) from the scratch
    database into ``target``, only the columns the target has (its schema is an earlier
    one). Returns the row counts."""
    source = Store(source_url)
    have = MetaData()
    have.reflect(target.engine, only=tables)
    src = MetaData()
    src.reflect(source.engine, only=[OLD_NAMES.get(name, (name, {}))[0] for name in tables])
    counts = {}
    with source.engine.connect() as read, target.engine.begin() as write:
        for name in tables:
            now_named, renamed = OLD_NAMES.get(name, (name, {}))
            source_table = src.tables[now_named]
            cols = [c.name for c in have.tables[name].columns if (name, c.name) not in GIVEN_IDS]
            # A token's hash was its player's before 0011 made it a device's: the player's device's.
            moved = {"token_hash"} if name == "players" and "token_hash" not in source_table.c else set()
            query = select(*(source_table.c[renamed.get(c, c)].label(c) for c in cols if c not in moved))
            if "id" in source_table.c:
                query = query.order_by(source_table.c.id)  # rows go in the order they were written
            rows = [dict(r._mapping) for r in read.execute(query)]
            if moved:
                device = dict(read.execute(text("SELECT player_id, MIN(token_hash) FROM player_devices GROUP BY player_id")).all())
                rows = [{**r, "token_hash": device[r["id"]]} for r in rows]
            if rows:
                write.execute(have.tables[name].insert(), rows)
            counts[name] = len(rows)
    source.close()
    return counts


def rows_of(store: Store, tables: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Every row of ``tables``, every column, in a stable order."""
    meta = MetaData()
    meta.reflect(store.engine, only=tables)
    out = {}
    with store.engine.connect() as conn:
        for name in tables:
            t = meta.tables[name]
            rows = [dict(r._mapping) for r in conn.execute(select(t))]
            out[name] = sorted(rows, key=lambda r: sorted((k, repr(v)) for k, v in r.items()))
    return out


def under_new_names(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for name, got in rows.items():
        now_named, renamed = OLD_NAMES.get(name, (name, {}))
        out[now_named] = [{renamed.get(k, k): v for k, v in r.items()} for r in got]
    return out


def schema_of(store: Store) -> dict[str, Any]:
    """What the database says of its schema: tables, columns, keys, indexes and
    constraints with their names (on PostgreSQL its own names and sequences too)."""
    inspector = inspect(store.engine)
    out: dict[str, Any] = {}
    for name in sorted(inspector.get_table_names()):
        out[name] = {
            "columns": [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(name)],
            "pk": inspector.get_pk_constraint(name)["constrained_columns"],
            "fks": sorted((tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                          for f in inspector.get_foreign_keys(name)),
            "indexes": sorted((i["name"], tuple(i["column_names"]), i["unique"]) for i in inspector.get_indexes(name)),
            "uniques": sorted((u["name"], tuple(u["column_names"])) for u in inspector.get_unique_constraints(name)),
        }
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect() as conn:
            out["pg_constraints"] = sorted(tuple(r) for r in conn.execute(text(
                "SELECT conrelid::regclass::text, conname, contype FROM pg_constraint "
                "WHERE connamespace = 'public'::regnamespace")))
            out["pg_indexes"] = sorted(tuple(r) for r in conn.execute(text(
                "SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'public'")))
            out["pg_sequences"] = sorted(tuple(r) for r in conn.execute(text(
                "SELECT s.relname, t.relname FROM pg_class s JOIN pg_depend d ON d.objid = s.oid "
                "JOIN pg_class t ON t.oid = d.refobjid WHERE s.relkind = 'S'")))
    return out


def model_differences(store: Store) -> list[Any]:
    """What ``alembic revision --autogenerate`` would write: nothing when the models and
    the migrated schema agree."""
    with store.engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata))


def test_an_empty_database_upgrades_to_the_newest_schema(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    assert revision_of(store) == head_revision()
    names = set(inspect(store.engine).get_table_names())
    assert {"players", "tables", "table_seats", "table_events", "matches", "results", "analyses"} <= names
    assert not {"seats", "match_events", "table_matches"} & names
    assert model_differences(store) == []
    if store.engine.dialect.name == "postgresql":
        # No name of PostgreSQL's own is left from the old tables.
        schema = schema_of(store)
        own = [n for _, n, _ in schema["pg_constraints"]] + [n for _, n in schema["pg_indexes"]]
        own += [n for n, _ in schema["pg_sequences"]]
        assert not [n for n in own if "match_events" in n or "table_matches" in n or n.startswith(("seats", "ix_matches"))]
        assert ("tables_pkey" in own and "matches_pkey" in own and "table_events_id_seq" in own)
    store.close()


@pytest.mark.parametrize("earlier", ["0001", "0002", "0006"])
def test_a_database_with_data_of_an_earlier_schema_upgrades_and_its_tables_play_on(
    database_url: str, earlier: str, tmp_path: Path
) -> None:
    scratch = f"sqlite:///{tmp_path / 'scratch.sqlite3'}"
    shown = play_on_scratch(scratch)["shown"]
    store = Store(database_url)
    store.migrate(earlier)
    assert revision_of(store) == earlier
    counts = copy_rows(scratch, store, TABLES_AT[earlier])
    assert counts["matches"] == 3 and counts["match_events"] > 20
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
        row = store.load_table(going_id)
        assert row is not None
        await log.append(going_id, len(row["events"]), [{"op": "say", "seat": 0, "phrase": "agua"}], None, epoch=1)
        await tables.close()
        log.close()

    asyncio.run(reload())
    row = store.load_table(shown["going"][0])
    assert row is not None and row["events"][-1]["op"] == "say"
    store.close()


def test_a_database_at_0006_keeps_every_row_through_0007_and_back(database_url: str, tmp_path: Path) -> None:
    """Tables, seats, logs, matches, results, ratings, levels, achievements, stand-ins
    and analyses: every row, every column, is there after the rename (under the new
    names) and after its downgrade (under the old ones, the schema as it was); the code
    reads them as it read them on the database that wrote them."""
    scratch = f"sqlite:///{tmp_path / 'scratch.sqlite3'}"
    said = play_on_scratch(scratch)["said"]
    store = Store(database_url)
    store.migrate("0006")
    counts = copy_rows(scratch, store, TABLES_AT["0006"])
    assert all(counts[name] > 0 for name in TABLES_AT["0006"]), counts
    before = rows_of(store, TABLES_AT["0006"])
    schema_before = schema_of(store)

    store.migrate("0007")
    assert under_new_names(before) == rows_of(store, [OLD_NAMES.get(n, (n, {}))[0] for n in TABLES_AT["0006"]])
    # The models' schema but for what later revisions add (0008: the tables' leases; then new tables,
    # indexes and columns only: 0010's players.search_key).
    # 0011 moves players.token_hash to the players' devices.
    later = [(d[0], d[3].name if d[0] in ("add_column", "remove_column") else d[1].name) for d in model_differences(store)]
    assert {kind for kind, _ in later} <= {"add_table", "add_index", "add_column", "remove_column", "remove_index"}
    assert {d for d in later if d[0].startswith("remove")} == {("remove_column", "token_hash"), ("remove_index", "ix_players_token_hash")}
    assert ("add_table", "table_leases") in later
    assert standings.profile(store, said["ana"], said["ana"]) == said["profile"]
    assert standings.profile(store, said["beto"]) == said["beto_profile"]
    assert analyses.load(store, "t_guests", 1) == said["analyses"]
    assert tablelogs.match_records(store, "t_guests") == said["matches"]
    inputs = analyses.inputs(store, "t_guests", 1)
    assert inputs is not None and inputs.record == said["matches"][0]["record"] and len(inputs.entries) == 3
    assert analyses.table_known(store, "t_guests")
    # The rename's log keeps its fence: an entry number written twice is stale.
    stale = tablelogs.append_many(store, [tablelogs.Append("t_guests", 2, [{"op": "say", "seat": 0}])])
    assert isinstance(stale[0], tablelogs.StaleLog)

    downgrade(store, "0006")
    assert revision_of(store) == "0006"
    assert rows_of(store, TABLES_AT["0006"]) == before
    assert schema_of(store) == schema_before
    store.migrate()
    assert model_differences(store) == []
    after = rows_of(store, [OLD_NAMES.get(n, (n, {}))[0] for n in TABLES_AT["0006"]])
    # 0010 fills each player's search key from their nickname; every other column is as it was.
    assert all(p.pop("search_key") == search_key(p["nickname"]) for p in after["players"])
    # 0011 moves each player's token hash to a device of theirs.
    devices = {d["player_id"]: d["token_hash"] for d in rows_of(store, ["player_devices"])["player_devices"]}
    assert {p["id"]: p.pop("token_hash") for p in before["players"]} == devices
    assert under_new_names(before) == after
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
