"""``Guests`` (capicua.server.gateway.identity): a token's guest is cached for a minute,
then read from the store again — so a device signed out on another process of a
cluster stops finding its guest within that minute — ``forget`` drops a player's
tokens at once, and a guest found before is still found while the store is away."""

from __future__ import annotations

import asyncio

import pytest

from capicua.server.gateway.identity import FRESH_S, Guest, Guests
from capicua.server.ports import LogUnavailable


class Book:
    """A GuestBook of tokens → (player, nickname, device), counting its reads."""

    def __init__(self) -> None:
        self.tokens = {"tok-a": ("p_a", "Ana", "d_1"), "tok-b": ("p_a", "Ana", "d_2")}
        self.reads = 0
        self.down = False

    async def by_token(self, token: str) -> tuple[str, str, str] | None:
        self.reads += 1
        if self.down:
            raise LogUnavailable("down")
        return self.tokens.get(token)

    async def create(self, nickname: str, label: str) -> tuple[str, str]:
        raise AssertionError("not here")

    async def rename(self, player: str, nickname: str) -> None:
        raise AssertionError("not here")


def test_a_cached_guest_is_read_again_after_a_minute_forgotten_at_once_and_kept_while_the_store_is_away() -> None:
    async def main() -> None:
        now = [0.0]
        book = Book()
        guests = Guests(book, clock=lambda: now[0])
        ana = Guest("p_a", "Ana", "d_1")
        assert await guests.find("tok-a") == ana and book.reads == 1
        del book.tokens["tok-a"]  # signed out by another process
        now[0] = FRESH_S - 1
        assert await guests.find("tok-a") == ana and book.reads == 1  # the cache answers within the minute
        now[0] = FRESH_S
        assert await guests.find("tok-a") is None and book.reads == 2
        assert await guests.find("tok-b") == Guest("p_a", "Ana", "d_2")
        del book.tokens["tok-b"]
        guests.forget("p_a")  # signed out here: at once
        assert await guests.find("tok-b") is None
        # The store away: a guest found before plays on; one never found is a 503.
        book.tokens["tok-b"] = ("p_a", "Ana", "d_2")
        assert await guests.find("tok-b") is not None
        book.down = True
        now[0] += 10 * FRESH_S
        assert await guests.find("tok-b") == Guest("p_a", "Ana", "d_2")
        with pytest.raises(LogUnavailable):
            await guests.find("tok-new")

    asyncio.run(main())
