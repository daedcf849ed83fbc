"""Match and hand state: legal moves, check-then-change actions, automatic
passes and draws, scoring, per-seat views and match records.

A :class:`Match` is driven like this::

    match = Match(make_rules("cubano"), seed="abc")
    match.start_hand()
    while match.phase != "match_over":
        if match.phase == "hand_over":
            match.start_hand()
            continue
        seat = match.turn
        match.apply(seat, choose(match.legal_moves()))

Passes and draws are automatic: after every action the engine advances
until a seat has a choice to make or the hand is over, and records each
automatic pass or draw as a public event.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

from capicua.engine.deal import (
    Deal,
    HandDeals,
    deal_hand,
    doubles_in,
    opener_rule,
)
from capicua.engine.errors import (
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
    PhaseError,
)
from capicua.engine.rules import DEAL_OPENERS, FORCED_DOUBLE_OPENERS, Rules
from capicua.engine.seeds import hand_seed, seed_hash, setup_seed
from capicua.engine.tiles import (
    Tile,
    canonical,
    full_set,
    hand_pips,
    parse_tile,
)

RECORD_FORMAT = "capicua-record/1"
LINE_ARMS = ("left", "right")
CROSS_ARMS = ("left", "right", "up", "down")


@dataclass(frozen=True)
class Play:
    """Play ``tile`` on the open end ``end``.

    For the first tile of a hand ``end`` is ``None`` and the tile's order
    names the two ends: ``(left, right)``.
    """

    tile: Tile
    end: str | None

    def key(self) -> tuple[Tile, str | None]:
        return (canonical(*self.tile), self.end)

    def to_json(self) -> dict[str, Any]:
        return {"tile": list(self.tile), "end": self.end}


@dataclass(frozen=True)
class RedealAnswer:
    """Answer to the five-doubles question (``redeal_five_doubles=on_request``)."""

    accept: bool

    def to_json(self) -> dict[str, Any]:
        return {"redeal": self.accept}


Action = Play | RedealAnswer


def parse_action(raw: Any, max_pip: int) -> Action:
    """Read an action from JSON-like input (``{"tile": [a, b], "end": "left"}``
    or ``{"redeal": true}``); raises :class:`MalformedActionError`."""
    if not isinstance(raw, dict):
        raise MalformedActionError("an action is an object")
    if "redeal" in raw:
        if type(raw["redeal"]) is not bool:
            raise MalformedActionError("redeal is true or false")
        return RedealAnswer(raw["redeal"])
    if "tile" not in raw:
        raise MalformedActionError("a play names a tile")
    tile = parse_tile(raw["tile"], max_pip)
    end = raw.get("end")
    if end is not None and not isinstance(end, str):
        raise MalformedActionError("end is the name of an open end, or null for the first tile")
    return Play(tile, end)


class Hand:
    """The state of one hand. Owned by a :class:`Match`; read it, don't mutate it."""

    def __init__(self, number: int, seed: str, players: int) -> None:
        self.number = number
        self.seed = seed
        self.seed_hash = seed_hash(seed)
        self.dealt: tuple[Deal, ...] = ()  # every deal made, the last one is played
        self.voided: list[dict[str, Any]] = []  # why each earlier deal was voided
        self.shown: list[int] = []  # seats that showed five doubles (on_request), in order
        self.first_deal: Deal | None = None  # a deal given by start_hand_with_deal
        self.hands: list[list[Tile]] = [[] for _ in range(players)]
        self.initial: list[list[Tile]] = [[] for _ in range(players)]
        self.boneyard: list[Tile] = []
        self.opener_rule = ""
        self.opener_drawn = 0
        self.opener = 0
        self.required_first: Tile | None = None
        self.turn: int | None = None
        self.center: Tile | None = None
        self.arms: dict[str, list[Tile]] = {}
        self.arm_order: list[str] = []
        self.ends: dict[str, int] = {}
        self.end_double: dict[str, bool] = {}
        self.uncovered: list[str] = []  # spinner sides still to be played on (cross layouts)
        self.actions: list[dict[str, Any]] = []
        self.passes_in_a_row = 0
        self.passed_on: list[set[int]] = [set() for _ in range(players)]
        self.last_player: int | None = None
        self.last: dict[str, Any] | None = None
        self.in_play_points: list[int] = []
        self.pending_redeal: list[int] = []
        self.result: dict[str, Any] | None = None
        # "seed": the deal comes from the hand's seed; "given": from start_hand_with_deal.
        self.deal_source = "seed"
        self.given_deal: dict[str, Any] | None = None
        self.opener_given: int | None = None

    @property
    def deals(self) -> list[dict[str, Any]]:
        """Every deal made (JSON, as records hold them); the last one is played."""
        return [d.to_json() for d in self.dealt]

    def playable_arms(self) -> list[str]:
        return list(self.uncovered) if self.uncovered else list(self.arm_order)


class Match:
    """A whole match: hands played until a side reaches the target."""

    def __init__(self, rules: Rules, seed: str) -> None:
        if not isinstance(seed, str) or not seed:
            raise MalformedActionError("a match seed is a non-empty string")
        self.rules = rules
        self.seed = seed
        self.scores = [0] * rules.teams
        self.hands: list[Hand] = []
        self.sheet: list[dict[str, Any]] = []
        self.phase = "new"  # new | redeal_question | play | hand_over | match_over
        self.match_result: dict[str, Any] | None = None
        self.setup = self._draw_setup()

    # ------------------------------------------------------------------ setup
    def _draw_setup(self) -> dict[str, Any]:
        """Draws made before the first hand: who opens it (RULES.md §1, §2)."""
        rules = self.rules
        rng = random.Random(setup_seed(self.seed))
        n = rules.players
        rule = rules.first_opener
        if rule in ("random_seat", "fid_rotation"):
            return {"kind": rule, "opener": rng.randrange(n)}
        if rule == "team_draw":
            draws = []
            while True:
                drawers = [rng.choice(rules.seats_of_team(t)) for t in range(rules.teams)]
                drawn = rng.sample(full_set(rules.max_pip), rules.teams)
                totals = [a + b for a, b in drawn]
                draws.append({"drawers": drawers, "tiles": [list(t) for t in drawn]})
                best = max(totals)
                if totals.count(best) == 1:
                    opener = drawers[totals.index(best)]
                    return {"kind": rule, "opener": opener, "draws": draws}
        if rule == "parity_guess":
            drawer = rng.randrange(n)
            if rules.partnership:
                guesser = (drawer + rng.choice((1, 3))) % n
            else:
                guesser = (drawer + 1) % n
            tile = rng.choice(full_set(rules.max_pip))
            guess = rng.choice(("even", "odd"))
            right = (tile[0] + tile[1]) % 2 == (0 if guess == "even" else 1)
            return {
                "kind": rule,
                "drawer": drawer,
                "guesser": guesser,
                "tile": list(tile),
                "guess": guess,
                "opener": guesser if right else drawer,
            }
        return {"kind": rule, "opener": None}  # decided by the deal

    # ------------------------------------------------------------ properties
    @property
    def hand(self) -> Hand | None:
        return self.hands[-1] if self.hands else None

    @property
    def turn(self) -> int | None:
        h = self.hand
        if h is None or self.phase not in ("play", "redeal_question"):
            return None
        return h.turn

    def clone(self) -> Match:
        return copy.deepcopy(self)

    # ----------------------------------------------------------- hand start
    def _opener_rule(self, number: int) -> str:
        if number == 1:
            return opener_rule(self.rules, number, None)
        prev = self.hands[-1].result
        assert prev is not None
        return opener_rule(self.rules, number, prev["kind"])

    def start_hand(self, present: frozenset[int] | set[int] | None = None) -> list[dict[str, Any]]:
        """Deal the next hand and let it run to the first choice.

        ``present`` names the seats held by connected humans: when the first
        opener was drawn at random and the drawn seat is not present but its
        partner is, the partner opens instead (RULES.md §1).
        """
        return self._start_hand(present, None, None)

    def start_hand_with_deal(
        self,
        hands: list[list[Tile]],
        sleeping: list[Tile],
        opener: int | None = None,
        present: frozenset[int] | set[int] | None = None,
    ) -> list[dict[str, Any]]:
        """For tests and puzzles: start the next hand from a given deal instead of the seed's.

        ``hands[seat]`` are the tiles dealt to each seat and ``sleeping`` the
        sleeping tiles in the order they would be drawn; together they must be
        the whole set, ``hand_size`` tiles per seat. ``opener`` (optional)
        replaces the seat the rules would choose (the partner substitution of
        ``present`` still applies to the first hand). Every rule applies to the
        given deal as to a dealt one: if the rules void it (five doubles, no
        double), the next deals come from the hand's seed as usual. The record
        marks the hand ``"deal_source": "given"`` and stores the given deal so
        that :func:`replay` can rebuild it.
        """
        self._check_phase_for_start()
        rules = self.rules
        if not isinstance(hands, (list, tuple)) or len(hands) != rules.players:
            raise MalformedActionError(f"a deal gives tiles to each of the {rules.players} seats")
        given_hands: list[list[Tile]] = []
        for h in hands:
            if not isinstance(h, (list, tuple)) or len(h) != rules.hand_size:
                raise MalformedActionError(f"each seat is dealt {rules.hand_size} tiles")
            given_hands.append(sorted(canonical(*parse_tile(t, rules.max_pip)) for t in h))
        if not isinstance(sleeping, (list, tuple)):
            raise MalformedActionError("the sleeping tiles are a list")
        given_sleeping = [canonical(*parse_tile(t, rules.max_pip)) for t in sleeping]
        everything = sorted([t for h in given_hands for t in h] + given_sleeping)
        if everything != full_set(rules.max_pip):
            raise MalformedActionError(f"hands and sleeping tiles must hold every tile of the double-{rules.max_pip} set once")
        if opener is not None and (type(opener) is not int or not 0 <= opener < rules.players):
            raise MalformedActionError(f"opener must be a seat from 0 to {rules.players - 1}")
        if opener is not None and self._opener_rule(len(self.hands) + 1) in FORCED_DOUBLE_OPENERS:
            if not any(t[0] == t[1] for t in given_hands[opener]):
                raise MalformedActionError(f"seat {opener} must open with a double and holds none")
        return self._start_hand(present, (given_hands, given_sleeping), opener)

    def _check_phase_for_start(self) -> None:
        if self.phase not in ("new", "hand_over"):
            raise PhaseError("a hand is already being played" if self.phase != "match_over" else "the match is over")

    def _start_hand(
        self,
        present: frozenset[int] | set[int] | None,
        given: tuple[list[list[Tile]], list[Tile]] | None,
        opener_given: int | None,
    ) -> list[dict[str, Any]]:
        self._check_phase_for_start()
        number = len(self.hands) + 1
        hand = Hand(number, hand_seed(self.seed, number), self.rules.players)
        hand.opener_rule = self._opener_rule(number)
        if number == 1:
            drawn = self.setup["opener"]
        else:
            prev = self.hands[-1].result
            assert prev is not None
            drawn = prev["next_opener"]
        if given is not None:
            hand.deal_source = "given"
            hand.first_deal = Deal(tuple(tuple(h) for h in given[0]), tuple(given[1]))
            hand.given_deal = hand.first_deal.to_json()
            hand.opener_given = opener_given
        events: list[dict[str, Any]] = []
        # Deal before the hand joins the match: a NoDealError leaves the match as it was.
        self._take_deal(hand, self._deals_of(hand, []), events)
        self.hands.append(hand)
        if hand.opener_rule in DEAL_OPENERS:
            drawn = self._highest_double_holder(hand)
        if opener_given is not None and not hand.voided:
            drawn = opener_given
        assert drawn is not None
        hand.opener_drawn = drawn
        hand.opener = drawn
        partner = self.rules.partner_of(drawn)
        if (
            number == 1
            and present
            and self.rules.first_opener in ("random_seat", "fid_rotation")
            and drawn not in present
            and partner is not None
            and partner in present
        ):
            hand.opener = partner
        self._set_required_first(hand)
        events.insert(
            0,
            {
                "kind": "hand_start",
                "hand_number": number,
                "opener": hand.opener,
                "opener_drawn": hand.opener_drawn,
                "seed_hash": hand.seed_hash,
            },
        )
        self._after_deal(hand, events)
        return events

    def _set_required_first(self, hand: Hand) -> None:
        hand.required_first = None
        if hand.opener_rule in FORCED_DOUBLE_OPENERS:
            hand.required_first = max(doubles_in(hand.hands[hand.opener]))

    def _highest_double_holder(self, hand: Hand) -> int:
        best: tuple[Tile, int] | None = None
        for seat, tiles in enumerate(hand.hands):
            for t in tiles:
                if t[0] == t[1] and (best is None or t > best[0]):
                    best = (t, seat)
        assert best is not None  # a deal with no double was voided
        return best[1]

    def _deals_of(self, hand: Hand, shown: list[int]) -> HandDeals:
        """Every deal of ``hand`` once the seats ``shown`` have shown five doubles
        (raises :class:`NoDealError` when none stands; nothing has changed then)."""
        return deal_hand(self.rules, hand.seed, hand.opener_rule, shown, hand.first_deal)

    def _take_deal(self, hand: Hand, dealt: HandDeals, events: list[dict[str, Any]]) -> None:
        """Make ``dealt.standing`` the hand's tiles; each new void is a public ``redeal`` event."""
        for void in dealt.voided[len(hand.voided) :]:
            events.append({"kind": "redeal", **void})
        hand.dealt = dealt.deals
        hand.voided = [copy.deepcopy(v) for v in dealt.voided]
        standing = dealt.standing
        hand.hands = [list(h) for h in standing.hands]
        hand.initial = [list(h) for h in standing.hands]
        hand.boneyard = list(standing.sleeping)

    def _after_deal(self, hand: Hand, events: list[dict[str, Any]]) -> None:
        if self.rules.redeal_five_doubles == "on_request":
            start = hand.opener
            order = [(start + i) % self.rules.players for i in range(self.rules.players)]
            hand.pending_redeal = [s for s in order if len(doubles_in(hand.hands[s])) >= 5]
        if hand.pending_redeal:
            self.phase = "redeal_question"
            hand.turn = hand.pending_redeal[0]
            return
        self.phase = "play"
        hand.turn = hand.opener
        self._advance(events)

    # ----------------------------------------------------------- legal moves
    def legal_moves(self) -> list[Action]:
        """Every action the seat on turn may choose (empty when nobody has a choice)."""
        hand = self.hand
        if hand is None or hand.turn is None:
            return []
        if self.phase == "redeal_question":
            return [RedealAnswer(True), RedealAnswer(False)]
        if self.phase != "play":
            return []
        return list(self._plays(hand, hand.turn))

    def _plays(self, hand: Hand, seat: int) -> list[Play]:
        tiles = hand.hands[seat]
        if hand.center is None:
            if hand.required_first is not None:
                return [Play(hand.required_first, None)] if hand.required_first in tiles else []
            return [Play(t, None) for t in tiles]
        moves = []
        arms = hand.playable_arms()
        for t in tiles:
            for arm in arms:
                v = hand.ends[arm]
                if t[0] == v or t[1] == v:
                    moves.append(Play(t, arm))
        return moves

    # -------------------------------------------------------------- actions
    def check(self, seat: int, action: Action) -> None:
        """Raise the specific error that ``apply(seat, action)`` would raise; change nothing."""
        if type(seat) is not int or not 0 <= seat < self.rules.players:
            raise MalformedActionError(f"seat must be a number from 0 to {self.rules.players - 1}")
        if not isinstance(action, (Play, RedealAnswer)):
            raise MalformedActionError("unknown action")
        if isinstance(action, Play):
            parse_tile(action.tile, self.rules.max_pip)  # a pair of numbers of this set, else malformed
            if action.end is not None and not isinstance(action.end, str):
                raise MalformedActionError("end is the name of an open end, or null for the first tile")
        elif type(action.accept) is not bool:
            raise MalformedActionError("redeal is true or false")
        hand = self.hand
        if self.phase not in ("play", "redeal_question") or hand is None:
            raise PhaseError("no hand is being played" if self.phase != "match_over" else "the match is over")
        if seat != hand.turn:
            raise OutOfTurnError(f"it is not your turn (seat {hand.turn} is to play)")
        if self.phase == "redeal_question":
            if not isinstance(action, RedealAnswer):
                raise PhaseError("answer the five-doubles question first")
            return
        if not isinstance(action, Play):
            raise PhaseError("there is no redeal question now")
        tile = canonical(*action.tile)
        if tile not in hand.hands[seat]:
            raise IllegalActionError(f"you do not hold {tile[0]}-{tile[1]}")
        if hand.center is None:
            if action.end is not None:
                raise IllegalActionError("the first tile of a hand is played with end null")
            if hand.required_first is not None and tile != hand.required_first:
                a, b = hand.required_first
                raise IllegalActionError(f"this hand must be opened with {a}-{b}")
            return
        if action.end not in hand.ends:
            ends = ", ".join(hand.arm_order)
            raise MalformedActionError(f"unknown end {action.end!r}; open ends: {ends}")
        if hand.uncovered and action.end not in hand.uncovered:
            raise IllegalActionError("the first double must be played on all four sides first")
        value = hand.ends[action.end]
        if value not in tile:
            raise IllegalActionError(f"{tile[0]}-{tile[1]} does not fit the {action.end} end ({value})")

    def apply(self, seat: int, action: Action) -> list[dict[str, Any]]:
        """Check, then apply the action; returns the public events it caused."""
        self.check(seat, action)
        hand = self.hand
        assert hand is not None
        events: list[dict[str, Any]] = []
        if isinstance(action, RedealAnswer):
            self._answer_redeal(hand, seat, action.accept, events)
            return events
        self._place(hand, seat, action, events)
        if self.phase != "play":  # an in-play score reached the target: the match is over
            return events
        if not hand.hands[seat]:
            self._end_domino(hand, seat, events)
            return events
        hand.turn = (seat + 1) % self.rules.players
        self._advance(events)
        return events

    def _answer_redeal(self, hand: Hand, seat: int, accept: bool, events: list[dict[str, Any]]) -> None:
        # The new deal is made before anything changes (it may raise NoDealError).
        dealt = self._deals_of(hand, [*hand.shown, seat]) if accept else None
        hand.actions.append({"seat": seat, "redeal": accept})
        hand.pending_redeal.pop(0)
        if dealt is not None:
            hand.shown.append(seat)
            self._take_deal(hand, dealt, events)
            if hand.opener_rule in DEAL_OPENERS:
                hand.opener = hand.opener_drawn = self._highest_double_holder(hand)
            self._set_required_first(hand)
            hand.pending_redeal = []
            self._after_deal(hand, events)
            return
        # Every answer is an event: a declined redeal moves the table on too.
        events.append({"kind": "redeal_declined", "seat": seat})
        if hand.pending_redeal:
            hand.turn = hand.pending_redeal[0]
            return
        self.phase = "play"
        hand.turn = hand.opener
        self._advance(events)

    def _place(self, hand: Hand, seat: int, play: Play, events: list[dict[str, Any]]) -> None:
        rules = self.rules
        tile = canonical(*play.tile)
        hand.hands[seat].remove(tile)
        hand.passes_in_a_row = 0
        hand.last_player = seat
        if hand.center is None:
            left, right = play.tile
            hand.center = (left, right)
            if rules.layout == "line":
                hand.arm_order = list(LINE_ARMS)
                hand.ends = {"left": left, "right": right}
            else:
                hand.arm_order = list(CROSS_ARMS)
                hand.ends = {arm: left for arm in CROSS_ARMS}
                hand.uncovered = list(CROSS_ARMS)
            hand.arms = {arm: [] for arm in hand.arm_order}
            hand.end_double = {arm: left == right for arm in hand.arm_order}
            record = {"seat": seat, "play": [left, right], "end": None}
        else:
            arm = play.end
            assert arm is not None
            inner = hand.ends[arm]
            outer = tile[1] if tile[0] == inner else tile[0]
            hand.arms[arm].append((inner, outer))
            hand.ends[arm] = outer
            hand.end_double[arm] = tile[0] == tile[1]
            if arm in hand.uncovered:
                hand.uncovered.remove(arm)
            if rules.layout == "double-nine-cross" and tile[0] == tile[1]:
                # Every double laid opens two new lines from its sides.
                for _ in range(2):
                    name = f"arm{len(hand.arm_order) + 1}"
                    hand.arm_order.append(name)
                    hand.arms[name] = []
                    hand.ends[name] = outer
                    hand.end_double[name] = True
            record = {"seat": seat, "play": [tile[0], tile[1]], "end": arm}
        hand.actions.append(record)
        hand.last = {"seat": seat, "tile": record["play"], "end": record["end"]}
        events.append({"kind": "play", "seat": seat, "tile": record["play"], "end": record["end"]})
        self._score_in_play(hand, seat, events)

    def end_outcome(self, value: int, double: bool) -> int:
        """What covering an open end changes that a rule reads: the number it shows
        and, where the open count scores, what it adds to the count (a double counts
        twice; the double blank adds nothing either way). One tile played on two ends
        of equal outcome is one move: the positions differ by no rule (the view's
        ``ends`` carry it, so that a client asks "¿por dónde?" only between outcomes)."""
        if self.rules.in_play_scoring == "none":
            return value
        return 2 * value + (1 if double and value > 0 else 0)

    def open_count(self, hand: Hand) -> int:
        """Sum of the open ends for in-play scoring; a double at an end counts both halves."""
        if hand.center is None:
            return 0
        if all(not tiles for tiles in hand.arms.values()):
            return hand.center[0] + hand.center[1]
        total = 0
        for arm in hand.arm_order:
            v = hand.ends[arm]
            total += 2 * v if hand.end_double[arm] else v
        return total

    def _score_in_play(self, hand: Hand, seat: int, events: list[dict[str, Any]]) -> None:
        mode = self.rules.in_play_scoring
        if mode == "none":
            return
        count = self.open_count(hand)
        scores = count > 0 and (count % 5 == 0 or (mode == "fives_and_threes" and count % 3 == 0))
        if scores:
            team = self.rules.team_of(seat)
            self.scores[team] += count
            hand.in_play_points.append(count)
            hand.actions[-1]["score"] = count
            events.append({"kind": "score", "seat": seat, "team": team, "points": count})
            if self.scores[team] >= self.rules.target:
                self._end_at_target(hand, seat, team, events)

    def _end_at_target(self, hand: Hand, seat: int, team: int, events: list[dict[str, Any]]) -> None:
        """The first side to reach the target wins the match at that moment (RULES.md §3,
        All Fives): the hand stops here, with no hand-end scoring. When that play was the
        seat's last tile its named events still count: a capicúa is announced."""
        capicua = not hand.hands[seat] and self._capicua(hand)
        if capicua:
            events.append({"kind": "capicua", "seat": seat})
        self._finish(hand, "target", seat, team, 0, capicua, self.pip_totals(hand), events)

    def _advance(self, events: list[dict[str, Any]]) -> None:
        """Run automatic draws and passes until a seat has a choice or the hand ends."""
        hand = self.hand
        assert hand is not None
        rules = self.rules
        while self.phase == "play":
            seat = hand.turn
            assert seat is not None
            if self._plays(hand, seat):
                return
            if rules.drawing and len(hand.boneyard) > rules.draw_reserve:
                tile = hand.boneyard.pop(0)
                hand.hands[seat].append(tile)
                hand.hands[seat].sort()
                hand.actions.append({"seat": seat, "draw": [tile[0], tile[1]]})
                events.append({"kind": "draw", "seat": seat})
                continue
            numbers = sorted({hand.ends[a] for a in hand.playable_arms()})
            hand.passed_on[seat].update(numbers)
            hand.actions.append({"seat": seat, "pass": True})
            events.append({"kind": "pass", "seat": seat, "numbers": numbers})
            hand.passes_in_a_row += 1
            if hand.passes_in_a_row >= rules.players:
                self._end_tranque(hand, events)
                return
            hand.turn = (seat + 1) % rules.players

    # -------------------------------------------------------------- scoring
    def pip_totals(self, hand: Hand) -> list[int]:
        return [hand_pips(h) for h in hand.hands]

    def _capicua(self, hand: Hand) -> bool:
        """Whether the tile just laid (the seat's last) makes a capicúa (RULES.md §1): a
        non-double that fitted both open ends while they showed different numbers."""
        last = hand.actions[-1]
        end = last.get("end")
        if self.rules.layout != "line" or end is None or "play" not in last:
            return False
        tile = canonical(*last["play"])
        other = "right" if end == "left" else "left"
        covered = hand.arms[end][-1][0]  # (inner, outer) of the tile just laid
        return tile[0] != tile[1] and covered != hand.ends[other] and canonical(covered, hand.ends[other]) == tile

    def _end_domino(self, hand: Hand, seat: int, events: list[dict[str, Any]]) -> None:
        rules = self.rules
        totals = self.pip_totals(hand)
        team = rules.team_of(seat)
        capicua = self._capicua(hand)
        if rules.domino_scoring == "opponents":
            points = sum(t for s, t in enumerate(totals) if rules.team_of(s) != team)
        elif rules.domino_scoring == "all_hands":
            points = sum(totals)
        else:  # muggins
            points = sum(_round5(t) for s, t in enumerate(totals) if rules.team_of(s) != team)
        if capicua:
            points += rules.capicua_bonus
            events.append({"kind": "capicua", "seat": seat})
        events.append({"kind": "domino", "seat": seat})
        self._finish(hand, "domino", seat, team, points, capicua, totals, events)

    def _end_tranque(self, hand: Hand, events: list[dict[str, Any]]) -> None:
        rules = self.rules
        totals = self.pip_totals(hand)
        events.append({"kind": "tranque"})
        team_totals = [0] * rules.teams
        for s, t in enumerate(totals):
            team_totals[rules.team_of(s)] += t
        winner_team: int | None
        if rules.tranque_winner == "lowest_player":
            low = min(totals)
            teams = {rules.team_of(s) for s, t in enumerate(totals) if t == low}
            winner_team = teams.pop() if len(teams) == 1 else None
        else:
            low = min(team_totals)
            teams = {t for t, v in enumerate(team_totals) if v == low}
            winner_team = teams.pop() if len(teams) == 1 else None
        if winner_team is None:
            self._finish(hand, "tie", None, None, 0, False, totals, events)
            return
        members = rules.seats_of_team(winner_team)
        seat = min(members, key=lambda s: (totals[s], (s - hand.opener) % rules.players))
        mode = rules.tranque_scoring
        if mode == "opponents":
            points = sum(t for s, t in enumerate(totals) if rules.team_of(s) != winner_team)
        elif mode == "all_hands":
            points = sum(totals)
        elif mode == "difference":
            points = sum(max(0, v - team_totals[winner_team]) for t, v in enumerate(team_totals) if t != winner_team)
        else:  # muggins
            points = sum(
                _round5(max(0, t - totals[seat])) for s, t in enumerate(totals) if rules.team_of(s) != winner_team
            )
        self._finish(hand, "tranque", seat, winner_team, points, False, totals, events)

    def _next_opener(self, hand: Hand, kind: str, seat: int | None) -> int | None:
        last = hand.last_player
        return next_opener(self.rules, kind, seat, hand.opener, last, self.pip_totals(hand))

    def _finish(
        self,
        hand: Hand,
        kind: str,
        seat: int | None,
        team: int | None,
        points: int,
        capicua: bool,
        totals: list[int],
        events: list[dict[str, Any]],
    ) -> None:
        if team is not None:
            self.scores[team] += points
        hand.turn = None
        result = {
            "kind": kind,
            "seat": seat,
            "team": team,
            "points": points,
            "capicua": capicua,
            "in_play_points": sum(hand.in_play_points),
            "pip_totals": totals,
            "next_opener": self._next_opener(hand, kind, seat),
            "seed": hand.seed,
            "scores": list(self.scores),
        }
        hand.result = result
        self.sheet.append(
            {"hand": hand.number, "kind": kind, "team": team, "points": points, "capicua": capicua, "scores": list(self.scores)}
        )
        # The result has its own "kind" (domino/tranque/tie): keep it as "result_kind".
        events.append({**result, "kind": "hand_end", "result_kind": kind})
        self.phase = "hand_over"
        self._check_match_end(hand, team, events)

    def _check_match_end(self, hand: Hand, team: int | None, events: list[dict[str, Any]]) -> None:
        """The first side to reach the target wins. Points are only ever added to one
        side at a time (an in-play score, a hand's winner), so that side is ``team``."""
        target = self.rules.target
        if team is None or self.scores[team] < target:
            return
        winner = team
        pollona = all(s == 0 for t, s in enumerate(self.scores) if t != winner)
        # Viajera: the target (or more) was scored in this one, last hand.
        rules = self.rules
        gained = sum(a["score"] for a in hand.actions if "score" in a and rules.team_of(a["seat"]) == winner)
        if hand.result and hand.result["team"] == winner:
            gained += hand.result["points"]
        viajera = pollona and gained >= target
        self.match_result = {"winner": winner, "scores": list(self.scores), "pollona": pollona, "viajera": viajera}
        self.phase = "match_over"
        events.append({"kind": "match_end", **self.match_result})

    # ---------------------------------------------------------------- views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (``None``: a spectator). Only public facts,
        plus the seat's own tiles; every hand is revealed once the hand is over."""
        rules = self.rules
        hand = self.hand
        over = self.phase in ("hand_over", "match_over")
        out: dict[str, Any] = {
            "rules": rules.describe(),
            "seat": seat,
            "hand_number": hand.number if hand else 0,
            "phase": self.phase,
            "turn": self.turn,
            "opener": hand.opener if hand else None,
            "scores": list(self.scores),
            "teams": [rules.team_of(s) for s in range(rules.players)],
            "sheet": _copy(self.sheet),
            "match_result": _copy(self.match_result),
        }
        if hand is None:
            out.update(
                counts=[0] * rules.players, boneyard=0, center=None, arms={}, ends=[], last=None,
                legal=[], history=[], passed_on=[[] for _ in range(rules.players)],
                seed_hash=None, result=None, revealed=None,
            )
            if seat is not None:
                out["hand"] = []
            return out
        if seat is not None:
            out["hand"] = [list(t) for t in hand.hands[seat]]
        history = []
        for a in hand.actions:
            if "draw" in a and a["seat"] != seat and not over:
                history.append({"seat": a["seat"], "draw": True})
            else:
                history.append(dict(a))
        out.update(
            counts=[len(h) for h in hand.hands],
            boneyard=len(hand.boneyard),
            center=list(hand.center) if hand.center else None,
            arms={arm: [list(t) for t in hand.arms[arm]] for arm in hand.arm_order},
            ends=[
                {"end": arm, "value": hand.ends[arm], "double": hand.end_double[arm],
                 "playable": not hand.uncovered or arm in hand.uncovered,
                 "outcome": self.end_outcome(hand.ends[arm], hand.end_double[arm])}
                for arm in hand.arm_order
            ],
            last=_copy(hand.last),
            legal=[m.to_json() for m in self.legal_moves()] if seat is not None and seat == self.turn else [],
            history=history,
            passed_on=[sorted(p) for p in hand.passed_on],
            seed_hash=hand.seed_hash,
            redeal_pending=list(hand.pending_redeal),
            voided=_copy(hand.voided),
            result=_copy(hand.result),
            revealed=[[list(t) for t in h] for h in hand.hands] if over else None,
        )
        return out

    # --------------------------------------------------------------- record
    def record(self) -> dict[str, Any]:
        """The match record (versioned JSON): rules, seed and every hand."""
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "setup": copy.deepcopy(self.setup),
            "hands": [self.hand_record(h) for h in self.hands],
            "scores": list(self.scores),
            "result": copy.deepcopy(self.match_result),
        }

    def hand_record(self, h: Hand) -> dict[str, Any]:
        """One hand's entry of :meth:`record`."""
        entry: dict[str, Any] = {
            "number": h.number,
            "seed_hash": h.seed_hash,
            "voided": copy.deepcopy(h.voided),
            "deal": h.dealt[-1].to_json() if h.dealt else None,
            "deals": len(h.dealt),
            "opener_drawn": h.opener_drawn,
            "opener": h.opener,
            "actions": copy.deepcopy(h.actions),
            "result": copy.deepcopy(h.result),
        }
        if h.deal_source == "given":
            entry["deal_source"] = "given"
            entry["given_deal"] = copy.deepcopy(h.given_deal)
            entry["opener_given"] = h.opener_given
        return entry


def next_opener(
    rules: Rules, kind: str, seat: int | None, opener: int, last_player: int | None, totals: list[int]
) -> int | None:
    """Who opens the next hand (``None``: the next deal decides), RULES.md §1-§3.

    ``kind`` is the hand's result kind (domino / tranque / tie / target), ``seat`` the
    winning seat (``None`` on a tie), ``opener`` the seat that opened the hand,
    ``last_player`` the seat that laid the last tile and ``totals`` each seat's
    pips left. Pure, so that the fast path can call it too.
    """
    if kind == "target":  # the hand ended the match: there is no next hand
        return None
    n = rules.players
    rule = rules.next_opener_after_win if kind == "domino" else rules.next_opener_after_tranque
    if rule in DEAL_OPENERS:
        return None
    if rule == "winner":
        # After a tied tranque there is no winner: the same player opens again.
        return seat if seat is not None else opener
    if rule == "rotate":
        return (opener + 1) % n
    if rule == "same_opener":
        return opener
    if rule == "blocker":
        return last_player
    # other_team_on_tie: a win goes to the winner; a tie to "the tied player on
    # the team that did not start the tied round" (pagat, seed 000), the first
    # such player after the opener; without a tied player there (lowest_team),
    # the first player of that team after the opener.
    if kind != "tie":
        return seat
    opener_team = rules.team_of(opener)
    others = [(opener + i) % n for i in range(1, n)]
    others = [s for s in others if rules.team_of(s) != opener_team]
    if rules.tranque_winner == "lowest_player":
        low = min(totals)
        tied = [s for s in others if totals[s] == low]
        if tied:
            return tied[0]
    return others[0]


def _copy(value: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, scalars): what ``copy.deepcopy``
    gives for it, several times faster (views are built for every change)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _round5(x: int) -> int:
    """Round to the nearest multiple of five (halves cannot occur with whole pips)."""
    return 5 * ((x + 2) // 5)
