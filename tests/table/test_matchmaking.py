"""Who the parque's matcher seats together (capicua.table.matchmaking), as a pure
function: the rating window widens with the wait, neighbours only for players who
accept them and only once a wait ran out, nobody in two groups, the seats of four."""

from __future__ import annotations

import random

from tablesim import Sim, bot, human

from capicua.engine.rules import make_rules
from capicua.table.commands import Reopen
from capicua.table.matchmaking import WAITS, Group, Waiting, match, seat_order


def seats_of(preset: str) -> int:
    return make_rules(preset).players


def w(player: str, rating: float, joined_s: float = 0, wait: int | None = None, preset: str = "cubano") -> Waiting:
    return Waiting(player, preset, rating, int(joined_s * 1000), wait)


def test_the_window_widens_with_the_wait() -> None:
    a, b = w("a", 20.0, preset="mano-a-mano"), w("b", 30.0, preset="mano-a-mano")
    assert match([a, b], 0, seats_of) == []  # 10 apart, the window is ±3
    assert match([a, b], 27_000, seats_of) == []  # ±9.75
    assert match([a, b], 28_000, seats_of) == [Group("mano-a-mano", ("a", "b"))]  # ±10


def test_neighbours_only_once_a_wait_ran_out_and_never_for_nunca() -> None:
    alone = [w("a", 25.0, wait=30), w("n", 25.0, wait=None)]
    assert match(alone, 29_999, seats_of) == []
    # a's 30 s ran out: a plays with neighbours; n, who said never, is not seated with them
    assert match(alone, 30_000, seats_of) == [Group("cubano", ("a", None, None, None))]
    assert match([w("n", 25.0)], 3_600_000, seats_of) == []


def test_a_full_table_seats_the_strongest_with_the_weakest() -> None:
    four = [w("p1", 24.0), w("p2", 26.0), w("p3", 25.0), w("p4", 23.0)]
    [group] = match(four, 0, seats_of)
    assert group.seats == ("p4", "p1", "p2", "p3")  # partners: p4 and p2 (seats 0, 2), p1 and p3
    assert seat_order(four[:2], 4) == ("p1", "p2", None, None)


def test_games_are_never_mixed() -> None:
    waiting = [w("a", 25.0, wait=30), w("b", 25.0, wait=30, preset="mano-a-mano")]
    assert sorted(g.preset for g in match(waiting, 30_000, seats_of)) == ["cubano", "mano-a-mano"]


def test_random_queues_put_nobody_in_two_groups_and_keep_each_choice() -> None:
    rng = random.Random(24)
    for _ in range(300):
        now = rng.randrange(0, 200_000)
        waiting = [
            w(f"p{i}", rng.uniform(10, 40), rng.uniform(0, now / 1000), rng.choice(WAITS), rng.choice(["cubano", "mano-a-mano"]))
            for i in range(rng.randrange(0, 30))
        ]
        by_id = {x.player: x for x in waiting}
        groups = match(waiting, now, seats_of)
        seated = [p for g in groups for p in g.players]
        assert len(seated) == len(set(seated))
        for g in groups:
            n = seats_of(g.preset)
            assert len(g.seats) == n and all(by_id[p].preset == g.preset for p in g.players)
            if len(g.players) < n:  # neighbours at this table: everyone accepts them, and one's wait ran out
                assert all(by_id[p].wait_s is not None for p in g.players)
                assert any(by_id[p].due(now) for p in g.players)


# ------------------------------------------------------------ a matched table whose player never came


def matched_table() -> Sim:
    """Two strangers the matcher seated (seats 0 and 1) and two neighbours, as plan_tables opens it."""
    return Sim([human(0, "Ana", "p_ana"), human(1, "Beto", "p_beto", "cuca"), bot(2, "Pancho", "pancho"),
                bot(3, "Yoli", "yoli")], grace=30)


def test_the_first_deal_waits_a_grace_window_for_a_player_who_never_came_then_the_stand_in_plays() -> None:
    sim = matched_table()
    out = sim.join(1, "p_ana", "Ana")
    assert "start_hand" not in [e.op for e in out.entries]  # Beto is not here yet
    sim.advance(29_000)
    assert sim.core.match.phase == "new"
    sim.advance(1_000)  # the table's grace (30 s from its opening) ran out
    ops = [e["op"] for e in sim.log]
    assert ops[-3:] == ["timer", "controller", "start_hand"] and sim.core.seats[1].stood_in
    assert sim.log[-1]["present"] == [0]
    sim.join(2, "p_beto", "Beto")  # late: Beto takes his seat back from the stand-in
    assert not sim.core.seats[1].stood_in and sim.core.seats[1].online


def test_the_first_deal_goes_at_once_when_both_come_and_nothing_runs_while_nobody_is_there() -> None:
    sim = matched_table()
    sim.join(1, "p_ana", "Ana")
    out = sim.join(2, "p_beto", "Beto")
    assert [e.op for e in out.entries][-1] == "start_hand" and sim.timers == {}
    alone = matched_table()
    alone.send(Reopen())  # loaded: the timers it waits for are asked for
    alone.advance(120_000)  # nobody came: no stand-in deals for an empty table
    assert [e["op"] for e in alone.log] == ["open"] and alone.timers == {}
