"""Achievements: the table's great moments, each earned once, decided when a
match's results are written."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from capicua.standings.results import SeatResult


@dataclass(frozen=True, slots=True)
class Totals:
    """A guest's sums over their earlier results (what the counting achievements need)."""

    dominoes: int = 0
    hands_played: int = 0
    matches_won: int = 0


@dataclass(frozen=True, slots=True)
class Achievement:
    id: str
    name: str
    name_en: str
    description: str  # what was done, said once earned
    description_en: str
    goal: str  # how to earn it, said while it is still to earn
    goal_en: str
    test: Callable[[SeatResult, list[SeatResult], Totals], bool]


def _rivals_all(level: str) -> Callable[[SeatResult, list[SeatResult]], bool]:
    def check(row: SeatResult, rows: list[SeatResult]) -> bool:
        rivals = [r for r in rows if r.team != row.team]
        return bool(rivals) and all(r.bot_level == level for r in rivals)

    return check


_vs_experto = _rivals_all("experto")

CATALOGUE = (
    Achievement("primera_victoria", "Primera victoria", "First win",
                "Ganaste tu primera partida.", "You won your first match.",
                "Gana una partida.", "Win a match.",
                lambda r, rows, t: r.won and t.matches_won == 0),
    Achievement("primera_capicua", "Primera capicúa", "First capicúa",
                "Dominaste con una ficha que servía por las dos puntas.",
                "You went out with a tile that fitted both ends.",
                "Domina con una ficha que sirva por las dos puntas.", "Go out with a tile that fits both ends.",
                lambda r, rows, t: r.capicuas > 0),
    Achievement("doble_capicua", "Capicúa doble", "Two capicúas",
                "Dos capicúas en una misma partida.", "Two capicúas in one match.",
                "Haz dos capicúas en una misma partida.", "Make two capicúas in one match.",
                lambda r, rows, t: r.capicuas >= 2),
    Achievement("primera_pollona", "Primera pollona", "First pollona",
                "Ganaste la partida sin que los rivales se anotaran un tanto.",
                "You won a match with the rivals still on zero.",
                "Gana una partida sin que los rivales se anoten un tanto.", "Win a match with the rivals still on zero.",
                lambda r, rows, t: r.pollona),
    Achievement("viajera", "Viajera", "Viajera",
                "Pollona de una sola mano: todos los tantos del partido de un viaje.",
                "A pollona in one single hand: the whole target in one go.",
                "Da una pollona de una sola mano.", "Give a pollona in one single hand.",
                lambda r, rows, t: r.viajera),
    Achievement("tranque_ganado", "Tranque ganado", "Block won",
                "Tu pareja ganó una mano trancada.", "Your side won a blocked hand.",
                "Gana una mano trancada.", "Win a blocked hand.",
                lambda r, rows, t: r.tranques_won > 0),
    Achievement("diez_dominos", "Diez dominós", "Ten dominoes",
                "Te pegaste diez veces.", "You went out ten times.",
                "Pégate diez veces (en todas tus partidas).", "Go out ten times (over all your matches).",
                lambda r, rows, t: t.dominoes + r.dominoes >= 10),
    Achievement("cien_manos", "Cien manos", "A hundred hands",
                "Cien manos jugadas en el barrio.", "A hundred hands played.",
                "Juega cien manos.", "Play a hundred hands.",
                lambda r, rows, t: t.hands_played + r.hands_played >= 100),
    Achievement("con_la_gorda", "Dominó con la gorda", "Out with the big one",
                "Te pegaste con el doble mayor.", "You went out with the set's highest double.",
                "Pégate con el doble mayor.", "Go out with the set's highest double.",
                lambda r, rows, t: r.top_double_out > 0),
    Achievement("de_punta_a_punta", "De punta a punta", "Start to finish",
                "Ganaste la partida sin perder una mano.", "You won a match without losing a hand.",
                "Gana una partida sin perder una mano.", "Win a match without losing a hand.",
                lambda r, rows, t: r.won and r.hands_lost == 0),
    Achievement("contra_expertos", "Le ganaste a los expertos", "Beat the experts",
                "Ganaste una partida contra rivales expertos.", "You won a match against experto rivals.",
                "Gana una partida contra rivales expertos.", "Win a match against experto rivals.",
                lambda r, rows, t: r.won and _vs_experto(r, rows)),
    Achievement("pollona_a_expertos", "Pollona a los expertos", "A pollona for the experts",
                "Les diste pollona a rivales expertos.", "You gave experto rivals a pollona.",
                "Dale pollona a rivales expertos.", "Give experto rivals a pollona.",
                lambda r, rows, t: r.pollona and _vs_experto(r, rows)),
)
BY_ID = {a.id: a for a in CATALOGUE}


def still_to_earn(have: Iterable[str]) -> list[Achievement]:
    """The achievements of the catalogue a guest does not ``have`` yet, in its order
    (the profile lists them under the ones earned)."""
    got = set(have)
    return [a for a in CATALOGUE if a.id not in got]


def earned(row: SeatResult, rows: list[SeatResult], totals: Totals, have: frozenset[str]) -> list[Achievement]:
    """The achievements this match gives a guest that they do not ``have`` yet (none
    to a player who left for good)."""
    if row.player is None or row.left_for_good:
        return []
    return [a for a in CATALOGUE if a.id not in have and a.test(row, rows, totals)]
