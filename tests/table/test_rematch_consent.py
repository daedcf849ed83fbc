"""Issue 21 item 1, "Otra partida" by consent: the ready check of the next match
(the table core: who is ready, who is gone, what the host decides, back to the
lobby), and the standings of a match a stand-in played from its first move (not
its guest's: no results, rating, experience or achievement; the profile says it)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from sqlalchemy import select
from standings_helpers import Table, find, seats
from tablesim import Sim, bot, human, replayed
from test_table_core import audience_frames, refused

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
from capicua.table import protocol
from capicua.table.log import Open, read_log
from capicua.table.protocol import Code, ProtocolError

WIN = find(lambda r: r["result"]["winner"] == 0)


def _act(seat: int, by: str = "human") -> dict[str, Any]:
    return {"op": "action", "seat": seat, "action": {}, "by": by}


# ------------------------------------------------------------ the ready check (the table core)

FRIENDS = [human(0, "Ana", "p_ana", "cuca"), human(1, "Beto", "p_beto", "yoli"), human(2, "Carla", "p_carla", "fefa"),
           bot(3, "Pancho", "pancho")]
CONNS = {0: 10, 1: 11, 2: 12}
AWAY_MS = 5_001  # past CoreConfig.presence_debounce_ms: a closed tab is a player gone


def friends_after_a_match(turn_timer: int = 0) -> Sim:
    """Ana (the host), Beto and Carla with a neighbour at a private table, match 1 played out."""
    sim = Sim(seats=copy.deepcopy(FRIENDS), private=True, host="p_ana", options={"target": 50}, turn_timer=turn_timer)
    for seat, conn in CONNS.items():
        sim.join(conn, FRIENDS[seat]["player"], FRIENDS[seat]["name"])
    sim.intent(10, protocol.Start())
    for _ in range(80):
        sim.play_out_hand(CONNS)
        if sim.core.match.phase == "match_over":
            assert sim.core.status == "finished" and sim.core.ready == set()
            return sim
        for conn in CONNS.values():
            sim.intent(conn, protocol.NextHand(sim.core.seq))
    raise AssertionError("the match never ended")


def rematch_shown(sim: Sim) -> dict[str, Any] | None:
    """TABLE's ready check as the last table frame to everyone showed it."""
    last = [f for a, f in sim.frames if a == "all" and f["type"] == "table"][-1]
    shown: dict[str, Any] | None = last["table"]["rematch"]
    return shown


def ops(out: Any) -> list[str]:
    return [e.op for e in out.entries]


def test_otra_partida_waits_for_every_player_here_and_says_who_is_ready() -> None:
    sim = friends_after_a_match()
    assert rematch_shown(sim) == {"players": [0, 1, 2], "ready": [], "gone": [], "stand_in": [], "deciders": [0]}
    assert ops(sim.intent(11, protocol.Rematch())) == ["ready"]  # Beto: ready, nothing starts
    assert sim.core.status == "finished" and sim.core.match_number == 1
    assert rematch_shown(sim)["ready"] == [1]  # type: ignore[index]
    sim.join(21, "p_beto", "Beto")  # Beto's other tab says it again: nothing more
    out = sim.intent(21, protocol.Rematch())
    assert out.entries == [] and sim.errors(21) == []
    assert ops(sim.intent(10, protocol.Rematch())) == ["ready"]
    assert rematch_shown(sim)["ready"] == [0, 1]  # type: ignore[index]
    assert ops(sim.intent(12, protocol.Rematch())) == ["ready", "rematch", "start_hand"]
    assert sim.core.status == "playing" and sim.core.match_number == 2 and sim.core.match.phase != "new"
    assert rematch_shown(sim) is None
    assert [s.name for s in sim.core.seats] == ["Ana", "Beto", "Carla", "Pancho"]


def test_a_gone_player_blocks_the_next_match_until_the_host_leaves_the_seat_to_the_stand_in() -> None:
    sim = friends_after_a_match(turn_timer=15)
    sim.leave(12)  # Carla closed the tab
    sim.advance(AWAY_MS)
    assert not sim.core.seats[2].online
    sim.intent(10, protocol.Rematch())
    sim.intent(11, protocol.Rematch())
    # Everyone here is ready, but Carla's seat waits for the host: no match, no clock.
    assert sim.core.status == "finished" and sim.core.match_number == 1
    assert rematch_shown(sim) == {"players": [0, 1], "ready": [0, 1], "gone": [2], "stand_in": [], "deciders": [0]}
    assert sim.core.table_state()["deadline"] is None
    assert not [k for k in sim.timers if not k.startswith("grace:")]
    sim.advance(120_000)  # however long it waits
    assert sim.core.status == "finished" and sim.core.match_number == 1
    assert sim.core.table_state()["deadline"] is None
    # Only the host decides, and only on a gone player's seat.
    refused(sim, 11, protocol.StandIn(2), Code.NOT_HOST)
    refused(sim, 10, protocol.StandIn(1), Code.SEAT_TAKEN)
    refused(sim, 10, protocol.StandIn(3), Code.SEAT_TAKEN)
    refused(sim, 10, protocol.StandIn(7), Code.MALFORMED)
    out = sim.intent(10, protocol.StandIn(2))
    assert ops(out) == ["stand_in", "rematch", "controller", "start_hand"]
    assert out.entries[2].to_json() == {"op": "controller", "seat": 2, "to": "stand_in", "at": sim.now}
    assert sim.core.status == "playing" and sim.core.match_number == 2
    assert not [k for k in sim.timers if k.startswith("grace:2:")]  # the stand-in plays at once
    sim.play_out_hand({0: 10, 1: 11})
    mine = [e for e in sim.log[sim.log.index(out.entries[1].to_json()):] if e["op"] == "action" and e["seat"] == 2]
    assert mine and {e["by"] for e in mine} == {"stand_in"}
    # The standings read the same log: match 2 is not Carla's.
    assert absent_from_start(read_log(sim.log), 2, [0, 1, 2]) == frozenset({2})
    assert absent_from_start(read_log(sim.log), 1, [0, 1, 2]) == frozenset()


def test_the_host_seats_a_neighbour_where_a_player_is_gone() -> None:
    sim = friends_after_a_match()
    sim.leave(12)
    sim.advance(AWAY_MS)
    for conn in (10, 11):
        sim.intent(conn, protocol.Rematch())
    refused(sim, 10, protocol.FillSeat(2, "maestro"), Code.MALFORMED)
    refused(sim, 10, protocol.FillSeat(1, "medio"), Code.SEAT_TAKEN)  # Beto is here
    out = sim.intent(10, protocol.FillSeat(2, "dificil"))
    assert ops(out) == ["fill", "rematch", "start_hand"]
    carla = sim.core.seats[2]
    assert carla.is_bot and carla.level == "dificil" and carla.player is None
    assert sim.core.match_number == 2
    welcome = [f for a, f in sim.join(22, "p_carla", "Carla").frames if f["type"] == "welcome"]
    assert welcome[0]["seat"] is None  # back, she watches: her seat is a neighbour's now


def test_the_host_takes_the_table_back_to_its_lobby() -> None:
    sim = friends_after_a_match()
    sim.leave(12)
    sim.advance(AWAY_MS)
    refused(sim, 11, protocol.ToLobby(), Code.NOT_HOST)
    out = sim.intent(10, protocol.ToLobby())
    assert ops(out) == ["rematch"] and out.entries[0].to_json()["lobby"] is True
    table = sim.core.table_state()
    assert table["status"] == "lobby" and table["match_number"] == 2 and table["rematch"] is None
    assert sim.core.match.phase == "new" and sim.core.summary()["scores"] == [0, 0]
    # The lobby again: the host clears the gone seat, a friend sits, the host starts.
    refused(sim, 11, protocol.Rematch(), Code.BAD_PHASE)
    sim.intent(10, protocol.ClearSeat(2))
    sim.join(13, "p_dani", "Dani")
    sim.intent(13, protocol.Sit(2))
    sim.intent(11, protocol.Stand())  # Beto may stand up too: it is a lobby
    assert sim.core.seats[1].kind == "empty"
    sim.intent(11, protocol.Sit(1))
    out = sim.intent(10, protocol.Start())
    assert ops(out)[:2] == ["start", "start_hand"] and sim.core.status == "playing" and sim.core.match_number == 2
    assert [s.name for s in sim.core.seats] == ["Ana", "Beto", "Dani", "Pancho"]


def test_while_the_host_is_gone_the_players_here_decide() -> None:
    sim = friends_after_a_match()
    sim.leave(10)  # Ana, the host, is gone
    sim.advance(AWAY_MS)
    sim.intent(11, protocol.Rematch())
    sim.intent(12, protocol.Rematch())
    assert rematch_shown(sim) == {"players": [1, 2], "ready": [1, 2], "gone": [0], "stand_in": [], "deciders": [1, 2]}
    refused(sim, 11, protocol.FillSeat(0, "medio"), Code.NOT_HOST)  # the host keeps a seat
    refused(sim, 12, protocol.ToLobby(), Code.NOT_HOST)  # only the host can start a lobby again
    assert ops(sim.intent(12, protocol.StandIn(0))) == ["stand_in", "rematch", "controller", "start_hand"]


def test_a_seat_left_to_the_stand_in_whose_player_came_back_and_went_again() -> None:
    sim = friends_after_a_match()
    sim.leave(12)
    sim.advance(AWAY_MS)
    sim.intent(10, protocol.StandIn(2))
    refused(sim, 10, protocol.StandIn(2), Code.NO_CHANGE)
    sim.join(22, "p_carla", "Carla")  # Carla is back: she says yes or no herself
    sim.intent(10, protocol.Rematch())
    sim.intent(11, protocol.Rematch())
    assert rematch_shown(sim)["players"] == [0, 1, 2] and sim.core.status == "finished"  # type: ignore[index]
    sim.leave(22)  # ... and she goes again without a word: the host's decision stands
    sim.advance(AWAY_MS)
    assert sim.core.status == "playing" and sim.core.match_number == 2 and sim.core.seats[2].controller == "stand_in"


def test_what_is_refused_after_a_match_and_before_it_ends() -> None:
    sim = friends_after_a_match()
    sim.join(30, None, "", watch=True)
    for intent in (protocol.Rematch(), protocol.StandIn(2), protocol.ToLobby()):
        refused(sim, 30, intent, Code.WATCHER)
    for conn in CONNS.values():
        sim.intent(conn, protocol.Rematch())
    assert sim.core.status == "playing"
    for intent in (protocol.Rematch(), protocol.StandIn(2), protocol.ToLobby()):
        refused(sim, 10, intent, Code.BAD_PHASE)
    refused(sim, 10, protocol.FillSeat(2, "medio"), Code.STARTED)
    # A table against the neighbours has no host: nobody takes it to a lobby.
    solo = Sim(options={"target": 50})
    solo.join(1, "p_ana", "Ana")
    for _ in range(80):
        solo.play_out_hand({0: 1})
        if solo.core.match.phase == "match_over":
            break
        solo.intent(1, protocol.NextHand(solo.core.seq))
    refused(solo, 1, protocol.ToLobby(), Code.NOT_HOST)
    assert ops(solo.intent(1, protocol.Rematch())) == ["ready", "rematch", "start_hand"]  # one player: at once


def test_the_log_replays_the_ready_check_and_the_decisions() -> None:
    sim = friends_after_a_match()
    sim.leave(12)
    sim.advance(AWAY_MS)
    sim.intent(11, protocol.Rematch())
    sim.intent(10, protocol.StandIn(2))
    half, _ = replayed(sim.log)
    assert half.table_state()["rematch"] == sim.core.table_state()["rematch"]
    sim.intent(10, protocol.Rematch())
    sim.play_out_hand({0: 10, 1: 11})
    core, frames = replayed(sim.log)
    assert core.summary() == {**sim.core.summary(), "watchers": 0}
    assert [core.view(s) for s in range(4)] == [sim.core.view(s) for s in range(4)]
    assert audience_frames(frames) == audience_frames(sim.frames)


def test_the_intents_parse() -> None:
    assert protocol.parse_intent('{"type": "stand_in", "seat": 2}') == protocol.StandIn(2)
    assert protocol.parse_intent('{"type": "to_lobby"}') == protocol.ToLobby()
    for bad in ('{"type": "stand_in"}', '{"type": "stand_in", "seat": "2"}', '{"type": "stand_in", "seat": -1}'):
        with pytest.raises(ProtocolError) as err:
            protocol.parse_intent(bad)
        assert err.value.code == Code.MALFORMED
    assert json.loads(json.dumps(protocol.INTENT_TYPES))[-2:] == ["stand_in", "to_lobby"]


# ------------------------------------------------------------ who was there (pure)


def test_a_player_away_from_the_first_move_is_absent_and_a_late_reload_is_not() -> None:
    opening = Open("t_1", "cubano", {}, "s", ()).to_json()
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
    assert match_bounds(read_log(log), 1) == (0, 6) and match_bounds(read_log(log), 2) == (6, len(log))
    assert absent_from_start(read_log(log), 1, [0, 1, 2]) == frozenset()
    assert absent_from_start(read_log(log), 2, [0, 1, 2]) == frozenset({1})
    # Ana (seat 0) was there at the first move and left later: she played it (a leaver, not absent).
    assert 0 not in absent_from_start(read_log(log), 2, [0, 1, 2])
    # Beto back before his own first choice: it is his match after all.
    back = [*log[:10], {"op": "presence", "seat": 1, "online": True}, *log[10:]]
    assert absent_from_start(read_log(back), 2, [0, 1, 2]) == frozenset()
    # A restart between the deal and the first move: nobody is connected until a hello says so.
    reopened = [*log[:10], {"op": "reopen"}, {"op": "presence", "seat": 0, "online": True}, *log[10:]]
    assert absent_from_start(read_log(reopened), 2, [0, 1, 2]) == frozenset({1})
    # No move made yet, or no word of presence in the log: nobody is absent.
    assert absent_from_start(read_log(log[:10]), 2, [0, 1, 2]) == frozenset()
    assert absent_from_start(read_log([opening, _act(0), _act(1)]), 1, [0, 1]) == frozenset()


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
