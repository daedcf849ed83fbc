"""``capicua serve`` logs (issue 21, item 13): the ``capicua.*`` records and
uvicorn's with time, level, logger and, where there is one, the table; and a
request whose headers are 70 kB is refused (431), the connection closed,
without a traceback."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import free_port
from procgroup import spawn, stop_group

from capicua.server.runtime.logsetup import LOG_FORMAT, TableContext, current_table

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parents[2]
STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``capicua serve`` at its default log level, in its own process."""
    tmp = tmp_path_factory.mktemp("logs")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    env["PYTHONPATH"] = str(ROOT)
    log = tmp / "server.log"
    proc = spawn([sys.executable, "-m", "capicua", "serve", "--port", str(port), "--data-dir", str(tmp / "data"),
                  "--bot-delay", "0"], log, cwd=tmp, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # a guard against hangs
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_group(proc, signal.SIGKILL)
            raise RuntimeError("the server did not start:\n" + log.read_text())
        time.sleep(0.05)
    yield {"port": port, "base": base, "log": log}
    stop_group(proc)


def logged(served: dict[str, Any], pattern: str) -> str:
    """The first line of the server's log that matches ``pattern`` (waiting a little for it)."""
    deadline = time.monotonic() + 10  # the log is written by another process
    while True:
        text = served["log"].read_text(errors="replace")
        found = re.search(pattern, text, re.M)
        if found:
            return found.group(0)
        assert time.monotonic() < deadline, f"no line like {pattern!r} in:\n{text}"
        time.sleep(0.05)


def test_serve_logs_with_time_level_and_logger(served: dict[str, Any]) -> None:
    logged(served, rf"^{STAMP} INFO capicua\.server: ready: sqlite store, bots in process pools of their own$")
    logged(served, rf"^{STAMP} INFO uvicorn\.error: Application startup complete\.$")
    httpx.get(served["base"] + "/healthz", timeout=10)
    logged(served, rf'^{STAMP} INFO uvicorn\.access: 127\.0\.0\.1:\d+ - "GET /healthz HTTP/1\.1" 200 OK$')
    text = served["log"].read_text(errors="replace")
    bare = [line for line in text.splitlines() if line and not re.match(STAMP, line)]
    assert not bare, f"lines without a time: {bare}"


def test_a_70_kB_header_is_refused_and_the_connection_closed(served: dict[str, Any]) -> None:
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):  # the server closes the connection
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert b"connection: close" in answer.lower()
    # An ordinary request is served as before, and nothing wrote a traceback.
    assert httpx.get(served["base"] + "/healthz", timeout=10).status_code == 200
    assert "Traceback" not in served["log"].read_text(errors="replace")


def test_a_record_names_the_table_it_is_about() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(TableContext())
    logger = logging.getLogger("capicua.logsetup-test")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False

    async def main() -> None:
        async def table_task() -> None:
            logger.info("resumed")

        async def socket_task() -> None:
            current_table.set("t_sock")
            logger.info("a socket of it")

        await asyncio.get_running_loop().create_task(table_task(), name="table-t_abc")
        await asyncio.get_running_loop().create_task(socket_task())
        logger.info("no table here")

    try:
        asyncio.run(main())
    finally:
        logger.removeHandler(handler)
    lines = out.getvalue().splitlines()
    assert [re.sub(rf"^{STAMP} ", "", line) for line in lines] == [
        "INFO capicua.logsetup-test [t_abc]: resumed",
        "INFO capicua.logsetup-test [t_sock]: a socket of it",
        "INFO capicua.logsetup-test: no table here",
    ]
