"""``/api/devices``, ``/api/keys`` and ``/api/settings`` over HTTP: a key carries a player
to another browser, and every refusal is coded (docs/protocol.md, "Devices and keys",
"Settings"): a wrong, replayed or expired key, a flood of keys, a device signed out."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from capicua.server.gateway.limits import HttpLimits, LocalBudgets
from capicua.store import token_hash
from capicua.store.models import PlayerKeyRow

PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
LAPTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def ask(server: Any, method: str, path: str, token: str | None = None, body: Any = None, ua: str = PHONE) -> httpx.Response:
    headers = {"User-Agent": ua}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.request(method, server.base + path, json=body, headers=headers, timeout=10)


def code_of(r: httpx.Response) -> tuple[int, str, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error.get("field")


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server()


def test_a_key_carries_the_player_to_another_browser(server: Any) -> None:
    made = ask(server, "POST", "/api/players", body={"nickname": "Ana"})
    ana, phone_token = made.json()["player"], made.json()["token"]
    key = ask(server, "POST", "/api/keys", phone_token)
    assert key.status_code == 200 and key.headers["cache-control"] == "no-store"
    code = key.json()["code"]
    assert key.json()["url"] == f"/llevar#{code}" and len(code) >= 22
    used = ask(server, "POST", "/api/keys/use", body={"code": code}, ua=LAPTOP)
    assert used.status_code == 200, used.text
    laptop_token = used.json()["token"]
    assert used.json()["player"] == ana and used.json()["nickname"] == "Ana" and laptop_token != phone_token
    # The same player on both: the leaderboard's "me" and the profile say so.
    for token in (phone_token, laptop_token):
        me = ask(server, "GET", "/api/leaderboard", token).json()["me"]
        assert me["player"] == ana
    listed = ask(server, "GET", "/api/devices", laptop_token).json()["devices"]
    assert [(d["label"], d["this"]) for d in listed] == [("Firefox · Linux", True), ("Chrome · Android", False)]
    assert set(listed[0]) == {"id", "label", "created_at", "last_seen_at", "this"}

    # Replayed, wrong, malformed, expired.
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": code})) == (410, "key_used", "code")
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": "A" * 24})) == (404, "unknown_key", "code")
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": "no spaces"})) == (400, "malformed", "code")
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": code, "only_here": "yes"})) == (
        400, "malformed", "only_here")
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": code, "more": 1})) == (400, "malformed", None)
    stale = ask(server, "POST", "/api/keys", phone_token).json()["code"]
    store = server.app.state.deps.store
    with store.sessions.begin() as s:
        s.execute(update(PlayerKeyRow).where(PlayerKeyRow.code_hash == token_hash(stale))
                  .values(expires_at=datetime(2026, 1, 1)))  # long past
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": stale})) == (410, "key_expired", "code")
    # A key asks who: no token, or one nobody has.
    assert code_of(ask(server, "POST", "/api/keys")) == (401, "unknown_token", "authorization")
    assert code_of(ask(server, "GET", "/api/devices", "nobody-has-this")) == (401, "unknown_token", "authorization")

    # Signing the laptop out from the phone: its token is nobody's at once.
    laptop = listed[0]["id"]
    assert ask(server, "DELETE", f"/api/devices/{laptop}", phone_token).json() == {"signed_out": laptop, "this": False}
    assert code_of(ask(server, "GET", "/api/devices", laptop_token)) == (401, "unknown_token", "authorization")
    assert code_of(ask(server, "GET", "/api/leaderboard", laptop_token)) == (401, "unknown_token", "authorization")
    assert code_of(ask(server, "DELETE", f"/api/devices/{laptop}", phone_token)) == (404, "unknown_device", "device_id")
    assert code_of(ask(server, "DELETE", "/api/devices/x", phone_token)) == (400, "malformed", "device_id")

    # "Solo en este teléfono": the new browser is the only one left.
    code = ask(server, "POST", "/api/keys", phone_token).json()["code"]
    only = ask(server, "POST", "/api/keys/use", body={"code": code, "only_here": True}, ua=LAPTOP).json()
    assert only["player"] == ana and only["signed_out"] == 1
    assert code_of(ask(server, "GET", "/api/devices", phone_token)) == (401, "unknown_token", "authorization")
    assert [d["this"] for d in ask(server, "GET", "/api/devices", only["token"]).json()["devices"]] == [True]


def test_keys_are_rate_limited_and_settings_checked(server: Any) -> None:
    deps = server.app.state.deps
    deps.limits = HttpLimits(keys_per_guest=(2, 600.0), keys_per_address=(4, 600.0))
    deps.budgets = LocalBudgets(deps.limits)
    ana = ask(server, "POST", "/api/players", body={"nickname": "Ana"}).json()["token"]
    beto = ask(server, "POST", "/api/players", body={"nickname": "Beto"}).json()["token"]
    assert [ask(server, "POST", "/api/keys", ana).status_code for _ in range(2)] == [200, 200]
    refused = ask(server, "POST", "/api/keys", ana)
    assert code_of(refused) == (429, "too_fast", None) and int(refused.headers["retry-after"]) > 0
    assert "per player" in refused.json()["error"]["message"]
    # Every try at using a key counts against the address, a wrong one too.
    assert ask(server, "POST", "/api/keys", beto).status_code == 200
    assert code_of(ask(server, "POST", "/api/keys/use", body={"code": "B" * 24})) == (404, "unknown_key", "code")
    flood = ask(server, "POST", "/api/keys/use", body={"code": "C" * 24})
    assert code_of(flood) == (429, "too_fast", None) and "one address" in flood.json()["error"]["message"]

    defaults = {"volume": 80, "slam": 100, "animation": "normal", "subtitles": True, "lang": None}
    assert ask(server, "GET", "/api/settings", ana).json() == {"settings": defaults, "chosen": []}
    changed = ask(server, "PUT", "/api/settings", ana, {"volume": 35, "animation": "rapida", "lang": "en"})
    assert changed.json() == {"settings": {**defaults, "volume": 35, "animation": "rapida", "lang": "en"},
                              "chosen": ["volume", "animation", "lang"]}
    for bad, field in (({"volume": 101}, "volume"), ({"volume": 2.5}, "volume"), ({"slam": True}, "slam"),
                       ({"animation": "lenta"}, "animation"), ({"subtitles": "on"}, "subtitles"),
                       ({"lang": "fr"}, "lang"), ({"theme": "dark"}, "theme"),
                       ({"volume": 10, "animation": 3}, "animation")):
        assert code_of(ask(server, "PUT", "/api/settings", ana, bad)) == (400, "malformed", field), bad
    assert code_of(ask(server, "PUT", "/api/settings", ana, [])) == (400, "malformed", None)
    assert code_of(ask(server, "PUT", "/api/settings", None, {"volume": 1})) == (401, "unknown_token", "authorization")
    # Nothing changed by a refused change; another player's settings are their own.
    assert ask(server, "GET", "/api/settings", ana).json()["settings"]["volume"] == 35
    assert ask(server, "GET", "/api/settings", beto).json() == {"settings": defaults, "chosen": []}
