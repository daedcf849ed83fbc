"""The limits counted in the Redis a cluster's processes share, so that a limit holds
however the load balancer spreads one client's requests and sockets: the HTTP
budgets (:class:`RedisBudgets`, a :class:`~capicua.server.gateway.limits.Budgets`)
and the socket caps (:class:`SharedSocketCounts`).

The budgets: one sliding window per (limit, key), a sorted set of event times taken from
Redis's clock (``TIME``: the same for every process), checked and counted for
every limit of a request in one Lua script, so two processes never both take
the last place. While Redis does not answer, each process counts on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from capicua.server.gateway.limits import (
    HttpLimits,
    LocalBudgets,
    Refusal,
    SocketCounts,
    budget_rates,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("capicua.server")

# KEYS: one sorted set per limit; ARGV: whether to check the limits (else only count),
# then (limit, window ms) per key.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local worst = -1
local worst_i = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if ARGV[1] == '1' and redis.call('ZCARD', key) >= limit then
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local wait = tonumber(first[2]) + window - now
    if wait > worst then worst = wait; worst_i = i end
  end
end
if worst >= 0 then return {worst_i, worst} end
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZADD', key, now, now .. '-' .. redis.call('INCR', key .. ':n'))
  redis.call('PEXPIRE', key, window)
  redis.call('PEXPIRE', key .. ':n', window)
end
return {0, 0}
"""


class RedisBudgets:
    """The budgets counted in the cluster's Redis: one limit holds across every process.

    While Redis does not answer, each process counts on its own (``local``): the
    limits hold per process, a request is never refused nor failed for the
    outage, and the outage is one warning line (and one when it ends)."""

    PREFIX = "capicua:limit:"

    def __init__(self, limits: HttpLimits, redis: Redis, on_error: Callable[[], None] = lambda: None) -> None:
        self.limits = limits
        self.rates = budget_rates(limits)
        self.redis = redis
        self.local = LocalBudgets(limits)
        self.on_error = on_error  # counted (capicua.server.metrics)
        self.failing = False
        self._script = redis.register_script(_TAKE)

    async def _run(self, keys: dict[str, str], check: bool) -> Refusal | None:
        names = list(keys)
        args: list[Any] = ["1" if check else "0"]
        for name in names:
            limit, window = self.rates[name]
            args += [limit, int(window * 1000)]
        worst, wait_ms = await self._script(keys=[f"{self.PREFIX}{n}:{keys[n]}" for n in names], args=args)
        return None if int(worst) == 0 else Refusal(names[int(worst) - 1], int(wait_ms) / 1000)

    async def take(self, keys: dict[str, str]) -> Refusal | None:
        try:
            refused = await self._run(keys, True)
        except (RedisError, OSError) as exc:
            self._failed(exc)
            return await self.local.take(keys)
        self._answered()
        return refused

    async def count(self, name: str, key: str) -> None:
        try:
            await self._run({name: key}, False)
        except (RedisError, OSError) as exc:
            self._failed(exc)
            await self.local.count(name, key)
            return
        self._answered()

    def _failed(self, exc: Exception) -> None:
        self.on_error()
        if not self.failing:
            self.failing = True
            log.warning("limits: Redis does not answer (%s: %s); counting in this process until it does",
                        type(exc).__name__, exc)

    def _answered(self) -> None:
        if self.failing:
            self.failing = False
            log.info("limits: Redis answers again; counting there")


class SharedSocketCounts(SocketCounts):
    """A :class:`~capicua.server.gateway.limits.SocketCounts` whose cap holds across the
    cluster's processes, give or take what they opened since the last sync.

    The check stays synchronous (the gateway asks it on every socket): this process's
    own count plus the other processes' as of the last :meth:`sync` (every
    ``SYNC_S``). Each process writes its count of a key in a hash of that key, one
    field per process (``capicua:socks:<kind>:<key>``, field: the node id, value:
    ``count:until``), and reads the others' for the keys it holds. A field whose
    ``until`` has passed is a process that stopped writing (it died) and is not
    counted; a live process rewrites every key it holds each ``REFRESH_S``, so an
    empty Redis (restarted) is filled again. While Redis does not answer, the cap
    is this process's own, as in one process.
    """

    PREFIX = "capicua:socks:"
    SYNC_S = 1.0  # how often changed keys are written and the others' counts read
    REFRESH_S = 10.0  # how often every key held is written again
    STALE_S = 30.0  # a field not rewritten for this long is a dead process's

    def __init__(self, cap: int, kind: str, node: str, redis: Redis,
                 on_error: Callable[[], None] = lambda: None) -> None:
        super().__init__(cap)
        self.kind = kind
        self.node = node
        self.redis = redis
        self.on_error = on_error
        self.others: dict[Hashable, int] = {}  # the other processes' counts, as of the last sync
        self.dirty: set[Hashable] = set()
        self.refreshed = 0.0
        self.failing = False

    def add(self, key: Hashable) -> bool:
        if self.counts.get(key, 0) + self.others.get(key, 0) >= self.cap:
            return False
        self.counts[key] = self.counts.get(key, 0) + 1
        self.dirty.add(key)
        return True

    def remove(self, key: Hashable) -> None:
        super().remove(key)
        self.dirty.add(key)

    def _name(self, key: Hashable) -> str:
        text = "|".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
        return f"{self.PREFIX}{self.kind}:{text}"

    async def sync(self) -> None:
        """Write what changed here (everything held, each ``REFRESH_S``), read the others' counts."""
        now = time.time()
        everything = now - self.refreshed >= self.REFRESH_S
        keys = list(set(self.counts) | self.dirty) if everything else list(self.dirty)
        held = list(self.counts)
        self.dirty = set()
        until = int((now + self.STALE_S) * 1000)
        try:
            pipe = self.redis.pipeline(transaction=False)
            for key in keys:
                count = self.counts.get(key, 0)
                if count:
                    pipe.hset(self._name(key), self.node, f"{count}:{until}")
                    pipe.pexpire(self._name(key), int(self.STALE_S * 1000))
                else:
                    pipe.hdel(self._name(key), self.node)
            for key in held:
                pipe.hgetall(self._name(key))
            answers = await pipe.execute()
        except (RedisError, OSError) as exc:
            self.dirty.update(keys)  # written at the next sync that reaches Redis
            self.others = {}
            self.on_error()
            if not self.failing:
                self.failing = True
                log.warning("socket caps: Redis does not answer (%s: %s); capping per process until it does",
                            type(exc).__name__, exc)
            return
        if self.failing:
            self.failing = False
            log.info("socket caps: Redis answers again; capping across the cluster")
        if everything:
            self.refreshed = now
        now_ms = now * 1000
        others: dict[Hashable, int] = {}
        for key, fields in zip(held, answers[len(answers) - len(held):], strict=True):
            total = 0
            for node, value in fields.items():
                theirs, _, stamp = (value.decode() if isinstance(value, bytes) else value).partition(":")
                mine = (node.decode() if isinstance(node, bytes) else node) == self.node
                if not mine and stamp and int(stamp) > now_ms:
                    total += int(theirs)
            if total:
                others[key] = total
        self.others = others

    async def run(self) -> None:
        """:meth:`sync` every ``SYNC_S`` until cancelled."""
        while True:
            await self.sync()
            await asyncio.sleep(self.SYNC_S)

    async def clear(self) -> None:
        """This process stops: its fields go (the others need not wait for them to go stale)."""
        with contextlib.suppress(RedisError, OSError):  # unreachable: they go stale all the same
            pipe = self.redis.pipeline(transaction=False)
            for key in set(self.counts) | self.dirty:
                pipe.hdel(self._name(key), self.node)
            await pipe.execute()
