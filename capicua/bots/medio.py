"""``medio``: a club player's heuristics, one pass over the legal moves.

Each legal move gets a score from what the view shows:

* *botar la gorda* — heavier tiles are worth shedding (pips);
* *la data* — leave open the numbers it holds most of, so it keeps playing;
* *contar lo que ha salido* — a number whose other tiles are all out is dead:
  leaving it open to an opponent who cannot have it is good, leaving it to
  itself is bad when it holds none of it;
* partner — leave open the numbers the partner showed (played to / left open),
  never the numbers the partner passed on;
* opponents — leave open the numbers an opponent passed on (keep them dead),
  cover the numbers the opponent just showed;
* doubles — play a double before its number dies ("ahorcar un doble");
* *trancar* — close the game when the count says its side is lighter; avoid it
  otherwise.

For individual games the "partner" terms vanish; in-play scoring games add the
points the move scores at once.

What a move does by the rules is read from the compact core, never copied
here: the numbers it leaves open to play (the playable arms, a cross's
uncovered spinner sides first, the arms a double opens in the double-nine
cross), whether it blocks the hand whatever the hidden deal, the team the
rules' ``tranque_winner`` gives that block, and the points it scores at once
(``tests/bots/test_medio_rules.py`` and ``test_in_play_points.py`` hold them to
the engine).
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from capicua.bots.public import PublicState
from capicua.engine.compact import FastState, Move, bits, tranque_teams

# Weights of the move score (tuned by duplicate tournaments against botagorda).
W = {
    "pips": 1.0,
    "data": 2.0,
    "cover_opp": 2.0,
    "cover_partner": 1.0,
    "partner_passed": 3.0,
    "partner_shown": 1.5,
    "opp_passed": 3.0,
    "opp_shown": 2.0,
    "double": 4.0,
    "double_scarce": 3.0,
    "double_next": 1.5,
    "tranque": 25.0,
    "force_pass": 4.0,
    "partner_blocked": 4.0,
    "next_can_play": 8.0,
    "partner_can_play": 0.0,
}


def decide_medio(pub: PublicState, rng: random.Random) -> dict[str, Any]:
    legal = pub.legal
    if not legal:
        raise ValueError("the seat has no choice to make in this view")
    if "redeal" in legal[0]:
        return {"redeal": True}
    if len(legal) == 1:
        return dict(legal[0])
    view = pub.view
    r = pub.r
    n = r.players
    me = pub.me
    maxp = r.max_pip
    partner = pub.rules.partner_of(me)
    hand = [(int(a), int(b)) for a, b in view["hand"]]
    my_count = [0] * (maxp + 1)
    for a, b in hand:
        my_count[a] += 1
        if b != a:
            my_count[b] += 1
    out_count = pub.table_count  # tiles of each number already on the table
    # A seat "shows" the numbers it chose to leave open (both halves of an
    # opening tile); the half it matched was the table's choice, not its own.
    shown = [{v for v in range(maxp + 1) if m >> v & 1} for m in pub.opened]
    passed = pub.passed_on
    # A heuristic's input, not a rule: not the tiles holding a number
    # (r.num_mask[v].bit_count(), maxp + 1) but the halves showing it (the
    # double's two), counted against tiles below, so unseen[v] is one more than
    # the unseen tiles of v. The weight of a scarce double was tuned with it; a
    # fix is a strength change to measure by a duplicate tournament.
    per_number = maxp + 2
    # Unseen tiles of each number (in other hands or sleeping), plus one (above).
    unseen = [per_number - out_count[v] - my_count[v] for v in range(maxp + 1)]
    opponents = [s for s in range(n) if s != me and s != partner]
    ends = {e["end"]: (int(e["value"]), bool(e["double"])) for e in view.get("ends") or []}
    my_pips = sum(a + b for a, b in hand)
    counts = pub.counts
    unknown_tiles = sum(counts) - counts[me] + pub.boneyard
    # A heuristic's input, not a rule: the table's pips by number count a double
    # on the table once, so the mean unknown tile is a little heavier than the
    # unseen tiles' mean (the tranque weight was tuned so, as above).
    unknown_pips = sum(r.tile_pips) - my_pips - sum(out_count[v] * v for v in range(maxp + 1))
    mean_unknown = unknown_pips / unknown_tiles if unknown_tiles else 0.0
    seen = {(int(r.tile_a[t]), int(r.tile_b[t])) for t in bits(pub.on_table)}
    seen.update(hand)
    position = outcome_position(pub)

    best = None
    best_score = -1e18
    for mv in legal:
        a, b = int(mv["tile"][0]), int(mv["tile"][1])
        pips = a + b
        score = W["pips"] * pips
        if len(hand) == 1:
            return dict(mv)  # going out
        rest = my_count[:]
        rest[a] -= 1
        if b != a:
            rest[b] -= 1
        after = move_outcome(position, pub.move_of(mv))
        if mv.get("end") is None:
            opened = {a, b}
        else:
            inner, _dbl = ends[mv["end"]]
            opened = {b if a == inner else a}
            # Covering a number an opponent showed; uncovering for partner.
            for s in opponents:
                if inner in shown[s] and inner not in passed[s]:
                    score += W["cover_opp"]
            if partner is not None and inner in shown[partner]:
                score -= W["cover_partner"]
        for v in opened:
            score += W["data"] * rest[v]  # la data: keep my numbers open
            if partner is not None:
                if v in passed[partner]:
                    score -= W["partner_passed"]
                elif v in shown[partner]:
                    score += W["partner_shown"]
            for s in opponents:
                if v in passed[s]:
                    score += W["opp_passed"]
                elif v in shown[s]:
                    score -= W["opp_shown"]
        # Who can follow: a seat that passed on every number left open must pass.
        ends_after = after.ends
        for s in opponents:
            if ends_after <= passed[s]:
                score += W["force_pass"]
        if partner is not None and ends_after <= passed[partner]:
            score -= W["partner_blocked"]
        if W["next_can_play"] or W["partner_can_play"]:
            score -= W["next_can_play"] * _p_can_play((me + 1) % n, ends_after, counts, unknown_tiles,
                                                       passed, seen, maxp)
            if partner is not None:
                score += W["partner_can_play"] * _p_can_play(partner, ends_after, counts, unknown_tiles,
                                                              passed, seen, maxp)
        if a == b:
            score += W["double"] + (W["double_scarce"] if unseen[a] <= 2 else 0.0)
        # Doubles left hanging: holding double v while v gets scarce.
        for (x, y) in hand:
            if x == y and (x, y) != (a, b):
                if x in opened:
                    score += W["double_next"]  # I can follow with it next time
        # Trancar: a block whatever the hidden deal; who wins it is the rules'
        # tranque_winner over my pips after the move and the others' estimated
        # at the mean unknown tile. Lightest with another team: even, nothing;
        # not among the lightest: lost, even when other teams tie there.
        if after.blocks:
            totals = [mean_unknown * counts[s] for s in range(n)]
            totals[me] = my_pips - pips
            lightest = tranque_teams(r, totals)
            if r.team_of[me] not in lightest:
                score -= W["tranque"]
            elif len(lightest) == 1:
                score += W["tranque"]
        if r.in_play:
            score += 1.0 * pub.base.in_play_points(pub.move_of(mv))
        if score > best_score:
            best_score = score
            best = mv
    assert best is not None
    return dict(best)


class MoveOutcome(NamedTuple):
    """What a move does by the rules, as far as the view can tell."""

    ends: frozenset[int]
    """The numbers open to play after it (the playable arms' ends)."""
    blocks: bool
    """The hand is blocked at once (a tranque, or a tie) whatever the hidden deal."""


def outcome_position(pub: PublicState) -> FastState:
    """The view's position in the compact core with every tile the seat cannot
    see in the next seat's hand and none sleeping: a move of the seat then
    blocks the hand exactly when no tile outside the table fits what it leaves
    open (nobody can play, whatever the hidden deal)."""
    hands = list(pub.base.hands)
    hidden = 0
    for t in pub.unseen:
        hidden |= 1 << t
    hands[pub.r.next_seat[pub.me]] = hidden
    return pub.base.with_hidden(hands, ())


def move_outcome(position: FastState, move: Move) -> MoveOutcome:
    """What ``move`` (legal in ``position``, from :func:`outcome_position`) does:
    the compact core plays it and takes it back."""
    token = position.apply(move)
    ends = frozenset(position.ends[arm] for arm in position.playable_arms())
    result = position.result
    blocks = result is not None and result.kind in ("tranque", "tie")
    position.undo(token)
    return MoveOutcome(ends, blocks)


def _p_can_play(
    seat: int, ends: frozenset[int], counts: list[int], unknown: int,
    passed: list[frozenset[int]], seen: set[tuple[int, int]], maxp: int,
) -> float:
    """Chance that ``seat`` holds a tile for one of ``ends``, if its tiles were a
    random draw from the unseen ones (hypergeometric), 0 for numbers it passed on.
    ``seen``: the tiles in hand (the one played included) and on the table, canonical."""
    live = [v for v in ends if v not in passed[seat]]
    if not live:
        return 0.0
    k = 0
    for v in live:
        for w in range(maxp + 1):
            t = (min(v, w), max(v, w))
            if t in seen or (w in live and w < v):
                continue
            k += 1
    h = counts[seat]
    if unknown <= 0 or h <= 0:
        return 0.0
    p_none = 1.0
    for i in range(h):
        p_none *= max(0.0, (unknown - k - i) / (unknown - i))
    return 1.0 - p_none
