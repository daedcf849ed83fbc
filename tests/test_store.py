"""The store: Alembic migrations, players and tokens, the append-only log,
and rebuilding a table from it (in-process; the real restart is in
test_server_restart.py)."""

from __future__ import annotations

import asyncio
import hashlib
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError

from capicua.engine import Match, make_rules
from capicua.server.tables import Seat, TableManager
from capicua.store import Store, token_hash
from capicua.verify import verify_deal

pytestmark = pytest.mark.xdist_group("store")


def test_migrations_make_the_schema_and_are_idempotent(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    store.migrate()
    store.migrate()
    names = set(inspect(store.engine).get_table_names())
    assert {"players", "matches", "seats", "match_events", "alembic_version"} <= names
    cols = {c["name"] for c in inspect(store.engine).get_columns("match_events")}
    assert {"match_id", "seq", "data", "created_at"} <= cols
    store.close()


def test_players_tokens_and_the_append_only_log(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    store.migrate()
    pid, token = store.create_player("Ana")
    found = store.player_by_token(token)
    assert found is not None and found["id"] == pid and found["token_hash"] == token_hash(token)
    assert store.player_by_token("wrong") is None
    store.create_match("t_1", "cubano", {"target": 50}, "seed", 2, [
        {"seat": 0, "kind": "human", "player_id": pid, "name": "Ana"},
        {"seat": 1, "kind": "bot", "name": "Cuca", "level": "medio", "character": "cuca"},
    ])
    store.append_events("t_1", 1, [{"op": "start_hand", "present": [0]}, {"op": "action", "seat": 1}])
    with pytest.raises(IntegrityError):  # a log position is written once
        store.append_events("t_1", 2, [{"op": "action", "seat": 2}])
    row = store.load_match("t_1")
    assert row is not None
    assert row["events"] == [{"op": "start_hand", "present": [0]}, {"op": "action", "seat": 1}]
    assert row["seats"][0]["token_hash"] == token_hash(token) and row["options"] == {"target": 50}
    assert store.active_match_ids() == ["t_1"]
    store.update_match("t_1", status="finished", scores=[50, 3], record={"x": 1})
    assert store.active_match_ids() == []
    assert store.load_match("t_1")["record"] == {"x": 1}
    store.close()


def test_a_table_rebuilt_from_the_store_is_the_same_table(tmp_path: Path, bot_pool: Any) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite3'}"

    async def main() -> None:
        from concurrent.futures import ThreadPoolExecutor

        store = Store(url)
        store.migrate()
        ex = ThreadPoolExecutor(1)
        manager = TableManager(store, bot_pool, (0.0, 0.0), ex)
        seats = [Seat(s, "human", f"H{s}", token_hash=hashlib.sha256(f"t{s}".encode()).hexdigest()) for s in (0, 2)]
        seats = [seats[0], Seat(1, "bot", "Cuca", level="random", character="cuca"), seats[1],
                 Seat(3, "bot", "Mima", level="random", character="mima")]
        table = await manager.create("cubano", {"target": 50}, seats, seed="rebuild-me")
        from capicua.server.tables import Conn

        conns = {s: Conn() for s in (0, 2)}
        for s, c in conns.items():
            table.post("join", c, s, 0)
        rng = random.Random(5)
        # Humans play random legal moves for a while (two hands and a bit).
        for _ in range(400):
            await table.call(lambda t: None)
            m = table.match
            if m.phase == "match_over":
                break
            if m.phase == "hand_over":
                for c in conns.values():
                    table.post("intent", c, {"type": "next_hand", "seq": table.seq})
                continue
            if m.turn in conns and len(m.hands) >= 3 and len(m.hand.actions) > 6:
                break
            if m.turn in conns:
                mv = rng.choice(m.legal_moves()).to_json()
                table.post("intent", conns[m.turn], {"type": "play", "seq": table.seq, **mv})
        await table.call(lambda t: None)
        views = {s: table.match.view(s) for s in range(4)}
        record, seq = table.match.record(), table.seq
        await manager.close()
        # A new manager on the same database: the table comes back as it was.
        manager2 = TableManager(store, bot_pool, (0.0, 0.0), ex)
        restored = await manager2.restore_active()
        assert table.id in restored
        t2 = await manager2.get(table.id)
        assert t2 is not None
        assert t2.seq == seq and t2.match.record() == record
        assert {s: t2.match.view(s) for s in range(4)} == views
        assert t2.seat_for_token("t2") == 2 and t2.seat_for_token("t1") is None
        await manager2.close()
        ex.shutdown()
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
