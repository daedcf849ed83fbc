"""Experience and levels: points for every hand and match played (more for
winning) and a curve of Cuban level names, from the newcomer upward.

A level is its number; its name is only display text. The first is not "Mirón":
a mirón is the table's word for a spectator, and a level is a seated player's."""

from __future__ import annotations

from dataclasses import dataclass

from capicua.standings.results import SeatResult

XP_HAND = 5
XP_HAND_WON = 5  # on top of XP_HAND
XP_MATCH = 50  # so that a first match, even lost, makes a newcomer a fledgling
XP_MATCH_WON = 50  # on top of XP_MATCH
XP_PER_LEVEL = 50  # level n from 50·n²·(n+1)/2 experience on: 50, 300, 900, 2000, …


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    name: str
    name_en: str


LEVELS = (
    Level(0, "Recién llegado", "Newcomer"),
    Level(1, "Pichón", "Fledgling"),
    Level(2, "Aprendiz", "Apprentice"),
    Level(3, "Jugador de portal", "Porch player"),
    Level(4, "Fajador", "Scrapper"),
    Level(5, "Duro de la cuadra", "Toughest on the block"),
    Level(6, "Tranquero", "Blocker"),
    Level(7, "Capicuero", "Capicúa maker"),
    Level(8, "Bárbaro", "Ace"),
    Level(9, "Maestro", "Master"),
    Level(10, "Campeón del barrio", "Neighbourhood champion"),
    Level(11, "Leyenda del parque", "Legend of the park"),
)


def xp_of(row: SeatResult) -> int:
    """The experience one match gives a seat; a player who left for good earns none."""
    if row.left_for_good:
        return 0
    return (
        XP_HAND * row.hands_played + XP_HAND_WON * row.hands_won + XP_MATCH + (XP_MATCH_WON if row.won else 0)
    )


def level_xp(number: int) -> int:
    """The experience at which level ``number`` begins."""
    return XP_PER_LEVEL * number * number * (number + 1) // 2


def level_of(xp: int) -> Level:
    number = 0
    while number + 1 < len(LEVELS) and xp >= level_xp(number + 1):
        number += 1
    return LEVELS[number]


def next_xp(level: Level) -> int | None:
    """Where the next level begins (``None`` at the top)."""
    return level_xp(level.number + 1) if level.number + 1 < len(LEVELS) else None
