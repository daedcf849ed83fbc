"""A player's devices and "Llévate tu jugador" (docs/protocol.md, "Devices and keys").

- ``GET /api/devices``: the asker's devices, the asking one marked ``this``.
- ``DELETE /api/devices/{device_id}``: signs one out (its token finds nobody after).
- ``POST /api/keys``: a one-time key (:mod:`capicua.store.devices`) for the asker to
  open on another browser; counted per player and per address.
- ``POST /api/keys/use``: ``{"code", "only_here"}`` → a new token of the key's player
  for this browser (``only_here``: the player's other devices are signed out);
  every try counts against the address.

Who asks is the ``Authorization: Bearer TOKEN`` header (:mod:`capicua.server.http.viewer`);
the key's code travels in a body, never in a URL (the page's link carries it in its
fragment, which no request sends).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.gateway.identity import Guest
from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.errors import NO_STORE, HttpError, too_fast, unavailable
from capicua.server.http.viewer import bearer_token
from capicua.server.ports import LogUnavailable
from capicua.store import devices, iso_utc

DEVICE_ID = re.compile(r"d_[0-9a-f]{1,38}")
KEY_CODE = re.compile(rf"[A-Za-z0-9_-]{{1,{devices.KEY_MAX}}}")
KEY_PAGE = "/llevar"  # the page that uses a key: /llevar#CODE

# A device's label: the browser and the system its user agent names, the first match of each.
BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"), ("Firefox/", "Firefox"),
            ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
           ("Mac OS X", "Mac"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))


def device_label(user_agent: str | None) -> str:
    """"Chrome · Android": what a person recognises their browser by; ``""`` when unknown."""
    ua = user_agent or ""
    browser = next((name for mark, name in BROWSERS if mark in ua), "")
    system = next((name for mark, name in SYSTEMS if mark in ua), "")
    return " · ".join(part for part in (browser, system) if part)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


async def store_call(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a thread; a store that cannot be read or written is ``503 unavailable``."""
    try:
        return await asyncio.to_thread(fn, *args)
    except SQLAlchemyError as exc:
        raise unavailable(request, LogUnavailable(str(exc).splitlines()[0])) from None


async def asker(request: Request, deps: Deps) -> Guest:
    """The guest whose token the request carries: ``401 unknown_token`` without one, or
    for a token no guest has (a device signed out)."""
    token = bearer_token(request)
    try:
        guest = None if token is None else await deps.guests.find(token)
    except LogUnavailable as exc:
        raise unavailable(request, exc) from None
    if guest is None:
        raise HttpError(401, "unknown_token", "who asks: Authorization: Bearer TOKEN of a guest", field="authorization")
    return guest


def address_of(request: Request, deps: Deps) -> str:
    return deps.addresses.key(request.client, request.headers.getlist("x-forwarded-for"))


def routes(deps: Deps) -> list[BaseRoute]:
    async def list_devices(request: Request) -> Response:
        guest = await asker(request, deps)
        found = await store_call(request, devices.devices_of, deps.store, guest.player)
        listed = [{**d, "this": d["id"] == guest.device} for d in found]
        return JSONResponse({"devices": listed}, headers=NO_STORE)

    async def sign_out(request: Request) -> Response:
        guest = await asker(request, deps)
        device = request.path_params["device_id"]
        if not DEVICE_ID.fullmatch(device):
            raise HttpError(400, "malformed", "a device id is d_ and hex digits", field="device_id")
        gone = await store_call(request, devices.sign_out, deps.store, guest.player, device)
        if not gone:
            raise HttpError(404, "unknown_device", f"you have no device {device}", field="device_id")
        deps.guests.forget(guest.player)
        return JSONResponse({"signed_out": device, "this": device == guest.device}, headers=NO_STORE)

    async def make_key(request: Request) -> Response:
        guest = await asker(request, deps)
        refused = await deps.budgets.take({"keys_per_guest": guest.player, "keys_per_address": address_of(request, deps)})
        if refused is not None:
            raise too_fast(deps.limits, refused)
        code, expires = await store_call(request, devices.make_key, deps.store, guest.player, _now())
        return JSONResponse({"code": code, "expires_at": iso_utc(expires), "url": f"{KEY_PAGE}#{code}"},
                            headers=NO_STORE)

    async def use_key(request: Request) -> Response:
        body = await read_json_body(request, MAX_BODY, deps.body_timeout)
        if not isinstance(body, dict) or set(body) - {"code", "only_here"}:
            raise HttpError(400, "malformed", "the body is {code, only_here}")
        code, only_here = body.get("code"), body.get("only_here", False)
        if not isinstance(code, str) or not KEY_CODE.fullmatch(code):
            raise HttpError(400, "malformed", "code is the key's letters, digits, - and _", field="code")
        if not isinstance(only_here, bool):
            raise HttpError(400, "malformed", "only_here is true or false", field="only_here")
        refused = await deps.budgets.take({"keys_per_address": address_of(request, deps)})
        if refused is not None:
            raise too_fast(deps.limits, refused)
        label = device_label(request.headers.get("user-agent"))
        try:
            carried = await store_call(request, devices.use_key, deps.store, code, label, only_here, _now())
        except devices.KeyRefused as exc:
            raise key_refused(exc.reason) from None
        if only_here:
            deps.guests.forget(carried.player)
        return JSONResponse({"player": carried.player, "nickname": carried.nickname, "token": carried.token,
                             "signed_out": carried.signed_out}, headers=NO_STORE)

    return [
        Route("/api/devices", list_devices, methods=["GET"]),
        Route("/api/devices/{device_id}", sign_out, methods=["DELETE"]),
        Route("/api/keys", make_key, methods=["POST"]),
        Route("/api/keys/use", use_key, methods=["POST"]),
    ]


def key_refused(reason: str) -> HttpError:
    """``404 unknown_key``, ``410 key_expired`` or ``410 key_used`` (field ``code``)."""
    if reason == "unknown":
        return HttpError(404, "unknown_key", "no such key", field="code")
    if reason == "expired":
        return HttpError(410, "key_expired", "the key expired: make a new one", field="code")
    return HttpError(410, "key_used", "the key was used already: make a new one", field="code")
