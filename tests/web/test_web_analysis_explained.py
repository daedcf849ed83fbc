"""The experto's analysis on the replay page, explained (issue 21, item 6), in
headless Chromium on the real server, with the analysis the server computes
(stored for the match by the pure function the analyst runs, at a small budget)
and serves: under each precision a line saying what it measures and one saying
what was at stake and what was given up ("1 punto" in the singular); at a costly
decision the experto's move as a ghost tile on the board, at the step the choice
was made from, with a comment over the board (on a phone too, not far below it);
the step after says what was played instead. Screenshots: /work/shots/W2/."""

from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from typing import Any

import pytest
import test_web_static as web
from test_replay import finished_match
from test_web_replay import WAIT_MS, wait_at

from capicua.bots import analysis
from capicua.server.analyst import expected
from capicua.store import Store
from capicua.store import analyses as stored

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
SHOTS = Path(os.environ.get("CAPICUA_SHOTS", "/work/shots/W2"))
BUDGET = 10.0  # ms: a small experto, the same analysis every time


def open_page(browser: Any, url: str, width: int, height: int) -> tuple[Any, Any]:
    """A page at ``url`` in Spanish (the page's own choice, whatever the browser's language)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce", locale="es-ES")
    ctx.add_init_script("localStorage.setItem('capicua.lang', 'es');")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return ctx, page


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name))


def analysed_match(srv: Any, seed: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A finished match whose analysis is stored (the server's analyst is kept out of
    it: backlog 0) and served ready: the table id, the record and the served answer."""
    srv.app.state.deps.analyst.backlog = 0
    table_id, record = finished_match(srv, seed=seed, say=None)
    store = Store(srv.database_url)
    try:
        inputs = stored.inputs(store, table_id, 1)
        assert inputs is not None
        for hand, (seats, chosen_by) in expected(inputs, 1).items():
            results = analysis.analyse_hand(record, hand, seats, table_id, 1, budget_ms=BUDGET, chosen_by=chosen_by)
            stored.save(store, table_id, 1, hand, results)
    finally:
        store.close()
    answer = srv.get(f"/api/analysis/{table_id}/1").json()
    assert answer["status"] == "ready" and answer["hands"], answer
    return table_id, record, answer


def step_of(record: dict[str, Any], hand: int, index: int) -> int:
    """The replay step that played action ``index`` of hand ``hand`` (0-based): one step per choice."""
    return sum(1 for a in record["hands"][hand]["actions"][: index + 1] if "play" in a or "redeal" in a)


def a_costly_move_on_an_end(record: dict[str, Any], answer: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first costliest decision whose better move goes on an end (not a lead), and its hand's analysis."""
    for a in answer["hands"]:
        for d in a["decisions"]:
            if d["index"] in a["costliest"] and d["best"]["end"] is not None and step_of(record, a["hand"] - 1, d["index"]) > 1:
                return a, d
    raise AssertionError("no costly decision on an end in this match")


def tenths(x: float) -> float:
    """``x`` to one decimal as the page rounds it (JavaScript's Math.round of x × 10, not Python's round)."""
    return math.floor(abs(x) * 10 + 0.5) / 10


def es_number(x: float) -> str:
    return (f"{tenths(x):.1f}".rstrip("0").rstrip(".")).replace(".", ",")


def es_points(x: float) -> str:
    return "1 punto" if tenths(x) == 1 else f"{es_number(x)} puntos"


def move_words(before: dict[str, Any], move: dict[str, Any]) -> str:
    """A move in the page's words ("el 6-4 al 4", "doble 3 al doble 5"), on the table ``before`` it (a VIEW)."""
    a, b = move["tile"]
    tile = f"doble {a}" if a == b else f"{a}-{b}"
    end = next(e for e in before["ends"] if e["end"] == move["end"])
    return f"{tile} al doble {end['value']}" if end["double"] else f"{tile} al {end['value']}"


def box(page: Any, selector: str) -> dict[str, float]:
    b = page.locator(selector).bounding_box()
    assert b is not None, selector
    return dict(b)


def test_the_analysis_is_explained_and_the_experts_move_shows_on_the_board(browser: Any, live_server: Any) -> None:
    srv = live_server()
    table_id, record, answer = analysed_match(srv, "explained-web")
    mine, d = a_costly_move_on_an_end(record, answer)
    hi = mine["hand"] - 1
    step = step_of(record, hi, d["index"])
    before = srv.get(f"/api/replay/{table_id}/1").json()["hands"][hi]["frames"][step - 1]["view"]
    for width, height in ((1280, 860), (360, 760)):
        ctx, page = open_page(browser, f"{srv.base}/replay/{table_id}/1#h{hi + 1}m0", width=width, height=height)
        try:
            wait_at(page, hi, 0)
            # Under the precision: what it measures, what was at stake and what was given up.
            seat0 = '[data-seat="0"]'
            page.locator(f'[data-testid="replay-precision-explained"]{seat0}').wait_for(timeout=WAIT_MS)
            n = es_number(mine["precision"])
            assert page.inner_text(f'[data-testid="replay-precision"]{seat0}') == f"Precisión de Ana: {n} %"
            assert page.inner_text(f'[data-testid="replay-precision-explained"]{seat0}') == (
                f"De lo que las decisiones de Ana podían cambiar, conservó el {n} %.")
            assert page.inner_text(f'[data-testid="replay-stake"]{seat0}') == (
                f"Lo que se jugaba en esas decisiones: {es_points(mine['at_stake'])}; se dejó ir {es_points(mine['lost'])}.")
            # No ghost before the step the costly choice was made from.
            assert page.locator('[data-testid="expert-ghost"]').count() == 0
            # "Verlo en la mesa" beside the mark: the table as Ana saw it when choosing.
            page.locator(f'.rp-step[data-step="{step}"] [data-testid="replay-see"]').first.click()
            wait_at(page, hi, step - 1)
            ghost = page.locator('[data-testid="board"] [data-testid="expert-ghost"]')
            ghost.wait_for(timeout=WAIT_MS)
            assert ghost.count() == 1
            assert ghost.get_attribute("data-end") == d["best"]["end"]
            assert ghost.get_attribute("data-tile") == f"{d['best']['tile'][0]}-{d['best']['tile'][1]}"
            assert page.locator('[data-testid="board"] [data-testid="ghost"]').count() == 0  # not a ghost to tap
            best = move_words(before, d["best"])
            choosing = page.locator('[data-testid="replay-coach-line"][data-when="choosing"]')
            assert choosing.inner_text() == f"Le toca a Ana. El experto jugaría el {best}: la ficha clara en la mesa."
            # The comment is over the board, not far below it (the analysis is, on a phone), and in
            # sight: "Verlo en la mesa" brings the table up, the comment with it.
            page.wait_for_function("window.scrollY === 0", timeout=WAIT_MS)
            board, coach = box(page, '[data-testid="board"]'), box(page, '[data-testid="replay-coach"]')
            assert board["y"] <= coach["y"] and coach["y"] + coach["height"] <= board["y"] + board["height"] + 1, (board, coach)
            assert coach["x"] >= 0 and coach["x"] + coach["width"] <= width
            assert 0 <= coach["y"] and coach["y"] + coach["height"] <= height, coach
            # It never hides the ghost it speaks of.
            g = box(page, '[data-testid="expert-ghost"]')
            assert g["y"] + g["height"] <= coach["y"] or coach["y"] + coach["height"] <= g["y"], (g, coach)
            web.assert_no_hscroll(page, width)
            shot(page, f"analysis-ghost-{width}.png")
            # One step on: what was played instead, the ghost gone.
            page.keyboard.press("ArrowRight")
            wait_at(page, hi, step)
            played = page.locator('[data-testid="replay-coach-line"][data-when="played"]')
            played.wait_for(timeout=WAIT_MS)
            assert played.inner_text() == (
                f"Ana jugó el {move_words(before, d['played'])}; el experto hubiera jugado el {best} (−{es_points(d['lost'])}).")
            page.wait_for_function("!document.querySelector('[data-testid=\"expert-ghost\"]')", timeout=WAIT_MS)
            shot(page, f"analysis-played-{width}.png")
            if width == 1280:
                page.locator(".replay-info").scroll_into_view_if_needed()
                shot(page, "analysis-explained-1280.png")
                page.click('[data-testid="lang-toggle"]')
                page.locator('[data-testid="replay-precision-explained"]', has_text="choices could change").first.wait_for(timeout=WAIT_MS)
                en = page.inner_text(f'[data-testid="replay-precision-explained"]{seat0}')
                assert en == f"Of what Ana’s choices could change, {n.replace(',', '.')} % was kept."
                assert page.inner_text('[data-testid="replay-coach-line"]').startswith("Ana played ")
            else:
                page.evaluate("document.querySelector('[data-testid=\"replay-analysis\"]').scrollIntoView()")
                shot(page, "analysis-explained-360.png")
            assert page.errors == []  # type: ignore[attr-defined]
        finally:
            ctx.close()

    # One point is "1 punto"; a hand whose every move was forced says so instead of "0 %".
    one = copy.deepcopy(answer)
    hand = next(a for a in one["hands"] if a["hand"] == mine["hand"] and a["seat"] == 0)
    costly = next(x for x in hand["decisions"] if x["index"] == d["index"])
    costly["lost"], hand["at_stake"], hand["lost"] = 1.0, 1.0, 1.0
    one["hands"].append({"hand": mine["hand"], "seat": 2, "precision": None, "at_stake": 0, "lost": 0, "decisions": [],
                         "costliest": []})
    ctx, page = open_page(browser, f"{srv.base}/replay/{table_id}/1#h{hi + 1}m{step}", width=360, height=760)
    try:
        page.route(f"**/api/analysis/{table_id}/1", lambda route: route.fulfill(json=one))
        page.reload()
        page.locator('[data-testid="replay-stake"][data-seat="0"]').wait_for(timeout=WAIT_MS)
        assert page.inner_text('[data-testid="replay-stake"][data-seat="0"]') == (
            "Lo que se jugaba en esas decisiones: 1 punto; se dejó ir 1 punto.")
        assert page.locator('[data-testid="replay-costly"]', has_text="(−1 punto)").count() == 1
        assert page.inner_text('[data-testid="replay-coach-line"][data-when="played"]').endswith("(−1 punto).")
        assert page.inner_text('[data-testid="replay-precision"][data-seat="2"]') == (
            "Pancho no tuvo nada que decidir en esta mano: cada jugada suya era la única.")
    finally:
        ctx.close()
