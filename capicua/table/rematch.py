""""Otra partida" by consent: who the next match at a finished table waits for.

After a match, each player who is at the table and plays their own seat says
"Otra partida" (a ``ready`` entry); the next match starts when all of them
have, and no seat is *gone*: a guest's seat whose player is not connected
blocks the start until someone decides what becomes of it — the host (or,
while the host is gone too, any player who is here) leaves it to its stand-in
(who then plays it from the first move: the match is not the absent guest's)
or seats a neighbour there; the host may also take the table back to its
lobby. Pure: the table core logs the decisions and starts the match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from capicua.table.seating import HUMAN, Seat


@dataclass(frozen=True, slots=True)
class RematchCheck:
    """The ready check of the next match (TABLE's ``rematch``)."""

    players: tuple[int, ...]  # the seats of the players here who play their own seat
    ready: tuple[int, ...]  # ... of them, those who said "Otra partida"
    gone: tuple[int, ...]  # guests' seats whose player is not here, undecided: they block the start
    stand_in: tuple[int, ...]  # gone seats left to their stand-in for the next match
    deciders: tuple[int, ...]  # who may decide on the gone seats: the host; while the host is gone, every player here

    @property
    def agreed(self) -> bool:
        """Everyone here said yes and no seat waits for a decision."""
        return bool(self.players) and len(self.ready) == len(self.players) and not self.gone

    def public(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "ready": list(self.ready),
            "gone": list(self.gone),
            "stand_in": list(self.stand_in),
            "deciders": list(self.deciders),
        }


def rematch_check(seats: list[Seat], ready: Iterable[int], left_to_stand_in: Iterable[int], host: str | None) -> RematchCheck:
    """Who the next match waits for, from the seats (who is connected), the seats that
    said "Otra partida" and those left to their stand-in, and the table's host."""
    said, left = set(ready), set(left_to_stand_in)
    players = tuple(s.seat for s in seats if s.is_human and s.online and s.controller == HUMAN)
    away = [s.seat for s in seats if s.is_human and not s.online]
    host_here = any(s.is_human and s.online and s.player is not None and s.player == host for s in seats)
    host_seats = tuple(s.seat for s in seats if host is not None and s.is_human and s.player == host)
    return RematchCheck(
        players=players,
        ready=tuple(s for s in players if s in said),
        gone=tuple(s for s in away if s not in left),
        stand_in=tuple(s for s in away if s in left),
        deciders=host_seats if host_here else (players if host is not None else ()),
    )
