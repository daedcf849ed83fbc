"""Gente over HTTP (docs/protocol.md, "Gente"): the people a guest played with, the
search by nickname, invitations (rules, rate limit, mute, expiry, a coded error for
every bad request and nothing changed by it) and the poll's 304."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from standings_helpers import Table, find, seats

from capicua.server.app import create_app
from capicua.server.gateway.limits import SEARCHES_PER_GUEST
from capicua.store import Store, invitations
from capicua.store.models import InvitationRow

with warnings.catch_warnings():  # Starlette would rather have httpx2, which is not a dependency
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def lobby(store: Store, table_id: str, humans: dict[int, str], free: bool = True) -> None:
    """A private table in its lobby: ``humans`` seated, the other seats empty (or neighbours)."""
    entries = [
        {"seat": s, "kind": "human", "name": f"G{s}", "player": humans[s], "level": "medio", "character": "fefa"}
        if s in humans else {"seat": s, "kind": "empty", "name": ""} if free
        else {"seat": s, "kind": "bot", "name": "Fefa", "level": "medio", "character": "fefa"}
        for s in range(4)
    ]
    Table(store, table_id, entries, private=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Ana and Beto played a match together; Ana waits in a lobby with free seats and in a
    full one; Caro is a stranger to both; Dani plays with nobody."""
    db: Path = tmp_path_factory.mktemp("gente") / "db.sqlite3"
    pool = ThreadPoolExecutor(max_workers=1)
    app = create_app(database_url=f"sqlite:///{db}", executor=pool, bot_delay=(0.0, 0.0))
    with TestClient(app) as client:
        store = app.state.deps.store
        made = {name: store.create_player(name) for name in ("Ana", "Beto", "Caro", "Dani")}
        ids = {n: p for n, (p, _) in made.items()}
        played = Table(store, "t_played", seats({0: ids["Ana"], 2: ids["Beto"]}))
        assert played.finish(find(lambda r: True)) == [None]
        lobby(store, "t_lobby", {0: ids["Ana"]})
        lobby(store, "t_full", {0: ids["Ana"]}, free=False)
        yield {"client": client, "store": store, "ids": ids, "h": {n: bearer(t) for n, (_, t) in made.items()}}
    pool.shutdown(wait=True)


def rows(store: Store) -> int:
    with store.sessions() as s:
        return int(s.scalar(select(func.count()).select_from(InvitationRow)) or 0)


def error_of(r: Any, status: int, code: str, field: str | None = None) -> None:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error.get("field") == field, error
    assert r.headers["cache-control"] == "no-store"


def test_gente_lists_the_people_played_with_and_whether_they_are_around(site: dict[str, Any]) -> None:
    c, ids, h = site["client"], site["ids"], site["h"]
    r = c.get("/api/gente", headers=h["Ana"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["next"] is None and body["around_s"] == 300
    # Where Ana may invite, and who sits there already.
    assert {"table": "t_lobby", "preset": "cubano", "free_seats": 3, "seated": [ids["Ana"]]} in body["tables"]
    assert all(t["table"] != "t_full" for t in body["tables"])
    (beto,) = body["people"]
    assert beto["player"] == ids["Beto"] and beto["nickname"] == "Beto" and beto["matches"] == 1
    assert beto["around"] is True and beto["muted"] is False  # signed in a moment ago
    assert set(beto["level"]) == {"number", "name", "name_en"}
    assert r.headers["vary"] == "Authorization"
    # A page after a cursor: what comes after Beto (nobody), what comes after a moment later than him (Beto).
    at = datetime.fromisoformat(beto["last_at"])
    micros = (at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    assert c.get(f"/api/gente?after={micros}.{beto['player']}", headers=h["Ana"]).json()["people"] == []
    later = c.get(f"/api/gente?after={micros + 1}.{beto['player']}", headers=h["Ana"]).json()
    assert [p["player"] for p in later["people"]] == [ids["Beto"]]
    assert [p["nickname"] for p in c.get("/api/gente", headers=h["Beto"]).json()["people"]] == ["Ana"]
    assert c.get("/api/gente", headers=h["Dani"]).json() == {"people": [], "next": None, "around_s": 300, "tables": []}
    error_of(c.get("/api/gente"), 401, "unauthorized", "authorization")
    error_of(c.get("/api/gente", headers=bearer("nobody-has-this")), 401, "unknown_token", "authorization")
    error_of(c.get("/api/gente?after=yesterday", headers=h["Ana"]), 400, "malformed", "after")
    error_of(c.get("/api/gente?page=2", headers=h["Ana"]), 400, "malformed", "page")
    error_of(c.get("/api/gente?token=abc"), 400, "malformed", "token")


def test_the_search_by_nickname_is_bounded_and_rate_limited(site: dict[str, Any]) -> None:
    c, ids, h = site["client"], site["ids"], site["h"]
    r = c.get("/api/players?q=BET", headers=h["Dani"])
    assert r.status_code == 200, r.text
    assert r.json() == {"players": [{"player": ids["Beto"], "nickname": "Beto",
                                     "level": r.json()["players"][0]["level"]}]}
    for bad in ("q=b", "q=%20%20", "", "q=" + "a" * 41, "q=ab&q=cd", "q=ab&limit=5"):
        r = c.get(f"/api/players?{bad}", headers=h["Dani"])
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", (bad, r.text)
    error_of(c.get("/api/players?q=be"), 401, "unauthorized", "authorization")
    count, _ = SEARCHES_PER_GUEST
    for _ in range(count - 1):  # the first search above counted too
        assert c.get("/api/players?q=an", headers=h["Dani"]).status_code == 200
    r = c.get("/api/players?q=an", headers=h["Dani"])
    error_of(r, 429, "too_fast")
    assert int(r.headers["retry-after"]) >= 1
    assert c.get("/api/players?q=an", headers=h["Caro"]).status_code == 200  # per guest


def test_an_invitation_is_refused_with_a_code_for_every_broken_rule(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    before = rows(store)
    cases = [
        (h["Ana"], b"not json", 400, "malformed", None),
        (h["Ana"], {"player": ids["Beto"]}, 400, "malformed", None),
        (h["Ana"], {"player": ids["Beto"], "table": "t_lobby", "seat": 1}, 400, "malformed", None),
        (h["Ana"], {"player": "p/../x", "table": "t_lobby"}, 400, "malformed", "player"),
        (h["Ana"], {"player": ids["Beto"], "table": 7}, 400, "malformed", "table"),
        (h["Ana"], {"player": ids["Ana"], "table": "t_lobby"}, 400, "malformed", "player"),
        (h["Ana"], {"player": "p_nobody", "table": "t_lobby"}, 404, "unknown_player", "player"),
        (h["Ana"], {"player": ids["Beto"], "table": "t_nowhere"}, 404, "unknown_table", "table"),
        (h["Beto"], {"player": ids["Ana"], "table": "t_lobby"}, 403, "not_seated", "table"),
        (h["Ana"], {"player": ids["Beto"], "table": "t_full"}, 409, "table_full", "table"),
        (h["Ana"], {"player": ids["Beto"], "table": "t_played"}, 409, "started", "table"),
        (h["Ana"], {"player": ids["Caro"], "table": "t_lobby"}, 403, "not_acquainted", "player"),
        (None, {"player": ids["Beto"], "table": "t_lobby"}, 401, "unauthorized", "authorization"),
    ]
    for headers, body, status, code, field in cases:
        if isinstance(body, bytes):
            r = c.post("/api/invitations", content=body, headers={**(headers or {}), "Content-Type": "application/json"})
        else:
            r = c.post("/api/invitations", json=body, headers=headers or {})
        error_of(r, status, code, field)
    assert rows(store) == before  # nothing changed


def test_an_invitation_reaches_the_invitee_and_is_accepted(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    lobby(store, "t_invite", {0: ids["Ana"]})
    r = c.post("/api/invitations", json={"player": ids["Beto"], "table": "t_invite"}, headers=h["Ana"])
    assert r.status_code == 201, r.text
    sent = r.json()
    assert set(sent) == {"id", "table", "to", "expires_at"} and sent["table"] == "t_invite"
    error_of(c.post("/api/invitations", json={"player": ids["Beto"], "table": "t_invite"}, headers=h["Ana"]),
             409, "already_invited", "player")
    polled = c.get("/api/invitations", headers=h["Beto"])
    assert polled.status_code == 200, polled.text
    (shown,) = [i for i in polled.json()["invitations"] if i["table"] == "t_invite"]
    assert shown["id"] == sent["id"] and shown["from"] == {"player": ids["Ana"], "nickname": "Ana"}
    assert shown["free_seats"] == 3 and polled.json()["poll_s"] == 20
    etag = polled.headers["etag"]
    again = c.get("/api/invitations", headers={**h["Beto"], "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    error_of(c.post(f"/api/invitations/{sent['id']}/accept", headers=h["Caro"]), 404, "unknown_invitation",
             "invitation")
    error_of(c.post("/api/invitations/not-an-id/accept", headers=h["Beto"]), 400, "malformed", "invitation")
    r = c.post(f"/api/invitations/{sent['id']}/accept", headers=h["Beto"])
    assert r.status_code == 200, r.text
    assert r.json() == {"table": "t_invite", "seat": 1, "url": "/t/t_invite?sentarme=1"}
    after = c.get("/api/invitations", headers={**h["Beto"], "If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag  # the list changed
    assert [i for i in after.json()["invitations"] if i["table"] == "t_invite"] == []


def test_an_expired_invitation_is_not_shown_and_cannot_be_accepted(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    lobby(store, "t_expiring", {0: ids["Ana"]})
    sent = c.post("/api/invitations", json={"player": ids["Beto"], "table": "t_expiring"}, headers=h["Ana"]).json()
    with store.sessions.begin() as s:
        s.execute(update(InvitationRow).where(InvitationRow.id == sent["id"])
                  .values(expires_at=datetime(2020, 1, 1)))
    assert all(i["id"] != sent["id"] for i in c.get("/api/invitations", headers=h["Beto"]).json()["invitations"])
    error_of(c.post(f"/api/invitations/{sent['id']}/accept", headers=h["Beto"]), 410, "expired", "invitation")


def test_ahora_no_dismisses_an_invitation_and_it_is_not_sent_again_at_once(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    lobby(store, "t_dismissed", {0: ids["Ana"]})
    body = {"player": ids["Beto"], "table": "t_dismissed"}
    sent = c.post("/api/invitations", json=body, headers=h["Ana"]).json()
    r = c.post(f"/api/invitations/{sent['id']}/dismiss", headers=h["Beto"])
    assert r.status_code == 200 and r.json() == {"table": "t_dismissed"}
    assert all(i["id"] != sent["id"] for i in c.get("/api/invitations", headers=h["Beto"]).json()["invitations"])
    error_of(c.post(f"/api/invitations/{sent['id']}/accept", headers=h["Beto"]), 404, "unknown_invitation",
             "invitation")
    error_of(c.post("/api/invitations", json=body, headers=h["Ana"]), 409, "already_invited", "player")


def test_a_muted_sender_sees_their_invitation_sent_and_the_invitee_never_sees_it(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    lobby(store, "t_muted", {0: ids["Ana"]})
    r = c.put(f"/api/mutes/{ids['Ana']}", headers=h["Beto"])
    assert r.status_code == 200 and r.json() == {"player": ids["Ana"], "muted": True}
    assert [m["nickname"] for m in c.get("/api/mutes", headers=h["Beto"]).json()["mutes"]] == ["Ana"]
    assert c.get("/api/gente", headers=h["Beto"]).json()["people"][0]["muted"] is True
    error_of(c.put(f"/api/mutes/{ids['Beto']}", headers=h["Beto"]), 400, "malformed", "player")
    error_of(c.put("/api/mutes/p_nobody", headers=h["Beto"]), 404, "unknown_player", "player")
    r = c.post("/api/invitations", json={"player": ids["Beto"], "table": "t_muted"}, headers=h["Ana"])
    assert r.status_code == 201 and set(r.json()) == {"id", "table", "to", "expires_at"}
    assert all(i["table"] != "t_muted" for i in c.get("/api/invitations", headers=h["Beto"]).json()["invitations"])
    r = c.delete(f"/api/mutes/{ids['Ana']}", headers=h["Beto"])
    assert r.status_code == 200 and r.json()["muted"] is False
    assert c.get("/api/mutes", headers=h["Beto"]).json()["mutes"] == []


def test_a_sender_over_the_budget_is_told_when_to_try_again(site: dict[str, Any]) -> None:
    c, ids, h, store = site["client"], site["ids"], site["h"], site["store"]
    count, _ = invitations.PER_SENDER
    with store.sessions() as s:  # what the tests before sent in the window counts too
        sent = int(s.scalar(select(func.count()).select_from(InvitationRow)
                            .where(InvitationRow.sender_id == ids["Ana"],
                                   InvitationRow.created_at > datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=1))) or 0)
    for i in range(count - sent):
        lobby(store, f"t_budget{i}", {0: ids["Ana"]})
        r = c.post("/api/invitations", json={"player": ids["Beto"], "table": f"t_budget{i}"}, headers=h["Ana"])
        assert r.status_code == 201, r.text
    lobby(store, "t_budget_over", {0: ids["Ana"]})
    before = rows(store)
    r = c.post("/api/invitations", json={"player": ids["Beto"], "table": "t_budget_over"}, headers=h["Ana"])
    error_of(r, 429, "too_fast")
    assert 1 <= int(r.headers["retry-after"]) <= 600
    assert rows(store) == before
