"""POST /api/tables: every preset opens a table against the neighbours with its
default seats, the seat choices of each preset open tables that play through
the websocket, and every refusal carries a stable code and the field at fault."""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import drive

from capicua.engine import make_rules
from capicua.engine.rules import PRESETS
from capicua.table import neighbours
from capicua.table.options import PLAYER_COUNTS, seat_choices

pytestmark = pytest.mark.xdist_group("server")


def test_every_preset_opens_a_table_with_its_default_seats(live_server: Any) -> None:
    srv = live_server(table_rate=(1000, 1.0))
    for preset in PRESETS:
        rules = make_rules(preset)
        t = srv.new_table(preset=preset, partner_level="botagorda", rival_level="dificil")
        summary = srv.get(f"/api/tables/{t['table_id']}").json()
        seats = summary["seats"]
        assert summary["preset"] == preset and len(seats) == rules.players, preset
        assert seats[0]["kind"] == "human" and all(s["kind"] == "bot" for s in seats[1:])
        assert len({s["character"] for s in seats[1:]}) == rules.players - 1  # distinct neighbours
        partner = rules.partner_of(0)
        for s in seats[1:]:
            assert s["level"] == ("botagorda" if s["seat"] == partner else "dificil"), (preset, s)


@pytest.mark.parametrize(
    "preset, players, partnership",
    [(p, c["players"], c["partnership"]) for p in ("block", "all-fives") for c in seat_choices(p)],
)
def test_each_seat_choice_opens_a_table(live_server: Any, preset: str, players: int, partnership: bool) -> None:
    srv = live_server()
    t = srv.new_table(preset=preset, options={"players": players, "partnership": partnership})
    summary = srv.get(f"/api/tables/{t['table_id']}").json()
    assert len(summary["seats"]) == players
    assert summary["rules"]["players"] == players and summary["rules"]["partnership"] == partnership


def _refusal(srv: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    r = srv.post("/api/tables", {"nickname": "Ana", **body})
    return r.status_code, r.json()["error"]


def test_refusals_carry_a_code_and_the_field(live_server: Any) -> None:
    srv = live_server()
    cases = [
        ({"preset": "nope"}, "bad_rules", "preset"),
        ({"preset": 5}, "bad_rules", "preset"),
        ({"preset": "mano-a-mano", "options": {"players": 4}}, "bad_rules", "players"),
        ({"preset": "all-fives", "options": {"partnership": True}}, "bad_rules", "partnership"),
        ({"preset": "block", "options": {"players": 5, "partnership": True}}, "bad_rules", "players"),
        ({"options": {"max_pip": 12}}, "bad_rules", "options"),
        ({"options": {"hand_size": 1}}, "bad_rules", "options"),
        ({"options": {"target": 7}}, "bad_rules", "options"),
        ({"options": [1]}, "malformed", "options"),
        ({"nickname": ""}, "malformed", "nickname"),
        ({"nickname": ["Ana"]}, "malformed", "nickname"),
        ({"partner_level": "god"}, "malformed", "partner_level"),
        ({"rival_level": {"x": 1}}, "malformed", "rival_level"),
        ({"token": 5}, "malformed", "token"),
        ({"prest": "cubano"}, "malformed", "prest"),
    ]
    for body, code, field in cases:
        status, err = _refusal(srv, body)
        assert status == 400 and err["code"] == code and err.get("field") == field, (body, err)
        assert err["message"]
    assert srv.tables.shells == {}  # nothing was opened


def test_there_are_enough_neighbours_for_every_table() -> None:
    most_bots = max(PLAYER_COUNTS) - 1
    assert len(neighbours.CHARACTERS) >= most_bots
    for level in ("random", "medio", "experto"):
        chosen = neighbours.choose_characters(random.Random(level), [level] * most_bots)
        assert len({c.id for c in chosen}) == most_bots


@pytest.mark.parametrize(
    "preset, options",
    [("mano-a-mano", {}), ("all-fives", {"players": 3}), ("block", {"players": 5})],
)
def test_two_three_and_five_player_tables_play_through_the_websocket(
    live_server: Any, preset: str, options: dict[str, Any]
) -> None:
    srv = live_server()
    t = srv.new_table(preset=preset, options=options, partner_level="random", rival_level="random")
    c = srv.client()
    assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
    seen: set[int] = set()

    def stop(f: dict[str, Any]) -> bool:
        for e in f.get("events", []) if f["type"] == "events" else []:
            if e["event"]["kind"] in ("play", "pass", "draw"):
                seen.add(e["event"]["seat"])
        return f["type"] == "events" and any(e["event"]["kind"] == "hand_end" for e in f["events"])

    end = drive(c, stop)
    players = make_rules(preset, **options).players
    assert len(end["view"]["counts"]) == players and len(end["view"]["revealed"]) == players
    hand_end = next(e["event"] for e in end["events"] if e["event"]["kind"] == "hand_end")
    assert hand_end["result_kind"] in ("domino", "tranque", "tie", "target")
    assert len(seen) >= 2  # the bots took turns too
    c.close()
