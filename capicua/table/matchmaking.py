"""Who the parque's matcher seats together ("Jugar con gente"), as a pure function.

Players wait for one game (a preset). The oldest waiting player is matched
first: with the players of the same game whose rating is near theirs, the window
widening the longer either has waited (so a strong or a new player is not left
alone for ever). A table opens as soon as enough near players wait to fill it;
once a player's wait for neighbours has run out (the 30 s, 1 min, 2 min they
chose; never for "nunca"), their table opens with the near players who accept
neighbours at all (a human sooner beats more humans later), and neighbours in the
other seats. Nobody is in two groups.

The store claims a group's players and opens its table in one transaction
(:mod:`capicua.store.queue`); this module only decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The waits a player may choose before neighbours fill the empty seats (seconds); None: never.
WAITS: tuple[int | None, ...] = (30, 60, 120, None)
# Rating distance (openskill μ) accepted at once, and how much it widens per second waited:
# ±3 at first, ±10.5 after 30 s, ±18 after a minute (a new player's σ is 8.3).
WINDOW_BASE = 3.0
WINDOW_PER_S = 0.25
# The neighbours who fill a matched table's empty seats.
NEIGHBOUR_LEVEL = "medio"


@dataclass(frozen=True, slots=True)
class Waiting:
    """One player in the queue."""

    player: str
    preset: str
    rating: float  # μ on the friends' board
    joined_ms: int
    wait_s: int | None  # seconds before neighbours may fill the table; None: never
    nickname: str = ""

    def window(self, now_ms: int) -> float:
        """How far from this player's rating a partner or rival may be, now."""
        return WINDOW_BASE + WINDOW_PER_S * max(0, now_ms - self.joined_ms) / 1000

    def due(self, now_ms: int) -> bool:
        """Their wait ran out: neighbours may take the seats nobody else took."""
        return self.wait_s is not None and now_ms - self.joined_ms >= self.wait_s * 1000


@dataclass(frozen=True, slots=True)
class Group:
    """A table to open: ``seats[i]`` is the player of seat ``i``, None for a neighbour."""

    preset: str
    seats: tuple[str | None, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p is not None)


def match(waiting: Sequence[Waiting], now_ms: int, seats_of: Callable[[str], int]) -> list[Group]:
    """The tables to open now from ``waiting`` (``seats_of(preset)``: the game's seats),
    oldest players first; each player in one group at most."""
    groups: list[Group] = []
    taken: set[str] = set()
    queue = sorted(waiting, key=lambda w: (w.joined_ms, w.player))
    for first in queue:
        if first.player in taken:
            continue
        n = seats_of(first.preset)
        near = sorted(
            (
                w for w in queue
                if w.player != first.player and w.player not in taken and w.preset == first.preset
                and abs(w.rating - first.rating) <= max(first.window(now_ms), w.window(now_ms))
            ),
            key=lambda w: (abs(w.rating - first.rating), w.joined_ms),
        )
        if len(near) >= n - 1:
            chosen = [first, *near[: n - 1]]
        elif first.due(now_ms):
            chosen = [first, *[w for w in near if w.wait_s is not None][: n - 1]]
        else:
            continue
        taken.update(w.player for w in chosen)
        groups.append(Group(first.preset, seat_order(chosen, n)))
    return groups


def seat_order(chosen: Sequence[Waiting], n: int) -> tuple[str | None, ...]:
    """Seats for a group: at a full table of four the strongest and the weakest are
    partners (seats 0 and 2) against the two between; fewer players sit side by side
    from seat 0 (rivals, each with a neighbour for partner), neighbours in the rest."""
    if len(chosen) == 4 and n == 4:
        a, b, c, d = sorted(chosen, key=lambda w: (w.rating, w.player))
        return (a.player, b.player, d.player, c.player)
    players: list[str | None] = [w.player for w in chosen]
    return tuple(players + [None] * (n - len(players)))
