"""The parque (the public room, docs/protocol.md "El parque"): ``GET /api/parque``,
the matchmaking queue ``/api/parque/queue`` ("Jugar con gente") and a host's
``/api/tables/{id}/public``.

``GET /api/parque`` is one small JSON that every open parque page asks for every
15 s (who is around: players seen in the last five minutes, :mod:`capicua.store.presence`): it is built at most once per :data:`LISTING_TTL_S` per process, whoever asks,
and carries an ETag (an unchanged listing is a ``304`` with no body). It never
says who is queued beyond their nickname and level.

The queue is the store's (:mod:`capicua.store.queue`): a page joins it, polls it
(a row not polled for 30 s is dropped) and leaves it; the matcher
(:mod:`capicua.server.matchmaker`) seats its players. Joining and leaving count
against the guest's ``queue_per_guest`` budget (``429 too_fast``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.engine.rules import PRESETS
from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.devices import asker
from capicua.server.http.errors import HttpError, too_fast, unavailable
from capicua.server.http.guests import nickname_of, token_of
from capicua.server.ports import LogUnavailable
from capicua.store import parque, presence, queue, standings
from capicua.table.matchmaking import WAITS
from capicua.table.protocol import table_id_ok

log = logging.getLogger("capicua.server")

LISTING_TTL_S = 2.0  # the parque's JSON is built at most this often per process
LISTED = 20  # tables of each kind, queued players and players around, the parque shows
AROUND = timedelta(minutes=5)  # "around now": seen in the last five minutes (as Gente says it)
QUEUE_FIELDS = ("nickname", "token", "preset", "wait")
ASKER_HEADERS = {"Cache-Control": "no-store"}  # a queue's state is one player's, now


class Listing:
    """The parque's JSON as last built, its ETag and when it was built."""

    def __init__(self) -> None:
        self.body = b""
        self.etag = ""
        self.built = float("-inf")
        self.lock = asyncio.Lock()

    async def get(self, build: Callable[[], dict[str, Any]]) -> tuple[bytes, str]:
        async with self.lock:  # many pages at once: one of them builds it
            if time.monotonic() - self.built >= LISTING_TTL_S:
                built = await _ask(build)
                self.body = json.dumps(built, separators=(",", ":"), ensure_ascii=False).encode()
                self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:20] + '"'
                self.built = time.monotonic()
            return self.body, self.etag


def routes(deps: Deps) -> list[BaseRoute]:
    listing = Listing()

    def build() -> dict[str, Any]:
        seen = presence.players_seen_since(deps.store, _now() - AROUND, LISTED)
        around = [{"player": p["player"], "nickname": p["nickname"], "level": p["level"]} for p in seen]
        return {"around": around, **parque.listing(deps.store, LISTED),
                "queue": queue.waiting_players(deps.store, LISTED)}

    async def show(request: Request) -> Response:
        if request.query_params:
            key = next(iter(request.query_params))
            raise HttpError(400, "malformed", f"unknown parameter {key}", field=key)
        body, etag = await listing.get(build)
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    async def join(request: Request) -> Response:
        body = await read_json_body(request, MAX_BODY, deps.body_timeout)
        if not isinstance(body, dict):
            raise HttpError(400, "malformed", "the body must be a JSON object")
        for key in body:
            if key not in QUEUE_FIELDS:
                raise HttpError(400, "malformed", f"unknown field {key[:40]!r}; fields: {', '.join(QUEUE_FIELDS)}",
                                field=key[:40])
        nickname, token = nickname_of(body), token_of(body)
        preset = body.get("preset", "cubano")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise HttpError(400, "bad_rules", f"games: {', '.join(PRESETS)}", field="preset")
        wait = body.get("wait")
        if wait not in WAITS or type(wait) not in (int, type(None)):
            raise HttpError(400, "malformed", "wait is 30, 60, 120 or null (never)", field="wait")
        address = deps.addresses.key(request.client, request.headers.getlist("x-forwarded-for"))
        try:
            known = await deps.guests.find(token)
            keys = {"queue_per_guest": known.player} if known is not None else {"guests_per_address": address}
            refused = await deps.budgets.take(keys)
            if refused is not None:
                raise too_fast(deps.limits, refused)
            guest, token = await deps.guests.sign_in(nickname, token)
        except LogUnavailable as exc:
            raise unavailable(request, exc) from None
        if known is None:
            await deps.budgets.count("queue_per_guest", guest.player)
        level = (await _ask(standings.levels_of, deps.store, [guest.player]))[guest.player]["number"]
        await _ask(queue.join, deps.store, guest.player, guest.nickname, level, preset, wait)
        turn = await _ask(queue.poll, deps.store, guest.player)
        return JSONResponse({**turn, "token": token}, headers=ASKER_HEADERS)

    async def state(request: Request) -> Response:
        guest = await asker(request, deps)
        found = await _ask(queue.poll, deps.store, guest.player)
        if found is None:
            raise HttpError(404, "not_queued", "you are not in the queue")
        return JSONResponse(found, headers=ASKER_HEADERS)

    async def leave(request: Request) -> Response:
        guest = await asker(request, deps)
        refused = await deps.budgets.take({"queue_per_guest": guest.player})
        if refused is not None:
            raise too_fast(deps.limits, refused)
        if not await _ask(queue.leave, deps.store, guest.player):
            raise HttpError(404, "not_queued", "you are not waiting in the queue")
        return JSONResponse({"state": "left"}, headers=ASKER_HEADERS)

    async def publicity(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        if not table_id_ok(table_id):
            raise HttpError(404, "unknown_table", "no such table")
        if request.method == "GET":
            return JSONResponse({"public": await _ask(parque.is_public, deps.store, table_id)},
                                headers={"Cache-Control": "no-cache"})
        guest = await asker(request, deps)
        body = await read_json_body(request, MAX_BODY, deps.body_timeout)
        if not isinstance(body, dict) or set(body) != {"public"} or type(body["public"]) is not bool:
            raise HttpError(400, "malformed", "the body is {\"public\": true or false}", field="public")
        public = await _ask(parque.set_public, deps.store, table_id, guest.player, body["public"])
        return JSONResponse({"public": public}, headers=ASKER_HEADERS)

    return [
        Route("/api/parque", show),
        Route("/api/parque/queue", join, methods=["POST"]),
        Route("/api/parque/queue", state, methods=["GET"]),
        Route("/api/parque/queue", leave, methods=["DELETE"]),
        Route("/api/tables/{table_id}/public", publicity, methods=["GET", "POST"]),
    ]


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


async def _ask(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` of the store in a worker thread: its refusals as HTTP errors, a store
    that cannot be read as ``503 unavailable``."""
    try:
        return await asyncio.to_thread(fn, *args)
    except queue.QueueRefused as exc:
        raise HttpError(exc.status, exc.code, str(exc)) from None
    except SQLAlchemyError as exc:
        log.warning("the parque is unavailable: %s", str(exc).splitlines()[0])
        raise HttpError(503, "unavailable", "the store cannot be read right now; try again",
                        headers={"Retry-After": "5"}) from None
