"""What the kernel's jitted code takes and returns: the rules as an int64
parameter array ``R``, a position, the rows of results.

Games: every preset with a line layout and a set up to double-nine (tile
masks fit an int64) — ``cubano``, ``cubano-clasico``, ``caribe``,
``la-plaza``, ``fid``, ``mano-a-mano``, ``block``, ``draw``, ``all-fives``,
``fives-and-threes`` — with or without drawing, with in-play scoring, every
``domino_scoring`` / ``tranque_winner`` / ``tranque_scoring`` value and the
capicúa bonus. Cross layouts and double-twelve are not supported
(:func:`kernel_rules` raises ``ValueError``): use :mod:`capicua.engine.compact`.

Conventions (the same as :mod:`capicua.engine.compact`)
-----------------------------------------------------
* A hand is an int64 mask over tile indices (:func:`capicua.engine.tiles.tile_index`).
* The line is ``table = [left, right, left_is_double, right_is_double, tiles_played]``
  (int64, shape (5,)); ``left = -1`` means no tile has been laid yet.
* A move is ``(tile_index, end)`` with end ``0`` left, ``1`` right, ``-1``
  the opening tile (laid as ``(a, b)``, ``a <= b``: left end ``a``).
* Passes and draws are automatic; draws take ``boneyard[bpos]``, ``bpos+1``...
  while more than ``draw_reserve`` tiles remain.

Result rows (int64, ``RESULT_COLS`` columns)
--------------------------------------------
``[kind, seat, team, points, capicua, in_play_team0, ..., in_play_team4]``
with kind ``0`` domino, ``1`` tranque, ``2`` tie (seat = team = -1, points 0).
``points`` are the hand points won by ``team``; ``in_play_*`` are the points
each team scored during the rest of the hand (All Fives / Fives-and-Threes).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from capicua.engine.compact import FastState, fast_rules
from capicua.engine.rules import DEAL_OPENERS, FORCED_DOUBLE_OPENERS, Rules

# ---------------------------------------------------------------- layout of R
P_PLAYERS = 0
P_TEAMS = 1
P_NTILES = 2
P_MAXPIP = 3
P_DRAWING = 4
P_RESERVE = 5
P_INPLAY = 6  # 0 none, 1 fives, 2 fives and threes
P_DSCORE = 7  # 0 opponents, 1 all_hands, 2 muggins
P_TWINNER = 8  # 0 lowest_player, 1 lowest_team
P_TSCORE = 9  # 0 opponents, 1 all_hands, 2 difference, 3 muggins
P_BONUS = 10
P_HANDSIZE = 11
P_REDEAL5 = 12  # 1: automatic redeal on five doubles
P_OPENER = 13  # first-hand opener: 0 random seat, 1 highest double holder, 2 ... forced to lead it
P_DOUBLES = 14  # mask of the doubles
OFF_A = 16
OFF_B = OFF_A + 64
OFF_PIPS = OFF_B + 64
OFF_NUM = OFF_PIPS + 64
OFF_TEAM = OFF_NUM + 16
R_SIZE = OFF_TEAM + 8

MAX_TEAMS = 5
RESULT_COLS = 5 + MAX_TEAMS
KIND_DOMINO, KIND_TRANQUE, KIND_TIE = 0, 1, 2


@lru_cache(maxsize=64)
def _kernel_rules(rules: Rules) -> np.ndarray:
    if rules.layout != "line":
        raise ValueError(f"the kernel plays line layouts only (not {rules.layout!r}); use capicua.engine.compact")
    r = fast_rules(rules)
    if r.n_tiles > 63:
        raise ValueError("the kernel holds hands in int64 masks: sets up to double-nine")
    if r.teams > MAX_TEAMS:
        raise ValueError(f"at most {MAX_TEAMS} teams")
    R = np.zeros(R_SIZE, dtype=np.int64)
    R[P_PLAYERS] = r.players
    R[P_TEAMS] = r.teams
    R[P_NTILES] = r.n_tiles
    R[P_MAXPIP] = r.max_pip
    R[P_DRAWING] = 1 if r.drawing else 0
    R[P_RESERVE] = r.draw_reserve
    R[P_INPLAY] = r.in_play
    R[P_DSCORE] = r.domino_scoring
    R[P_TWINNER] = r.tranque_winner
    R[P_TSCORE] = r.tranque_scoring
    R[P_BONUS] = r.capicua_bonus
    R[P_HANDSIZE] = rules.hand_size
    R[P_REDEAL5] = 1 if rules.redeal_five_doubles == "automatic" else 0
    if rules.first_opener in FORCED_DOUBLE_OPENERS:
        R[P_OPENER] = 2
    elif rules.first_opener in DEAL_OPENERS:
        R[P_OPENER] = 1
    R[P_DOUBLES] = r.doubles_mask
    for i in range(r.n_tiles):
        R[OFF_A + i] = r.tile_a[i]
        R[OFF_B + i] = r.tile_b[i]
        R[OFF_PIPS + i] = r.tile_pips[i]
    for v in range(r.max_pip + 1):
        R[OFF_NUM + v] = r.num_mask[v]
    for s in range(r.players):
        R[OFF_TEAM + s] = r.team_of[s]
    R.setflags(write=False)
    return R


def kernel_rules(rules: Rules) -> np.ndarray:
    """The int64 parameter array of ``rules`` (read-only, cached).
    Raises ``ValueError`` for a cross layout or a set past double-nine."""
    return _kernel_rules(rules)


class Position(NamedTuple):
    """A position as the kernel takes it (see the module docstring)."""

    hands: np.ndarray  # int64 (players,)
    table: np.ndarray  # int64 (5,): left, right, left double, right double, tiles played
    turn: int
    passes: int
    opener: int
    required: int  # tile the opener must lead, or -1
    boneyard: np.ndarray  # int64 (B,)
    bpos: int


def position(state: FastState) -> Position:
    """The kernel's view of a line-layout :class:`FastState` whose hand is not over."""
    if state.result is not None:
        raise ValueError("the hand is over")
    if state.r.layout != 0:
        raise ValueError("the kernel plays line layouts only")
    table = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    if state.center >= 0:
        table[0], table[1] = state.ends
        table[2] = int(state.end_double[0])
        table[3] = int(state.end_double[1])
        table[4] = state.arm_tiles + 1
    return Position(
        np.array(state.hands, dtype=np.int64),
        table,
        state.turn,
        state.passes,
        state.opener,
        state.required_first,
        np.array(state.boneyard, dtype=np.int64),
        state.bpos,
    )


def int64_array(a: Any, ndim: int) -> np.ndarray:
    """``a`` as a C-contiguous int64 array of ``ndim`` dimensions (what the
    jitted functions are compiled for); raises ``ValueError`` for another shape."""
    arr = np.ascontiguousarray(a, dtype=np.int64)
    if arr.ndim != ndim:
        if ndim == 2 and arr.size == 0:
            return arr.reshape(arr.shape[0] if arr.ndim else 0, 0)
        raise ValueError(f"expected a {ndim}-d array, got shape {arr.shape}")
    return arr
