"""The table log's one reader and writer (capicua.table.log): every kind of entry reads
from its stored JSON and writes the same JSON back; an unknown op or a malformed entry
is a clear error; and a table loaded from its log builds its state, not its frames."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tablesim import Sim, empty, human, replayed

from capicua.engine import Match
from capicua.table import log, protocol
from capicua.table.core import TableCore
from capicua.table.log import LogError, read_entry, read_log, write_log

STORED: list[dict[str, Any]] = [
    {"op": "open", "format": log.LOG_FORMAT, "at": 5, "table": "t_1", "preset": "cubano", "options": {"target": 50},
     "secret": "s", "private": True, "host": "p_a",
     "seats": [{"seat": 0, "kind": "human", "name": "Ana", "player": "p_a"}, {"seat": 1, "kind": "empty", "name": ""}],
     "settings": {"grace": 30, "turn_timer": 0}},
    {"op": "open", "format": log.LOG_FORMAT, "at": 0, "table": "t_2", "preset": "cubano", "options": {}, "secret": "s",
     "private": False, "host": None, "seats": [], "settings": {"grace": 60, "turn_timer": 20}, "seed": "fixed"},
    {"op": "presence", "seat": 1, "online": True, "at": 7},
    {"op": "presence", "seat": 1, "online": False, "since": 3, "at": 7},
    {"op": "presence", "seat": 1, "online": False, "at": 7},
    {"op": "watchers", "n": 2, "at": 7},
    {"op": "reopen", "at": 7},
    {"op": "sit", "seat": 2, "player": "p_b", "name": "Beto", "character": "cuca", "level": "medio", "at": 7},
    {"op": "stand", "seat": 2, "at": 7},
    {"op": "move", "seat": 1, "to": 2, "at": 7},
    {"op": "fill", "seat": 3, "level": "experto", "character": "yoli", "name": "Yoli", "at": 7},
    {"op": "clear", "seat": 3, "at": 7},
    {"op": "configure", "grace": 60, "turn_timer": 30, "at": 7},
    {"op": "start", "at": 7},
    {"op": "start_hand", "present": [0, 2], "at": 7},
    {"op": "start_hand", "present": [], "by": "host", "at": 7, "watched": True},
    {"op": "action", "seat": 0, "action": {"tile": [6, 6], "end": None}, "by": "human", "at": 7},
    {"op": "action", "seat": 1, "action": {"redeal": False}, "by": "timeout", "at": 7, "watched": True},
    {"op": "ready", "seat": 0, "at": 7},
    {"op": "say", "seat": 0, "phrase": "agua", "at": 7},
    {"op": "timer", "name": "turn", "seat": 2, "at": 7},
    {"op": "timer", "name": "next_hand", "at": 7},
    {"op": "controller", "seat": 2, "to": "stand_in", "at": 7},
    {"op": "stand_in", "seat": 2, "at": 7},
    {"op": "rematch", "at": 7},
    {"op": "rematch", "lobby": True, "at": 7},
]


@pytest.mark.parametrize("stored", STORED, ids=lambda e: e["op"])
def test_every_kind_reads_and_writes_back_the_same_json(stored: dict[str, Any]) -> None:
    entry = read_entry(copy.deepcopy(stored))
    assert entry.op == stored["op"] and type(entry).op == stored["op"]
    assert entry.to_json() == stored
    assert list(entry.to_json()) == list(stored)  # the keys in the order the table always wrote them


def test_entries_of_before_read_with_their_defaults() -> None:
    # Logs of tests and of before: no time, no settings, no watched.
    assert read_entry({"op": "rematch"}) == log.Rematch(at=0)
    assert read_entry({"op": "start_hand"}) == log.StartHand(None)
    assert read_entry({"op": "start_hand"}).to_json() == {"op": "start_hand", "at": 0}
    opening = read_entry({"op": "open", "table": "t", "preset": "cubano", "options": {}, "secret": "s", "seats": []})
    assert isinstance(opening, log.Open)
    assert (opening.grace, opening.turn_timer, opening.private, opening.host) == (30, 0, False, None)


def test_an_unknown_op_or_a_malformed_entry_is_a_clear_error() -> None:
    with pytest.raises(LogError, match="unknown table log entry op 'teleport'"):
        read_entry({"op": "teleport", "seat": 1})
    with pytest.raises(LogError, match="unknown table log entry op None"):
        read_entry({"seat": 1})
    with pytest.raises(LogError, match=r"malformed 'action' entry \(KeyError: 'by'\)"):
        read_entry({"op": "action", "seat": 0, "action": {}})
    with pytest.raises(LogError, match="malformed 'say' entry"):
        read_entry({"op": "say", "seat": "two", "phrase": "agua"})
    with pytest.raises(LogError, match="begins with an open entry"):
        read_log([{"op": "start_hand", "present": [0]}])
    with pytest.raises(LogError, match="begins with an open entry"):
        read_log([])


def played_log() -> Sim:
    """A private table through its lobby, a hand, phrases, a gone player and a reload."""
    sim = Sim(seats=[human(0, "Host", "p_host"), empty(1), empty(2), empty(3)], private=True, host="p_host",
              turn_timer=30)
    sim.join(1, "p_host", "Host")
    sim.join(2, "p_b", "Beto")
    sim.intent(2, protocol.Sit(None))
    sim.intent(1, protocol.MoveSeat(1, 2))
    sim.intent(1, protocol.FillSeat(1, "medio"))
    sim.intent(1, protocol.FillSeat(3, "experto"))
    sim.intent(1, protocol.Configure(45, 30))
    sim.join(9, None, "", watch=True)
    sim.intent(1, protocol.Start())
    sim.intent(1, protocol.Say("agua"))
    sim.answer_bots()
    sim.leave(2)
    sim.advance(60_000)  # Beto's grace runs out: his stand-in plays
    sim.answer_bots()
    sim.join(12, "p_b", "Beto")
    sim.play_out_hand({0: 1, 2: 12})
    return sim


def test_a_played_log_reads_and_writes_back_unchanged() -> None:
    sim = played_log()
    ops = {e["op"] for e in sim.log}
    assert ops >= {"open", "sit", "move", "fill", "configure", "start", "start_hand", "action", "say", "presence",
                   "timer", "controller"}
    assert write_log(read_log(copy.deepcopy(sim.log))) == sim.log
    core, frames = replayed(sim.log)
    assert [core.view(s) for s in range(4)] == [sim.core.view(s) for s in range(4)] and frames


def test_loading_a_table_builds_its_state_and_no_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """from_log replays the entries into the state only: the frames (every seat's view of
    every change, the neighbours' talk) are built for the sockets that connect, once."""
    sim = played_log()
    entries = read_log(copy.deepcopy(sim.log))
    built: list[str] = []

    def counting(name: str, real: Any) -> Any:
        def build(*args: Any, **kwargs: Any) -> Any:
            built.append(name)
            return real(*args, **kwargs)
        return build

    for name in ("batch_frame", "said_frame", "table_frame", "sync_frame", "welcome_frame"):
        monkeypatch.setattr(protocol, name, counting(name, getattr(protocol, name)))
    monkeypatch.setattr(Match, "view", counting("view", Match.view))
    core = TableCore.from_log(entries)
    assert built == []
    assert [core.view(s) for s in range(4)] == [sim.core.view(s) for s in range(4)]  # (views asked now: counted)
    assert {k: v for k, v in core.summary().items() if k != "watchers"} == {
        k: v for k, v in sim.core.summary().items() if k != "watchers"}
    assert core.recent_events() == sim.core.recent_events()
    built.clear()
    TableCore.from_log(entries, frames=[])
    assert {"batch_frame", "table_frame", "view"} <= set(built)  # asked for, the frames are built as they were sent
