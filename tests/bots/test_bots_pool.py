"""Bot decisions are pure calls that a process pool can run."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

from capicua.bots import LEVELS, QUICK_LEVELS, decide
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


class RefusingExecutor(Executor):
    """A pool that takes no work: whatever reaches it fails."""

    def __init__(self) -> None:
        self.submitted: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted.append(args[0])
        raise RuntimeError("this pool takes no work")


def test_levels_that_never_search_decide_on_the_loop_and_the_others_in_the_pool() -> None:
    from capicua.server.adapters.botpool import PoolBots

    match = Match(make_rules("cubano"), seed="quick")
    match.start_hand()
    seat = match.turn
    assert seat is not None
    view = match.view(seat)
    executor = RefusingExecutor()
    bots = PoolBots(executor, (0.0, 0.0))

    async def ask(level: str) -> dict[str, Any]:
        return await bots.decide(level, view, 7)

    for level in sorted(QUICK_LEVELS):
        assert asyncio.run(ask(level)) == decide(level, view, 7), level  # the same answer as in a worker
    assert executor.submitted == []
    assert QUICK_LEVELS == {"random", "botagorda", "medio"}
    assert asyncio.run(ask("experto")) == {}  # the pool failed: no move, the table plays on
    assert executor.submitted == ["experto"]


def test_a_turn_asked_again_after_the_table_moved_waits_no_thinking_pause() -> None:
    """A neighbour thinks 0.6–1.5 s before it plays; a turn asked again on the process that
    took the table over already waited that on the dead one (``pause=False``)."""
    from capicua.server.adapters.botpool import PoolBots

    match = Match(make_rules("cubano"), seed="again")
    match.start_hand()
    assert match.turn is not None
    view = match.view(match.turn)
    level = sorted(QUICK_LEVELS)[0]

    async def answered_after(pause: bool) -> float:
        loop = asyncio.get_running_loop()
        heard: asyncio.Future[float] = loop.create_future()
        started = loop.time()
        PoolBots(None, (30.0, 30.0)).ask(level, view, 5, lambda _: heard.set_result(loop.time() - started), pause)
        try:
            return await asyncio.wait_for(heard, 0.5)
        except TimeoutError:
            return float("inf")

    assert asyncio.run(answered_after(False)) < 0.5
    assert asyncio.run(answered_after(True)) == float("inf")  # the 30 s pause: still thinking
