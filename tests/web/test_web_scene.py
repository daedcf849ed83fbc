"""The table page as a scene: the end of a hand in order, a new hand that
clears the old one, speech that never hides the board, phones (names, chips,
stamps, badges, the target), seat layouts for 2 to 5 players from the real
engine, and words that follow the language toggle.

Scripted frames (protocol version 2) go through the fake WebSocket of tests/webfake.py.
Effect times are recorded in the page (a MutationObserver) and compared by
order only; the gaps are printed, never asserted. Screenshots go to artifacts/.
"""

# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_web_static import (  # noqa: F401  (browser, base_url, server are fixtures)
    assert_no_hscroll,
    base_url,
    browser,
    hand_start,
    hand_start_view,
    long_view,
    match_over_view,
    mid_view,
    open_table,
    server,
    shot,
    tranque_view,
)
from webfake import (
    FAKE_WS,
    events_frame,
    human,
    neighbour,
    push,
    said_frame,
    sent,
    sync_frame,
    table_state,
    welcome_frame,
)

from capicua.engine import Match, make_rules

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web")]

# Records, in page time, when each effect first shows and what was on screen
# when the score sheet opened.
RECORDER = """
(() => {
  const rec = window.__rec = { first: {}, added: [], bannersAtSheet: null };
  const now = () => performance.now();
  const mark = (k) => { if (!(k in rec.first)) rec.first[k] = now(); };
  new MutationObserver((muts) => {
    for (const m of muts) {
      for (const n of m.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches('[data-testid="banner"]')) {
          rec.added.push({ kind: n.dataset.kind, t: now() });
          mark(`banner:${n.dataset.kind}`);
        }
        if (n.matches('[data-testid="chat-bubble"]')) mark('speech');
      }
      if (document.querySelector('[data-testid="board"] .tile--slam')) mark('slam');
      if (document.querySelector('.seat--revealed')) mark('reveal');
      if (!document.getElementById('panel').hidden && rec.bannersAtSheet === null) {
        mark('sheet');
        rec.bannersAtSheet = document.querySelectorAll('[data-testid="banner"]').length;
      }
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'hidden'] });
})();
"""


def record(page) -> None:
    page.evaluate(RECORDER)


def recorded(page) -> dict[str, Any]:
    return page.evaluate("window.__rec")


def tranque_frame(seq: int) -> dict[str, Any]:
    """The batch of a blocking play: the play, everyone passes, the tranque, the hand's end (seq to seq + 6)."""
    v = tranque_view()
    v["last"] = {"seat": 3, "tile": [3, 1], "end": "right"}
    events = [
        {"kind": "play", "seat": 3, "tile": [3, 1], "end": "right"},
        *({"kind": "pass", "seat": s, "numbers": [6, 1]} for s in (0, 1, 2, 3)),
        {"kind": "tranque"},
        {"kind": "hand_end", "result_kind": "tranque", **{k: v["result"][k] for k in ("seat", "team", "points", "pip_totals")}},
    ]
    return events_frame(seq, events, v)


def push_all(page, frames: list[dict[str, Any]]) -> None:
    """A burst as a socket delivers it: one frame per task, a millisecond apart."""
    page.evaluate("(fs) => fs.forEach((f, i) => setTimeout(() => window.__push(f), i))", frames)


# --------------------------------------------------------------------------- item 9: the scene


def test_the_end_of_a_hand_is_one_ordered_scene(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        record(page)
        t0 = page.evaluate("performance.now()")
        # The server sends the neighbours' words right after the batch they talk about.
        said = said_frame(24, 2, "¡Tranque! A contar se ha dicho.", "Blocked! Time to count.", name="Cuca", phrase="tranque_won")
        push_all(page, [tranque_frame(18), said])
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=8000)
        rec = recorded(page)
        first = rec["first"]
        stamps = [a["t"] for a in rec["added"] if a["kind"] == "pass"]
        print({k: round(v - t0) for k, v in sorted(first.items(), key=lambda kv: kv[1])}, "stamps", [round(s - t0) for s in stamps])
        assert len(stamps) == 4
        # Last tile, (the passes,) the banner, the hands face up at the seats, then the sheet.
        assert first["slam"] <= stamps[0] < first["banner:tranque"] < first["reveal"] < first["sheet"]
        assert max(stamps) < first["banner:tranque"]
        # The neighbour speaks after the banner, not before it.
        assert first["banner:tranque"] < first["speech"]
        # Nothing is left over the sheet: every banner and stamp went at the reveal.
        assert rec["bannersAtSheet"] == 0
        assert page.locator('[data-testid="banner"]').count() == 0
        assert page.locator(".seat--revealed").count() == 3
        assert page.errors == []
    finally:
        ctx.close()


def test_a_match_end_scene_puts_the_match_banner_before_the_sheet(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        record(page)
        over = match_over_view()
        over["match_result"] = dict(over["match_result"], viajera=True)
        push(page, events_frame(18, [
            {"kind": "play", "seat": 2, "tile": [3, 1], "end": "right"},
            {"kind": "domino", "seat": 2},
            {"kind": "hand_end", "result_kind": "domino", "seat": 2, "team": 0, "points": 63},
            {"kind": "match_end", "winner": 0, "pollona": True, "viajera": True},
        ], over))
        page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=10000)
        first = recorded(page)["first"]
        print({k: round(v) for k, v in first.items()})
        assert first["slam"] < first["banner:domino"] < first["banner:viajera"] < first["reveal"] < first["sheet"]
        assert recorded(page)["bannersAtSheet"] == 0
        # The viajera is what the rules call it: the target or more in one hand, not "the whole match".
        text = page.locator('[data-testid="match-over"]').inner_text()
        assert "100 puntos o más" in text and "partido entero" not in text
        page.locator('[data-testid="lang-toggle"]').dispatch_event("click")  # the sheet's backdrop covers the top bar
        text = page.locator('[data-testid="match-over"]').inner_text()
        assert "100 points or more" in text and "whole match" not in text
    finally:
        ctx.close()


@pytest.mark.parametrize("how", ["hand_start", "sync"])
def test_an_early_next_hand_leaves_nothing_of_the_old_one(browser, base_url, how):
    ctx, page = open_table(browser, base_url, width=360, height=740)
    try:
        record(page)
        push(page, tranque_frame(18))
        page.locator('[data-testid="banner"][data-kind="pass"]').first.wait_for(timeout=3000)
        # Quick: open the sheet and press "Siguiente mano" while the scene is still playing.
        page.click("#libreta-btn")
        page.click('[data-testid="next-hand"]')
        assert sent(page)[-1]["type"] == "next_hand"
        frame = hand_start(25, 3, opener=1) if how == "hand_start" else sync_frame(25, hand_start_view(3, 1))
        t_new = page.evaluate("(f) => { const t = performance.now(); window.__push(f); return t; }", frame)
        page.wait_for_timeout(3500)  # longer than the old scene would still have taken
        rec = recorded(page)
        late = [a for a in rec["added"] if a["t"] >= t_new and a["kind"] != "hand"]
        assert late == [], late
        assert page.locator('[data-testid="banner"]:not([data-kind="hand"])').count() == 0
        assert page.locator(".seat--revealed").count() == 0
        assert page.locator('[data-testid="libreta"]').is_hidden()
        assert page.evaluate("document.body.dataset.phase") == "play"
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 10: phones


def rects(page, selector: str) -> list[dict[str, float]]:
    return page.evaluate(
        "(sel) => [...document.querySelectorAll(sel)].map((e) => { const r = e.getBoundingClientRect();"
        " return { x: r.left, y: r.top, r: r.right, b: r.bottom }; })", selector)


def overlaps(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    return a["x"] < b["r"] - slack and b["x"] < a["r"] - slack and a["y"] < b["b"] - slack and b["y"] < a["b"] - slack


LINES = [  # seat, name, moment, the line
    (1, "Pancho", "capicua_own", "¡Capicúa! Eso no se aprende en los libros.", "Capicúa! You don't learn that from books."),
    (2, "Cuca", "partner_good_play", "¡Ay, qué lindo jugaste, mi cielo!", "Oh, how nicely you played, dear!"),
    (3, "Chucho", "hand_start", "¡Dale, que tengo un carro abierto en el taller!", "Come on, I've got a car open at the shop!"),
]


@pytest.mark.parametrize("width,height,board", [(360, 740, "mid"), (360, 740, "long"), (1280, 800, "long")])
def test_speech_never_hides_the_board(browser, base_url, width, height, board):
    ctx, page = open_table(browser, base_url, width=width, height=height, view=mid_view() if board == "mid" else long_view())
    try:
        for seat, name, moment, es, en in LINES:
            push(page, said_frame(17, seat, es, en, name=name, phrase=moment))
        page.locator('[data-testid="chat-bubble"]').first.wait_for()
        page.wait_for_timeout(450)  # the pop-in animation and the board's re-fit
        tiles = rects(page, '[data-testid="board"] .line .tile') + rects(page, '[data-testid="board"] .end-badge')
        bubbles = rects(page, '[data-testid="chat-bubble"]')
        assert tiles and bubbles
        for b in bubbles:
            for tl in tiles:
                assert not overlaps(b, tl), (b, tl)
            assert b["x"] >= 0 and b["r"] <= width
        assert_no_hscroll(page, width)
        shot(page, f"scene-speech-{board}-{width}.png")
    finally:
        ctx.close()


PHONE_SEATS = [
    human(0, "Ana"),
    neighbour(1, "Pancho", "pancho", "dificil"),
    human(2, "Maria Fernanda", connected=False),
    neighbour(3, "Chucho", "chucho", "botagorda"),
]


def phone_table(browser, base_url, seats: list[dict[str, Any]], view: dict[str, Any], width: int = 360, height: int = 740,
                preset: str = "cubano", options: dict[str, Any] | None = None):
    """The table page as seat 0 of a table with `seats` (the TABLE's), synced to `view` at seq 30."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_init_script(FAKE_WS)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    push(page, welcome_frame(0, table_state(seats, preset, options)))
    push(page, sync_frame(30, view))
    page.wait_for_function("document.body.dataset.phase !== 'loading'")
    page.wait_for_timeout(150)
    return ctx, page


def assert_seat_texts_whole(page) -> None:
    """Names are never cut, chips never break, every chip stays inside its card."""
    names = page.evaluate(
        "[...document.querySelectorAll('[data-testid=seat-name]')].map((e) => [e.textContent, e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight])")
    for text, sw, cw, sh, ch in names:
        assert sw <= cw and sh <= ch, (text, sw, cw, sh, ch)
    chips = page.evaluate(
        "[...document.querySelectorAll('.seat .chip')].filter((c) => c.offsetParent !== null).map((c) => { const card = c.closest('.seat').getBoundingClientRect();"
        " const r = c.getBoundingClientRect(); return [c.textContent, c.getClientRects().length, r.height, parseFloat(getComputedStyle(c).lineHeight) || 16,"
        " r.left >= card.left - 0.5 && r.right <= card.right + 0.5, c.closest('.slot').id]; })")
    for text, boxes, height, line, inside, slot in chips:
        assert boxes == 1 and height <= line * 1.4 + 4, (text, height, line)
        assert inside, (text, slot)
    # In a row (the top and bottom seats) the chips of a seat share one line.
    rows = page.evaluate(
        "[...document.querySelectorAll('#slot-top .seat-chips, #slot-bottom .seat-chips')].map((box) =>"
        " [...box.children].filter((c) => c.offsetParent !== null).map((c) => Math.round(c.getBoundingClientRect().top)))")
    for tops in rows:
        assert len(set(tops)) <= 1, tops


def test_phone_names_chips_badges_and_the_target(browser, base_url):
    v = mid_view()
    v["turn"], v["opener"], v["legal"] = 2, 2, []
    ctx, page = phone_table(browser, base_url, PHONE_SEATS, v)
    try:
        assert_no_hscroll(page, 360)
        assert page.locator('.seat[data-seat="2"] [data-testid="seat-name"]').inner_text() == "Maria Fernanda"
        assert_seat_texts_whole(page)
        # The tile count sits by the tiles, never on a face.
        for s in (1, 2, 3):
            badge = page.locator(f'.seat[data-seat="{s}"] [data-testid="count-badge"]').bounding_box()
            face = page.locator(f'.seat[data-seat="{s}"] .seat-id .avatar').bounding_box()
            assert badge and face
            assert not overlaps({"x": badge["x"], "y": badge["y"], "r": badge["x"] + badge["width"], "b": badge["y"] + badge["height"]},
                                {"x": face["x"], "y": face["y"], "r": face["x"] + face["width"], "b": face["y"] + face["height"]}), (s, badge, face)
        # The target ("a 100") is shown, on screen, clear of the buttons.
        target = page.locator(".score-target")
        assert target.is_visible() and target.inner_text() == "a 100"
        tb = target.bounding_box()
        assert tb and tb["x"] >= 0 and tb["x"] + tb["width"] <= 360
        for tool in rects(page, ".tools .icon-btn"):
            assert not overlaps({"x": tb["x"], "y": tb["y"], "r": tb["x"] + tb["width"], "b": tb["y"] + tb["height"]}, tool)
        shot(page, "scene-phone-seats-360.png")
        # ¡Paso! stamps stay on the screen, at every seat.
        push(page, events_frame(31, [{"kind": "pass", "seat": s, "numbers": [6, 1]} for s in (1, 2, 3)], v))
        for s in (1, 2, 3):
            stamp = page.locator(f'[data-testid="banner"][data-kind="pass"][data-seat="{s}"]')
            stamp.wait_for(timeout=3000)
            page.wait_for_timeout(380)  # the stamp's landing animation
            box = stamp.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["y"] >= 0, (s, box)
        shot(page, "scene-phone-stamps-360.png")
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 6: seat layouts


NAMES = {1: ("Pancho", "pancho"), 2: ("Fefa", "fefa"), 3: ("Chucho", "chucho"), 4: ("Mima", "mima")}


def engine_table(preset: str, options: dict[str, Any], over: bool, seed: str = "layouts") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Seat 0's view of a real match a few plays in (or at the hand's end), and its seats."""
    m = Match(make_rules(preset, **options), seed)
    m.start_hand(frozenset({0}))
    rng = random.Random(seed)
    plays = 0
    while m.phase in ("play", "redeal_question") and (over or plays < 5):
        seat = m.turn
        assert seat is not None
        m.apply(seat, rng.choice(m.legal_moves()))
        plays += 1
    seats = [human(0, "Ana")] + [neighbour(s, *NAMES[s]) for s in range(1, m.rules.players)]
    return json.loads(json.dumps(m.view(0))), seats


TABLES = [
    ("block", {"players": 2}),
    ("block", {"players": 3}),
    ("cubano", {}),
    ("block", {"players": 4, "partnership": False}),
    ("block", {"players": 5}),
]


def box_of(b: dict[str, float]) -> dict[str, float]:
    return {"x": b["x"], "y": b["y"], "r": b["x"] + b["width"], "b": b["y"] + b["height"]}


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
@pytest.mark.parametrize("preset,options", TABLES, ids=["2", "3", "4-pairs", "4-solo", "5"])
def test_seat_layouts_from_the_engine(browser, base_url, width, height, preset, options):
    view, seats = engine_table(preset, options, over=False)
    ctx, page = phone_table(browser, base_url, seats, view, width=width, height=height, preset=preset, options=options)
    try:
        n = view["rules"]["players"]
        name = f"scene-layout-{preset}{n}{'' if view['rules']['partnership'] else '-solo'}"
        for over in (False, True):
            if over:
                # The same table at the hand's end: every other hand face up at its seat.
                view, _ = engine_table(preset, options, over=True)
                push(page, sync_frame(40, view))
                page.locator('[data-testid="libreta"]').wait_for(state="visible")
                page.click("#panel-close")
                assert page.locator(".seat--revealed").count() == n - 1
            assert page.locator('[data-testid="seat"]').count() == n
            assert_no_hscroll(page, width)
            cards = [box_of(b) for b in page.eval_on_selector_all(
                '[data-testid="seat"]', "els => els.map((e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, width: r.width, height: r.height}; })")]
            board = box_of(page.locator('[data-testid="board"]').bounding_box())
            for i, a in enumerate(cards):
                assert a["x"] >= 0 and a["r"] <= width, (i, a)
                assert not overlaps(a, board), (i, a, board)
                for j, b in enumerate(cards[:i]):
                    assert not overlaps(a, b), (i, j, a, b)
            assert_seat_texts_whole(page)
            if not view["rules"]["partnership"]:
                # Individual players: no partner, and each seat's score is shown (at the seat on a phone).
                assert page.locator(".seat--mate").count() == 0
                if width == 360 and n > 2:
                    assert page.locator('[data-testid="seat-score"]:visible').count() == n
                else:
                    assert page.locator('[data-testid="scores"] .score:visible').count() == n
            shot(page, f"{name}{'-over' if over else ''}-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 12: words on the page


def test_the_status_line_and_banners_follow_the_language_at_once(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        v = mid_view()
        v["turn"], v["legal"] = 3, []
        push(page, events_frame(18, [{"kind": "play", "seat": 2, "tile": [6, 3], "end": "left"},
                                     {"kind": "pass", "seat": 3, "numbers": [3, 1]}], v))
        stamp = page.locator('[data-testid="banner"][data-kind="pass"]')
        stamp.wait_for(timeout=3000)
        page.wait_for_function("document.getElementById('ticker').textContent.includes('Chucho pasa')")
        page.click('[data-testid="lang-toggle"]')
        assert page.locator("#ticker").inner_text() == "Chucho passes: holds no 3 or 1."
        assert stamp.inner_text().upper() == "PASS!"
        page.click('[data-testid="lang-toggle"]')
        assert page.locator("#ticker").inner_text().startswith("Chucho pasa")
    finally:
        ctx.close()


@pytest.mark.parametrize("preset,expected", [("cubano", "Las dormidas: 15"), ("la-plaza", None), ("mano-a-mano", "Para robar: 14")])
def test_the_sleeping_count_only_where_tiles_sleep(browser, base_url, preset, expected):
    m = Match(make_rules(preset), "sleep")
    m.start_hand(frozenset({0}))
    seats = [human(0, "P0")] + [neighbour(s, f"P{s}", None) for s in range(1, m.rules.players)]
    ctx, page = phone_table(browser, base_url, seats, json.loads(json.dumps(m.view(0))), width=1280, height=800, preset=preset)
    try:
        sleeping = page.locator("#sleeping")
        if expected is None:
            assert sleeping.is_hidden() and sleeping.inner_text() == ""
        else:
            assert sleeping.is_visible() and sleeping.inner_text() == expected
    finally:
        ctx.close()


def test_a_declined_redeal_is_announced(browser, base_url):
    v = mid_view()
    v["turn"], v["legal"] = 1, []
    ctx, page = open_table(browser, base_url, view=v)
    try:
        push(page, events_frame(18, [{"kind": "redeal_declined", "seat": 1}], v))
        page.wait_for_function("document.getElementById('ticker').textContent.includes('Pancho no quiso dar agua')", timeout=2000)
        page.click('[data-testid="lang-toggle"]')
        assert "Pancho chose not to reshuffle" in page.locator("#ticker").inner_text()
        assert page.errors == []
    finally:
        ctx.close()

