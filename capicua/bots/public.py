"""What one seat's view says, decoded once per decision.

A view is JSON (``Match.view(seat)``). Every bot level, the inference, the
play model and the kernel's inputs need the same facts from it: the rules'
tables, the position on the table, who passed on which numbers, which
numbers each seat chose to leave open, which tiles the seat cannot see, and
which of its legal moves differ. :class:`PublicState` reads them once;
:func:`public_state` builds it (the one decoding of a view per decision,
counted by tests).

The equivalence of moves is the engine's compact core's
(:meth:`capicua.engine.compact.FastState.distinct_moves`): two plays of one
tile are the same move when the ends they cover show the same number and,
in games whose open count scores, the same kind of end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from capicua.engine import Rules, rules_from_json
from capicua.engine.compact import FastState, Move, fast_rules
from capicua.engine.tiles import canonical, tile_index


@dataclass
class Context:
    """The public state of a line just before a play: whose turn, the open ends
    (-1, -1 before the first tile), and per seat the bit masks of the numbers
    it passed on and of the numbers it opened, and per number the tiles
    showing it on the table."""

    seat: int
    left: int
    right: int
    passed: list[int]
    opened: list[int]
    table_count: list[int]


Play = tuple[Context, int, int]  # context before the play, tile index, end (0 left, 1 right, -1 opening)


@lru_cache(maxsize=64)
def _rules_of(key: str) -> Rules:
    return rules_from_json(json.loads(key))


def rules_of(described: dict[str, Any]) -> Rules:
    """The (cached) Rules of a view's ``rules`` (``Rules.describe()``)."""
    key = json.dumps({"preset": described["preset"], "options": dict(described.get("options", {}))}, sort_keys=True)
    return _rules_of(key)


class PublicState:
    """The facts of one seat's view (see the module docstring).

    ``r``: the rules' tables; ``base``: the position as a
    :class:`~capicua.engine.compact.FastState` holding only the seat's tiles
    (``with_hidden`` completes it with a sampled deal); ``me``, ``turn``,
    ``opener``; ``mine`` (the seat's tile indices), ``on_table`` (mask),
    ``unseen`` (tile indices the seat cannot see, ascending), ``counts``
    (tiles per seat), ``need`` (the same, 0 for the seat itself),
    ``boneyard`` (tiles in it); per seat ``passed`` (mask of the numbers it
    passed on, bit v) and ``passed_on`` (the same as sets), ``opened`` (mask
    of the numbers it chose to leave open: both numbers of an opening tile
    and of every tile in a cross, the outer number of a tile on a line);
    ``table_count`` (per number, tiles on the table showing it); ``plays``
    (line layouts: every play with the context before it) and ``now`` (the
    context at the decision); ``legal`` (the view's legal actions),
    ``candidates`` (the distinct ones, in legal order) and ``moves`` (their
    moves in the compact core)."""

    __slots__ = (
        "view", "rules", "r", "base", "me", "turn", "opener", "mine", "on_table", "unseen", "counts",
        "need", "boneyard", "passed", "passed_on", "opened", "table_count", "plays", "now", "legal",
        "candidates", "moves", "arm_names",
    )

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        rules = rules_of(view["rules"])
        self.rules = rules
        r = fast_rules(rules)
        self.r = r
        n = r.players
        self.base = FastState.from_view(r, view)
        seat = view.get("seat")
        self.me = -1 if seat is None else int(seat)
        turn = view.get("turn")
        self.turn = -1 if turn is None else int(turn)
        self.opener = int(view.get("opener") or 0)
        mp = r.max_pip
        self.mine = [tile_index(canonical(int(a), int(b)), mp) for a, b in view.get("hand") or []]
        self.arm_names = [str(e["end"]) for e in view.get("ends") or []]
        on_table = 0
        if view.get("center") is not None:
            on_table |= 1 << tile_index(canonical(*view["center"]), mp)
            for tiles in view["arms"].values():
                for t in tiles:
                    on_table |= 1 << tile_index(canonical(*t), mp)
        self.on_table = on_table
        known = on_table
        for t in self.mine:
            known |= 1 << t
        self.unseen = [t for t in range(r.n_tiles) if not known >> t & 1]
        self.counts = [int(c) for c in view["counts"]]
        self.need = [0 if s == self.me else self.counts[s] for s in range(n)]
        self.boneyard = int(view.get("boneyard") or 0)
        self.passed_on = [frozenset(int(v) for v in p) for p in view["passed_on"]]
        self.passed = [sum(1 << v for v in p) for p in self.passed_on]
        self._read_history(view.get("history") or [])
        self.legal: list[dict[str, Any]] = list(view.get("legal") or [])
        self.candidates: list[dict[str, Any]] = []
        self.moves: list[Move] = []
        if self.legal and "tile" in self.legal[0] and self.turn == self.me:
            distinct = set(self.base.distinct_moves())
            for action in self.legal:
                move = self.move_of(action)
                if move in distinct:
                    distinct.discard(move)
                    self.candidates.append(action)
                    self.moves.append(move)

    def _read_history(self, history: list[dict[str, Any]]) -> None:
        r = self.r
        n = r.players
        mp = r.max_pip
        line = r.layout == 0
        passed = [0] * n
        opened = [0] * n
        tcount = [0] * (mp + 1)
        left = right = -1
        plays: list[Play] = []
        for a in history:
            seat = int(a["seat"])
            if "play" not in a:
                if a.get("pass") and left >= 0 and line:
                    passed[seat] |= (1 << left) | (1 << right)
                continue
            x, y = int(a["play"][0]), int(a["play"][1])
            t = tile_index(canonical(x, y), mp)
            if a["end"] is None or not line:
                if line:
                    plays.append((Context(seat, left, right, list(passed), list(opened), list(tcount)), t, -1))
                    left, right = x, y
                opened[seat] |= (1 << x) | (1 << y)
            else:
                e = 0 if a["end"] == "left" else 1
                plays.append((Context(seat, left, right, list(passed), list(opened), list(tcount)), t, e))
                inner = left if e == 0 else right
                outer = y if x == inner else x
                if e == 0:
                    left = outer
                else:
                    right = outer
                opened[seat] |= 1 << outer
            tcount[x] += 1
            if y != x:
                tcount[y] += 1
        self.opened = opened
        self.table_count = tcount
        self.plays = plays
        self.now = Context(self.turn, left, right, passed, list(opened), list(tcount))

    def move_of(self, action: dict[str, Any]) -> Move:
        """The compact core's move of a legal action JSON (``{"tile": [a, b], "end": ...}``)."""
        t = tile_index(canonical(int(action["tile"][0]), int(action["tile"][1])), self.r.max_pip)
        end = action.get("end")
        return (t, -1) if end is None else (t, self.arm_names.index(end))

    def same_move(self, action: dict[str, Any]) -> dict[str, Any]:
        """The candidate that ``action`` (one of the legal plays) is equivalent to."""
        key = self.base.equivalence_key(self.move_of(action))
        for cand, move in zip(self.candidates, self.moves, strict=True):
            if self.base.equivalence_key(move) == key:
                return cand
        raise ValueError(f"{action!r} is not a legal play of this view")

    def tiles_left(self) -> int:
        """Tiles still in the seats' hands."""
        return sum(self.counts)


def public_state(view: dict[str, Any]) -> PublicState:
    """The :class:`PublicState` of ``view``: the one decoding of a view per decision."""
    return PublicState(view)


__all__ = ["Context", "Play", "PublicState", "public_state", "rules_of"]
