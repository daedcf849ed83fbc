"""The replay's pure part (capicua.table.replay), without a server: a finished match
played again from its record tells every event as the live table told its
spectators, with who made each move read from the typed log."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tablesim import Sim, bot, human

from capicua.table import protocol
from capicua.table.log import read_log
from capicua.table.protocol import ALL, PUBLIC
from capicua.table.replay import UNTOLD, NotTheRecord, choices_by, hands, told_by_the_log

SEATS = [human(0, "Ana", "p_ana", "mima"), bot(1, "Cuca", "cuca"), human(2, "Beto", "p_beto", "pancho"),
         bot(3, "Yoli", "yoli")]


def watched_match() -> Sim:
    """A match to 50 played to its end with a spectator watching from the start; Beto's
    turn runs out once (his stand-in plays on time-out)."""
    sim = Sim(seats=copy.deepcopy(SEATS), options={"target": 50}, seed="pure-replay", turn_timer=10)
    sim.join(1, "p_ana", "Ana")
    sim.join(3, None, "Mirón")
    sim.join(2, "p_beto", "Beto")
    sim.intent(1, protocol.Say("hola"))
    timed_out = False
    for _ in range(5_000):
        sim.answer_bots()
        m = sim.core.match
        if m.phase == "match_over":
            return sim
        if m.phase == "hand_over":
            for conn in (1, 2):
                if sim.core.match.phase == "hand_over":
                    sim.intent(conn, protocol.NextHand(sim.core.seq))
            continue
        seat = m.turn
        if seat == 2 and not timed_out:
            timed_out = True
            sim.advance(10_000)
            continue
        assert seat in (0, 2), f"nobody plays seat {seat}"
        sim.play_first_legal(1 if seat == 0 else 2, seat)
    raise AssertionError("the match never ended")


def test_a_replay_tells_each_event_as_the_live_table_told_its_spectators() -> None:
    sim = watched_match()
    record = sim.core.match.record()
    told = told_by_the_log(read_log(copy.deepcopy(sim.log)), 1)
    replayed = [(e["seq"], e["event"]) for hand in hands(record, told) for f in hand["frames"] for e in f["events"]]
    live = [(e["seq"], e["event"]) for f in sim.frames_to(PUBLIC) if f["type"] == "events" for e in f["events"]]
    assert replayed == live
    bys = {ev.get("by") for _, ev in replayed}
    assert {"human", "bot", "timeout", "auto"} <= bys
    assert told.said == [f for f in sim.frames_to(ALL) if f["type"] == "said"]  # the players' and the neighbours'
    assert told.said[0]["phrase"] == "hola"
    assert told.players == {"p_ana", "p_beto"} and told.table is not None and told.table["status"] == "finished"


def test_who_made_each_choice_is_read_per_hand_of_the_match_asked_for() -> None:
    sim = watched_match()
    entries = read_log(copy.deepcopy(sim.log))
    by = choices_by(entries, 1)
    assert len(by) == len(sim.core.match.hands)
    assert sum(len(hand) for hand in by) == sum(1 for e in sim.log if e["op"] == "action")
    assert choices_by(entries, 2) == []  # no second match was played


def test_a_record_the_engine_does_not_give_again_is_refused_after_its_last_hand() -> None:
    sim = watched_match()
    record = sim.core.match.record()
    record["scores"] = [s + 1 for s in record["scores"]]
    played: list[Any] = []
    with pytest.raises(NotTheRecord):
        for hand in hands(record, UNTOLD):
            played.append(hand)
    assert len(played) == len(record["hands"])  # every hand was told before the refusal
