"""The table core split along its concerns (capicua.table.presence, hands, lobby,
aftermatch, talk, timers, botmoves): functions over the table that hold no
reference to it, so a table nobody holds is freed by reference counting alone."""

from __future__ import annotations

import gc
import weakref

from tablesim import Sim, empty, human

from capicua.table import protocol
from capicua.table.protocol import Say


def test_a_table_that_played_is_freed_without_the_cyclic_collector() -> None:
    """The server freezes its heap and runs the cyclic collector over it only every few
    minutes (capicua.server.runtime.heap): a table in a reference cycle would outlive
    its closing by that long. Every concern of the table is exercised here: a lobby,
    a watcher, a phrase, timers, the bots, a hand played out, a player leaving."""
    gc.collect()
    gc.disable()
    try:
        sim = Sim(seats=[human(0, "Host", "p_host"), empty(1), empty(2), empty(3)], private=True,
                  host="p_host", turn_timer=30)
        sim.join(1, "p_host", "Host")
        sim.join(2, "p_b", "Beto")
        sim.intent(2, protocol.Sit(None))
        sim.join(3, None, "Mirón")
        sim.intent(1, protocol.FillSeat(2, "medio"))
        sim.intent(1, protocol.FillSeat(3, "medio"))
        sim.intent(1, protocol.Start())
        sim.intent(1, Say("hola"))
        sim.play_out_hand({0: 1, 1: 2})
        sim.leave(2)
        sim.advance(60_000)
        # The away, grace and next-hand timers ran out: Beto's stand-in plays the second hand.
        assert sim.core.seats[1].controller == "stand_in" and len(sim.core.match.hands) == 2
        table = weakref.ref(sim.core)
        del sim
        assert table() is None, "a table nobody holds is still alive: something it holds refers back to it"
    finally:
        gc.enable()
