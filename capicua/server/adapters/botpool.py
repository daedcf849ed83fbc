""":class:`PoolBots`, the in-process :class:`~capicua.server.ports.BotPool`: the
neighbours' decisions, with a thinking delay and a deadline.

The levels that never search (:data:`capicua.bots.QUICK_LEVELS`) decide at once
on the loop and their answer waits out the delay on a plain timer: a decision
costs well under a millisecond, less than pickling the view to a worker, and
nothing of the ask (the view, a task, its coroutine) stays alive during the
delay. Under load those thousands of half-second-old objects were what the
garbage collector's young collections walked, with every table waiting. The
search levels think in a process pool, never on the loop.

:class:`RenewingPool` is that pool, replaced when it breaks: a
``ProcessPoolExecutor`` one of whose workers dies (the OOM killer, a ``kill -9``)
refuses every later job for good, and every searching neighbour would play its
first legal move until a restart. A decision caught in the break is asked
again of the new pool.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from capicua.server import metrics
from capicua.server.ports import TimerHandle

log = logging.getLogger("capicua.bots")


def bot_decide(level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
    """A bot's decision (in a worker process, or on the loop for a quick level)."""
    from capicua.bots import decide

    return decide(level, view, seed)


class TaskHandle:
    """A :class:`~capicua.server.ports.TimerHandle` over a task: cancelling it cancels the task."""

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
        pause: bool = True,
    ) -> TimerHandle:
        loop = asyncio.get_running_loop()
        wait = self.pause() if pause else 0.0
        if level in self.quick:
            return loop.call_later(wait, answer, self._decide_here(level, view, seed))
        task = loop.create_task(self._pooled(level, view, seed, wait))
        task.add_done_callback(lambda t: None if t.cancelled() else answer(t.result()))
        return TaskHandle(task)

    async def decide(self, level: str, view: dict[str, Any], seed: int, pause: bool = True) -> dict[str, Any]:
        """The answer :meth:`ask` gives, awaited."""
        wait = self.pause() if pause else 0.0
        if level in self.quick:
            action = self._decide_here(level, view, seed)
            await asyncio.sleep(wait)
            return action
        return await self._pooled(level, view, seed, wait)

    def pause(self) -> float:
        """Seconds an answer waits at least after its ask (a neighbour is not instant)."""
        lo, hi = self.delay
        return self._rng.uniform(lo, hi) if hi > 0 else 0.0

    def _decide_here(self, level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            return bot_decide(level, view, seed)
        except Exception as exc:  # a bot's bug must not stall the table
            log.warning("a %s bot gave no move (%s); the table plays on", level, type(exc).__name__)
            return {}
        finally:  # decided at once: never queued (capicua_bot_wait_seconds, without the pause)
            metrics.bot_decided(time.perf_counter() - started)

    async def _pooled(self, level: str, view: dict[str, Any], seed: int, pause: float) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[dict[str, Any]] | None = None
        end = loop.time() + pause + self.deadline
        # In the bot queue from the ask until the pool's decision is in (the pause is not a wait).
        waiting = metrics.BotWait()
        try:  # a broken pool refuses work at submit time already
            fut = loop.run_in_executor(self.executor, bot_decide, level, view, seed)
            fut.add_done_callback(waiting.done)
            if pause:
                await asyncio.sleep(pause)
            try:
                return dict(await asyncio.wait_for(fut, self.deadline))
            except BrokenProcessPool:
                # A worker died mid-decision: a RenewingPool replaces itself; ask it once more.
                log.warning("a %s bot's worker died mid-decision; asking the new pool", level)
            fut = loop.run_in_executor(self.executor, bot_decide, level, view, seed)
            return dict(await asyncio.wait_for(fut, max(0.0, end - loop.time())))
        except asyncio.CancelledError:
            if fut is not None:
                fut.cancel()
            raise
        except Exception as exc:  # a broken pool, a bot's bug, a deadline: the table must not stall
            log.warning("a %s bot gave no move (%s); the table plays on", level, type(exc).__name__)
            return {}
        finally:
            waiting.done()


RENEW_GAP_S = 1.0  # a pool is replaced at most this often (workers that die at start do not fork in a loop)


class RenewingPool(Executor):
    """An executor made by ``make`` (a process pool), replaced by a new one when it
    breaks. :attr:`state` is ``"ok"``, or ``"restarting"`` from the break until a job
    of the new pool (a warm-up job it is given at once) has answered; the break and
    the return are logged. Jobs of the broken pool fail (``BrokenProcessPool``);
    the next ones go to the new pool."""

    def __init__(self, make: Callable[[], Executor], name: str = "bots") -> None:
        self.make = make
        self.name = name
        self._state = "ok"
        self.renewals = 0
        self._pool = make()
        self._lock = threading.Lock()
        self._renewed_at = float("-inf")
        self._renewing = False
        self._closed = False

    @property
    def state(self) -> str:
        """``"ok"`` or ``"restarting"``. A pool whose worker died while it had no job has
        no job to fail: it is found broken here (by ``/healthz``) or at the next job."""
        pool = self._pool
        if getattr(pool, "_broken", False):  # ProcessPoolExecutor's own flag
            self._broke(pool)
        return self._state

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        pool = self._pool
        try:
            fut = pool.submit(fn, *args, **kwargs)
        except BrokenProcessPool:
            if self._closed or time.monotonic() - self._renewed_at < RENEW_GAP_S:
                self._broke(pool)
                raise
            pool = self._replace(pool)
            fut = pool.submit(fn, *args, **kwargs)
        fut.add_done_callback(lambda f: self._settled(pool, f))
        return fut

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            pool = self._pool
        pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def _settled(self, pool: Executor, fut: Future[Any]) -> None:
        """A job ended (in the pool's own thread): a break starts the renewal, an answer
        of the current pool ends one."""
        if fut.cancelled():
            return
        if isinstance(fut.exception(), BrokenProcessPool):
            self._broke(pool)
        elif pool is self._pool and self._state != "ok":
            self._state = "ok"
            log.info("the %s process pool is back (pool %d)", self.name, self.renewals + 1)

    def _broke(self, pool: Executor) -> None:
        """``pool`` broke: replace it from a thread of its own (not the pool's, not the loop)."""
        with self._lock:
            if self._pool is not pool or self._renewing or self._closed:
                return
            self._renewing = True
            self._state = "restarting"
        threading.Thread(target=self._replace_later, args=(pool,), name=f"capicua-{self.name}-renew",
                         daemon=True).start()

    def _replace_later(self, pool: Executor) -> None:
        time.sleep(max(0.0, self._renewed_at + RENEW_GAP_S - time.monotonic()))
        self._replace(pool)

    def _replace(self, broken: Executor) -> Executor:
        with self._lock:
            if self._pool is not broken or self._closed:
                return self._pool
            self._pool = fresh = self.make()
            self.renewals += 1
            self._renewed_at = time.monotonic()
            self._renewing = False
            self._state = "restarting"
        log.warning("the %s process pool broke (a worker died); a new one replaces it (pool %d)",
                    self.name, self.renewals + 1)
        broken.shutdown(wait=False, cancel_futures=True)
        warm = fresh.submit(os.getpid)  # its answer says the new pool works
        warm.add_done_callback(lambda f: self._settled(fresh, f))
        return fresh


def pool_state(executor: Executor | None) -> str:
    """``"ok"`` or ``"restarting"`` (a :class:`RenewingPool` replacing itself); any other pool is ``"ok"``."""
    return executor.state if isinstance(executor, RenewingPool) else "ok"
