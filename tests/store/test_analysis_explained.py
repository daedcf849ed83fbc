"""What precision is made of, in the analysis's answer (issue 21, item 6): each
seat's hand carries ``at_stake`` (the points its decisions could change) and
``lost`` (the points the moves played gave up), so the replay can say "lo que
se jugaba: N puntos" without re-deriving it; a hand stored before the answer
carried them is served with them too."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_answers import analysis_answer
from test_analysis_store import BUDGET, played_table

from capicua.bots import analysis
from capicua.server.analyst import Analyst
from capicua.store import Store
from capicua.store import analyses as stored


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    s.migrate()
    yield s
    s.close()


def spread(decision: dict[str, Any]) -> float:
    values = [m["value"] for m in decision["moves"]]
    return max(values) - min(values)


def test_a_hands_analysis_says_what_was_at_stake_and_what_was_given_up(store: Store) -> None:
    record = played_table(store, "t_expl1", "an-expl-1")
    [mine] = analysis.analyse_hand(record, 1, [0], table="t_expl1", budget_ms=BUDGET)
    decisions = mine["decisions"]
    assert decisions, "the seat had choices to judge"
    assert mine["at_stake"] == pytest.approx(sum(spread(d) for d in decisions), abs=0.011)
    assert mine["lost"] == pytest.approx(sum(d["lost"] for d in decisions), abs=0.011)
    assert 0 <= mine["lost"] <= mine["at_stake"]
    # The precision is what those two say: the share of what was at stake that was kept.
    if mine["at_stake"] > 0:
        assert mine["precision"] == pytest.approx(100 * (1 - mine["lost"] / mine["at_stake"]), abs=0.15)
    # A hand without decisions had nothing at stake.
    assert analysis.seat_summary(1, 2, [])["at_stake"] == 0 and analysis.seat_summary(1, 2, [])["lost"] == 0


def test_a_hand_stored_without_its_stakes_is_served_with_them(store: Store) -> None:
    record = played_table(store, "t_expl2", "an-expl-2")
    [mine] = analysis.analyse_hand(record, 1, [0], table="t_expl2", budget_ms=BUDGET)
    old = {k: v for k, v in mine.items() if k not in ("at_stake", "lost")}  # as analyses were stored before
    stored.save(store, "t_expl2", 1, 1, [old])

    status, body = asyncio.run(analysis_answer(Analyst(store, None), "t_expl2", "1"))
    assert status == 200 and body["status"] == "ready"
    [served] = body["hands"]
    assert served["at_stake"] == mine["at_stake"] and served["lost"] == mine["lost"]
    assert {k: v for k, v in served.items() if k not in ("at_stake", "lost")} == old
