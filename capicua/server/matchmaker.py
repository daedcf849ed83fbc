"""The parque's matcher: every second, one round of :func:`capicua.store.queue.match_round`
in a worker thread, seating the players the pure :mod:`capicua.table.matchmaking`
groups at new tables (neighbours in the seats nobody took).

Every process of a cluster runs one; the store makes their rounds safe
(docs/architecture.md, "The parque"). A table a round opens is written to the
store with its players seated, in the transaction that takes them out of the
queue; it is loaded like any stored table, by its first player's hello, and each
player's page learns its table from its next poll of the queue.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Sequence
from typing import Any

from capicua.engine.rules import make_rules
from capicua.server.registry import new_table_id
from capicua.store import Store
from capicua.store.queue import NewTable, match_round
from capicua.table import neighbours
from capicua.table.log import Open, match_seed
from capicua.table.matchmaking import NEIGHBOUR_LEVEL, Group, Waiting, match
from capicua.table.seating import BOT, HUMAN, STAND_IN_LEVEL

log = logging.getLogger("capicua.server")

ROUND_EVERY_S = 1.0


def plan_tables(waiting: Sequence[Waiting], now_ms: int) -> list[NewTable]:
    """The tables to open for ``waiting`` now, each with its first log entry."""
    nicknames = {w.player: w.nickname for w in waiting}
    return [new_table(group, nicknames, now_ms) for group in match(waiting, now_ms, _seats_of)]


def _seats_of(preset: str) -> int:
    return make_rules(preset).players


def new_table(group: Group, nicknames: dict[str, str], now_ms: int) -> NewTable:
    """A table of the group's players in their seats (each with a stand-in, like a
    table's host) and a distinct neighbour in every other seat."""
    rules = make_rules(group.preset)
    humans = group.players
    bots = [s for s, p in enumerate(group.seats) if p is None]
    chosen = neighbours.choose_characters(
        random.SystemRandom(), [NEIGHBOUR_LEVEL] * len(bots) + [STAND_IN_LEVEL] * len(humans)
    )
    neighbour_characters, stand_ins = iter(chosen[: len(bots)]), iter(chosen[len(bots):])
    seats: list[dict[str, Any]] = []
    for seat, player in enumerate(group.seats):
        if player is None:
            ch = next(neighbour_characters)
            seats.append({"seat": seat, "kind": BOT, "name": ch.name, "level": NEIGHBOUR_LEVEL, "character": ch.id})
        else:
            ch = next(stand_ins)
            seats.append({"seat": seat, "kind": HUMAN, "name": nicknames.get(player, "?"), "player": player,
                          "level": STAND_IN_LEVEL, "character": ch.id})
    table_id = new_table_id()
    secret = secrets.token_hex(32)
    opening = Open(table_id, group.preset, {}, secret, tuple(seats), at=now_ms)
    return NewTable(table_id, humans, opening.to_json(), match_seed(secret, 1), rules.teams)


class Matcher:
    """Runs a round every ``every_s`` seconds while the app lives."""

    def __init__(self, store: Store, every_s: float = ROUND_EVERY_S) -> None:
        self.store = store
        self.every_s = every_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="capicua-matcher")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def round(self) -> list[NewTable]:
        """One round, off the loop."""
        return await asyncio.to_thread(match_round, self.store, plan_tables)

    async def _run(self) -> None:
        while True:
            try:
                opened = await self.round()
                for table in opened:
                    log.info("the parque's matcher opened table %s for %d players", table.table_id, len(table.players))
            except Exception as exc:  # the store failed: the queue waits for the next round
                log.warning("a round of the parque's matcher failed: %s: %s", type(exc).__name__, exc)
            await asyncio.sleep(self.every_s)
