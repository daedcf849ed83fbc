"""Graceful drain (capicua.server.runtime.drain): SIGTERM makes ``capicua serve`` not
ready at once while it still serves, then closes its websockets with code 1012
("service restart": the page reconnects), stops its tables and exits; the table
goes on from its log when its player comes back."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest
from conftest import WSClient, drive
from serveprocess import ServeProcess
from websockets.exceptions import ConnectionClosed

from capicua.server.runtime.drain import RECONNECT_CODE

pytestmark = pytest.mark.xdist_group("server")

GUARD_S = 30.0  # a guard against hangs, not a timed assertion


def test_sigterm_drains_then_closes_sockets_with_reconnect(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = ServeProcess(tmp_path, ["--data-dir", str(data)])
    try:
        assert httpx.get(server.base + "/readyz", timeout=5).json()["ready"] is True
        t = httpx.post(server.base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
        c = WSClient(f"ws://127.0.0.1:{server.port}/ws")
        c.hello(t["table_id"], t["token"])
        c.settle()
        server.proc.send_signal(signal.SIGTERM)
        r = httpx.get(server.base + "/readyz", timeout=5)
        assert r.status_code == 503 and r.json()["draining"] is True  # at once
        c.settle()  # still served while the balancer takes it out
        with pytest.raises(ConnectionClosed) as closed:
            c.until(lambda f: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == RECONNECT_CODE
        server.proc.wait(timeout=GUARD_S)
        assert server.proc.returncode in (0, -signal.SIGTERM)  # uvicorn ends by its signal, as asked
        said = server.log.read_text()
        assert "draining" in said and "Traceback" not in said
    finally:
        server.stop()
    # The next process goes on with the table from its log.
    again = ServeProcess(tmp_path, ["--data-dir", str(data)], name="again")
    try:
        c = WSClient(f"ws://127.0.0.1:{again.port}/ws")
        assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
        drive(c, lambda f: f["type"] == "events" and any(
            e["event"]["kind"] == "play" and e["event"]["seat"] == c.view["seat"] for e in f["events"]))
        c.close()
    finally:
        again.stop()
