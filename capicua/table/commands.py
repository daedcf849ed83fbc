"""What a table is told and what it answers: the commands
:meth:`capicua.table.core.TableCore.handle` takes, the effects it asks of its
shell, and the :class:`Outcome` that carries them with the entries and frames.

The gateway's messages (a socket's ``Join``, ``Leave`` and ``FromConn``) are
commands too; they live in :mod:`capicua.table.protocol`, the one module of
the table the socket tier reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capicua.table.log import Entry, Projection
from capicua.table.protocol import FromConn, Join, Leave

Frames = list[tuple[str, dict[str, Any]]]  # (audience, frame) pairs, in the order they are sent


# ----------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class BotAnswer:
    """What the bot pool plays for the :class:`AskBot` of the same ``key``."""

    key: str
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TimerFired:
    """The :class:`StartTimer` of the same ``key`` ran out."""

    key: str


@dataclass(frozen=True, slots=True)
class Reopen:
    """The table was loaded again: the sockets of before are gone."""


@dataclass(frozen=True, slots=True)
class TakeOver:
    """The table was loaded by a process that took its lease over from an owner that
    stopped renewing it (it died, or it is paused): the sockets of before re-attach
    through their gateways, so the seats keep the presence the log gives them. One
    whose sockets do not come back within the presence debounce goes offline as usual."""


@dataclass(frozen=True, slots=True)
class PlayerLevels:
    """The standings' level of guests at the table, ``(seat, player, {"number", "name",
    "name_en"})``: read from the store by the shell, or told by a match's honours. Not
    logged (a level belongs to the standings, not to the table); a seat another player
    took meanwhile is left alone."""

    levels: tuple[tuple[int, str, dict[str, Any]], ...]


Command = Join | Leave | FromConn | BotAnswer | TimerFired | Reopen | TakeOver | PlayerLevels


# ------------------------------------------------------------------ effects


@dataclass(frozen=True, slots=True)
class AskBot:
    """Ask the bot pool what ``level`` plays in ``view``; answer with ``BotAnswer(key, …)``."""

    key: str
    seat: int
    level: str
    view: dict[str, Any]
    seed: int
    # Asked again after the table moved to this process (a takeover, a drain's handover):
    # the neighbour's thinking pause already ran on the process before, so none now.
    again: bool = False


@dataclass(frozen=True, slots=True)
class StartTimer:
    """Send ``TimerFired(key)`` at ``at`` (ms)."""

    key: str
    at: int


@dataclass(frozen=True, slots=True)
class CancelTimer:
    key: str


Effect = AskBot | StartTimer | CancelTimer


@dataclass(slots=True)
class Outcome:
    """What one command changed (see :mod:`capicua.table.core`)."""

    entries: list[Entry] = field(default_factory=list)  # stored as ``entry.to_json()`` (capicua.table.log)
    frames: Frames = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    projection: Projection | None = None  # what the store's listing rows say now, when it changed
