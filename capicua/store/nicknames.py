"""A nickname as the player search compares it (:func:`search_key`)."""

from __future__ import annotations

import unicodedata

KEY_MAX = 40  # players.search_key's width: a nickname's (capicua.server.gateway.identity.NICKNAME_MAX)


def search_key(text: str) -> str:
    """``text`` without case or accents, spaces folded: "  José  Ñico" → "jose nico".

    Stored beside each nickname (``players.search_key``, indexed), so a search by
    prefix is a range of one index on SQLite and PostgreSQL alike, with no
    extension (PostgreSQL's ``unaccent``) and no collation to configure."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())[:KEY_MAX]
