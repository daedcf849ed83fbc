"""Server processes that tests start, and stop whole.

A server process starts children of its own: the bots' forkserver and its pool
workers. Killing the server (SIGKILL, as a crash test does) leaves them running,
waiting on pipes nobody writes any more — seen an hour after ``make test``. Each
process started here leads a process group of its own, and :func:`stop_group`
ends everything in that group once the leader is gone, so a test stops what it
started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

GRACE_S = 30.0  # seconds a leader has to exit after its signal (a guard against hangs)


def spawn(cmd: list[str], log: Path, **kwargs: Any) -> subprocess.Popen[bytes]:
    """``cmd`` in a new session (its own process group), output appended to ``log``."""
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kwargs)


def members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        # Fields after the command name (which may hold spaces and parentheses).
        fields = stat[stat.rindex(")") + 2:].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            found.append(int(entry.name))
    return found


def stop_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the group's leader and wait for it, then kill whatever of its
    group is left (its bot pool) and wait until nothing is."""
    pgid = proc.pid
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=GRACE_S)
    deadline = time.monotonic() + GRACE_S
    while members(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of group {pgid} outlived SIGKILL: {members(pgid)}")
        time.sleep(0.05)
