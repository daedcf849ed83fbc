"""The HTTP tier has one error type and one wiring style (issue 22, item 1).

* Every refusal is a :class:`~capicua.server.http.errors.HttpError`, turned into
  ``{"error": {"code", "message", "field"?}}`` by one handler: no other exception in
  the server or the table domain carries an HTTP status, and the table domain names
  no HTTP status at all (it raises its own errors; the HTTP modules map them).
* Every route module exposes ``routes(deps)`` over the one ``Deps``, the route table
  (``capicua.server.routes``) lists every one of them, and no handler reads
  ``request.app.state``.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import capicua.server.http as http_package
from capicua.server import routes as route_table
from capicua.server.app import WEB
from capicua.server.gateway.limits import HttpLimits
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError
from capicua.server.http.static import WebAssets

ROOT = Path(__file__).resolve().parents[2] / "capicua"
HTTP_STATUSES = range(400, 600)


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def is_exception(node: ast.ClassDef) -> bool:
    names = [ast.unparse(base) for base in node.bases]
    return any(name.endswith(("Error", "Exception")) for name in names)


def test_no_exception_but_http_error_carries_an_http_status() -> None:
    found = []
    for path in modules(ROOT / "server") + modules(ROOT / "table"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef) or node.name == "HttpError" or not is_exception(node):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Attribute) and inner.attr == "status" and isinstance(inner.ctx, ast.Store):
                    found.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert found == []


def test_the_table_domain_names_no_http_status() -> None:
    """No ``raise`` in capicua/table gives an HTTP status (a 4xx or 5xx number)."""
    found = []
    for path in modules(ROOT / "table"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for inner in ast.walk(node.exc):
                    if isinstance(inner, ast.Constant) and type(inner.value) is int and inner.value in HTTP_STATUSES:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_every_route_module_is_wired_one_way_and_listed() -> None:
    with_routes = set()
    for info in pkgutil.iter_modules(http_package.__path__):
        module = __import__(f"capicua.server.http.{info.name}", fromlist=["routes"])
        fn = getattr(module, "routes", None)
        if fn is None:
            continue
        with_routes.add(info.name)
        params = list(inspect.signature(fn).parameters)
        assert params == ["deps"], f"{info.name}.routes{params}"
    table_source = Path(route_table.__file__).read_text()
    listed = {name for name in with_routes if f"{name}.routes(deps)" in table_source}
    assert with_routes and listed == with_routes


def test_no_handler_reads_the_app_state() -> None:
    readers = [
        str(p.relative_to(ROOT)) for p in modules(ROOT / "server")
        if "request.app.state" in p.read_text() or "websocket.app.state" in p.read_text()
    ]
    assert readers == []


def test_one_handler_answers_every_http_error(tmp_path: Path) -> None:
    """An HttpError raised by a route is its JSON (``field`` only when there is one),
    with its status and headers, never kept by a cache."""

    async def refuse(request: Request) -> Response:
        field = request.query_params.get("field")
        raise HttpError(429, "too_fast", "slow down", field=field, headers={"Retry-After": "3"})

    deps = Deps(WebAssets(WEB), HttpLimits(), body_timeout=10.0)
    app = Starlette(routes=[Route("/api/refuse", refuse)], exception_handlers=dict(route_table.error_handlers(deps)))

    async def ask(query: str) -> Any:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/api/refuse" + query)

    whole = asyncio.run(ask(""))
    assert whole.status_code == 429 and whole.json() == {"error": {"code": "too_fast", "message": "slow down"}}
    assert whole.headers["retry-after"] == "3" and whole.headers["cache-control"] == "no-store"
    part = asyncio.run(ask("?field=nickname"))
    assert part.json()["error"] == {"code": "too_fast", "message": "slow down", "field": "nickname"}
    unknown = asyncio.run(ask("x"))  # /api/refusex: no such route, the API's JSON 404
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
