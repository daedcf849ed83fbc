"""Issue 21 item 1, "Otra partida" by consent: the ready check of the next match
(the table core: who is ready, who is gone, what the host decides, back to the
lobby), and the standings of a match a stand-in played from its first move (not
its guest's: no results, rating, experience or achievement; the profile says it)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from standings_helpers import Table, find, seats

from capicua.standings.results import SeatAtTable, absent_from_start, match_bounds, match_results
from capicua.store import Store, standings
from capicua.store.models import (
    PlayerAchievementRow,
    PlayerLevelRow,
    RatingHistoryRow,
    RatingRow,
    ResultRow,
    StandInRow,
)

WIN = find(lambda r: r["result"]["winner"] == 0)


def _act(seat: int, by: str = "human") -> dict[str, Any]:
    return {"op": "action", "seat": seat, "action": {}, "by": by}


# ------------------------------------------------------------ who was there (pure)


def test_a_player_away_from_the_first_move_is_absent_and_a_late_reload_is_not() -> None:
    opening = {"op": "open"}
    # Beto (seat 1) closed the tab at the end of match 1; match 2 was dealt without him
    # and his stand-in made his first choice: absent. Carla (seat 2) reloaded as the
    # hand was dealt and was back for her own first choice: she played it.
    log = [opening, {"op": "start_hand", "present": [0, 1, 2]}, _act(0), _act(1), _act(2),
           {"op": "presence", "seat": 1, "online": False},
           {"op": "rematch"},
           {"op": "controller", "seat": 1, "to": "stand_in"},
           {"op": "presence", "seat": 2, "online": False},
           {"op": "start_hand", "present": [0]},
           _act(0), {"op": "presence", "seat": 2, "online": True}, _act(1, "stand_in"), _act(2),
           {"op": "presence", "seat": 0, "online": False}, _act(3, "bot")]
    assert match_bounds(log, 1) == (0, 6) and match_bounds(log, 2) == (6, len(log))
    assert absent_from_start(log, 1, [0, 1, 2]) == frozenset()
    assert absent_from_start(log, 2, [0, 1, 2]) == frozenset({1})
    # Ana (seat 0) was there at the first move and left later: she played it (a leaver, not absent).
    assert 0 not in absent_from_start(log, 2, [0, 1, 2])
    # Beto back before his own first choice: it is his match after all.
    back = [*log[:10], {"op": "presence", "seat": 1, "online": True}, *log[10:]]
    assert absent_from_start(back, 2, [0, 1, 2]) == frozenset()
    # A restart between the deal and the first move: nobody is connected until a hello says so.
    reopened = [*log[:10], {"op": "reopen"}, {"op": "presence", "seat": 0, "online": True}, *log[10:]]
    assert absent_from_start(reopened, 2, [0, 1, 2]) == frozenset({1})
    # No move made yet, or no word of presence in the log: nobody is absent.
    assert absent_from_start(log[:10], 2, [0, 1, 2]) == frozenset()
    assert absent_from_start([opening, _act(0), _act(1)], 1, [0, 1]) == frozenset()


def test_an_absent_seat_is_its_stand_in_in_the_results() -> None:
    at_table = [SeatAtTable(0, "human", "p_a", "medio"), SeatAtTable(1, "human", "p_b", "dificil"),
                SeatAtTable(2, "bot", None, "medio"), SeatAtTable(3, "bot", None, "experto")]
    rows = match_results(WIN, at_table, frozenset({1}), frozenset({1}))
    assert rows[0].player == "p_a" and rows[0].stood_in_for is None
    beto = rows[1]
    assert beto.player is None and beto.bot_level == "dificil" and beto.stood_in_for == "p_b"
    assert not beto.left_for_good  # nothing of the match is his, not even a loss


# ------------------------------------------------------------ the store


@pytest.fixture
def store(database_url: str) -> Any:
    s = Store(database_url)
    s.migrate()
    yield s
    s.close()


def _ratings(s: Any, player: str) -> list[tuple[str, int, float, float]]:
    rows = s.scalars(select(RatingRow).where(RatingRow.player_id == player).order_by(RatingRow.board))
    return [(r.board, r.matches, r.mu, r.sigma) for r in rows]


def test_a_match_played_for_an_absent_guest_is_not_theirs_and_the_profile_says_so(store: Store) -> None:
    ana, beto = store.create_player("Ana")[0], store.create_player("Beto")[0]
    t = Table(store, "t_consent", seats({0: ana, 1: beto}), private=True)
    t.log({"op": "start_hand", "present": [0, 1]})
    assert t.finish(WIN, _act(0), _act(1)) == [None]
    with store.sessions() as s:
        xp_before = s.get(PlayerLevelRow, beto).xp  # type: ignore[union-attr]
        ratings_before = _ratings(s, beto)
        assert ratings_before and all(matches == 1 for _, matches, _, _ in ratings_before)
    # Beto closed the tab; the host left his seat to the stand-in, who played it from the first move.
    t.log({"op": "presence", "seat": 1, "online": False})
    t.rematch()
    t.log({"op": "stand_in", "seat": 1}, {"op": "controller", "seat": 1, "to": "stand_in"},
          {"op": "start_hand", "present": [0]})
    assert t.finish(WIN, _act(0), _act(1, "stand_in")) == [None]
    with store.sessions() as s:
        second = {r.seat: r for r in s.scalars(select(ResultRow).where(ResultRow.table_id == "t_consent",
                                                                       ResultRow.match_number == 2))}
        assert second[0].player_id == ana and second[0].humans == 1
        assert second[1].player_id is None and second[1].bot_level == "botagorda" and not second[1].left_for_good
        assert s.scalar(select(ResultRow.id).where(ResultRow.player_id == beto, ResultRow.match_number == 2)) is None
        assert _ratings(s, beto) == ratings_before
        assert s.scalar(select(RatingHistoryRow.id).where(RatingHistoryRow.player_id == beto,
                                                          RatingHistoryRow.match_number == 2)) is None
        assert s.get(RatingRow, (ana, "friends")).matches == 1  # type: ignore[union-attr]  # one guest: not among friends
        assert s.get(PlayerLevelRow, beto).xp == xp_before  # type: ignore[union-attr]
        assert not list(s.scalars(select(PlayerAchievementRow).where(PlayerAchievementRow.player_id == beto,
                                                                    PlayerAchievementRow.match_number == 2)))
        kept = s.scalars(select(StandInRow)).all()
        assert [(r.table_id, r.match_number, r.seat, r.player_id, r.level) for r in kept] == [
            ("t_consent", 2, 1, beto, "botagorda")]
    assert standings.honours(store, "t_consent", 2) == [h for h in standings.honours(store, "t_consent", 2) if h["seat"] == 0]
    profile = standings.profile(store, beto)
    assert profile is not None
    assert profile["stats"]["matches"] == 1 and profile["stand_in_matches"] == 1
    assert [r["match"] for r in profile["recent"]] == [1]
    assert standings.profile(store, ana)["stand_in_matches"] == 0  # type: ignore[index]
