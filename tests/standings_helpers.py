"""Scripted matches for the standings tests: engine matches played with chosen
seeds, and tables in the store that finish them through the log's append."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from capicua.engine import Match, make_rules
from capicua.store import Store, tablelogs


def play(seed: str, preset: str = "cubano", **options: Any) -> dict[str, Any]:
    """A whole match with uniformly random legal moves: its record."""
    m = Match(make_rules(preset, **options), seed)
    rng = random.Random(seed)
    while m.phase != "match_over":
        if m.hand is None or m.phase == "hand_over":
            m.start_hand()
        else:
            moves = m.legal_moves()
            assert m.turn is not None
            m.apply(m.turn, moves[rng.randrange(len(moves))])
    return m.record()


def find(predicate: Any, preset: str = "cubano", tries: int = 400, **options: Any) -> dict[str, Any]:
    """The first record of seeds ``f0, f1, …`` that ``predicate`` accepts."""
    for i in range(tries):
        record = play(f"f{i}", preset, **options)
        if predicate(record):
            return record
    raise AssertionError("no seed gives such a match")


def seats(humans: dict[int, str], levels: dict[int, str] | None = None, players: int = 4) -> list[dict[str, Any]]:
    """Seat entries: guests at ``humans`` (seat → player id), neighbours elsewhere."""
    out = []
    for s in range(players):
        if s in humans:
            out.append({"seat": s, "kind": "human", "name": f"G{s}", "player": humans[s], "level": "botagorda",
                        "character": "fefa"})
        else:
            level = (levels or {}).get(s, "botagorda")
            out.append({"seat": s, "kind": "bot", "name": f"B{s}", "level": level, "character": f"c{s}"})
    return out


class Table:
    """A table in the store whose matches end through :func:`tablelogs.append_many`."""

    def __init__(self, store: Store, table_id: str, seat_entries: list[dict[str, Any]], private: bool = False,
                 preset: str = "cubano", options: dict[str, Any] | None = None) -> None:
        from capicua.table.log import Open

        self.store, self.id, self.seq, self.number = store, table_id, 1, 1
        entry = Open(table_id, preset, options or {}, "sec", tuple(seat_entries), private).to_json()
        teams = make_rules(preset, **(options or {})).teams
        tablelogs.create_table(store, entry, "seed", teams)

    def log(self, *entries: dict[str, Any]) -> None:
        got = tablelogs.append_many(self.store, [tablelogs.Append(self.id, self.seq + 1, list(entries))])
        assert got == [None]
        self.seq += len(entries)

    def finish(self, record: dict[str, Any], *entries: dict[str, Any]) -> list[Exception | None]:
        """The append that ends the current match (its projection: finished, with the record)."""
        body = list(entries) or [{"op": "action", "seat": 0, "action": {}, "by": "human"}]
        a = tablelogs.Append(self.id, self.seq + 1, body, status="finished", scores=list(record["scores"]),
                             match_number=self.number, record=record)
        got = tablelogs.append_many(self.store, [a])
        if got == [None]:
            self.seq += len(body)
        return got

    def rematch(self) -> None:
        self.log({"op": "rematch"})
        self.number += 1


def at(day: int) -> datetime:
    return datetime(2026, 11, day, 12, 0, 0)
