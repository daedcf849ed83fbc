"""No message sent to a seat ever contains a tile of another seat's hand
before the hand is over, nor a sleeping tile at all.

Tables run in-process with their real actor code. Every seat is a socket
(a test double of the websocket conn): each frame the table sends is turned
into the JSON that would go on the wire and checked, at the moment it is
sent, against the other seats' current hands and the sleeping tiles. The
human seats play random legal moves; some seats are bots (so that neighbour
chat frames are checked too). Draw games, individual games and the
five-doubles question are in the mix.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from typing import Any

import pytest

from capicua.server.tables import Conn, Seat, TableManager, dumps

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


class SpyConn(Conn):
    """A seat's socket that checks every frame and plays random legal moves."""

    def __init__(self, seat: int, rng: random.Random, stats: dict[str, int]) -> None:
        super().__init__()
        self.my_seat = seat
        self.rng = rng
        self.stats = stats
        self.acted: tuple[Any, ...] | None = None

    def put(self, frame: dict[str, Any]) -> None:
        wire = json.loads(dumps(frame))  # exactly what the socket would carry
        table = self.table
        assert table is not None
        m = table.match
        hand = m.hand
        seat = self.my_seat
        self.stats["frames"] += 1
        self.stats["chat"] += wire.get("type") == "chat"
        if hand is not None:
            seen = tiles_in(wire)
            sleeping = {tuple(t) for t in hand.boneyard}
            assert not (seen & sleeping), f"seat {seat} was sent sleeping tiles {seen & sleeping}: {wire}"
            if m.phase in ("play", "redeal_question"):
                others = {t for s, h in enumerate(hand.hands) if s != seat for t in h}
                leaked = seen & others
                assert not leaked, f"seat {seat} was sent {leaked} of another hand: {wire}"
                view = wire.get("view")
                if view is not None:
                    assert view["revealed"] is None and view["seat"] == seat
                    assert [tuple(t) for t in view["hand"]] == hand.hands[seat]
        self._react(wire)

    def _react(self, f: dict[str, Any]) -> None:
        v = f.get("view")
        if f.get("type") not in ("event", "sync") or v is None:
            return
        table = self.table
        assert table is not None
        key = (v["hand_number"], len(v["history"]), v["phase"])
        if self.acted == key:
            return
        if v["phase"] in ("play", "redeal_question") and v["turn"] == self.my_seat and v["legal"]:
            self.acted = key
            move = self.rng.choice(v["legal"])
            if "redeal" in move:
                intent = {"type": "redeal", "seq": f["seq"], "accept": move["redeal"]}
            else:
                intent = {"type": "play", "seq": f["seq"], "tile": move["tile"], "end": move["end"]}
            table.post("intent", self, intent)
        elif v["phase"] == "hand_over":
            self.acted = key
            table.post("intent", self, {"type": "next_hand", "seq": f["seq"]})


async def play_table(
    manager: TableManager, preset: str, options: dict[str, Any], humans: list[int], seed: str, stats: dict[str, int]
) -> None:
    from capicua.engine import make_rules

    players = make_rules(preset, **options).players
    rng = random.Random(seed)
    seats = []
    for s in range(players):
        if s in humans:
            seats.append(Seat(s, "human", f"H{s}", token_hash=hashlib.sha256(f"{seed}/{s}".encode()).hexdigest()))
        else:
            ch = ("cuca", "pancho", "yoli", "chucho", "mima")[s]
            seats.append(Seat(s, "bot", ch.title(), level="random", character=ch))
    table = await manager.create(preset, options, seats, seed=seed)
    for s in humans:
        conn = SpyConn(s, rng, stats)
        conn.table = table
        table.post("join", conn, s, 0)
    await asyncio.wait_for(table.over.wait(), timeout=120)  # a guard against hangs
    assert table.crashed is None
    stats["hands"] += len(table.match.hands)
    await table.stop()


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
    stats = {"frames": 0, "hands": 0, "chat": 0}

    async def main() -> None:
        manager = TableManager(None, bot_pool, bot_delay=(0.0, 0.0))
        for i, (preset, options, humans) in enumerate(GAMES):
            await play_table(manager, preset, options, humans, f"leak-{i}", stats)
        await manager.close()

    asyncio.run(main())
    assert stats["hands"] >= 60 and stats["frames"] > 1000 and stats["chat"] > 0, stats


def test_the_leak_check_catches_a_leak(bot_pool: Any) -> None:
    """The check above can fail: a table that puts another seat's hand in a frame is caught."""
    stats = {"frames": 0, "hands": 0, "chat": 0}

    async def main() -> None:
        manager = TableManager(None, bot_pool, bot_delay=(0.0, 0.0))
        seats = [Seat(s, "human", f"H{s}", token_hash="x") for s in range(4)]
        table = await manager.create("cubano", {}, seats, seed="leaky")
        conn = SpyConn(0, random.Random(1), stats)
        conn.table = table
        table.post("join", conn, 0, 0)
        for s in (1, 2, 3):  # sockets that never play: the hand stays in play
            table.post("join", Conn(), s, 0)
        await table.call(lambda t: None)  # the joins and the deal are done
        hand = table.match.hand
        assert hand is not None
        with pytest.raises(AssertionError, match="of another hand"):
            conn.put({"type": "chat", "seq": table.seq, "es": "", "en": "", "x": [list(t) for t in hand.hands[1]]})
        await manager.close()

    asyncio.run(main())
