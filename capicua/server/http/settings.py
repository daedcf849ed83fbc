"""``GET`` / ``PUT /api/settings``: the asker's settings, the same on every device of
theirs (docs/protocol.md, "Settings"). ``PUT`` takes any of the settings and
changes only those; a value out of its range is ``400 malformed`` naming it, and
then nothing changes. Every answer is all the settings, defaults filled in, and
``chosen``: the names of those the player set (a device keeps its own choice of the
others, made before it knew the player's).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.http.body import MAX_BODY, read_json_body
from capicua.server.http.deps import Deps
from capicua.server.http.devices import asker, store_call
from capicua.server.http.errors import NO_STORE, HttpError
from capicua.store.settings import change_settings, settings_of

ANIMATIONS = ("normal", "rapida", "ninguna")  # normal, rápida, sin animación
LANGS = ("es", "en")
DEFAULTS: dict[str, Any] = {"volume": 80, "slam": 100, "animation": "normal", "subtitles": True, "lang": None}


def _percent(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100


# Each setting and what it takes: volume and the slam's loudness 0–100 (%), the animation
# speed, subtitles on or off, the language (null: the browser's).
CHECKS = {
    "volume": (_percent, "a whole number from 0 to 100"),
    "slam": (_percent, "a whole number from 0 to 100"),
    "animation": (lambda v: v in ANIMATIONS, "normal, rapida or ninguna"),
    "subtitles": (lambda v: isinstance(v, bool), "true or false"),
    "lang": (lambda v: v is None or v in LANGS, "es, en or null"),
}


def checked(body: Any) -> dict[str, Any]:
    """The settings ``body`` changes, each checked; raises :class:`HttpError` at the first bad one."""
    if not isinstance(body, dict) or not body:
        raise HttpError(400, "malformed", "the body is an object of settings to change")
    for name, value in body.items():
        check = CHECKS.get(name)
        if check is None:
            raise HttpError(400, "malformed", f"no setting {name}", field=name)
        ok, words = check
        if not ok(value):
            raise HttpError(400, "malformed", f"{name} is {words}", field=name)
    return dict(body)


def shown(stored: dict[str, Any]) -> dict[str, Any]:
    """Every setting: the stored ones that still check, the defaults for the rest."""
    return {name: stored[name] if name in stored and CHECKS[name][0](stored[name]) else default
            for name, default in DEFAULTS.items()}


def chosen(stored: dict[str, Any]) -> list[str]:
    """The settings the player set, in :data:`DEFAULTS`' order."""
    return [name for name in DEFAULTS if name in stored and CHECKS[name][0](stored[name])]


def routes(deps: Deps) -> list[BaseRoute]:
    async def read(request: Request) -> Response:
        guest = await asker(request, deps)
        stored = await store_call(request, settings_of, deps.store, guest.player)
        return JSONResponse({"settings": shown(stored), "chosen": chosen(stored)}, headers=NO_STORE)

    async def change(request: Request) -> Response:
        guest = await asker(request, deps)
        changes = checked(await read_json_body(request, MAX_BODY, deps.body_timeout))
        now = datetime.now(UTC).replace(tzinfo=None)
        stored = await store_call(request, change_settings, deps.store, guest.player, changes, now)
        return JSONResponse({"settings": shown(stored), "chosen": chosen(stored)}, headers=NO_STORE)

    return [Route("/api/settings", read, methods=["GET"]), Route("/api/settings", change, methods=["PUT"])]
