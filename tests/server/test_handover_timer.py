"""Issue 21, item 13: a tab left open no longer blocks the table. With a turn timer
the wait between hands is timed too (TABLE.deadline ``for: "next_hand"``), and the
host of a private table can deal the next hand without waiting (``deal_now``);
anyone else gets a coded error. Also: lobby commands that would change nothing
are refused (``no_change``)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from tablesim import NEIGHBOURS, Sim, empty, human

from capicua.table import protocol
from capicua.table.protocol import Code
from capicua.table.timers import HANDOVER_FACTOR

FOUR = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"), human(2, "Carla", "p2", "yoli"),
        human(3, "Dani", "p3", "fefa")]
CONNS = {s: 10 + s for s in range(4)}


def friends(private: bool = False, **kw: Any) -> Sim:
    sim = Sim(seats=copy.deepcopy(FOUR), private=private, host="p0" if private else None, **kw)
    for s in range(4):
        sim.join(10 + s, f"p{s}", f"P{s}")
    if private:
        sim.intent(10, protocol.Start())
    return sim


def hand_over(sim: Sim) -> None:
    sim.play_out_hand(CONNS)
    if sim.core.match.phase != "hand_over":
        pytest.skip("the seed ended the match in one hand")


def snapshot(sim: Sim) -> str:
    c = sim.core
    return json.dumps([c.summary(), [c.view(s) for s in range(len(c.seats))], c.log_seq, c.seq, sorted(c.ready)],
                      sort_keys=True, default=str)


def refused(sim: Sim, conn: int, intent: protocol.Intent, code: Code) -> None:
    before, n_log = snapshot(sim), len(sim.log)
    out = sim.intent(conn, intent)
    assert out.entries == [] and out.effects == []
    assert [f["code"] for _, f in out.frames] == [str(code)], out.frames
    assert snapshot(sim) == before and len(sim.log) == n_log


def test_with_a_turn_timer_the_next_hand_is_dealt_after_the_wait() -> None:
    sim = friends(turn_timer=15)
    hand_over(sim)
    ended = sim.now
    wait = HANDOVER_FACTOR * 15_000
    assert sim.core.table_state()["deadline"] == {"for": "next_hand", "seat": None, "at": ended + wait, "ms": wait,
                                                  "left": wait}
    told = [f for a, f in sim.frames if f["type"] == "table"][-1]["table"]["deadline"]
    assert told["for"] == "next_hand"  # the players are told when it runs out
    hand = sim.view(0)["hand_number"]
    sim.intent(10, protocol.NextHand(sim.core.seq))  # Ana is ready; the others' tabs stay open, idle
    sim.advance(wait - 1)
    assert sim.view(0)["hand_number"] == hand and sim.core.match.phase == "hand_over"
    sim.advance(1)
    assert [e["op"] for e in sim.log[-2:]] == ["timer", "start_hand"]
    assert sim.log[-2]["name"] == "next_hand" and sim.log[-1]["present"] == [0, 1, 2, 3]
    assert sim.view(0)["hand_number"] == hand + 1
    assert sim.core.table_state()["deadline"]["for"] == "turn"


def test_without_a_turn_timer_nothing_deals_by_itself_but_the_host_may() -> None:
    sim = friends(private=True)
    hand_over(sim)
    hand = sim.view(0)["hand_number"]
    assert sim.core.table_state()["deadline"] is None
    sim.intent(10, protocol.NextHand(sim.core.seq))
    sim.advance(3_600_000)
    assert sim.view(0)["hand_number"] == hand  # a tab left open stalls a table with no timer…
    refused(sim, 11, protocol.DealNow(sim.core.seq), Code.NOT_HOST)
    refused(sim, 10, protocol.DealNow(sim.core.seq + 3), Code.STALE)
    out = sim.intent(10, protocol.DealNow(sim.core.seq))  # …until its host deals
    assert [(e.op, e.to_json().get("by")) for e in out.entries] == [("start_hand", "host")]
    assert sim.view(0)["hand_number"] == hand + 1
    refused(sim, 10, protocol.DealNow(sim.core.seq), Code.BAD_PHASE)


def test_deal_now_is_only_for_the_host_of_a_private_table() -> None:
    sim = Sim(seats=copy.deepcopy(NEIGHBOURS))
    sim.join(1, "p_ana", "Ana")
    sim.join(2, None, "", watch=True)
    sim.play_out_hand({0: 1})
    if sim.core.match.phase != "hand_over":
        pytest.skip("the seed ended the match in one hand")
    refused(sim, 1, protocol.DealNow(sim.core.seq), Code.NOT_HOST)  # a table against the neighbours has no host
    refused(sim, 2, protocol.DealNow(sim.core.seq), Code.NOT_HOST)
    lobby = Sim(seats=[human(0, "Host", "p_host"), empty(1), empty(2), empty(3)], private=True, host="p_host")
    lobby.join(1, "p_host", "Host")
    refused(lobby, 1, protocol.DealNow(0), Code.BAD_PHASE)


def test_deal_now_is_a_typed_intent() -> None:
    assert protocol.parse_intent('{"type": "deal_now", "seq": 12}') == protocol.DealNow(12)
    with pytest.raises(protocol.ProtocolError) as err:
        protocol.parse_intent('{"type": "deal_now"}')
    assert err.value.code == Code.MALFORMED


# ------------------------------------------------------------ lobby commands that change nothing


def lobby() -> Sim:
    sim = Sim(seats=[human(0, "Host", "p_host"), empty(1), empty(2), empty(3)], private=True, host="p_host")
    sim.join(1, "p_host", "Host")
    sim.join(2, "p_b", "Beto")
    sim.intent(2, protocol.Sit(1))
    return sim


def test_clearing_an_empty_seat_is_refused() -> None:
    sim = lobby()
    refused(sim, 1, protocol.ClearSeat(3), Code.NO_CHANGE)


def test_moving_a_seat_to_itself_or_between_two_empty_seats_is_refused() -> None:
    sim = lobby()
    refused(sim, 1, protocol.MoveSeat(1, 1), Code.NO_CHANGE)
    refused(sim, 1, protocol.MoveSeat(2, 3), Code.NO_CHANGE)
    assert [e.op for e in sim.intent(1, protocol.MoveSeat(1, 3)).entries][0] == "move"  # a real move still moves
