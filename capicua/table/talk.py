"""Talk at the table: the phrases the players say, and the neighbours' comments.

A player says one of :mod:`capicua.table.phrases`, at most
:data:`PHRASE_LIMIT` per socket (a ``say`` entry); the neighbours comment on
what just happened (:func:`capicua.table.neighbours.table_talk`), chosen from
the table's secret and its ``seq``, so a log replays to the same talk.
Nothing here is logged but the players' phrases.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from capicua.table import log, neighbours, phrases, protocol
from capicua.table.commands import Frames, Outcome
from capicua.table.presence import Conn, player_seat
from capicua.table.protocol import ALL, Code, ProtocolError

if TYPE_CHECKING:
    from capicua.table.core import TableCore

PHRASE_LIMIT = (3, 10_000)  # phrases per socket per ms window


def say(table: TableCore, conn: Conn, intent: protocol.Say, now: int, out: Outcome) -> None:
    seat = player_seat(conn)
    if phrases.phrase(intent.phrase) is None:
        raise ProtocolError(Code.MALFORMED, f"unknown phrase {intent.phrase!r}")
    limit, window = PHRASE_LIMIT
    times = conn.phrase_times
    while times and now - times[0] >= window:
        times.popleft()
    if len(times) >= limit:
        raise ProtocolError(Code.TOO_FAST, f"at most {limit} phrases in {window // 1000} s")
    times.append(now)
    table.commit(out, log.Say(seat, intent.phrase, at=now))


def said_frame(table: TableCore, entry: log.Say) -> dict[str, Any]:
    """The ``said`` frame of a player's phrase."""
    text = phrases.phrase(entry.phrase) or ("…", "…")
    name = table.seats[entry.seat].name
    return protocol.said_frame(table.seq, entry.seat, entry.phrase, text[0], text[1], "player", name)


def neighbours_talk(table: TableCore, events: list[dict[str, Any]], frames: Frames, watched: bool) -> None:
    """The neighbours comment on what just happened (not on every event)."""
    rng = random.Random(f"capicua/talk/{table.secret}/{table.seq}")
    for line in neighbours.table_talk(rng, table.rules, table.seats, events, 1 if watched else 0):
        frames.append(
            (ALL, protocol.said_frame(table.seq, line["seat"], line["moment"], line["es"], line["en"],
                                      "neighbour", line["name"]))
        )
