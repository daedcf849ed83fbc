"""The table log (``capicua-table-log/1``): everything that changes a table, in order.

A table's log is a list of JSON entries, each ``{"op": …, "at": ms, …}``; in
memory, one frozen dataclass per ``op`` (:data:`Entry`). This module is the one
reader and writer of the log: :func:`read_log` (and :func:`read_entry`) turn
stored JSON into entries, ``entry.to_json()`` (and :func:`write_log`) turn
them back into the same JSON. Everything that walks a log (the table core,
the replay, the analysis, the standings) reads it through here.

The first entry is :class:`Open` (the game, the seats, the settings and the
table's secret, from which every match seed and every neighbour's choice
derive); then, in any order the table made them:

==============  ============================================================
``presence``    ``seat``, ``online`` (and ``since`` when false: when the last
                socket closed): a player's first socket came, or the last one went
                and stayed away past the debounce window (a flicker is not logged)
``watchers``    ``n``: how many watched (logs of before: no longer written, read
                only to replay their spectators' frames and talk)
``reopen``      the table was loaded again (a restart, or after it was idle):
                every socket of before is gone
``handover``    its process drained (SIGTERM) and handed the table over: its
                sockets reconnect through the load balancer, so the process that
                loads it next keeps the seats' presence (no ``reopen``)
``sit``         ``seat``, ``player``, ``name``, ``character``, ``level``: a
                player took a free seat in the lobby (with their stand-in)
``stand``       ``seat``: a player left their seat in the lobby
``move``        ``seat``, ``to``: the host swapped two seats
``fill``        ``seat``, ``level``, ``character``, ``name``: the host seated a neighbour
``clear``       ``seat``: the host emptied a seat
``configure``   ``grace``, ``turn_timer``: the host's settings (seconds)
``start``       the host started the match (the lobby closes)
``start_hand``  ``present``: the next hand is dealt; the seats connected then
                (``by``: ``host`` when the host dealt it without waiting)
``action``      ``seat``, ``action``, ``by``: a play or a redeal answer by a
                ``human``, a ``bot``, a ``stand_in`` or on ``timeout``
``timer``       ``name`` (``grace`` | ``turn`` with ``seat``, or ``next_hand``): a
                timer ran out
``ready``       ``seat``: the player wants the next hand (after a match:
                said "Otra partida")
``say``         ``seat``, ``phrase``: a player said a table phrase
``controller``  ``seat``, ``to`` (``human`` | ``stand_in``): who plays a seat
``stand_in``    ``seat``: after a match, the host left a gone player's seat to
                its stand-in for the next match
``rematch``     a new match at the same table and seats: "Otra partida" agreed
                by everyone here (``start_hand`` follows), or ``lobby``: true,
                the host took the table back to its lobby
==============  ============================================================

``start_hand`` and ``action`` carry ``"watched": true`` when someone watched as
their events were sent. Who watches is not logged: it is not the game's state,
and a stranger's hellos must not grow someone else's table.

Deadlines are not entries: each follows from the time of the entry that began
the wait (a turn, a hand's end) and the settings, so a reload resumes them with
the time they had left (``reopen``: never less than a few seconds).

Replaying the log through :class:`capicua.table.core.TableCore` rebuilds
the table exactly, and the frames it sent. Logs written before this format
(``start_hand`` and ``action`` entries only, the game and seats in the
store's rows) are rewritten once by ``capicua migrate-logs``
(:mod:`capicua.tools.migrate_logs`); :func:`read_log` refuses them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

LOG_FORMAT = "capicua-table-log/1"
DEFAULT_GRACE = 30
DEFAULT_TURN_TIMER = 0  # off

JSON = dict[str, Any]


class LogError(ValueError):
    """A stored entry this module cannot read: an unknown ``op``, a missing or
    malformed field, or a log that does not begin with ``open``."""


@dataclass(frozen=True, slots=True)
class Projection:
    """What the store's listing rows say of a table after an append (for the home
    page, the leaderboard and replays: never needed to rebuild the table)."""

    status: str  # lobby | playing | finished
    scores: list[int]
    match_number: int
    record: dict[str, Any] | None  # the current match's record, when a hand ended
    seats: list[dict[str, Any]] | None  # the seats, when they changed


def match_seed(secret: str, number: int) -> str:
    """The seed of the table's ``number``-th match (1-based), derived from its secret."""
    return hashlib.sha256(f"capicua/match/{secret}/{number}".encode()).hexdigest()


# ------------------------------------------------------------------ entries
#
# Every entry has ``at`` (ms since the epoch; 0 in logs of tests and of before
# times were logged), keyword-only so that each kind lists its own fields first.
# ``to_json`` writes the keys in the order the table has always written them.


@dataclass(frozen=True, slots=True)
class Open:
    """The first entry: the table as it was opened."""

    op: ClassVar[str] = "open"
    table: str
    preset: str
    options: Mapping[str, Any]
    secret: str
    seats: tuple[Mapping[str, Any], ...]  # one :meth:`capicua.table.seating.Seat.to_entry` per seat
    private: bool = False  # a table of friends: it opens in its lobby
    host: str | None = None  # the player who opened a private table
    grace: int = DEFAULT_GRACE
    turn_timer: int = DEFAULT_TURN_TIMER
    seed: str | None = None  # the first match's seed, when fixed (tests, tables of before)
    format: str = LOG_FORMAT
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {
            "op": self.op, "format": self.format, "at": self.at, "table": self.table, "preset": self.preset,
            "options": dict(self.options), "secret": self.secret, "private": self.private, "host": self.host,
            "seats": [dict(s) for s in self.seats], "settings": {"grace": self.grace, "turn_timer": self.turn_timer},
        }
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Open:
        settings = e.get("settings") or {}
        return cls(
            table=str(e["table"]), preset=str(e["preset"]), options=dict(e["options"]), secret=str(e["secret"]),
            seats=tuple(dict(s) for s in e["seats"]), private=bool(e.get("private")), host=_str_or_none(e.get("host")),
            grace=int(settings.get("grace", DEFAULT_GRACE)), turn_timer=int(settings.get("turn_timer", DEFAULT_TURN_TIMER)),
            seed=_str_or_none(e.get("seed")), format=str(e.get("format", LOG_FORMAT)), at=_at(e),
        )


@dataclass(frozen=True, slots=True)
class Presence:
    """A player's first socket came (``online``), or the last one went at ``since``."""

    op: ClassVar[str] = "presence"
    seat: int
    online: bool
    since: int | None = None  # offline: when the last socket closed (absent: at ``at``)
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op, "seat": self.seat, "online": self.online}
        if self.since is not None:
            out["since"] = self.since
        out["at"] = self.at
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Presence:
        since = e.get("since")
        return cls(int(e["seat"]), bool(e["online"]), None if since is None else int(since), at=_at(e))


@dataclass(frozen=True, slots=True)
class Watchers:
    """How many watched (logs of before only: nothing writes it now)."""

    op: ClassVar[str] = "watchers"
    n: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "n": self.n, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Watchers:
        return cls(int(e["n"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Reopen:
    """The table was loaded again: every socket of before is gone."""

    op: ClassVar[str] = "reopen"
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Reopen:
        return cls(at=_at(e))


@dataclass(frozen=True, slots=True)
class Handover:
    """The owner's process drained and handed the table over (its last entry there):
    the sockets of before reconnect through the load balancer to another process."""

    op: ClassVar[str] = "handover"
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Handover:
        return cls(at=_at(e))


@dataclass(frozen=True, slots=True)
class Sit:
    """A player took a free seat in the lobby, with their stand-in (``character``, ``level``)."""

    op: ClassVar[str] = "sit"
    seat: int
    player: str
    name: str
    character: str | None = None
    level: str | None = None
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op, "seat": self.seat, "player": self.player, "name": self.name}
        if self.character is not None:
            out["character"] = self.character
        if self.level is not None:
            out["level"] = self.level
        out["at"] = self.at
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Sit:
        return cls(int(e["seat"]), str(e["player"]), str(e["name"]), _str_or_none(e.get("character")),
                   _str_or_none(e.get("level")), at=_at(e))


@dataclass(frozen=True, slots=True)
class Stand:
    """A player left their seat in the lobby."""

    op: ClassVar[str] = "stand"
    seat: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Stand:
        return cls(int(e["seat"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Move:
    """The host swapped seats ``seat`` and ``to``."""

    op: ClassVar[str] = "move"
    seat: int
    to: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "to": self.to, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Move:
        return cls(int(e["seat"]), int(e["to"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Fill:
    """The host seated a neighbour (in the lobby, or in a gone player's seat after a match)."""

    op: ClassVar[str] = "fill"
    seat: int
    level: str
    character: str
    name: str
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "level": self.level, "character": self.character,
                "name": self.name, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Fill:
        return cls(int(e["seat"]), str(e["level"]), str(e["character"]), str(e["name"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Clear:
    """The host emptied a seat."""

    op: ClassVar[str] = "clear"
    seat: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Clear:
        return cls(int(e["seat"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Configure:
    """The host's settings, in seconds."""

    op: ClassVar[str] = "configure"
    grace: int
    turn_timer: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "grace": self.grace, "turn_timer": self.turn_timer, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Configure:
        return cls(int(e["grace"]), int(e["turn_timer"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Start:
    """The host started the match: the lobby closes."""

    op: ClassVar[str] = "start"
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Start:
        return cls(at=_at(e))


@dataclass(frozen=True, slots=True)
class StartHand:
    """The next hand is dealt; ``present``: the seats connected then."""

    op: ClassVar[str] = "start_hand"
    present: tuple[int, ...] | None  # None: not recorded (tests' logs; the table always writes it)
    by: str | None = None  # "host": the host dealt it without waiting
    watched: bool = False  # someone watched as its events were sent
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op}
        if self.present is not None:
            out["present"] = list(self.present)
        if self.by is not None:
            out["by"] = self.by
        out["at"] = self.at
        if self.watched:
            out["watched"] = True
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> StartHand:
        present = e.get("present")
        return cls(None if present is None else tuple(int(s) for s in present), _str_or_none(e.get("by")),
                   bool(e.get("watched")), at=_at(e))


@dataclass(frozen=True, slots=True)
class Action:
    """A play or a redeal answer (``action``: the engine's JSON of it) and who made it
    (``by``: ``human``, ``bot``, ``stand_in`` or ``timeout``)."""

    op: ClassVar[str] = "action"
    seat: int
    action: Mapping[str, Any]
    by: str
    watched: bool = False  # someone watched as its events were sent
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op, "seat": self.seat, "action": dict(self.action), "by": self.by, "at": self.at}
        if self.watched:
            out["watched"] = True
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Action:
        return cls(int(e["seat"]), dict(e["action"]), str(e["by"]), bool(e.get("watched")), at=_at(e))


@dataclass(frozen=True, slots=True)
class Ready:
    """The player wants the next hand (after a match: said "Otra partida")."""

    op: ClassVar[str] = "ready"
    seat: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Ready:
        return cls(int(e["seat"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Say:
    """A player said a table phrase."""

    op: ClassVar[str] = "say"
    seat: int
    phrase: str
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "phrase": self.phrase, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Say:
        return cls(int(e["seat"]), str(e["phrase"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Timer:
    """A timer ran out: ``grace`` or ``turn`` (of ``seat``), or ``next_hand``."""

    op: ClassVar[str] = "timer"
    name: str
    seat: int | None = None
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op, "name": self.name}
        if self.seat is not None:
            out["seat"] = self.seat
        out["at"] = self.at
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Timer:
        seat = e.get("seat")
        return cls(str(e["name"]), None if seat is None else int(seat), at=_at(e))


@dataclass(frozen=True, slots=True)
class Controller:
    """Who plays a seat from now: ``human`` or ``stand_in``."""

    op: ClassVar[str] = "controller"
    seat: int
    to: str
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "to": self.to, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Controller:
        return cls(int(e["seat"]), str(e["to"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class StandIn:
    """After a match, the host left a gone player's seat to its stand-in for the next one."""

    op: ClassVar[str] = "stand_in"
    seat: int
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        return {"op": self.op, "seat": self.seat, "at": self.at}

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> StandIn:
        return cls(int(e["seat"]), at=_at(e))


@dataclass(frozen=True, slots=True)
class Rematch:
    """A new match at the same table and seats (``lobby``: waiting in the lobby for its host)."""

    op: ClassVar[str] = "rematch"
    lobby: bool = False
    at: int = field(default=0, kw_only=True)

    def to_json(self) -> JSON:
        out: JSON = {"op": self.op}
        if self.lobby:
            out["lobby"] = True
        out["at"] = self.at
        return out

    @classmethod
    def from_json(cls, e: Mapping[str, Any]) -> Rematch:
        return cls(bool(e.get("lobby")), at=_at(e))


Entry = (
    Open | Presence | Watchers | Reopen | Handover | Sit | Stand | Move | Fill | Clear | Configure | Start | StartHand
    | Action | Ready | Say | Timer | Controller | StandIn | Rematch
)

_KINDS: dict[str, Any] = {
    kind.op: kind
    for kind in (Open, Presence, Watchers, Reopen, Handover, Sit, Stand, Move, Fill, Clear, Configure, Start, StartHand,
                 Action, Ready, Say, Timer, Controller, StandIn, Rematch)
}


# ------------------------------------------------------------------ reading and writing


def read_entry(data: Mapping[str, Any]) -> Entry:
    """One stored entry as its dataclass. Raises :class:`LogError` for an unknown
    ``op`` or a missing or malformed field."""
    op = data.get("op") if isinstance(data, Mapping) else None
    kind = _KINDS.get(op) if isinstance(op, str) else None
    if kind is None:
        raise LogError(f"unknown table log entry op {op!r}: {dict(data) if isinstance(data, Mapping) else data!r}")
    try:
        entry: Entry = kind.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise LogError(f"malformed {op!r} entry ({type(exc).__name__}: {exc}): {dict(data)!r}") from None
    return entry


def read_log(data: Iterable[Mapping[str, Any]]) -> list[Entry]:
    """A table's stored log as entries: it begins with :class:`Open` (a log of the
    first format was never migrated: ``capicua migrate-logs``). Raises :class:`LogError`."""
    entries: list[Entry] = []
    for e in data:
        if not entries and (not isinstance(e, Mapping) or e.get("op") != Open.op):
            break
        entries.append(read_entry(e))
    if not entries:
        raise LogError("a table log begins with an open entry (a log of the first format: run capicua migrate-logs)")
    return entries


def write_log(entries: Iterable[Entry]) -> list[JSON]:
    """Entries as the store keeps them (:func:`read_log` reads them back equal)."""
    return [e.to_json() for e in entries]


def is_first_format(data: Sequence[Mapping[str, Any]]) -> bool:
    """True for a stored log of the first format (it does not begin with ``open``)."""
    return not data or data[0].get("op") != "open"


def _at(e: Mapping[str, Any]) -> int:
    return int(e.get("at", 0))


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
