"""Guest identity: a player is a nickname and an unguessable token the browser keeps.

No account and no email. The server gives a new guest a token (192 random
bits) once; the store keeps only its SHA-256. The browser sends the token
with every hello and table request, so the same browser comes back as the
same player at every table. Lookups are cached (by the token's hash) so a
reconnecting client does not wait on the store, which is reached through the
:class:`~capicua.server.ports.GuestBook` port. While the store cannot be read
or written, a call that needs it raises
:class:`~capicua.server.ports.LogUnavailable` (answered ``503 unavailable``).
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Any

from capicua.server.gateway.limits import BoundedCache
from capicua.server.ports import GuestBook

NICKNAME_MAX = 24
TOKEN_MAX = 200


@dataclass(frozen=True, slots=True)
class Guest:
    player: str
    nickname: str


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
    def __init__(self, book: GuestBook, cache_size: int = 4096) -> None:
        self.book = book
        self._cache = BoundedCache(cache_size)

    async def find(self, token: str | None) -> Guest | None:
        """The guest whose token this is, or None."""
        if not token_ok(token):
            return None
        assert token is not None
        key = _cache_key(token)
        cached = self._cache.get(key)
        if isinstance(cached, Guest):
            return cached
        found = await self.book.by_token(token)
        if found is None:
            return None
        guest = Guest(*found)
        self._cache.put(key, guest)
        return guest

    async def sign_in(self, nickname: str, token: str | None) -> tuple[Guest, str]:
        """The guest of ``token`` (renamed to ``nickname``), else a new guest: ``(guest, token)``."""
        guest = await self.find(token)
        if guest is not None and token is not None:
            if guest.nickname != nickname:
                await self.book.rename(guest.player, nickname)
                guest = Guest(guest.player, nickname)
                self._cache.put(_cache_key(token), guest)
            return guest, token
        player, new_token = await self.book.create(nickname)
        guest = Guest(player, nickname)
        self._cache.put(_cache_key(new_token), guest)
        return guest, new_token
