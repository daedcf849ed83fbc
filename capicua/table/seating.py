"""Who sits where: a table's seats, as the table core keeps them and as clients see them.

A seat is empty, holds a guest player (``human``) or a neighbour (``bot``).
A human seat also names the neighbour who stands in for the player when they
are gone past the grace window (``character``/``level``), whether a socket
holds it (``online``) and who plays it now (``controller``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from capicua.table import neighbours

HUMAN = "human"
BOT = "bot"
EMPTY = "empty"
STAND_IN = "stand_in"
STAND_IN_LEVEL = "medio"


@dataclass(slots=True)
class Seat:
    seat: int
    kind: str = EMPTY  # human | bot | empty
    name: str = ""
    player: str | None = None  # a human's player id
    level: str | None = None  # a bot's level; for a human, the stand-in's
    character: str | None = None  # a bot's neighbour; for a human, the stand-in
    online: bool = False
    controller: str = HUMAN  # human | stand_in (humans only)
    offline_since: int | None = None  # ms, when the last socket of a human seat closed
    # A guest's level in the standings ({"number", "name", "name_en"}), shown beside
    # their name: told by the table shell from the store, never logged (None: not known yet).
    player_level: dict[str, Any] | None = None

    @property
    def is_bot(self) -> bool:
        return self.kind == BOT

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    @property
    def stood_in(self) -> bool:
        return self.kind == HUMAN and self.controller == STAND_IN

    def to_entry(self) -> dict[str, Any]:
        """The seat as a log entry stores it (no presence: that is logged apart)."""
        out: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "name": self.name}
        for key in ("player", "level", "character"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_entry(cls, data: dict[str, Any]) -> Seat:
        return cls(
            seat=int(data["seat"]),
            kind=str(data.get("kind", EMPTY)),
            name=str(data.get("name", "")),
            player=data.get("player"),
            level=data.get("level"),
            character=data.get("character"),
        )

    def public(self) -> dict[str, Any]:
        """What every client sees of the seat: never a token; a guest's player id, the address of
        their public profile (/player/{id}), which the page links their name to."""
        out: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "name": self.name}
        if self.kind == BOT:
            out["level"] = self.level
            out.update(_character_public(self.character))
        elif self.kind == HUMAN:
            out["player"] = self.player
            out["connected"] = self.online
            out["player_level"] = self.player_level
            out["stand_in"] = None
            if self.controller == STAND_IN:
                ch = neighbours.BY_ID.get(self.character or "")
                out["stand_in"] = {"name": ch.name if ch else "", "character": self.character, "level": self.level}
        return out


def _character_public(character: str | None) -> dict[str, Any]:
    ch = neighbours.BY_ID.get(character or "")
    if ch is None:
        return {"character": character}
    return {
        "character": ch.id,
        "tagline": {"es": ch.tagline_es, "en": ch.tagline_en},
        "avatar": dict(ch.avatar),
    }
