"""Keeping the garbage collector's pauses short under load.

CPython's collector walks every young object it tracks, with every table
waiting. With a thousand tables in play the young generations held tens of
thousands of live objects (the tables' state, sockets, timers), so each young
collection paused the loop for 10-50 ms and a full one for 100-200 ms: the
play→event p99 of ``capicua bench-server`` at 1,000 tables was 65 ms.

So the server freezes its heap every second (``gc.freeze``: what is alive now
leaves the collector's reach; objects still die by reference counting as
usual), and the young collections only walk what the last second made. A
cycle of objects frozen while alive that later becomes garbage is not
collected until :meth:`HeapKeeper.step` next sweeps (every few minutes: the
heap is unfrozen and collected in full once, then frozen again), which bounds
what such cycles can hold.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger("capicua.server")

FREEZE_EVERY_S = 1.0
SWEEP_EVERY_S = 300.0
GC_YOUNG = 20_000  # allocations between young collections (CPython's default: 700)


def settle_the_heap() -> None:
    """Move everything loaded at startup (the bots' JIT kernel, numpy, SQLAlchemy:
    over 100,000 objects) out of the garbage collector's reach. A full collection
    walks every object it tracks, with every table waiting: without this, each one
    took 100-500 ms with a few hundred tables in play (measured by bench-server).
    The young generations are collected less often, in bigger steps, for the same reason."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 100)


class HeapKeeper:
    """Call :meth:`step` every :data:`FREEZE_EVERY_S` seconds (the app does, on its loop)."""

    def __init__(self, sweep_every_s: float = SWEEP_EVERY_S) -> None:
        self.sweep_every_s = sweep_every_s
        self.last_sweep = time.monotonic()
        self.sweeps = 0

    def step(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if now - self.last_sweep >= self.sweep_every_s:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            self.last_sweep = now
            self.sweeps += 1
            log.info("heap swept: %d unreachable objects in %.0f ms", found, 1000 * (time.perf_counter() - started))
        gc.freeze()
