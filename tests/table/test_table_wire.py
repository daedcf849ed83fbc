"""The wire form of the gateway ↔ table messages (capicua.table.wire): every kind,
every intent, read back equal; anything else refused with a WireError."""

from __future__ import annotations

import json
import typing

import pytest

from capicua.table import protocol as p
from capicua.table.wire import (
    INTENT_TYPE,
    WireError,
    intent_frame,
    to_gateway_from_json,
    to_json,
    to_table_from_json,
)

INTENTS: list[p.Intent] = [
    p.Hello("t_1", "tok", 3, False), p.Hello("t_1", None, 0, True), p.Ping(),
    p.Play(7, (6, 4), "left"), p.Play(0, (0, 0), None), p.Redeal(2, True), p.NextHand(9), p.DealNow(9),
    p.Say("buena"), p.Sit(None), p.Sit(2), p.Stand(), p.MoveSeat(0, 3), p.FillSeat(1, "dificil"),
    p.ClearSeat(2), p.Configure(30, 15), p.Start(), p.Rematch(), p.StandIn(1), p.ToLobby(),
]


def test_every_intent_has_its_frame_type() -> None:
    members = set(typing.get_args(p.Intent))
    assert set(INTENT_TYPE) == members
    assert set(INTENT_TYPE.values()) == set(p.INTENT_TYPES)
    assert {type(i) for i in INTENTS} == members


@pytest.mark.parametrize("intent", INTENTS, ids=repr)
def test_an_intent_reads_back_from_its_frame(intent: p.Intent) -> None:
    assert p.parse_intent(intent_frame(intent)) == intent


TO_TABLE: list[p.ToTable] = [
    p.Join(p.ConnId("ab.1"), "pl_1", "Ana", 12, False),
    p.Join(p.ConnId("ab.2"), None, "", 0, True),
    p.Leave(p.ConnId("ab.1")),
    *(p.FromConn(p.ConnId("ab.3"), i) for i in INTENTS),
]
TO_GATEWAY: list[p.ToGateway] = [
    p.Frame('{"type":"pong"}', None),
    p.Frame('{"type":"events","seq":5,"x":"\\n\\u00e1"}', 5),
    p.Hears("seat:2"), p.Hears(None),
    p.Route("t_1", "o_ab"),
    p.OwnerChanged("t_1", "o_cd"), p.OwnerChanged("t_1", None),
]


@pytest.mark.parametrize("message", TO_TABLE, ids=repr)
def test_a_message_to_a_table_reads_back(message: p.ToTable) -> None:
    assert to_table_from_json(json.loads(json.dumps(to_json(message)))) == message


@pytest.mark.parametrize("message", TO_GATEWAY, ids=repr)
def test_a_message_to_a_gateway_reads_back(message: p.ToGateway) -> None:
    assert to_gateway_from_json(json.loads(json.dumps(to_json(message)))) == message


@pytest.mark.parametrize("data", [
    [], {"k": "nope"}, {"k": "join", "conn": "a", "player": None, "name": "x", "last_seq": "1", "watch": False},
    {"k": "join", "conn": "a", "player": None, "name": "x", "last_seq": True, "watch": False},
    {"k": "leave"}, {"k": "from_conn", "conn": "a", "intent": '{"type":"fly"}'},
    {"k": "frame", "text": "{}"},  # to a gateway, not to a table
])
def test_not_a_message_to_a_table(data: object) -> None:
    with pytest.raises(WireError):
        to_table_from_json(data)


@pytest.mark.parametrize("data", [
    "frame", {"k": "frame", "seq": 1}, {"k": "frame", "text": "{}", "seq": "1"}, {"k": "route", "table": "t"},
    {"k": "join", "conn": "a", "player": None, "name": "x", "last_seq": 1, "watch": False},
])
def test_not_a_message_to_a_gateway(data: object) -> None:
    with pytest.raises(WireError):
        to_gateway_from_json(data)
