"""``GET /api/leaderboard`` and ``GET /api/players/{id}`` over HTTP: the contract's
shape, the caller's place by token, and a coded error for every bad parameter."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from standings_helpers import Table, find, seats

from capicua.standings.ratings import PROVISIONAL_MATCHES

ROW_KEYS = {"rank", "player", "nickname", "level", "score", "matches", "won"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server()


def _sign_in(server: Any, name: str) -> tuple[str, str]:
    r = server.post("/api/players", {"nickname": name})
    assert r.status_code == 200, r.text
    body = r.json()
    return body["player"], body["token"]


def test_the_leaderboard_and_a_profile(server: Any) -> None:
    pid, token = _sign_in(server, "Ana")
    store = server.app.state.deps.store
    t = Table(store, "t_http", seats({0: pid}, {1: "experto", 3: "experto"}))
    win = find(lambda r: r["result"]["winner"] == 0)
    for i in range(PROVISIONAL_MATCHES):
        if i:
            t.rematch()
        t.finish(win)
    r = httpx.get(f"{server.base}/api/leaderboard?board=neighbours&period=week", headers=bearer(token))
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"board", "period", "min_matches", "rows", "me"}
    assert (body["board"], body["period"], body["min_matches"]) == ("neighbours", "week", PROVISIONAL_MATCHES)
    assert len(body["rows"]) == 1 and set(body["rows"][0]) == ROW_KEYS
    assert body["rows"][0]["player"] == pid and body["rows"][0]["rank"] == 1
    assert body["me"] == {**body["rows"][0], "matches_needed": 0}
    assert server.get("/api/leaderboard").json()["me"] is None
    assert server.get("/api/leaderboard?board=friends&period=month").json()["rows"] == []
    r = server.get(f"/api/players/{pid}")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["player"] == pid and got["stats"]["matches"] == PROVISIONAL_MATCHES
    assert got["ratings"]["neighbours"]["provisional"] is False
    assert got["recent"][0]["replay"] == f"/replay/t_http/{PROVISIONAL_MATCHES}"


@pytest.mark.parametrize(
    ("query", "status", "code", "field"),
    [
        ("board=amigos", 400, "malformed", "board"),
        ("period=year", 400, "malformed", "period"),
        ("period=", 400, "malformed", "period"),
        ("board=friends&board=neighbours", 400, "malformed", "board"),
        ("sort=score", 400, "malformed", "sort"),
        ("token=abc", 400, "malformed", "token"),  # never in the address (docs/protocol.md)
    ],
)
def test_a_bad_leaderboard_query_is_a_coded_error(server: Any, query: str, status: int, code: str, field: str) -> None:
    r = server.get(f"/api/leaderboard?{query}")
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["field"] == field


@pytest.mark.parametrize(
    ("authorization", "status", "code"),
    [
        ("Bearer " + "x" * 300, 400, "malformed"),
        ("Bearer", 400, "malformed"),
        ("Basic YWJj", 400, "malformed"),
        ("Bearer not-a-guest", 401, "unknown_token"),
    ],
)
def test_a_bad_authorization_is_a_coded_error(server: Any, authorization: str, status: int, code: str) -> None:
    r = httpx.get(f"{server.base}/api/leaderboard", headers={"Authorization": authorization})
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["field"] == "authorization"


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/players/p_0000000000000000", 404, "unknown_player"),
        ("/api/players/" + "p" * 41, 400, "malformed"),
        ("/api/players/p%20x", 400, "malformed"),
        ("/api/players/p_%C3%B1", 400, "malformed"),
        ("/api/players/p_1?full=1", 400, "malformed"),
    ],
)
def test_a_bad_player_is_a_coded_error(server: Any, path: str, status: int, code: str) -> None:
    r = server.get(path)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
