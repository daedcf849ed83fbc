"""The settings a player carries to every device of theirs: one JSON object per player,
as the HTTP API checked it (:mod:`capicua.server.http.settings`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from capicua.store import Store
from capicua.store.models import PlayerSettingsRow


def settings_of(store: Store, player_id: str) -> dict[str, Any]:
    """The player's stored settings (``{}`` when they never changed one)."""
    with store.sessions() as s:
        row = s.get(PlayerSettingsRow, player_id)
        return dict(row.settings) if row is not None else {}


def change_settings(store: Store, player_id: str, changes: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Merge ``changes`` into the player's settings; returns them all. One transaction
    reads and writes the row, so two devices changing different settings keep both."""
    with store.sessions.begin() as s:
        row = _locked(s, player_id)
        merged = {**(row.settings if row is not None else {}), **changes}
        if row is None:
            s.add(PlayerSettingsRow(player_id=player_id, settings=merged, updated_at=now))
        else:
            row.settings = merged
            row.updated_at = now
        return merged


def _locked(s: Session, player_id: str) -> PlayerSettingsRow | None:
    """The row, locked until the transaction ends (PostgreSQL; SQLite's writer is one at a time)."""
    return s.get(PlayerSettingsRow, player_id, with_for_update=True)
