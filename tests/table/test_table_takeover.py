"""A table another process took over (its owner died holding the lease): loaded with
:class:`TakeOver`, not :class:`Reopen`. Nobody is logged gone for the failover, the
sockets that come back keep their seats present, one that does not is logged gone
after the presence debounce, the clocks run on with the time they had left, and a
bot turn in flight is asked again."""

from __future__ import annotations

import copy

from tablesim import Sim, human, replayed

from capicua.bots import decide
from capicua.table.commands import AskBot, BotAnswer, Reopen, StartTimer, TakeOver
from capicua.table.core import CoreConfig
from capicua.table.protocol import Join, Leave

TWO_HUMANS = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"),
              {"seat": 2, "kind": "bot", "name": "Pancho", "level": "random", "character": "pancho"},
              {"seat": 3, "kind": "bot", "name": "Yoli", "level": "random", "character": "yoli"}]
DEBOUNCE = CoreConfig().presence_debounce_ms


def playing(turn_timer: int = 0) -> Sim:
    sim = Sim(seats=copy.deepcopy(TWO_HUMANS), turn_timer=turn_timer, seed="takeover")
    sim.join(10, "p0", "Ana")
    sim.join(11, "p1", "Beto")
    sim.answer_bots()
    return sim


def taken_over(sim: Sim, after_ms: int) -> Sim:
    """Another process loads ``sim``'s log ``after_ms`` later and takes the table over."""
    new = Sim(seats=copy.deepcopy(TWO_HUMANS), turn_timer=sim.core.turn_timer, seed="takeover", auto_bots=False)
    new.core, _ = replayed(sim.log, CoreConfig(auto_next_ms=0))
    new.log = list(sim.log)
    new.now = sim.now + after_ms
    new.send(TakeOver())
    return new


def test_a_takeover_logs_nobody_gone_and_the_sockets_that_come_back_keep_their_seats() -> None:
    sim = playing()
    new = taken_over(sim, 3_000)
    assert new.outcomes[-1].entries == []  # no reopen, no presence
    assert all(s.online for s in new.core.seats if s.is_human)
    assert not any(k.startswith("grace:") for k in new.timers)
    seen = sim.core.seq
    for conn, player in ((10, "p0"), (11, "p1")):
        out = new.send(Join(conn, player, "", seen, False))
        assert out.entries == [] or all(e.op != "presence" for e in out.entries)
    new.advance(DEBOUNCE * 2)
    assert all(e["op"] != "presence" for e in new.log[len(sim.log):])
    assert all(s.online for s in new.core.seats if s.is_human)


def test_a_seat_whose_sockets_do_not_come_back_is_logged_gone_after_the_debounce() -> None:
    sim = playing()
    new = taken_over(sim, 1_000)
    at = new.now
    new.send(Join(10, "p0", "", sim.core.seq, False))  # Ana's socket comes back, Beto's does not
    new.advance(DEBOUNCE - 1)
    assert new.core.seats[1].online
    new.advance(1)
    gone = [e for e in new.log[len(sim.log):] if e["op"] == "presence"]
    assert gone == [{"op": "presence", "seat": 1, "online": False, "since": at, "at": at + DEBOUNCE}]
    assert new.core.seats[0].online
    assert any(k.startswith("grace:1:") for k in new.timers)  # the grace window runs as usual


def test_the_turn_timer_resumes_with_the_time_it_had_left() -> None:
    sim = playing(turn_timer=30)
    while sim.core.match.turn not in (0, 1):
        sim.answer_bots()
    deadline = {k: at for k, at in sim.timers.items() if k.startswith("turn:")}
    assert len(deadline) == 1
    new = taken_over(sim, 4_000)
    resumed = {e.key: e.at for e in new.outcomes[-1].effects if isinstance(e, StartTimer) and e.key.startswith("turn:")}
    assert resumed == deadline  # not a fresh turn, not pushed back
    reloaded, _ = replayed(sim.log)
    reopened = {e.key: e.at for e in reloaded.handle(Reopen(), sim.now + 4_000).effects
                if isinstance(e, StartTimer) and e.key.startswith("turn:")}
    assert reopened == deadline  # a restart's reload keeps the deadline too (its floor is 5 s from now)


def test_a_bot_turn_in_flight_is_asked_again() -> None:
    sim = Sim(seats=copy.deepcopy(TWO_HUMANS), seed="takeover", auto_bots=False)
    sim.join(10, "p0", "Ana")
    sim.join(11, "p1", "Beto")
    while sim.core.match.turn not in (2, 3):
        seat = sim.core.match.turn
        assert seat is not None and not sim.asks
        sim.play_first_legal(10 + seat, seat)
    asked = sim.asks[-1]
    new = taken_over(sim, 2_000)  # the old owner died before the bot answered
    again = [e for e in new.outcomes[-1].effects if isinstance(e, AskBot)]
    assert [(e.seat, e.view) for e in again] == [(asked.seat, asked.view)]
    # Its thinking pause ran on the dead owner: asked again without one (the failover's
    # time to the next event), and only that turn: the next neighbour thinks as ever.
    assert not asked.again and again[0].again
    ask = new.asks.pop(0)
    new.send(BotAnswer(ask.key, decide("random", ask.view, ask.seed)))
    while new.core.match.turn not in (2, 3):
        seat = new.core.match.turn
        assert seat is not None and not new.asks
        new.play_first_legal(10 + seat, seat)
    assert new.asks and not any(a.again for a in new.asks)


def test_a_gap_refilled_by_leaving_and_saying_hello_again_logs_nothing() -> None:
    """What a gateway does when frames of the table were lost on the bus: the socket
    leaves and says hello again at once, with the last seq it heard."""
    sim = playing()
    seen = sim.core.seq
    while sim.core.seq == seen:
        seat = sim.core.match.turn
        assert seat in (0, 1)
        sim.play_first_legal(10 + seat, seat)
        sim.answer_bots()
    log_before = len(sim.log)
    sim.send(Leave(10))
    out = sim.send(Join(10, "p0", "Ana", seen, False))
    sim.advance(DEBOUNCE * 2)
    assert len(sim.log) == log_before and sim.core.seats[0].online
    welcome, missed = [f for a, f in out.frames if a == "conn:10"]
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    assert missed["type"] == "events" and missed["replayed"] is True
    assert [e["seq"] for e in missed["events"]] == list(range(seen + 1, sim.core.seq + 1))
