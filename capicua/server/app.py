"""The ASGI app: static page, HTTP API and the websocket of docs/protocol.md.

``create_app()`` builds it; ``serve()`` runs it with uvicorn (``capicua
serve`` calls it); ``python -m capicua.server.app`` (or ``python -m
capicua.server``) runs it from the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import time
import unicodedata
from collections import deque
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketState

from capicua import neighbours
from capicua.engine import RulesError, preset_catalogue
from capicua.server.tables import (
    DEFAULT_LEVEL,
    LEVEL_ORDER,
    Conn,
    Seat,
    TableManager,
    available_levels,
)
from capicua.store import Store, default_database_url
from capicua.verify import verify_deal

log = logging.getLogger("capicua.server")

WEB = Path(__file__).resolve().parent.parent / "web"
MAX_FRAME = 4096  # bytes, client frames
MAX_WS_MESSAGE = 65536  # uvicorn drops the connection above this
INTENTS = ("hello", "play", "redeal", "next_hand", "ping")
NICKNAME_MAX = 24


def _error(code: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def clean_nickname(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    text = "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C").strip()
    text = " ".join(text.split())
    if not text or len(text) > NICKNAME_MAX:
        return None
    return text


def default_executor() -> Executor:
    """The bots' process pool. ``forkserver`` workers: no fork of a threaded server."""
    ctx = multiprocessing.get_context("forkserver")
    with contextlib.suppress(Exception):
        ctx.set_forkserver_preload(["capicua.bots", "capicua.server.tables"])
    # Each worker loads the bots' JIT kernel from numba's cache once, at start,
    # instead of making the first searching bot's move wait ~1.6 s for it.
    return ProcessPoolExecutor(
        max_workers=max(1, min(2, os.cpu_count() or 1)), mp_context=ctx, initializer=_warm_bot_worker
    )


def _warm_bot_worker() -> None:
    from capicua.bots import warmup

    with contextlib.suppress(Exception):
        warmup()


class RateLimiter:
    """At most ``limit`` frames per ``window`` seconds (sliding window)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.times: deque[float] = deque()

    def allow(self) -> bool:
        now = time.monotonic()
        while self.times and now - self.times[0] >= self.window:
            self.times.popleft()
        if len(self.times) >= self.limit:
            return False
        self.times.append(now)
        return True


def create_app(
    database_url: str | None = None,
    bot_delay: tuple[float, float] = (0.6, 1.5),
    data_dir: str | Path | None = None,
    executor: Executor | None = None,
    rate_limit: tuple[int, float] = (20, 1.0),
    history_size: int = 256,
    web_dir: str | Path | None = None,
) -> Starlette:
    """The app. ``database_url``: any SQLAlchemy URL (default: ``$CAPICUA_DATABASE_URL``,
    else SQLite in ``<data_dir or ./data>/capicua.sqlite3``). ``executor``: where bots
    think (default: a process pool made at startup and shut down with the app)."""
    url = database_url or os.environ.get("CAPICUA_DATABASE_URL") or default_database_url(data_dir or "data")
    web = Path(web_dir) if web_dir else WEB
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(url)
        store_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="capicua-store")
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(store_executor, store.migrate)
        own_executor = executor is None
        pool = default_executor() if executor is None else executor
        manager = TableManager(store, pool, bot_delay, store_executor, history_size)
        app.state.store = store
        app.state.tables = manager
        app.state.loop = loop
        state["tables"] = manager
        restored = await manager.restore_active()
        if restored:
            log.info("restored %d unfinished tables", len(restored))
        try:
            yield
        finally:
            await manager.close()
            if own_executor:
                pool.shutdown(wait=False, cancel_futures=True)
            store_executor.shutdown(wait=True)
            store.close()

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            path = web / name
            if not path.exists():
                return Response(f"{name} is not there yet", status_code=404, media_type="text/plain")
            return FileResponse(path, headers={"Cache-Control": "no-cache"})

        return endpoint

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def presets(request: Request) -> Response:
        levels = [lvl for lvl in LEVEL_ORDER]
        return JSONResponse(
            {
                "presets": preset_catalogue(),
                "default": "cubano",
                "levels": levels,
                "bot_levels": list(available_levels()),
                "default_level": DEFAULT_LEVEL,
            }
        )

    async def neighbours_list(request: Request) -> Response:
        return JSONResponse({"neighbours": neighbours.public_roster()})

    async def verify(request: Request) -> Response:
        q = request.query_params
        seed = q.get("seed", "")
        preset = q.get("preset", "cubano")
        options: dict[str, Any] = {}
        if q.get("options"):
            try:
                options = json.loads(q["options"])
            except ValueError:
                return _error("malformed", "options must be a JSON object")
            if not isinstance(options, dict):
                return _error("malformed", "options must be a JSON object")
        hand = q.get("hand", "1")
        if not seed or len(seed) > 200:
            return _error("malformed", "give the hand's revealed seed: ?seed=...&preset=...")
        if not hand.isdigit():
            return _error("malformed", "hand is a number")
        try:
            return JSONResponse(verify_deal(preset, seed, options, hand_number=int(hand)))
        except RulesError as exc:
            return _error("bad_rules", str(exc))

    async def create_table(request: Request) -> Response:
        manager: TableManager = state["tables"]
        body_bytes = await request.body()
        if len(body_bytes) > MAX_FRAME:
            return _error("too_large", "the request is too large", 413)
        try:
            body = json.loads(body_bytes or b"{}")
        except ValueError:
            return _error("malformed", "the body is not JSON")
        if not isinstance(body, dict):
            return _error("malformed", "the body must be a JSON object")
        nickname = clean_nickname(body.get("nickname"))
        if nickname is None:
            return _error("malformed", f"a nickname is 1 to {NICKNAME_MAX} characters")
        preset = body.get("preset", "cubano")
        options = body.get("options") or {}
        if not isinstance(preset, str) or not isinstance(options, dict):
            return _error("malformed", "preset is a name and options an object")
        levels = {}
        for key in ("partner_level", "rival_level"):
            lvl = body.get(key, DEFAULT_LEVEL)
            if lvl not in LEVEL_ORDER and lvl not in available_levels():
                return _error("malformed", f"{key} must be one of {', '.join(LEVEL_ORDER)}")
            levels[key] = lvl
        try:
            from capicua.engine import make_rules

            rules = make_rules(preset, **options)
        except RulesError as exc:
            return _error("bad_rules", str(exc))
        except TypeError as exc:
            return _error("malformed", str(exc))
        if rules.players != 4 or not rules.partnership:
            return _error("bad_rules", "tables against the neighbours are four players in two partnerships")
        store = manager.store
        player_id = token = None
        if isinstance(body.get("token"), str) and body["token"]:
            found = await manager.store_call(store.player_by_token, body["token"])
            if found is not None:
                player_id, token = found["id"], body["token"]
                if found["nickname"] != nickname:
                    await manager.store_call(store.rename_player, player_id, nickname)
        if player_id is None:
            player_id, token = await manager.store_call(store.create_player, nickname)
        assert token is not None
        import hashlib
        import random
        import secrets

        rng = random.Random(secrets.token_hex(8))
        bot_levels = [levels["rival_level"], levels["partner_level"], levels["rival_level"]]
        chars = neighbours.choose_characters(rng, bot_levels)
        seats = [
            Seat(0, "human", nickname, player_id=player_id, token_hash=hashlib.sha256(token.encode()).hexdigest())
        ]
        for i, (lvl, ch) in enumerate(zip(bot_levels, chars, strict=True), start=1):
            seats.append(Seat(i, "bot", ch.name, level=lvl, character=ch.id))
        table = await manager.create(preset, options, seats)
        return JSONResponse({"table_id": table.id, "seat": 0, "token": token, "url": f"/t/{table.id}"})

    async def get_table(request: Request) -> Response:
        manager: TableManager = state["tables"]
        tid = request.path_params["table_id"]
        table = await manager.get(tid) if _table_id_ok(tid) else None
        if table is None:
            return _error("unknown_table", "no such table", 404)
        return JSONResponse(table.summary())

    async def ws_endpoint(websocket: WebSocket) -> None:
        manager: TableManager = state["tables"]
        await websocket.accept()
        conn = Conn()
        writer = asyncio.get_running_loop().create_task(_writer(websocket, conn))
        limiter = RateLimiter(*rate_limit)

        def err(code: str, message: str) -> None:
            seq = conn.table.seq if conn.table is not None else None
            conn.put({"type": "error", "code": code, "message": message, "seq": seq})

        try:
            while not conn.closed:
                msg = await websocket.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                raw = text.encode() if text is not None else (msg.get("bytes") or b"")
                if len(raw) > MAX_FRAME:
                    err("too_large", f"frames are at most {MAX_FRAME} bytes")
                    continue
                if not limiter.allow():
                    err("too_fast", f"at most {rate_limit[0]} frames in {rate_limit[1]:g} s")
                    continue
                if text is None:
                    err("malformed", "frames are JSON text")
                    continue
                try:
                    frame = json.loads(text)
                except ValueError:
                    err("malformed", "a frame is JSON")
                    continue
                if not isinstance(frame, dict):
                    err("malformed", "a frame must be a JSON object")
                    continue
                kind = frame.get("type")
                if kind not in INTENTS:
                    err("malformed", f"unknown type {kind!r}; types: {', '.join(INTENTS)}")
                    continue
                if kind == "ping":
                    conn.put({"type": "pong"})
                    continue
                if kind == "hello":
                    await _hello(manager, conn, frame, err)
                    continue
                problem = _check_intent(frame)
                if problem:
                    err("malformed", problem)
                    continue
                if conn.table is None:
                    err("unauthorized", "say hello first")
                    continue
                conn.table.post("intent", conn, frame)
        except Exception:  # a broken socket
            log.debug("websocket closed", exc_info=True)
        finally:
            if conn.table is not None:
                conn.table.post("leave", conn)
            conn.close()
            with contextlib.suppress(Exception):
                await writer
            if websocket.application_state != WebSocketState.DISCONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close()

    routes = [
        Route("/", page("index.html")),
        Route("/t/{table_id}", page("table.html")),
        Route("/rules", page("rules.html")),
        Route("/vocab", page("vocab.html")),
        Route("/verify", page("verify.html")),
        Route("/healthz", healthz),
        Route("/api/presets", presets),
        Route("/api/neighbours", neighbours_list),
        Route("/api/verify", verify),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table_id}", get_table),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", app=StaticFiles(directory=str(web), check_dir=False), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _table_id_ok(tid: Any) -> bool:
    return isinstance(tid, str) and 0 < len(tid) <= 40 and tid.replace("_", "").isalnum()


def _int(v: Any) -> bool:
    return type(v) is int and v >= 0


def _check_intent(frame: dict[str, Any]) -> str | None:
    """What is wrong with the shape of an intent (None: nothing)."""
    kind = frame["type"]
    if not _int(frame.get("seq")):
        return "an intent carries seq: the last sequence number you saw"
    if kind == "play":
        tile = frame.get("tile")
        if not (isinstance(tile, list) and len(tile) == 2 and all(type(x) is int for x in tile)):
            return "tile is a pair of numbers, like [5, 3]"
        end = frame.get("end")
        if end is not None and not isinstance(end, str):
            return "end is the name of an open end, or null for the first tile"
    elif kind == "redeal":
        if type(frame.get("accept")) is not bool:
            return "accept is true or false"
    return None


async def _hello(manager: TableManager, conn: Conn, frame: dict[str, Any], err: Any) -> None:
    tid, token, last_seq = frame.get("table"), frame.get("token"), frame.get("last_seq", 0)
    if last_seq is None:
        last_seq = 0
    if not isinstance(tid, str) or not _int(last_seq) or (token is not None and not isinstance(token, str)):
        err("malformed", "hello is {type: hello, table, token, last_seq}")
        return
    if conn.table is not None:
        err("malformed", "this socket already said hello")
        return
    table = await manager.get(tid) if _table_id_ok(tid) else None
    if table is None:
        err("unknown_table", f"no table {tid!r}")
        return
    seat = table.seat_for_token(token) if token else None
    if seat is None:
        err("unauthorized", "this token holds no seat at this table")
        return
    conn.table = table
    conn.seat = seat
    table.post("join", conn, seat, last_seq)


async def _writer(websocket: WebSocket, conn: Conn) -> None:
    while True:
        text = await conn.queue.get()
        if text is None:
            break
        try:
            await websocket.send_text(text)
        except Exception:
            conn.closed = True
            break
    if websocket.application_state != WebSocketState.DISCONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close()


# ------------------------------------------------------------------ running


def parse_delay(text: str | None) -> tuple[float, float] | None:
    """``"0"`` or ``"0.6,1.5"`` (seconds)."""
    if text is None or text == "":
        return None
    parts = [float(p) for p in text.split(",")]
    if len(parts) == 1:
        return (parts[0], parts[0])
    return (parts[0], parts[1])


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    database_url: str | None = None,
    bot_delay: tuple[float, float] | None = None,
    data_dir: str | Path | None = None,
    log_level: str = "info",
    rate_limit: tuple[int, float] | None = None,
) -> None:
    """Run the server with uvicorn until interrupted (SIGINT/SIGTERM).

    Environment: ``CAPICUA_BOT_DELAY`` ("0" or "0.6,1.5" seconds) and
    ``CAPICUA_RATE_LIMIT`` ("20,1": frames per seconds per socket) when
    the arguments are not given."""
    import uvicorn

    delay = bot_delay or parse_delay(os.environ.get("CAPICUA_BOT_DELAY")) or (0.6, 1.5)
    if rate_limit is None:
        env_limit = parse_delay(os.environ.get("CAPICUA_RATE_LIMIT"))
        rate_limit = (int(env_limit[0]), env_limit[1]) if env_limit else (20, 1.0)
    app = create_app(database_url=database_url, bot_delay=delay, data_dir=data_dir, rate_limit=rate_limit)
    uvicorn.run(app, host=host, port=port, ws_max_size=MAX_WS_MESSAGE, log_level=log_level, lifespan="on")


def main(argv: list[str] | None = None) -> None:
    env = os.environ
    p = argparse.ArgumentParser(prog="capicua-server", description="Run the Capicúa server")
    p.add_argument("--host", default=env.get("CAPICUA_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(env.get("CAPICUA_PORT", "8000")))
    p.add_argument("--database", default=env.get("CAPICUA_DATABASE_URL"), help="SQLAlchemy URL")
    p.add_argument("--data-dir", default=env.get("CAPICUA_DATA_DIR", "data"))
    p.add_argument("--bot-delay", default=env.get("CAPICUA_BOT_DELAY"), help='seconds, "0" or "0.6,1.5"')
    p.add_argument("--log-level", default=env.get("CAPICUA_LOG_LEVEL", "info"))
    a = p.parse_args(argv)
    serve(a.host, a.port, a.database, parse_delay(a.bot_delay), a.data_dir, a.log_level)


if __name__ == "__main__":
    main()
