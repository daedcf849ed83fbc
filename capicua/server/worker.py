"""``capicua worker --redis URL``: a process that takes the searching neighbours'
decisions off the servers of a cluster (the jobs' way: :mod:`capicua.server.adapters.redis_bots`).

A worker is one consumer of the group ``workers`` on the stream ``capicua:bots``. It
reads as many jobs as its process pool has processes (``--processes``), decides each
with :func:`capicua.bots.decide` in that pool (a
:class:`~capicua.server.adapters.botpool.RenewingPool`, replaced when one of its
processes dies), answers on the owner's reply list and acknowledges the job. Every
second it renews its heartbeat (the owners queue jobs only while one is current)
and touches the jobs it is deciding; jobs left pending by a dead worker, idle past
``--reclaim-idle`` seconds, it claims (``XAUTOCLAIM``) and decides. A job past its
deadline is acknowledged and dropped undecided: its owner has decided already.

It takes the experto's hand analyses too, from their own stream ``capicua:analyses``
(:func:`capicua.server.analyst.analyse_job` in the same pool, answered with the
analysis on the owner's reply list; the owner stores it), reclaimed from a dead
worker the same way. At most :func:`analysis_slots` of its slots hold analyses at
once, so that with two or more slots a neighbour's move never waits behind them.

SIGTERM or SIGINT: it reads no more jobs, finishes those it holds, leaves the
workers' set and exits. ``kill -9``: its jobs wait for another worker's reclaim, or
their owners' deadlines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import socket
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from redis.exceptions import RedisError, ResponseError

from capicua.server.adapters.botpool import RenewingPool
from capicua.server.adapters.redis_bots import (
    ANALYSES,
    BLOCK_S,
    GROUP,
    HEARTBEAT_S,
    HEARTBEAT_TTL_MS,
    RECLAIM_IDLE_MS,
    REPLY_TTL_MS,
    STREAM,
    WORKERS,
    Outage,
    redis_client,
)

log = logging.getLogger("capicua.worker")

FINISH_S = 30.0  # on SIGTERM, how long the jobs in hand may take before the worker exits anyway

# KEYS: the workers' set. ARGV: this worker's name, its heartbeat's length (ms). Returns
# Redis's time in ms: the clock the jobs' deadlines are written in.
HEARTBEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)
return now
"""


def decide_job(level: str, view_json: str, seed: int, budget_ms: float | None) -> dict[str, Any]:
    """A job's decision, in a process of the pool."""
    from capicua.bots import decide

    return decide(level, json.loads(view_json), seed, budget_ms)


def analysis_job(hand_json: str) -> list[dict[str, Any]]:
    """A hand's analysis, in a process of the pool."""
    from capicua.server.analyst import analyse_job

    result: list[dict[str, Any]] = analyse_job(json.loads(hand_json))
    return result


def analysis_slots(slots: int) -> int:
    """Of ``slots`` jobs at once, how many may be analyses: all but one for the
    neighbours' moves (one when there is a single slot)."""
    return max(1, slots - 1)


def _warm() -> None:
    from capicua.bots import warmup

    try:
        warmup()
    except Exception as exc:  # the process still works: its first search compiles what it needs
        log.warning("a worker process starts cold: its warm-up failed (%s: %s)", type(exc).__name__, exc)


def process_pool(processes: int) -> Executor:
    """``forkserver`` processes (no fork of a threaded parent), the bots imported and warmed once."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["capicua.bots", "capicua.server.worker"])
    return ProcessPoolExecutor(max_workers=processes, mp_context=ctx, initializer=_warm)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Worker:
    """One consumer named ``name`` of the bots' stream at ``url``, deciding at most
    ``slots`` jobs at once in ``executor``."""

    def __init__(self, url: str, name: str, executor: Executor, slots: int,
                 reclaim_idle_ms: int = RECLAIM_IDLE_MS) -> None:
        self.name = name
        self.executor = executor
        self.slots = slots
        self.reclaim_idle_ms = reclaim_idle_ms
        self._redis = redis_client(url)
        self._heartbeat = self._redis.register_script(HEARTBEAT)
        self._clock_offset_ms = 0.0  # Redis's time minus this machine's, as the last heartbeat saw it
        self._deciding: dict[tuple[str, str], asyncio.Task[None]] = {}  # (stream, entry id) -> its job
        self._reclaimed_at = float("-inf")
        self._stopped = False

    async def run(self, stop: asyncio.Event) -> None:
        """Take and answer jobs until ``stop`` is set, then finish those in hand."""
        beat = asyncio.get_running_loop().create_task(self._beat(), name="capicua-worker-heartbeat")
        outage = Outage(f"worker {self.name}")
        try:
            await self._join_group()
            log.info("worker %s: taking bot jobs from %s (%d at once)", self.name, STREAM, self.slots)
            while not stop.is_set():
                free = self.slots - len(self._deciding)
                if free <= 0:
                    await asyncio.wait([*self._deciding.values()], timeout=BLOCK_S,
                                       return_when=asyncio.FIRST_COMPLETED)
                    continue
                try:
                    entries = await self._reclaim(free) or await self._read(free, self._analyses_free())
                except ResponseError as exc:
                    if "NOGROUP" not in str(exc):
                        raise
                    await self._join_group()  # Redis restarted empty: the stream and the group are gone
                    continue
                except (RedisError, OSError) as exc:
                    await asyncio.sleep(outage.failed(exc))
                    continue
                outage.ok()
                for stream, entry_id, fields in entries:
                    self._start(stream, _text(entry_id), {_text(k): _text(v) for k, v in fields.items()})
            if self._deciding:
                await asyncio.wait([*self._deciding.values()], timeout=FINISH_S)
        finally:
            self._stopped = True
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
            with contextlib.suppress(RedisError, OSError):
                await self._redis.zrem(WORKERS, self.name)
            await self._redis.aclose()

    async def _join_group(self) -> None:
        """Make the streams and their group unless they exist (from each stream's start:
        a job queued before the group was made is still read)."""
        for stream in (STREAM, ANALYSES):
            try:
                await self._redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def _analyses_free(self) -> int:
        held = sum(1 for stream, _ in self._deciding if stream == ANALYSES)
        return max(0, min(self.slots - len(self._deciding), analysis_slots(self.slots) - held))

    async def _reclaim(self, count: int) -> list[tuple[str, Any, Any]]:
        """Jobs of dead workers (idle past the reclaim time), checked twice per reclaim
        time: the moves' first, then analyses with the slots left for them."""
        now = time.monotonic()
        if now - self._reclaimed_at < self.reclaim_idle_ms / 2000:
            return []
        self._reclaimed_at = now
        entries: list[tuple[str, Any, Any]] = []
        for stream in (STREAM, ANALYSES):
            room = count - len(entries) if stream == STREAM else min(count - len(entries), self._analyses_free())
            if room <= 0:
                continue
            got = await self._redis.xautoclaim(stream, GROUP, self.name, self.reclaim_idle_ms, "0-0", count=room)
            for entry_id, fields in got[1]:
                if fields:  # an entry deleted since has no fields
                    log.info("worker %s: reclaimed job %s of %s from a worker that stopped answering",
                             self.name, _text(entry_id), stream)
                    entries.append((stream, entry_id, fields))
        return entries

    async def _read(self, count: int, analyses: int) -> list[tuple[str, Any, Any]]:
        """New jobs: up to ``count`` moves and, when ``analyses`` slots are free for them, analyses."""
        streams: dict[Any, Any] = {STREAM: ">"}
        if analyses > 0:  # XREADGROUP's count is per stream: the moves left wait for the next read, at once
            streams[ANALYSES] = ">"
            count = min(count, analyses)
        got: Any = await self._redis.xreadgroup(GROUP, self.name, streams, count=count, block=BLOCK_S * 1000)
        # RESP2: [[stream, entries]]
        return [(_text(stream), entry_id, fields) for stream, entries in got or [] for entry_id, fields in entries]

    def _start(self, stream: str, entry_id: str, job: dict[str, str]) -> None:
        key = (stream, entry_id)
        if key in self._deciding:  # reclaimed from itself (a touch that failed): decided once
            return
        work = self._analyse(entry_id, job) if stream == ANALYSES else self._answer(entry_id, job)
        task = asyncio.get_running_loop().create_task(work)
        self._deciding[key] = task
        task.add_done_callback(lambda _: self._deciding.pop(key, None))

    def _past(self, until: int) -> bool:
        return time.time() * 1000 + self._clock_offset_ms > until

    async def _analyse(self, entry_id: str, job: dict[str, str]) -> None:
        try:
            hand, reply, until = job["hand"], job["reply"], int(job["until"])
        except (KeyError, ValueError):
            log.warning("worker %s: analysis %s does not read; dropped", self.name, entry_id)
            await self._done(ANALYSES, entry_id, None, None)
            return
        if self._past(until):  # its owner searched it itself
            log.info("worker %s: analysis %s is past its deadline; dropped", self.name, entry_id)
            await self._done(ANALYSES, entry_id, None, None)
            return
        results: list[dict[str, Any]] | None = None
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            try:
                results = await loop.run_in_executor(self.executor, analysis_job, hand)
                break
            except BrokenProcessPool:  # a process died: the RenewingPool replaces itself; once more
                log.warning("worker %s: a process died analysing %s (attempt %d)", self.name, entry_id, attempt)
            except Exception as exc:  # a record the engine refuses: the owner's pool tries and reports it
                log.warning("worker %s: analysis %s failed (%s)", self.name, entry_id, type(exc).__name__)
                break
        if results is not None:
            log.info("worker %s: analysed a hand (%s)", self.name, entry_id)
        await self._done(ANALYSES, entry_id, reply, {"job": job.get("job"), "analysis": results, "worker": self.name})

    async def _answer(self, entry_id: str, job: dict[str, str]) -> None:
        try:
            level, view, seed, reply = job["level"], job["view"], int(job["seed"]), job["reply"]
            budget = float(job["budget"]) if job.get("budget") else None
            until = int(job["until"])
        except (KeyError, ValueError):
            log.warning("worker %s: job %s does not read; dropped", self.name, entry_id)
            await self._done(STREAM, entry_id, None, None)
            return
        if self._past(until):
            log.info("worker %s: job %s is past its deadline; dropped", self.name, entry_id)
            await self._done(STREAM, entry_id, None, None)
            return
        action: dict[str, Any] | None = None
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            try:
                action = await loop.run_in_executor(self.executor, decide_job, level, view, seed, budget)
                break
            except BrokenProcessPool:  # a process died: the RenewingPool replaces itself; once more
                log.warning("worker %s: a process died deciding job %s (attempt %d)", self.name, entry_id, attempt)
            except Exception as exc:  # a bot's bug: the owner's table plays on with no move
                log.warning("worker %s: a %s bot gave no move (%s)", self.name, level, type(exc).__name__)
                break
        await self._done(STREAM, entry_id, reply, {"job": job.get("job"), "action": action, "worker": self.name})

    async def _done(self, stream: str, entry_id: str, reply: str | None, answer: dict[str, Any] | None) -> None:
        """Answer (when there is an owner to answer), acknowledge and delete the job, in one transaction."""
        outage = Outage(f"worker {self.name}'s answers")
        while True:
            try:
                async with self._redis.pipeline(transaction=True) as tx:
                    if reply is not None and answer is not None:
                        tx.lpush(reply, json.dumps(answer, separators=(",", ":")))
                        tx.pexpire(reply, REPLY_TTL_MS)
                    tx.xack(stream, GROUP, entry_id)
                    tx.xdel(stream, entry_id)
                    await tx.execute()
                outage.ok()
                return
            except (RedisError, OSError) as exc:
                if outage.failures >= 3:  # the owner's deadline has passed: it decided already
                    log.warning("worker %s: job %s could not be answered; dropped", self.name, entry_id)
                    return
                await asyncio.sleep(outage.failed(exc))

    async def _beat(self) -> None:
        """The heartbeat, and a touch of every job in hand (so that none looks abandoned)."""
        outage = Outage(f"worker {self.name}'s heartbeat")
        # A flag, not only the cancellation: redis-py may turn a cancelled read into a ConnectionError.
        while not self._stopped:
            try:
                sent = time.time() * 1000
                now = await self._heartbeat(keys=[WORKERS], args=[self.name, HEARTBEAT_TTL_MS])
                self._clock_offset_ms = int(now) - (sent + time.time() * 1000) / 2
                for stream in (STREAM, ANALYSES):
                    held: list[Any] = [entry_id for s, entry_id in self._deciding if s == stream]
                    if held:
                        await self._redis.xclaim(stream, GROUP, self.name, 0, held, justid=True)
                outage.ok()
            except (RedisError, OSError) as exc:
                outage.failed(exc)
            await asyncio.sleep(HEARTBEAT_S)


def default_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="capicua worker", description="decide bot moves for the servers of a cluster")
    p.add_argument("--redis", required=True, metavar="URL", help="the cluster's Redis (redis://host:port/db)")
    p.add_argument("--name", default=None, help="this worker's consumer name (default: host:pid)")
    p.add_argument("--processes", type=int, default=max(1, os.cpu_count() or 1),
                   help="bot processes, and jobs decided at once (default: one per CPU)")
    p.add_argument("--reclaim-idle", type=float, default=RECLAIM_IDLE_MS / 1000, metavar="SECONDS",
                   help="a dead worker's job is taken over after this long idle")
    p.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    args = p.parse_args(argv)
    if args.processes < 1 or args.reclaim_idle <= 0:
        p.error("--processes and --reclaim-idle must be positive")
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    pool = RenewingPool(lambda: process_pool(args.processes), "worker")
    worker = Worker(args.redis, args.name or default_name(), pool, args.processes, int(args.reclaim_idle * 1000))

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await worker.run(stop)

    try:
        asyncio.run(run())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return 0
