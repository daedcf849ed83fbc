"""``POST /api/players``: this browser's guest, renamed, or a new one (docs/protocol.md).

Creating a guest counts against its address's budget (``guests_per_address``),
and makes its first device, labelled from the browser's user agent;
renaming one with its token does not. The checks of a nickname and a token in a
body are here; ``POST /api/tables`` (:mod:`capicua.server.http.tables`) reads them too.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.gateway.identity import NICKNAME_MAX, clean_nickname, token_ok
from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.devices import device_label
from capicua.server.http.errors import HttpError, too_fast, unavailable
from capicua.server.ports import LogUnavailable


def routes(deps: Deps) -> list[BaseRoute]:
    async def sign_in(request: Request) -> Response:
        body = await read_json_body(request, MAX_BODY, deps.body_timeout)
        if not isinstance(body, dict) or set(body) - {"nickname", "token"}:
            raise HttpError(400, "malformed", "the body is {nickname, token}")
        nickname, token = nickname_of(body), token_of(body)
        try:
            known = await deps.guests.find(token)
            if known is None:
                address = deps.addresses.key(request.client, request.headers.getlist("x-forwarded-for"))
                refused = await deps.budgets.take({"guests_per_address": address})
                if refused is not None:
                    raise too_fast(deps.limits, refused)
            guest, token = await deps.guests.sign_in(nickname, token, device_label(request.headers.get("user-agent")))
        except LogUnavailable as exc:
            raise unavailable(request, exc) from None
        return JSONResponse({"player": guest.player, "nickname": guest.nickname, "token": token})

    return [Route("/api/players", sign_in, methods=["POST"])]


def nickname_of(body: dict[str, Any]) -> str:
    nickname = clean_nickname(body.get("nickname"))
    if nickname is None:
        raise HttpError(400, "malformed", f"a nickname is 1 to {NICKNAME_MAX} characters", field="nickname")
    return nickname


def token_of(body: dict[str, Any]) -> str | None:
    token = body.get("token")
    if token is not None and not token_ok(token):
        raise HttpError(400, "malformed", "token is the string the server gave this browser", field="token")
    return token
