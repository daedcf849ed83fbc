""":class:`PoolBots`, the in-process :class:`~capicua.server.ports.BotPool`: the
neighbours' decisions, with a thinking delay and a deadline.

The levels that never search (:data:`capicua.bots.QUICK_LEVELS`) decide at once
on the loop and their answer waits out the delay on a plain timer: a decision
costs well under a millisecond, less than pickling the view to a worker, and
nothing of the ask (the view, a task, its coroutine) stays alive during the
delay. Under load those thousands of half-second-old objects were what the
garbage collector's young collections walked, with every table waiting. The
search levels think in a process pool, never on the loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from capicua.server.ports import TimerHandle

log = logging.getLogger("capicua.bots")


def bot_decide(level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
    """A bot's decision (in a worker process, or on the loop for a quick level)."""
    from capicua.bots import decide

    return decide(level, view, seed)


class _TaskHandle:
    __slots__ = ("_task",)

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self._task = task

    def cancel(self) -> None:
        self._task.cancel()


class PoolBots:
    """Bots of the levels in ``quick`` decide on the loop; the others in ``executor``
    (a process pool). An answer comes at least a random ``delay`` (seconds:
    neighbours are not instant) after the ask, and at most ``deadline`` seconds
    after it, when a pooled bot that has not answered gives ``{}`` and the table
    plays on."""

    def __init__(
        self, executor: Executor | None, delay: tuple[float, float] = (0.6, 1.5), deadline: float = 10.0,
        quick: frozenset[str] | None = None,
    ) -> None:
        from capicua.bots import QUICK_LEVELS

        self.executor = executor
        self.delay = delay
        self.deadline = deadline
        self.quick = QUICK_LEVELS if quick is None else quick
        self._rng = random.Random()

    def ask(
        self, level: str, view: dict[str, Any], seed: int, answer: Callable[[dict[str, Any]], None],
    ) -> TimerHandle:
        loop = asyncio.get_running_loop()
        pause = self._pause()
        if level in self.quick:
            return loop.call_later(pause, answer, self._decide_here(level, view, seed))
        task = loop.create_task(self._pooled(level, view, seed, pause))
        task.add_done_callback(lambda t: None if t.cancelled() else answer(t.result()))
        return _TaskHandle(task)

    async def decide(self, level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
        """The answer :meth:`ask` gives, awaited."""
        pause = self._pause()
        if level in self.quick:
            action = self._decide_here(level, view, seed)
            await asyncio.sleep(pause)
            return action
        return await self._pooled(level, view, seed, pause)

    def _pause(self) -> float:
        lo, hi = self.delay
        return self._rng.uniform(lo, hi) if hi > 0 else 0.0

    def _decide_here(self, level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
        try:
            return bot_decide(level, view, seed)
        except Exception as exc:  # a bot's bug must not stall the table
            log.warning("a %s bot gave no move (%s); the table plays on", level, type(exc).__name__)
            return {}

    async def _pooled(self, level: str, view: dict[str, Any], seed: int, pause: float) -> dict[str, Any]:
        fut: asyncio.Future[dict[str, Any]] | None = None
        try:  # a broken pool refuses work at submit time already
            fut = asyncio.get_running_loop().run_in_executor(self.executor, bot_decide, level, view, seed)
            if pause:
                await asyncio.sleep(pause)
            return dict(await asyncio.wait_for(fut, self.deadline))
        except asyncio.CancelledError:
            if fut is not None:
                fut.cancel()
            raise
        except Exception as exc:  # a broken pool, a bot's bug, a deadline: the table must not stall
            log.warning("a %s bot gave no move (%s); the table plays on", level, type(exc).__name__)
            return {}
