"""A driver for the table core in tests: a fake clock, the log, the frames per
audience, bots answered at once, timers fired when the clock passes them.

No server, no sockets: ``Sim`` feeds commands to :class:`TableCore` and keeps
what comes out, as the shell would.
"""

from __future__ import annotations

import copy
from typing import Any

from capicua.bots import decide
from capicua.table import protocol
from capicua.table.commands import (
    AskBot,
    BotAnswer,
    CancelTimer,
    Command,
    Outcome,
    StartTimer,
    TimerFired,
)
from capicua.table.core import CoreConfig, TableCore
from capicua.table.log import Open, read_log, write_log
from capicua.table.protocol import FromConn, Join, Leave

T0 = 1_700_000_000_000


def human(seat: int, name: str, player: str, character: str = "pancho") -> dict[str, Any]:
    return {"seat": seat, "kind": "human", "name": name, "player": player, "level": "random", "character": character}


def bot(seat: int, name: str, character: str, level: str = "random") -> dict[str, Any]:
    return {"seat": seat, "kind": "bot", "name": name, "level": level, "character": character}


def empty(seat: int) -> dict[str, Any]:
    return {"seat": seat, "kind": "empty", "name": ""}


NEIGHBOURS = [human(0, "Ana", "p_ana"), bot(1, "Cuca", "cuca"), bot(2, "Pancho", "pancho"), bot(3, "Yoli", "yoli")]


class Sim:
    def __init__(
        self,
        seats: list[dict[str, Any]] | None = None,
        preset: str = "cubano",
        options: dict[str, Any] | None = None,
        private: bool = False,
        host: str | None = None,
        seed: str = "sim-1",
        grace: int = 30,
        turn_timer: int = 0,
        auto_bots: bool = True,
    ) -> None:
        self.now = T0
        opening = Open(
            "t_sim", preset, options or {}, "secret-" + seed, tuple(seats or NEIGHBOURS), private, host,
            seed=seed, grace=grace, turn_timer=turn_timer, at=self.now,
        )
        self.log: list[dict[str, Any]] = [opening.to_json()]  # as the store keeps it
        self.core = TableCore(opening, CoreConfig(auto_next_ms=0))
        self.frames: list[tuple[str, dict[str, Any]]] = []
        self.timers: dict[str, int] = {}
        self.asks: list[AskBot] = []
        self.auto_bots = auto_bots
        self.outcomes: list[Outcome] = []

    # -- feeding

    def send(self, cmd: Command) -> Outcome:
        out = self.core.handle(cmd, self.now)
        self.outcomes.append(out)
        self.log.extend(write_log(out.entries))
        self.frames.extend(out.frames)
        for eff in out.effects:
            if isinstance(eff, StartTimer):
                self.timers[eff.key] = eff.at
            elif isinstance(eff, CancelTimer):
                self.timers.pop(eff.key, None)
            elif isinstance(eff, AskBot):
                self.asks.append(eff)
        return out

    def join(self, conn: int, player: str | None, name: str = "", last_seq: int = 0, watch: bool = False) -> Outcome:
        return self.send(Join(conn, player, name, last_seq, watch))

    def leave(self, conn: int) -> Outcome:
        return self.send(Leave(conn))

    def intent(self, conn: int, intent: protocol.Intent) -> Outcome:
        return self.send(FromConn(conn, intent))

    def say(self, conn: int, raw: dict[str, Any]) -> Outcome:
        """An intent as the client would send it (JSON), parsed by the protocol module."""
        import json

        return self.intent(conn, protocol.parse_intent(json.dumps(raw)))

    def answer_bots(self, limit: int = 10_000) -> None:
        """Answer every pending bot question (first legal move, or the level's choice)."""
        for _ in range(limit):
            if not self.asks:
                return
            ask = self.asks.pop(0)
            self.send(BotAnswer(ask.key, decide("random", ask.view, ask.seed)))
        raise AssertionError("the bots never stopped")

    def advance(self, ms: int) -> None:
        """Move the clock and fire the timers it passes, in order."""
        self.now += ms
        while True:
            due = sorted((at, k) for k, at in self.timers.items() if at <= self.now)
            if not due:
                return
            _, key = due[0]
            del self.timers[key]
            self.send(TimerFired(key))

    # -- reading

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.core.view(seat)

    def frames_to(self, audience: str) -> list[dict[str, Any]]:
        return [f for a, f in self.frames if a == audience]

    def errors(self, conn: int) -> list[str]:
        return [f["code"] for f in self.frames_to(f"conn:{conn}") if f["type"] == "error"]

    def play_first_legal(self, conn: int, seat: int) -> Outcome:
        v = self.view(seat)
        move = v["legal"][0]
        if "redeal" in move:
            return self.intent(conn, protocol.Redeal(self.core.seq, move["redeal"]))
        return self.intent(conn, protocol.Play(self.core.seq, tuple(move["tile"]), move["end"]))  # type: ignore[arg-type]

    def play_out_hand(self, conns: dict[int, int], limit: int = 500) -> None:
        """Play the current hand to its end: ``conns`` maps seat -> conn of each human."""
        for _ in range(limit):
            self.answer_bots()
            m = self.core.match
            if m.phase in ("hand_over", "match_over"):
                return
            seat = m.turn
            assert seat is not None
            if seat in conns:
                self.play_first_legal(conns[seat], seat)
            elif not self.asks:
                raise AssertionError(f"nobody plays seat {seat}")
        raise AssertionError("the hand never ended")


def replayed(
    log: list[dict[str, Any]], config: CoreConfig | None = None
) -> tuple[TableCore, list[tuple[str, dict[str, Any]]]]:
    """The table a stored log (JSON, as :attr:`Sim.log` keeps it) describes, read by the
    log's one reader, and every frame it sent while making it (but the per-socket ones)."""
    frames: list[tuple[str, dict[str, Any]]] = []
    core = TableCore.from_log(read_log(copy.deepcopy(log)), config, frames=frames)
    return core, frames
