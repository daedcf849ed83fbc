"""The ASGI app: the pages, the HTTP API and the websocket, wired to the tables.

``create_app()`` is the composition root: it builds the routes
(:mod:`capicua.server.routes`) over one :class:`~capicua.server.http.deps.Deps`
and, when the app starts, the parts they use: the store and its event log, the
bus, the clock, the bot pool, the tables (:class:`~capicua.server.registry.Tables`),
guests, the analyst, the replays and the websockets
(:mod:`capicua.server.gateway.sockets`). ``serve()`` runs it with uvicorn (``capicua
serve`` and ``python -m capicua.server`` call it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import multiprocessing
import os
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware

from capicua.server import metrics
from capicua.server.adapters.botpool import PoolBots, RenewingPool, pool_state
from capicua.server.adapters.honours import StandingsLog
from capicua.server.adapters.leases import LocalLeases, SqlLeases, default_node_id
from capicua.server.adapters.memory import LocalBus, LoopClock
from capicua.server.adapters.redis_limits import RedisBudgets, SharedSocketCounts
from capicua.server.adapters.sql import StoreGuests
from capicua.server.analyst import Analyst
from capicua.server.gateway.identity import Guests
from capicua.server.gateway.limits import (
    GUESTS_PER_ADDRESS,
    SILENT_SOCKETS,
    SOCKETS_PER_ADDRESS,
    SOCKETS_PER_GUEST,
    TABLES_PER_ADDRESS,
    TABLES_PER_GUEST,
    ClientAddresses,
    HttpLimits,
    SocketCounts,
)
from capicua.server.gateway.sockets import SocketLimits, Sockets
from capicua.server.http.compress import GzipAnswers
from capicua.server.http.deps import Deps
from capicua.server.http.replay import Replays
from capicua.server.http.static import WebAssets
from capicua.server.matchmaker import Matcher
from capicua.server.ports import Bus, TableRouter
from capicua.server.registry import Tables
from capicua.server.routes import error_handlers, routes
from capicua.server.runtime.connections import (
    MAX_CONNECTIONS,
    connection_bound,
    one_line_for_exhaustion,
    raise_open_files,
)
from capicua.server.runtime.drain import Drain, DrainingServer, hand_over
from capicua.server.runtime.edge import uvicorn_config
from capicua.server.runtime.heap import settle_the_heap
from capicua.server.runtime.logsetup import LOG_FORMATS, log_config
from capicua.server.runtime.watchdog import watch_loop
from capicua.store import Store, default_database_url
from capicua.table.core import CoreConfig

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from capicua.server.adapters.redis_bots import RedisBots
    from capicua.server.adapters.redis_bus import RedisBus, RedisRouter

log = logging.getLogger("capicua.server")

WEB = Path(__file__).resolve().parent.parent / "web"


def _forkserver() -> multiprocessing.context.ForkServerContext:
    """``forkserver`` workers (no fork of a threaded server), the bots imported once
    by the fork server for every worker it starts."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["capicua.bots", "capicua.server.adapters.botpool"])
    return ctx


def default_executor() -> Executor:
    """The bots' process pool."""
    ctx = _forkserver()
    # Each worker loads the bots' JIT kernel from numba's cache once, at start,
    # instead of making the first searching bot's move wait ~1.6 s for it.
    return ProcessPoolExecutor(
        max_workers=max(1, min(2, os.cpu_count() or 1)), mp_context=ctx, initializer=_warm_bot_worker
    )


def analysis_executor() -> Executor:
    """The experto's analysis of finished hands: one worker process at the lowest CPU
    priority, apart from the bots' pool. The analysis of a hand costs ~0.2 s of CPU
    and a thousand tables end ~15 hands a second: on the bots' pool (or the server's
    threads) it took the CPU the neighbours and the event loop need; niced, it
    takes only what they leave, and its backlog waits (docs/analysis.md)."""
    return ProcessPoolExecutor(max_workers=1, mp_context=_forkserver(), initializer=_nice_analysis_worker)


ANALYSIS_DUTY = 0.25  # the share of the time the analysis worker may work (Analyst.duty)


def _nice_analysis_worker() -> None:
    try:
        os.nice(19)
    except OSError as exc:  # not allowed here: the analysis competes with the tables at their priority
        log.warning("the analysis worker keeps the normal CPU priority (%s)", exc)
    _warm_bot_worker()


def _warm_bot_worker() -> None:
    from capicua.bots import warmup

    try:
        warmup()
    except Exception as exc:  # the worker still works: its first search compiles what it needs
        log.warning("a bot worker starts cold: its warm-up failed (%s: %s)", type(exc).__name__, exc)


def create_app(
    database_url: str | None = None,
    bot_delay: tuple[float, float] = (0.6, 1.5),
    data_dir: str | Path | None = None,
    executor: Executor | None = None,
    rate_limit: tuple[int, float] = (20, 1.0),
    web_dir: str | Path | None = None,
    table_rate: tuple[int, float] = TABLES_PER_ADDRESS,
    sockets_per_seat: int = 4,
    sockets_per_client: int = SOCKETS_PER_ADDRESS,
    hello_timeout: float = 10.0,
    body_timeout: float = 10.0,
    idle_s: float = 600.0,
    bot_deadline: float = 10.0,
    auto_next_s: float | None = None,
    guest_table_rate: tuple[int, float] = TABLES_PER_GUEST,
    guest_rate: tuple[int, float] = GUESTS_PER_ADDRESS,
    sockets_per_guest: int = SOCKETS_PER_GUEST,
    redis_url: str | None = None,
    node_id: str | None = None,
    drain: Drain | None = None,
    trusted_proxies: Sequence[str] = (),
    silent_sockets: int = SILENT_SOCKETS,
    addresses: ClientAddresses | None = None,
) -> Starlette:
    """The app. ``database_url``: any SQLAlchemy URL (default: ``$CAPICUA_DATABASE_URL``,
    else SQLite in ``<data_dir or ./data>/capicua.sqlite3``). ``executor``: where bots
    think (default: a process pool made at startup and shut down with the app).

    The bounds on one client (docs/protocol.md, "Limits"): ``rate_limit`` frames
    per seconds per socket (oversized frames count too), ``guest_table_rate``
    tables created per seconds per guest and ``table_rate`` per client address,
    ``guest_rate`` guests created per seconds per address, ``sockets_per_seat``
    sockets of one player at one table, ``sockets_per_guest`` of one guest and
    ``sockets_per_client`` of one address at once,
    ``hello_timeout`` seconds for a new socket to say hello, ``body_timeout``
    seconds for an HTTP body to arrive. ``idle_s``: a table nobody is connected
    to leaves memory after this long. ``bot_deadline``: seconds after which a
    bot that has not answered is replaced by its first legal move.

    Cluster mode (docs/deploy.md): ``redis_url`` is the Redis the processes share
    (its reachability is part of ``/readyz``); ``node_id`` names this process
    (default :func:`default_node_id`); ``drain`` is the process's drain (``capicua
    serve`` hands in the one its SIGTERM starts; ``/readyz`` answers 503 once it has).
    ``trusted_proxies``: addresses or networks of the load balancers whose
    ``X-Forwarded-For`` names the client the per-address limits count (from anyone
    else the header is ignored); with ``redis_url`` the HTTP budgets are counted in Redis.
    ``addresses``: those proxies' addresses as the HTTP server shares them (``capicua
    serve``: the clients its proxies name in PROXY headers; default: made of ``trusted_proxies``).
    ``silent_sockets``: sockets yet to say hello the process keeps; past it the oldest is closed."""
    url = database_url or os.environ.get("CAPICUA_DATABASE_URL") or default_database_url(data_dir or "data")
    web = Path(web_dir) if web_dir else WEB
    # The pages and static files, versioned and gzipped (capicua.server.http.static).
    deps = Deps(WebAssets(web), HttpLimits(guest_table_rate, table_rate, guest_rate), body_timeout)
    limits = SocketLimits(rate_limit, sockets_per_seat, sockets_per_client, hello_timeout, sockets_per_guest,
                          silent_sockets)
    next_ms = int(1000 * (2 * bot_delay[1] if auto_next_s is None else auto_next_s))
    deps.node_id = node_id or default_node_id()
    deps.addresses = addresses or ClientAddresses(trusted_proxies)
    deps.drain = drain or Drain()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(url)
        await asyncio.to_thread(store.migrate)
        redis = redis_client(redis_url) if redis_url else None
        if redis is not None:  # the HTTP budgets hold across the cluster's processes
            deps.budgets = RedisBudgets(deps.limits, redis, on_error=metrics.redis_error)
        own_executor = executor is None
        # A pool of its own is replaced when a worker dies (capicua.server.adapters.botpool.RenewingPool).
        pool = RenewingPool(default_executor, "bots") if executor is None else executor
        # The log, its matches' records and the standings: one store. A cluster's appends
        # are fenced by the tables' leases, rows of the same PostgreSQL (docs/architecture.md).
        event_log = StandingsLog(store, leased=redis_url is not None)
        guest_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="capicua-guests")
        # Tests hand in one pool for everything; a server of its own analyses apart.
        analysis_pool = RenewingPool(analysis_executor, "analysis") if own_executor else pool
        analyst = Analyst(store, analysis_pool, duty=ANALYSIS_DUTY if own_executor else 1.0)
        cluster = await ClusterPorts.start(redis_url, store, deps.node_id) if redis_url else None
        bus: Bus = cluster.bus if cluster else LocalBus()
        local_bots = PoolBots(pool, bot_delay, bot_deadline)
        # A cluster's searching bots think in `capicua worker` processes while one is alive (docs/bots.md).
        worker_bots = cluster_bots(redis_url, local_bots, deps.node_id) if redis_url else None
        analyst.workers = worker_bots  # ... and the experto's hand analyses are searched there too
        # Every port typed (capicua.server.ports): mypy proves each adapter fits.
        tables = Tables(
            event_log, bus, LoopClock(), worker_bots or local_bots,
            CoreConfig(auto_next_ms=next_ms), idle_ms=int(idle_s * 1000), standings=event_log, hand_ends=analyst,
            leases=cluster.leases if cluster else LocalLeases(deps.node_id),
        )
        router: TableRouter = await cluster.route_to(tables) if cluster else tables
        guests = Guests(StoreGuests(store, guest_threads))
        deps.store, deps.tables, deps.guests, deps.analyst = store, tables, guests, analyst
        deps.log, deps.records = event_log, event_log
        deps.replays = Replays(event_log, event_log)  # built off the loop, kept while the app runs
        shared_counts: list[SharedSocketCounts] = []

        def count_sockets(kind: str, cap: int) -> SocketCounts:
            if redis is None:
                return SocketCounts(cap)
            # In a cluster the socket caps hold across its processes too.
            shared_counts.append(SharedSocketCounts(cap, kind, deps.node_id, redis, metrics.redis_error))
            return shared_counts[-1]

        deps.sockets = Sockets(router, bus, guests, limits, deps.addresses, count_sockets)
        deps.sockets.draining = lambda: deps.drain.draining
        syncing = [asyncio.get_running_loop().create_task(c.run(), name=f"capicua-socket-caps-{c.kind}")
                   for c in shared_counts]
        following = None
        if cluster is not None:
            cluster.refill = deps.sockets.refill
            # An owner that dies says nothing: its lease running out moves the sockets here.
            following = asyncio.get_running_loop().create_task(
                deps.sockets.follow_leases(cluster.leases), name="capicua-follow-leases")
        metrics.watch(tables_owned=lambda: len(tables.shells),
                      sockets=lambda: sum(deps.sockets.per_client.counts.values()))
        deps.health = lambda: {"bots": pool_state(pool), "analysis": pool_state(analysis_pool)}
        deps.ready_checks = {"store": lambda: asyncio.to_thread(store_answers, store)}
        if redis is not None:
            deps.ready_checks["redis"] = lambda: redis_answers(redis)
        # The running parts, for whoever holds the app (the tests reach the store and the loop so).
        app.state.deps = deps
        app.state.loop = asyncio.get_running_loop()
        tables.start_sweeping(min(30.0, max(0.05, idle_s / 4)))
        matcher = Matcher(store)  # the parque's queue: every process runs one, the store keeps them apart
        matcher.start()
        log.info("ready: %s store, bots in %s", store.engine.dialect.name,
                 "process pools of their own" if own_executor else "the pool given")
        settle_the_heap()
        one_line_for_exhaustion(asyncio.get_running_loop())
        watchdog = asyncio.get_running_loop().create_task(watch_loop(), name="capicua-loop-watch")
        try:
            yield
        finally:
            watchdog.cancel()
            await matcher.close()
            if following is not None:  # before the leases' threads stop
                following.cancel()
            if deps.drain.draining:  # SIGTERM: the next owner of each table keeps its seats' presence
                await hand_over(tables)
            await tables.close()
            if cluster is not None:
                await cluster.close()
            if worker_bots is not None:
                await worker_bots.close()
            await analyst.close()
            event_log.close()
            guest_threads.shutdown(wait=True)
            if own_executor:
                pool.shutdown(wait=False, cancel_futures=True)
                analysis_pool.shutdown(wait=False, cancel_futures=True)
            store.close()
            for task in syncing:
                task.cancel()
            for counts in shared_counts:
                await counts.clear()
            if redis is not None:
                await redis.aclose()

    return Starlette(routes=routes(deps), lifespan=lifespan, middleware=[Middleware(GzipAnswers)],
                     exception_handlers=error_handlers(deps))


class ClusterPorts:
    """The ports one process of a cluster shares with the others: the tables' leases
    in PostgreSQL, frames over Redis pub/sub and intents over a Redis Stream per owner
    (:mod:`capicua.server.adapters.redis_bus`)."""

    def __init__(self, redis_url: str, leases: SqlLeases, bus: RedisBus) -> None:
        self.redis_url = redis_url
        self.leases = leases
        self.bus = bus
        self.router: RedisRouter | None = None
        self.refill: Callable[[str], None] | None = None  # the gateway's: its sockets say hello again

    def gap(self, table_id: str, last_seq: int | None) -> None:
        """Frames of a table may have been lost on the bus: its sockets here refill from the table."""
        log.info("table %s: frames after seq %s may be lost on the bus; its sockets here say hello again",
                 table_id, last_seq)
        if self.refill is not None:
            self.refill(table_id)

    @classmethod
    async def start(cls, redis_url: str, store: Store, node_id: str) -> ClusterPorts:
        from capicua.server.adapters.redis_bus import RedisBus

        # A gap in a table's frames (Redis restarted, a message lost): its sockets here refill.
        bus = RedisBus(redis_url, on_gap=lambda table_id, last_seq: ports.gap(table_id, last_seq))
        ports = cls(redis_url, SqlLeases(store, node_id), bus)
        await bus.start()
        return ports

    async def route_to(self, tables: Tables) -> RedisRouter:
        """The socket tier's router: a table's messages go to its lease holder."""
        from capicua.server.adapters.redis_bus import RedisRouter

        async def owner_of(table_id: str) -> str | None:
            route = await tables.route(table_id)
            return None if route is None else route.owner

        self.router = RedisRouter(self.redis_url, tables.owner, owner_of, tables.send, bus=self.bus)
        await self.router.start()
        return self.router

    async def close(self) -> None:
        if self.router is not None:
            await self.router.close()
        await self.bus.close()
        self.leases.close()


def store_answers(store: Store) -> bool:
    """Whether the store answers a query now (a thread's call: it blocks)."""
    with store.engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1")
    return True


def cluster_bots(redis_url: str, local: PoolBots, node_id: str) -> RedisBots:
    """The bot pool of a cluster's process: ``capicua worker`` processes while one is alive, else ``local``."""
    from capicua.server.adapters.redis_bots import RedisBots

    return RedisBots(redis_url, local, node_id)


def redis_client(url: str) -> Redis:
    """The process's client of the Redis the cluster shares (short timeouts: a Redis that
    does not answer is an outage to report, not a call to wait on)."""
    from redis.asyncio import Redis as AsyncRedis

    return AsyncRedis.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0, health_check_interval=10)


async def redis_answers(redis: Redis) -> bool:
    return bool(await redis.ping())


# ------------------------------------------------------------------ running


LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
DEFAULT_BOT_DELAY = (0.6, 1.5)
DEFAULT_RATE_LIMIT = (20, 1.0)


def parse_delay(text: str | None) -> tuple[float, float] | None:
    """``"0"`` or ``"0.6,1.5"``: seconds a bot waits before it plays, at least and at
    most (None for no text). :class:`ValueError` for anything else."""
    if text is None or text.strip() == "":
        return None
    parts = [float(p) for p in text.split(",")]
    if len(parts) > 2 or not all(math.isfinite(p) and p >= 0 for p in parts) or parts[0] > parts[-1]:
        raise ValueError(f"a delay is SECONDS or LOW,HIGH with 0 <= LOW <= HIGH, not {text!r}")
    return (parts[0], parts[-1])


def parse_rate(text: str | None) -> tuple[int, float] | None:
    """``"20,1"``: at most 20 frames in 1 second (None for no text). :class:`ValueError` otherwise."""
    if text is None or text.strip() == "":
        return None
    count, _, seconds = text.partition(",")
    limit, window = int(count), float(seconds or "1")
    if limit < 1 or not (math.isfinite(window) and window > 0):
        raise ValueError(f"a rate is FRAMES,SECONDS, both positive, not {text!r}")
    return (limit, window)


def _delay_argument(text: str) -> tuple[float, float] | None:
    try:
        return parse_delay(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database_url: str | None = None,
    bot_delay: tuple[float, float] | None = None,
    data_dir: str | Path | None = None,
    log_level: str = "info",
    rate_limit: tuple[int, float] | None = None,
    redis_url: str | None = None,
    node_id: str | None = None,
    trusted_proxies: Sequence[str] = (),
    max_connections: int = MAX_CONNECTIONS,
    log_format: str = "text",
) -> None:
    """Run the server with uvicorn until interrupted (SIGINT/SIGTERM).

    Environment: ``CAPICUA_BOT_DELAY`` ("0" or "0.6,1.5" seconds) and
    ``CAPICUA_RATE_LIMIT`` ("20,1": frames per seconds per socket) when
    the arguments are not given; ``CAPICUA_GUEST_TABLE_RATE`` ("20,600": tables per
    seconds per guest), ``CAPICUA_TABLE_RATE`` ("300,600": per address),
    ``CAPICUA_GUEST_RATE`` ("120,600": new guests per seconds per address),
    ``CAPICUA_SOCKETS_PER_GUEST`` (16), ``CAPICUA_SOCKETS_PER_CLIENT`` (256, per
    address). Every connection is bounded in time: see
    :func:`capicua.server.runtime.edge.uvicorn_config`.

    ``redis_url``, ``node_id`` and ``trusted_proxies``: cluster mode (:func:`create_app`,
    docs/deploy.md). ``max_connections``: connections at once, fewer when the open-file
    limit (raised first to its hard limit) leaves less (:mod:`capicua.server.runtime.connections`).
    ``log_format``: ``text`` or ``json`` (:mod:`capicua.server.runtime.logsetup`).
    SIGTERM drains the process first (:mod:`capicua.server.runtime.drain`)."""
    delay = bot_delay or parse_delay(os.environ.get("CAPICUA_BOT_DELAY")) or DEFAULT_BOT_DELAY
    rate = rate_limit or parse_rate(os.environ.get("CAPICUA_RATE_LIMIT")) or DEFAULT_RATE_LIMIT
    # Behind a proxy every client has the proxy's address: the per-address bounds
    # can be raised (the load benchmark raises them too).
    env = os.environ
    drain = Drain()
    node = node_id or default_node_id()
    bound = connection_bound(max_connections, raise_open_files())
    addresses = ClientAddresses(trusted_proxies)  # the HTTP server's PROXY headers fill it in
    app = create_app(
        database_url=database_url, bot_delay=delay, data_dir=data_dir, rate_limit=rate,
        table_rate=parse_rate(env.get("CAPICUA_TABLE_RATE")) or TABLES_PER_ADDRESS,
        guest_table_rate=parse_rate(env.get("CAPICUA_GUEST_TABLE_RATE")) or TABLES_PER_GUEST,
        guest_rate=parse_rate(env.get("CAPICUA_GUEST_RATE")) or GUESTS_PER_ADDRESS,
        sockets_per_client=int(env.get("CAPICUA_SOCKETS_PER_CLIENT") or SOCKETS_PER_ADDRESS),
        sockets_per_guest=int(env.get("CAPICUA_SOCKETS_PER_GUEST") or SOCKETS_PER_GUEST),
        redis_url=redis_url, node_id=node, drain=drain, addresses=addresses,
    )
    server = DrainingServer(uvicorn_config(
        app, host=host, port=port, log_level=log_level, max_connections=bound,
        log_config=log_config(log_level, log_format, node), addresses=addresses,
    ), drain)
    if bound < max_connections:
        log.warning("at most %d connections at once, not %d: the open-file limit allows no more", bound,
                    max_connections)
    server.run()
    if not server.started:
        raise SystemExit(3)  # uvicorn has logged why (the port is taken, the database is unreachable…)


def serve_parser(prog: str = "capicua serve") -> argparse.ArgumentParser:
    """The arguments of ``capicua serve`` and ``python -m capicua.server`` (defaults from the environment)."""
    env = os.environ
    p = argparse.ArgumentParser(prog=prog, description="Run the Capicúa server")
    p.add_argument("--host", default=env.get("CAPICUA_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(env.get("CAPICUA_PORT", "8000")))
    p.add_argument("--database", default=env.get("CAPICUA_DATABASE_URL"), help="SQLAlchemy URL")
    p.add_argument(
        "--data-dir", default=env.get("CAPICUA_DATA_DIR", "data"),
        help="where the SQLite database lives when --database is not given (default: ./data)",
    )
    p.add_argument(
        "--bot-delay", type=_delay_argument, default=env.get("CAPICUA_BOT_DELAY"),
        help='seconds a neighbour thinks before playing: "0" or "0.6,1.5" (default 0.6,1.5)',
    )
    p.add_argument("--log-level", choices=LOG_LEVELS, default=env.get("CAPICUA_LOG_LEVEL", "info"))
    p.add_argument("--redis", default=env.get("CAPICUA_REDIS_URL"),
                   help="redis://… the cluster's Redis (cluster mode: docs/deploy.md)")
    p.add_argument("--node-id", default=env.get("CAPICUA_NODE_ID"),
                   help="this process's name in the cluster (default: host:pid:random)")
    p.add_argument("--trusted-proxies", type=_address_list, default=env.get("CAPICUA_TRUSTED_PROXIES", ""),
                   help="addresses or networks (comma-separated) of the load balancers whose PROXY protocol "
                        "header or X-Forwarded-For names the client for the per-address limits (default: none)")
    p.add_argument("--max-connections", type=int, default=int(env.get("CAPICUA_MAX_CONNECTIONS") or MAX_CONNECTIONS),
                   help=f"connections held at once, more get 503 (default {MAX_CONNECTIONS}, "
                        "fewer if the open-file limit allows less)")
    p.add_argument("--log-format", choices=LOG_FORMATS, default=env.get("CAPICUA_LOG_FORMAT", "text"),
                   help="text lines, or one JSON object per line (default text)")
    return p


def _address_list(text: str) -> tuple[str, ...]:
    import ipaddress

    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    try:
        for part in parts:
            ipaddress.ip_network(part, strict=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return parts


def main(argv: list[str] | None = None, prog: str = "python -m capicua.server") -> int:
    a = serve_parser(prog).parse_args(argv)
    serve(
        host=a.host, port=a.port, database_url=a.database, bot_delay=a.bot_delay, data_dir=a.data_dir,
        log_level=a.log_level, redis_url=a.redis, node_id=a.node_id,
        trusted_proxies=a.trusted_proxies,
        max_connections=a.max_connections, log_format=a.log_format,
    )
    return 0


if __name__ == "__main__":
    main()
