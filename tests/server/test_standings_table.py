"""At the table: a finished match's results are in the store, and each guest it
gave a level or an achievement is told with an ``honours`` frame."""

from __future__ import annotations

from typing import Any

from conftest import drive
from sqlalchemy import select

from capicua.store import Store
from capicua.store.models import ResultRow


def _has_event(frame: dict[str, Any], kind: str) -> bool:
    return frame.get("type") == "events" and any(e["event"]["kind"] == kind for e in frame["events"])


def test_a_finished_match_is_announced_with_the_guests_honours(live_server: Any) -> None:
    srv = live_server()
    t = srv.new_table(options={"target": 50})
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    drive(c, lambda f: _has_event(f, "match_end"))
    honours = c.until(lambda f: f["type"] == "honours")
    assert honours["seat"] == 0
    # A first match, won or lost, makes an onlooker a fledgling.
    assert honours["level_up"] == {"number": 1, "name": "Pichón", "name_en": "Fledgling"}
    assert all(set(a) == {"id", "name", "name_en"} for a in honours["achievements"])
    c.close()
    store = Store(srv.database_url)
    with store.sessions() as s:
        rows = s.scalars(select(ResultRow).where(ResultRow.table_id == t["table_id"]).order_by(ResultRow.seat)).all()
    store.close()
    assert [r.seat for r in rows] == [0, 1, 2, 3] and rows[0].player_id is not None
    assert all(r.player_id is None and r.bot_level for r in rows[1:])
    print("honours", honours)
