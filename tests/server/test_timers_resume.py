"""Issue 21, item 13: after a reload a table's timers resume with the time they had
left (the turn, the wait between hands, the grace windows), never in full; one that
ran out while the table was away leaves its player RESUME_MIN_MS to reconnect.
Driven clocks: the core's through ``TableCore.from_log``, the shell's through a fake Clock."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

from sockets_at import hello
from tablesim import Sim, human, replayed

from capicua.server.adapters.memory import LocalBus, MemoryLog
from capicua.server.registry import Tables
from capicua.table import protocol
from capicua.table.commands import Reopen, StartTimer
from capicua.table.core import CoreConfig, TableCore
from capicua.table.timers import RESUME_MIN_MS

FOUR = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"), human(2, "Carla", "p2", "yoli"),
        human(3, "Dani", "p3", "fefa")]


def four_humans(**kw: Any) -> Sim:
    sim = Sim(seats=copy.deepcopy(FOUR), **kw)
    for s in range(4):
        sim.join(10 + s, f"p{s}", f"P{s}")
    return sim


def reloaded(sim: Sim, at: int) -> tuple[TableCore, dict[str, int]]:
    """The table loaded again from its log at time ``at``, and the timers it arms."""
    core, _ = replayed(sim.log, CoreConfig(auto_next_ms=0))
    out = core.handle(Reopen(), at)
    return core, {e.key: e.at for e in out.effects if isinstance(e, StartTimer)}


def test_a_turn_resumes_with_the_time_it_had_left() -> None:
    sim = four_humans(turn_timer=15)
    seat = sim.core.match.turn
    deadline = sim.core.table_state()["deadline"]
    assert deadline["for"] == "turn" and deadline["seat"] == seat
    sim.advance(7_000)  # 8 s left, then the server goes down for 2 s
    core, timers = reloaded(sim, sim.now + 2_000)
    assert timers[f"turn:{core.seq}:{seat}"] == deadline["at"]
    resumed = core.table_state()["deadline"]
    assert resumed["at"] == deadline["at"] and resumed["left"] == 6_000 and resumed["ms"] == 15_000


def test_a_turn_that_ran_out_while_the_table_was_away_leaves_a_moment_to_reconnect() -> None:
    sim = four_humans(turn_timer=15)
    seat = sim.core.match.turn
    back = sim.now + 60_000
    core, timers = reloaded(sim, back)
    assert timers[f"turn:{core.seq}:{seat}"] == back + RESUME_MIN_MS
    assert core.table_state()["deadline"]["left"] == RESUME_MIN_MS


def test_grace_windows_resume_with_the_time_they_had_left() -> None:
    sim = four_humans(grace=30)
    left = sim.now
    sim.leave(12)
    sim.advance(12_000)  # logged away from `left`; 18 s of grace left
    down = sim.now + 3_000
    core, timers = reloaded(sim, down)
    assert timers[f"grace:2:{left}"] == left + 30_000
    # The seats whose sockets went with the server begin their window at the reload.
    assert {timers[f"grace:{s}:{down}"] for s in (0, 1, 3)} == {down + 30_000}


def test_the_wait_between_hands_resumes_too() -> None:
    sim = four_humans(turn_timer=15)
    sim.play_out_hand({s: 10 + s for s in range(4)})
    assert sim.core.match.phase == "hand_over"
    deadline = sim.core.table_state()["deadline"]
    assert deadline["for"] == "next_hand"
    core, timers = reloaded(sim, sim.now + 10_000)
    assert timers[f"deal:{core.seq}"] == deadline["at"]
    assert core.table_state()["deadline"]["left"] == deadline["ms"] - 10_000


def test_a_player_back_on_their_own_turn_gets_the_whole_of_it() -> None:
    sim = four_humans(grace=10, turn_timer=15)
    seat = sim.core.match.turn
    assert seat is not None
    for s in range(4):
        sim.leave(10 + s)  # everyone goes: the stand-ins wait
    sim.advance(60_000)
    assert sim.core.seats[seat].controller == "stand_in" and sim.core.match.turn == seat
    sim.join(40, f"p{seat}", "back")
    assert sim.core.seats[seat].controller == "human"
    assert sim.core.table_state()["deadline"] == {
        "for": "turn", "seat": seat, "at": sim.now + 15_000, "ms": 15_000, "left": 15_000}


# ------------------------------------------------------------ through the shell


class _Handle:
    def __init__(self, clock: DrivenClock, at: int, callback: Callable[[], None]) -> None:
        self.clock, self.at, self.callback = clock, at, callback

    def cancel(self) -> None:
        if self in self.clock.pending:
            self.clock.pending.remove(self)


class DrivenClock:
    """A :class:`~capicua.server.ports.Clock` the test moves by hand."""

    def __init__(self, now: int) -> None:
        self.now = now
        self.pending: list[_Handle] = []

    def now_ms(self) -> int:
        return self.now

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> _Handle:
        handle = _Handle(self, at_ms, callback)
        self.pending.append(handle)
        return handle

    def advance(self, ms: int) -> None:
        self.now += ms
        for h in sorted((h for h in self.pending if h.at <= self.now), key=lambda h: h.at):
            self.pending.remove(h)
            h.callback()


class _NoBots:
    def ask(self, level: str, view: dict[str, Any], seed: int, answer: Any, pause: bool = True) -> Any:
        return asyncio.get_running_loop().call_later(3600, lambda: None)


async def _settle(shell: Any) -> None:
    for _ in range(200):
        await asyncio.sleep(0)
        if shell.inbox.empty():
            await asyncio.sleep(0.01)
            if shell.inbox.empty():
                return


def test_a_restarted_server_resumes_the_turn_with_the_time_left() -> None:
    async def main() -> None:
        log = MemoryLog()
        clock = DrivenClock(1_700_000_000_000)
        first = Tables(log, LocalBus(), clock, _NoBots(), CoreConfig(auto_next_ms=0))
        shell = await first.open("cubano", {}, copy.deepcopy(FOUR), seed="resume", turn_timer=15)
        for s in range(4):
            hello(first, shell.id, f"seat{s}", lambda text: None, f"p{s}", f"P{s}")
        await _settle(shell)
        deadline = shell.core.table_state()["deadline"]
        assert deadline is not None and deadline["for"] == "turn"
        clock.advance(6_000)  # 9 s left when the process dies
        await first.close()
        clock.pending.clear()
        clock.advance(2_000)  # the restart takes 2 s
        second = Tables(log, LocalBus(), clock, _NoBots(), CoreConfig(auto_next_ms=0))
        again = await second.get(shell.id)
        assert again is not None
        await _settle(again)
        assert sorted(h.at for h in clock.pending) == [deadline["at"]] + [clock.now + 30_000] * 4  # turn, grace
        assert again.core.table_state()["deadline"]["at"] == deadline["at"]
        clock.advance(6_999)
        await _settle(again)
        assert not [e for e in log.logs[shell.id] if e["op"] == "timer"]
        clock.advance(1)  # 15 s after the turn began, not 15 s after the restart
        await _settle(again)
        timer = [e for e in log.logs[shell.id] if e["op"] == "timer"]
        assert timer == [{"op": "timer", "name": "turn", "seat": deadline["seat"], "at": deadline["at"]}]
        await second.close()

    asyncio.run(main())


def test_replaying_a_resumed_table_rebuilds_the_same_deadlines() -> None:
    sim = four_humans(turn_timer=15)
    sim.advance(4_000)
    core, _ = reloaded(sim, sim.now + 1_000)
    log = [*copy.deepcopy(sim.log), {"op": "reopen", "at": sim.now + 1_000}]
    again, _ = replayed(log)
    assert again.table_state(sim.now + 1_000) == core.table_state(sim.now + 1_000)
    assert protocol.table_frame(core.seq, core.table_state())["table"]["deadline"]["left"] == 10_000
