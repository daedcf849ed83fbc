"""The store: Alembic migrations, players and tokens, the append-only log,
and rebuilding a table from it (in-process; the real restart is in
test_server_restart.py)."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import inspect

from capicua.engine import Match, make_rules
from capicua.store import Store, devices
from capicua.table.fairness import verify_deal

pytestmark = pytest.mark.xdist_group("store")


def test_migrations_make_the_schema_and_are_idempotent(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    store.migrate()
    names = set(inspect(store.engine).get_table_names())
    assert {"players", "tables", "table_seats", "table_events", "matches", "alembic_version"} <= names
    cols = {c["name"] for c in inspect(store.engine).get_columns("table_events")}
    assert {"table_id", "seq", "data", "created_at"} <= cols
    store.close()


def test_players_tokens_and_the_fenced_log(database_url: str) -> None:
    from capicua.store import tablelogs
    from capicua.table.log import Open

    store = Store(database_url)
    store.migrate()
    pid, token = store.create_player("Ana")
    found = devices.player_by_token(store, token, datetime(2026, 1, 1))
    assert found is not None and found["id"] == pid and found["nickname"] == "Ana"
    assert devices.player_by_token(store, "wrong", datetime(2026, 1, 1)) is None
    seats = [{"seat": 0, "kind": "human", "name": "Ana", "player": pid},
             *({"seat": s, "kind": "bot", "name": n, "level": "medio", "character": n.lower()}
               for s, n in ((1, "Cuca"), (2, "Pancho"), (3, "Yoli")))]
    tablelogs.create_table(store, Open("t_1", "cubano", {"target": 50}, "sec", tuple(seats)).to_json(), "seed", 2)
    a = tablelogs.Append("t_1", 2, [{"op": "start_hand", "present": [0]}, {"op": "action", "seat": 1}])
    assert tablelogs.append_many(store, [a]) == [None]
    # A log position is written once: a stale append fails, alone, and writes nothing.
    stale = tablelogs.Append("t_1", 3, [{"op": "action", "seat": 2}])
    fresh = tablelogs.Append("t_1", 4, [{"op": "ready", "seat": 0}], status="finished", scores=[50, 3])
    got = tablelogs.append_many(store, [stale, fresh])
    assert isinstance(got[0], tablelogs.StaleLog) and got[1] is None
    row = store.load_table("t_1")
    assert row is not None
    assert [e["op"] for e in row["events"]] == ["open", "start_hand", "action", "ready"]
    assert row["seats"][0]["player_id"] == pid and row["options"] == {"target": 50}
    info = tablelogs.table_row(store, "t_1")
    assert info is not None and info["status"] == "finished" and info["scores"] == [50, 3]
    store.close()


def test_a_table_loaded_from_the_store_is_the_same_table(database_url: str, bot_pool: Any) -> None:
    from sockets_at import hello

    from capicua.server.adapters.botpool import PoolBots
    from capicua.server.adapters.memory import LocalBus, LoopClock
    from capicua.server.adapters.sql import StoreLog
    from capicua.server.registry import Tables
    from capicua.table import protocol
    from capicua.table.protocol import FromConn

    async def main() -> None:
        store = Store(database_url)
        store.migrate()
        log = StoreLog(store)
        tables = Tables(log, LocalBus(), LoopClock(), PoolBots(bot_pool, (0.0, 0.0)))
        players = {s: store.create_player(f"H{s}")[0] for s in (0, 1, 2)}
        seats = [{"seat": s, "kind": "human", "name": f"H{s}", "player": players[s], "level": "random",
                  "character": c} for s, c in ((0, "fefa"), (2, "chucho"))]
        seats = [seats[0], {"seat": 1, "kind": "bot", "name": "Cuca", "level": "random", "character": "cuca"},
                 seats[1], {"seat": 3, "kind": "bot", "name": "Mima", "level": "random", "character": "mima"}]
        shell = await tables.open("cubano", {"target": 50}, seats, seed="rebuild-me")
        conns = {0: "h0", 2: "h2"}
        for s, c in conns.items():
            hello(tables, shell.id, c, lambda text: None, players[s], f"H{s}")
        rng = random.Random(5)

        async def settle() -> None:
            for _ in range(2000):
                await asyncio.sleep(0.005)
                core = shell.core
                if shell.inbox.empty() and not shell._bot_tasks and (core.match.turn in conns or core.match.phase != "play"):
                    return

        # The players play random legal moves for a while (two hands and a bit).
        for _ in range(400):
            await settle()
            m = shell.core.match
            if m.phase == "match_over":
                break
            if m.phase == "hand_over":
                for c in conns.values():
                    shell.post(FromConn(c, protocol.NextHand(shell.core.seq)))
                continue
            if m.turn in conns and len(m.hands) >= 3 and len(m.hand.actions) > 6:
                break
            if m.turn in conns:
                mv = rng.choice(m.legal_moves()).to_json()
                intent = protocol.parse_intent(__import__("json").dumps({"type": "play", "seq": shell.core.seq, **mv}))
                shell.post(FromConn(conns[m.turn], intent))
        await settle()
        views = {s: shell.core.view(s) for s in range(4)}
        summary, seq = shell.core.summary(), shell.core.seq
        await tables.close()
        # New tables on the same database: the table comes back as it was.
        tables2 = Tables(log, LocalBus(), LoopClock(), PoolBots(bot_pool, (0.0, 0.0)))
        again = await tables2.get(shell.id)
        assert again is not None
        await asyncio.sleep(0.05)
        assert again.core.seq == seq and again.core.match.record() == shell.core.match.record()
        assert {s: again.core.view(s) for s in range(4)} == views
        assert again.core.seat_of(players[2]) == 2 and again.core.seat_of(players[1]) is None
        assert [s["connected"] for s in again.core.summary()["seats"][::2]] == [False, False]
        assert {k: v for k, v in summary.items() if k not in ("seats", "updated_at")} == {
            k: v for k, v in again.core.summary().items() if k not in ("seats", "updated_at")}
        await tables2.close()
        log.close()
        store.close()

    asyncio.run(main())


def test_verify_deal_recomputes_every_deal() -> None:
    for preset in ("cubano", "la-plaza", "block", "draw", "all-fives", "double-nine-cross"):
        for i in range(40):
            m = Match(make_rules(preset), f"v{i}")
            m.start_hand()
            hand = m.hand
            assert hand is not None
            got = verify_deal(preset, hand.seed)
            assert got["hands"] == hand.deals[-1]["hands"], (preset, i)
            assert got["sleeping"] == hand.deals[-1]["sleeping"]
            assert got["voided"] == [{"reason": v["reason"], "seat": v["seat"]} for v in hand.voided]
            assert got["seed_hash"] == hand.seed_hash
    # A different seed gives a different deal.
    assert verify_deal("cubano", "a")["hands"] != verify_deal("cubano", "b")["hands"]


def test_json_datetimes_and_ids_come_back_the_same_on_every_database(database_url: str) -> None:
    """What the store keeps comes back as it went in, on SQLite as on PostgreSQL: JSON
    (unicode, nesting, big integers, floats, null, key order), naive UTC datetimes to
    the microsecond, and log row ids that grow in the order the rows were written."""
    from datetime import datetime

    from sqlalchemy import select

    from capicua.store import iso_utc
    from capicua.store.models import TableEventRow, TableRow

    store = Store(database_url)
    store.migrate()
    at = datetime(2026, 12, 1, 12, 34, 56, 789012)
    record = {"zeta": 1, "alpha": [1, [2, [3]]], "name": "Capicúa ñ «ya» 🁣", "big": 2**53 + 1,
              "half": 0.5, "none": None, "yes": True, "empty": {}}
    with store.sessions.begin() as s:
        s.add(TableRow(id="t_json", preset="cubano", options={"target": 100, "pase": "pasa"}, seed="s",
                       status="finished", scores=[100, 37], record=record, created_at=at, updated_at=at))
        s.flush()
        for seq in (1, 2, 3):
            s.add(TableEventRow(table_id="t_json", seq=seq, data={"op": "say", "n": seq}, created_at=at))
    with store.sessions() as s:
        row = s.get(TableRow, "t_json")
        assert row is not None
        assert row.record == record and list(row.record or {}) == list(record)
        assert row.options == {"target": 100, "pase": "pasa"} and row.scores == [100, 37]
        assert row.created_at == at and iso_utc(row.created_at) == "2026-12-01T12:34:56.789012+00:00"
        events = s.scalars(select(TableEventRow).where(TableEventRow.table_id == "t_json").order_by(TableEventRow.id)).all()
        assert [e.seq for e in events] == [1, 2, 3] and events[0].id < events[1].id < events[2].id
    store.close()
