"""The parque's HTTP API (issue 24, items 1 and 5): the queue refuses bad input and
floods with coded errors and changes nothing, says nothing of who waits beyond
nickname and level, the listing answers 304 to its ETag, a host makes a private
table public, and four strangers who press "Jugar con gente" land at one table."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from capicua.server.app import create_app
from capicua.server.gateway.limits import QUEUE_PER_GUEST
from capicua.server.http import parque

with warnings.catch_warnings():  # Starlette would rather have httpx2, which is not a dependency
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

GUARD_S = 20.0  # a guard against hangs, not a timed assertion


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db: Path = tmp_path_factory.mktemp("parque") / "db.sqlite3"
    pool = ThreadPoolExecutor(max_workers=1)
    app = create_app(database_url=f"sqlite:///{db}", executor=pool, bot_delay=(0.0, 0.0))
    with TestClient(app) as c:
        app.state.deps.analyst.backlog = 0
        yield c
    pool.shutdown(wait=True)


@pytest.fixture(autouse=True)
def fresh_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parque, "LISTING_TTL_S", 0.0)  # every GET /api/parque reads the store


def join(client: TestClient, nickname: str, **body: Any) -> Any:
    return client.post("/api/parque/queue", json={"nickname": nickname, **body})


def queued(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/parque")
    assert r.status_code == 200, r.text
    return dict(r.json()["queue"])


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ([1, 2], 400, "malformed", None),
        ({"nickname": "Ana", "wait": 30, "seat": 2}, 400, "malformed", "seat"),
        ({"wait": 30}, 400, "malformed", "nickname"),
        ({"nickname": "Ana", "preset": "parchis", "wait": 30}, 400, "bad_rules", "preset"),
        ({"nickname": "Ana", "wait": 45}, 400, "malformed", "wait"),
        ({"nickname": "Ana", "wait": "30"}, 400, "malformed", "wait"),
        ({"nickname": "Ana", "wait": True}, 400, "malformed", "wait"),
        ({"nickname": "Ana", "wait": 30, "token": 7}, 400, "malformed", "token"),
    ],
)
def test_a_bad_queue_request_is_refused_with_its_code_and_changes_nothing(
    client: TestClient, body: Any, status: int, code: str, field: str | None
) -> None:
    before = queued(client)
    r = client.post("/api/parque/queue", json=body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error.get("field") == field
    assert queued(client) == before


def test_one_turn_per_player_polling_leaving_and_who_asks(client: TestClient) -> None:
    r = join(client, "Lola", preset="cubano", wait=None)
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    assert {k: v for k, v in r.json().items() if k != "token"} == {
        "state": "waiting", "preset": "cubano", "wait": None, "waited_s": 0, "waiting": 1}
    again = join(client, "Lola", token=token, wait=30)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_queued"
    assert client.get("/api/parque/queue", headers=bearer(token)).json()["state"] == "waiting"
    # The listing says nickname, level and game of who waits: no id, no token.
    assert queued(client) == {"counts": {"cubano": 1}, "players": [{"nickname": "Lola", "level": 0, "preset": "cubano"}]}
    assert client.get("/api/parque/queue").json()["error"]["code"] == "unknown_token"
    assert client.get("/api/parque/queue", headers=bearer("nobody-has-this")).status_code == 401
    assert client.get(f"/api/parque/queue?token={token}").json()["error"]["field"] == "token"
    assert client.delete("/api/parque/queue", headers=bearer(token)).json() == {"state": "left"}
    gone = client.delete("/api/parque/queue", headers=bearer(token))
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_queued"
    assert client.get("/api/parque/queue", headers=bearer(token)).status_code == 404
    assert queued(client) == {"counts": {}, "players": []}


def test_a_flood_of_turns_is_refused_with_429_and_changes_nothing(client: TestClient) -> None:
    token = join(client, "Pepe", wait=None).json()["token"]
    allowed, _ = QUEUE_PER_GUEST
    turns = 1
    while turns < allowed:
        assert client.delete("/api/parque/queue", headers=bearer(token)).status_code == 200
        turns += 1
        if turns < allowed:
            assert join(client, "Pepe", token=token, wait=None).status_code == 200
            turns += 1
    refused = join(client, "Pepe", token=token, wait=None)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_fast"
    assert int(refused.headers["Retry-After"]) >= 1
    assert client.get("/api/parque/queue", headers=bearer(token)).status_code == 404  # still out
    assert queued(client)["counts"] == {}


def test_the_listing_answers_304_to_its_etag(client: TestClient) -> None:
    first = client.get("/api/parque")
    assert first.status_code == 200 and set(first.json()) == {"around", "waiting", "playing", "queue"}
    etag = first.headers["ETag"]
    again = client.get("/api/parque", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/parque?x=1").json()["error"] == {
        "code": "malformed", "message": "unknown parameter x", "field": "x"}


def test_a_host_makes_a_private_table_public_and_only_the_host(client: TestClient) -> None:
    made = client.post("/api/tables", json={"nickname": "Yuli", "private": True}).json()
    tid, host = made["table_id"], made["token"]
    other = client.post("/api/players", json={"nickname": "Cheo"}).json()["token"]
    assert client.get(f"/api/tables/{tid}/public").json() == {"public": False}
    assert all(t["table_id"] != tid for t in client.get("/api/parque").json()["waiting"])  # by link only
    refused = client.post(f"/api/tables/{tid}/public", json={"public": True}, headers=bearer(other))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_host"
    bad = client.post(f"/api/tables/{tid}/public", json={"public": "yes"}, headers=bearer(host))
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "public"
    unknown = client.post("/api/tables/t_noSuchTableAtAll0000/public", json={"public": True}, headers=bearer(host))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_table"
    ok = client.post(f"/api/tables/{tid}/public", json={"public": True}, headers=bearer(host))
    assert ok.status_code == 200 and ok.json() == {"public": True}
    [listed] = [t for t in client.get("/api/parque").json()["waiting"] if t["table_id"] == tid]
    assert listed == {"table_id": tid, "preset": "cubano", "target": listed["target"], "seats": 4, "free": 3,
                      "host": "Yuli", "players": ["Yuli"], "neighbours": []}
    assert client.post(f"/api/tables/{tid}/public", json={"public": False}, headers=bearer(host)).json() == {
        "public": False}
    assert all(t["table_id"] != tid for t in client.get("/api/parque").json()["waiting"])


def test_four_strangers_land_at_one_table_that_the_parque_lists_to_watch(client: TestClient) -> None:
    tokens = [join(client, name, wait=None).json()["token"] for name in ("Ana", "Beto", "Cuca", "Dani")]
    deadline = time.monotonic() + GUARD_S
    states: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        states = [client.get("/api/parque/queue", headers=bearer(t)).json() for t in tokens]
        if all(s["state"] == "seated" for s in states):
            break
        time.sleep(0.1)
    assert {s["state"] for s in states} == {"seated"} and len({s["table_id"] for s in states}) == 1
    tid = states[0]["table_id"]
    summary = client.get(f"/api/tables/{tid}").json()
    assert sorted(s["name"] for s in summary["seats"]) == ["Ana", "Beto", "Cuca", "Dani"]
    listing = client.get("/api/parque").json()
    [watched] = [t for t in listing["playing"] if t["table_id"] == tid]
    assert sorted(watched["players"]) == ["Ana", "Beto", "Cuca", "Dani"]
    # Who is around: the players seen lately, with their name and level (and id, for their profile's link).
    around = {p["nickname"]: p for p in listing["around"]}
    assert {"Ana", "Beto", "Cuca", "Dani"} <= set(around)
    assert set(around["Ana"]) == {"player", "nickname", "level"} and around["Ana"]["level"]["number"] == 0
    at_table = join(client, "Ana", token=tokens[0], wait=30)
    assert at_table.status_code == 409 and at_table.json()["error"]["code"] == "at_a_table"


def test_a_store_that_fails_is_503_unavailable_and_no_traceback(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    from sqlalchemy.exc import OperationalError

    token = join(client, "Fela", wait=None).json()["token"]

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("SELECT 1", {}, Exception("the disk is gone"))

    monkeypatch.setattr(parque.queue, "poll", failing)
    monkeypatch.setattr(parque.parque, "listing", failing)
    for r in (client.get("/api/parque/queue", headers=bearer(token)), client.get("/api/parque")):
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable", r.text
        assert int(r.headers["Retry-After"]) >= 1
    assert "Traceback" not in caplog.text
    monkeypatch.undo()
    assert client.delete("/api/parque/queue", headers=bearer(token)).status_code == 200
