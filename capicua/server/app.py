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
import math
import multiprocessing
import os
import random
import unicodedata
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from capicua import neighbours
from capicua.engine import preset_catalogue
from capicua.engine.rules import Rules
from capicua.server import jsonsafe
from capicua.server.httpedge import uvicorn_config
from capicua.server.limits import (
    BoundedCache,
    ClientWindows,
    SlidingWindow,
    SocketCounts,
    client_key,
    retry_after,
)
from capicua.server.tablerules import TableRulesError, bot_seat_levels, seat_choices, table_rules
from capicua.server.tables import (
    DEFAULT_LEVEL,
    LEVEL_ORDER,
    Conn,
    Seat,
    TableManager,
    available_levels,
    rebuild,
)
from capicua.server.verify_http import verify_answer
from capicua.store import Store, default_database_url, token_hash

log = logging.getLogger("capicua.server")

WEB = Path(__file__).resolve().parent.parent / "web"
MAX_FRAME = 4096  # bytes, client frames
MAX_BODY = 4096  # bytes, HTTP request bodies
INTENTS = ("hello", "play", "redeal", "next_hand", "ping")
NICKNAME_MAX = 24
TOKEN_MAX = 200
HUMAN_SEAT = 0  # the player who opens a table against the neighbours sits South
FINISHED_SUMMARIES = 256  # summaries of finished matches kept in memory (they never change)
WS_POLICY_CLOSE = 1008  # the websocket close code for a socket the server refuses


def _error(
    code: str, message: str, status: int = 400, field: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status, headers=headers)


class BadRequest(Exception):
    """A request the server refuses: answered with its code, never logged."""

    def __init__(self, code: str, message: str, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.field = field

    def response(self) -> JSONResponse:
        return _error(self.code, self.message, self.status, self.field)


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


async def read_json_body(request: Request, limit: int, timeout: float) -> Any:
    """The request's body as JSON: at most ``limit`` bytes, all in within ``timeout``
    seconds. Raises :class:`BadRequest` (``too_large``, ``too_slow``, ``malformed``)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BadRequest("too_large", f"the body is at most {limit} bytes", 413)
    try:
        body = await asyncio.wait_for(_read_at_most(request, limit), timeout)
    except TimeoutError:
        raise BadRequest("too_slow", f"the body did not arrive within {timeout:g} s", 408) from None
    except ClientDisconnect:
        raise BadRequest("malformed", "the connection closed before the body was in") from None
    try:
        return jsonsafe.loads(body or b"{}")
    except ValueError:
        raise BadRequest("malformed", f"the body is JSON, at most {jsonsafe.MAX_DEPTH} levels deep") from None


async def _read_at_most(request: Request, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadRequest("too_large", f"the body is at most {limit} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class TableRequest:
    """A checked ``POST /api/tables`` body."""

    nickname: str
    preset: str
    options: dict[str, Any]
    rules: Rules
    partner_level: str
    rival_level: str
    token: str | None


TABLE_REQUEST_FIELDS = ("nickname", "preset", "options", "partner_level", "rival_level", "token")


def parse_table_request(body: Any) -> TableRequest:
    """What a ``POST /api/tables`` body asks for, or :class:`BadRequest` naming the field at fault."""
    if not isinstance(body, dict):
        raise BadRequest("malformed", "the body must be a JSON object")
    for key in body:
        if key not in TABLE_REQUEST_FIELDS:
            raise BadRequest(
                "malformed", f"unknown field {key[:40]!r}; fields: {', '.join(TABLE_REQUEST_FIELDS)}", field=key[:40]
            )
    nickname = clean_nickname(body.get("nickname"))
    if nickname is None:
        raise BadRequest("malformed", f"a nickname is 1 to {NICKNAME_MAX} characters", field="nickname")
    token = body.get("token")
    if token is not None and not (isinstance(token, str) and 0 < len(token) <= TOKEN_MAX):
        raise BadRequest("malformed", "token is the string an earlier table gave you", field="token")
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise BadRequest("malformed", "options is an object", field="options")
    levels = {key: _bot_level(body, key) for key in ("partner_level", "rival_level")}
    preset = body.get("preset", "cubano")
    try:
        rules = table_rules(preset, options)
    except TableRulesError as exc:
        raise BadRequest("bad_rules", str(exc), field=exc.field) from None
    return TableRequest(
        nickname, preset, dict(options or {}), rules, levels["partner_level"], levels["rival_level"], token
    )


def _bot_level(body: dict[str, Any], key: str) -> str:
    level = body.get(key, DEFAULT_LEVEL)
    if not isinstance(level, str) or (level not in LEVEL_ORDER and level not in available_levels()):
        raise BadRequest("malformed", f"{key} must be one of {', '.join(LEVEL_ORDER)}", field=key)
    return level


def table_seats(ask: TableRequest, player_id: str, token: str) -> list[Seat]:
    """The human in :data:`HUMAN_SEAT`, a distinct neighbour in every other seat."""
    levels = bot_seat_levels(ask.rules, HUMAN_SEAT, ask.partner_level, ask.rival_level)
    characters = neighbours.choose_characters(random.SystemRandom(), list(levels.values()))
    seats = [Seat(HUMAN_SEAT, "human", ask.nickname, player_id=player_id, token_hash=token_hash(token))]
    for (seat, level), ch in zip(levels.items(), characters, strict=True):
        seats.append(Seat(seat, "bot", ch.name, level=level, character=ch.id))
    return sorted(seats, key=lambda s: s.seat)


async def guest_player(manager: TableManager, nickname: str, token: str | None) -> tuple[str, str]:
    """``(player_id, token)``: the guest of ``token`` when the store knows it (renamed
    to ``nickname``), else a new guest."""
    store = manager.store
    if token is not None:
        found = await manager.store_call(store.player_by_token, token)
        if found is not None:
            if found["nickname"] != nickname:
                await manager.store_call(store.rename_player, found["id"], nickname)
            return found["id"], token
    player_id, new_token = await manager.store_call(store.create_player, nickname)
    return player_id, new_token


async def table_summary(manager: TableManager, finished: BoundedCache, tid: str) -> dict[str, Any] | None:
    """A table's public summary. A finished match that is not loaded is read from the
    store and never becomes a live table (its summary is kept in ``finished``)."""
    live = manager.tables.get(tid)
    if live is not None:
        return live.summary()
    kept = finished.get(tid)
    if kept is not None:
        return dict(kept)
    data = await manager.store_call(manager.store.load_match, tid)
    if data is None:
        return None
    if data["status"] != "finished":
        table = await manager.get(tid)
        return None if table is None else table.summary()
    summary = rebuild(manager, data).summary()  # a table object that is never started nor kept
    finished.put(tid, summary)
    return dict(summary)


def create_app(
    database_url: str | None = None,
    bot_delay: tuple[float, float] = (0.6, 1.5),
    data_dir: str | Path | None = None,
    executor: Executor | None = None,
    rate_limit: tuple[int, float] = (20, 1.0),
    history_size: int = 256,
    web_dir: str | Path | None = None,
    table_rate: tuple[int, float] = (20, 600.0),
    sockets_per_seat: int = 4,
    sockets_per_client: int = 32,
    hello_timeout: float = 10.0,
    body_timeout: float = 10.0,
) -> Starlette:
    """The app. ``database_url``: any SQLAlchemy URL (default: ``$CAPICUA_DATABASE_URL``,
    else SQLite in ``<data_dir or ./data>/capicua.sqlite3``). ``executor``: where bots
    think (default: a process pool made at startup and shut down with the app).

    The bounds on one client (docs/protocol.md, "Limits"): ``rate_limit`` frames
    per seconds per socket (oversized frames count too), ``table_rate`` tables
    created per seconds per client address, ``sockets_per_seat`` and
    ``sockets_per_client`` sockets at once, ``hello_timeout`` seconds for a new
    socket to say hello, ``body_timeout`` seconds for an HTTP body to arrive."""
    url = database_url or os.environ.get("CAPICUA_DATABASE_URL") or default_database_url(data_dir or "data")
    web = Path(web_dir) if web_dir else WEB
    state: dict[str, Any] = {}
    table_windows = ClientWindows(*table_rate)
    client_sockets = SocketCounts(sockets_per_client)
    seat_sockets = SocketCounts(sockets_per_seat)
    finished_summaries = BoundedCache(FINISHED_SUMMARIES)
    catalogue = [dict(p, seat_choices=seat_choices(p["name"])) for p in preset_catalogue()]

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
                "presets": catalogue,
                "default": "cubano",
                "levels": levels,
                "bot_levels": list(available_levels()),
                "default_level": DEFAULT_LEVEL,
            }
        )

    async def neighbours_list(request: Request) -> Response:
        return JSONResponse({"neighbours": neighbours.public_roster()})

    async def verify(request: Request) -> Response:
        status, body = await verify_answer(state["tables"], request.query_params)
        return JSONResponse(body, status_code=status)

    async def create_table(request: Request) -> Response:
        manager: TableManager = state["tables"]
        try:
            ask = parse_table_request(await read_json_body(request, MAX_BODY, body_timeout))
        except BadRequest as exc:
            return exc.response()
        wait = table_windows.take(client_key(request.client))
        if wait is not None:
            return _error(
                "too_fast", f"at most {table_rate[0]} new tables in {table_rate[1]:g} s from one address", 429,
                headers={"Retry-After": retry_after(wait)},
            )
        player_id, token = await guest_player(manager, ask.nickname, ask.token)
        table = await manager.create(ask.preset, ask.options, table_seats(ask, player_id, token))
        return JSONResponse({"table_id": table.id, "seat": HUMAN_SEAT, "token": token, "url": f"/t/{table.id}"})

    async def get_table(request: Request) -> Response:
        tid = request.path_params["table_id"]
        summary = await table_summary(state["tables"], finished_summaries, tid) if _table_id_ok(tid) else None
        if summary is None:
            return _error("unknown_table", "no such table", 404)
        return JSONResponse(summary)

    async def ws_endpoint(websocket: WebSocket) -> None:
        client = client_key(websocket.client)
        try:
            await websocket.accept()
        except OSError:  # the client left during the handshake
            return
        if not client_sockets.add(client):
            await _refuse(websocket, "too_many", f"at most {sockets_per_client} sockets from one address")
            return
        try:
            await serve_socket(websocket, client)
        finally:
            client_sockets.remove(client)

    async def serve_socket(websocket: WebSocket, client: str) -> None:
        manager: TableManager = state["tables"]
        loop = asyncio.get_running_loop()
        conn = Conn()
        writer = loop.create_task(_writer(websocket, conn))
        limiter = SlidingWindow(*rate_limit)
        hello_by = loop.time() + hello_timeout

        def err(code: str, message: str) -> None:
            seq = conn.table.seq if conn.table is not None else None
            conn.put({"type": "error", "code": code, "message": message, "seq": seq})

        try:
            while not conn.closed:
                msg = await _receive(websocket, None if conn.table is not None else hello_by - loop.time())
                if msg is None:
                    err("timeout", f"a socket says hello within {hello_timeout:g} s of opening")
                    break
                if msg["type"] == "websocket.disconnect":
                    break
                frame = _read_frame(msg, limiter, err)
                if frame is None:
                    continue
                kind = frame["type"]
                if kind == "ping":
                    conn.put({"type": "pong"})
                    continue
                if kind == "hello":
                    await _hello(manager, conn, frame, err, seat_sockets)
                    continue
                problem = _check_intent(frame)
                if problem:
                    err("malformed", problem)
                    continue
                if conn.table is None:
                    err("unauthorized", "say hello first")
                    continue
                conn.table.post("intent", conn, frame)
        except (WebSocketDisconnect, OSError) as exc:  # the socket broke: nothing to report
            log.debug("websocket from %s broke: %s", client, type(exc).__name__)
        except Exception:  # a server fault, not the client's doing
            log.exception("websocket from %s: server fault", client)
            err("internal", "the server failed; reload")
        finally:
            if conn.table is not None:
                seat_sockets.remove((conn.table.id, conn.seat))
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


async def _receive(websocket: WebSocket, timeout: float | None) -> Any:
    """The socket's next message, or None when ``timeout`` seconds pass first."""
    if timeout is None:
        return await websocket.receive()
    try:
        return await asyncio.wait_for(websocket.receive(), max(timeout, 0.0))
    except TimeoutError:
        return None


async def _refuse(websocket: WebSocket, code: str, message: str) -> None:
    """Tell a socket the server will not keep it, and close it."""
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps({"type": "error", "code": code, "message": message, "seq": None}))
        await websocket.close(WS_POLICY_CLOSE)


def _read_frame(msg: Any, limiter: SlidingWindow, err: Any) -> dict[str, Any] | None:
    """The frame of a websocket message, or None after reporting what is wrong.

    Every frame counts against the rate limit first, however large or bad."""
    text = msg.get("text")
    size = len(text.encode("utf-8", "surrogatepass")) if text is not None else len(msg.get("bytes") or b"")
    if not limiter.allow():
        err("too_fast", f"at most {limiter.limit} frames in {limiter.window:g} s")
        return None
    if size > MAX_FRAME:
        err("too_large", f"frames are at most {MAX_FRAME} bytes")
        return None
    if text is None:
        err("malformed", "frames are JSON text")
        return None
    try:
        frame = jsonsafe.loads(text)
    except ValueError:
        err("malformed", f"a frame is JSON, at most {jsonsafe.MAX_DEPTH} levels deep")
        return None
    if not isinstance(frame, dict):
        err("malformed", "a frame must be a JSON object")
        return None
    kind = frame.get("type")
    if not isinstance(kind, str) or kind not in INTENTS:
        err("malformed", f"unknown type {str(kind)[:40]!r}; types: {', '.join(INTENTS)}")
        return None
    return frame


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


async def _hello(
    manager: TableManager, conn: Conn, frame: dict[str, Any], err: Any, seat_sockets: SocketCounts
) -> None:
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
    if not seat_sockets.add((table.id, seat)):
        err("too_many", f"at most {seat_sockets.cap} sockets hold one seat; close another tab")
        conn.close()
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


LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
DEFAULT_BOT_DELAY = (0.6, 1.5)
DEFAULT_RATE_LIMIT = (20, 1.0)


def parse_delay(text: str | None) -> tuple[float, float] | None:
    """``"0"`` or ``"0.6,1.5"``: seconds a bot waits before it plays, at least and at
    most (None for no text). :class:`ValueError` for anything else."""
    if text is None or text.strip() == "":
        return None
    parts = [float(p) for p in text.split(",")]
    if len(parts) > 2 or not all(math.isfinite(p) and p >= 0 for p in parts) or parts[0] > parts[-1]:
        raise ValueError(f"a delay is SECONDS or LOW,HIGH with 0 <= LOW <= HIGH, not {text!r}")
    return (parts[0], parts[-1])


def parse_rate(text: str | None) -> tuple[int, float] | None:
    """``"20,1"``: at most 20 frames in 1 second (None for no text). :class:`ValueError` otherwise."""
    if text is None or text.strip() == "":
        return None
    count, _, seconds = text.partition(",")
    limit, window = int(count), float(seconds or "1")
    if limit < 1 or not (math.isfinite(window) and window > 0):
        raise ValueError(f"a rate is FRAMES,SECONDS, both positive, not {text!r}")
    return (limit, window)


def _delay_argument(text: str) -> tuple[float, float] | None:
    try:
        return parse_delay(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    the arguments are not given. Every connection is bounded in time: see
    :func:`capicua.server.httpedge.uvicorn_config`."""
    import uvicorn

    delay = bot_delay or parse_delay(os.environ.get("CAPICUA_BOT_DELAY")) or DEFAULT_BOT_DELAY
    rate = rate_limit or parse_rate(os.environ.get("CAPICUA_RATE_LIMIT")) or DEFAULT_RATE_LIMIT
    app = create_app(database_url=database_url, bot_delay=delay, data_dir=data_dir, rate_limit=rate)
    server = uvicorn.Server(uvicorn_config(app, host=host, port=port, log_level=log_level))
    server.run()
    if not server.started:
        raise SystemExit(3)  # uvicorn has logged why (the port is taken, the database is unreachable…)


def serve_parser(prog: str = "capicua serve") -> argparse.ArgumentParser:
    """The arguments of ``capicua serve`` and ``python -m capicua.server`` (defaults from the environment)."""
    env = os.environ
    p = argparse.ArgumentParser(prog=prog, description="Run the Capicúa server")
    p.add_argument("--host", default=env.get("CAPICUA_HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(env.get("CAPICUA_PORT", "8000")))
    p.add_argument("--database", default=env.get("CAPICUA_DATABASE_URL"), help="SQLAlchemy URL")
    p.add_argument(
        "--data-dir", default=env.get("CAPICUA_DATA_DIR", "data"),
        help="where the SQLite database lives when --database is not given (default: ./data)",
    )
    p.add_argument(
        "--bot-delay", type=_delay_argument, default=env.get("CAPICUA_BOT_DELAY"),
        help='seconds a neighbour thinks before playing: "0" or "0.6,1.5" (default 0.6,1.5)',
    )
    p.add_argument("--log-level", choices=LOG_LEVELS, default=env.get("CAPICUA_LOG_LEVEL", "info"))
    return p


def main(argv: list[str] | None = None, prog: str = "python -m capicua.server") -> int:
    a = serve_parser(prog).parse_args(argv)
    serve(
        host=a.host, port=a.port, database_url=a.database, bot_delay=a.bot_delay, data_dir=a.data_dir,
        log_level=a.log_level,
    )
    return 0


if __name__ == "__main__":
    main()
