"""The wire form of the messages between the socket tier and a table's owner
(:data:`~capicua.table.protocol.ToTable`, :data:`~capicua.table.protocol.ToGateway`),
for when they cross between processes (the Redis adapters,
:mod:`capicua.server.adapters.redis_bus`).

Each message is a JSON object whose ``k`` names its kind and whose other keys are
its fields. A :class:`~capicua.table.protocol.FromConn` carries its intent as the
client frame it stands for, read back by :func:`~capicua.table.protocol.parse_intent`:
the one reader of client frames stays the one reader of intents, checks included.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from capicua.table.protocol import (
    ClearSeat,
    Configure,
    ConnId,
    DealNow,
    FillSeat,
    Frame,
    FromConn,
    Hears,
    Hello,
    Intent,
    Join,
    Leave,
    MoveSeat,
    NextHand,
    OwnerChanged,
    Ping,
    Play,
    ProtocolError,
    Redeal,
    Rematch,
    Route,
    Say,
    Sit,
    Stand,
    StandIn,
    Start,
    ToGateway,
    ToLobby,
    ToTable,
    parse_intent,
)


class WireError(ValueError):
    """Not the wire form of a message: an unknown kind, a field missing or mistyped."""


INTENT_TYPE: dict[type[Intent], str] = {
    Hello: "hello",
    Ping: "ping",
    Play: "play",
    Redeal: "redeal",
    NextHand: "next_hand",
    DealNow: "deal_now",
    Say: "say",
    Sit: "sit",
    Stand: "stand",
    MoveSeat: "move_seat",
    FillSeat: "fill_seat",
    ClearSeat: "clear_seat",
    Configure: "configure",
    Start: "start",
    Rematch: "rematch",
    StandIn: "stand_in",
    ToLobby: "to_lobby",
}
"""The client frame's ``type`` of each intent (docs/protocol.md); an intent's fields
are named as the frame's keys."""


def intent_frame(intent: Intent) -> str:
    """The client frame (JSON text) that :func:`~capicua.table.protocol.parse_intent`
    reads as ``intent``."""
    frame: dict[str, Any] = {"type": INTENT_TYPE[type(intent)]}
    for field in dataclasses.fields(intent):
        value = getattr(intent, field.name)
        frame[field.name] = list(value) if isinstance(value, tuple) else value
    return json.dumps(frame, separators=(",", ":"))


def to_json(message: ToTable | ToGateway) -> dict[str, Any]:
    """The message as a JSON object (``k``: its kind)."""
    match message:
        case Join(conn, player, name, last_seq, watch):
            return {"k": "join", "conn": conn, "player": player, "name": name, "last_seq": last_seq, "watch": watch}
        case Leave(conn, moving):
            return {"k": "leave", "conn": conn, "moving": moving}
        case FromConn(conn, intent):
            return {"k": "from_conn", "conn": conn, "intent": intent_frame(intent)}
        case Frame(text, seq):
            return {"k": "frame", "text": text, "seq": seq}
        case Hears(audience):
            return {"k": "hears", "audience": audience}
        case Route(table, owner):
            return {"k": "route", "table": table, "owner": owner}
        case OwnerChanged(table, owner):
            return {"k": "owner_changed", "table": table, "owner": owner}
    raise TypeError(f"not a message between the gateway and a table: {message!r}")


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], none: bool = False) -> Any:
    value = data.get(key)
    if value is None and none:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise WireError(f"{data.get('k')!r}: {key} is missing or mistyped")
    return value


def to_table_from_json(data: Any) -> ToTable:
    """The :data:`~capicua.table.protocol.ToTable` message of :func:`to_json`'s form;
    :class:`WireError` when it is not one."""
    if not isinstance(data, dict):
        raise WireError("a message is a JSON object")
    kind = data.get("k")
    if kind == "join":
        return Join(
            ConnId(_field(data, "conn", str)), _field(data, "player", str, none=True), _field(data, "name", str),
            _field(data, "last_seq", int), _field(data, "watch", bool),
        )
    if kind == "leave":
        return Leave(ConnId(_field(data, "conn", str)), data.get("moving") is True)
    if kind == "from_conn":
        try:
            intent = parse_intent(_field(data, "intent", str))
        except ProtocolError as e:
            raise WireError(f"from_conn: {e.message}") from None
        return FromConn(ConnId(_field(data, "conn", str)), intent)
    raise WireError(f"unknown kind of message to a table: {kind!r}")


def to_gateway_from_json(data: Any) -> ToGateway:
    """The :data:`~capicua.table.protocol.ToGateway` message of :func:`to_json`'s form;
    :class:`WireError` when it is not one."""
    if not isinstance(data, dict):
        raise WireError("a message is a JSON object")
    kind = data.get("k")
    if kind == "frame":
        return Frame(_field(data, "text", str), _field(data, "seq", int, none=True))
    if kind == "hears":
        return Hears(_field(data, "audience", str, none=True))
    if kind == "route":
        return Route(_field(data, "table", str), _field(data, "owner", str))
    if kind == "owner_changed":
        return OwnerChanged(_field(data, "table", str), _field(data, "owner", str, none=True))
    raise WireError(f"unknown kind of message to a gateway: {kind!r}")
