"""The end of a hand in the kernel: who won and how many points, written
into a result row (:data:`capicua.bots.kernel.params.RESULT_COLS` columns).

A domino (:func:`end_domino`) and a tranque (:func:`end_tranque`, the lowest
player or team, every ``tranque_scoring``), as :mod:`capicua.engine.compact`
scores them; ``tests/bots/test_kernel_exact.py`` holds them to it.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from capicua.bots.kernel.bits import cttz
from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.params import (
    KIND_DOMINO,
    KIND_TIE,
    KIND_TRANQUE,
    OFF_PIPS,
    OFF_TEAM,
    P_BONUS,
    P_DSCORE,
    P_PLAYERS,
    P_TEAMS,
    P_TSCORE,
    P_TWINNER,
)


@njit(inline="always")
def _mask_pips(R: Any, m: Any) -> Any:
    total = 0
    while m:
        t = cttz(m)
        total += R[OFF_PIPS + t]
        m &= m - 1
    return total


@njit(inline="always")
def arm_ends(arm: Any, left: Any, right: Any) -> Any:
    """(inner, other): the end a tile on ``arm`` (0 left, 1 right) covers, and the one that stays."""
    if arm == 0:
        return left, right
    return right, left


@njit(inline="always")
def _round5(x: Any) -> Any:
    return 5 * ((x + 2) // 5)


@cached_njit()
def end_domino(R: Any, hands: Any, seat: Any, capicua: Any, out: Any, row: Any) -> None:
    n = R[P_PLAYERS]
    team = R[OFF_TEAM + seat]
    mode = R[P_DSCORE]
    points = 0
    for s in range(n):
        t = _mask_pips(R, hands[s])
        if mode == 1:
            points += t
        elif R[OFF_TEAM + s] != team:
            points += t if mode == 0 else _round5(t)
    if capicua:
        points += R[P_BONUS]
    out[row, 0] = KIND_DOMINO
    out[row, 1] = seat
    out[row, 2] = team
    out[row, 3] = points
    out[row, 4] = 1 if capicua else 0


@cached_njit()
def end_tranque(R: Any, hands: Any, opener: Any, totals: Any, tt: Any, out: Any, row: Any) -> None:
    n = R[P_PLAYERS]
    nt = R[P_TEAMS]
    for k in range(nt):
        tt[k] = 0
    for s in range(n):
        totals[s] = _mask_pips(R, hands[s])
        tt[R[OFF_TEAM + s]] += totals[s]
    win = -1
    if R[P_TWINNER] == 0:
        low = totals[0]
        for s in range(1, n):
            if totals[s] < low:
                low = totals[s]
        for s in range(n):
            if totals[s] == low:
                team = R[OFF_TEAM + s]
                if win == -1:
                    win = team
                elif win != team:
                    win = -2
    else:
        low = tt[0]
        for k in range(1, nt):
            if tt[k] < low:
                low = tt[k]
        for k in range(nt):
            if tt[k] == low:
                win = k if win == -1 else -2
    out[row, 4] = 0
    if win < 0:
        out[row, 0] = KIND_TIE
        out[row, 1] = -1
        out[row, 2] = -1
        out[row, 3] = 0
        return
    seat = -1
    for i in range(n):  # seats in order from the opener: the first lowest wins ties
        s = (opener + i) % n
        if R[OFF_TEAM + s] == win and (seat < 0 or totals[s] < totals[seat]):
            seat = s
    mode = R[P_TSCORE]
    points = 0
    if mode == 0:
        for s in range(n):
            if R[OFF_TEAM + s] != win:
                points += totals[s]
    elif mode == 1:
        for s in range(n):
            points += totals[s]
    elif mode == 2:
        for k in range(nt):
            if k != win and tt[k] > tt[win]:
                points += tt[k] - tt[win]
    else:
        for s in range(n):
            if R[OFF_TEAM + s] != win and totals[s] > totals[seat]:
                points += _round5(totals[s] - totals[seat])
    out[row, 0] = KIND_TRANQUE
    out[row, 1] = seat
    out[row, 2] = win
    out[row, 3] = points
