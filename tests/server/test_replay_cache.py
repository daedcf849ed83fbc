"""A replay never stalls the other tables (issue 21): it is built and encoded in a
worker thread (the JSON written piece by piece, never in one long call), a finished
match is built once and then served from the cache, builds are bounded (one at a
time, 16 waiting, then ``503 busy`` with ``Retry-After``), and the gzipped answer
passes the gzip middleware as it is.

The endpoint runs on its own loop here (no server): ``Replays`` over a log held in
memory, with the tables of ``capicua.tools.bench_replay`` (logs as a table writes them)."""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware

from capicua.server.app import WEB
from capicua.server.gateway.limits import HttpLimits
from capicua.server.http import replay as replay_http
from capicua.server.http.compress import GzipAnswers
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError, http_error_response
from capicua.server.http.replay import (
    CACHE_BYTES,
    Built,
    ReplayCache,
    Replays,
)
from capicua.server.http.static import WebAssets
from capicua.table.log import Open
from capicua.tools.bench_replay import guest_and_neighbours, play_match


class MemoryTables:
    """What a replay reads of the stored tables (its log and records ports): each one's
    records and log, and how often the log was read."""

    def __init__(self) -> None:
        self.logs: dict[str, list[dict[str, Any]]] = {}
        self.finished: dict[str, dict[str, Any]] = {}
        self.loads = 0

    def add(self, table_id: str, seed: str, target: int = 50) -> None:
        opening = Open(table_id, "cubano", {"target": target}, "secret-" + seed,
                       tuple(guest_and_neighbours("p_ana")), seed=seed).to_json()
        entries, record = play_match(opening)
        self.logs[table_id] = [opening, *entries]
        self.finished[table_id] = record

    async def records(self, table_id: str) -> list[dict[str, Any]] | None:
        if table_id not in self.finished:
            return None
        return [{"number": 1, "status": "finished", "record": self.finished[table_id]}]

    async def load(self, table_id: str) -> list[dict[str, Any]] | None:
        self.loads += 1
        return copy.deepcopy(self.logs[table_id]) if table_id in self.logs else None


class NoGuests:
    async def find(self, token: str | None) -> None:
        return None


def app_of(replays: Replays) -> Starlette:
    """The replay's routes alone, wired as the app wires them."""
    deps = Deps(WebAssets(WEB), HttpLimits(), body_timeout=10.0)
    deps.replays = replays
    deps.guests = NoGuests()  # type: ignore[assignment]
    return Starlette(routes=replay_http.routes(deps), middleware=[Middleware(GzipAnswers)],
                     exception_handlers={HttpError: http_error_response})


def run(app: Starlette, job: Callable[[httpx.AsyncClient], Any]) -> Any:
    """``job(client)`` on a loop of its own, the app served on that same loop."""

    async def main() -> Any:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return await job(client)

    return asyncio.run(main())


def test_a_replay_is_built_and_written_off_the_loop_then_served_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    tables = MemoryTables()
    tables.add("t_cache1", "cache-1", target=100)
    replays = Replays(tables, tables)
    loop_thread = threading.get_ident()  # asyncio.run runs its loop in this thread
    dumped: list[tuple[int, int]] = []  # (thread, characters) of every json.dumps call
    real_dumps = json.dumps

    def dumps(*args: Any, **kwargs: Any) -> str:
        text = real_dumps(*args, **kwargs)
        dumped.append((threading.get_ident(), len(text)))
        return text

    monkeypatch.setattr(json, "dumps", dumps)
    built_in: list[int] = []
    real_build = replay_http.build_encoded

    def build(stored: Any) -> Built:
        built_in.append(threading.get_ident())
        return real_build(stored)

    monkeypatch.setattr(replay_http, "build_encoded", build)

    async def job(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        first = await client.get("/api/replay/t_cache1/1", headers={"Accept-Encoding": "gzip"})
        again = await client.get("/api/replay/t_cache1/1", headers={"Accept-Encoding": "gzip"})
        return first, again

    first, again = run(app_of(replays), job)
    assert first.status_code == again.status_code == 200
    body = first.json()
    assert len(body["hands"]) >= 2 and first.content == again.content
    # Built once, in a worker thread; the log read once: the second answer came from the cache.
    assert built_in and all(t != loop_thread for t in built_in) and len(built_in) == 1
    assert replays.built == 1 and tables.loads == 1 and len(replays.cache) == 1
    # The JSON was written in a worker thread, in pieces: the largest call is one frame,
    # a small part of the whole answer (it had been one call, on the loop).
    whole = len(real_dumps(body, separators=(",", ":")))
    on_loop = [n for thread, n in dumped if thread == loop_thread]
    assert not on_loop or max(on_loop) < 2048, f"{max(on_loop)} characters of JSON written on the loop"
    assert max(n for _, n in dumped) < whole / 10
    print(f"a {len(body['hands'])}-hand replay: {whole} bytes of JSON, largest piece {max(n for _, n in dumped)}, "
          f"{len(first.content)} bytes as JSON")


def test_the_gzipped_replay_passes_the_gzip_middleware_as_it_is() -> None:
    tables = MemoryTables()
    tables.add("t_cache2", "cache-2")
    app = app_of(Replays(tables, tables))

    async def job(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response, bytes]:
        zipped = await client.get("/api/replay/t_cache2/1", headers={"Accept-Encoding": "gzip"})
        plain = await client.get("/api/replay/t_cache2/1", headers={"Accept-Encoding": "identity"})
        async with client.stream("GET", "/api/replay/t_cache2/1", headers={"Accept-Encoding": "gzip"}) as r:
            raw = b"".join([chunk async for chunk in r.aiter_raw()])
        return zipped, plain, raw

    zipped, plain, raw = run(app, job)
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    # Gzipped once: the bytes on the wire unzip once into the same JSON a client without gzip gets.
    assert json.loads(gzip.decompress(raw)) == plain.json() == zipped.json()
    assert zipped.headers["cache-control"].startswith("public") and "Accept-Encoding" in zipped.headers["vary"]


def test_builds_are_bounded_and_one_match_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    limit = replay_http.BUILDS + replay_http.WAITING
    tables = MemoryTables()
    for i in range(limit + 1):
        tables.add(f"t_bound{i:02d}", f"bound-{i}")
    replays = Replays(tables, tables)
    gate = threading.Event()
    running = {"now": 0, "most": 0}
    lock = threading.Lock()
    real_build = replay_http.build_encoded

    def build(stored: Any) -> Built:
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        gate.wait(30)
        try:
            return real_build(stored)
        finally:
            with lock:
                running["now"] -= 1

    monkeypatch.setattr(replay_http, "build_encoded", build)

    async def job(client: httpx.AsyncClient) -> tuple[list[httpx.Response], httpx.Response, httpx.Response]:
        asked = [asyncio.ensure_future(client.get(f"/api/replay/t_bound{i:02d}/1")) for i in range(limit)]
        same = asyncio.ensure_future(client.get("/api/replay/t_bound00/1"))  # joins the build under way
        while len(replays._building) < limit:  # noqa: SLF001 - every request has reached its build
            await asyncio.sleep(0.01)
        over = await client.get(f"/api/replay/t_bound{limit:02d}/1")  # one match too many
        gate.set()
        return list(await asyncio.gather(*asked)), await same, over

    answers, same, over = run(app_of(replays), job)
    assert over.status_code == 503 and over.json()["error"]["code"] == "busy"
    assert over.headers["retry-after"] == str(replay_http.RETRY_AFTER_S)
    assert [r.status_code for r in answers] == [200] * limit and same.status_code == 200
    assert same.content == answers[0].content
    assert running["most"] == replay_http.BUILDS  # never more builds at once
    assert replays.built == limit  # the match asked twice was built once


def test_the_cache_keeps_its_bound_in_bytes() -> None:
    from capicua.server.http.matchaccess import Access

    open_to_all = Access(False, frozenset(), None)
    cache = ReplayCache(max_bytes=1000)
    for i in range(5):
        cache.put((f"t_{i}", 1), Built(b"x" * 300, 3000, open_to_all))
    assert cache.bytes <= 1000 and len(cache) == 3
    assert cache.get(("t_0", 1)) is None and cache.get(("t_4", 1)) is not None
    cache.put(("t_big", 1), Built(b"x" * 2000, 20000, open_to_all))  # bigger than the bound: not kept
    assert cache.get(("t_big", 1)) is None and cache.bytes <= 1000
    assert CACHE_BYTES >= 16 * 2**20
