"""The answer to a URL that is nothing here.

A page URL gets ``404.html`` with status 404: the site's style, both languages
in it (the page's toggle switches between them), shown in the reader's
language — the ``Accept-Language`` header's preference between Spanish and
English, Spanish when it names neither — with a way home. Under ``/api/`` the
answer stays the API's JSON error (``{"error": {"code": "not_found", …}}``),
and a missing static file is a short plain answer (no page for a script or an
image to load).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from capicua.server.http.errors import HttpError
from capicua.server.http.static import WebAssets

PAGE = "404.html"
LANGS = ("es", "en")
_SPANISH_ROOT = '<html lang="es" data-lang="es">'


def preferred_lang(accept_language: str | None) -> str:
    """``"es"`` or ``"en"``: the first of ours by the header's weights (``q``), ties in the header's order."""
    best: tuple[float, int, str] | None = None
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower().split("-")[0]
        if lang not in LANGS:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:  # a weight that is not a number counts as none (RFC 9110: q=0)
                    q = 0.0
        if q <= 0:
            continue
        if best is None or (q, -order) > (best[0], -best[1]):
            best = (q, order, lang)
    return best[2] if best else "es"


def not_found_page(assets: WebAssets) -> Callable[[Request, Exception], Awaitable[Response]]:
    """Starlette's handler for 404: the page, the API's error, or a plain answer for a static file."""

    async def handler(request: Request, exc: Exception) -> Response:
        path = request.url.path
        if path == "/api" or path.startswith("/api/"):
            return HttpError(404, "not_found", "no such resource").response()
        page = assets.snapshot.pages.get(PAGE)
        if path.startswith("/static/") or page is None:
            return PlainTextResponse("not found", status_code=404)
        html = page.body.decode("utf-8")
        lang = preferred_lang(request.headers.get("accept-language"))
        if lang != "es":
            html = html.replace(_SPANISH_ROOT, f'<html lang="{lang}" data-lang="{lang}">', 1)
        return HTMLResponse(html, status_code=404, headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"})

    return handler
