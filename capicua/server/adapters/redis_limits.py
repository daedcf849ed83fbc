"""The HTTP budgets counted in the Redis a cluster's processes share
(:class:`RedisBudgets`, a :class:`~capicua.server.gateway.limits.Budgets`), so that
a limit holds however the load balancer spreads one client's requests.

One sliding window per (limit, key): a sorted set of event times taken from
Redis's clock (``TIME``: the same for every process), checked and counted for
every limit of a request in one Lua script, so two processes never both take
the last place. While Redis does not answer, each process counts on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from capicua.server.gateway.limits import HttpLimits, LocalBudgets, Refusal, budget_rates

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
