"""The table core on its own: every command, every refusal (nothing changes),
presence, grace and stand-in, the turn timer, the lobby's seat claims, table
talk, spectators and replaying the log. A fake clock, no server."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from tablesim import Sim, bot, empty, human, replayed

from capicua.table import log, neighbours, protocol
from capicua.table.commands import BotAnswer, Reopen, TimerFired
from capicua.table.phrases import PHRASES
from capicua.table.protocol import ALL, PUBLIC, Code, Join

FOUR_HUMANS = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"), human(2, "Carla", "p2", "yoli"),
               human(3, "Dani", "p3", "fefa")]


def state(sim: Sim) -> str:
    """Everything that a refusal must leave unchanged."""
    c = sim.core
    return json.dumps(
        [c.summary(), [c.view(s) for s in range(len(c.seats))], c.log_seq, c.seq, sorted(c.ready)],
        sort_keys=True, default=str,
    )


def refused(sim: Sim, conn: int, intent: protocol.Intent, code: Code) -> None:
    before = state(sim)
    n_log = len(sim.log)
    out = sim.intent(conn, intent)
    assert out.entries == [] and out.effects == []
    assert [f["code"] for a, f in out.frames] == [str(code)], out.frames
    assert state(sim) == before and len(sim.log) == n_log


# ------------------------------------------------------------ a neighbours' table


def test_hello_deals_the_first_hand_once_the_player_is_there() -> None:
    sim = Sim()
    out = sim.join(1, "p_ana", "Ana")
    ops = [e.op for e in out.entries]
    assert ops == ["presence", "start_hand"]
    kinds = [f["type"] for a, f in out.frames if a == "conn:1"]
    assert kinds == ["welcome", "sync"]
    welcome = out.frames[0][1]
    assert welcome["seat"] == 0 and welcome["protocol"] == protocol.PROTOCOL_VERSION
    assert welcome["table"]["seats"][0]["connected"] is True
    batches = [f for a, f in out.frames if a == "seat:0" and f["type"] == "events"]
    assert batches and batches[0]["events"][0]["event"]["kind"] == "hand_start"
    assert batches[0]["view"]["hand"]  # the seat's own tiles, and only to its own audience
    assert all("hand" not in f.get("view", {}) for a, f in out.frames if a in (ALL, PUBLIC))


def test_bots_are_asked_and_their_answers_land() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.play_out_hand({0: 1})
    assert sim.core.match.phase in ("hand_over", "match_over")
    by = {e["by"] for e in sim.log if e["op"] == "action"}
    assert by <= {"human", "bot"} and "bot" in by
    assert all(e["seat"] != 0 for e in sim.log if e["op"] == "action" and e["by"] == "bot")


def test_a_stale_bot_answer_changes_nothing() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.answer_bots()
    before = state(sim)
    out = sim.send(BotAnswer("bot:0:1", {"tile": [0, 0], "end": "left"}))
    assert out.entries == [] and out.frames == [] and state(sim) == before


def test_a_bot_that_answers_nonsense_plays_its_first_legal_move() -> None:
    sim = Sim(auto_bots=False)
    sim.join(1, "p_ana", "Ana")
    if not sim.asks:  # the human opens: play, so that a bot is on turn
        sim.play_first_legal(1, 0)
    ask = sim.asks.pop(0)
    legal = ask.view["legal"][0]
    out = sim.send(BotAnswer(ask.key, {"tile": [99, 99]}))
    played = out.entries[0]
    assert isinstance(played, log.Action) and played.action["tile"] == legal["tile"]


def test_next_hand_waits_for_the_player_then_deals() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.play_out_hand({0: 1})
    if sim.core.match.phase == "match_over":
        pytest.skip("the seed ended the match in one hand")
    out = sim.intent(1, protocol.NextHand(sim.core.seq))
    assert [e.op for e in out.entries] == ["ready", "start_hand"]
    assert sim.core.match.phase in ("play", "redeal_question", "hand_over")


# ------------------------------------------------------------ refusals


def test_every_refusal_changes_nothing() -> None:
    sim = Sim(seats=[human(0, "Ana", "p0"), bot(1, "Cuca", "cuca"), human(2, "Carla", "p2", "yoli"),
                     bot(3, "Fefa", "fefa")])
    sim.join(1, "p0", "Ana")
    sim.join(2, "p2", "Carla")
    sim.join(3, None, "", watch=True)
    sim.answer_bots()
    m = sim.core.match
    on_turn = m.turn
    assert on_turn in (0, 2)
    conn_on, conn_off = (1, 2) if on_turn == 0 else (2, 1)
    other = 2 if on_turn == 0 else 0
    legal = sim.view(on_turn)["legal"][0]
    tile = tuple(legal["tile"])
    refused(sim, conn_on, protocol.Play(sim.core.seq + 5, tile, legal["end"]), Code.STALE)  # type: ignore[arg-type]
    refused(sim, conn_on, protocol.Play(max(0, sim.core.batch_first - 1), tile, legal["end"]), Code.STALE)  # type: ignore[arg-type]
    refused(sim, conn_off, protocol.Play(sim.core.seq, tuple(sim.view(other)["hand"][0]), None), Code.OUT_OF_TURN)  # type: ignore[arg-type]
    held = {tuple(t) for t in sim.view(on_turn)["hand"]}
    missing = next((a, b) for a in range(10) for b in range(a, 10) if (a, b) not in held)
    refused(sim, conn_on, protocol.Play(sim.core.seq, missing, legal["end"]), Code.ILLEGAL)
    refused(sim, conn_on, protocol.Play(sim.core.seq, tile, "sideways"), Code.MALFORMED)  # type: ignore[arg-type]
    refused(sim, conn_on, protocol.Redeal(sim.core.seq, True), Code.BAD_PHASE)
    refused(sim, conn_on, protocol.NextHand(sim.core.seq), Code.BAD_PHASE)
    refused(sim, 3, protocol.Play(sim.core.seq, tile, legal["end"]), Code.WATCHER)  # type: ignore[arg-type]
    refused(sim, 3, protocol.Say("agua"), Code.WATCHER)
    refused(sim, conn_on, protocol.Say("a tile: 6-6"), Code.MALFORMED)
    refused(sim, conn_on, protocol.Start(), Code.NOT_HOST)
    refused(sim, conn_on, protocol.Sit(1), Code.STARTED)
    refused(sim, conn_on, protocol.Rematch(), Code.BAD_PHASE)
    refused(sim, 99, protocol.Say("agua"), Code.UNAUTHORIZED)
    before = state(sim)
    out = sim.join(1, "p0", "Ana")  # a second hello on the same socket
    assert [f["code"] for _, f in out.frames] == ["malformed"] and not out.entries and state(sim) == before


def test_phrases_are_logged_said_to_everyone_and_throttled() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.join(2, None, "", watch=True)
    for _ in range(3):
        out = sim.intent(1, protocol.Say("agua"))
        assert out.entries[0].op == "say"
        said = [f for a, f in out.frames if a == ALL and f["type"] == "said"]
        assert said[0]["es"] == "¡Agua!" and said[0]["en"] and said[0]["by"] == "player" and said[0]["seat"] == 0
    refused(sim, 1, protocol.Say("agua"), Code.TOO_FAST)
    sim.now += 10_001
    assert sim.intent(1, protocol.Say("se_enfria")).entries


def test_no_phrase_names_a_number_or_a_tile() -> None:
    words = re.compile(r"\d|\b(cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|blanca|doble|double|"
                       r"zero|one|two|three|four|five|six|seven|eight|nine|blank)\b", re.IGNORECASE)
    for pid, (es, en) in PHRASES.items():
        assert not words.search(es) and not words.search(en), pid
    assert 20 <= len(PHRASES) <= 30


# ------------------------------------------------------------ presence, grace, stand-in


def four_humans(**kw: Any) -> Sim:
    sim = Sim(seats=copy.deepcopy(FOUR_HUMANS), **kw)
    for s in range(4):
        sim.join(10 + s, f"p{s}", f"P{s}")
    return sim


def test_presence_is_logged_and_everyone_sees_it() -> None:
    sim = four_humans()
    assert sim.core.match.phase in ("play", "redeal_question")
    left = sim.now
    assert sim.leave(12).entries == []  # a flicker is not logged: only a lasting absence
    sim.advance(5_000)  # CoreConfig.presence_debounce_ms
    out = sim.outcomes[-1]
    assert out.entries[0].to_json() == {"op": "presence", "seat": 2, "online": False, "since": left, "at": sim.now}
    table = [f for a, f in out.frames if a == ALL and f["type"] == "table"][-1]["table"]
    assert table["seats"][2]["connected"] is False
    assert any(k.startswith("grace:2:") for k in sim.timers)
    sim.join(22, "p2", "P2")  # back before the grace window ends
    assert not any(k.startswith("grace:2:") for k in sim.timers)


def test_grace_then_stand_in_plays_then_hands_the_seat_back() -> None:
    sim = four_humans(grace=30)
    conns = {0: 10, 1: 11, 2: 12, 3: 13}
    sim.leave(12)
    sim.advance(29_000)
    assert sim.core.seats[2].controller == "human"
    sim.advance(1_000)
    assert sim.core.seats[2].controller == "stand_in"
    ops = [e["op"] for e in sim.log[-2:]]
    assert ops == ["timer", "controller"]
    table = sim.core.table_state()
    assert table["seats"][2]["stand_in"]["name"] == "Yoli"  # "Yoli juega por Carla"
    del conns[2]
    sim.play_out_hand(conns)
    stand_in_moves = [e for e in sim.log if e["op"] == "action" and e["by"] == "stand_in"]
    assert stand_in_moves and all(e["seat"] == 2 for e in stand_in_moves)
    out = sim.join(32, "p2", "P2")
    assert {"op": "controller", "seat": 2, "to": "human"} in [{k: v for k, v in e.to_json().items() if k != "at"} for e in out.entries]
    assert sim.core.table_state()["seats"][2]["stand_in"] is None


def test_a_table_whose_players_are_all_gone_waits() -> None:
    sim = four_humans(grace=10)
    for c in (10, 11, 12, 13):
        sim.leave(c)
    sim.advance(60_000)
    assert all(s.controller == "stand_in" for s in sim.core.seats)
    assert sim.asks == []  # no stand-in plays while nobody is at the table
    n = sum(1 for e in sim.log if e["op"] == "action")
    sim.advance(600_000)
    assert sum(1 for e in sim.log if e["op"] == "action") == n


def test_the_partner_opens_for_a_neighbour_drawn_to_open() -> None:
    # RULES.md §1: the drawn opener is a neighbour and its partner a connected player.
    for i in range(40):
        sim = Sim(seats=[human(0, "Ana", "p0"), bot(1, "Cuca", "cuca"), bot(2, "Pancho", "pancho"),
                         bot(3, "Yoli", "yoli")], seed=f"open-{i}")
        if sim.core.match.setup["opener"] == 2:
            sim.join(1, "p0", "Ana")
            start = next(e for e in sim.log if e["op"] == "start_hand")
            assert start["present"] == [0]
            assert sim.core.match.hand is not None and sim.core.match.hand.opener == 0
            return
    pytest.fail("no seed drew the partner's seat")


# ------------------------------------------------------------ the turn timer


def test_turn_timer_runs_out_and_the_stand_in_plays_as_timeout() -> None:
    sim = four_humans(turn_timer=15)
    m = sim.core.match
    seat = m.turn
    assert seat is not None
    deadline = sim.core.table_state()["deadline"]
    assert deadline == {"for": "turn", "seat": seat, "at": sim.now + 15_000, "ms": 15_000, "left": 15_000}
    sim.advance(14_999)
    assert not sim.asks
    sim.advance(1)
    assert sim.log[-1]["op"] == "timer" and sim.log[-1]["name"] == "turn"
    sim.answer_bots()
    moves = [e for e in sim.log if e["op"] == "action"]
    assert moves[-1]["by"] == "timeout" and moves[-1]["seat"] == seat


def test_automatic_passes_are_never_timed() -> None:
    sim = four_humans(turn_timer=15)
    for key in sim.timers:
        if key.startswith("turn:"):
            seat = int(key.split(":")[2])
            assert sim.view(seat)["legal"], "a timer runs only for a seat with a choice"


# ------------------------------------------------------------ the lobby


def lobby() -> Sim:
    seats = [human(0, "Host", "p_host"), empty(1), empty(2), empty(3)]
    sim = Sim(seats=seats, private=True, host="p_host")
    sim.join(1, "p_host", "Host")
    return sim


def test_lobby_sit_move_fill_configure_start() -> None:
    sim = lobby()
    assert sim.core.status == "lobby" and sim.core.match.phase == "new"
    sim.join(2, "p_b", "Beto")
    assert sim.core.watchers == 1
    out = sim.intent(2, protocol.Sit(None))
    assert [e.op for e in out.entries] == ["sit", "presence"]  # the watchers' count is not logged
    assert sim.core.seats[1].name == "Beto" and sim.core.seats[1].character  # with a stand-in
    refused(sim, 2, protocol.FillSeat(2, "medio"), Code.NOT_HOST)
    sim.intent(1, protocol.MoveSeat(1, 2))
    assert sim.core.seats[2].name == "Beto" and sim.core.seats[1].kind == "empty"
    assert sim.core.conns[2].seat == 2
    sim.intent(1, protocol.FillSeat(1, "medio"))
    sim.intent(1, protocol.FillSeat(3, "experto"))
    names = {s.name for s in sim.core.seats}
    assert len(names) == 4  # distinct neighbours
    refused(sim, 1, protocol.FillSeat(3, "medio"), Code.SEAT_TAKEN)
    sim.intent(1, protocol.Configure(60, 30))
    assert sim.core.grace == 60 and sim.core.turn_timer == 30
    out = sim.intent(1, protocol.Start())
    assert [e.op for e in out.entries][:2] == ["start", "start_hand"]
    refused(sim, 1, protocol.FillSeat(1, "medio"), Code.STARTED)


def test_a_fifth_joiner_is_refused_and_may_watch() -> None:
    sim = lobby()
    for i, p in enumerate(("p_b", "p_c", "p_d"), start=2):
        sim.join(i, p, p)
        sim.intent(i, protocol.Sit(None))
    sim.join(9, "p_e", "Eve")
    refused(sim, 9, protocol.Sit(None), Code.TABLE_FULL)
    assert sim.core.conns[9].seat is None and sim.core.watchers == 1
    refused(sim, 2, protocol.Sit(None), Code.SEAT_TAKEN)


def test_start_needs_every_seat_filled() -> None:
    sim = lobby()
    refused(sim, 1, protocol.Start(), Code.BAD_PHASE)


def test_rematch_starts_a_new_match_with_the_same_seats() -> None:
    sim = Sim(options={"target": 50})
    sim.join(1, "p_ana", "Ana")
    for _ in range(60):
        sim.play_out_hand({0: 1})
        if sim.core.match.phase == "match_over":
            break
        sim.intent(1, protocol.NextHand(sim.core.seq))
    assert sim.core.status == "finished"
    seed1 = sim.core.match.seed
    out = sim.intent(1, protocol.Rematch())  # the one player here is ready: it starts at once
    assert [e.op for e in out.entries] == ["ready", "rematch", "start_hand"]
    assert sim.core.match_number == 2 and sim.core.match.seed != seed1
    assert [s.name for s in sim.core.seats] == ["Ana", "Cuca", "Pancho", "Yoli"]


# ------------------------------------------------------------ spectators


def test_spectators_see_no_tile_before_the_hand_is_over() -> None:
    sim = Sim()
    sim.join(5, None, "", watch=True)
    sim.join(1, "p_ana", "Ana")
    for _ in range(4):
        sim.play_out_hand({0: 1})
        if sim.core.match.phase == "match_over":
            break
        sim.intent(1, protocol.NextHand(sim.core.seq))
    public = [f for a, f in sim.frames if a in (PUBLIC, ALL, "conn:5")]
    assert any(f["type"] == "events" for f in public)
    for f in public:
        view = f.get("view")
        if view is None:
            continue
        assert "hand" not in view
        over = view["phase"] in ("hand_over", "match_over")
        assert (view["revealed"] is not None) == over
        assert not any("draw" in h and h["draw"] is not True for h in view["history"] if not over)


# ------------------------------------------------------------ the log


def audience_frames(frames: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The frames a replay rebuilds: all but each socket's own, with the table frames
    as they read without the count of watchers (live only: not logged), repeats dropped."""
    out: list[tuple[str, dict[str, Any]]] = []
    last_table = None
    for a, f in frames:
        if a.startswith("conn:"):
            continue
        if f["type"] == "table":
            f = {**f, "table": {**f["table"], "watchers": 0}}
            if f == last_table:
                continue
            last_table = f
        out.append((a, f))
    return out


def test_replaying_the_log_rebuilds_the_table_and_every_frame() -> None:
    sim = four_humans(turn_timer=30, grace=10)
    sim.intent(10, protocol.Say("hola"))
    sim.leave(13)
    sim.advance(10_000)  # seat 3's stand-in takes over
    sim.play_out_hand({0: 10, 1: 11, 2: 12})
    sim.join(23, "p3", "P3")
    sim.join(30, None, "", watch=True)
    if sim.core.match.phase == "hand_over":
        for c in (10, 11, 12, 23):
            sim.intent(c, protocol.NextHand(sim.core.seq))
        sim.advance(31_000)  # someone's turn runs out
        sim.answer_bots()
    core, frames = replayed(sim.log)
    assert core.summary() == {**sim.core.summary(), "watchers": 0}  # who watches is live, not logged
    assert [core.view(s) for s in range(4)] == [sim.core.view(s) for s in range(4)]
    assert core.view(None) == sim.core.view(None)
    assert core.recent_events() == sim.core.recent_events()
    assert audience_frames(frames) == audience_frames(sim.frames)
    assert any(a == PUBLIC for a, _ in frames)  # the spectators' frames, as they were sent
    assert {e["op"] for e in sim.log} >= {"open", "presence", "start_hand", "action", "say", "timer", "controller"}
    assert "watchers" not in {e["op"] for e in sim.log}


def test_after_a_reload_a_client_gets_the_missed_events_not_a_sync() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.play_first_legal(1, 0) if sim.core.match.turn == 0 else None
    sim.answer_bots()
    seen = sim.core.seq
    if sim.core.match.turn == 0:
        sim.play_first_legal(1, 0)
    sim.answer_bots()
    assert sim.core.seq > seen
    core, _ = replayed(sim.log)
    out = core.handle(Reopen(), sim.now)
    assert out.entries[0].op == "reopen" and core.seats[0].online is False
    out = core.handle(Join(7, "p_ana", "Ana", seen, False), sim.now)
    resync = [f for a, f in out.frames if a == "conn:7"][1]
    assert resync["type"] == "events" and resync["replayed"] is True
    assert [e["seq"] for e in resync["events"]] == list(range(seen + 1, core.seq + 1))
    assert resync["view"] == core.view(0)


def test_timers_are_rearmed_after_a_reload() -> None:
    sim = four_humans(grace=30)
    sim.leave(11)
    core, _ = replayed(sim.log)
    out = core.handle(Reopen(), sim.now + 5_000)
    keys = {e.key for e in out.effects if hasattr(e, "at")}
    assert {k.split(":")[1] for k in keys if k.startswith("grace:")} == {"0", "1", "2", "3"}
    stale = core.handle(TimerFired("grace:1:0"), sim.now)
    assert stale.entries == []


def test_a_socket_is_told_its_new_seat_and_a_players_other_tabs_follow() -> None:
    sim = lobby()
    sim.join(2, "p_b", "Beto")
    sim.join(3, "p_b", "Beto")  # Beto's second tab, watching too
    out = sim.intent(2, protocol.Sit(2))
    told = {a: f["seat"] for a, f in out.frames if f["type"] == "welcome"}
    assert told == {"conn:2": 2, "conn:3": 2}  # both of Beto's sockets now hold seat 2
    kinds = [f["type"] for _, f in out.frames]
    assert kinds.index("welcome") < kinds.index("table")  # told its seat before it sees the new seats
    assert sim.core.conns[3].seat == 2 and sim.core.watchers == 0
    syncs = [a for a, f in out.frames if f["type"] == "sync"]
    assert syncs == ["conn:2", "conn:3"]
    out = sim.intent(1, protocol.MoveSeat(2, 3))
    assert {a: f["seat"] for a, f in out.frames if f["type"] == "welcome"} == {"conn:2": 3, "conn:3": 3}
    out = sim.intent(1, protocol.ClearSeat(3))
    assert {a: f["seat"] for a, f in out.frames if f["type"] == "welcome"} == {"conn:2": None, "conn:3": None}
    assert sim.core.watchers == 2
    refused(sim, 1, protocol.Stand(), Code.NOT_HOST)  # the host keeps a seat


def test_a_socket_that_asked_to_watch_keeps_watching() -> None:
    sim = lobby()
    sim.join(2, "p_b", "Beto")
    sim.join(3, "p_b", "Beto", watch=True)
    sim.intent(2, protocol.Sit(1))
    assert sim.core.conns[2].seat == 1 and sim.core.conns[3].seat is None and sim.core.watchers == 1



# ------------------------------------------------------------ who made a move


def sent_events(sim: Sim, kind: str, seat: int) -> list[dict[str, Any]]:
    """Every `kind` event of `seat` the table sent (its history: what every audience got)."""
    return [ev for _, ev in sim.core.recent_events() if ev["kind"] == kind and ev.get("seat") == seat]


def play_until(sim: Sim, conns: dict[int, int], done: Any) -> None:
    """The players in `conns` (seat -> conn) play their first legal move, the bots theirs, until `done()`."""
    for _ in range(200):
        sim.answer_bots()
        if done() or sim.core.match.phase != "play":
            return
        seat = sim.core.match.turn
        assert seat in conns, f"nobody plays seat {seat}"
        sim.play_first_legal(conns[seat], seat)
    raise AssertionError("never got there")


def test_a_play_says_who_made_it_the_player_a_stand_in_or_a_timeout() -> None:
    sim = four_humans(grace=10, turn_timer=15)
    conns = {s: 10 + s for s in range(4)}
    m = sim.core.match
    assert m.phase == "play"
    first = m.turn
    assert first is not None
    sim.play_first_legal(conns[first], first)  # the player's own move
    [own] = sent_events(sim, "play", first)
    assert own["by"] == "human" and "stand_in" not in own
    # The next seat's time runs out: its stand-in plays that turn, and the event says so, and who.
    timed = m.turn
    assert timed is not None and timed != first
    sim.advance(15_000)
    sim.answer_bots()
    [late] = sent_events(sim, "play", timed)
    stand_in = neighbours.BY_ID[sim.core.seats[timed].character or ""]
    assert late["by"] == "timeout" and late["stand_in"] == {"name": stand_in.name, "character": stand_in.id}
    # A player gone past the grace window: the stand-in plays their turns (stand_in).
    away = next(s for s in range(4) if s not in (first, timed))
    sim.leave(conns.pop(away))
    sim.advance(10_000)
    assert sim.core.seats[away].controller == "stand_in"
    play_until(sim, conns, lambda: sent_events(sim, "play", away))
    plays = sent_events(sim, "play", away)
    if not plays:
        pytest.skip("the hand ended before the stand-in played")
    stand_in = neighbours.BY_ID[sim.core.seats[away].character or ""]
    assert plays[0]["by"] == "stand_in" and plays[0]["stand_in"] == {"name": stand_in.name, "character": stand_in.id}
    # Passes and draws are automatic: nobody chose them.
    assert {ev["by"] for _, ev in sim.core.recent_events() if ev["kind"] in ("pass", "draw")} <= {"auto"}
    # The frames say it too, the same way to every audience (what the log replays).
    batches = [f for a, f in sim.frames if f["type"] == "events"]
    assert all("by" in e["event"] for f in batches for e in f["events"] if e["event"]["kind"] in ("play", "pass", "draw"))


def test_a_bots_play_says_bot_and_passes_say_auto() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.play_out_hand({0: 1})
    by = {(ev["kind"], ev["seat"] == 0, ev["by"]) for _, ev in sim.core.recent_events() if ev["kind"] in ("play", "pass")}
    assert ("play", False, "bot") in by and ("play", True, "human") in by
    assert {b for k, _, b in by if k == "pass"} <= {"auto"}
