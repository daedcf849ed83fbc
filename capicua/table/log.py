"""The table log (``capicua-table-log/1``): everything that changes a table, in order.

A table's log is a list of JSON entries, each ``{"op": …, "at": ms, …}``.
The first is ``open`` (the game, the seats, the settings and the table's
secret, from which every match seed and every neighbour's choice derive);
then, in any order the table made them:

==============  ============================================================
``presence``    ``seat``, ``online`` (and ``since`` when false: when the last
                socket closed): a player's first socket came, or the last one went
                and stayed away past the debounce window (a flicker is not logged)
``watchers``    ``n``: how many watched (logs of before: no longer written, read
                only to replay their spectators' frames and talk)
``reopen``      the table was loaded again (a restart, or after it was idle):
                every socket of before is gone
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
store's rows) are read by :func:`migrate_legacy`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

LOG_FORMAT = "capicua-table-log/1"
OPS = (
    "open", "presence", "watchers", "reopen", "sit", "stand", "move", "fill", "clear", "configure",
    "start", "start_hand", "action", "ready", "say", "timer", "controller", "rematch", "stand_in",
)
ACTORS = ("human", "bot", "stand_in", "timeout")
DEFAULT_GRACE = 30
DEFAULT_TURN_TIMER = 0  # off


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


def open_entry(
    table_id: str,
    preset: str,
    options: dict[str, Any],
    secret: str,
    seats: list[dict[str, Any]],
    private: bool,
    host: str | None,
    at: int,
    seed: str | None = None,
    grace: int = DEFAULT_GRACE,
    turn_timer: int = DEFAULT_TURN_TIMER,
) -> dict[str, Any]:
    """The first entry of a table's log. ``seed`` (optional) fixes the first match's
    seed (tests, legacy tables); by default it derives from ``secret``."""
    entry: dict[str, Any] = {
        "op": "open",
        "format": LOG_FORMAT,
        "at": at,
        "table": table_id,
        "preset": preset,
        "options": dict(options),
        "secret": secret,
        "private": private,
        "host": host,
        "seats": seats,
        "settings": {"grace": grace, "turn_timer": turn_timer},
    }
    if seed is not None:
        entry["seed"] = seed
    return entry


def migrate_legacy(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A log of the first format (``row`` as :meth:`capicua.store.Store.load_match`
    returns it: preset, options, seed, seats and events) as a table log.

    The old tables were one guest against neighbours, playing from the start (a
    table that is not private has no lobby). Actions get ``by`` from the kind of
    their seat."""
    seats = []
    kinds = {}
    for s in row["seats"]:
        kinds[s["seat"]] = s["kind"]
        seat: dict[str, Any] = {"seat": s["seat"], "kind": s["kind"], "name": s["name"]}
        if s.get("player_id"):
            seat["player"] = s["player_id"]
        if s.get("level"):
            seat["level"] = s["level"]
        if s.get("character"):
            seat["character"] = s["character"]
        seats.append(seat)
    entries = [open_entry(row["id"], row["preset"], row["options"], row["seed"], seats, False, None, 0, seed=row["seed"])]
    for old in row["events"]:
        op = old.get("op")
        if op == "start_hand":
            entries.append({"op": "start_hand", "at": 0, "present": list(old.get("present") or [])})
        elif op == "action":
            by = "bot" if kinds.get(old["seat"]) == "bot" else "human"
            entries.append({"op": "action", "at": 0, "seat": old["seat"], "action": old["action"], "by": by})
        else:
            raise ValueError(f"unknown entry of the first log format: {old!r}")
    return entries


def is_legacy(entries: list[dict[str, Any]]) -> bool:
    """True for a log of the first format (it does not begin with ``open``)."""
    return not entries or entries[0].get("op") != "open"
