"""Invariants over random matches of every preset (ARCHITECTURE.md §9).

Seeded loops of random play. At every step: tiles are conserved, only the
seat on turn has a legal move (and it has one whenever the phase is play),
``legal_moves()`` is exactly the set of actions ``check`` accepts, and no
view holds another seat's tiles. At the end of every match: every recorded
pass and draw is checked against an independent model of the line (nobody
passes or draws holding a playable tile), scores add up, the record
round-trips through JSON and replays to the same results, and tampered
records are refused at the first bad action.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from capicua.engine import (
    MalformedActionError,
    Match,
    OutOfTurnError,
    Play,
    RecordError,
    RedealAnswer,
    dumps,
    full_set,
    make_rules,
    replay,
)
from capicua.engine.tiles import canonical

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("cubano", {}),
    ("cubano", {"redeal_five_doubles": "on_request", "first_opener": "parity_guess", "capicua_bonus": 30}),
    ("cubano", {"first_opener": "highest_double", "tranque_winner": "lowest_team", "tranque_scoring": "difference"}),
    ("cubano-clasico", {"target": 50}),
    ("la-plaza", {}),
    ("fid", {}),
    ("caribe", {}),
    ("mano-a-mano", {}),
    ("block", {}),
    ("block", {"players": 3}),
    ("draw", {"players": 2}),
    ("draw", {"players": 5}),
    ("all-fives", {}),
    ("all-fives", {"players": 2}),
    ("fives-and-threes", {"players": 3}),
    ("cross", {}),
    ("double-nine-cross", {}),
    ("double-nine-cross", {"players": 3}),
]
MATCHES = 3
VIEW_KEYS = {
    "rules", "seat", "hand_number", "phase", "turn", "opener", "scores", "teams", "sheet",
    "match_result", "hand", "counts", "boneyard", "center", "arms", "ends", "last", "legal",
    "history", "passed_on", "seed_hash", "redeal_pending", "voided", "result", "revealed",
}


def ids(config: tuple[str, dict[str, Any]]) -> str:
    preset, options = config
    return preset + "".join(f"-{k}={v}" for k, v in options.items())


# ------------------------------------------------------------ step checks
def line_tiles(match: Match) -> list[tuple[int, int]]:
    hand = match.hand
    assert hand is not None
    out = []
    if hand.center is not None:
        out.append(canonical(*hand.center))
    for arm in hand.arm_order:
        out += [canonical(*t) for t in hand.arms[arm]]
    return out


def check_conservation(match: Match) -> None:
    hand = match.hand
    assert hand is not None
    everything = [t for h in hand.hands for t in h] + line_tiles(match) + list(hand.boneyard)
    assert sorted(everything) == full_set(match.rules.max_pip)


def candidate_actions(match: Match, seat: int) -> list[Any]:
    """Every well-formed action a seat could try with its own tiles."""
    hand = match.hand
    assert hand is not None
    ends: list[str | None] = [None] + list(hand.arm_order)
    out: list[Any] = [RedealAnswer(True), RedealAnswer(False)]
    for t in hand.hands[seat]:
        for end in ends:
            out.append(Play(t, end))
            if end is None and t[0] != t[1]:
                out.append(Play((t[1], t[0]), None))
    return out


def check_turns(match: Match) -> None:
    """Only the seat on turn has a legal move; legal_moves() == what check() accepts."""
    players = match.rules.players
    turn = match.turn
    legal = match.legal_moves()
    if match.phase in ("play", "redeal_question"):
        assert turn is not None and legal, "the seat on turn must have a choice"
    else:
        assert turn is None and legal == []
        return
    accepted = []
    for action in candidate_actions(match, turn):
        try:
            match.check(turn, action)
        except (MalformedActionError, ValueError):
            continue
        accepted.append(action)
    # The first tile may be named in either order ([left, right] is the
    # player's choice of sides); legal_moves() lists each such tile once.
    def key(a: Any) -> str:
        if isinstance(a, Play) and a.end is None:
            a = Play(canonical(*a.tile), None)
        return json.dumps(a.to_json(), sort_keys=True)

    assert sorted(set(map(key, accepted))) == sorted(map(key, legal))
    for seat in range(players):
        if seat == turn:
            continue
        for action in candidate_actions(match, seat)[:6]:
            with pytest.raises(OutOfTurnError):
                match.check(seat, action)


def tile_pairs(value: Any) -> list[tuple[int, int]]:
    """Every [a, b] pair of whole numbers inside a JSON value."""
    out = []
    if isinstance(value, list):
        if len(value) == 2 and all(type(x) is int for x in value):
            out.append(canonical(value[0], value[1]))
        else:
            for v in value:
                out += tile_pairs(v)
    elif isinstance(value, dict):
        for v in value.values():
            out += tile_pairs(v)
    return out


def check_views(match: Match) -> None:
    hand = match.hand
    assert hand is not None
    over = match.phase in ("hand_over", "match_over")
    public = set(line_tiles(match))
    for void in hand.voided:
        public |= {canonical(*t) for t in void.get("doubles", [])}
    for seat in [None, *range(match.rules.players)]:
        view = match.view(seat)
        assert set(view) <= VIEW_KEYS, f"new view keys {set(view) - VIEW_KEYS}: check them for hidden tiles"
        json.dumps(view)
        if seat is None:
            assert "hand" not in view
            own: set[tuple[int, int]] = set()
        else:
            assert view["hand"] == [list(t) for t in hand.hands[seat]]
            own = set(hand.hands[seat])
            # Tiles this seat drew and then played are in its history.
            own |= {canonical(*a["draw"]) for a in hand.actions if a["seat"] == seat and "draw" in a}
        if seat is None or seat != match.turn:
            assert view["legal"] == []
        if over:
            assert view["revealed"] == [[list(t) for t in h] for h in hand.hands]
            continue
        assert view["revealed"] is None
        for entry in view["history"]:
            if "draw" in entry and entry["seat"] != seat:
                assert entry["draw"] is True
        seen = set()
        for key in ("hand", "history", "arms", "center", "last", "legal", "voided", "result", "revealed"):
            seen |= set(tile_pairs(view.get(key)))
        hidden = seen - own - public
        assert not hidden, f"seat {seat} sees {hidden}"


def check_clone(match: Match, rng: random.Random) -> None:
    twin = match.clone()
    assert twin.record() == match.record()
    assert twin.view(None) == match.view(None)
    if match.phase == "play":
        move = rng.choice(twin.legal_moves())
        before = match.record()
        twin.apply(twin.turn, move)
        assert match.record() == before, "a clone shares state with its original"


# -------------------------------------------------- independent line model
class LineModel:
    """Ends of the line rebuilt from recorded actions, independently of the engine."""

    def __init__(self, layout: str) -> None:
        self.layout = layout
        self.ends: dict[str, int] = {}
        self.uncovered: list[str] = []

    def playable(self) -> set[int]:
        arms = self.uncovered if self.uncovered else list(self.ends)
        return {self.ends[a] for a in arms}

    def fits(self, t: tuple[int, int]) -> bool:
        return not self.ends or bool(set(t) & self.playable())

    def place(self, tile: list[int], end: str | None) -> None:
        a, b = tile
        if end is None:
            assert not self.ends
            if self.layout == "line":
                self.ends = {"left": a, "right": b}
            else:
                assert a == b, "a cross starts from a double"
                self.ends = {arm: a for arm in ("left", "right", "up", "down")}
                self.uncovered = ["left", "right", "up", "down"]
            return
        assert end in self.ends and (not self.uncovered or end in self.uncovered)
        v = self.ends[end]
        assert v in (a, b)
        self.ends[end] = b if a == v else a
        if end in self.uncovered:
            self.uncovered.remove(end)
        if self.layout == "double-nine-cross" and a == b:
            for _ in range(2):
                self.ends[f"arm{len(self.ends) + 1}"] = a


def check_hand_record(rules: Any, rec: dict[str, Any]) -> list[int]:
    """Re-check a recorded hand; returns the in-play points per seat."""
    deal = rec["deal"]
    hands = [{canonical(*t) for t in h} for h in deal["hands"]]
    boneyard = [canonical(*t) for t in deal["sleeping"]]
    model = LineModel(rules.layout)
    in_play = [0] * rules.players
    for entry in rec["actions"]:
        seat = entry["seat"]
        if "redeal" in entry:
            continue
        if "play" in entry:
            t = canonical(*entry["play"])
            assert t in hands[seat], f"seat {seat} played {t} it did not hold"
            model.place(entry["play"], entry["end"])
            hands[seat].remove(t)
            in_play[seat] += entry.get("score", 0)
            continue
        holds_playable = any(model.fits(t) for t in hands[seat])
        assert not holds_playable, f"seat {seat} {'drew' if 'draw' in entry else 'passed'} holding a playable tile"
        if "draw" in entry:
            assert rules.drawing and len(boneyard) > rules.draw_reserve
            drawn = boneyard.pop(0)
            assert canonical(*entry["draw"]) == drawn
            hands[seat].add(drawn)
        else:
            assert entry["pass"] is True
            assert not rules.drawing or len(boneyard) <= rules.draw_reserve, "passed instead of drawing"
    if rec["result"] is not None:
        assert [sum(a + b for a, b in h) for h in hands] == rec["result"]["pip_totals"]
        if rec["result"]["kind"] == "domino":
            assert not hands[rec["result"]["seat"]]
    return in_play


def check_match_record(match: Match) -> None:
    rules = match.rules
    record = json.loads(dumps(match))
    team_points = [0] * rules.teams
    for rec in record["hands"]:
        in_play = check_hand_record(rules, rec)
        for seat, pts in enumerate(in_play):
            team_points[rules.team_of(seat)] += pts
        res = rec["result"]
        if res is not None:
            assert res["in_play_points"] == sum(in_play)
            if res["team"] is not None:
                team_points[res["team"]] += res["points"]
            else:
                assert res["points"] == 0 and res["kind"] == "tie"
            assert res["scores"] == team_points
    assert team_points == match.scores == record["scores"]
    sheet_points = [0] * rules.teams
    for row in match.sheet:
        if row["team"] is not None:
            sheet_points[row["team"]] += row["points"]
    assert sum(sheet_points) + sum(sum(check_hand_record(rules, r)) for r in record["hands"]) == sum(match.scores)
    # The record replays to the same results.
    again = replay(record)
    assert again.record() == match.record()
    assert [h.result for h in again.hands] == [h.result for h in match.hands]
    assert again.scores == match.scores and again.match_result == match.match_result


# ------------------------------------------------------------- random play
def play_match(preset: str, options: dict[str, Any], seed: str, deep: bool) -> Match:
    rng = random.Random(seed)
    match = Match(make_rules(preset, **options), seed)
    present = {rng.randrange(match.rules.players)} if rng.random() < 0.5 else None
    match.start_hand(present)
    step = 0
    while True:
        check_conservation(match)
        if deep or step % 5 == 0:
            check_turns(match)
            check_views(match)
        if step % 17 == 0:
            check_clone(match, rng)
        if step % 29 == 0 and match.phase in ("play", "redeal_question"):
            # An unfinished match replays too.
            assert replay(json.loads(dumps(match))).record() == match.record()
        step += 1
        if match.phase == "match_over":
            break
        if match.phase == "hand_over":
            match.start_hand()
            continue
        match.apply(match.turn, rng.choice(match.legal_moves()))
    assert match.match_result is not None
    assert max(match.scores) >= match.rules.target
    assert match.scores.count(max(match.scores)) == 1
    return match


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_random_matches_keep_every_invariant(config):
    preset, options = config
    for i in range(MATCHES):
        match = play_match(preset, options, f"inv-{ids(config)}-{i}", deep=i == 0)
        check_match_record(match)
        check_tampering(match)


# ---------------------------------------------------------------- tampering
def expect_rejected(record: dict[str, Any], hand: int, action: int | None) -> None:
    with pytest.raises(RecordError) as exc:
        replay(record)
    assert (exc.value.hand, exc.value.action) == (hand, action), str(exc.value)


def check_tampering(match: Match) -> None:
    record = json.loads(dumps(match))
    for h_index, rec in enumerate(record["hands"]):
        actions = rec["actions"]
        plays = [i for i, a in enumerate(actions) if "play" in a and a["end"] is not None]
        if not plays:
            continue
        i = plays[len(plays) // 2]
        seat = actions[i]["seat"]
        # Hand-state of the seat at action i, from the deal and earlier actions.
        held = {canonical(*t) for t in rec["deal"]["hands"][seat]}
        for a in actions[:i]:
            if a["seat"] == seat and "play" in a:
                held.discard(canonical(*a["play"]))
            if a["seat"] == seat and "draw" in a:
                held.add(canonical(*a["draw"]))
        # 1. A tile not in the hand.
        foreign = next(t for t in full_set(match.rules.max_pip) if t not in held)
        bad = copy.deepcopy(record)
        bad["hands"][h_index]["actions"][i]["play"] = list(foreign)
        expect_rejected(bad, h_index, i)
        # 2. A pass while holding a playable tile (the tile it played).
        bad = copy.deepcopy(record)
        bad["hands"][h_index]["actions"][i] = {"seat": seat, "pass": True}
        expect_rejected(bad, h_index, i)
        # 3. A wrong score.
        if rec["result"] is not None:
            bad = copy.deepcopy(record)
            bad["hands"][h_index]["result"]["points"] += 1
            expect_rejected(bad, h_index, len(actions))
        scored = [j for j, a in enumerate(actions) if "score" in a]
        if scored:
            bad = copy.deepcopy(record)
            bad["hands"][h_index]["actions"][scored[0]]["score"] += 5
            expect_rejected(bad, h_index, scored[0])
        break
    bad = copy.deepcopy(record)
    bad["scores"][0] += 1
    with pytest.raises(RecordError):
        replay(bad)
