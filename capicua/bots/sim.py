"""A compact hand simulator for the bots' search.

The engine (:mod:`capicua.engine.state`) is the one source of truth for the
rules; this module re-states the *within-hand* rules with small integers so
that search can play thousands of hands per decision: tiles are indices into
the set, hands are lists of indices, the open ends are a list of numbers.
It supports every layout of the engine (line, cross, double-nine-cross),
drawing, in-play scoring and every hand-end scoring rule, and its agreement
with the engine is tested on random games (``tests/test_bots_sim.py``).

A :class:`Sim` is a full-information position (a determinization when it
was built from a sampled deal). ``value`` of a finished hand is the points
each team scored *from the position on* (in-play points plus the hand
result), so searches compare moves by what they still change.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from capicua.engine import Rules, rules_from_json
from capicua.engine.tiles import full_set, tile_index


class Static:
    """Per-rules constants, computed once per rules object."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = rules.players
        self.max_pip = rules.max_pip
        self.tiles = full_set(rules.max_pip)
        self.ta = [a for a, _ in self.tiles]
        self.tb = [b for _, b in self.tiles]
        self.tp = [a + b for a, b in self.tiles]
        self.nt = len(self.tiles)
        self.teams = rules.teams
        self.team_of = [rules.team_of(s) for s in range(self.n)]
        self.layout = rules.layout
        self.line = rules.layout == "line"
        self.drawing = rules.drawing
        self.reserve = rules.draw_reserve
        self.in_play = rules.in_play_scoring
        self.domino_scoring = rules.domino_scoring
        self.tranque_winner = rules.tranque_winner
        self.tranque_scoring = rules.tranque_scoring
        self.capicua_bonus = rules.capicua_bonus
        # Tiles holding number v.
        self.with_num = [[t for t in range(self.nt) if v in self.tiles[t]] for v in range(self.max_pip + 1)]
        # Simple, fast playouts: line layout, no drawing, no in-play scoring.
        self.simple = self.line and not self.drawing and self.in_play == "none"

    def index(self, tile: Any) -> int:
        a, b = int(tile[0]), int(tile[1])
        if a > b:
            a, b = b, a
        return tile_index((a, b), self.max_pip)


@lru_cache(maxsize=64)
def _static_for(key: str) -> Static:
    import json

    return Static(rules_from_json(json.loads(key)))


def static_of(rules: Rules | dict[str, Any]) -> Static:
    """The cached :class:`Static` for rules (a Rules object or ``rules.describe()``)."""
    import json

    if isinstance(rules, Rules):
        data = rules.to_json()
    else:
        data = {"preset": rules["preset"], "options": dict(rules.get("options", {}))}
    return _static_for(json.dumps(data, sort_keys=True))


def _round5(x: int) -> int:
    return 5 * ((x + 2) // 5)


class Sim:
    """A full-information position of one hand. Moves are ``(tile, arm)``; the
    first tile of a hand has arm ``-1``. ``turn`` is None once the hand is over."""

    __slots__ = (
        "st", "hands", "ends", "dbl", "uncovered", "started", "center", "arms_played",
        "boneyard", "turn", "passes", "gain", "over", "required_first",
    )

    def __init__(self, st: Static) -> None:
        self.st = st
        self.hands: list[list[int]] = [[] for _ in range(st.n)]
        self.ends: list[int] = []
        self.dbl: list[bool] = []
        self.uncovered: list[int] = []
        self.started = False
        self.center = -1
        self.arms_played = 0
        self.boneyard: list[int] = []
        self.turn: int | None = 0
        self.passes = 0
        self.gain = [0] * st.teams
        self.over = False
        self.required_first = -1

    def copy(self) -> Sim:
        c = Sim.__new__(Sim)
        c.st = self.st
        c.hands = [h[:] for h in self.hands]
        c.ends = self.ends[:]
        c.dbl = self.dbl[:]
        c.uncovered = self.uncovered[:]
        c.started = self.started
        c.center = self.center
        c.arms_played = self.arms_played
        c.boneyard = self.boneyard[:]
        c.turn = self.turn
        c.passes = self.passes
        c.gain = self.gain[:]
        c.over = self.over
        c.required_first = self.required_first
        return c

    # ------------------------------------------------------------ moves
    def moves(self, seat: int | None = None) -> list[tuple[int, int]]:
        """Legal moves of ``seat`` (default: the seat on turn)."""
        if seat is None:
            seat = self.turn
            if seat is None:
                return []
        st = self.st
        h = self.hands[seat]
        if not self.started:
            if self.required_first >= 0:
                return [(self.required_first, -1)] if self.required_first in h else []
            return [(t, -1) for t in h]
        ta, tb = st.ta, st.tb
        ends = self.ends
        out = []
        if st.line:
            left, right = ends
            same = left == right and self.dbl[0] == self.dbl[1]
            for t in h:
                a = ta[t]
                b = tb[t]
                if a == left or b == left:
                    out.append((t, 0))
                if not same and (a == right or b == right):
                    out.append((t, 1))
            return out
        arms = self.uncovered if self.uncovered else range(len(ends))
        seen: set[tuple[int, bool]] = set()
        for arm in arms:
            v = ends[arm]
            key = (v, self.dbl[arm])
            if key in seen:  # same number and kind of end: the moves are equivalent
                continue
            seen.add(key)
            for t in h:
                if ta[t] == v or tb[t] == v:
                    out.append((t, arm))
        return out

    def play(self, move: tuple[int, int]) -> None:
        """Apply a legal move of the seat on turn, then run passes/draws."""
        st = self.st
        seat = self.turn
        assert seat is not None
        t, arm = move
        self.hands[seat].remove(t)
        self.passes = 0
        a = st.ta[t]
        b = st.tb[t]
        capicua = False
        if not self.started:
            self.started = True
            self.center = t
            if st.line:
                self.ends = [a, b]
                self.dbl = [a == b, a == b]
            else:
                self.ends = [a, a, a, a]
                self.dbl = [True] * 4
                self.uncovered = [0, 1, 2, 3]
        else:
            ends = self.ends
            inner = ends[arm]
            outer = b if a == inner else a
            if st.line and st.capicua_bonus and a != b and len(self.hands[seat]) == 0:
                other = ends[1 - arm]
                capicua = inner != other and outer == other
            ends[arm] = outer
            self.dbl[arm] = a == b
            self.arms_played += 1
            if self.uncovered and arm in self.uncovered:
                self.uncovered.remove(arm)
            if a == b and st.layout == "double-nine-cross":
                ends.append(outer)
                ends.append(outer)
                self.dbl.append(True)
                self.dbl.append(True)
        if st.in_play != "none":
            count = self.open_count()
            if count > 0 and (count % 5 == 0 or (st.in_play == "fives_and_threes" and count % 3 == 0)):
                self.gain[st.team_of[seat]] += count
        if not self.hands[seat]:
            self._domino(seat, capicua)
            return
        self.turn = (seat + 1) % st.n
        self._advance()

    def open_count(self) -> int:
        if not self.started:
            return 0
        if self.arms_played == 0:
            return self.st.tp[self.center]
        total = 0
        for v, d in zip(self.ends, self.dbl, strict=True):
            total += v + v if d else v
        return total

    def _advance(self) -> None:
        st = self.st
        while True:
            seat = self.turn
            assert seat is not None
            if self.moves(seat):
                return
            if st.drawing and len(self.boneyard) > st.reserve:
                self.hands[seat].append(self.boneyard.pop())
                continue
            self.passes += 1
            if self.passes >= st.n:
                self._tranque()
                return
            self.turn = (seat + 1) % st.n

    # ---------------------------------------------------------- scoring
    def _totals(self) -> list[int]:
        tp = self.st.tp
        return [sum(tp[t] for t in h) for h in self.hands]

    def _domino(self, seat: int, capicua: bool) -> None:
        st = self.st
        totals = self._totals()
        team = st.team_of[seat]
        if st.domino_scoring == "opponents":
            points = sum(v for s, v in enumerate(totals) if st.team_of[s] != team)
        elif st.domino_scoring == "all_hands":
            points = sum(totals)
        else:
            points = sum(_round5(v) for s, v in enumerate(totals) if st.team_of[s] != team)
        if capicua:
            points += st.capicua_bonus
        self.gain[team] += points
        self.turn = None
        self.over = True

    def _tranque(self) -> None:
        st = self.st
        totals = self._totals()
        team_totals = [0] * st.teams
        for s, v in enumerate(totals):
            team_totals[st.team_of[s]] += v
        self.turn = None
        self.over = True
        if st.tranque_winner == "lowest_player":
            low = min(totals)
            teams = {st.team_of[s] for s, v in enumerate(totals) if v == low}
        else:
            low = min(team_totals)
            teams = {t for t, v in enumerate(team_totals) if v == low}
        if len(teams) != 1:
            return
        winner = teams.pop()
        mode = st.tranque_scoring
        if mode == "opponents":
            points = sum(v for s, v in enumerate(totals) if st.team_of[s] != winner)
        elif mode == "all_hands":
            points = sum(totals)
        elif mode == "difference":
            points = sum(max(0, v - team_totals[winner]) for t, v in enumerate(team_totals) if t != winner)
        else:
            members = [s for s in range(st.n) if st.team_of[s] == winner]
            seat = min(members, key=lambda s: totals[s])
            points = sum(_round5(max(0, v - totals[seat])) for s, v in enumerate(totals) if st.team_of[s] != winner)
        self.gain[winner] += points

    # ---------------------------------------------------------- values
    def margin(self, team: int) -> float:
        """Points of ``team`` minus the mean of the other teams' (from the position on)."""
        g = self.gain
        if len(g) == 2:
            return g[team] - g[1 - team]
        return g[team] - (sum(g) - g[team]) / (len(g) - 1)


# ---------------------------------------------------------------- building
def sim_from_public(st: Static, view: dict[str, Any]) -> Sim:
    """The public part of a position (ends, turn, passes) from a view; hands empty."""
    s = Sim(st)
    s.turn = view["turn"]
    if view.get("center") is not None:
        s.started = True
        s.center = st.index(view["center"])
        ends = view["ends"]
        s.ends = [int(e["value"]) for e in ends]
        s.dbl = [bool(e["double"]) for e in ends]
        playable = [i for i, e in enumerate(ends) if e["playable"]]
        s.uncovered = playable if len(playable) < len(ends) or _all_uncovered(view) else []
        s.arms_played = sum(len(v) for v in view["arms"].values())
    passes = 0
    for a in reversed(view.get("history") or []):
        if a.get("pass"):
            passes += 1
        elif "play" in a:
            break
    s.passes = passes
    return s


def _all_uncovered(view: dict[str, Any]) -> bool:
    # A cross whose spinner has no tile on any side: every side is still "uncovered".
    rules = view["rules"]
    return rules["layout"] != "line" and all(not v for v in view["arms"].values())


def sim_from_match(match: Any) -> Sim:
    """The full-information position of a live engine Match (for the cheating bot and tests)."""
    st = static_of(match.rules)
    hand = match.hand
    view = match.view(None)
    s = sim_from_public(st, view)
    s.hands = [[st.index(t) for t in h] for h in hand.hands]
    s.boneyard = [st.index(t) for t in reversed(hand.boneyard)]  # the engine draws from the front
    if hand.required_first is not None and hand.center is None:
        s.required_first = st.index(hand.required_first)
    s.turn = match.turn
    return s


def move_of_json(st: Static, sim: Sim, action: dict[str, Any]) -> tuple[int, int]:
    """The sim move for an engine action JSON (``{"tile": [a, b], "end": ...}``)."""
    t = st.index(action["tile"])
    end = action.get("end")
    if end is None:
        return (t, -1)
    if st.line:
        return (t, 0 if end == "left" else 1)
    arms = ["left", "right", "up", "down"]
    if end in arms:
        return (t, arms.index(end))
    return (t, int(end[3:]) - 1)


# ---------------------------------------------------------------- playouts
def playout(sim: Sim, rng: random.Random, policy: int = 0, generic: bool = False) -> Sim:
    """Play the hand to its end in place. ``policy`` 0: uniform random;
    1: heaviest tile (random tie-break); 2: heaviest tile with probability 3/4.
    Simple line games use an inlined loop that draws the same random numbers
    as the generic one (``generic=True`` forces the latter, for tests)."""
    st = sim.st
    if st.simple and not generic:
        _playout_simple(sim, rng, policy)
        return sim
    tp = st.tp
    rand = rng.random
    while not sim.over:
        sim.play(_pick(sim.moves(), policy, rand, tp))
    return sim


def _pick(ms: list[tuple[int, int]], policy: int, rand: Any, tp: list[int]) -> tuple[int, int]:
    if len(ms) == 1:
        return ms[0]
    if policy == 0 or (policy == 2 and rand() < 0.25):
        return ms[int(rand() * len(ms))]
    best = -1.0
    m = ms[0]
    for mv in ms:
        p = tp[mv[0]] + rand()
        if p > best:
            best = p
            m = mv
    return m


def _playout_simple(sim: Sim, rng: random.Random, policy: int) -> None:
    """Inlined playout for line layouts without drawing or in-play scoring
    (cubano and its variants, la-plaza, fid, block). Same rules as Sim.play."""
    st = sim.st
    ta, tb, tp = st.ta, st.tb, st.tp
    n = st.n
    rand = rng.random
    hands = sim.hands
    seat = sim.turn
    assert seat is not None
    passes = sim.passes
    if not sim.started:
        sim.play(_pick(sim.moves(), policy, rand, tp))
        if sim.over:
            return
        seat = sim.turn
        assert seat is not None
        passes = sim.passes
    left, right = sim.ends
    dl, dr = sim.dbl
    bonus = st.capicua_bonus
    while True:
        h = hands[seat]
        # Candidate plays: (tile, arm)
        cands = []
        for t in h:
            a = ta[t]
            b = tb[t]
            if a == left or b == left:
                cands.append((t, 0))
            if (a == right or b == right) and not (left == right and dl == dr):
                cands.append((t, 1))
        if not cands:
            passes += 1
            if passes >= n:
                sim.ends = [left, right]
                sim.dbl = [dl, dr]
                sim.passes = passes
                sim._tranque()
                return
            seat = (seat + 1) % n
            continue
        if len(cands) == 1:
            t, arm = cands[0]
        elif policy == 0 or (policy == 2 and rand() < 0.25):
            t, arm = cands[int(rand() * len(cands))]
        else:
            best = -1.0
            t, arm = cands[0]
            for c in cands:
                p = tp[c[0]] + rand()
                if p > best:
                    best = p
                    t, arm = c
        h.remove(t)
        passes = 0
        a = ta[t]
        b = tb[t]
        if arm == 0:
            inner = left
            outer = b if a == inner else a
            other = right
            left = outer
            dl = a == b
        else:
            inner = right
            outer = b if a == inner else a
            other = left
            right = outer
            dr = a == b
        sim.arms_played += 1
        if not h:
            sim.ends = [left, right]
            sim.dbl = [dl, dr]
            capicua = bool(bonus) and a != b and inner != other and outer == other
            sim._domino(seat, capicua)
            return
        seat = (seat + 1) % n
