"""Limits that fit carrier NAT (issue 21, items 5 and 13): many guests behind one
address (Cuban mobile data, a park's Wi-Fi) each open tables and sockets; one
guest who floods is stopped by its own budget; the per-address budget still
stops a flood of new guests; guests created per address are bounded."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import RECV_TIMEOUT
from websockets.exceptions import ConnectionClosed

from capicua.server.gateway.limits import (
    GUESTS_PER_ADDRESS,
    SOCKETS_PER_ADDRESS,
    SOCKETS_PER_GUEST,
    TABLES_PER_ADDRESS,
    TABLES_PER_GUEST,
    Budget,
)

pytestmark = pytest.mark.xdist_group("server")

HOTSPOT = 30  # guests behind one address


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_budget_counts_only_when_every_limit_allows() -> None:
    clock = FakeClock()
    budget = Budget(clock, per_guest=(2, 60.0), per_address=(3, 60.0))
    assert budget.take({"per_guest": "ana", "per_address": "nat"}) is None
    assert budget.take({"per_guest": "ana", "per_address": "nat"}) is None
    refused = budget.take({"per_guest": "ana", "per_address": "nat"})
    assert refused is not None and refused.what == "per_guest" and refused.wait == 60.0
    # Ana's refusal cost the address nothing: Beto, behind it too, has its last place.
    assert budget.take({"per_guest": "beto", "per_address": "nat"}) is None
    clock.now += 10
    refused = budget.take({"per_guest": "cuca", "per_address": "nat"})
    assert refused is not None and refused.what == "per_address" and refused.wait == 50.0
    assert budget.windows["per_guest"].wait("cuca") is None  # nothing counted for Cuca
    clock.now += 50
    assert budget.take({"per_guest": "cuca", "per_address": "nat"}) is None


def test_the_defaults_put_the_guest_first_and_the_address_far_above() -> None:
    assert TABLES_PER_ADDRESS[0] >= 10 * TABLES_PER_GUEST[0] and TABLES_PER_ADDRESS[1] == TABLES_PER_GUEST[1]
    assert SOCKETS_PER_ADDRESS >= 10 * SOCKETS_PER_GUEST
    assert GUESTS_PER_ADDRESS[0] >= 4 * HOTSPOT


def refused_socket(c: Any) -> dict[str, Any]:
    """The error a socket got, once the server has closed it."""
    err = c.error()
    try:
        c.recv()
    except ConnectionClosed:
        return err
    raise AssertionError("the refused socket was not closed")


def test_a_hotspot_of_guests_opens_tables_and_sockets_and_one_flooder_is_stopped(live_server: Any) -> None:
    """Defaults: 30 guests behind 127.0.0.1 (the old limits: 20 tables and 32 sockets per address)."""
    srv = live_server()
    guests = []
    for i in range(HOTSPOT):
        r = srv.post("/api/players", {"nickname": f"Vecino {i}"})
        assert r.status_code == 200, r.text
        guests.append(r.json())
    tables = []
    for g in guests:  # a private table each (its lobby: no neighbour thinks meanwhile)
        t = srv.new_table(nickname=g["nickname"], token=g["token"], private=True)
        assert t["token"] == g["token"]
        tables.append(t)
    held = []
    for g, t in zip(guests, tables, strict=True):
        for _ in range(2):  # two tabs each: 60 sockets from one address
            c = srv.client()
            assert c.hello(t["table_id"], g["token"])["type"] == "welcome"
            held.append(c)
    # One guest floods tables: its own budget stops it, the others are not touched.
    flooder = guests[0]
    opened = 1
    while True:
        r = srv.post("/api/tables", {"nickname": "Flood", "token": flooder["token"], "private": True})
        if r.status_code != 200:
            break
        opened += 1
        assert opened <= TABLES_PER_GUEST[0]
    assert opened == TABLES_PER_GUEST[0]
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_fast"
    assert "per player" in r.json()["error"]["message"] and int(r.headers["Retry-After"]) > 500
    assert srv.new_table(nickname="Beto", token=guests[1]["token"], private=True)["table_id"]
    # One guest floods sockets (watching the others' tables): stopped at its own cap.
    extra = []
    for t in tables[1:]:
        c = srv.client()
        c.send({"type": "hello", "table": t["table_id"], "token": flooder["token"], "watch": True})
        got = c.until(lambda f: f.get("type") in ("welcome", "error"))
        if got["type"] == "error":
            assert got["code"] == "too_many" and "all tables" in got["message"]
            with pytest.raises(ConnectionClosed):
                c.recv(timeout=RECV_TIMEOUT)
            break
        extra.append(c)
    assert len(extra) == SOCKETS_PER_GUEST - 2
    other = srv.client()  # the guest next to the flooder still gets in
    assert other.hello(tables[2]["table_id"], guests[2]["token"])["type"] == "welcome"
    for c in [*held, *extra, other]:
        c.close()


def test_the_address_budget_still_stops_a_flood_of_new_guests(live_server: Any) -> None:
    srv = live_server(table_rate=(5, 600.0), guest_rate=(3, 600.0), sockets_per_client=4)
    # New guests (no token): each is a new guest, and the address's budget for them is small.
    for i in range(3):
        r = srv.post("/api/players", {"nickname": f"Nuevo {i}"})
        assert r.status_code == 200
    known = r.json()
    r = srv.post("/api/players", {"nickname": "Otro"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_fast"
    assert "new players from one address" in r.json()["error"]["message"] and int(r.headers["Retry-After"]) > 500
    r = srv.post("/api/tables", {"nickname": "Otro", "private": True})  # a table would bring a new guest too
    assert r.status_code == 429 and "new players" in r.json()["error"]["message"]
    # Renaming a guest with its token is not creating one: allowed.
    r = srv.post("/api/players", {"nickname": "Renombrado", "token": known["token"]})
    assert r.status_code == 200 and r.json()["player"] == known["player"] and r.json()["nickname"] == "Renombrado"
    # Tables of known guests count against the address: its budget is the last guard.
    for _ in range(5):
        srv.new_table(nickname="Renombrado", token=known["token"], private=True)
    r = srv.post("/api/tables", {"nickname": "Renombrado", "token": known["token"], "private": True})
    assert r.status_code == 429 and "from one address" in r.json()["error"]["message"]
    # Sockets: the address's cap holds whatever the guests.
    held = [srv.client() for _ in range(4)]
    for c in held:
        c.send({"type": "ping"})
        assert c.recv()["type"] == "pong"
    assert refused_socket(srv.client())["code"] == "too_many"
    for c in held:
        c.close()


def test_guest_creation_is_bounded_per_address_at_the_default(live_server: Any) -> None:
    """The reliability run made 300 guests in 0.5 s from one address."""
    srv = live_server()
    codes = [srv.post("/api/players", {"nickname": f"G{i}"}).status_code for i in range(GUESTS_PER_ADDRESS[0] + 1)]
    assert codes[:-1] == [200] * GUESTS_PER_ADDRESS[0] and codes[-1] == 429
