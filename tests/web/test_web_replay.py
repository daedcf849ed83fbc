"""The replay page in headless Chromium, on the real server: a finished match
played forward to its end and back, a jump to a hand, a link to a position, the
board and every seat's tiles checked against the stored record (replayed by the
engine in the test) at several positions, what was said, the fairness proof, the
analysis's absence said plainly, the refusals in the page's language, and the
live table's link to it. Screenshots: artifacts/replay-*.png."""

from __future__ import annotations

from typing import Any

import pytest
import test_web_static as web
from test_replay import finished_match, position
from test_web_static import assert_no_hscroll, shot

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion


def actions_after(rec: dict[str, Any], step: int) -> int:
    """How many of a hand's recorded actions step ``step`` has shown: ``step`` choices
    (plays and redeal answers) and the automatic passes that followed the last one."""
    if step == 0:
        return 0
    choices = 0
    for i, entry in enumerate(rec["actions"]):
        if "play" in entry or "redeal" in entry:
            choices += 1
            if choices == step:
                n = i + 1
                while n < len(rec["actions"]) and not ("play" in rec["actions"][n] or "redeal" in rec["actions"][n]):
                    n += 1
                return n
    raise AssertionError(f"the hand has no step {step}")


def steps_of(rec: dict[str, Any]) -> int:
    return sum(1 for e in rec["actions"] if "play" in e or "redeal" in e)


def board_keys(page: Any) -> list[str]:
    return sorted(page.eval_on_selector_all('[data-testid="board"] [data-key]', "els => els.map((e) => e.dataset.key)"))


def seat_tiles(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        '[data-testid="seat"]',
        "els => els.sort((a, b) => a.dataset.seat - b.dataset.seat)"
        ".map((e) => (e.querySelector('.seat-tiles').dataset.tiles || '').split(' ').filter(Boolean))",
    )


def key(tile: list[int]) -> str:
    return f"{min(tile)}-{max(tile)}"


def expected_at(record: dict[str, Any], hand: int, step: int) -> tuple[list[str], list[list[str]]]:
    """The board's tiles and every seat's tiles at step ``step`` of hand ``hand`` (0-based), from the engine."""
    m = position(record, hand, actions_after(record["hands"][hand], step))
    v = m.view(None)
    board = ([v["center"]] if v["center"] else []) + [t for arm in v["arms"].values() for t in arm]
    return sorted(key(t) for t in board), [[key(t) for t in m.view(s)["hand"]] for s in range(4)]


def wait_at(page: Any, hand: int, step: int) -> None:
    page.wait_for_function(
        "([h, s]) => { const w = document.querySelector('[data-testid=\"replay-where\"]');"
        " return w && w.dataset.hand === String(h) && w.dataset.step === String(s); }",
        arg=[hand + 1, step], timeout=WAIT_MS,
    )


def check_position(page: Any, record: dict[str, Any], hand: int, step: int) -> None:
    wait_at(page, hand, step)
    board, seats = expected_at(record, hand, step)
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=\"board\"] [data-key]').length === n", arg=len(board),
        timeout=WAIT_MS,
    )
    assert board_keys(page) == board, (hand, step)
    # Every hand face up: the seats show exactly the tiles each holds at that moment.
    assert [sorted(s) for s in seat_tiles(page)] == [sorted(s) for s in seats], (hand, step)


NO_ANALYSIS = {"error": {"code": "unknown_match", "message": "no analysis"}}


def open_page(browser: Any, url: str, width: int = 1280, height: int = 800, no_analysis: bool = False) -> tuple[Any, Any]:
    """A page at ``url``; ``no_analysis``: GET /api/analysis answers 404 (the experto's analysis is computed in
    the bot pool after the match, on its own time: a test that reads the page without it says so)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
    page = ctx.new_page()
    if no_analysis:
        page.route("**/api/analysis/**", lambda route: route.fulfill(status=404, json=NO_ANALYSIS))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.errors = errors  # type: ignore[attr-defined]
    return ctx, page


def test_a_replay_plays_forward_and_back_and_matches_the_record(browser: Any, live_server: Any) -> None:
    srv = live_server()
    table_id, record = finished_match(srv, seed="replay-web")
    hands = record["hands"]
    ctx, page = open_page(browser, f"{srv.base}/replay/{table_id}/1", no_analysis=True)
    try:
        check_position(page, record, 0, 0)
        assert page.locator('[data-testid="replay-analysis"]').inner_text() == "Esta partida no tiene análisis del experto."
        # The deal's proof, the seed hashed again in this browser.
        page.locator('[data-testid="replay-hash"][data-ok="true"]').wait_for(timeout=WAIT_MS)
        assert "sha256(semilla) = el hash mostrado antes del reparto ✔" in page.locator('[data-testid="replay-hash"]').inner_text()
        page.wait_for_function("document.querySelector('.vf-how') && document.querySelector('.vf-how').textContent.includes('navegador')", timeout=WAIT_MS)
        dealt = page.eval_on_selector_all('[data-testid="replay-dealt-tiles"]', "els => els.map((e) => e.dataset.tiles)")
        assert dealt == [" ".join(f"{a}-{b}" for a, b in h) for h in hands[0]["deal"]["hands"]]
        sleeping = page.get_attribute('[data-testid="replay-sleeping"]', "data-tiles")
        assert sleeping == " ".join(f"{a}-{b}" for a, b in hands[0]["deal"]["sleeping"]) and len(hands[0]["deal"]["sleeping"]) == 15
        # What was said: the guest's phrase at the deal of the first hand.
        # (A neighbour may say "¡Agua!" at a deal too: the guest's line is the one with her name.)
        said = page.locator('[data-testid="replay-said"]', has_text="Ana: «¡Agua!»")
        assert said.count() == 1
        shot(page, "replay-1280.png")
        # Forward, move by move, to the end of the match; the board checked on the way.
        total = sum(steps_of(h) + 1 for h in hands)
        checked = {(0, 3), (0, steps_of(hands[0])), (len(hands) - 1, 1)}
        at = (0, 0)
        page.click('[data-testid="replay-forward"]')  # the button; then the keyboard's arrows, quicker
        at = (0, 1)
        for _ in range(total - 2):
            page.keyboard.press("ArrowRight")
            at = (at[0], at[1] + 1) if at[1] < steps_of(hands[at[0]]) else (at[0] + 1, 0)
            if at in checked:
                check_position(page, record, *at)
        wait_at(page, len(hands) - 1, steps_of(hands[-1]))
        assert page.is_disabled('[data-testid="replay-forward"]')
        check_position(page, record, len(hands) - 1, steps_of(hands[-1]))
        # The end-of-match scene plays as at the live table (banners, hands, then the sheet): a few seconds.
        page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=2 * WAIT_MS)
        assert page.locator('[data-testid="replay-link"]').count() == 0  # not a link to itself
        shot(page, "replay-end-1280.png")
        assert page.locator('[data-testid="next-hand"]').is_hidden() and page.locator('[data-testid="rematch"]').is_hidden()
        # And back: move by move over the last hand's deal into the hand before, then to the start by hands.
        page.click('[data-testid="replay-back"]')
        for _ in range(steps_of(hands[-1])):
            page.keyboard.press("ArrowLeft")
        check_position(page, record, len(hands) - 2, steps_of(hands[-2]))
        for n in range(len(hands) - 1, 0, -1):
            page.click('[data-testid="replay-prev-hand"]')  # to the start of this hand, then the one before
            check_position(page, record, n - 1, 0)
            if n > 1:
                page.keyboard.press("ArrowLeft")
        check_position(page, record, 0, 0)
        assert page.is_disabled('[data-testid="replay-back"]')
        # A jump to the last hand, and the link says where.
        page.select_option('[data-testid="replay-hand"]', str(len(hands) - 1))
        check_position(page, record, len(hands) - 1, 0)
        assert page.evaluate("location.hash") == f"#h{len(hands)}m0"
        # Play: the steps go by themselves (at 4×), until paused.
        page.select_option('[data-testid="replay-speed"]', "4")
        page.click('[data-testid="replay-play"]')
        wait_at(page, len(hands) - 1, 2)
        page.click('[data-testid="replay-play"]')
        assert page.get_attribute('[data-testid="replay-play"]', "aria-pressed") == "false"
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        ctx.close()
    # A link to a position opens there; on a phone too, with no sideways scroll.
    ctx, page = open_page(browser, f"{srv.base}/replay/{table_id}/1#h1m3", width=360, height=760, no_analysis=True)
    try:
        check_position(page, record, 0, 3)
        assert_no_hscroll(page, 360)
        shot(page, "replay-360.png")
        page.click('[data-testid="lang-toggle"]')
        page.locator('[data-testid="replay-hash"]', has_text="sha256(seed) = the hash shown before the deal ✔").wait_for(timeout=WAIT_MS)
        assert page.locator('[data-testid="replay-analysis"]').inner_text() == "This match has no analysis by the experto."
        web.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(web.ARTIFACTS / "replay-360-en-full.png"), full_page=True)
    finally:
        ctx.close()
    # The live table's end-of-match panel links to the replay.
    ctx, page = open_page(browser, f"{srv.base}/t/{table_id}?mirar=1")
    try:
        link = page.locator('[data-testid="replay-link"]')
        link.wait_for(state="visible", timeout=WAIT_MS)
        assert link.get_attribute("href") == f"/replay/{table_id}/1" and link.inner_text() == "Ver la repetición"
        link.click()
        check_position(page, record, 0, 0)
    finally:
        ctx.close()


def test_a_replay_that_cannot_be_shown_says_why_in_the_pages_language(browser: Any, live_server: Any) -> None:
    srv = live_server()
    playing, token = srv.table_with_seed("replay-web-2")
    c = srv.client()
    c.hello(playing, token)
    c.settle()
    c.close()
    cases = [
        ("t_nosuchtable/1", "unknown_table", "Esa mesa no existe (o ya se recogió).", "That table does not exist (or was cleared away)."),
        (f"{playing}/2", "unknown_match", "Esa mesa no jugó esa partida.", "That table did not play that match."),
        (f"{playing}/1", "match_not_over", "Esa partida todavía se está jugando. La repetición sale cuando se acaba.",
         "That match is still being played. Its replay comes when it is over."),
        (f"{playing}/x", "malformed", "Al enlace le falta algo: hacen falta la mesa y el número de la partida.",
         "The link is missing something: it needs the table and the match number."),
    ]
    ctx, page = open_page(browser, f"{srv.base}/replay/{cases[0][0]}", width=360, height=700)
    try:
        for path, code, es, en in cases:
            page.goto(f"{srv.base}/replay/{path}")
            err = page.locator('[data-testid="replay-error"]')
            err.wait_for(timeout=WAIT_MS)
            assert (err.get_attribute("data-code"), err.inner_text()) == (code, es)
            page.click('[data-testid="lang-toggle"]')
            page.locator('[data-testid="replay-error"]', has_text=en).wait_for(timeout=WAIT_MS)
            page.click('[data-testid="lang-toggle"]')  # back to Spanish for the next case
        assert page.errors == []  # type: ignore[attr-defined]
        shot(page, "replay-error-360.png")
    finally:
        ctx.close()


def analysis_answer(record: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """An answer of GET /api/analysis in its contract's shape (the analysis engineer's endpoint):
    Ana's (seat 0) first two decisions of hand 1 are its costliest. Returns it and their indexes."""
    actions = record["hands"][0]["actions"]
    mine = [i for i, a in enumerate(actions) if a["seat"] == 0 and "play" in a][:2]
    decisions = [
        {"index": i, "seat": 0, "played": {"tile": actions[i]["play"], "end": actions[i]["end"]},
         "best": {"tile": [6, 6], "end": "left"}, "moves": [{"action": {"tile": [6, 6], "end": "left"}, "value": 20.5}],
         "lost": 12.5 if n == 0 else 3}
        for n, i in enumerate(mine)
    ]
    hand = {"hand": 1, "seat": 0, "precision": 83.5, "decisions": decisions, "costliest": mine}
    return {"status": "ready", "hands": [hand]}, mine


def test_the_experts_analysis_marks_the_costliest_decisions(browser: Any, live_server: Any) -> None:
    srv = live_server()
    table_id, record = finished_match(srv, seed="replay-web-3", say=None)
    answer, costly = analysis_answer(record)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        page.route(f"**/api/analysis/{table_id}/1", lambda route: route.fulfill(json=answer))
        page.goto(f"{srv.base}/replay/{table_id}/1")
        page.locator('[data-testid="replay-precision"]').wait_for(timeout=WAIT_MS)
        assert page.locator('[data-testid="replay-precision"]').inner_text() == "Precisión de Ana: 83,5 %"
        marks = page.locator('[data-testid="replay-costly"]')
        # Each on the step of its decision: the step that made that many choices.
        actions = record["hands"][0]["actions"]
        steps = [sum(1 for a in actions[: i + 1] if "play" in a or "redeal" in a) for i in costly]
        # The move named by the open end it goes on, as the table stood before it ("al 5"; a lead names none).
        frames = srv.get(f"/api/replay/{table_id}/1").json()["hands"][0]["frames"]

        def on_the_left(step: int) -> str:
            end = next((e for e in frames[step - 1]["view"]["ends"] if e["end"] == "left"), None)
            return "" if end is None else f" al doble {end['value']}" if end["double"] else f" al {end['value']}"

        assert marks.locator("span").all_inner_texts() == [
            f"el experto hubiera jugado el doble 6{on_the_left(steps[0])} (−12,5 puntos)",
            f"el experto hubiera jugado el doble 6{on_the_left(steps[1])} (−3 puntos)"]
        marked = page.eval_on_selector_all(".rp-step--costly", "els => els.map((e) => Number(e.dataset.step))")
        assert marked == steps
        page.click(f'.rp-step[data-step="{steps[0]}"] [data-testid="replay-step"]')
        wait_at(page, 0, steps[0])
        page.locator(".replay-info").scroll_into_view_if_needed()
        shot(page, "replay-analysis-1280.png")
        page.click('[data-testid="lang-toggle"]')
        page.locator('[data-testid="replay-precision"]', has_text="Ana’s precision: 83.5 %").wait_for(timeout=WAIT_MS)
        english = marks.first.inner_text()
        assert "the experto would have played double 6" in english and "(−12.5 points)" in english
        page.click('[data-testid="lang-toggle"]')
        # Still being computed: said plainly, nothing marked.
        page.unroute(f"**/api/analysis/{table_id}/1")
        page.route(f"**/api/analysis/{table_id}/1", lambda route: route.fulfill(json={"status": "pending", "hands": []}))
        page.reload()
        page.locator('[data-testid="replay-analysis"][data-status="pending"]').wait_for(timeout=WAIT_MS)
        assert page.locator('[data-testid="replay-analysis"]').inner_text() == (
            "El experto todavía está analizando esta partida. Vuelve dentro de un rato.")
        assert page.locator('[data-testid="replay-costly"]').count() == 0
    finally:
        ctx.close()
