"""No message sent to a seat ever contains a tile of another seat's hand
before the hand is over, nor a sleeping tile at all.

Tables run in-process with their real core and shell, over the in-process
bus. Every seat is a socket (the gateway's listener on the bus, told by the
table which audience it hears), and so is a spectator: each
frame the table publishes is read as the JSON on the wire and checked, at
the moment it is sent, against the other seats' current hands and the
sleeping tiles (for the spectator: every hand). The human seats play random
legal moves; some seats are bots (so that the neighbours' lines are checked
too). Draw games, individual games and the five-doubles question are in the mix.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from sockets_at import hello, intent

from capicua.server.adapters.botpool import PoolBots
from capicua.server.adapters.memory import LocalBus, LoopClock, MemoryLog
from capicua.server.registry import Tables
from capicua.server.shell import TableShell
from capicua.table import protocol
from capicua.table.core import CoreConfig

pytestmark = pytest.mark.xdist_group("leak")

# Keys whose lists of two numbers are not tiles (scores, pass numbers, counts...).
NOT_TILES = {"scores", "passed_on", "numbers", "teams", "counts", "pip_totals", "redeal_pending", "rules", "in_play_points"}


def tiles_in(obj: Any, key: str | None = None) -> set[tuple[int, int]]:
    """Every pair of numbers in a frame that could stand for a tile."""
    out: set[tuple[int, int]] = set()
    if key in NOT_TILES:
        return out
    if isinstance(obj, dict):
        for k, v in obj.items():
            out |= tiles_in(v, k)
    elif isinstance(obj, list):
        if len(obj) == 2 and all(type(x) is int for x in obj):
            a, b = obj
            out.add((min(a, b), max(a, b)))
        else:
            for v in obj:
                out |= tiles_in(v, key)
    return out


class Spy:
    """A socket at a table (a seat's, or a spectator's) that checks every frame it
    gets against the hands as they are at that moment, and plays random legal moves."""

    def __init__(
        self, tables: Tables, shell: TableShell, conn: str, seat: int | None, rng: random.Random, stats: dict[str, int]
    ) -> None:
        self.tables = tables
        self.shell = shell
        self.conn = conn
        self.my_seat = seat
        self.rng = rng
        self.stats = stats
        self.acted: tuple[Any, ...] | None = None

    def put(self, text: str) -> None:
        wire = json.loads(text)  # exactly what the socket would carry
        m = self.shell.core.match
        hand = m.hand
        seat = self.my_seat
        self.stats["frames"] += 1
        self.stats["said"] += wire.get("type") == "said"
        self.stats["public"] += seat is None
        if hand is not None:
            seen = tiles_in(wire)
            sleeping = {tuple(t) for t in hand.boneyard}
            assert not (seen & sleeping), f"seat {seat} was sent sleeping tiles {seen & sleeping}: {wire}"
            if m.phase in ("play", "redeal_question"):
                others = {t for s, h in enumerate(hand.hands) if s != seat for t in h}
                leaked = seen & others
                assert not leaked, f"seat {seat} was sent {leaked} of another hand: {wire}"
                view = wire.get("view")
                # A frame's view is the table when the frame was made: within one change
                # (a hello that deals the first hand) the table may have moved on since.
                if view is not None and wire["seq"] == self.shell.core.seq:
                    assert view["revealed"] is None and view["seat"] == seat
                    if seat is None:
                        assert "hand" not in view
                    else:
                        assert [tuple(t) for t in view["hand"]] == hand.hands[seat]
        self._react(wire)

    def _react(self, f: dict[str, Any]) -> None:
        v = f.get("view")
        if f.get("type") not in ("events", "sync") or v is None or self.my_seat is None:
            return
        key = (v["hand_number"], len(v["history"]), v["phase"])
        if self.acted == key:
            return
        if v["phase"] in ("play", "redeal_question") and v["turn"] == self.my_seat and v["legal"]:
            self.acted = key
            move = self.rng.choice(v["legal"])
            if "redeal" in move:
                said: protocol.Intent = protocol.Redeal(f["seq"], move["redeal"])
            else:
                said = protocol.Play(f["seq"], (move["tile"][0], move["tile"][1]), move["end"])
            intent(self.tables, self.shell.id, self.conn, said)
        elif v["phase"] == "hand_over":
            self.acted = key
            intent(self.tables, self.shell.id, self.conn, protocol.NextHand(f["seq"]))


def make_tables(bot_pool: Any) -> Tables:
    return Tables(MemoryLog(), LocalBus(), LoopClock(), PoolBots(bot_pool, (0.0, 0.0)), CoreConfig(auto_next_ms=0))


async def play_table(
    tables: Tables, preset: str, options: dict[str, Any], humans: list[int], seed: str, stats: dict[str, int]
) -> None:
    from capicua.engine import make_rules

    players = make_rules(preset, **options).players
    rng = random.Random(seed)
    seats: list[dict[str, Any]] = []
    for s in range(players):
        ch = ("cuca", "pancho", "yoli", "chucho", "mima")[s]
        if s in humans:
            seats.append({"seat": s, "kind": "human", "name": f"H{s}", "player": f"p{s}", "level": "random",
                          "character": ch})
        else:
            seats.append({"seat": s, "kind": "bot", "name": ch.title(), "level": "random", "character": ch})
    shell = await tables.open(preset, options, seats, seed=seed)
    watcher = Spy(tables, shell, "watcher", None, rng, stats)
    hello(tables, shell.id, "watcher", watcher.put, watch=True)
    for s in humans:
        spy = Spy(tables, shell, f"seat{s}", s, rng, stats)
        hello(tables, shell.id, f"seat{s}", spy.put, f"p{s}", f"H{s}")

    async def over() -> None:
        while shell.core.status != "finished":
            assert not shell.stopped, "the table stopped on a fault"
            await asyncio.sleep(0.01)

    await asyncio.wait_for(over(), timeout=120)  # a guard against hangs
    stats["hands"] += len(shell.core.match.hands)
    await shell.stop()


GAMES = [
    ("cubano", {}, [0, 1]),
    ("cubano", {"target": 150}, [0, 1, 2, 3]),
    ("cubano", {"target": 500}, [0, 3]),
    ("cubano-clasico", {"target": 500}, [1]),
    ("caribe", {"target": 500}, [0, 1, 2, 3]),
    ("cubano", {"redeal_five_doubles": "on_request", "target": 50}, [0, 2]),
    ("la-plaza", {"target": 50}, [0, 1, 2, 3]),
    ("draw", {"target": 50}, [0, 1, 3]),
    ("all-fives", {"target": 50}, [0, 1, 2, 3]),
    ("mano-a-mano", {"target": 50}, [0, 1]),
]


def test_no_frame_leaks_another_seats_tiles(bot_pool: Any) -> None:
    stats = {"frames": 0, "hands": 0, "said": 0, "public": 0}

    async def main() -> None:
        tables = make_tables(bot_pool)
        for i, (preset, options, humans) in enumerate(GAMES):
            await play_table(tables, preset, options, humans, f"leak-{i}", stats)
        await tables.close()

    asyncio.run(main())
    assert stats["hands"] >= 60 and stats["frames"] > 1000 and stats["said"] > 0 and stats["public"] > 300, stats
    print(stats)


def test_the_leak_check_catches_a_leak(bot_pool: Any) -> None:
    """The check above can fail: a table that puts another seat's hand in a frame is caught."""
    stats = {"frames": 0, "hands": 0, "said": 0, "public": 0}

    async def main() -> None:
        tables = make_tables(bot_pool)
        seats = [{"seat": s, "kind": "human", "name": f"H{s}", "player": f"p{s}"} for s in range(4)]
        shell = await tables.open("cubano", {}, seats, seed="leaky")
        spy = Spy(tables, shell, "seat0", 0, random.Random(1), stats)
        for s in range(4):  # seats 1-3 never play: the hand stays in play
            hello(tables, shell.id, f"seat{s}", spy.put if s == 0 else (lambda text: None), f"p{s}", f"H{s}")
        while shell.core.match.hand is None:
            await asyncio.sleep(0.01)
        hand = shell.core.match.hand
        with pytest.raises(AssertionError, match="of another hand"):
            spy.put(json.dumps({"type": "said", "seq": 0, "es": "", "en": "", "x": [list(t) for t in hand.hands[1]]}))
        await tables.close()

    asyncio.run(main())
