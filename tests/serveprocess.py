"""``capicua serve`` in a process of its own (its own process group, stopped whole:
:mod:`procgroup`), started with the given arguments and waited for until ``/healthz``
answers. Used by the cluster and drain tests."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from conftest import free_port
from procgroup import spawn, stop_group

ROOT = Path(__file__).resolve().parents[1]
START_S = 60.0  # a guard against a server that never starts, not a timed assertion


class ServeProcess:
    """One ``capicua serve --port <free> <args>``; :attr:`base` is its URL, :attr:`log` its output."""

    def __init__(self, tmp: Path, args: list[str], env: dict[str, str] | None = None, name: str = "serve",
                 preexec_fn: Any = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"{name}.log"
        clean = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
        clean.update({"PYTHONPATH": str(ROOT), "CAPICUA_RATE_LIMIT": "1000000,1", **(env or {})})
        cmd = [sys.executable, "-m", "capicua", "serve", "--port", str(self.port), "--bot-delay", "0", *args]
        self.proc = spawn(cmd, self.log, cwd=tmp, env=clean, preexec_fn=preexec_fn)
        deadline = time.monotonic() + START_S
        while True:
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop_group(self.proc, signal.SIGKILL)
                raise RuntimeError(f"capicua serve did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        stop_group(self.proc, sig)
