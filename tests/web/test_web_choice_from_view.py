"""The page reads the end choice and the five-doubles question from the VIEW, never
from rules of its own (issue 22, item 4): a tile that fits two ends asks "¿por dónde?"
only when the view's ends say they are different moves (their ``outcome``), and the
five-doubles question is asked of the seat whose view's legal moves are its answers.

Views made by the engine (``Match.view``), delivered through the fake websocket of
tests/webfake.py to the table page in headless Chromium."""

from __future__ import annotations

import random
from typing import Any

import pytest
import test_web_static as web
from test_web_static import base_view, open_table
from webfake import sent

from capicua.engine import Match, RedealAnswer, make_rules, parse_action

browser = web.browser
base_url = web.base_url
server = web.server

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web")]


def _double_and_plain(preset: str) -> tuple[dict[str, Any], list[int], int]:
    """An engine view of a seat on turn holding a tile that fits two ends showing the same
    number, one with a double at it and one without; the tile and that number."""
    rules = make_rules(preset)
    for game in range(400):
        match = Match(rules, seed=f"double-and-plain-{game}")
        match.start_hand()
        rng = random.Random(game)
        while match.phase in ("play", "redeal_question"):
            seat = match.turn
            assert seat is not None
            if match.phase == "redeal_question":
                match.apply(seat, RedealAnswer(False))
                continue
            view = match.view(seat)
            ends = {e["end"]: e for e in view["ends"]}
            for a in view["legal"]:
                for b in view["legal"]:
                    if a["tile"] == b["tile"] and a["end"] and b["end"] and a["end"] < b["end"]:
                        ea, eb = ends[a["end"]], ends[b["end"]]
                        if ea["value"] == eb["value"] and ea["double"] != eb["double"] and ea["value"] > 0 \
                                and sum(1 for m in view["legal"] if m["tile"] == a["tile"]) == 2:
                            return view, a["tile"], ea["value"]
            match.apply(seat, parse_action(rng.choice(view["legal"]), rules.max_pip))
    raise AssertionError(f"no such position in {preset}")


def _open_at(browser: Any, base_url: str, view: dict[str, Any]) -> tuple[Any, Any]:
    return open_table(browser, base_url, view=view, seq=40,
                      table=web.table_state(web.SEATS[: view["rules"]["players"]], preset=view["rules"]["preset"]))


def test_two_ends_of_one_outcome_are_one_move_and_the_tile_plays_at_once(browser: Any, base_url: str) -> None:
    """Cubano: a double at an end changes nothing any rule reads: no question."""
    view, tile, _ = _double_and_plain("cubano")
    ctx, page = _open_at(browser, base_url, view)
    try:
        page.click(f'[data-testid="tile"][data-tile="{tile[0]}-{tile[1]}"]')
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert len(plays) == 1 and plays[0]["tile"] == tile, plays
        assert page.locator('[data-testid="end-choice"]').count() == 0
        assert page.errors == []
    finally:
        ctx.close()


def test_two_ends_of_different_outcomes_are_asked_for(browser: Any, base_url: str) -> None:
    """All Fives: a double at an end counts twice in the open count: two moves, asked."""
    view, tile, value = _double_and_plain("all-fives")
    ctx, page = _open_at(browser, base_url, view)
    try:
        page.click(f'[data-testid="tile"][data-tile="{tile[0]}-{tile[1]}"]')
        labels = page.eval_on_selector_all('[data-testid="end-choice"]', "els => els.map(e => e.textContent)")
        assert sorted(labels) == [f"al {value}", f"al doble {value}"], labels
        assert [f for f in sent(page) if f["type"] == "play"] == []
        assert page.errors == []
    finally:
        ctx.close()


def test_the_five_doubles_question_is_asked_of_the_seat_whose_legal_moves_answer_it(browser: Any, base_url: str) -> None:
    """Five doubles in hand are not the question: the view's legal answers are."""
    hand = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 6], [7, 8], [1, 9], [2, 7], [3, 8]]
    waiting = base_view(phase="redeal_question", turn=2, center=None, arms={}, ends=[], last=None, hand=hand,
                        counts=[10, 10, 10, 10], redeal_pending=[2, 0], legal=[],
                        rules=dict(web.RULES, redeal_five_doubles="on_request"))
    ctx, page = open_table(browser, base_url, view=waiting, seq=3)
    try:
        box = page.locator("#redeal-ask")
        assert box.is_visible() and box.locator("button").count() == 0
        assert box.inner_text() == "Alguien tiene cinco dobles y está decidiendo si se da agua otra vez…"
    finally:
        ctx.close()
    # Asked whatever the hand holds (how many doubles make the question is the engine's rule):
    # here four doubles, and the legal answers.
    four = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 5], [5, 6], [7, 8], [1, 9], [2, 7], [3, 8]]
    asked = dict(waiting, turn=0, hand=four, redeal_pending=[0], legal=[{"redeal": True}, {"redeal": False}])
    ctx, page = open_table(browser, base_url, view=asked, seq=3)
    try:
        box = page.locator("#redeal-ask")
        assert box.locator("button").count() == 2
        box.locator("button.btn-primary").click()
        assert sent(page)[-1] == {"type": "redeal", "seq": 3, "accept": True}
    finally:
        ctx.close()
