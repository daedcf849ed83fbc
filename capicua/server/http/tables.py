"""``POST /api/tables`` (open a table) and ``GET /api/tables/{id}`` (its summary),
docs/protocol.md.

A body is read strictly (:func:`parse_table_request`: every field checked, any
other refused, the rules built as a table may choose them). Opening a table is
counted per guest (an existing one's token) and per address (the flood guard,
large: many people share one address); a table that brings a new guest counts
against the address's guests too. While the store cannot be read or written
the answer is ``503 unavailable`` with ``Retry-After``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.engine.rules import Rules
from capicua.server.gateway.identity import Guest
from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.devices import device_label
from capicua.server.http.errors import HttpError, too_fast, unavailable
from capicua.server.http.guests import nickname_of, token_of
from capicua.server.ports import LogUnavailable
from capicua.table import neighbours
from capicua.table.options import NEIGHBOUR_LEVELS, TableRulesError, bot_seat_levels, table_rules
from capicua.table.protocol import table_id_ok
from capicua.table.seating import BOT, EMPTY, HUMAN, STAND_IN_LEVEL

HUMAN_SEAT = 0  # the player who opens a table sits South
DEFAULT_LEVEL = "medio"


def routes(deps: Deps) -> list[BaseRoute]:
    async def create_table(request: Request) -> Response:
        ask = parse_table_request(await read_json_body(request, MAX_BODY, deps.body_timeout))
        address = deps.addresses.key(request.client, request.headers.getlist("x-forwarded-for"))
        try:
            known = await deps.guests.find(ask.token)
            keys = {"tables_per_address": address}
            if known is not None:
                keys["tables_per_guest"] = known.player
            else:
                keys["guests_per_address"] = address
            refused = await deps.budgets.take(keys)
            if refused is not None:
                raise too_fast(deps.limits, refused)
            guest, token = await deps.guests.sign_in(ask.nickname, ask.token, device_label(request.headers.get("user-agent")))
            if known is None:  # its first table counts against it too
                await deps.budgets.count("tables_per_guest", guest.player)
            shell = await deps.tables.open(
                ask.preset, ask.options, table_seats(ask, guest), private=ask.private,
                host=guest.player if ask.private else None,
            )
        except LogUnavailable as exc:
            raise unavailable(request, exc) from None
        return JSONResponse({"table_id": shell.id, "seat": HUMAN_SEAT, "token": token, "url": f"/t/{shell.id}"})

    async def get_table(request: Request) -> Response:
        tid = request.path_params["table_id"]
        try:
            summary = await deps.tables.summary(tid) if table_id_ok(tid) else None
        except LogUnavailable as exc:
            raise unavailable(request, exc) from None
        if summary is None:
            raise HttpError(404, "unknown_table", "no such table")
        return JSONResponse(summary)

    return [
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table_id}", get_table),
    ]


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
    """What a ``POST /api/tables`` body asks for, or :class:`HttpError` naming the field at fault."""
    if not isinstance(body, dict):
        raise HttpError(400, "malformed", "the body must be a JSON object")
    for key in body:
        if key not in TABLE_REQUEST_FIELDS:
            raise HttpError(
                400, "malformed", f"unknown field {key[:40]!r}; fields: {', '.join(TABLE_REQUEST_FIELDS)}",
                field=key[:40],
            )
    nickname = nickname_of(body)
    token = token_of(body)
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise HttpError(400, "malformed", "options is an object", field="options")
    private = body.get("private", False)
    if type(private) is not bool:
        raise HttpError(400, "malformed", "private is true or false", field="private")
    levels = {key: _bot_level(body, key) for key in ("partner_level", "rival_level")}
    preset = body.get("preset", "cubano")
    try:
        rules = table_rules(preset, options)
    except TableRulesError as exc:
        raise HttpError(400, "bad_rules", str(exc), field=exc.field) from None
    return TableRequest(
        nickname, preset, dict(options or {}), rules, levels["partner_level"], levels["rival_level"], token, private
    )


def _bot_level(body: dict[str, Any], key: str) -> str:
    level = body.get(key, DEFAULT_LEVEL)
    if not isinstance(level, str) or level not in NEIGHBOUR_LEVELS:
        raise HttpError(400, "malformed", f"{key} must be one of {', '.join(NEIGHBOUR_LEVELS)}", field=key)
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
