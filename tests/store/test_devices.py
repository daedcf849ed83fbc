"""A player's devices, the one-time keys that add one, who was seen lately and the
settings, on the real store (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from capicua.store import Store, devices, presence
from capicua.store.models import PlayerDeviceRow, PlayerKeyRow
from capicua.store.settings import change_settings, settings_of

pytestmark = pytest.mark.xdist_group("store")

# A day ahead: after the players made now were last seen.
T0 = datetime.now(UTC).replace(tzinfo=None, microsecond=0) + timedelta(days=1)


def seen_at(store: Store, token_device: str) -> datetime:
    with store.sessions() as s:
        return s.scalars(select(PlayerDeviceRow.last_seen_at).where(PlayerDeviceRow.id == token_device)).one()


def test_devices_keys_and_presence(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    ana, ana_token = store.create_player("Ana", "Chrome · Android")
    beto, beto_token = store.create_player("Beto")
    found = devices.player_by_token(store, ana_token, T0)
    assert found is not None and found["id"] == ana
    phone = found["device"]
    # Seen: written when a minute has passed since it was last, not on every find.
    devices.player_by_token(store, ana_token, T0 + timedelta(minutes=5))
    assert seen_at(store, phone) == T0 + timedelta(minutes=5)
    devices.player_by_token(store, ana_token, T0 + timedelta(minutes=5, seconds=59))
    assert seen_at(store, phone) == T0 + timedelta(minutes=5)
    devices.player_by_token(store, ana_token, T0 + timedelta(minutes=6))
    assert seen_at(store, phone) == T0 + timedelta(minutes=6)

    # A key: only its hash is kept; used once, within ten minutes, it makes a device of Ana.
    code, expires = devices.make_key(store, ana, T0 + timedelta(minutes=6))
    assert len(code) >= 22 and expires == T0 + timedelta(minutes=16)  # ≥ 128 bits, URL-safe
    with store.sessions() as s:
        assert [k.code_hash for k in s.scalars(select(PlayerKeyRow))] == [devices.token_hash(code)]
    carried = devices.use_key(store, code, "Firefox · Linux", False, T0 + timedelta(minutes=15))
    assert (carried.player, carried.nickname, carried.signed_out) == (ana, "Ana", 0)
    laptop = devices.player_by_token(store, carried.token, T0 + timedelta(minutes=15))
    assert laptop is not None and laptop["id"] == ana and laptop["device"] == carried.device
    for later, reason in ((T0 + timedelta(minutes=15), "used"), (T0 + timedelta(hours=1), "used")):
        with pytest.raises(devices.KeyRefused) as refused:
            devices.use_key(store, code, "x", False, later)
        assert refused.value.reason == reason
    with pytest.raises(devices.KeyRefused) as refused:
        devices.use_key(store, "not-a-key-at-all-000000", "x", False, T0)
    assert refused.value.reason == "unknown"
    stale, _ = devices.make_key(store, ana, T0)
    with pytest.raises(devices.KeyRefused) as refused:
        devices.use_key(store, stale, "x", False, T0 + timedelta(minutes=10))
    assert refused.value.reason == "expired"
    listed = devices.devices_of(store, ana)
    assert [d["label"] for d in listed] == ["Firefox · Linux", "Chrome · Android"]  # most recently seen first

    # Presence: who was seen since T, newest first, with their level; and which of some were.
    devices.player_by_token(store, beto_token, T0 + timedelta(minutes=20))
    around = presence.players_seen_since(store, T0 + timedelta(minutes=10), 10)
    assert [(p["player"], p["nickname"]) for p in around] == [(beto, "Beto"), (ana, "Ana")]
    assert around[0]["level"]["number"] == 0 and around[0]["seen_at"] == (T0 + timedelta(minutes=20)).replace(tzinfo=UTC).isoformat()
    assert [p["player"] for p in presence.players_seen_since(store, T0 + timedelta(minutes=10), 1)] == [beto]
    assert presence.players_seen_since(store, T0 + timedelta(minutes=30), 10) == []
    assert presence.seen_players(store, [ana, beto, "p_nobody"], T0 + timedelta(minutes=16)) == {beto}
    assert presence.seen_players(store, [], T0) == set()

    # Signing a device out: its token finds nobody; another player's device is not theirs to sign out.
    assert not devices.sign_out(store, beto, carried.device)
    assert devices.sign_out(store, ana, carried.device)
    assert devices.player_by_token(store, carried.token, T0) is None
    # "Solo en este teléfono": the key's new device is the player's only one.
    code, _ = devices.make_key(store, ana, T0 + timedelta(minutes=30))
    only = devices.use_key(store, code, "Safari · iPhone", True, T0 + timedelta(minutes=31))
    assert only.signed_out == 1
    assert devices.player_by_token(store, ana_token, T0) is None
    assert [d["id"] for d in devices.devices_of(store, ana)] == [only.device]
    store.close()


def test_a_key_used_twice_at_once_gives_one_device(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    ana, _ = store.create_player("Ana")
    code, _ = devices.make_key(store, ana, T0)
    got: list[str] = []
    barrier = threading.Barrier(2)

    def use() -> None:
        barrier.wait()
        try:
            got.append(devices.use_key(store, code, "x", False, T0 + timedelta(minutes=1)).token)
        except devices.KeyRefused as exc:
            got.append(exc.reason)
        except Exception as exc:  # SQLite's single writer may refuse the second outright
            got.append(type(exc).__name__)

    threads = [threading.Thread(target=use) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len([g for g in got if g not in ("used", "OperationalError")]) == 1, got
    assert len(devices.devices_of(store, ana)) == 2
    store.close()


def test_settings_merge_per_player(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    ana, _ = store.create_player("Ana")
    beto, _ = store.create_player("Beto")
    assert settings_of(store, ana) == {}
    assert change_settings(store, ana, {"volume": 30}, T0) == {"volume": 30}
    assert change_settings(store, ana, {"animation": "rapida", "lang": "en"}, T0) == {
        "volume": 30, "animation": "rapida", "lang": "en"}
    assert settings_of(store, ana) == {"volume": 30, "animation": "rapida", "lang": "en"}
    assert settings_of(store, beto) == {}
    store.close()
