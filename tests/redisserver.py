"""A throw-away Redis server for the tests: Debian's ``redis-server`` on a free
loopback port, no persistence (no RDB snapshots, no append-only file), its working
directory a temporary one, stopped by its PID and deleted. Never a mock.

``RedisServer.restart()`` stops it and starts an empty one on the same port: what
a Redis that restarts without persistence looks like to its clients.

Standalone, to serve one by hand::

    .venv/bin/python tests/redisserver.py   # prints its URL, stops on Enter
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

START_S = 10.0  # a guard against a server that never answers, not a timed assertion


class RedisMissing(RuntimeError):
    """No ``redis-server`` on this machine (``bash scripts/ensure-system-deps.sh`` installs it)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process; :attr:`url` is what clients connect to."""

    def __init__(self, port: int | None = None) -> None:
        binary = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
        if binary is None:
            raise RedisMissing("redis-server not found: run `bash scripts/ensure-system-deps.sh`")
        self.binary = binary
        self.port = port or _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="capicua-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(self.dir), "--daemonize", "no", "--loglevel", "warning"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + START_S
        while not _answers(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Kill it by its PID (no persistence: nothing to flush) and wait for it."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=START_S)
        self.proc = None

    def restart(self) -> None:
        """An empty Redis on the same port, as after a restart without persistence."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    server = RedisServer()
    print(server.url, flush=True)
    try:
        input()
    finally:
        server.close()
