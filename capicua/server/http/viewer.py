"""Who asks an HTTP request: the guest's token, from the ``Authorization`` header,
and the key of a private match's own link (``?k=``, :mod:`capicua.server.http.matchaccess`).

The token is a guest's whole identity, so it never travels in a URL: an address
is written to the server's access log, the browser's history and other sites'
``Referer``. The pages send ``Authorization: Bearer TOKEN``; a ``token`` in a
query string is refused (400 ``malformed``, field ``token``) so that a page that
still puts it there is found at once (docs/protocol.md, "HTTP errors").
"""

from __future__ import annotations

from starlette.requests import Request

from capicua.server.gateway.identity import Guest, Guests, token_ok
from capicua.server.http.errors import HttpError

SCHEME = "bearer"
LINK_KEYS = ("k",)  # the only parameter of a match's replay and analysis


def malformed(message: str, field: str) -> HttpError:
    """A request whose token is where it must not be, or not a token (or a bad link key)."""
    return HttpError(400, "malformed", message, field)


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer TOKEN``, or None without the header.

    Raises :class:`HttpError` for a token in the query string or a header that
    is not a bearer token of 1–200 characters."""
    if "token" in request.query_params:
        raise malformed("the token goes in the Authorization header, never in the address", "token")
    raw = request.headers.get("authorization")
    if raw is None:
        return None
    scheme, _, token = raw.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != SCHEME or not token_ok(token):
        raise malformed("Authorization is 'Bearer TOKEN', the token this browser was given", "authorization")
    return token


async def viewer(request: Request, guests: Guests) -> Guest | None:
    """The guest whose token the request carries (None without one, or for a token
    no guest has). Raises :class:`HttpError` as :func:`bearer_token` does."""
    token = bearer_token(request)
    if token is None:
        return None
    return await guests.find(token)


def link_key(request: Request) -> str | None:
    """The ``k`` of a private match's own link (None without one). Raises
    :class:`HttpError` for a token in the query, another parameter or ``k`` twice."""
    for name in request.query_params:
        if name == "token":
            raise malformed("the token goes in the Authorization header, never in the address", "token")
        if name not in LINK_KEYS:
            raise malformed(f"unknown parameter {name}", name)
    keys = request.query_params.getlist("k")
    if len(keys) > 1:
        raise malformed("k is given more than once", "k")
    return keys[0] if keys else None
