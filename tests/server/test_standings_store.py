"""Standings in the store: results rows written with a match's last log entry,
ratings, experience and achievements from them, the leaderboard and profile
queries, and the back-fill of migration 0003. Every test runs on each database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from standings_helpers import Table, at, find, play, seats

from capicua.standings.ratings import PROVISIONAL_MATCHES
from capicua.store import Store, standings, tablelogs
from capicua.store.models import (
    PlayerAchievementRow,
    RatingHistoryRow,
    RatingRow,
    ResultRow,
    TableEventRow,
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

    # The database failing while the standings are being written (the guest's rating
    # already in the transaction) fails the append whole: nothing of it stays.
    def broken(**row: Any) -> None:
        raise OperationalError("INSERT INTO rating_history", {}, Exception("disk I/O error"))

    monkeypatch.setattr(standings, "RatingHistoryRow", broken)
    with pytest.raises(OperationalError):
        t.finish(record)
    monkeypatch.undo()
    assert _results(store, "t_f") == []
    with store.sessions() as s:
        assert s.scalar(select(func.count()).select_from(TableEventRow).where(TableEventRow.table_id == "t_f")) == 1
        assert s.scalar(select(func.count()).select_from(RatingRow)) == 0
        assert s.scalar(select(func.count()).select_from(RatingHistoryRow)) == 0
        assert s.scalar(select(func.count()).select_from(PlayerAchievementRow)) == 0
    assert t.finish(record) == [None]
    assert len(_results(store, "t_f")) == 4


def test_a_fault_in_deciding_the_standings_never_fails_the_append(
    store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pid, _ = store.create_player("Ana")
    t = Table(store, "t_bug", seats({0: pid}))

    def bug(*args: Any) -> None:
        raise KeyError("result")

    monkeypatch.setattr(standings, "match_results", bug)
    assert t.finish(WIN) == [None]  # the match's end is stored; its standings are not
    assert _results(store, "t_bug") == []
    assert tablelogs.table_row(store, "t_bug")["status"] == "finished"  # type: ignore[index]
    assert "standings of match 1 of table t_bug are not written" in caplog.text


WIN = find(lambda r: r["result"]["winner"] == 0)
LOSS = find(lambda r: r["result"]["winner"] == 1)


def _play_matches(store: Store, monkeypatch: pytest.MonkeyPatch, table_id: str, pid: str, results: str,
                  day: int, levels: dict[int, str] | None = None) -> None:
    """``results`` ("WWL…") matches at one table, one guest against neighbours, on November ``day``."""
    monkeypatch.setattr(tablelogs, "_now", lambda: at(day))
    t = Table(store, table_id, seats({0: pid}, levels))
    for i, outcome in enumerate(results):
        if i:
            t.rematch()
        assert t.finish(WIN if outcome == "W" else LOSS) == [None]


def test_the_leaderboard_ranks_rated_players_by_score_with_period_filters(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = PROVISIONAL_MATCHES
    ana, beto, cuca, dino = (store.create_player(name)[0] for name in ("Ana", "Beto", "Cuca", "Dino"))
    _play_matches(store, monkeypatch, "t_ana", ana, "W" * (n - 2) + "LW", 28, {1: "experto", 3: "experto"})
    _play_matches(store, monkeypatch, "t_beto", beto, "WL" * (n // 2), 27)
    _play_matches(store, monkeypatch, "t_cuca", cuca, "WWW", 28)  # provisional: not ranked
    _play_matches(store, monkeypatch, "t_dino", dino, "W" * n, 1)  # a month ago
    now = at(29)
    board = standings.leaderboard(store, "neighbours", "all", None, now)
    assert board["min_matches"] == n and board["me"] is None
    rows = board["rows"]
    assert [r["player"] for r in rows][:1] == [ana] and {r["player"] for r in rows} == {ana, beto, dino}
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    with store.sessions() as s:
        stored = {r.player_id: r for r in s.scalars(select(RatingRow).where(RatingRow.board == "neighbours"))}
    for r in rows:
        assert r["score"] == round(stored[r["player"]].mu - 3 * stored[r["player"]].sigma, 1)
        assert r["level"]["number"] >= 1 and isinstance(r["level"]["name"], str)
    assert next(r for r in rows if r["player"] == ana)["won"] == n - 1
    assert next(r for r in rows if r["player"] == beto)["matches"] == n
    # This week: Dino played a month ago; Ana and Beto count the week's matches.
    week = standings.leaderboard(store, "neighbours", "week", None, now)["rows"]
    assert {r["player"] for r in week} == {ana, beto} and week[0]["player"] == ana
    month = standings.leaderboard(store, "neighbours", "month", None, at(30))["rows"]
    assert {r["player"] for r in month} == {ana, beto, dino}
    # Nobody played among friends.
    assert standings.leaderboard(store, "friends", "all", None, now)["rows"] == []
    # My own place: ranked, provisional, or ranked but idle this week.
    me = standings.leaderboard(store, "neighbours", "all", beto, now)["me"]
    assert me["rank"] == next(r["rank"] for r in rows if r["player"] == beto) and me["matches_needed"] == 0
    me = standings.leaderboard(store, "neighbours", "all", cuca, now)["me"]
    assert me["rank"] is None and me["matches"] == 3 and me["matches_needed"] == n - 3 and me["nickname"] == "Cuca"
    me = standings.leaderboard(store, "neighbours", "week", dino, now)["me"]
    assert me["rank"] is None and me["matches"] == 0 and me["matches_needed"] == 0
    me = standings.leaderboard(store, "friends", "all", ana, now)["me"]
    assert me["rank"] is None and me["matches"] == 0 and me["matches_needed"] == n and me["score"] == 0.0


def test_a_private_table_of_two_guests_feeds_the_friends_board_and_a_leaver_loses(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana, beto, cuca = (store.create_player(name)[0] for name in ("Ana", "Beto", "Cuca"))
    t = Table(store, "t_amigos", seats({0: ana, 1: beto, 2: cuca}), private=True)
    # Beto (team 1) played the first move, then dropped and the grace ran out; his team won all the same.
    t.log({"op": "start_hand", "present": [0, 1, 2]}, {"op": "action", "seat": 0, "action": {}, "by": "human"},
          {"op": "presence", "seat": 1, "online": False}, {"op": "timer", "name": "grace", "seat": 1},
          {"op": "controller", "seat": 1, "to": "stand_in"})
    assert t.finish(LOSS) == [None]
    rows = _results(store, "t_amigos")
    assert [r.left_for_good for r in rows] == [False, True, False, False]
    assert all(r.private and r.humans == 3 for r in rows)
    with store.sessions() as s:
        for pid in (ana, beto, cuca):
            assert s.get(RatingRow, (pid, "friends")) is not None
            # Nobody's rivals were all neighbours: not a match against the neighbours (issue 21).
            assert s.get(RatingRow, (pid, "neighbours")) is None
        beto_rating = s.get(RatingRow, (beto, "friends"))
        assert beto_rating is not None and beto_rating.mu < 25.0 and beto_rating.won == 0
        assert s.get(RatingRow, (ana, "friends")).mu < 25.0  # type: ignore[union-attr]
    profile = standings.profile(store, beto)
    assert profile is not None and profile["stats"]["won"] == 0 and profile["recent"][0]["won"] is False
    assert profile["level"]["xp"] == 0


def test_the_profile(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ana = store.create_player("Ana")[0]
    _play_matches(store, monkeypatch, "t_p", ana, "WLW", 20, {1: "experto", 3: "experto"})
    got = standings.profile(store, ana)
    assert got is not None
    assert set(got) == {"player", "nickname", "level", "ratings", "stats", "achievements", "to_earn", "recent",
                        "stand_in_matches"}
    assert got["stand_in_matches"] == 0
    assert got["nickname"] == "Ana" and set(got["level"]) == {"number", "name", "name_en", "xp", "level_xp", "next_xp"}
    assert got["level"]["level_xp"] <= got["level"]["xp"] < got["level"]["next_xp"]
    nb = got["ratings"]["neighbours"]
    assert nb["provisional"] and nb["matches"] == 3 and len(nb["history"]) == 3 and nb["history"][-1]["score"] == nb["score"]
    assert got["ratings"]["friends"] == {"score": 0.0, "provisional": True, "matches": 0, "history": []}
    hands = 2 * len(WIN["hands"]) + len(LOSS["hands"])
    assert got["stats"] | {"hands": 0} == {"matches": 3, "won": 2, "hands": 0, "hands_won": got["stats"]["hands_won"],
                                           "capicuas": got["stats"]["capicuas"], "pollonas": got["stats"]["pollonas"],
                                           "viajeras": got["stats"]["viajeras"], "favourite_preset": "cubano"}
    assert got["stats"]["hands"] == hands
    ids = [a["id"] for a in got["achievements"]]
    assert "primera_victoria" in ids and "contra_expertos" in ids and len(ids) == len(set(ids))
    assert all(set(a) == {"id", "name", "name_en", "description", "description_en", "at"} for a in got["achievements"])
    recent = got["recent"]
    assert [r["match"] for r in recent] == [3, 2, 1] and [r["won"] for r in recent] == [True, False, True]
    first = recent[-1]
    assert first["partners"] == ["B2"] and first["rivals"] == ["B1", "B3"] and first["seat"] == 0 and first["team"] == 0
    assert first["partner_players"] == [None] and first["rival_players"] == [None, None]  # neighbours: no profile
    assert first["scores"] == WIN["scores"] and first["replay"] == "/replay/t_p/1" and first["preset"] == "cubano"
    assert standings.profile(store, "p_nobody") is None


def test_honours_say_what_a_match_gave(store: Store) -> None:
    ana = store.create_player("Ana")[0]
    t = Table(store, "t_h", seats({0: ana}, {1: "experto", 3: "experto"}))
    assert standings.honours(store, "t_h", 1) == []
    t.finish(WIN)
    got = standings.honours(store, "t_h", 1)
    assert len(got) == 1 and got[0]["seat"] == 0
    assert got[0]["level_up"] == {"number": 1, "name": "Pichón", "name_en": "Fledgling"}
    assert {"id": "primera_victoria", "name": "Primera victoria", "name_en": "First win"} in got[0]["achievements"]
    t.rematch()
    t.finish(LOSS)  # a first win is won once
    again = standings.honours(store, "t_h", 2)
    assert all(a["id"] != "primera_victoria" for h in again for a in h["achievements"])


def test_migration_0003_back_fills_the_finished_matches_of_a_database_at_0002(database_url: str) -> None:
    """Rows as 0002 knew them (written directly: the append of today writes results),
    then ``upgrade head``: every finished match has its results, and what they give."""
    from datetime import datetime

    from sqlalchemy import JSON, DateTime, column, insert, table

    from capicua.table.log import Open

    # The tables under the names 0002 gave them (0007 renamed them).
    tables = table("matches", column("id"), column("preset"), column("options", JSON), column("seed"),
                   column("status"), column("scores", JSON), column("record", JSON),
                   column("created_at", DateTime), column("updated_at", DateTime))
    seats_of = table("seats", column("match_id"), column("seat"), column("kind"), column("player_id"),
                     column("name"), column("level"), column("character"))
    log = table("match_events", column("match_id"), column("seq"), column("data", JSON),
                column("created_at", DateTime))
    matches = table("table_matches", column("table_id"), column("number"), column("status"),
                    column("scores", JSON), column("record", JSON), column("created_at", DateTime),
                    column("updated_at", DateTime))

    old = Store(database_url)
    old.migrate("0002")
    # The players as 0002 knew them (today's create_player writes columns and tables of later revisions).
    players = table("players", column("id"), column("nickname"), column("token_hash"), column("created_at", DateTime))
    ana, beto = "p_00000000000000a0", "p_00000000000000b0"
    with old.engine.begin() as conn:
        conn.execute(insert(players), [{"id": pid, "nickname": name, "token_hash": pid * 3, "created_at": datetime(2026, 11, 1)}
                                       for pid, name in ((ana, "Ana"), (beto, "Beto"))])
    entries = [Open("t_old", "cubano", {}, "sec", tuple(seats({0: ana, 2: beto})), True, ana).to_json(),
               {"op": "start", "at": 1},
               {"op": "controller", "seat": 2, "to": "stand_in", "at": 2},  # Beto left during match 1
               {"op": "rematch", "at": 3},
               {"op": "controller", "seat": 2, "to": "human", "at": 4}]  # ... and was back for match 2
    now = datetime(2026, 11, 20)
    with old.engine.begin() as conn:
        conn.execute(insert(tables).values(id="t_old", preset="cubano", options={}, seed="seed", status="playing",
                                           scores=[0, 0], record=None, created_at=now, updated_at=now))
        for e in entries[0]["seats"]:
            conn.execute(insert(seats_of).values(match_id="t_old", seat=e["seat"], kind=e["kind"],
                                                 player_id=e.get("player"), name=e["name"], level=e.get("level"),
                                                 character=e.get("character")))
        for i, e in enumerate(entries):
            conn.execute(insert(log).values(match_id="t_old", seq=i + 1, data=e, created_at=now))
        conn.execute(insert(matches).values(table_id="t_old", number=1, status="finished", scores=WIN["scores"],
                                            record=WIN, created_at=now, updated_at=datetime(2026, 11, 20, 10)))
        conn.execute(insert(matches).values(table_id="t_old", number=2, status="finished", scores=LOSS["scores"],
                                            record=LOSS, created_at=now, updated_at=datetime(2026, 11, 20, 11)))
        conn.execute(insert(matches).values(table_id="t_old", number=3, status="playing", scores=[0, 0],
                                            record=None, created_at=now, updated_at=now))
    old.close()
    store = Store(database_url)
    store.migrate()
    rows = _results(store, "t_old")
    store.close()
    assert [(r.match_number, r.seat) for r in rows] == [(m, s) for m in (1, 2) for s in range(4)]
    first, second = rows[:4], rows[4:]
    assert [r.left_for_good for r in first] == [False, False, True, False]
    assert not any(r.left_for_good for r in second)
    assert all(r.private and r.humans == 2 for r in rows)
    assert first[0].won and not second[0].won and first[0].points == WIN["scores"][0]
    assert first[0].finished_at == datetime(2026, 11, 20, 10)
    store = Store(database_url)
    with store.sessions() as s:
        assert s.get(RatingRow, (ana, "friends")).matches == 2  # type: ignore[union-attr]
        history = s.scalars(select(RatingHistoryRow.match_number).where(
            RatingHistoryRow.player_id == beto, RatingHistoryRow.board == "neighbours").order_by(RatingHistoryRow.at)).all()
        assert list(history) == [1, 2]
    got = standings.profile(store, ana)
    assert got is not None and got["stats"]["matches"] == 2 and got["level"]["xp"] > 0
    store.close()


def test_bench_standings_runs_on_a_small_database(capsys: pytest.CaptureFixture[str]) -> None:
    from capicua.cli import main

    assert main(["bench-standings", "--rows", "400", "--players", "20", "--repeat", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"]["results"] == 400 and report["rows"]["ratings"] > 0
    assert [r["query"] for r in report["runs"]][0].startswith("baseline")
    assert len(report["runs"]) == 9 and all(r["p50_ms"] > 0 for r in report["runs"])
