"""How many connections one process holds, and what happens past that.

- At start the process raises its open-file limit (``RLIMIT_NOFILE``) as far as
  it may: the soft limit to the hard one (:func:`raise_open_files`). Each
  connection is one descriptor.
- The connection bound is a setting (``--max-connections``, default
  ``MAX_CONNECTIONS``), lowered to what the descriptors allow with a reserve
  kept for the store, Redis, the bot pools and the logs
  (:func:`connection_bound`): the process refuses a connection before it runs
  out of descriptors, never after.
- A connection past the bound is answered ``503`` with ``Retry-After`` and closed
  (:data:`REFUSAL`, written by the edge's protocol before any of its request is
  read), and an episode of refusals is one log line when it starts and one when
  it ends (:class:`Refusals`), never a traceback.
- If the descriptors run out all the same (another process of the same user, a
  bound set too high by hand), the event loop's ``accept()`` fails: that is one
  log line per episode too (:func:`one_line_for_exhaustion`), not asyncio's traceback
  per attempt.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time
from typing import Any

from capicua.server import metrics

log = logging.getLogger("capicua.server")

MAX_CONNECTIONS = 10_000  # connections at once (HTTP and websockets), when the descriptors allow it
RESERVE_MIN, RESERVE_MAX = 64, 512  # descriptors kept for everything else (a tenth of the limit, within these)
RETRY_AFTER_S = 2
_REFUSAL_BODY = b'{"error": {"code": "unavailable", "message": "too many connections; retry"}}\n'
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: %d\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n" % (RETRY_AFTER_S, len(_REFUSAL_BODY))
) + _REFUSAL_BODY


def raise_open_files() -> int:
    """Raise the soft open-file limit to the hard one (as far as a process may without
    privileges); the soft limit in force after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError) as exc:  # the kernel's own ceiling (nr_open): keep what we have
            log.warning("the open-file limit stays at %d (%s)", soft, exc)
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def connection_bound(wanted: int, open_files: int) -> int:
    """The connections the process takes at once: ``wanted``, or fewer when the
    ``open_files`` limit leaves less after the reserve."""
    reserve = min(RESERVE_MAX, max(RESERVE_MIN, open_files // 10))
    return max(1, min(wanted, open_files - reserve))


class Refusals:
    """Connections refused past the bound: one log line when an episode starts, one when it ends."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.refused = 0  # in the episode under way (0: none)
        self.total = 0

    def refuse(self) -> None:
        if self.refused == 0:
            log.warning("at the bound of %d connections: refusing new ones with 503 until some close", self.bound)
        self.refused += 1
        self.total += 1
        metrics.connection_refused()

    def accepted(self) -> None:
        if self.refused:
            log.info("accepting connections again (%d refused with 503)", self.refused)
            self.refused = 0


_EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def one_line_for_exhaustion(loop: asyncio.AbstractEventLoop, quiet_s: float = 10.0) -> None:
    """Make the loop's report of an ``accept()`` out of descriptors one warning line per
    ``quiet_s`` seconds (asyncio writes a traceback each time it tries again); every other
    report goes to the handler there was."""
    previous = loop.get_exception_handler()
    last = [-quiet_s]

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _EXHAUSTED:
            now = time.monotonic()
            if now - last[0] >= quiet_s:
                last[0] = now
                log.warning("out of descriptors: new connections wait in the backlog (%s)", exc.strerror)
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
