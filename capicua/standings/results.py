"""A finished match as data: one :class:`SeatResult` per seat, from the engine's
record and who sat where. Pure: the store writes these rows in the same
transaction as the match's last log entry, and nothing reads the record again.
The table's log is read as :mod:`capicua.table.log` entries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capicua.engine import rules_from_json
from capicua.table.log import Action, Controller, Entry, Presence, Rematch, Reopen, StartHand

HUMAN = "human"
BOT = "bot"


@dataclass(frozen=True, slots=True)
class SeatAtTable:
    """Who held a seat when the match ended: a guest (``player``) or a neighbour (``level``)."""

    seat: int
    kind: str  # human | bot
    player: str | None
    level: str | None


@dataclass(frozen=True, slots=True)
class SeatResult:
    """What one seat did in one finished match (a ``results`` row, less its keys and time)."""

    seat: int
    player: str | None
    bot_level: str | None
    team: int
    points: int  # the team's final score
    won: bool
    pollona: bool  # the team won and the rivals scored nothing
    viajera: bool  # a pollona scored in the one, last hand
    capicuas: int  # hands this seat ended with a capicúa
    dominoes: int  # hands this seat ended by playing out
    top_double_out: int  # ... of them, with the set's highest double as the last tile
    tranques_won: int  # blocked hands the team won
    hands_won: int  # hands the team won
    hands_lost: int  # hands the rivals won
    hands_played: int
    left_for_good: bool  # disconnected and never came back: a stand-in played the rest
    # The guest a stand-in played for from the match's first move (the seat's player was
    # away): the match is not theirs, so ``player`` is None and the seat counts as the
    # neighbour it was (``bot_level`` the stand-in's level). None on every other seat.
    stood_in_for: str | None = None


def match_results(
    record: dict[str, Any], seats: list[SeatAtTable], leavers: frozenset[int], absent: frozenset[int] = frozenset()
) -> list[SeatResult]:
    """One row per seat of a finished match's ``record`` (``record["result"]`` set).

    ``leavers``: the seats left for good (:func:`leavers_of`); ``absent``: the seats
    whose player was away from the match's first move (:func:`absent_from_start`):
    their stand-in's row, no guest's."""
    result = record.get("result")
    if not isinstance(result, dict):
        raise ValueError("the match is not finished: its record has no result")
    rules = rules_from_json(record["rules"])
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} seats expected, {len(seats)} given")
    hands = [h for h in record["hands"] if isinstance(h.get("result"), dict)]
    top = [rules.max_pip, rules.max_pip]
    rows = []
    for s in sorted(seats, key=lambda x: x.seat):
        team = rules.team_of(s.seat)
        mine = [h["result"] for h in hands if h["result"].get("seat") == s.seat]
        outs = [h for h in hands if h["result"].get("seat") == s.seat and h["result"]["kind"] == "domino"]
        won = result["winner"] == team
        guest = s.kind == HUMAN and s.seat not in absent
        stood_in = s.kind == HUMAN and s.seat in absent
        rows.append(
            SeatResult(
                seat=s.seat,
                player=s.player if guest else None,
                bot_level=s.level if s.kind == BOT or stood_in else None,
                team=team,
                points=int(record["scores"][team]),
                won=won,
                pollona=won and bool(result["pollona"]),
                viajera=won and bool(result["viajera"]),
                capicuas=sum(1 for r in mine if r.get("capicua")),
                dominoes=len(outs),
                top_double_out=sum(1 for h in outs if _last_tile(h, s.seat) == top),
                tranques_won=sum(1 for h in hands if h["result"]["kind"] == "tranque" and h["result"]["team"] == team),
                hands_won=sum(1 for h in hands if h["result"]["team"] == team),
                hands_lost=sum(1 for h in hands if h["result"]["team"] not in (None, team)),
                hands_played=len(hands),
                left_for_good=s.seat in leavers and guest,
                stood_in_for=s.player if stood_in else None,
            )
        )
    return rows


def _last_tile(hand: dict[str, Any], seat: int) -> list[int] | None:
    plays = [a["play"] for a in hand["actions"] if a.get("seat") == seat and "play" in a]
    return sorted(plays[-1]) if plays else None


def leavers_of(entries: Sequence[Entry]) -> frozenset[int]:
    """The seats a stand-in held when the match ended, from the table log: a
    ``controller`` entry hands a seat to the stand-in when its grace ran out and
    back to the player when they return, so the last one per seat says how the
    match ended (a player gone in an earlier match and never back is still gone)."""
    last: dict[int, str] = {}
    for e in entries:
        if isinstance(e, Controller):
            last[e.seat] = e.to
    return frozenset(seat for seat, to in last.items() if to == "stand_in")


def match_bounds(entries: Sequence[Entry], number: int) -> tuple[int, int]:
    """Where match ``number`` (from 1) lies in a table's log: ``entries[start:end]``.
    A ``rematch`` entry begins each match after the first (the first begins with
    the log); the match ends where the next one begins, or with the log."""
    starts = [0] + [i for i, e in enumerate(entries) if isinstance(e, Rematch)]
    if not 1 <= number <= len(starts):
        return len(entries), len(entries)
    end = starts[number] if number < len(starts) else len(entries)
    return starts[number - 1], end


class _Connected:
    """Which seats have a player connected, as the log tells it entry by entry. Until
    the log says anything a seat counts as connected: absence needs the log's word."""

    def __init__(self) -> None:
        self.default = True
        self.seats: dict[int, bool] = {}

    def __call__(self, seat: int) -> bool:
        return self.seats.get(seat, self.default)

    def apply(self, e: Entry) -> None:
        if isinstance(e, Presence):
            self.seats[e.seat] = e.online
        elif isinstance(e, Reopen):  # every socket of before is gone
            self.default, self.seats = False, {}
        elif isinstance(e, StartHand) and e.present is not None:
            # The seats connected when the hand was dealt, exactly.
            self.default, self.seats = False, dict.fromkeys(e.present, True)


def absent_from_start(entries: Sequence[Entry], number: int, seats: list[int]) -> frozenset[int]:
    """Of ``seats`` (the guests' seats), those whose player was away from the first
    move of match ``number``: not connected when the match's first choice was made,
    nor when their own seat's first choice was (a stand-in made it), or, their seat
    having made none, when the match ended. A stand-in played such a seat from the
    first move: the match is not its guest's (docs/ratings.md, "Absent from the start").

    A player who was there at the first move, or who was back in time to make their
    seat's first choice (a reload as the hand was dealt), played the match. ``entries``:
    the table's log from its ``open`` up to (at least) the match's end."""
    start, end = match_bounds(entries, number)
    connected = _Connected()
    for e in entries[:start]:
        connected.apply(e)
    at_first: dict[int, bool] | None = None
    own_first: dict[int, bool] = {}
    for e in entries[start:end]:
        if isinstance(e, Action):
            if at_first is None:
                at_first = {s: connected(s) for s in seats}
            seat = e.seat
            if seat in seats and seat not in own_first:
                own_first[seat] = connected(seat)
        connected.apply(e)
    if at_first is None:
        return frozenset()  # no move was made: nobody was away from it
    return frozenset(s for s in seats if not at_first[s] and not own_first.get(s, connected(s)))
