"""A throw-away HAProxy for the tests: Debian's ``haproxy`` run in the foreground with
``deploy/haproxy.cfg`` as the repository has it, its ``bind`` on a free loopback port
and its ``server`` lines naming the given ports. Stopped by its PID. Never a mock.

``scripts/cluster.sh`` renders the file the same way (``python tests/haproxyserver.py
--render``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "haproxy.cfg"
START_S = 10.0  # a guard against a balancer that never listens, not a timed assertion


class HaproxyMissing(RuntimeError):
    """No ``haproxy`` on this machine (``bash scripts/ensure-system-deps.sh`` installs it)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def render(port: int, servers: list[int], text: str | None = None, server_options: str = "") -> str:
    """``deploy/haproxy.cfg`` listening on ``port`` in front of ``servers`` (ports on 127.0.0.1),
    each ``server`` line ending with ``server_options`` (say ``send-proxy-v2``)."""
    text = CONFIG.read_text() if text is None else text
    text, binds = re.subn(r"(?m)^(\s*)bind \S+$", rf"\g<1>bind 127.0.0.1:{port}", text)
    assert binds == 1, "deploy/haproxy.cfg has one bind line"
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if re.match(r"\s*server \S+ \S+", line)]
    assert at, "deploy/haproxy.cfg lists its servers"
    indent = re.match(r"\s*", lines[at[0]]).group(0)  # type: ignore[union-attr]
    ours = [f"{indent}server s{i} 127.0.0.1:{p} check {server_options}".rstrip()
            for i, p in enumerate(servers, start=1)]
    return "\n".join(lines[: at[0]] + ours + [x for i, x in enumerate(lines) if i > at[0] and i not in at]) + "\n"


def _listens(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class HaproxyServer:
    """One ``haproxy`` in front of ``servers``; :attr:`base` is its URL."""

    def __init__(self, servers: list[int], port: int | None = None, server_options: str = "") -> None:
        binary = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
        if binary is None:
            raise HaproxyMissing("haproxy not found: run `bash scripts/ensure-system-deps.sh`")
        self.port = port or _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="capicua-haproxy-"))
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text(render(self.port, servers, server_options=server_options))
        self.log = self.dir / "haproxy.log"
        with open(self.log, "ab") as out:
            check = subprocess.run([binary, "-c", "-f", str(self.config)], stdout=out, stderr=subprocess.STDOUT)
            if check.returncode != 0:
                raise RuntimeError(f"haproxy refuses its config: {self.log.read_text()}")
            self.proc = subprocess.Popen([binary, "-db", "-f", str(self.config)], stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_S
        while not _listens(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                said = self.log.read_text()
                self.close()
                raise RuntimeError(f"haproxy did not start: {said}")
            time.sleep(0.02)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=START_S)
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="render deploy/haproxy.cfg for servers on this machine")
    ap.add_argument("--render", action="store_true", help="print the config (the only mode)")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("servers", type=int, nargs="+")
    a = ap.parse_args()
    sys.stdout.write(render(a.port, a.servers))
