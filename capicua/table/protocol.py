"""The websocket protocol, version 2: typed intents, typed frames, error codes.

``docs/protocol.md`` is the contract and this module its one implementation on
the server: :func:`parse_intent` turns a client's text frame into one of the
intent classes below or raises :class:`ProtocolError` with a code of
:class:`Code`; the ``*_frame`` functions build every frame the server sends.
Nothing else in the server reads a client frame or spells a frame's shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NewType

from capicua.table import jsonsafe

PROTOCOL_VERSION = 2
MAX_FRAME = 4096  # bytes of one client frame
SEQ_MAX = 2**53  # JavaScript's safe integers
TABLE_ID_MAX = 48


class Code(StrEnum):
    """Every error code the server sends (``{"type": "error", "code": …}``)."""

    MALFORMED = "malformed"  # not JSON, not an object, unknown type, a field missing or mistyped
    TOO_LARGE = "too_large"  # a frame over MAX_FRAME bytes
    TOO_FAST = "too_fast"  # over the rate limit (frames, or phrases)
    UNAUTHORIZED = "unauthorized"  # no hello yet, an unknown token, a seat that is not yours
    UNKNOWN_TABLE = "unknown_table"
    TIMEOUT = "timeout"  # no hello in time: the socket closes
    TOO_MANY = "too_many"  # too many sockets for this seat, this client or watching this table: the socket closes
    ILLEGAL = "illegal"  # the move breaks a rule
    OUT_OF_TURN = "out_of_turn"
    BAD_PHASE = "bad_phase"  # e.g. next_hand while the hand is played
    STALE = "stale"  # the intent was made against an older seq
    WATCHER = "watcher"  # a spectator tried to act or talk
    NOT_HOST = "not_host"  # a lobby command from someone who is not the host
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    STARTED = "started"  # the match has started: the lobby is closed
    NO_CHANGE = "no_change"  # a command that would change nothing (clear an empty seat, move a seat to itself)
    PAUSED = "paused"  # the table cannot save right now; nothing changed, try again
    INTERNAL = "internal"  # a server fault stopped the table: the socket closes (reload)


class ProtocolError(ValueError):
    """A refused frame: ``code`` is a :class:`Code`, ``message`` readable English."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ------------------------------------------------------------------ intents


@dataclass(frozen=True, slots=True)
class Hello:
    """Bind this socket to a table: as the player of ``token``, or as a spectator."""

    table: str
    token: str | None
    last_seq: int
    watch: bool


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class Play:
    seq: int
    tile: tuple[int, int]
    end: str | None


@dataclass(frozen=True, slots=True)
class Redeal:
    seq: int
    accept: bool


@dataclass(frozen=True, slots=True)
class NextHand:
    seq: int


@dataclass(frozen=True, slots=True)
class DealNow:
    """Host of a private table, after a hand: deal the next one without waiting for
    every player's "Siguiente mano"."""

    seq: int


@dataclass(frozen=True, slots=True)
class Say:
    """A table phrase by its id (see :mod:`capicua.table.phrases`); no free text."""

    phrase: str


@dataclass(frozen=True, slots=True)
class Sit:
    """Lobby: take seat ``seat`` (``None``: any free seat)."""

    seat: int | None


@dataclass(frozen=True, slots=True)
class Stand:
    """Lobby: leave your seat (you stay at the table, watching)."""


@dataclass(frozen=True, slots=True)
class MoveSeat:
    """Host, lobby: swap whoever sits at ``seat`` with whoever sits at ``to``."""

    seat: int
    to: int


@dataclass(frozen=True, slots=True)
class FillSeat:
    """Host, lobby: a neighbour of ``level`` sits at the empty ``seat``."""

    seat: int
    level: str


@dataclass(frozen=True, slots=True)
class ClearSeat:
    """Host, lobby: empty ``seat`` (a neighbour leaves; a player goes back to watching)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Configure:
    """Host, lobby: seconds of grace before a stand-in plays, and the turn timer (0: off)."""

    grace: int
    turn_timer: int


@dataclass(frozen=True, slots=True)
class Start:
    """Host, lobby: deal the first hand."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """After the match: "Otra partida", this player is ready for a new match at the same
    table with the same seats; it starts once every player here is (see :mod:`capicua.table.rematch`)."""


@dataclass(frozen=True, slots=True)
class StandIn:
    """After the match, host: the gone player of ``seat`` is left to their stand-in, who
    plays the next match for them from its first move."""

    seat: int


@dataclass(frozen=True, slots=True)
class ToLobby:
    """After the match, host of a private table: back to the lobby (seats can change;
    the host starts the next match)."""


Intent = (
    Hello | Ping | Play | Redeal | NextHand | DealNow | Say | Sit | Stand | MoveSeat | FillSeat | ClearSeat
    | Configure | Start | Rematch | StandIn | ToLobby
)
GameIntent = Play | Redeal | NextHand
GRACE_CHOICES = (10, 30, 60, 120)
TURN_TIMER_CHOICES = (0, 15, 30, 60)


def _seq(frame: dict[str, Any]) -> int:
    v = frame.get("seq")
    if type(v) is not int or not 0 <= v < SEQ_MAX:
        raise ProtocolError(Code.MALFORMED, "an intent carries seq: the last sequence number you saw")
    return v


def _seat(frame: dict[str, Any], key: str = "seat") -> int:
    v = frame.get(key)
    if type(v) is not int or not 0 <= v < 16:
        raise ProtocolError(Code.MALFORMED, f"{key} is a seat number")
    return v


def _choice(frame: dict[str, Any], key: str, choices: tuple[int, ...]) -> int:
    v = frame.get(key)
    if type(v) is not int or v not in choices:
        raise ProtocolError(Code.MALFORMED, f"{key} is one of {', '.join(map(str, choices))}")
    return v


def _short_str(frame: dict[str, Any], key: str, limit: int = 40) -> str:
    v = frame.get(key)
    if not isinstance(v, str) or not 0 < len(v) <= limit:
        raise ProtocolError(Code.MALFORMED, f"{key} is a short string")
    return v


def _hello(f: dict[str, Any]) -> Hello:
    table = f.get("table")
    if not isinstance(table, str) or not table_id_ok(table):
        raise ProtocolError(Code.MALFORMED, "hello is {type: hello, table, token, last_seq}")
    token = f.get("token")
    if token is not None and (not isinstance(token, str) or not 0 < len(token) <= 200):
        raise ProtocolError(Code.MALFORMED, "token is the string the server gave you")
    last = f.get("last_seq", 0)
    last = 0 if last is None else last
    if type(last) is not int or not 0 <= last < SEQ_MAX:
        raise ProtocolError(Code.MALFORMED, "last_seq is the last sequence number you saw (0: none)")
    watch = f.get("watch", False)
    if type(watch) is not bool:
        raise ProtocolError(Code.MALFORMED, "watch is true or false")
    return Hello(table, token, last, watch)


def _play(f: dict[str, Any]) -> Play:
    tile = f.get("tile")
    if not (isinstance(tile, list) and len(tile) == 2 and all(type(x) is int and 0 <= x <= 99 for x in tile)):
        raise ProtocolError(Code.MALFORMED, "tile is a pair of numbers, like [5, 3]")
    end = f.get("end")
    if end is not None and (not isinstance(end, str) or len(end) > 16):
        raise ProtocolError(Code.MALFORMED, "end is the name of an open end, or null for the first tile")
    return Play(_seq(f), (tile[0], tile[1]), end)


def _redeal(f: dict[str, Any]) -> Redeal:
    if type(f.get("accept")) is not bool:
        raise ProtocolError(Code.MALFORMED, "accept is true or false")
    return Redeal(_seq(f), f["accept"])


def _sit(f: dict[str, Any]) -> Sit:
    return Sit(None if f.get("seat") is None else _seat(f))


_PARSERS: dict[str, Any] = {
    "hello": _hello,
    "ping": lambda f: Ping(),
    "play": _play,
    "redeal": _redeal,
    "next_hand": lambda f: NextHand(_seq(f)),
    "deal_now": lambda f: DealNow(_seq(f)),
    "say": lambda f: Say(_short_str(f, "phrase")),
    "sit": _sit,
    "stand": lambda f: Stand(),
    "move_seat": lambda f: MoveSeat(_seat(f), _seat(f, "to")),
    "fill_seat": lambda f: FillSeat(_seat(f), _short_str(f, "level", 20)),
    "clear_seat": lambda f: ClearSeat(_seat(f)),
    "configure": lambda f: Configure(_choice(f, "grace", GRACE_CHOICES), _choice(f, "turn_timer", TURN_TIMER_CHOICES)),
    "start": lambda f: Start(),
    "rematch": lambda f: Rematch(),
    "stand_in": lambda f: StandIn(_seat(f)),
    "to_lobby": lambda f: ToLobby(),
}
INTENT_TYPES = tuple(_PARSERS)


def parse_intent(text: str | bytes | None) -> Intent:
    """The intent a client frame stands for; :class:`ProtocolError` says what is wrong.

    Checks run in this order: size (``too_large``), text, JSON and nesting,
    object, type, fields (``malformed``)."""
    if text is None:
        raise ProtocolError(Code.MALFORMED, "frames are JSON text")
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FRAME:
        raise ProtocolError(Code.TOO_LARGE, f"frames are at most {MAX_FRAME} bytes")
    if isinstance(text, bytes):
        raise ProtocolError(Code.MALFORMED, "frames are JSON text")
    try:
        frame = jsonsafe.loads(text)
    except ValueError:
        raise ProtocolError(Code.MALFORMED, "a frame is JSON (at most 16 levels deep)") from None
    if not isinstance(frame, dict):
        raise ProtocolError(Code.MALFORMED, "a frame must be a JSON object")
    kind = frame.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ProtocolError(Code.MALFORMED, f"unknown type {kind!r}; types: {', '.join(INTENT_TYPES)}")
    intent: Intent = parser(frame)
    return intent


def table_id_ok(tid: Any) -> bool:
    """A table id as the server makes them: letters, digits, ``_`` and ``-``."""
    return (
        isinstance(tid, str)
        and 0 < len(tid) <= TABLE_ID_MAX
        and tid.isascii()
        and tid.replace("_", "").replace("-", "").isalnum()
    )


# ------------------------------------------------------------------- frames
# Every frame the server sends is built here. ``seq`` is the table's protocol
# sequence number: it grows by one with every game event.


def welcome_frame(seat: int | None, table: dict[str, Any]) -> dict[str, Any]:
    """The answer to hello: the seat this socket plays (``None``: watching) and the table."""
    return {"type": "welcome", "protocol": PROTOCOL_VERSION, "seat": seat, "table": table}


def sync_frame(seq: int, view: dict[str, Any]) -> dict[str, Any]:
    """The whole view: after welcome, or instead of missed events the table no longer keeps."""
    return {"type": "sync", "seq": seq, "view": view}


def batch_frame(events: list[tuple[int, dict[str, Any]]], view: dict[str, Any], replayed: bool = False) -> dict[str, Any]:
    """The events of one change (a play and the automatic passes after it, a hand's
    start…), each with its seq, and the audience's view after all of them."""
    frame: dict[str, Any] = {
        "type": "events",
        "seq": events[-1][0],
        "events": [{"seq": s, "event": e} for s, e in events],
        "view": view,
    }
    if replayed:
        frame["replayed"] = True
    return frame


def table_frame(seq: int, table: dict[str, Any]) -> dict[str, Any]:
    """The table around the match changed: seats, presence, stand-ins, watchers,
    settings, the turn's deadline. Does not move ``seq``."""
    return {"type": "table", "seq": seq, "table": table}


def said_frame(seq: int, seat: int, phrase: str, es: str, en: str, by: str, name: str) -> dict[str, Any]:
    """Something said at the table: a player's phrase (``by: "player"``) or a
    neighbour's line (``by: "neighbour"``, ``phrase`` is then the moment)."""
    return {"type": "said", "seq": seq, "seat": seat, "phrase": phrase, "es": es, "en": en, "by": by, "name": name}


def honours_frame(seat: int, level_up: dict[str, Any] | None, achievements: list[dict[str, Any]]) -> dict[str, Any]:
    """What the match just finished gave this seat's guest: a new level (``number``,
    ``name``, ``name_en``) or ``None``, and the achievements earned (``id``, ``name``, ``name_en``)."""
    return {"type": "honours", "seat": seat, "level_up": level_up, "achievements": achievements}


def paused_frame(paused: bool) -> dict[str, Any]:
    """The table cannot save (``true``: nothing changes until it can) or can again."""
    return {"type": "paused", "paused": paused}


def error_frame(code: Code, message: str, seq: int | None) -> dict[str, Any]:
    return {"type": "error", "code": str(code), "message": message, "seq": seq}


def pong_frame() -> dict[str, Any]:
    return {"type": "pong"}


# -------------------------------------------- the socket tier and a table
# The closed set of messages between the gateway (capicua.server.gateway: the
# sockets) and a table's owner (the table shell), docs/architecture.md "The
# gateway and the table". A gateway sends a table ToTable messages through the TableRouter
# port; a table sends its sockets ToGateway messages through the bus, each to an
# audience of the table. Nothing else crosses: the gateway never reads a table's
# state, and a table never holds a socket.

ConnId = NewType("ConnId", str)
"""One socket, unique across every process of a cluster (the gateway makes them:
:class:`capicua.server.gateway.conns.ConnIds`). Its audience ``conn:ID`` is that
socket's alone: its welcome, its errors, what it hears."""

ALL = "all"  # every socket at the table
PUBLIC = "public"  # the spectators


def seat_audience(seat: int) -> str:
    """The sockets of the player of ``seat``."""
    return f"seat:{seat}"


def conn_audience(conn: ConnId) -> str:
    """One socket."""
    return f"conn:{conn}"


@dataclass(frozen=True, slots=True)
class Join:
    """Socket ``conn`` said hello. ``player``: the player id its token belongs to
    (``None``: no token, or one the store does not know); ``name``: their nickname."""

    conn: ConnId
    player: str | None
    name: str
    last_seq: int
    watch: bool


@dataclass(frozen=True, slots=True)
class Leave:
    """Socket ``conn`` closed. ``moving``: its gateway closed it because that process
    is draining (:mod:`capicua.server.runtime.drain`): the client reconnects through
    the load balancer to another process, so its seat stays present a while longer
    than after a plain close (``CoreConfig.moving_ms``)."""

    conn: ConnId
    moving: bool = False


@dataclass(frozen=True, slots=True)
class FromConn:
    """An intent of a socket that said hello (anything but hello and ping)."""

    conn: ConnId
    intent: Intent


ToTable = Join | Leave | FromConn


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame for every socket of the audience it is published to: ``text``, its
    JSON (serialised once, however many sockets hear it), and ``seq``, the table's
    sequence number when it was sent (``None``: before the table said any)."""

    text: str
    seq: int | None


@dataclass(frozen=True, slots=True)
class Hears:
    """To ``conn:ID``: the audience the socket now hears besides its own (its seat's,
    or the spectators'); ``None``: the table refused the socket's hello (the error
    frame before this one says why) and the socket closes."""

    audience: str | None


@dataclass(frozen=True, slots=True)
class Route:
    """Where table ``table`` lives: ``owner`` names the process that runs it (the
    gateway sends its :data:`ToTable` messages there)."""

    table: str
    owner: str


@dataclass(frozen=True, slots=True)
class OwnerChanged:
    """Table ``table`` left its owner: ``owner`` runs it now, or ``None``: no process
    does (it stopped on a fault or another copy of it wrote its log; the next hello
    loads it again). Its sockets stop hearing the old owner."""

    table: str
    owner: str | None


ToGateway = Frame | Hears | Route | OwnerChanged
