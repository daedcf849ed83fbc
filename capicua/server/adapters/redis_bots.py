""":class:`RedisBots`, the :class:`~capicua.server.ports.BotPool` of a cluster: the
searching neighbours think in ``capicua worker`` processes (:mod:`capicua.server.worker`),
on this machine or others, fed by a Redis Stream.

The jobs' way, and why each piece is what it is:

- The owner of a table ``XADD``\\ s a job to the stream :data:`STREAM` (``capicua:bots``):
  ``job`` (an id of the owner's), ``level``, ``view`` (JSON), ``seed``, ``budget``
  (ms of thinking, empty for the level's default), ``reply`` (the owner's reply key)
  and ``until`` (Redis time in ms after which nobody waits for the answer). A Stream
  with a consumer group (:data:`GROUP`, ``workers``) gives each job to one worker and
  keeps it pending until that worker acknowledges it: a job of a worker that died
  is still there, and a live worker takes it over with ``XAUTOCLAIM`` once it has
  been idle :data:`RECLAIM_IDLE_MS` (a live worker touches the jobs it is deciding,
  so only a dead one's go idle). A list or pub/sub would lose it with the worker.
- The worker answers on the owner's reply list (``LPUSH`` and an expiry, one list per
  owner process: :data:`REPLY_PREFIX` + owner), acknowledges and deletes the job, in
  one transaction. The owner reads its list with ``BLPOP`` on one connection and
  hands each answer to the ask waiting for it; an answer nobody waits for any more
  (past its deadline, the table moved on) is dropped.
- Workers say they are alive in the sorted set :data:`WORKERS` (name → Redis time in ms
  their heartbeat lasts until; every second, for :data:`HEARTBEAT_TTL_MS`). The
  owner queues a job only while a heartbeat is current, checked and queued in one
  script on Redis's own clock: with no worker running (``make run``, a cluster
  started without workers, every worker dead, Redis down), the server's own process
  pool decides, as a single process does.
- At its deadline (the local pool's ``deadline``) an unanswered job is decided by the
  owner itself with the quick level :data:`FALLBACK_LEVEL`, on the loop: a table
  never waits on a dead, stopped or absent worker.

The levels that never search (:data:`capicua.bots.QUICK_LEVELS`) are decided by the
local :class:`~capicua.server.adapters.botpool.PoolBots` at once, as always: sending
their view to another machine costs more than their decision.

The experto's hand analyses (:mod:`capicua.server.analyst`) take the same way on a
stream of their own, :data:`ANALYSES` (``capicua:analyses``, the same group): a job
carries ``hand``, the JSON of :func:`capicua.server.analyst.hand_job` (the record and
who chose what: a worker never reads the store), and is answered on the same reply
list with the analysis. Their own stream, so that a worker can keep slots for the
neighbours (a table waits on a bot's move, nobody waits on an analysis) and a backlog
of analyses never delays a move queued behind it. Queued only while a worker is
alive; reclaimed from a dead worker like a bot job; unanswered after
:data:`ANALYSIS_WAIT_S` (or with no worker), the server's own analysis pool searches.

Nothing in Redis is the only copy of anything a table needs: after a Redis restart
(empty, no persistence) the jobs in flight time out into the fallback, the owners
queue nothing until a worker's heartbeat is back, and the workers make the stream
and the group again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from capicua.server import metrics
from capicua.server.adapters.botpool import PoolBots, TaskHandle, bot_decide
from capicua.server.ports import TimerHandle

log = logging.getLogger("capicua.bots")

STREAM = "capicua:bots"
ANALYSES = "capicua:analyses"  # the hand analyses' jobs (same group, same reply lists)
ANALYSIS_WAIT_S = 120.0  # an analysis job no worker answered by then is searched by the owner's own pool
ANALYSES_MAXLEN = 10_000
GROUP = "workers"
WORKERS = "capicua:bots:workers"
REPLY_PREFIX = "capicua:bots:reply:"
STREAM_MAXLEN = 100_000  # trimmed past this (approximately): a backlog that long is past every deadline
REPLY_TTL_MS = 60_000  # a reply list nobody reads (its owner died) leaves Redis after this
HEARTBEAT_TTL_MS = 3_000  # a worker's heartbeat lasts this long; it renews it every HEARTBEAT_S
HEARTBEAT_S = 1.0
RECLAIM_IDLE_MS = 5_000  # a pending job idle this long belongs to a dead worker
FALLBACK_LEVEL = "medio"  # the owner's own decision at a job's deadline (a quick level)
RETRY_S = (0.5, 1.0, 2.0, 5.0)  # waits between reconnections while Redis is down
BLOCK_S = 1  # a blocking read returns this often (so that closing never waits long)

# KEYS: the workers' set, the stream. ARGV: maxlen, ms to the deadline, then the job's
# fields as pairs. Queues the job only while a worker's heartbeat is current (on Redis's
# clock, so that no machine's clock matters); nil when none is.
SUBMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZCOUNT', KEYS[1], now, '+inf') == 0 then return false end
return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'until', now + tonumber(ARGV[2]),
                  unpack(ARGV, 3))
"""


def redis_client(url: str) -> aioredis.Redis:
    """A client whose reads wait longer than any blocking command of ours (``BLOCK_S``)."""
    return aioredis.Redis.from_url(url, socket_timeout=BLOCK_S + 5.0, socket_connect_timeout=5.0,
                                   health_check_interval=30)


class Outage:
    """One warning when a Redis connection fails, one line when it is back: not a line per command."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.down = False
        self.failures = 0

    def failed(self, exc: BaseException) -> float:
        """Log the outage once; the seconds to wait before the next attempt."""
        metrics.redis_error()
        if not self.down:
            log.warning("%s: Redis unreachable (%s: %s); retrying", self.what, type(exc).__name__, exc)
        self.down = True
        self.failures += 1
        return RETRY_S[min(self.failures, len(RETRY_S)) - 1]

    def ok(self) -> None:
        if self.down:
            log.info("%s: Redis is back", self.what)
        self.down = False
        self.failures = 0


class RedisBots:
    """Searching bots in ``capicua worker`` processes over Redis (:data:`STREAM`), the
    quick ones and everything while no worker is alive in ``local``. An answer comes
    at least ``local``'s pause after the ask and at most its ``deadline`` after it.
    ``owner`` names this process (its reply list); ``budget_ms``: the workers' thinking
    budget (``None``: each level's own).

    :attr:`counts` says who decided: ``"worker"``, ``"local"`` (no worker alive, or
    Redis down) and ``"fallback"`` (the owner at the deadline, with :data:`FALLBACK_LEVEL`)."""

    def __init__(self, url: str, local: PoolBots, owner: str, budget_ms: float | None = None) -> None:
        self.local = local
        self.reply_key = REPLY_PREFIX + owner
        self.budget_ms = budget_ms
        self.counts = {"worker": 0, "local": 0, "fallback": 0}
        self._redis = redis_client(url)
        self._submit = self._redis.register_script(SUBMIT)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        self._queue_outage = Outage("bot jobs")
        self._queue_again_at = float("-inf")  # while Redis is down, asks go to the local pool until then
        self._late_logged_at = float("-inf")
        self._late = 0

    def ask(
        self, level: str, view: dict[str, Any], seed: int, answer: Callable[[dict[str, Any]], None],
        pause: bool = True,
    ) -> TimerHandle:
        if level in self.local.quick:
            return self.local.ask(level, view, seed, answer, pause)
        task = asyncio.get_running_loop().create_task(self.decide(level, view, seed, pause))
        task.add_done_callback(lambda t: None if t.cancelled() else answer(t.result()))
        return TaskHandle(task)

    async def decide(self, level: str, view: dict[str, Any], seed: int, pause: bool = True) -> dict[str, Any]:
        """The answer :meth:`ask` gives, awaited."""
        if level in self.local.quick:
            return await self.local.decide(level, view, seed, pause)
        loop = asyncio.get_running_loop()
        asked_at = loop.time()
        answer_at = asked_at + (self.local.pause() if pause else 0.0)
        job = uuid.uuid4().hex
        waiting = self._waiting[job] = loop.create_future()
        try:
            if not await self._queue(job, level, view, seed):
                self.counts["local"] += 1
                return await self.local.decide(level, view, seed, pause)
            self._start_reading()  # the answer waits in the reply list until read
            queued = metrics.BotWait()  # the workers' queue: asked, not yet answered
            action: dict[str, Any]
            try:
                reply = await asyncio.wait_for(waiting, self.local.deadline)
                action = reply["action"] if isinstance(reply.get("action"), dict) else {}
                self.counts["worker"] += 1
            except TimeoutError:
                action = self._fallback(level, view, seed)
            finally:
                queued.done()
            await asyncio.sleep(max(0.0, answer_at - loop.time()))
            return action
        finally:
            self._waiting.pop(job, None)

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        await self._redis.aclose()

    async def _queue(self, job: str, level: str, view: dict[str, Any], seed: int) -> bool:
        """Queue the job for a worker; False when no worker is alive or Redis is down (then
        Redis is tried again only after a backoff: a Redis that does not answer would
        make every ask wait for its connection timeout)."""
        fields = {"level": level, "view": json.dumps(view, separators=(",", ":")), "seed": seed,
                  "budget": "" if self.budget_ms is None else self.budget_ms}
        return await self._add(STREAM, STREAM_MAXLEN, self.local.deadline, job, fields)

    async def analyse(self, job: dict[str, Any]) -> list[dict[str, Any]] | None:
        """A hand's analysis (:func:`capicua.server.analyst.hand_job`'s ``job``) searched
        by a worker: the :class:`~capicua.server.analyst.AnalysisWorkers` port. ``None``
        when no worker is alive, Redis is down, the worker failed, or none answered
        within :data:`ANALYSIS_WAIT_S`: the server's own pool searches it then."""
        loop = asyncio.get_running_loop()
        job_id = uuid.uuid4().hex
        waiting = self._waiting[job_id] = loop.create_future()
        try:
            fields = {"hand": json.dumps(job, separators=(",", ":"))}
            if not await self._add(ANALYSES, ANALYSES_MAXLEN, ANALYSIS_WAIT_S, job_id, fields):
                return None
            self._start_reading()
            try:
                reply = await asyncio.wait_for(waiting, ANALYSIS_WAIT_S)
            except TimeoutError:
                log.warning("no worker analysed table %s hand %s in %g s; the server's pool does",
                            job.get("table"), job.get("hand"), ANALYSIS_WAIT_S)
                return None
            results = reply.get("analysis")
            return results if isinstance(results, list) else None
        finally:
            self._waiting.pop(job_id, None)

    async def _add(self, stream: str, maxlen: int, wait_s: float, job: str, fields: dict[str, Any]) -> bool:
        """Queue a job on ``stream`` while a worker is alive (answered on this owner's
        reply list, dropped by the worker ``wait_s`` from now); False when none is, or
        Redis is down (then Redis is tried again only after a backoff)."""
        loop = asyncio.get_running_loop()
        if loop.time() < self._queue_again_at:
            return False
        args: list[Any] = [maxlen, int(wait_s * 1000)]
        for key, value in {"job": job, **fields, "reply": self.reply_key}.items():
            args += [key, value]
        try:
            queued = await self._submit(keys=[WORKERS, stream], args=args)
        except (RedisError, OSError) as exc:
            self._queue_again_at = loop.time() + self._queue_outage.failed(exc)
            return False
        self._queue_outage.ok()
        return queued is not None

    def _fallback(self, level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
        """No worker answered in time: the owner decides, quickly, itself."""
        self.counts["fallback"] += 1
        self._late += 1
        now = time.monotonic()
        if now - self._late_logged_at >= 10.0:  # a line per ten seconds, not one per decision
            log.warning("%d %s decision(s) got no worker's answer in %.1f s; decided here as %s",
                        self._late, level, self.local.deadline, FALLBACK_LEVEL)
            self._late, self._late_logged_at = 0, now
        try:
            return bot_decide(FALLBACK_LEVEL, view, seed)
        except Exception as exc:  # a bot's bug must not stall the table
            log.warning("a %s bot gave no move (%s); the table plays on", FALLBACK_LEVEL, type(exc).__name__)
            return {}

    def _start_reading(self) -> None:
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read_replies(), name="capicua-bot-replies")

    async def _read_replies(self) -> None:
        """Hand each answer on this owner's reply list to the ask waiting for it."""
        outage = Outage("bot answers")
        # A flag, not only the cancellation: redis-py may turn a cancelled read into a ConnectionError.
        while not self._closed:
            try:
                got = await self._redis.blpop([self.reply_key], timeout=BLOCK_S)
            except (RedisError, OSError) as exc:
                if self._closed:
                    return
                await asyncio.sleep(outage.failed(exc))
                continue
            outage.ok()
            if got is None:
                continue
            try:
                reply = json.loads(got[1])
                job = str(reply["job"])
            except (ValueError, KeyError, TypeError):
                log.warning("a bot worker's answer does not read: %.200r", got[1])
                continue
            waiting = self._waiting.get(job)
            if waiting is not None and not waiting.done():
                waiting.set_result(reply)  # {"job", "action"} for a move, {"job", "analysis"} for an analysis
