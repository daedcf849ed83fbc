"""Guest identity: a player is a nickname and an unguessable token the browser keeps.

No account and no email. The server gives a new guest a token (192 random
bits) once; the store keeps only its SHA-256. The browser sends the token
with every hello and table request, so the same browser comes back as the
same player at every table. Lookups are cached (by the token's hash) so a
reconnecting client does not wait on the store. While the store cannot be read
or written, a call that needs it raises
:class:`~capicua.server.ports.LogUnavailable` (answered ``503 unavailable``).
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from capicua.server.gateway.limits import BoundedCache
from capicua.server.ports import LogUnavailable
from capicua.store import Store, token_hash

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


class Guests:
    def __init__(self, store: Store, executor: Executor | None, cache_size: int = 4096) -> None:
        self.store = store
        self.executor = executor
        self._cache = BoundedCache(cache_size)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
        except SQLAlchemyError as exc:
            raise LogUnavailable(str(exc).splitlines()[0]) from None

    async def find(self, token: str | None) -> Guest | None:
        """The guest whose token this is, or None."""
        if not token_ok(token):
            return None
        assert token is not None
        key = token_hash(token)
        cached = self._cache.get(key)
        if isinstance(cached, Guest):
            return cached
        found = await self._call(self.store.player_by_token, token)
        if found is None:
            return None
        guest = Guest(found["id"], found["nickname"])
        self._cache.put(key, guest)
        return guest

    async def sign_in(self, nickname: str, token: str | None) -> tuple[Guest, str]:
        """The guest of ``token`` (renamed to ``nickname``), else a new guest: ``(guest, token)``."""
        guest = await self.find(token)
        if guest is not None and token is not None:
            if guest.nickname != nickname:
                await self._call(self.store.rename_player, guest.player, nickname)
                guest = Guest(guest.player, nickname)
                self._cache.put(token_hash(token), guest)
            return guest, token
        player, new_token = await self._call(self.store.create_player, nickname)
        guest = Guest(player, nickname)
        self._cache.put(token_hash(new_token), guest)
        return guest, new_token
