"""Standings in the store: results rows written with a match's last log entry,
ratings, experience and achievements from them, the leaderboard and profile
queries, and the back-fill of migration 0003. Every test runs on each database."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select
from standings_helpers import Table, find, play, seats

from capicua.store import Store, standings, tablelogs
from capicua.store.models import (
    MatchEvent,
    PlayerAchievementRow,
    RatingHistoryRow,
    RatingRow,
    ResultRow,
)

pytestmark = pytest.mark.xdist_group("store")


@pytest.fixture
def store(database_url: str) -> Any:
    s = Store(database_url)
    s.migrate()
    yield s
    s.close()


def _results(store: Store, table_id: str) -> list[ResultRow]:
    with store.sessions() as s:
        return list(s.scalars(select(ResultRow).where(ResultRow.table_id == table_id).order_by(ResultRow.match_number, ResultRow.seat)))


def test_a_finished_match_writes_one_results_row_per_seat(store: Store) -> None:
    pid, _ = store.create_player("Ana")
    record = find(lambda r: r["result"]["winner"] == 0 and any(h["result"]["capicua"] and h["result"]["seat"] == 0 for h in r["hands"]))
    t = Table(store, "t_a", seats({0: pid}, {1: "experto", 2: "medio", 3: "experto"}))
    assert t.finish(record) == [None]
    rows = _results(store, "t_a")
    assert [r.seat for r in rows] == [0, 1, 2, 3]
    me = rows[0]
    assert me.player_id == pid and me.bot_level is None and me.team == 0 and me.won
    assert me.points == record["scores"][0] and rows[1].points == record["scores"][1]
    assert [r.bot_level for r in rows[1:]] == ["experto", "medio", "experto"]
    assert me.capicuas >= 1 and me.hands_played == len(record["hands"])
    assert me.hands_won + rows[1].hands_won <= me.hands_played
    assert not me.private and me.humans == 1 and me.preset == "cubano" and not me.left_for_good
    assert me.xp > 0 and me.level_before == 0
    with store.sessions() as s:
        rating = s.get(RatingRow, (pid, "neighbours"))
        assert rating is not None and rating.matches == 1 and rating.won == 1
        assert s.get(RatingRow, (pid, "friends")) is None  # one guest: not a match among friends
        assert s.scalar(select(func.count()).select_from(RatingHistoryRow)) == 1
        got = set(s.scalars(select(PlayerAchievementRow.achievement).where(PlayerAchievementRow.player_id == pid)))
    assert {"primera_victoria", "primera_capicua", "contra_expertos"} <= got
    # The same match finishing again (a table reloaded from its log) writes nothing more.
    t.finish(record)
    assert len(_results(store, "t_a")) == 4


def test_an_append_that_fails_writes_no_results(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    pid, _ = store.create_player("Ana")
    record = play("fail")
    t = Table(store, "t_f", seats({0: pid}))
    # A stale append (its entry number is written already) fails whole: no results.
    stale = tablelogs.Append("t_f", 1, [{"op": "ready", "seat": 0}], status="finished",
                             scores=record["scores"], match_number=1, record=record)
    assert isinstance(tablelogs.append_many(store, [stale])[0], tablelogs.StaleLog)
    assert _results(store, "t_f") == []

    # A failure after the results were written in the transaction rolls them back with the entry.
    def broken(*args: Any) -> None:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(standings, "_levels", broken)
    with pytest.raises(RuntimeError):
        t.finish(record)
    assert _results(store, "t_f") == []
    with store.sessions() as s:
        assert s.scalar(select(func.count()).select_from(MatchEvent).where(MatchEvent.match_id == "t_f")) == 1
        assert s.scalar(select(func.count()).select_from(RatingRow)) == 0
    monkeypatch.undo()
    assert t.finish(record) == [None]
    assert len(_results(store, "t_f")) == 4
