"""A player's devices and the one-time keys that add one ("Llévate tu jugador").

A device is a browser token of a player: the store keeps the token's SHA-256, a
short label from the browser's user agent, and when it was made and last seen.
A key is a one-time code (:data:`KEY_BYTES` random bytes, URL-safe) that, used
within :data:`KEY_TTL` and only once, gives another browser a new device token of
the same player; the store keeps only the code's SHA-256. Used with ``only_here``,
it also signs out every other device of the player.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from capicua.store import Store, iso_utc, token_hash
from capicua.store.models import Player, PlayerDeviceRow, PlayerKeyRow

TOUCH_EVERY = timedelta(minutes=1)  # a device's last_seen_at moves at most this often
KEY_BYTES = 18  # 144 bits: not guessed, and 24 characters in a link
KEY_TTL = timedelta(minutes=10)
KEY_MAX = 200  # a key code's characters at most (anything longer is no key)
LABEL_MAX = 60
DEVICES_MAX = 50  # the devices one answer lists (the most recently seen)


def add_device(s: Session, player_id: str, label: str, now: datetime) -> tuple[str, str]:
    """A new device of ``player_id`` in session ``s``: ``(device_id, token)``."""
    token = secrets.token_urlsafe(24)
    device = "d_" + secrets.token_hex(8)
    s.add(PlayerDeviceRow(id=device, player_id=player_id, token_hash=token_hash(token), label=label[:LABEL_MAX],
                          created_at=now, last_seen_at=now))
    return device, token


def player_by_token(store: Store, token: str, now: datetime) -> dict[str, Any] | None:
    """``{"id", "nickname", "device"}`` of the player holding ``token``, or None; the
    device is seen now (written when it was last seen a minute ago or more)."""
    with store.sessions.begin() as s:
        found = s.execute(
            select(Player.id, Player.nickname, PlayerDeviceRow.id, PlayerDeviceRow.last_seen_at)
            .join(PlayerDeviceRow, PlayerDeviceRow.player_id == Player.id)
            .where(PlayerDeviceRow.token_hash == token_hash(token))
        ).first()
        if found is None:
            return None
        pid, nickname, device, seen = found
        if now - seen >= TOUCH_EVERY:
            s.execute(update(PlayerDeviceRow).where(PlayerDeviceRow.id == device).values(last_seen_at=now))
        return {"id": pid, "nickname": nickname, "device": device}


def devices_of(store: Store, player_id: str) -> list[dict[str, Any]]:
    """The devices of ``player_id``, most recently seen first (at most :data:`DEVICES_MAX`):
    ``{"id", "label", "created_at", "last_seen_at"}``."""
    with store.sessions() as s:
        rows = s.scalars(
            select(PlayerDeviceRow).where(PlayerDeviceRow.player_id == player_id)
            .order_by(PlayerDeviceRow.last_seen_at.desc(), PlayerDeviceRow.id).limit(DEVICES_MAX)
        ).all()
    return [{"id": r.id, "label": r.label, "created_at": iso_utc(r.created_at), "last_seen_at": iso_utc(r.last_seen_at)}
            for r in rows]


def sign_out(store: Store, player_id: str, device_id: str) -> bool:
    """Forget device ``device_id`` of ``player_id`` (its token no longer finds anyone);
    False when the player has no such device."""
    with store.sessions.begin() as s:
        gone = s.execute(
            delete(PlayerDeviceRow).where(PlayerDeviceRow.id == device_id, PlayerDeviceRow.player_id == player_id)
        )
        return bool(gone.rowcount)  # type: ignore[attr-defined]


# ------------------------------------------------------------------ keys


def make_key(store: Store, player_id: str, now: datetime) -> tuple[str, datetime]:
    """A new one-time key of ``player_id``: ``(code, expires_at)``. The player's keys
    that can no longer be used are dropped (a player holds few rows)."""
    code = secrets.token_urlsafe(KEY_BYTES)
    expires = now + KEY_TTL
    with store.sessions.begin() as s:
        s.execute(delete(PlayerKeyRow).where(PlayerKeyRow.player_id == player_id, PlayerKeyRow.expires_at <= now))
        s.add(PlayerKeyRow(code_hash=token_hash(code), player_id=player_id, created_at=now, expires_at=expires))
    return code, expires


class KeyRefused(Exception):
    """A key that gives no device: ``reason`` is ``unknown``, ``expired`` or ``used``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Carried:
    """What using a key gave: the player, their nickname, the new device and its token,
    and how many other devices were signed out."""

    player: str
    nickname: str
    device: str
    token: str
    signed_out: int


def use_key(store: Store, code: str, label: str, only_here: bool, now: datetime) -> Carried:
    """Use key ``code``: a new device of its player (``label``), and with ``only_here``
    every other device of theirs signed out. Raises :class:`KeyRefused`. Once: of two
    browsers using one key at once, one gets the device (the row's update is the lock)."""
    digest = token_hash(code)
    with store.sessions.begin() as s:
        taken = s.execute(
            update(PlayerKeyRow)
            .where(PlayerKeyRow.code_hash == digest, PlayerKeyRow.used_at.is_(None), PlayerKeyRow.expires_at > now)
            .values(used_at=now)
        )
        if not taken.rowcount:  # type: ignore[attr-defined]
            key = s.get(PlayerKeyRow, digest)
            raise KeyRefused("unknown" if key is None else "used" if key.used_at is not None else "expired")
        key = s.get(PlayerKeyRow, digest)
        assert key is not None
        player = s.get(Player, key.player_id)
        assert player is not None
        signed_out = 0
        if only_here:
            signed_out = s.execute(delete(PlayerDeviceRow).where(PlayerDeviceRow.player_id == player.id)).rowcount  # type: ignore[attr-defined]
        device, token = add_device(s, player.id, label, now)
        return Carried(player.id, player.nickname, device, token, signed_out)
