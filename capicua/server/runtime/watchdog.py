"""The event loop's watchdog: it says when the loop was blocked (every table waits
while it is) and keeps the garbage collector's pauses short
(:mod:`capicua.server.runtime.heap`). The app runs :func:`watch_loop` as a task
for as long as it serves."""

from __future__ import annotations

import asyncio
import logging

from capicua.server.runtime.heap import FREEZE_EVERY_S, HeapKeeper

log = logging.getLogger("capicua.server")

LOOP_LAG_WARNING = 0.25  # seconds the event loop may be late before the log says so


async def watch_loop(every: float = 0.1) -> None:
    """Warn when the event loop was late by over :data:`LOOP_LAG_WARNING`, and step
    the heap's keeper every :data:`FREEZE_EVERY_S`."""
    loop = asyncio.get_running_loop()
    heap = HeapKeeper()
    last_freeze = loop.time()
    while True:
        start = loop.time()
        await asyncio.sleep(every)
        late = loop.time() - start - every
        if late > LOOP_LAG_WARNING:
            log.warning("the event loop was blocked for %.0f ms", late * 1000)
        if loop.time() - last_freeze >= FREEZE_EVERY_S:
            last_freeze = loop.time()
            heap.step()
