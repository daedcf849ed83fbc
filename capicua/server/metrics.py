"""The process's Prometheus metrics (prometheus-client, a registry of its own), served at
``GET /metrics`` in the text format.

Every process of a cluster serves its own: Prometheus scrapes each process
(not the balancer, which would show a different one each time) and sums. Each
metric says what this process does: the tables it owns, the sockets it holds as
a gateway, the intents its sockets sent and the time until their first frame
came back (wherever the owner is: through Redis in cluster mode, so the
histogram is the latency a player feels), its appends and those the store
refused for a stale lease, the leases it took over, its bot jobs, and the errors
of its store and its Redis.

The bot metrics count every decision this process's tables asked for, wherever it
was made: a quick level's on the loop (never queued), a searching level's in the
process's own pool or in a ``capicua worker`` over Redis (queued from the ask until
the decision is in). The wait is the decision's, not the neighbour's deliberate
thinking pause added after it.

The parts of the server call the functions below (:func:`intent`,
:func:`appended`, …); the gauges read their value when scraped, from the
callbacks the app gives (:func:`watch`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: a human-paced table answers in a few milliseconds; the target is p99 <= 50 ms.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

TABLES_OWNED = Gauge("capicua_tables_owned", "Tables this process owns (in memory, lease held)", registry=REGISTRY)
SOCKETS = Gauge("capicua_sockets", "Websockets this process holds as a gateway", registry=REGISTRY)
INTENTS = Counter("capicua_intents", "Intents this process's sockets sent to their tables", registry=REGISTRY)
INTENT_FRAME = Histogram(
    "capicua_intent_frame_seconds", "Time from a socket's intent to the next frame it gets back",
    buckets=_LATENCY_BUCKETS, registry=REGISTRY,
)
APPENDS = Counter("capicua_appends", "Appends to table logs committed by this process", registry=REGISTRY)
FENCED_APPENDS = Counter(
    "capicua_fenced_appends", "Appends refused because this process's lease was stale (fenced)", registry=REGISTRY,
)
LEASE_TAKEOVERS = Counter(
    "capicua_lease_takeovers", "Table leases this process took from another owner whose lease expired",
    registry=REGISTRY,
)
BOT_QUEUE = Gauge("capicua_bot_queue_depth", "Bot decisions asked and not yet decided (pool or workers)",
                  registry=REGISTRY)
BOT_WAIT = Histogram(
    "capicua_bot_wait_seconds", "Time from asking a bot's decision to the decision (its thinking pause aside)",
    buckets=_LATENCY_BUCKETS, registry=REGISTRY,
)
STORE_ERRORS = Counter("capicua_store_errors", "Store operations that failed (the store unreachable)",
                       registry=REGISTRY)
REDIS_ERRORS = Counter("capicua_redis_errors", "Redis operations that failed (Redis unreachable)", registry=REGISTRY)
REFUSED = Counter("capicua_connections_refused", "Connections answered 503 at the connection bound",
                  registry=REGISTRY)


def watch(tables_owned: Callable[[], float], sockets: Callable[[], float]) -> None:
    """Where the gauges read their values when scraped (the app's, when it starts)."""
    TABLES_OWNED.set_function(tables_owned)
    SOCKETS.set_function(sockets)


def intent() -> None:
    INTENTS.inc()


def intent_answered(seconds: float) -> None:
    INTENT_FRAME.observe(seconds)


def appended(count: int = 1) -> None:
    APPENDS.inc(count)


def fenced() -> None:
    FENCED_APPENDS.inc()


def lease_taken_over() -> None:
    LEASE_TAKEOVERS.inc()


class BotWait:
    """One bot decision in the queue from now (:data:`BOT_QUEUE`) until :meth:`done`,
    which observes its wait (:data:`BOT_WAIT`); a second ``done`` changes nothing."""

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since: float | None = time.perf_counter()
        BOT_QUEUE.inc()

    def done(self, *_: object) -> None:  # also a future's done callback
        if self._since is not None:
            BOT_QUEUE.dec()
            BOT_WAIT.observe(time.perf_counter() - self._since)
            self._since = None


def bot_decided(seconds: float) -> None:
    """A decision made at once, never queued (a quick level on the loop)."""
    BOT_WAIT.observe(seconds)


def store_error() -> None:
    STORE_ERRORS.inc()


def redis_error() -> None:
    REDIS_ERRORS.inc()


def connection_refused() -> None:
    REFUSED.inc()


def exposition() -> bytes:
    """Every metric in Prometheus's text format."""
    return generate_latest(REGISTRY)
