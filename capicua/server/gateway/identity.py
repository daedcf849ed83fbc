"""Guest identity: a player is a nickname and an unguessable token the browser keeps.

No account and no email. The server gives a new guest a token (192 random
bits) once; the store keeps only its SHA-256. The browser sends the token
with every hello and table request, so the same browser comes back as the
same player at every table. A player may hold several tokens, one per device
(browser): "Llévate tu jugador" gives another browser a token of the same player
(:mod:`capicua.server.http.devices`).

Lookups are cached (by the token's hash) for :data:`FRESH_S` seconds, so a
reconnecting client does not wait on the store, which is reached through the
:class:`~capicua.server.ports.GuestBook` port; reading it again once a minute
is what keeps a device's "last seen" (the store writes it at most once a
minute) and what ends, within a minute, a device signed out on another process
of a cluster (this process forgets at once: :meth:`Guests.forget`). While the
store cannot be read, a guest found before is still found; a call that needs
the store otherwise raises :class:`~capicua.server.ports.LogUnavailable`
(answered ``503 unavailable``).
"""

from __future__ import annotations

import hashlib
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from capicua.server.gateway.limits import BoundedCache
from capicua.server.ports import GuestBook, LogUnavailable

NICKNAME_MAX = 24
TOKEN_MAX = 200
FRESH_S = 60.0  # a cached guest is read from the store again after this long


@dataclass(frozen=True, slots=True)
class Guest:
    """A player as one of their devices (the token's) is."""

    player: str
    nickname: str
    device: str


def clean_nickname(raw: Any) -> str | None:
    """The nickname as shown (control characters dropped, spaces folded), or None if unusable."""
    if not isinstance(raw, str):
        return None
    text = "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C").strip()
    text = " ".join(text.split())
    if not text or len(text) > NICKNAME_MAX:
        return None
    return text


def token_ok(token: Any) -> bool:
    return isinstance(token, str) and 0 < len(token) <= TOKEN_MAX


def _cache_key(token: str) -> bytes:
    """The cache holds no token, only its digest."""
    return hashlib.sha256(token.encode()).digest()


class Guests:
    def __init__(self, book: GuestBook, cache_size: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.book = book
        self.clock = clock
        self._cache = BoundedCache(cache_size)  # token digest -> (Guest, when the store said so)

    async def find(self, token: str | None) -> Guest | None:
        """The guest whose token this is, or None."""
        if not token_ok(token):
            return None
        assert token is not None
        key = _cache_key(token)
        cached = self._cache.get(key)
        known: Guest | None = None if cached is None else cached[0]
        if known is not None and self.clock() - cached[1] < FRESH_S:
            return known
        try:
            found = await self.book.by_token(token)
        except LogUnavailable:
            if known is not None:  # the store is away: a guest it knew plays on
                return known
            raise
        if found is None:
            self._cache.items.pop(key, None)
            return None
        guest = Guest(*found)
        self._cache.put(key, (guest, self.clock()))
        return guest

    def forget(self, player: str) -> None:
        """Drop every cached token of ``player`` (a device signed out): the next find asks the store."""
        for key in [k for k, (guest, _) in self._cache.items.items() if guest.player == player]:
            del self._cache.items[key]

    async def sign_in(self, nickname: str, token: str | None, label: str = "") -> tuple[Guest, str]:
        """The guest of ``token`` (renamed to ``nickname``), else a new guest whose first
        device is ``label`` (its browser): ``(guest, token)``. A new guest's ``device`` is
        known to the store only (``""`` here): their next request finds it."""
        guest = await self.find(token)
        if guest is not None and token is not None:
            if guest.nickname != nickname:
                await self.book.rename(guest.player, nickname)
                guest = Guest(guest.player, nickname, guest.device)
                self._cache.put(_cache_key(token), (guest, self.clock()))
            return guest, token
        player, new_token = await self.book.create(nickname, label)
        return Guest(player, nickname, ""), new_token
