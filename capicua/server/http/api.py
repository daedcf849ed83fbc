"""The HTTP API of docs/protocol.md: presets, neighbours, guests, tables, verify, health.

Every bad request is answered ``{"error": {"code", "message", "field"?}}`` with
a 4xx status and is never logged as a fault. While the store cannot be read or
written a request that needs it is answered ``503 unavailable`` with
``Retry-After``, in one line of the log.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from capicua.engine import preset_catalogue
from capicua.engine.rules import Rules
from capicua.server.gateway.identity import (
    NICKNAME_MAX,
    Guest,
    Guests,
    clean_nickname,
    token_ok,
)
from capicua.server.gateway.limits import (
    Budget,
    HttpLimits,
    Refusal,
    client_key,
    retry_after,
)
from capicua.server.http.verify import verify_answer
from capicua.server.ports import EventLog, LogUnavailable
from capicua.server.registry import Tables
from capicua.table import jsonsafe, neighbours
from capicua.table.options import (
    NEIGHBOUR_LEVELS,
    TableRulesError,
    bot_seat_levels,
    seat_choices,
    table_rules,
)
from capicua.table.protocol import table_id_ok
from capicua.table.seating import (
    BOT,
    EMPTY,
    HUMAN,
    STAND_IN_LEVEL,
)

log = logging.getLogger("capicua.server")

MAX_BODY = 4096  # bytes of a request body
UNAVAILABLE_RETRY_S = 5  # Retry-After of a 503 while the store fails (the tables retry within 5 s too)
HUMAN_SEAT = 0  # the player who opens a table sits South
DEFAULT_LEVEL = "medio"


def error(
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
        return error(self.code, self.message, self.status, self.field)


def unavailable(request: Request, exc: Exception) -> JSONResponse:
    """``503 unavailable``: the store cannot be read or written now (one line in the log)."""
    log.warning("%s %s: the store is unavailable (%s)", request.method, request.url.path, exc)
    return error(
        "unavailable", "the store cannot be written right now; try again", 503,
        headers={"Retry-After": str(UNAVAILABLE_RETRY_S)},
    )


LIMIT_WORDS = {
    "tables_per_guest": "new tables per player",
    "tables_per_address": "new tables from one address",
    "guests_per_address": "new players from one address",
}


def too_fast(limits: HttpLimits, refusal: Refusal) -> JSONResponse:
    """``429 too_fast`` naming the limit and when one more is allowed (``Retry-After``)."""
    count, seconds = getattr(limits, refusal.what)
    return error(
        "too_fast", f"at most {count} {LIMIT_WORDS[refusal.what]} in {seconds:g} s", 429,
        headers={"Retry-After": retry_after(refusal.wait)},
    )


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
    private: bool


TABLE_REQUEST_FIELDS = ("nickname", "preset", "options", "partner_level", "rival_level", "token", "private")


def parse_table_request(body: Any) -> TableRequest:
    """What a ``POST /api/tables`` body asks for, or :class:`BadRequest` naming the field at fault."""
    if not isinstance(body, dict):
        raise BadRequest("malformed", "the body must be a JSON object")
    for key in body:
        if key not in TABLE_REQUEST_FIELDS:
            raise BadRequest(
                "malformed", f"unknown field {key[:40]!r}; fields: {', '.join(TABLE_REQUEST_FIELDS)}", field=key[:40]
            )
    nickname = _nickname(body)
    token = _token(body)
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise BadRequest("malformed", "options is an object", field="options")
    private = body.get("private", False)
    if type(private) is not bool:
        raise BadRequest("malformed", "private is true or false", field="private")
    levels = {key: _bot_level(body, key) for key in ("partner_level", "rival_level")}
    preset = body.get("preset", "cubano")
    try:
        rules = table_rules(preset, options)
    except TableRulesError as exc:
        raise BadRequest("bad_rules", str(exc), field=exc.field) from None
    return TableRequest(
        nickname, preset, dict(options or {}), rules, levels["partner_level"], levels["rival_level"], token, private
    )


def _nickname(body: dict[str, Any]) -> str:
    nickname = clean_nickname(body.get("nickname"))
    if nickname is None:
        raise BadRequest("malformed", f"a nickname is 1 to {NICKNAME_MAX} characters", field="nickname")
    return nickname


def _token(body: dict[str, Any]) -> str | None:
    token = body.get("token")
    if token is not None and not token_ok(token):
        raise BadRequest("malformed", "token is the string the server gave this browser", field="token")
    return token


def _bot_level(body: dict[str, Any], key: str) -> str:
    level = body.get(key, DEFAULT_LEVEL)
    if not isinstance(level, str) or level not in NEIGHBOUR_LEVELS:
        raise BadRequest("malformed", f"{key} must be one of {', '.join(NEIGHBOUR_LEVELS)}", field=key)
    return level


def table_seats(ask: TableRequest, guest: Guest) -> list[dict[str, Any]]:
    """The host in :data:`HUMAN_SEAT` (with a neighbour to stand in for them); at a
    table against the neighbours a distinct neighbour in every other seat, at a
    private table empty seats for the friends."""
    rng = random.SystemRandom()
    n = ask.rules.players
    levels = {} if ask.private else bot_seat_levels(ask.rules, HUMAN_SEAT, ask.partner_level, ask.rival_level)
    chosen = neighbours.choose_characters(rng, [*levels.values(), STAND_IN_LEVEL])
    stand_in = chosen[-1]
    seats: list[dict[str, Any]] = [
        {"seat": s, "kind": EMPTY, "name": ""} for s in range(n)
    ]
    seats[HUMAN_SEAT] = {"seat": HUMAN_SEAT, "kind": HUMAN, "name": ask.nickname, "player": guest.player,
                         "level": STAND_IN_LEVEL, "character": stand_in.id}
    for (seat, level), ch in zip(levels.items(), chosen[:-1], strict=True):
        seats[seat] = {"seat": seat, "kind": BOT, "name": ch.name, "level": level, "character": ch.id}
    return seats


class Api:
    """The HTTP handlers, over the server's services. ``health()`` names the state of
    each part besides the store (the bot pools: ``ok`` or ``restarting``)."""

    def __init__(
        self,
        tables: Tables,
        guests: Guests,
        event_log: EventLog,
        limits: HttpLimits,
        body_timeout: float,
        health: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        self.tables = tables
        self.guests = guests
        self.log = event_log
        self.limits = limits
        self.budget = Budget(
            tables_per_guest=limits.tables_per_guest, tables_per_address=limits.tables_per_address,
            guests_per_address=limits.guests_per_address,
        )
        self.body_timeout = body_timeout
        self.health = health or dict
        self.catalogue = [dict(p, seat_choices=seat_choices(p["name"])) for p in preset_catalogue()]

    async def healthz(self, request: Request) -> Response:
        parts = self.health()
        store = self.log.healthy
        ok = store and all(state == "ok" for state in parts.values())
        body = {"ok": ok, **parts, "store": "ok" if store else "failing"}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def presets(self, request: Request) -> Response:
        return JSONResponse(
            {"presets": self.catalogue, "default": "cubano", "levels": list(NEIGHBOUR_LEVELS), "default_level": DEFAULT_LEVEL}
        )

    async def neighbours(self, request: Request) -> Response:
        return JSONResponse({"neighbours": neighbours.public_roster()})

    async def verify(self, request: Request) -> Response:
        status, body = await verify_answer(self.tables, request.query_params)
        return JSONResponse(body, status_code=status)

    async def sign_in(self, request: Request) -> Response:
        """``POST /api/players``: this browser's guest (renamed) or a new one. Creating a
        guest counts against its address's budget; renaming one with its token does not."""
        try:
            body = await read_json_body(request, MAX_BODY, self.body_timeout)
            if not isinstance(body, dict) or set(body) - {"nickname", "token"}:
                raise BadRequest("malformed", "the body is {nickname, token}")
            nickname, token = _nickname(body), _token(body)
        except BadRequest as exc:
            return exc.response()
        try:
            known = await self.guests.find(token)
            if known is None:
                refused = self.budget.take({"guests_per_address": client_key(request.client)})
                if refused is not None:
                    return too_fast(self.limits, refused)
            guest, token = await self.guests.sign_in(nickname, token)
        except LogUnavailable as exc:
            return unavailable(request, exc)
        return JSONResponse({"player": guest.player, "nickname": guest.nickname, "token": token})

    async def create_table(self, request: Request) -> Response:
        """``POST /api/tables``. Counted per guest (an existing one's token) and per address
        (the flood guard, large: many people share one address); a table that brings a
        new guest counts against the address's guests too."""
        try:
            ask = parse_table_request(await read_json_body(request, MAX_BODY, self.body_timeout))
        except BadRequest as exc:
            return exc.response()
        address = client_key(request.client)
        try:
            known = await self.guests.find(ask.token)
            keys = {"tables_per_address": address}
            if known is not None:
                keys["tables_per_guest"] = known.player
            else:
                keys["guests_per_address"] = address
            refused = self.budget.take(keys)
            if refused is not None:
                return too_fast(self.limits, refused)
            guest, token = await self.guests.sign_in(ask.nickname, ask.token)
            if known is None:  # its first table counts against it too
                self.budget.windows["tables_per_guest"].take(guest.player)
            shell = await self.tables.open(
                ask.preset, ask.options, table_seats(ask, guest), private=ask.private,
                host=guest.player if ask.private else None,
            )
        except LogUnavailable as exc:
            return unavailable(request, exc)
        return JSONResponse({"table_id": shell.id, "seat": HUMAN_SEAT, "token": token, "url": f"/t/{shell.id}"})

    async def get_table(self, request: Request) -> Response:
        tid = request.path_params["table_id"]
        try:
            summary = await self.tables.summary(tid) if table_id_ok(tid) else None
        except LogUnavailable as exc:
            return unavailable(request, exc)
        if summary is None:
            return error("unknown_table", "no such table", 404)
        return JSONResponse(summary)
