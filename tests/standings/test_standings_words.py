"""The standings say what their names say (issue 21, item 7), in the store:
"contra los vecinos" rates only the matches a guest played against neighbours
(not a match among friends, whoever sat beside them); the score shown never goes
below 0 (a beginner saw "−2.1" after two defeats); the profile lists the
achievements still to earn, each with how to earn it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from standings_helpers import Table, find, seats
from test_standings_store import LOSS, WIN

from capicua.standings import achievements as ach
from capicua.standings.ratings import NEW_RATING, against_neighbours, rate_board, rate_match
from capicua.standings.results import SeatResult
from capicua.store import Store, standings
from capicua.store.models import RatingHistoryRow, RatingRow, ResultRow


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    s.migrate()
    yield s
    s.close()


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def boards(store: Store, pid: str) -> set[str]:
    with store.sessions() as s:
        return set(s.scalars(select(RatingRow.board).where(RatingRow.player_id == pid)))


def history(store: Store, pid: str, board: str) -> int:
    with store.sessions() as s:
        return len(s.scalars(select(RatingHistoryRow.id).where(RatingHistoryRow.player_id == pid,
                                                               RatingHistoryRow.board == board)).all())


def test_against_the_neighbours_counts_only_matches_against_neighbours(store: Store) -> None:
    ana, beto, cuca, dani, eli, fito = (store.create_player(n)[0] for n in ("Ana", "Beto", "Cuca", "Dani", "Eli", "Fito"))
    # Four friends at a private table, no neighbour anywhere: a match among friends only.
    assert Table(store, "t_four", seats({0: ana, 1: beto, 2: cuca, 3: dani}), private=True).finish(WIN) == [None]
    for pid in (ana, beto, cuca, dani):
        assert boards(store, pid) == {"friends"}, pid
    # Two friends against two neighbours: against the neighbours, and among friends.
    assert Table(store, "t_pair", seats({0: eli, 2: fito}), private=True).finish(WIN) == [None]
    assert boards(store, eli) == boards(store, fito) == {"neighbours", "friends"}
    # Three friends, one neighbour: Ana's side (Ana and a neighbour) played against two friends,
    # Beto and Cuca against Ana and the neighbour: nobody's rivals were all neighbours.
    before = {pid: history(store, pid, "neighbours") for pid in (ana, beto, cuca)}
    assert Table(store, "t_three", seats({0: ana, 1: beto, 3: cuca}), private=True).finish(LOSS) == [None]
    assert {pid: history(store, pid, "neighbours") for pid in (ana, beto, cuca)} == before
    assert all(history(store, pid, "friends") == 2 for pid in (ana, beto, cuca))
    # A guest alone with the neighbours, as ever.
    assert Table(store, "t_solo", seats({0: dani})).finish(WIN) == [None]
    assert history(store, dani, "neighbours") == 1
    board = standings.leaderboard(store, "neighbours", "all", ana, _now())
    assert board["me"]["matches"] == 0 and board["me"]["matches_needed"] == board["min_matches"]


def _row(seat: int, team: int, player: str | None) -> SeatResult:
    return SeatResult(seat=seat, player=player, bot_level=None if player else "medio", team=team, points=0, won=team == 0,
                      pollona=False, viajera=False, capicuas=0, dominoes=0, top_double_out=0, tranques_won=0,
                      hands_won=0, hands_lost=0, hands_played=1, left_for_good=False)


def test_who_played_against_the_neighbours() -> None:
    mixed = [_row(0, 0, "p_a"), _row(1, 1, "p_b"), _row(2, 0, None), _row(3, 1, None)]
    assert [against_neighbours(r, mixed) for r in mixed[:2]] == [False, False]
    alone = [_row(0, 0, "p_a"), _row(1, 1, None), _row(2, 0, "p_c"), _row(3, 1, None)]
    assert set(rate_board("neighbours", alone, {})) == {"p_a", "p_c"}
    assert set(rate_board("neighbours", mixed, {})) == set() and set(rate_board("friends", mixed, {})) == {"p_a", "p_b"}


def test_a_beginners_shown_score_never_goes_below_zero(store: Store) -> None:
    ana = store.create_player("Ana")[0]
    assert NEW_RATING.score == pytest.approx(0.0)
    Table(store, "t_lost", seats({0: ana}, {1: "experto", 3: "experto"})).finish(LOSS)
    with store.sessions() as s:
        raw = s.get(RatingRow, (ana, "neighbours"))
        assert raw is not None and raw.score < 0  # μ − 3σ after a first defeat: what used to be shown
    got = standings.profile(store, ana)
    assert got is not None
    nb = got["ratings"]["neighbours"]
    assert nb["score"] == 0.0 and nb["provisional"] and [p["score"] for p in nb["history"]] == [0.0]
    me = standings.leaderboard(store, "neighbours", "all", ana, _now())["me"]
    assert me["score"] == 0.0


def test_the_profile_lists_the_achievements_still_to_earn(store: Store) -> None:
    ana = store.create_player("Ana")[0]
    fresh = standings.profile(store, ana)
    assert fresh is not None and fresh["achievements"] == []
    assert [a["id"] for a in fresh["to_earn"]] == [a.id for a in ach.CATALOGUE]
    assert all(set(a) == {"id", "name", "name_en", "goal", "goal_en"} for a in fresh["to_earn"])
    assert fresh["to_earn"][0] == {"id": "primera_victoria", "name": "Primera victoria", "name_en": "First win",
                                   "goal": "Gana una partida.", "goal_en": "Win a match."}
    capicua_win = find(lambda r: r["result"]["winner"] == 0 and any(
        h["result"].get("capicua") and h["result"].get("seat") == 0 for h in r["hands"]))
    Table(store, "t_won", seats({0: ana}, {1: "experto", 3: "experto"})).finish(capicua_win)
    got = standings.profile(store, ana)
    assert got is not None
    have = [a["id"] for a in got["achievements"]]
    assert "primera_victoria" in have and "primera_capicua" in have
    left = [a["id"] for a in got["to_earn"]]
    assert not set(have) & set(left)
    assert left == [a.id for a in ach.CATALOGUE if a.id not in have]  # the catalogue's order


def test_migration_0006_rates_the_neighbours_board_again(tmp_path: Path) -> None:
    """A database whose neighbours' board was written by the old rule (a match among friends
    on it): ``upgrade head`` rebuilds that board from the results, the friends' board stays.
    The rows are written by today's code, then the schema goes down to 0005."""
    from alembic_helpers import downgrade

    store = Store(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    try:
        store.migrate()
        ana, beto, cuca, dani = (store.create_player(n)[0] for n in ("Ana", "Beto", "Cuca", "Dani"))
        assert Table(store, "t_friends", seats({0: ana, 1: beto, 2: cuca, 3: dani}), private=True).finish(WIN) == [None]
        with store.sessions.begin() as s:  # what the old rule wrote besides: the same match on the neighbours' board
            rows = s.scalars(select(ResultRow).where(ResultRow.table_id == "t_friends").order_by(ResultRow.seat)).all()
            for pid, new in rate_match([standings._as_seat_result(r) for r in rows], {}).items():
                won = next(r.won for r in rows if r.player_id == pid)
                s.add(RatingRow(player_id=pid, board="neighbours", mu=new.mu, sigma=new.sigma, score=new.score,
                                matches=1, won=int(won), updated_at=rows[0].finished_at))
                s.add(RatingHistoryRow(player_id=pid, board="neighbours", table_id="t_friends", match_number=1,
                                       at=rows[0].finished_at, mu=new.mu, sigma=new.sigma, score=new.score, won=won))
        assert Table(store, "t_solo", seats({0: ana}, {1: "experto", 3: "experto"})).finish(LOSS) == [None]
        with store.sessions() as s:
            assert s.get(RatingRow, (ana, "neighbours")).matches == 2  # type: ignore[union-attr]
            friends_before = {pid: s.get(RatingRow, (pid, "friends")).mu for pid in (ana, beto, cuca, dani)}  # type: ignore[union-attr]
            solo = [standings._as_seat_result(r) for r in s.scalars(
                select(ResultRow).where(ResultRow.table_id == "t_solo").order_by(ResultRow.seat))]

        downgrade(store, "0005")
        store.migrate()
        with store.sessions() as s:
            mine = s.get(RatingRow, (ana, "neighbours"))
            assert mine is not None and mine.matches == 1 and mine.won == 0
            assert mine.mu == pytest.approx(rate_match(solo, {})[ana].mu)  # as if the friends' match never counted
            assert history(store, ana, "neighbours") == 1
            for pid in (beto, cuca, dani):
                assert s.get(RatingRow, (pid, "neighbours")) is None and history(store, pid, "neighbours") == 0
            assert {pid: s.get(RatingRow, (pid, "friends")).mu for pid in friends_before} == friends_before  # type: ignore[union-attr]
    finally:
        store.close()
