"""The fast path: one hand in progress as integers and bitmasks.

The rich :class:`~capicua.engine.state.Match` is the reference: it validates,
records and explains. Bots need something else: millions of playouts. This
module holds the same rules over a compact state:

* each hand is an ``int`` bitmask over tile indices
  (:func:`capicua.engine.tiles.tile_index`: bit ``i`` set means the seat holds
  tile ``full_set(max_pip)[i]``);
* the open ends are small ints in a list, one per arm, in the rich engine's
  ``arm_order`` (``0`` left, ``1`` right for a line; ``0..3`` left, right,
  up, down for a cross; ``4, 5, ...`` the arms a double opens in the
  double-nine cross);
* ``FastRules.num_mask[v]`` is the mask of the tiles that hold number ``v``,
  so "does seat s hold a tile for end e" is ``hands[s] & num_mask[ends[e]]``;
* the boneyard is a tuple of tile indices with a read position ``bpos``
  (draws take ``boneyard[bpos]``, exactly as the rich engine pops the front).

A move is a pair ``(tile_index, end_index)``; the opening tile has end
``-1`` and is laid as ``(a, b)`` with ``a <= b`` (left end ``a``). Moves are
listed in the rich engine's order: tiles in ascending index order, and for
each tile the ends in arm order, so a tile that fits two ends is two moves.

Passes and draws are automatic, as in the rich engine: after every move the
state advances until a seat has a choice or the hand is over; then
``state.result`` holds a :class:`FastResult`.

``apply(move)`` returns an undo token and ``undo(token)`` restores the state
exactly; ``play(move)`` is the same move without the token (playouts).

:func:`random_playout` and :func:`policy_playout` play a state out to the end
of the hand without changing it. Both draw random numbers the same way:
with ``n > 1`` legal moves a uniform move is ``moves[int(rng.random() * n)]``
(no draw at all when only one move exists), so a test can drive the rich
engine with the same generator and get the same hand.

Standard library only: the JIT kernel for bots lives in
:mod:`capicua.bots.kernel`, outside the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from capicua.engine.deal import MAX_DEALS
from capicua.engine.errors import NoDealError
from capicua.engine.rules import DEAL_OPENERS, FORCED_DOUBLE_OPENERS, Rules
from capicua.engine.state import next_opener as _next_opener
from capicua.engine.tiles import canonical, full_set, tile_index

if TYPE_CHECKING:
    from capicua.engine.state import Match

Move = tuple[int, int]

LINE, CROSS, NINE_CROSS = 0, 1, 2
_LAYOUTS = {"line": LINE, "cross": CROSS, "double-nine-cross": NINE_CROSS}
_IN_PLAY = {"none": 0, "fives": 1, "fives_and_threes": 2}
_DOMINO_SCORING = {"opponents": 0, "all_hands": 1, "muggins": 2}
_TRANQUE_WINNER = {"lowest_player": 0, "lowest_team": 1}
_TRANQUE_SCORING = {"opponents": 0, "all_hands": 1, "difference": 2, "muggins": 3}


class FastResult(NamedTuple):
    """How a hand ended, as the rich engine's ``hand.result`` says it.

    ``kind`` is ``"domino"``, ``"tranque"``, ``"tie"`` or ``"target"`` (an
    in-play score took ``team``'s match score to the target: the match ends
    there, ``points`` is 0); ``seat``/``team``
    are ``None`` on a tie; ``points`` are the hand points won by ``team``
    (capicúa bonus included); ``in_play`` are the points each team scored
    during this hand (All Fives, Fives-and-Threes), which are already in the
    state's ``scores``.
    """

    kind: str
    seat: int | None
    team: int | None
    points: int
    capicua: bool
    in_play: tuple[int, ...]
    pip_totals: tuple[int, ...]
    next_opener: int | None


class FastRules:
    """Tables precomputed once per :class:`Rules` (get them with :func:`fast_rules`)."""

    __slots__ = (
        "rules",
        "max_pip",
        "n_tiles",
        "players",
        "teams",
        "team_of",
        "tile_a",
        "tile_b",
        "tile_pips",
        "doubles_mask",
        "num_mask",
        "drawing",
        "draw_reserve",
        "layout",
        "in_play",
        "domino_scoring",
        "tranque_winner",
        "tranque_scoring",
        "capicua_bonus",
        "target",
        "next_seat",
        "uncovered_arms",
    )

    def __init__(self, rules: Rules) -> None:
        tiles = full_set(rules.max_pip)
        self.rules = rules
        self.max_pip = rules.max_pip
        self.n_tiles = len(tiles)
        self.players = rules.players
        self.teams = rules.teams
        self.team_of: tuple[int, ...] = tuple(rules.team_of(s) for s in range(rules.players))
        self.tile_a: tuple[int, ...] = tuple(a for a, _ in tiles)
        self.tile_b: tuple[int, ...] = tuple(b for _, b in tiles)
        self.tile_pips: tuple[int, ...] = tuple(a + b for a, b in tiles)
        self.doubles_mask = sum(1 << i for i, (a, b) in enumerate(tiles) if a == b)
        self.num_mask: tuple[int, ...] = tuple(
            sum(1 << i for i, (a, b) in enumerate(tiles) if v in (a, b)) for v in range(rules.max_pip + 1)
        )
        self.drawing = rules.drawing
        self.draw_reserve = rules.draw_reserve
        self.layout = _LAYOUTS[rules.layout]
        self.in_play = _IN_PLAY[rules.in_play_scoring]
        self.domino_scoring = _DOMINO_SCORING[rules.domino_scoring]
        self.tranque_winner = _TRANQUE_WINNER[rules.tranque_winner]
        self.tranque_scoring = _TRANQUE_SCORING[rules.tranque_scoring]
        self.capicua_bonus = rules.capicua_bonus
        self.target = rules.target
        self.next_seat: tuple[int, ...] = tuple((s + 1) % rules.players for s in range(rules.players))
        # uncovered spinner sides (a 4-bit mask) -> the arm indices still to cover, in order
        self.uncovered_arms: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i in range(4) if m >> i & 1) for m in range(16)
        )

    def mask_pips(self, mask: int) -> int:
        """Points in the tiles of ``mask``."""
        pips = self.tile_pips
        total = 0
        while mask:
            low = mask & -mask
            total += pips[low.bit_length() - 1]
            mask ^= low
        return total

    def mask_of(self, tiles: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> int:
        mp = self.max_pip
        m = 0
        for t in tiles:
            m |= 1 << tile_index(canonical(*t), mp)
        return m

    def tiles_of(self, mask: int) -> list[tuple[int, int]]:
        """The tiles of ``mask`` as canonical tuples, in index order."""
        return [(self.tile_a[i], self.tile_b[i]) for i in bits(mask)]


@lru_cache(maxsize=128)
def fast_rules(rules: Rules) -> FastRules:
    """The (cached) tables of ``rules``."""
    return FastRules(rules)


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _round5(x: int) -> int:
    return 5 * ((x + 2) // 5)


Undo = tuple[
    tuple[int, ...],
    int,
    tuple[int, ...],
    tuple[bool, ...],
    int,
    int,
    int,
    int,
    int,
    int,
    tuple[int, ...],
    tuple[int, ...],
    FastResult | None,
]


class FastState:
    """One hand in progress. Build it with :meth:`from_match` or :meth:`deal`.

    Public fields (read them; change them only through ``apply``/``play``):
    ``hands`` (list of masks), ``center`` (tile index of the first tile, -1
    before it), ``ends`` / ``end_double`` (per arm), ``uncovered`` (4-bit
    mask of spinner sides still to cover), ``arm_tiles`` (tiles laid after
    the first), ``turn`` (-1 once the hand is over), ``passes`` (in a row),
    ``last_player`` (-1: nobody yet), ``opener``, ``required_first`` (tile
    index the opener must lead, or -1), ``boneyard`` / ``bpos``, ``scores``
    (match scores per team, in-play points included), ``in_play`` (this
    hand's in-play points per team) and ``result``.
    """

    __slots__ = (
        "r",
        "hands",
        "center",
        "ends",
        "end_double",
        "uncovered",
        "arm_tiles",
        "turn",
        "passes",
        "last_player",
        "opener",
        "required_first",
        "boneyard",
        "bpos",
        "scores",
        "in_play",
        "result",
    )

    def __init__(
        self,
        rules: Rules | FastRules,
        hands: list[int],
        *,
        turn: int,
        opener: int | None = None,
        required_first: int = -1,
        boneyard: tuple[int, ...] = (),
        scores: list[int] | None = None,
    ) -> None:
        """A hand before its first tile: ``hands`` are masks, ``turn`` the opener."""
        r = rules if isinstance(rules, FastRules) else fast_rules(rules)
        self.r = r
        self.hands = list(hands)
        self.center = -1
        self.ends: list[int] = []
        self.end_double: list[bool] = []
        self.uncovered = 0
        self.arm_tiles = 0
        self.turn = turn
        self.passes = 0
        self.last_player = -1
        self.opener = turn if opener is None else opener
        self.required_first = required_first
        self.boneyard = tuple(boneyard)
        self.bpos = 0
        self.scores = list(scores) if scores is not None else [0] * r.teams
        self.in_play = [0] * r.teams
        self.result: FastResult | None = None

    # ------------------------------------------------------------ building
    @classmethod
    def from_match(cls, match: Match) -> FastState:
        """The current hand of a rich ``Match`` (phase ``play``, ``hand_over`` or ``match_over``)."""
        hand = match.hand
        if hand is None or match.phase not in ("play", "hand_over", "match_over"):
            raise ValueError(f"no hand in play to convert (phase {match.phase!r})")
        rules = match.rules
        r = fast_rules(rules)
        mp = rules.max_pip
        st = cls.__new__(cls)
        st.r = r
        st.hands = [r.mask_of(h) for h in hand.hands]
        if hand.center is None:
            st.center = -1
            st.ends = []
            st.end_double = []
        else:
            st.center = tile_index(canonical(*hand.center), mp)
            st.ends = [hand.ends[a] for a in hand.arm_order]
            st.end_double = [hand.end_double[a] for a in hand.arm_order]
        st.uncovered = 0
        for arm in hand.uncovered:
            st.uncovered |= 1 << hand.arm_order.index(arm)
        st.arm_tiles = sum(len(v) for v in hand.arms.values())
        st.turn = -1 if hand.turn is None else hand.turn
        st.passes = hand.passes_in_a_row
        st.last_player = -1 if hand.last_player is None else hand.last_player
        st.opener = hand.opener
        st.required_first = -1 if hand.required_first is None else tile_index(hand.required_first, mp)
        st.boneyard = tuple(tile_index(t, mp) for t in hand.boneyard)
        st.bpos = 0
        st.scores = list(match.scores)
        st.in_play = [0] * r.teams
        for action in hand.actions:
            if "score" in action:
                st.in_play[r.team_of[action["seat"]]] += action["score"]
        st.result = None
        res = hand.result
        if res is not None:
            st.turn = -1
            st.result = FastResult(
                res["kind"],
                res["seat"],
                res["team"],
                res["points"],
                res["capicua"],
                tuple(st.in_play),
                tuple(res["pip_totals"]),
                res["next_opener"],
            )
        return st

    @classmethod
    def deal(
        cls,
        rules: Rules | FastRules,
        rng: random.Random,
        opener: int | None = None,
        opener_rule: str | None = None,
    ) -> FastState:
        """The first hand's deal of the engine for the generator ``rng``: with
        ``rng = random.Random(hand_seed)`` the hands and the sleeping tiles are
        those of :func:`capicua.engine.deal.deal_hand` for that seed (held
        there by ``tests/engine/test_compact_deal.py``), without its records.

        Each try shuffles a fresh set, and a deal the rules void (five doubles
        with ``redeal_five_doubles=automatic``; no double at all when the
        opener is decided by the deal) is followed by the next shuffle of
        ``rng``; :class:`~capicua.engine.errors.NoDealError` after
        :data:`~capicua.engine.deal.MAX_DEALS` tries. The opener is ``opener``
        if given, else the rule ``opener_rule`` (default: the rules'
        ``first_opener``) decides: a deal rule picks the holder of the highest
        double, any other rule a random seat (``rng.randrange``, after the
        deal). A forced double opening (``highest_double`` /
        ``must_play_top_double``) requires the opener's highest double.
        """
        r = rules if isinstance(rules, FastRules) else fast_rules(rules)
        rl = r.rules
        rule = rl.first_opener if opener_rule is None else opener_rule
        n, size = r.players, rl.hand_size
        dm = r.doubles_mask
        for _ in range(MAX_DEALS):
            order = list(range(r.n_tiles))  # the set in tile index order, as engine.seeds.shuffled_set
            rng.shuffle(order)
            hands = [0] * n
            for s in range(n):
                m = 0
                for t in order[s * size : (s + 1) * size]:
                    m |= 1 << t
                hands[s] = m
            if rl.redeal_five_doubles == "automatic" and any((h & dm).bit_count() >= 5 for h in hands):
                continue
            if rule in DEAL_OPENERS and not any(h & dm for h in hands):
                continue
            break
        else:
            raise NoDealError(f"no deal stood in {MAX_DEALS} tries")
        if opener is None:
            if rule in DEAL_OPENERS:
                best = -1
                for s, h in enumerate(hands):
                    d = h & dm
                    if d and d.bit_length() - 1 > best:
                        best, opener = d.bit_length() - 1, s
            else:
                opener = rng.randrange(n)
        assert opener is not None
        top = hands[opener] & dm
        required = top.bit_length() - 1 if rule in FORCED_DOUBLE_OPENERS and top else -1
        return cls(r, hands, turn=opener, required_first=required, boneyard=tuple(order[n * size :]))

    @classmethod
    def from_view(cls, rules: Rules | FastRules, view: dict[str, Any]) -> FastState:
        """The position a seat's ``view`` shows, with what it cannot see left
        empty: the table, the turn, the passes in a row, the last player, the
        opener, the match scores and this hand's in-play points; the viewing
        seat holds its own tiles, every other hand is empty and there is no
        boneyard (:meth:`with_hidden` fills them from a sampled deal).
        ``required_first`` is the tile the seat must lead when its legal
        moves say so (the only opening play of a hand holding more), else -1."""
        r = rules if isinstance(rules, FastRules) else fast_rules(rules)
        mp = r.max_pip
        st = cls.__new__(cls)
        st.r = r
        hands = [0] * r.players
        seat = view.get("seat")
        if seat is not None:
            hands[seat] = r.mask_of([(int(a), int(b)) for a, b in view["hand"]])
        st.hands = hands
        arms: dict[str, list[Any]] = view.get("arms") or {}
        if view.get("center") is None:
            st.center = -1
            st.ends = []
            st.end_double = []
            st.uncovered = 0
        else:
            st.center = tile_index(canonical(*view["center"]), mp)
            ends = view["ends"]
            st.ends = [int(e["value"]) for e in ends]
            st.end_double = [bool(e["double"]) for e in ends]
            st.uncovered = 0
            if r.layout != LINE:
                # The view marks the spinner sides still to cover as the only playable ends;
                # with none covered yet every side is playable and every side uncovered.
                playable = [i for i, e in enumerate(ends) if e["playable"]]
                if len(playable) < len(ends) or not any(arms.values()):
                    for i in playable:
                        st.uncovered |= 1 << i
        st.arm_tiles = sum(len(v) for v in arms.values())
        turn = view.get("turn")
        st.turn = -1 if turn is None else int(turn)
        passes = 0
        last_player = -1
        in_play = [0] * r.teams
        for action in view.get("history") or []:
            if "play" in action:
                passes = 0
                last_player = int(action["seat"])
                if "score" in action:
                    in_play[r.team_of[last_player]] += int(action["score"])
            elif action.get("pass"):
                passes += 1
        st.passes = passes
        st.last_player = last_player
        opener = view.get("opener")
        st.opener = 0 if opener is None else int(opener)
        st.required_first = -1
        if st.center < 0 and seat is not None and seat == turn:
            openings = [a["tile"] for a in view.get("legal") or [] if "tile" in a]
            if len(openings) == 1 and hands[seat].bit_count() > 1:
                st.required_first = tile_index(canonical(*openings[0]), mp)
        st.boneyard = ()
        st.bpos = 0
        st.scores = [int(x) for x in view["scores"]]
        st.in_play = in_play
        st.result = None
        return st

    def with_hidden(self, hands: list[int], boneyard: tuple[int, ...]) -> FastState:
        """A copy whose hands are ``hands`` (masks, every seat) and whose boneyard,
        in draw order, is ``boneyard``: a view's position completed by a deal."""
        st = self.copy()
        st.hands = list(hands)
        st.boneyard = boneyard
        st.bpos = 0
        return st

    def copy(self) -> FastState:
        st = FastState.__new__(FastState)
        st.r = self.r
        st.hands = self.hands[:]
        st.center = self.center
        st.ends = self.ends[:]
        st.end_double = self.end_double[:]
        st.uncovered = self.uncovered
        st.arm_tiles = self.arm_tiles
        st.turn = self.turn
        st.passes = self.passes
        st.last_player = self.last_player
        st.opener = self.opener
        st.required_first = self.required_first
        st.boneyard = self.boneyard
        st.bpos = self.bpos
        st.scores = self.scores[:]
        st.in_play = self.in_play[:]
        st.result = self.result
        return st

    def snapshot(self) -> tuple[object, ...]:
        """Every field as a comparable tuple (two states are the same iff snapshots are equal)."""
        return (
            tuple(self.hands),
            self.center,
            tuple(self.ends),
            tuple(self.end_double),
            self.uncovered,
            self.arm_tiles,
            self.turn,
            self.passes,
            self.last_player,
            self.opener,
            self.required_first,
            self.boneyard[self.bpos :],
            tuple(self.scores),
            tuple(self.in_play),
            self.result,
        )

    # --------------------------------------------------------- legal moves
    def playable_arms(self) -> tuple[int, ...]:
        """Arm indices that may be played on now (the uncovered spinner sides first)."""
        if self.uncovered:
            return self.r.uncovered_arms[self.uncovered]
        return tuple(range(len(self.ends)))

    def fitting(self, seat: int) -> int:
        """Mask of the tiles of ``seat`` that fit some playable end (or may open)."""
        h = self.hands[seat]
        if self.center < 0:
            rf = self.required_first
            if rf >= 0:
                return h & (1 << rf)
            return h
        nm = self.r.num_mask
        ends = self.ends
        if self.r.layout == LINE:
            return h & (nm[ends[0]] | nm[ends[1]])
        m = 0
        for a in self.playable_arms():
            m |= nm[ends[a]]
        return h & m

    def legal_moves(self) -> list[Move]:
        """The moves of the seat on turn, in the rich engine's order (empty once the hand is over)."""
        if self.result is not None:
            return []
        h = self.hands[self.turn]
        if self.center < 0:
            rf = self.required_first
            if rf >= 0:
                return [(rf, -1)] if h >> rf & 1 else []
            return [(t, -1) for t in bits(h)]
        nm = self.r.num_mask
        ends = self.ends
        fits = []  # (arm, tiles fitting it), only the arms some tile fits
        u = 0
        for a in self.playable_arms():
            m = h & nm[ends[a]]
            if m:
                fits.append((a, m))
                u |= m
        out: list[Move] = []
        while u:
            low = u & -u
            t = low.bit_length() - 1
            for a, m in fits:
                if m & low:
                    out.append((t, a))
            u ^= low
        return out

    def distinct_moves(self) -> list[Move]:
        """:meth:`legal_moves` without the moves equivalent to an earlier one.

        Two plays of one tile are the same move when the ends they cover show
        the same number and, where the open count scores (All Fives,
        Fives-and-Threes), count the same (a double counts twice, except the
        double blank): the two positions then differ only by which arm is
        which (and by a kind of end no rule reads), and no rule
        reads an arm's name (a cross's spinner sides are all uncovered or all
        covered among the playable arms; the capicúa compares the two ends of
        a line, symmetric; a double-nine cross opens the same two arms). Kept:
        the first of each class, in legal order."""
        if self.center >= 0 and self.r.layout == LINE and self.result is None:
            # the hot case of the exact endgame: a line, one class per tile and end
            keys = self._end_keys()
            h = self.hands[self.turn]
            nm = self.r.num_mask
            ml = h & nm[self.ends[0]]
            mr = 0 if keys[0] == keys[1] else h & nm[self.ends[1]]
            u = ml | mr
            line: list[Move] = []
            while u:
                low = u & -u
                t = low.bit_length() - 1
                if ml & low:
                    line.append((t, 0))
                if mr & low:
                    line.append((t, 1))
                u ^= low
            return line
        moves = self.legal_moves()
        if self.center < 0 or len(moves) < 2:
            return moves
        keys = self._end_keys()
        out: list[Move] = []
        last_tile = -1
        seen: list[int] = []
        for t, a in moves:
            if t != last_tile:
                last_tile = t
                seen = []
            k = keys[a]
            if k in seen:
                continue
            seen.append(k)
            out.append((t, a))
        return out

    def _end_keys(self) -> list[int]:
        """Per arm, what covering it changes that the rules read: the number it
        shows and, where the open count scores, what it adds to the count (a
        double counts twice, but a double blank adds nothing either way)."""
        if self.r.in_play:
            dbl = self.end_double
            return [2 * v + (dbl[a] and v > 0) for a, v in enumerate(self.ends)]
        return self.ends

    def equivalence_key(self, move: Move) -> tuple[int, int]:
        """Equal for two legal moves exactly when :meth:`distinct_moves` counts them as one."""
        tile, arm = move
        return (tile, -1 if arm < 0 else self._end_keys()[arm])

    # -------------------------------------------------------------- moves
    def apply(self, move: Move) -> Undo:
        """Play ``move`` (assumed legal) and advance; returns the token :meth:`undo` needs."""
        token: Undo = (
            tuple(self.hands),
            self.center,
            tuple(self.ends),
            tuple(self.end_double),
            self.uncovered,
            self.arm_tiles,
            self.turn,
            self.passes,
            self.last_player,
            self.bpos,
            tuple(self.scores),
            tuple(self.in_play),
            self.result,
        )
        self.play(move)
        return token

    def undo(self, token: Undo) -> None:
        """Return to the state before the :meth:`apply` that gave ``token``."""
        (
            hands,
            self.center,
            ends,
            end_double,
            self.uncovered,
            self.arm_tiles,
            self.turn,
            self.passes,
            self.last_player,
            self.bpos,
            scores,
            in_play,
            self.result,
        ) = token
        self.hands = list(hands)
        self.ends = list(ends)
        self.end_double = list(end_double)
        self.scores = list(scores)
        self.in_play = list(in_play)

    def play(self, move: Move) -> None:
        """Play ``move`` (assumed legal) and advance, without an undo token."""
        r = self.r
        tile, arm = move
        seat = self.turn
        h = self.hands[seat] & ~(1 << tile)
        self.hands[seat] = h
        self.passes = 0
        self.last_player = seat
        a = r.tile_a[tile]
        b = r.tile_b[tile]
        capicua = False
        if self.center < 0:
            self.center = tile
            if r.layout == LINE:
                self.ends = [a, b]
                self.end_double = [a == b, a == b]
            else:
                self.ends = [a, a, a, a]
                self.end_double = [a == b] * 4
                self.uncovered = 15
        else:
            ends = self.ends
            inner = ends[arm]
            outer = b if a == inner else a
            if r.layout == LINE and not h:
                other = ends[1 - arm]
                capicua = outer == other and inner != other
            ends[arm] = outer
            self.end_double[arm] = a == b
            self.arm_tiles += 1
            self.uncovered &= ~(1 << arm)
            if r.layout == NINE_CROSS and a == b:
                ends.append(outer)
                ends.append(outer)
                self.end_double.append(True)
                self.end_double.append(True)
        if r.in_play:
            count = self.open_count()
            if count > 0 and (count % 5 == 0 or (r.in_play == 2 and count % 3 == 0)):
                team = r.team_of[seat]
                self.scores[team] += count
                self.in_play[team] += count
                if self.scores[team] >= r.target:  # a last tile's capicúa still counts (RULES.md §3)
                    self._finish("target", seat, team, 0, capicua, tuple(r.mask_pips(x) for x in self.hands))
                    return
        if not h:
            self._end_domino(seat, capicua)
            return
        self.turn = r.next_seat[seat]
        self._advance()

    def in_play_points(self, move: Move) -> int:
        """The points the seat on turn scores at once by playing ``move`` (legal)
        where the open count scores (All Fives, Fives-and-Threes); 0 elsewhere.

        The move is played and undone, so the count is :meth:`play`'s own; the
        hidden hands do not enter it (a position from :meth:`from_view` will do)."""
        if not self.r.in_play:
            return 0
        team = self.r.team_of[self.turn]
        before = self.in_play[team]
        token = self.apply(move)
        points = self.in_play[team] - before
        self.undo(token)
        return points

    def open_count(self) -> int:
        """Sum of the open ends as in-play scoring counts it (a double at an end counts twice)."""
        if self.center < 0:
            return 0
        if self.arm_tiles == 0:
            return self.r.tile_pips[self.center]
        total = 0
        for v, d in zip(self.ends, self.end_double, strict=True):
            total += 2 * v if d else v
        return total

    def _advance(self) -> None:
        r = self.r
        drawing = r.drawing
        while True:
            seat = self.turn
            if self.fitting(seat):
                return
            if drawing and len(self.boneyard) - self.bpos > r.draw_reserve:
                self.hands[seat] |= 1 << self.boneyard[self.bpos]
                self.bpos += 1
                continue
            self.passes += 1
            if self.passes >= r.players:
                self._end_tranque()
                return
            self.turn = r.next_seat[seat]

    # ------------------------------------------------------------ scoring
    def _end_domino(self, seat: int, capicua: bool) -> None:
        team, points, totals = domino_points(self.r, self.hands, seat, capicua)
        self._finish("domino", seat, team, points, capicua, totals)

    def _end_tranque(self) -> None:
        seat, team, points, totals = tranque_points(self.r, self.hands, self.opener)
        self._finish("tie" if team is None else "tranque", seat, team, points, False, totals)

    def _finish(
        self, kind: str, seat: int | None, team: int | None, points: int, capicua: bool, totals: tuple[int, ...]
    ) -> None:
        if team is not None:
            self.scores[team] += points
        self.turn = -1
        self.result = FastResult(
            kind,
            seat,
            team,
            points,
            capicua,
            tuple(self.in_play),
            totals,
            next_opener(self.r, kind, seat, self.opener, self.last_player, totals),
        )


def domino_points(r: FastRules, hands: list[int], seat: int, capicua: bool) -> tuple[int, int, tuple[int, ...]]:
    """(team, points, pip totals) when ``seat`` has gone out."""
    totals = tuple(r.mask_pips(h) for h in hands)
    team = r.team_of[seat]
    tof = r.team_of
    if r.domino_scoring == 0:
        points = sum(t for s, t in enumerate(totals) if tof[s] != team)
    elif r.domino_scoring == 1:
        points = sum(totals)
    else:
        points = sum(_round5(t) for s, t in enumerate(totals) if tof[s] != team)
    if capicua:
        points += r.capicua_bonus
    return team, points, totals


def tranque_points(
    r: FastRules, hands: list[int], opener: int
) -> tuple[int | None, int | None, int, tuple[int, ...]]:
    """(seat, team, points, pip totals) of a blocked hand; seat and team are None on a tie."""
    totals = tuple(r.mask_pips(h) for h in hands)
    tof = r.team_of
    n = r.players
    team_totals = [0] * r.teams
    for s, t in enumerate(totals):
        team_totals[tof[s]] += t
    lowest = tranque_teams(r, totals)
    if len(lowest) != 1:
        return None, None, 0, totals
    (win,) = lowest
    seat = min((s for s in range(n) if tof[s] == win), key=lambda s: (totals[s], (s - opener) % n))
    mode = r.tranque_scoring
    if mode == 0:
        points = sum(t for s, t in enumerate(totals) if tof[s] != win)
    elif mode == 1:
        points = sum(totals)
    elif mode == 2:
        points = sum(max(0, v - team_totals[win]) for t, v in enumerate(team_totals) if t != win)
    else:
        points = sum(_round5(max(0, t - totals[seat])) for s, t in enumerate(totals) if tof[s] != win)
    return seat, win, points, totals


def tranque_teams(r: FastRules, totals: Sequence[float]) -> frozenset[int]:
    """The lightest teams of a blocked hand whose seats hold ``totals`` pips,
    by the rules' ``tranque_winner``: one wins the hand, more tie it.
    Estimated (fractional) totals are read the same way."""
    tof = r.team_of
    if r.tranque_winner == 0:
        low = min(totals)
        return frozenset(tof[s] for s, t in enumerate(totals) if t == low)
    team_totals = [0.0] * r.teams
    for s, t in enumerate(totals):
        team_totals[tof[s]] += t
    low = min(team_totals)
    return frozenset(t for t, v in enumerate(team_totals) if v == low)


def next_opener(
    r: FastRules, kind: str, seat: int | None, opener: int, last_player: int, totals: tuple[int, ...]
) -> int | None:
    """Who opens the next hand (None: decided by the next deal): the engine's own rule."""
    return _next_opener(r.rules, kind, seat, opener, None if last_player < 0 else last_player, list(totals))


def margin(result: FastResult, team: int, in_play_before: list[int] | tuple[int, ...]) -> float:
    """``team``'s points minus the mean of the other teams' points, counted from
    the position whose in-play points per team were ``in_play_before``: the
    in-play points scored since, plus the hand's result (a match ended at the
    target gives only its in-play points)."""
    teams = len(result.in_play)
    gains = [result.in_play[t] - in_play_before[t] for t in range(teams)]
    if result.team is not None:
        gains[result.team] += result.points
    if teams == 2:
        return float(gains[team] - gains[1 - team])
    return gains[team] - (sum(gains) - gains[team]) / (teams - 1)


# ------------------------------------------------------------------ playouts
def heaviest(r: FastRules, moves: list[Move]) -> Move:
    """The first move (in legal order) whose tile has the most points."""
    pips = r.tile_pips
    best = moves[0]
    bp = pips[best[0]]
    for m in moves:
        p = pips[m[0]]
        if p > bp:
            best, bp = m, p
    return best


def choose(r: FastRules, moves: list[Move], rng: random.Random, p: float) -> Move:
    """The policy of :func:`policy_playout` for one decision (``moves`` non-empty).

    One move: it, no random draw. ``p >= 1``: :func:`heaviest`, no draw.
    ``p <= 0``: ``moves[int(rng.random() * n)]``. Otherwise one draw ``u``;
    ``u < p``: heaviest, else a uniform move as above (a second draw).
    """
    n = len(moves)
    if n == 1:
        return moves[0]
    if p >= 1.0:
        return heaviest(r, moves)
    if p > 0.0 and rng.random() < p:
        return heaviest(r, moves)
    return moves[int(rng.random() * n)]


def random_playout(state: FastState, rng: random.Random) -> FastResult:
    """Play ``state`` out with uniform random moves; ``state`` is not changed."""
    return policy_playout(state, rng, 0.0)


def policy_playout(state: FastState, rng: random.Random, p: float) -> FastResult:
    """Play ``state`` out where every seat plays :func:`heaviest` with
    probability ``p`` and a uniform legal move otherwise (see :func:`choose`);
    ``state`` is not changed. ``p=1`` is deterministic ("botagorda")."""
    if state.result is not None:
        return state.result
    if state.center < 0 or state.r.layout != LINE:
        st = state.copy()
        r = st.r
        while st.result is not None or st.center < 0 or r.layout != LINE:
            if st.result is not None:
                return st.result
            st.play(choose(r, st.legal_moves(), rng, p))
        state = st
    return _line_playout(state, rng, p)


def _line_playout(st: FastState, rng: random.Random, p: float) -> FastResult:
    """The hot loop for a line layout once the first tile is down."""
    r = st.r
    hands = st.hands[:]
    n_players = r.players
    nm = r.num_mask
    ta = r.tile_a
    tb = r.tile_b
    tp = r.tile_pips
    nxt = r.next_seat
    rand = rng.random
    turn = st.turn
    passes = st.passes
    last_player = st.last_player
    bone = st.boneyard
    bpos = st.bpos
    nb = len(bone)
    drawing = r.drawing
    reserve = r.draw_reserve
    in_play_mode = r.in_play
    scores = st.scores[:]
    in_play = st.in_play[:]
    left, right = st.ends
    dleft, dright = st.end_double
    greedy = p >= 1.0
    mixed = 0.0 < p < 1.0
    while True:
        h = hands[turn]
        ml = h & nm[left]
        mr = h & nm[right]
        u = ml | mr
        if not u:
            if drawing and nb - bpos > reserve:
                hands[turn] = h | (1 << bone[bpos])
                bpos += 1
                continue
            passes += 1
            if passes >= n_players:
                seat, team, points, totals = tranque_points(r, hands, st.opener)
                kind = "tie" if team is None else "tranque"
                if team is not None:
                    scores[team] += points
                return FastResult(
                    kind, seat, team, points, False, tuple(in_play), totals,
                    next_opener(r, kind, seat, st.opener, last_player, totals),
                )
            turn = nxt[turn]
            continue
        n = ml.bit_count() + mr.bit_count()
        if n == 1:
            if ml:
                t = ml.bit_length() - 1
                arm = 0
            else:
                t = mr.bit_length() - 1
                arm = 1
        elif greedy or (mixed and rand() < p):
            t = -1
            arm = 0
            bp = -1
            while u:
                low = u & -u
                i = low.bit_length() - 1
                if tp[i] > bp:
                    bp = tp[i]
                    t = i
                    arm = 0 if ml & low else 1
                u ^= low
        else:
            k = int(rand() * n)
            t = -1
            arm = 0
            while True:
                low = u & -u
                if ml & low:
                    if k == 0:
                        t = low.bit_length() - 1
                        arm = 0
                        break
                    k -= 1
                if mr & low:
                    if k == 0:
                        t = low.bit_length() - 1
                        arm = 1
                        break
                    k -= 1
                u ^= low
        h ^= 1 << t
        hands[turn] = h
        passes = 0
        last_player = turn
        a = ta[t]
        b = tb[t]
        if arm == 0:
            inner = left
            other = right
            outer = b if a == inner else a
            left = outer
            dleft = a == b
        else:
            inner = right
            other = left
            outer = b if a == inner else a
            right = outer
            dright = a == b
        if in_play_mode:
            count = (2 * left if dleft else left) + (2 * right if dright else right)
            if count > 0 and (count % 5 == 0 or (in_play_mode == 2 and count % 3 == 0)):
                tm = r.team_of[turn]
                scores[tm] += count
                in_play[tm] += count
                if scores[tm] >= r.target:  # the match ends at once (rich engine: _end_at_target)
                    totals = tuple(r.mask_pips(x) for x in hands)
                    capicua = not h and outer == other and inner != other
                    return FastResult("target", turn, tm, 0, capicua, tuple(in_play), totals, None)
        if not h:
            capicua = outer == other and inner != other
            team, points, totals = domino_points(r, hands, turn, capicua)
            return FastResult(
                "domino", turn, team, points, capicua, tuple(in_play), totals,
                next_opener(r, "domino", turn, st.opener, last_player, totals),
            )
        turn = nxt[turn]


__all__ = [
    "FastResult",
    "FastRules",
    "FastState",
    "Move",
    "bits",
    "choose",
    "domino_points",
    "fast_rules",
    "heaviest",
    "margin",
    "next_opener",
    "policy_playout",
    "random_playout",
    "tranque_points",
    "tranque_teams",
]
