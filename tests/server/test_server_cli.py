"""``capicua serve`` and ``python -m capicua.server``: their arguments, a real
server process started once with them, and bad input of every kind thrown at
that process without a single traceback in its log."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import WSClient, free_port
from procgroup import spawn, stop_group

from capicua import cli
from capicua.server import app as server_app

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 999 + "]" * 999


# ------------------------------------------------------------------ arguments


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments ``serve`` is called with (it does not run)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(server_app, "serve", lambda **kw: calls.append(kw))
    for name in ("CAPICUA_BOT_DELAY", "CAPICUA_LOG_LEVEL", "CAPICUA_DATA_DIR", "CAPICUA_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_capicua_serve_takes_bot_delay_log_level_and_data_dir(served: list[dict[str, Any]], tmp_path: Path) -> None:
    args = ["--bot-delay", "0.6,1.5", "--log-level", "debug", "--data-dir", str(tmp_path), "--host", "0.0.0.0",
            "--port", "8123", "--database", "sqlite:///x.sqlite3"]
    assert cli.main(["serve", *args]) == 0
    assert server_app.main(args) == 0  # python -m capicua.server: the same arguments
    want = {"host": "0.0.0.0", "port": 8123, "database_url": "sqlite:///x.sqlite3", "bot_delay": (0.6, 1.5),
            "data_dir": str(tmp_path), "log_level": "debug", "redis_url": None, "node_id": None,
            "trusted_proxies": (), "max_connections": 10_000, "log_format": "text"}
    assert served == [want, want]
    assert cli.main(["serve", "--bot-delay", "0"]) == 0
    assert served[-1]["bot_delay"] == (0.0, 0.0) and served[-1]["log_level"] == "info"
    assert served[-1]["data_dir"] == "data" and served[-1]["database_url"] is None


@pytest.mark.parametrize("bad", [["--bot-delay", "soon"], ["--bot-delay", "2,1"], ["--bot-delay", "-1"],
                                 ["--bot-delay", "1,2,3"], ["--bot-delay", "nan"], ["--log-level", "loud"],
                                 ["--port", "http"]])
def test_bad_serve_arguments_are_a_usage_error(
    served: list[dict[str, Any]], bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", *bad])
    assert exc.value.code == 2 and served == []
    err = capsys.readouterr().err
    assert "capicua serve" in err and "Traceback" not in err


def test_delays_and_rates_parse() -> None:
    assert server_app.parse_delay("0") == (0.0, 0.0)
    assert server_app.parse_delay(" 0.6, 1.5") == (0.6, 1.5)
    assert server_app.parse_delay("") is None and server_app.parse_delay(None) is None
    assert server_app.parse_rate("20,1") == (20, 1.0) and server_app.parse_rate("5") == (5, 1.0)
    for bad in ("0,x", "0,-1", "0,0", "x,1"):
        with pytest.raises(ValueError):
            server_app.parse_rate(bad)


# --------------------------------------------------------- one real process


@pytest.fixture(scope="module")
def process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``capicua serve`` with --data-dir, --bot-delay and --log-level, in its own process."""
    tmp = tmp_path_factory.mktemp("serve")
    data = tmp / "data-here"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    env["PYTHONPATH"] = str(ROOT)
    env["CAPICUA_RATE_LIMIT"] = "1000000,1"
    log = tmp / "server.log"
    cmd = [sys.executable, "-m", "capicua", "serve", "--port", str(port), "--data-dir", str(data),
           "--bot-delay", "0", "--log-level", "debug"]
    proc = spawn(cmd, log, cwd=tmp, env=env)
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
    yield {"port": port, "base": base, "data": data, "log": log, "proc": proc}
    stop_group(proc)


def test_serve_runs_with_its_arguments(process: dict[str, Any]) -> None:
    assert (process["data"] / "capicua.sqlite3").exists()  # --data-dir
    t = httpx.post(process["base"] + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
    c = WSClient(f"ws://127.0.0.1:{process['port']}/ws")
    c.hello(t["table_id"], t["token"])
    # --bot-delay 0: the neighbours play at once, so the first hand reaches seat 0 or its end.
    c.until(lambda f: f["type"] in ("events", "sync") and (c.my_turn() or f["view"]["phase"] != "play"))
    c.close()
    assert "DEBUG" in process["log"].read_text() or "debug" in process["log"].read_text().lower()  # --log-level


def _raw(port: int, data: bytes, then_close: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        if not then_close:
            return b""
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return out


def _ws_handshake(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(4096)
    assert got.startswith(b"HTTP/1.1 101"), got
    return s


def _ws_frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_bad_input_never_writes_a_traceback(process: dict[str, Any]) -> None:
    port, base, log = process["port"], process["base"], process["log"]
    t = httpx.post(base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
    post = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    answers: dict[str, int] = {}
    # HTTP bodies: deep, not UTF-8, NaN, a huge number, too large, cut short, chunked and large.
    for name, body in (("deep", DEEP.encode()), ("utf8", b"\xff\xfe{"), ("nan", b'{"nickname": NaN}'),
                       ("bigint", b'{"nickname": "A", "options": {"target": ' + b"9" * 3000 + b"}}"),
                       ("options-deep", b'{"nickname": "A", "options": ' + DEEP.encode() + b"}"),
                       ("float", b'{"nickname": "A", "options": {"target": 1e400}}')):
        answers[name] = httpx.post(base + "/api/tables", content=body, timeout=10).status_code
    answers["declared-10MB"] = int(_raw(port, post + b"Content-Length: 10000000\r\n\r\n{")[9:12] or 0)
    _raw(port, post + b"Content-Length: 100\r\n\r\n{\"nick", then_close=False)  # the client leaves mid-body
    answers["chunked"] = httpx.post(base + "/api/tables", content=iter([b"[" * 3000, b"]" * 3000]), timeout=10).status_code
    # Paths, methods, queries, HTTP that is not HTTP, a connection that leaves mid-headers.
    for path in ("/api/tables/" + "x" * 5000, "/api/tables/%00", "/api/tables/..%2F..%2Fetc", "/static/../../etc/passwd",
                 "/api/verify?seed=abc&options=" + "%5B" * 999, "/api/verify?seed=%ff%fe&hand=-1", "/t/%ff"):
        answers[path[:24]] = httpx.get(base + path, timeout=10).status_code
    answers["put"] = httpx.put(base + "/api/tables", content=b"{}", timeout=10).status_code
    _raw(port, b"GARBAGE \x00\x01\r\n\r\n")
    _raw(port, b"GET /healthz HTTP/1.1\r\nHo", then_close=False)
    # Websocket frames: deep, binary, not UTF-8, over 64 KiB; bad hellos; sockets that just vanish.
    c = WSClient(f"ws://127.0.0.1:{port}/ws")
    for frame in (DEEP, json.dumps({"type": "hello", "table": ["x"], "token": {}}), '{"type": ' + "[" * 20 + "]" * 20 + "}",
                  json.dumps({"type": "hello", "table": "t_" + "é" * 30, "token": "x"}),
                  json.dumps({"type": "play", "seq": 2**80, "tile": [1e308, -1]}), "x" * 5000):
        c.send(frame)
        assert c.error()["code"] in ("malformed", "too_large", "unknown_table"), frame[:40]
    c.ws.send(b"\x00binary")
    assert c.error()["code"] == "malformed"
    c.hello(t["table_id"], t["token"])
    c.ws.socket.close()  # no close frame: the TCP connection just ends
    for payload, opcode in ((b"\xff\xfe", 1), (b"x" * 70_000, 1), (b"", 8)):
        s = _ws_handshake(port)
        s.sendall(_ws_frame(opcode, payload))
        time.sleep(0.05)
        s.close()
    s = _ws_handshake(port)
    s.close()  # leaves right after the handshake
    _raw(port, b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 99\r\n\r\n")
    _raw(port, b"GET /nowhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    # The server is still well, and its log holds no traceback.
    assert httpx.get(base + "/healthz", timeout=10).json() == {"ok": True, "bots": "ok", "analysis": "ok", "store": "ok"}
    time.sleep(0.3)  # let the server log the last closes
    text = log.read_text(errors="replace")
    print(json.dumps(answers))
    notable = [ln for ln in text.splitlines() if "WARNING" in ln or "ERROR" in ln]
    print("\n".join(notable))
    assert "Traceback" not in text, text[-4000:]
    assert not [ln for ln in notable if "ERROR" in ln], notable
    assert all(code < 500 for code in answers.values()), answers  # /t/<anything> is the table page
