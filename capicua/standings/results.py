"""A finished match as data: one :class:`SeatResult` per seat, from the engine's
record and who sat where. Pure: the store writes these rows in the same
transaction as the match's last log entry, and nothing reads the record again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from capicua.engine import rules_from_json

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


def match_results(
    record: dict[str, Any], seats: list[SeatAtTable], leavers: frozenset[int]
) -> list[SeatResult]:
    """One row per seat of a finished match's ``record`` (``record["result"]`` set)."""
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
        rows.append(
            SeatResult(
                seat=s.seat,
                player=s.player if s.kind == HUMAN else None,
                bot_level=s.level if s.kind == BOT else None,
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
                left_for_good=s.seat in leavers and s.kind == HUMAN,
            )
        )
    return rows


def _last_tile(hand: dict[str, Any], seat: int) -> list[int] | None:
    plays = [a["play"] for a in hand["actions"] if a.get("seat") == seat and "play" in a]
    return sorted(plays[-1]) if plays else None


def leavers_of(entries: list[dict[str, Any]]) -> frozenset[int]:
    """The seats a stand-in held when the match ended, from the table log: a
    ``controller`` entry hands a seat to the stand-in when its grace ran out and
    back to the player when they return, so the last one per seat says how the
    match ended (a player gone in an earlier match and never back is still gone)."""
    last: dict[int, str] = {}
    for e in entries:
        if e.get("op") == "controller":
            last[int(e["seat"])] = str(e["to"])
    return frozenset(seat for seat, to in last.items() if to == "stand_in")
