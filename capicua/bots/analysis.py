"""¿Qué hubiera jugado el experto? The experto's analysis of a finished hand.

Pure: a match record in, the analysis out (docs/analysis.md). For every
*decision* of the analysed seats — a turn where the seat had more than one
distinct legal play — the record is replayed through the engine to the moment
of that choice and the experto searches the seat's own view
(``Match.view(seat)``: its tiles, the table, the counts and the passes, never
the hidden hands) with :func:`capicua.bots.evaluate`, which values every
distinct legal play. A value is the mean, over the deals consistent with the
view that the search drew, of the seat's team's point margin from that moment
to the end of the hand: its points minus the rivals'.

Deterministic: each decision's search is seeded from sha256 of the table, the
match, the hand and the action's index in the hand, so a record always gets the
same analysis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from capicua.bots import evaluate
from capicua.bots.public import public_state
from capicua.engine.record import hand_positions

LEVEL = "experto"
#: Decisions shown as the costliest of a hand, at most (the issue: "two or three").
COSTLIEST = 3
#: Points given up below this are the search's noise, not a mistake worth showing.
MIN_COSTLY = 0.5
HUMAN = "human"  # who made a choice, as the table log says it (``by``)


def decision_seed(table: str, match: int, hand: int, index: int) -> int:
    """The search seed of the decision at action ``index`` of a hand."""
    # The seed's domain string is frozen (it named the module before the tree moved):
    # stored analyses and the tests' expectations depend on it.
    src = f"capicua/analysis/{table}/{match}/{hand}/{index}"
    return int.from_bytes(hashlib.sha256(src.encode()).digest()[:8], "big")


@dataclass(frozen=True, slots=True)
class Decision:
    """A choice to judge: the view the seat had, the move it made, and the search's seed."""

    index: int  # of the chosen action in the hand's actions
    seat: int
    played: dict[str, Any]  # the move of the view's distinct moves the seat played
    view: dict[str, Any]
    seed: int


def decisions(
    record: dict[str, Any],
    hand: int,
    seats: Iterable[int],
    table: str = "",
    match: int = 1,
    chosen_by: Sequence[str] | None = None,
) -> list[Decision]:
    """The decisions of ``seats`` in hand ``hand`` (from 1) of ``record``: the turns
    where the seat had more than one distinct legal play (a forced play, a pass or
    the five-doubles question is none). ``chosen_by`` names who made each chosen
    action of the hand, in order (the table log's ``by``: human, bot, stand_in,
    timeout); when it is given only the choices the player made themself count,
    not a stand-in's or a time-out's. Raises :class:`capicua.engine.RecordError`
    for a record the engine refuses."""
    wanted = set(seats)
    out = []
    actions = record["hands"][hand - 1]["actions"] if 1 <= hand <= len(record.get("hands") or []) else []
    for n, (index, position) in enumerate(hand_positions(record, hand)):
        seat = position.turn
        if seat not in wanted or (chosen_by is not None and (n >= len(chosen_by) or chosen_by[n] != HUMAN)):
            continue
        view = position.view(seat)
        if _is_redeal(view):
            continue
        pub = public_state(view)  # decoded once here; the search decodes its own copy in the pool
        if len(pub.candidates) < 2:
            continue
        entry = actions[index]
        played = dict(pub.same_move({"tile": entry["play"], "end": entry["end"]}))
        out.append(Decision(index, seat, played, view, decision_seed(table, match, hand, index)))
    return out


def search(decision: Decision, budget_ms: float | None = None) -> list[tuple[dict[str, Any], float]]:
    """The experto's value of every distinct move of the decision (pure: picklable
    arguments, so it runs in the bot pool)."""
    return evaluate(LEVEL, decision.view, decision.seed, budget_ms)


def analyse_hand(
    record: dict[str, Any],
    hand: int,
    seats: Iterable[int],
    table: str = "",
    match: int = 1,
    budget_ms: float | None = None,
    chosen_by: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The analysis of hand ``hand`` of ``record`` for each seat of ``seats``, in
    seat order: ``{"hand", "seat", "precision", "at_stake", "lost", "decisions", "costliest"}``
    (docs/analysis.md; the arguments as :func:`decisions`). ``budget_ms`` is the
    experto's thinking budget per decision (None: its default)."""
    found = decisions(record, hand, seats, table, match, chosen_by)
    judged = [judge(d, search(d, budget_ms)) for d in found]
    return summarise(hand, seats, judged)


def summarise(hand: int, seats: Iterable[int], judged: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per seat of ``seats`` (in seat order) from its judged decisions."""
    return [seat_summary(hand, seat, [d for d in judged if d["seat"] == seat]) for seat in sorted(set(seats))]


def _is_redeal(view: dict[str, Any]) -> bool:
    legal = view.get("legal") or []
    return bool(legal) and "redeal" in legal[0]


def judge(decision: Decision, values: list[tuple[dict[str, Any], float]]) -> dict[str, Any]:
    """One decision judged: every move's value (rounded to hundredths of a point),
    the best move (the first of highest value: the one the experto plays) and the
    points the played move gave up against it (best − played, never negative)."""
    best = max(range(len(values)), key=lambda i: values[i][1])
    mine = next(i for i, (a, _) in enumerate(values) if a == decision.played)
    return {
        "index": decision.index, "seat": decision.seat, "played": decision.played, "best": values[best][0],
        "moves": [{"action": a, "value": round(v, 2)} for a, v in values],
        "lost": round(values[best][1] - values[mine][1], 2),
    }


def at_stake(decision: dict[str, Any]) -> float:
    """What a decision could change: its best move's value minus its worst's."""
    values = [float(m["value"]) for m in decision["moves"]]
    return max(values) - min(values)


def precision(decisions: Sequence[dict[str, Any]]) -> float | None:
    """100 × (1 − points given up / points at stake), where what was at stake in a
    decision is its best move's value minus its worst's: the share of what the
    hand's choices could change that the player kept. 100 is always the experto's
    move, 0 always the worst one; None for a hand without decisions."""
    if not decisions:
        return None
    stake = sum(at_stake(d) for d in decisions)
    if stake <= 0.0:
        return 100.0
    lost = sum(float(d["lost"]) for d in decisions)
    return round(100.0 * max(0.0, 1.0 - lost / stake), 1)


def costliest(decisions: Sequence[dict[str, Any]], top: int = COSTLIEST) -> list[int]:
    """The action indices of the (at most ``top``) decisions that gave up most
    points, at least :data:`MIN_COSTLY` each; the dearest first."""
    costly = [d for d in decisions if float(d["lost"]) >= MIN_COSTLY]
    costly.sort(key=lambda d: (-float(d["lost"]), int(d["index"])))
    return [int(d["index"]) for d in costly[:top]]


def stakes(decisions: Sequence[dict[str, Any]]) -> dict[str, float]:
    """What precision is made of: ``at_stake``, the points the hand's decisions could
    change (the sum of each one's :func:`at_stake`), and ``lost``, the points the moves
    played gave up (precision = 100 × (1 − lost / at_stake)), rounded to hundredths."""
    return {
        "at_stake": round(sum(at_stake(d) for d in decisions), 2),
        "lost": round(sum(float(d["lost"]) for d in decisions), 2),
    }


def with_stakes(summary: dict[str, Any]) -> dict[str, Any]:
    """A seat's summary with its :func:`stakes` (a summary stored before they were
    part of it gets them from its decisions)."""
    if "at_stake" in summary and "lost" in summary:
        return summary
    return {**summary, **stakes(summary.get("decisions") or [])}


def seat_summary(hand: int, seat: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "hand": hand, "seat": seat, "precision": precision(decisions), **stakes(decisions), "decisions": decisions,
        "costliest": costliest(decisions),
    }


# ------------------------------------------------------------ measuring


def bench(hands: int = 20, seed: str = "bench", budget_ms: float | None = None) -> dict[str, Any]:
    """CPU seconds to analyse seat 0 of ``hands`` fresh cubano hands (every seat
    played by botagorda), against the named baseline: the experto *deciding* the
    same positions (what a table pays for one neighbour's moves), measured in the
    same process, one core. ``capicua analyse --bench`` prints it."""
    import time

    from capicua.bots import decide, warmup
    from capicua.engine import Match, make_rules, parse_action

    warmup()
    per_hand, baseline, counts = [], [], []
    for h in range(hands):
        match = Match(make_rules("cubano"), f"{seed}-{h}")
        match.start_hand()
        while match.phase == "play":
            seat = match.turn
            assert seat is not None
            match.apply(seat, parse_action(decide("botagorda", match.view(seat), h), 9))
        record = match.record()
        start = time.process_time()
        result = analyse_hand(record, 1, [0], budget_ms=budget_ms)[0]
        per_hand.append(time.process_time() - start)
        found = decisions(record, 1, [0])
        start = time.process_time()
        for d in found:
            decide(LEVEL, d.view, d.seed, budget_ms)
        baseline.append(time.process_time() - start)
        counts.append(len(result["decisions"]))
    ordered = sorted(per_hand)
    return {
        "hands": hands, "seed": seed, "budget_ms": budget_ms,
        "decisions_per_hand": {"mean": sum(counts) / hands, "max": max(counts)},
        "analysis_cpu_s_per_decision": round(sum(per_hand) / max(1, sum(counts)), 4),
        "analysis_cpu_s": {"mean": round(sum(per_hand) / hands, 3), "p95": round(ordered[int(0.95 * (hands - 1))], 3),
                           "max": round(ordered[-1], 3)},
        "baseline": "experto decide() on the same decisions",
        "baseline_cpu_s": {"mean": round(sum(baseline) / hands, 3), "max": round(max(baseline), 3)},
        "ratio": round(sum(per_hand) / max(1e-9, sum(baseline)), 2),
    }
