"""Bot decisions are pure calls that a process pool can run."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

from capicua.bots import LEVELS, decide
from capicua.engine import Match, make_rules, parse_action


def test_decisions_in_a_process_pool() -> None:
    jobs = []
    for preset in ("cubano", "all-fives", "cross"):
        rules = make_rules(preset)
        rng = random.Random(preset)
        match = Match(rules, seed=f"pool-{preset}")
        match.start_hand()
        for _ in range(5):
            if match.phase != "play":
                break
            match.apply(match.turn, rng.choice(match.legal_moves()))  # type: ignore[arg-type]
        if match.phase != "play":
            continue
        view = match.view(match.turn)
        for level in LEVELS:
            jobs.append((match, level, view))
    assert jobs
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(decide, level, view, 5, 10) for _, level, view in jobs]
        results = [f.result() for f in futures]
    for (match, level, view), action in zip(jobs, results, strict=True):
        match.check(match.turn, parse_action(action, match.rules.max_pip))
        assert action == decide(level, view, 5, 10), level  # same answer in and out of the pool
