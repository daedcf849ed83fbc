"""Graceful drain: what ``capicua serve`` does between SIGTERM and its exit.

1. At once, the process stops being ready: ``GET /readyz`` answers 503
   (:class:`Drain`), so the load balancer, which checks it every second, stops
   sending it new connections. It still serves everything it holds.
2. After ``grace_s`` seconds (long enough for the balancer to have seen the
   503 at least twice: ``deploy/haproxy.cfg`` checks every second and needs two
   failures), uvicorn's shutdown runs: the listening socket closes, every
   websocket is closed with code **1012** (:data:`RECONNECT_CODE`, "service
   restart": the page reconnects, through the balancer, to another process,
   showing "reconectando"), and HTTP requests in flight finish (at most
   ``SHUTDOWN_S`` seconds). Each socket tells its table it is *moving* (a
   :class:`~capicua.table.protocol.Leave` with ``moving``), not gone: its seat
   stays present while the page comes back, and is logged gone only if no socket
   of its player is back within ``CoreConfig.moving_ms`` (15 s: the page's
   reconnects back off 0.5, 1, 2, 4, 8 s, so four failed tries fit).
3. Then the app's lifespan ends: the tables are handed over (:func:`hand_over`:
   each stops and its log ends with a ``handover`` entry), their leases are
   released, so another process takes each at the next hello of its sockets, and
   the process exits. The process that loads a handed-over table keeps its seats'
   presence (no ``reopen``), as after a failover: nobody is marked offline, no
   grace timer starts and no stand-in comes because of the drain; a seat nobody
   comes back to is logged gone ``moving_ms`` after the load (the ``away`` timer),
   and its grace counts from then.

A second SIGTERM, or SIGINT (Ctrl-C), skips the wait: the shutdown starts at once.
"""

from __future__ import annotations

import logging
import signal
import time
from types import FrameType
from typing import TYPE_CHECKING, Any

import uvicorn

from capicua.server.ports import LogUnavailable, StaleAppend
from capicua.table.log import Handover, write_log

if TYPE_CHECKING:
    from capicua.server.registry import Tables

log = logging.getLogger("capicua.server")

DRAIN_GRACE_S = 2.5  # seconds between "not ready" and closing: two of the balancer's checks, and a half
SHUTDOWN_S = 10  # seconds requests in flight have to finish once the shutdown starts (uvicorn's timeout)
RECONNECT_CODE = 1012  # websocket close code "service restart": come back (uvicorn closes sockets with it)


class Drain:
    """Whether this process is draining (it stops being ready once it is)."""

    def __init__(self, grace_s: float = DRAIN_GRACE_S, clock: Any = time.monotonic) -> None:
        self.grace_s = grace_s
        self.clock = clock
        self.since: float | None = None

    @property
    def draining(self) -> bool:
        return self.since is not None

    def begin(self) -> None:
        if self.since is None:
            self.since = self.clock()
            log.info("draining: not ready from now on; closing in %.1f s", self.grace_s)

    def due(self) -> bool:
        """Whether the grace is over: time to close the sockets and stop."""
        return self.since is not None and self.clock() - self.since >= self.grace_s


class DrainingServer(uvicorn.Server):
    """uvicorn's server whose first SIGTERM drains (:class:`Drain`) before it shuts down."""

    def __init__(self, config: uvicorn.Config, drain: Drain) -> None:
        super().__init__(config)
        self.drain = drain

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM and self.started and not self.drain.draining and not self.should_exit:
            self._captured_signals.append(sig)  # uvicorn raises it again once stopped (the exit status)
            self.drain.begin()
            return
        super().handle_exit(sig, frame)

    async def on_tick(self, counter: int) -> bool:
        if self.drain.due():
            self.should_exit = True
        return await super().on_tick(counter)


async def hand_over(tables: Tables) -> int:
    """Stop every table of this draining process and end its log with a ``handover``
    entry, before the leases are given up (:meth:`Tables.close`): no other process
    can load a table until then, so the next one always reads the entry. A table
    whose entry cannot be written (the store is down, another process took the
    table) is only stopped: the next load reopens it as after a restart. Returns how
    many were handed over."""
    handed = 0
    for shell in list(tables.shells.values()):
        await shell.stop()  # nothing more is appended by it: the entry is the last
        entry = Handover(at=tables.clock.now_ms())
        try:
            await tables.log.append(shell.id, shell.stored, write_log([entry]), None, shell.lease.epoch)
        except (LogUnavailable, StaleAppend) as exc:
            log.warning("table %s could not be handed over (%s): the next load reopens it",
                        shell.id, type(exc).__name__)
            continue
        handed += 1
    if handed:
        log.info("draining: handed over %d tables", handed)
    return handed
