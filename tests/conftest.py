"""Shared fixtures for the server tests: a bot process pool, a live uvicorn
server in a thread, and a small synchronous websocket client."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

# The tests mirror the packages (tests/engine, tests/table, …) and some reuse
# another folder's helpers: every folder is importable whichever tests run.
sys.path[:0] = [str(d) for d in sorted(Path(__file__).resolve().parent.iterdir()) if d.is_dir() and d.name != "__pycache__"]

RECV_TIMEOUT = 20.0  # a guard against hangs, not a timed assertion
BROWSER_LOCALE = "es-ES"


def _speak_spanish_by_default() -> None:
    """The page starts in the browser's language when the player has not chosen one
    (an English browser in English), and headless Chromium says en-US: the tests'
    browser contexts say es-ES unless a test asks for another ``locale``."""
    try:
        from playwright.async_api import Browser as AsyncBrowser
        from playwright.sync_api import Browser
    except ImportError:  # no browser tests here
        return
    for name in ("new_context", "new_page"):
        plain = getattr(Browser, name)
        if getattr(plain, "_spanish", False):
            continue

        def sync_call(self: Any, *args: Any, _plain: Any = plain, **kwargs: Any) -> Any:
            kwargs.setdefault("locale", BROWSER_LOCALE)
            return _plain(self, *args, **kwargs)

        asynchronous = getattr(AsyncBrowser, name)

        async def async_call(self: Any, *args: Any, _plain: Any = asynchronous, **kwargs: Any) -> Any:
            kwargs.setdefault("locale", BROWSER_LOCALE)
            return await _plain(self, *args, **kwargs)

        sync_call._spanish = async_call._spanish = True  # type: ignore[attr-defined]
        setattr(Browser, name, sync_call)
        setattr(AsyncBrowser, name, async_call)


_speak_spanish_by_default()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def bot_pool() -> Iterator[ProcessPoolExecutor]:
    from capicua.server.app import default_executor

    pool = default_executor()
    yield pool  # type: ignore[misc]
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One throw-away PostgreSQL server for this test session (for this xdist worker),
    started on first use: :mod:`tests.pgserver`."""
    from pgserver import PgServer

    server = PgServer().start()
    yield server
    server.stop()


DATABASES = ["sqlite", "postgresql"]


@pytest.fixture
def redis_server() -> Iterator[Any]:
    """A throw-away ``redis-server`` of this test, on a free port (:mod:`tests.redisserver`)."""
    from redisserver import RedisServer

    server = RedisServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(params=DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database for one test, on each database the store supports:
    SQLite in a temp directory, and a new database on the session's real PostgreSQL
    server (dropped after the test). Store-level tests take this fixture, so that they
    run on both."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    server = request.getfixturevalue("pg_server")
    url = server.create_database()
    yield url
    server.drop_database(url)


class LiveServer:
    """``create_app`` served by uvicorn in a background thread."""

    def __init__(self, app: Any, port: int, database_url: str) -> None:
        import uvicorn

        self.app = app
        self.port = port
        self.database_url = database_url
        self.base = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}/ws"
        cfg = uvicorn.Config(app, host="127.0.0.1", port=port, ws_max_size=65536, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)

    # Run a coroutine on the server's loop (to reach tables directly).
    def run(self, coro: Any) -> Any:
        loop = self.app.state.loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=RECV_TIMEOUT)

    @property
    def tables(self) -> Any:
        return self.app.state.deps.tables

    def post(self, path: str, body: Any) -> Any:
        import httpx

        return httpx.post(self.base + path, json=body, timeout=RECV_TIMEOUT)

    def get(self, path: str) -> Any:
        import httpx

        return httpx.get(self.base + path, timeout=RECV_TIMEOUT)

    def client(self) -> WSClient:
        return WSClient(self.ws_url)

    def new_table(self, nickname: str = "Ana", **body: Any) -> dict[str, Any]:
        r = self.post("/api/tables", {"nickname": nickname, **body})
        assert r.status_code == 200, r.text
        return dict(r.json())

    def table_with_seed(
        self, seed: str, bot_delay: tuple[float, float] | None = None, preset: str = "cubano", options: Any = None
    ) -> tuple[str, str]:
        """A table with a chosen match seed (seat 0 a guest, the rest botagorda
        neighbours): returns (table_id, token)."""
        from capicua.engine import make_rules

        guest, token = self.run(self.app.state.deps.guests.sign_in("Ana", None))
        players = make_rules(preset, **(options or {})).players
        seats: list[dict[str, Any]] = [
            {"seat": 0, "kind": "human", "name": "Ana", "player": guest.player, "level": "medio", "character": "mima"}
        ]
        for i, ch in zip(range(1, players), ("cuca", "pancho", "yoli", "fefa"), strict=False):
            seats.append({"seat": i, "kind": "bot", "name": ch.title(), "level": "botagorda", "character": ch})
        shell = self.run(self.tables.open(preset, options or {}, seats, seed=seed))
        return shell.id, token


@pytest.fixture
def live_server(tmp_path: Path, bot_pool: ProcessPoolExecutor) -> Iterator[Callable[..., LiveServer]]:
    from capicua.server.app import create_app

    started: list[LiveServer] = []

    def make(**kwargs: Any) -> LiveServer:
        url = kwargs.pop("database_url", None) or f"sqlite:///{tmp_path / f'db{len(started)}.sqlite3'}"
        kwargs.setdefault("bot_delay", (0.0, 0.0))
        # Test clients answer at machine speed; only the too_fast test sets a real limit.
        kwargs.setdefault("rate_limit", (1_000_000, 1.0))
        app = create_app(database_url=url, executor=bot_pool, **kwargs)
        srv = LiveServer(app, free_port(), url).start()
        started.append(srv)
        return srv

    yield make
    for s in started:
        s.stop()


class WSClient:
    """A blocking websocket client that remembers every frame it got."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect

        self._cm = connect(url, max_size=2**22)
        self.ws = self._cm.__enter__()
        self.frames: list[dict[str, Any]] = []
        self.seq = 0
        self.view: dict[str, Any] | None = None

    def send(self, obj: Any) -> None:
        self.ws.send(obj if isinstance(obj, str) else json.dumps(obj))

    def recv(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        f = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(f)
        if f.get("type") in ("events", "sync"):
            self.seq = f["seq"]
            self.view = f["view"]
        return dict(f)

    def events(self) -> list[dict[str, Any]]:
        """Every game event received so far, in order."""
        return [e["event"] for f in self.frames if f.get("type") == "events" for e in f["events"]]

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 5000) -> dict[str, Any]:
        for _ in range(limit):
            f = self.recv()
            if pred(f):
                return f
        raise AssertionError("the expected frame never came")

    def error(self) -> dict[str, Any]:
        return self.until(lambda f: f.get("type") == "error")

    def hello(self, table: str, token: str, last_seq: int = 0) -> dict[str, Any]:
        self.send({"type": "hello", "table": table, "token": token, "last_seq": last_seq})
        welcome = self.until(lambda f: f.get("type") in ("welcome", "error"))
        return welcome

    def settle(self) -> None:
        """Read every frame already sent: the frames of one batch are queued
        together, and the pong comes after them."""
        self.send({"type": "ping"})
        self.until(lambda f: f.get("type") == "pong")

    def my_turn(self) -> bool:
        v = self.view
        return bool(v and v["phase"] in ("play", "redeal_question") and v["turn"] == v["seat"] and v["legal"])

    def close(self) -> None:
        self.ws.close()


def drive(c: Any, stop: Any, choose: Any = None, rematch: bool = False) -> dict[str, Any]:
    """Play seat ``c``'s turns (first legal move, or ``choose(view)``) and say next_hand
    after each hand until a frame satisfies ``stop``; with ``rematch``, "Otra partida"
    after each match too (for a test that plays on whatever happens: a hand can end the
    match, a blocked hand's points may pass the target). Each is said once per hand
    and once per match end (hand numbers start again with a match)."""
    waiting = False
    next_sent: set[int] = set()  # the hands of this match "Siguiente mano" was said after
    rematch_sent = False
    held = c.view is not None  # act first on the view already held, if any
    while True:
        if held:
            f: dict[str, Any] = {"type": "sync", "seq": c.seq, "view": c.view}
            held = False
        else:
            f = c.recv()
            if stop(f):
                return f
        if f["type"] == "error":
            raise AssertionError(f"unexpected error {f}")
        if f["type"] == "events" and any(
            e["event"]["kind"] == "play" and e["event"]["seat"] == c.view["seat"] for e in f["events"]
        ):
            waiting = False
        v = c.view
        if v is None or f["type"] not in ("events", "sync"):
            continue
        if not waiting and c.my_turn():
            move = choose(v) if choose else v["legal"][0]
            c.send({"type": "play", "seq": c.seq, **move})
            waiting = True
        if v["phase"] == "hand_over" and v["hand_number"] not in next_sent:
            next_sent.add(v["hand_number"])
            c.send({"type": "next_hand", "seq": c.seq})
        if v["phase"] == "match_over":
            next_sent.clear()
            if rematch and not rematch_sent:
                rematch_sent = True
                c.send({"type": "rematch"})
        else:
            rematch_sent = False
