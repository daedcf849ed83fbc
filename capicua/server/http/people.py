"""Gente: the people a guest plays with, the search by nickname, invitations to a
table and the mutes (docs/protocol.md, "Gente"; issue 24).

Every route here says who asks with ``Authorization: Bearer TOKEN``
(:mod:`capicua.server.http.viewer`): 401 ``unauthorized`` without it, 401
``unknown_token`` for a token no guest has. The store is asked in a worker thread;
its rules are :mod:`capicua.store.people` and :mod:`capicua.store.invitations`,
whose :class:`~capicua.store.invitations.Refused` codes are answered with the
statuses of :data:`STATUS`. Nothing is written by a refused request.

How an invitation reaches the invitee: every page polls ``GET /api/invitations``
(js/invitations.js) while it is visible, every :data:`POLL_S` seconds and at once
when it becomes visible again; the answer carries an ETag of its body, so an
unchanged list is a bodiless 304 (docs/architecture.md, "Invitations", for the
bytes this costs on mobile data and why a poll rather than a socket).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.gateway.identity import Guest
from capicua.server.gateway.limits import retry_after
from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.errors import NO_STORE, UNAVAILABLE_RETRY_S, HttpError, too_fast
from capicua.server.http.viewer import bearer_token
from capicua.store import invitations, people, presence
from capicua.store.invitations import Refused
from capicua.store.nicknames import search_key

log = logging.getLogger("capicua.people")
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
INVITATION_ID = re.compile(r"i_[0-9a-f]{32}")
CURSOR = re.compile(r"(\d{1,20})\.([A-Za-z0-9_-]{1,40})")
QUERY_MAX = 40  # characters of a search (a nickname's)
AROUND = timedelta(minutes=5)  # "around now": seen in the last five minutes
POLL_S = 20  # how often a visible page asks for its invitations
ASKER_HEADERS = {"Cache-Control": "no-cache", "Vary": "Authorization"}
STATUS = {
    "malformed": 400, "unknown_player": 404, "unknown_table": 404, "unknown_invitation": 404,
    "not_seated": 403, "not_acquainted": 403, "started": 409, "table_full": 409, "already_seated": 409,
    "already_invited": 409, "expired": 410, "too_fast": 429,
}


def routes(deps: Deps) -> list[BaseRoute]:
    async def guest(request: Request) -> Guest:
        token = bearer_token(request)
        if token is None:
            raise HttpError(401, "unauthorized", "this asks who you are: Authorization: Bearer TOKEN",
                            field="authorization")
        try:
            found = await deps.guests.find(token)
        except SQLAlchemyError as exc:
            raise _unavailable(exc) from None
        if found is None:
            raise HttpError(401, "unknown_token", "no guest has this token", field="authorization")
        return found

    async def gente(request: Request) -> Response:
        _only(request, ("after",))
        me = await guest(request)
        after = _cursor(_one(request, "after"))
        page = await _ask(people.people, deps.store, me.player, after)
        ids = [p["player"] for p in page["people"]]
        since = _now() - AROUND
        around = await _ask(presence.seen_players, deps.store, ids, since)
        muted = await _ask(invitations.muted_among, deps.store, me.player, ids)
        tables = await _ask(invitations.open_lobbies, deps.store, me.player)
        rows = [{**p, "around": p["player"] in around, "muted": p["player"] in muted} for p in page["people"]]
        following = page["next"]
        nxt = None if following is None else f"{_micros(following.at)}.{following.player}"
        return JSONResponse({"people": rows, "next": nxt, "around_s": int(AROUND.total_seconds()), "tables": tables},
                            headers=ASKER_HEADERS)

    async def search(request: Request) -> Response:
        _only(request, ("q",))
        me = await guest(request)
        text = _one(request, "q")
        if text is None or len(text) > QUERY_MAX or len(search_key(text)) < people.SEARCH_MIN:
            raise HttpError(400, "malformed", f"q is {people.SEARCH_MIN} to {QUERY_MAX} characters", field="q")
        refused = await deps.budgets.take({"searches_per_guest": me.player})
        if refused is not None:
            raise too_fast(deps.limits, refused)
        found = await _ask(people.search, deps.store, text)
        return JSONResponse({"players": found}, headers=ASKER_HEADERS)

    async def invite(request: Request) -> Response:
        _only(request, ())
        me = await guest(request)
        body = await read_json_body(request, MAX_BODY, deps.body_timeout)
        if not isinstance(body, dict) or set(body) != {"player", "table"}:
            raise HttpError(400, "malformed", "the body is {player, table}")
        player, table = body["player"], body["table"]
        if not isinstance(player, str) or not PLAYER_ID.fullmatch(player):
            raise HttpError(400, "malformed", "a player id is letters, digits, _ and -", field="player")
        if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
            raise HttpError(400, "malformed", "a table id is letters, digits, _ and -", field="table")
        sent = await _rule(invitations.send, deps.store, me.player, player, table, _now())
        return JSONResponse(sent, status_code=201, headers=NO_STORE)

    async def shown(request: Request) -> Response:
        _only(request, ())
        me = await guest(request)
        found = await _ask(invitations.shown_to, deps.store, me.player, _now())
        body = json.dumps({"invitations": found, "poll_s": POLL_S}, separators=(",", ":")).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        headers = {**ASKER_HEADERS, "ETag": etag}
        if etag in _etags(request.headers.get("if-none-match", "")):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    def answer(accept: bool) -> Callable[[Request], Awaitable[Response]]:
        async def answered(request: Request) -> Response:
            _only(request, ())
            me = await guest(request)
            invitation = request.path_params["invitation_id"]
            if not INVITATION_ID.fullmatch(invitation):
                raise HttpError(400, "malformed", "not an invitation's id", field="invitation")
            got = await _rule(invitations.answer, deps.store, me.player, invitation, accept, _now())
            if accept:  # the table page takes that seat once its hello is answered (js/table/state.js)
                got["url"] = f"/t/{got['table']}?sentarme={got['seat']}"
            return JSONResponse(got, headers=NO_STORE)
        return answered

    async def mutes(request: Request) -> Response:
        _only(request, ())
        me = await guest(request)
        return JSONResponse({"mutes": await _ask(invitations.mutes, deps.store, me.player)}, headers=ASKER_HEADERS)

    async def mute(request: Request) -> Response:
        _only(request, ())
        me = await guest(request)
        other = request.path_params["player_id"]
        if not PLAYER_ID.fullmatch(other):
            raise HttpError(400, "malformed", "a player id is letters, digits, _ and -", field="player_id")
        if request.method == "PUT":
            await _rule(invitations.mute, deps.store, me.player, other, _now())
        else:
            await _rule(invitations.unmute, deps.store, me.player, other)
        return JSONResponse({"player": other, "muted": request.method == "PUT"}, headers=NO_STORE)

    return [
        Route("/api/gente", gente),
        Route("/api/players", search, methods=["GET"]),
        Route("/api/invitations", shown, methods=["GET"]),
        Route("/api/invitations", invite, methods=["POST"]),
        Route("/api/invitations/{invitation_id}/accept", answer(True), methods=["POST"]),
        Route("/api/invitations/{invitation_id}/dismiss", answer(False), methods=["POST"]),
        Route("/api/mutes", mutes, methods=["GET"]),
        Route("/api/mutes/{player_id}", mute, methods=["PUT", "DELETE"]),
    ]


def _only(request: Request, keys: tuple[str, ...]) -> None:
    bearer_token(request)  # a token in the query string is refused first, whatever else is there
    unknown = sorted(set(request.query_params) - set(keys))
    if unknown:
        raise HttpError(400, "malformed", f"unknown parameter {unknown[0]}", field=unknown[0])


def _one(request: Request, key: str) -> str | None:
    values = request.query_params.getlist(key)
    if len(values) > 1:
        raise HttpError(400, "malformed", f"{key} is given more than once", field=key)
    return values[0] if values else None


def _cursor(raw: str | None) -> people.Cursor | None:
    if raw is None:
        return None
    match = CURSOR.fullmatch(raw)
    if match is None:
        raise HttpError(400, "malformed", "after is the next of the page before", field="after")
    micros, player = match.groups()
    try:
        at = datetime(1970, 1, 1) + timedelta(microseconds=int(micros))
    except OverflowError:
        raise HttpError(400, "malformed", "after is the next of the page before", field="after") from None
    return people.Cursor(at, player)


def _micros(at: datetime) -> int:
    return (at - datetime(1970, 1, 1)) // timedelta(microseconds=1)


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _unavailable(exc: Exception) -> HttpError:
    log.warning("gente unavailable: %s", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    return HttpError(503, "unavailable", "the store cannot be read right now; try again",
                     headers={"Retry-After": str(UNAVAILABLE_RETRY_S)})


async def _ask(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return await asyncio.to_thread(fn, *args)
    except SQLAlchemyError as exc:
        raise _unavailable(exc) from None


async def _rule(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn`` of :mod:`capicua.store.invitations` in a thread, its refusal as an HttpError."""
    try:
        return await _ask(fn, *args)
    except Refused as refused:
        headers = {"Retry-After": retry_after(refused.wait_s)} if refused.code == "too_fast" else None
        raise HttpError(STATUS[refused.code], refused.code, refused.message, refused.field, headers) from None
