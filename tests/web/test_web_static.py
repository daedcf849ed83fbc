"""Browser tests of the static front-end (capicua/web), without the real server.

A tiny threaded HTTP server mimics the routes the Starlette app serves
(`/`, `/t/{id}`, `/rules`, `/vocab`, `/static/...`), and the fake WebSocket of
tests/webfake.py delivers frames of protocol version 2 (docs/protocol.md) and
records what the page sends. Nothing test-only ships in the page itself.
Screenshots go to artifacts/ (gitignored).
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from webfake import (
    FAKE_WS,
    error_frame,
    events_frame,
    human,
    neighbour,
    paused_frame,
    push,
    push_together,
    said_frame,
    sent,
    sync_frame,
    table_frame,
    table_state,
    welcome_frame,
)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web")]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "capicua" / "web"
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}
PAGES = {"/": "index.html", "/rules": "rules.html", "/vocab": "vocab.html"}


# --------------------------------------------------------------------------- server


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, data: Any) -> None:
        self._send(code, json.dumps(data).encode(), "application/json")

    def _file(self, rel: str) -> None:
        path = (WEB / rel).resolve()
        if not str(path).startswith(str(WEB.resolve())) or not path.is_file():
            self._json(404, {"error": {"code": "not_found"}})
            return
        self._send(200, path.read_bytes(), TYPES.get(path.suffix, "application/octet-stream"))

    def do_GET(self) -> None:  # noqa: N802
        path = urlparse(self.path).path
        if path in PAGES:
            self._file(PAGES[path])
        elif path.startswith("/t/"):
            self._file("table.html")
        elif path.startswith("/static/"):
            self._file(path[len("/static/"):])
        else:
            self._json(404, {"error": {"code": "not_found"}})


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture(scope="module")
def server():
    srv = _Server(("127.0.0.1", 0), _Handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def base_url(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


# --------------------------------------------------------------------------- views

RULES = {
    "preset": "cubano", "max_pip": 9, "players": 4, "partnership": True, "hand_size": 10,
    "drawing": False, "layout": "line", "direction": "counterclockwise", "target": 100,
}
SEATS = [
    human(0, "Ana"),
    neighbour(1, "Pancho", "pancho", "dificil"),
    neighbour(2, "Cuca", "cuca", "medio"),
    neighbour(3, "Chucho", "chucho", "botagorda"),
]
WELCOME = welcome_frame(0, table_state(SEATS))
SEED_HASH = "9f2c1a3b" + "0" * 56


def base_view(**kw: Any) -> dict[str, Any]:
    v: dict[str, Any] = {
        "rules": dict(RULES), "seat": 0, "hand_number": 2, "phase": "play", "turn": 0, "opener": 3,
        "hand": [], "counts": [7, 6, 7, 7], "boneyard": 15, "center": [5, 3],
        "arms": {"left": [[5, 6], [6, 6]], "right": [[3, 1]]},
        "ends": [{"end": "left", "value": 6, "double": True, "outcome": 6}, {"end": "right", "value": 1, "double": False, "outcome": 1}],
        "last": {"seat": 3, "tile": [3, 1], "end": "right"},
        "legal": [], "history": [], "passed_on": [[], [], [4], []],
        "scores": [12, 40], "teams": [0, 1, 0, 1],
        "sheet": [{"hand": 1, "kind": "domino", "team": 1, "points": 40, "scores": [0, 40]}],
        "seed_hash": SEED_HASH, "result": None, "revealed": None, "match_result": None,
    }
    v.update(kw)
    return v


MY_HAND = [[6, 1], [1, 4], [2, 2], [9, 9], [3, 5], [0, 6], [8, 8]]
MID_LEGAL = [
    {"tile": [6, 1], "end": "left"},
    {"tile": [6, 1], "end": "right"},
    {"tile": [1, 4], "end": "right"},
    {"tile": [0, 6], "end": "left"},
]


def mid_view() -> dict[str, Any]:
    return base_view(hand=[list(t) for t in MY_HAND], legal=[dict(x) for x in MID_LEGAL])


def long_view(n_left: int = 14, n_right: int = 16, seed: int = 7) -> dict[str, Any]:
    """A long legal line (double-nine) to check the snake stays on the board."""
    rng = random.Random(seed)
    tiles = {(a, b) for a in range(10) for b in range(a, 10)}
    center = (4, 7)
    tiles.discard(center)

    def grow(end: int, n: int) -> tuple[list[list[int]], int]:
        arm: list[list[int]] = []
        for _ in range(n):
            fits = sorted(t for t in tiles if end in t)
            doubles = [t for t in fits if t[0] == t[1]]
            t = doubles[0] if doubles and rng.random() < 0.5 else rng.choice(fits)
            tiles.discard(t)
            other = t[1] if t[0] == end else t[0]
            arm.append([end, other])
            end = other
        return arm, end

    left, lend = grow(center[0], n_left)
    right, rend = grow(center[1], n_right)
    hand = sorted(tiles)[:4]
    return base_view(
        center=list(center), arms={"left": left, "right": right},
        ends=[{"end": "left", "value": lend, "double": left[-1][0] == left[-1][1], "outcome": lend},
              {"end": "right", "value": rend, "double": right[-1][0] == right[-1][1], "outcome": rend}],
        last={"seat": 1, "tile": right[-1], "end": "right"},
        hand=[list(t) for t in hand], counts=[4, 2, 3, 1], turn=2, legal=[],
    )


def tranque_view() -> dict[str, Any]:
    revealed = [[[2, 2], [9, 9], [3, 5]], [[8, 8], [7, 9]], [[0, 1], [2, 3]], [[9, 8], [4, 4]]]
    return base_view(
        phase="hand_over", turn=None, legal=[], hand=revealed[0], counts=[3, 2, 2, 2],
        result={"kind": "tranque", "seat": 2, "team": 0, "points": 63, "capicua": False,
                "pip_totals": [30, 39, 6, 24], "next_opener": 3, "seed": "deadbeefcafe0123"},
        revealed=revealed, scores=[75, 40],
        sheet=[{"hand": 1, "kind": "domino", "team": 1, "points": 40, "scores": [12, 40]},
               {"hand": 2, "kind": "tranque", "team": 0, "points": 63, "scores": [75, 40]}],
    )


def match_over_view() -> dict[str, Any]:
    v = tranque_view()
    v.update(
        phase="match_over", scores=[104, 0],
        sheet=[{"hand": 1, "kind": "domino", "team": 0, "points": 41, "scores": [41, 0]},
               {"hand": 2, "kind": "tranque", "team": 0, "points": 63, "scores": [104, 0]}],
        match_result={"winner": 0, "scores": [104, 0], "pollona": True, "viajera": False},
    )
    return v


# --------------------------------------------------------------------------- helpers


def open_table(browser, base_url: str, width: int = 1280, height: int = 800, view: dict | None = None, seq: int = 17,
               table: dict | None = None):
    """The table page as seat 0, welcomed to `table` (SEATS by default) and synced to `view` at `seq`."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_init_script(FAKE_WS)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    push(page, WELCOME if table is None else welcome_frame(0, table))
    push(page, sync_frame(seq, view if view is not None else mid_view()))
    page.wait_for_function("document.body.dataset.phase !== 'loading'")
    return ctx, page


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / name))


def assert_no_hscroll(page, width: int) -> None:
    sw = page.evaluate("document.scrollingElement.scrollWidth")
    assert sw <= width, f"horizontal scroll: scrollWidth {sw} > {width}"


def assert_board_inside(page) -> None:
    """Every tile of the line of play is drawn inside the board element."""
    box = page.locator('[data-testid="board"]').bounding_box()
    assert box is not None
    rects = page.evaluate(
        "[...document.querySelectorAll('[data-testid=board] .line .tile')].map(g => { const r = g.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert rects
    for x0, y0, x1, y1 in rects:
        assert x0 >= box["x"] - 1 and x1 <= box["x"] + box["width"] + 1, (x0, x1, box)
        assert y0 >= box["y"] - 1 and y1 <= box["y"] + box["height"] + 1, (y0, y1, box)


# --------------------------------------------------------------------------- table tests


def test_hello_and_render(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        hello = sent(page)[0]
        assert hello == {"type": "hello", "table": "t_test", "token": "tok123", "last_seq": 0}
        tiles = page.locator('[data-testid="my-hand"] [data-testid="tile"]')
        assert tiles.count() == len(MY_HAND)
        assert [tiles.nth(i).get_attribute("data-tile") for i in range(tiles.count())] == [f"{a}-{b}" for a, b in MY_HAND]
        playable = page.eval_on_selector_all('[data-testid="tile"][data-playable="true"]', "els => els.map(e => e.dataset.tile)")
        assert sorted(playable) == ["0-6", "1-4", "6-1"]
        # pips are drawn, not text
        assert page.locator('[data-tile="9-9"] circle.pip').count() == 18
        assert page.evaluate("document.body.dataset.phase") == "play"
        assert page.evaluate("document.body.dataset.turn") == "me"
        # board: center + 3 arm tiles, two open-end badges, last tile ringed
        assert page.locator('[data-testid="board"] .line .tile').count() == 4
        assert page.locator('[data-testid="board"] .end-badge').count() == 2
        assert page.locator('[data-testid="board"] .tile--last').count() == 1
        assert page.locator('[data-testid="scores"]').inner_text().count("40") >= 1
        assert page.locator('[data-testid="seed-hash"]').inner_text().find("9f2c1a3b") >= 0
        assert "sha256" in (page.locator('[data-testid="seed-hash"]').get_attribute("title") or "")
        assert "Pancho" in page.locator('[data-seat="1"]').first.inner_text()
        assert page.locator(".seat--turn[data-seat='0']").count() == 1
        assert "Te toca" in page.locator("#announcer").inner_text()
        # The page keeps the sync's seq: its next intent carries it.
        page.click('[data-testid="tile"][data-tile="1-4"]')
        assert sent(page)[-1]["seq"] == 17
        assert page.errors == []
    finally:
        ctx.close()


def test_click_single_end_sends_play(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        page.click('[data-testid="tile"][data-tile="1-4"]')
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 17, "tile": [1, 4], "end": "right"}]
        # a second click while waiting for the server sends nothing
        page.click('[data-testid="tile"][data-tile="0-6"]', force=True)
        assert len([f for f in sent(page) if f["type"] == "play"]) == 1
    finally:
        ctx.close()


def test_unplayable_tile_sends_nothing(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        tile = page.locator('[data-testid="tile"][data-tile="9-9"]')
        assert tile.get_attribute("aria-disabled") == "true"
        tile.click(force=True)
        assert [f for f in sent(page) if f["type"] == "play"] == []
    finally:
        ctx.close()


def test_both_ends_choice(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        page.click('[data-testid="tile"][data-tile="6-1"]')
        choices = page.locator('[data-testid="end-choice"]')
        assert choices.count() == 2
        assert sorted(choices.nth(i).get_attribute("data-end") for i in range(2)) == ["left", "right"]
        # ends are named by their number, never left/right; a ghost of the tile waits at each
        assert sorted(choices.nth(i).inner_text() for i in range(2)) == ["al 1", "al doble 6"]
        assert sorted(page.eval_on_selector_all('[data-testid="ghost"]', "els => els.map(e => e.dataset.end)")) == ["left", "right"]
        assert [f for f in sent(page) if f["type"] == "play"] == []
        shot(page, "table-choice-1280.png")
        page.click('[data-testid="end-choice"][data-end="left"]')
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 17, "tile": [6, 1], "end": "left"}]
        assert page.locator('[data-testid="end-choice"]').count() == 0
    finally:
        ctx.close()


def test_keyboard_play(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        page.locator('[data-testid="tile"]').first.focus()
        assert page.evaluate("document.activeElement.dataset.tile") == "6-1"
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.tile") == "1-4"
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Enter")  # 6-1 fits both ends -> choose
        assert page.locator('[data-testid="end-choice"]').count() == 2
        page.keyboard.press("1")  # the right end shows a 1
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 17, "tile": [6, 1], "end": "right"}]
        # Tab moves between tiles too; Space plays a single-end tile.
        push(page, sync_frame(18, mid_view()))
        page.locator('[data-testid="tile"]').first.focus()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.tile") == "1-4"
        page.keyboard.press("Space")
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays[-1] == {"type": "play", "seq": 18, "tile": [1, 4], "end": "right"}
        # "6" picks the end showing a 6 (the left one)
        push(page, sync_frame(19, mid_view()))
        page.click('[data-testid="tile"][data-tile="6-1"]')
        page.keyboard.press("6")
        assert sent(page)[-1] == {"type": "play", "seq": 19, "tile": [6, 1], "end": "left"}
    finally:
        ctx.close()


def test_events_announce_and_pass_banner(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        v = mid_view()
        v["hand"] = [t for t in v["hand"] if t != [1, 4]]
        v["arms"]["right"].append([1, 4])
        v["ends"][1] = {"end": "right", "value": 4, "double": False, "outcome": 4}
        v["last"] = {"seat": 0, "tile": [1, 4], "end": "right"}
        v["turn"], v["legal"], v["counts"] = 1, [], [6, 6, 7, 7]
        push(page, events_frame(18, [{"kind": "play", "seat": 0, "tile": [1, 4], "end": "right"}], v))
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Juegas el 1-4')")
        assert page.evaluate("document.body.dataset.turn") == "other"
        assert page.locator('[data-testid="tile"]').count() == 6
        assert page.locator('[data-testid="tile"][data-playable="true"]').count() == 0
        v2 = json.loads(json.dumps(v))
        v2["turn"], v2["passed_on"][1] = 2, [6, 4]
        push(page, events_frame(19, [{"kind": "pass", "seat": 1, "numbers": [6, 4]}], v2))
        banner = page.locator('[data-testid="banner"][data-kind="pass"]')
        banner.wait_for(state="visible", timeout=3000)  # effects of a burst are paced
        assert banner.count() == 1
        assert banner.inner_text().upper().startswith("¡PASO")
        assert banner.get_attribute("data-seat") == "1"
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Pancho pasa')")
        assert "6 ni 4" in page.locator("#announcer").inner_text()
        shot(page, "table-pass-1280.png")
        # Duplicate (already seen) events are ignored, and so is their view: a resend of 18-19
        # whose view would put me on turn changes nothing.
        resent = json.loads(json.dumps(v2))
        resent["turn"], resent["legal"] = 0, [dict(x) for x in MID_LEGAL if x["tile"] != [1, 4]]
        push(page, events_frame(18, [{"kind": "play", "seat": 0, "tile": [1, 4], "end": "right"},
                                     {"kind": "pass", "seat": 1, "numbers": [6, 4]}], resent))
        assert page.evaluate("document.body.dataset.turn") == "other"
        assert page.locator('[data-testid="tile"][data-playable="true"]').count() == 0
        v3 = json.loads(json.dumps(v2))
        v3["arms"]["left"].append([6, 3])
        v3["ends"][0] = {"end": "left", "value": 3, "double": False, "outcome": 3}
        v3["last"], v3["turn"] = {"seat": 2, "tile": [6, 3], "end": "left"}, 3
        push(page, events_frame(20, [{"kind": "play", "seat": 2, "tile": [6, 3], "end": "left"}], v3))
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Cuca juega el 6-3 al doble 6')")  # the end by its number
        assert page.errors == []
    finally:
        ctx.close()


def test_chat_bubble_and_subtitles(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        push(page, said_frame(17, 2, "¡Ay, qué lindo jugaste, mijo!", "Oh, how nicely you played, dear!",
                              name="Cuca", phrase="partner_good_play"))
        bubble = page.locator('[data-testid="chat-bubble"][data-seat="2"]')
        assert bubble.count() == 1
        assert "qué lindo" in bubble.inner_text()
        assert bubble.locator(".bubble-en").is_visible()
        shot(page, "table-chat-1280.png")
        page.click("#subs-btn")
        assert not bubble.locator(".bubble-en").is_visible()
        # What is said does not move seq: the next intent still carries the sync's.
        page.click('[data-testid="tile"][data-tile="1-4"]')
        assert sent(page)[-1]["seq"] == 17
    finally:
        ctx.close()


def test_lang_toggle(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        assert page.locator("html").get_attribute("lang") == "es"
        assert "Nosotros" in page.locator('[data-testid="scores"]').inner_text()
        page.click('[data-testid="lang-toggle"]')
        assert page.locator("html").get_attribute("lang") == "en"
        assert "Us" in page.locator('[data-testid="scores"]').inner_text()
        assert page.evaluate("localStorage.getItem('capicua.lang')") == "en"
        page.click('[data-testid="tile"][data-tile="6-1"]')
        assert page.locator('[data-testid="end-choice"][data-end="left"]').inner_text() == "on the double 6"
        page.reload()
        page.wait_for_function("window.__sent && window.__sent.length > 0")
        assert page.locator("html").get_attribute("lang") == "en"
    finally:
        ctx.close()


def test_tranque_reveals_hands_and_libreta(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        push(page, events_frame(18, [{"kind": "tranque"}], tranque_view()))
        page.locator('[data-testid="banner"][data-kind="tranque"]').wait_for(timeout=3000)
        assert page.evaluate("document.body.dataset.phase") == "hand_over"
        # The hands turn face up after the banner (tests/web/test_web_scene.py checks the order).
        page.locator(".seat--revealed").first.wait_for(timeout=3000)
        assert page.locator(".seat--revealed").count() == 3
        assert page.locator(".seat[data-seat='1'] .seat-tiles .tile-svg").count() == 2
        assert "39" in page.locator(".seat[data-seat='1']").first.inner_text()
        libreta = page.locator('[data-testid="libreta"]')
        libreta.wait_for(state="visible", timeout=5000)
        assert libreta.locator("tbody tr").count() == 2
        assert "63" in libreta.inner_text()
        assert "deadbeefcafe0123" in libreta.inner_text()
        href = page.locator('[data-testid="verify-link"]').get_attribute("href")
        assert href == "/verify?table=t_test&hand=2"
        shot(page, "table-tranque-1280.png")
        page.click('[data-testid="next-hand"]')
        assert sent(page)[-1] == {"type": "next_hand", "seq": 18}
        assert page.locator('[data-testid="next-hand"]').is_disabled()
        # the libreta can be closed and opened any time
        page.click("#panel-close")
        assert not libreta.is_visible()
        page.click("#libreta-btn")
        assert libreta.is_visible()
    finally:
        ctx.close()


def test_capicua_and_domino(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        v = base_view(phase="hand_over", turn=None, hand=[[2, 2]], counts=[1, 0, 3, 2],
                      result={"kind": "domino", "seat": 1, "team": 1, "points": 21, "capicua": True,
                              "pip_totals": [4, 0, 10, 7], "next_opener": 1, "seed": "s33d"},
                      revealed=[[[2, 2]], [], [[1, 2], [3, 4]], [[0, 7]]])
        push(page, events_frame(18, [{"kind": "capicua"}], v))
        page.locator('[data-testid="banner"][data-kind="capicua"]').wait_for(timeout=3000)
        assert page.locator("#confetti i").count() > 10
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=5000)
        assert "capicúa" in page.locator("#result").inner_text().lower()
    finally:
        ctx.close()


def test_match_over_pollona(browser, base_url):
    ctx, page = open_table(browser, base_url, view=match_over_view())
    try:
        over = page.locator('[data-testid="match-over"]')
        over.wait_for(state="visible", timeout=3000)
        text = over.inner_text()
        assert "Ganamos" in text and "Pollona" in text
        assert page.locator('[data-testid="next-hand"]').is_hidden()
        again = page.locator("#play-again")
        assert again.is_visible() and again.get_attribute("href") == "/"
        assert page.locator(".libreta-table .pollito").count() == 1
        shot(page, "table-match-over-1280.png")
    finally:
        ctx.close()


def test_errors_toast_and_unknown_table(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        push(page, error_frame("illegal", "does not fit", 17))
        assert "no pega" in page.locator('[data-testid="toast"][data-code="illegal"]').inner_text()
        for code in ["malformed", "out_of_turn", "stale", "too_large", "too_fast", "bad_phase"]:
            push(page, error_frame(code, code, 17))
            assert page.locator(f'[data-testid="toast"][data-code="{code}"]').inner_text() != code
        push(page, error_frame("unknown_table", "no such table", 0))
        fatal = page.locator("#fatal")
        assert fatal.is_visible()
        assert "no existe" in fatal.inner_text()
        assert page.locator('#fatal a[href="/"]').count() == 1
    finally:
        ctx.close()


def test_reconnect_resyncs_with_last_seq(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        push(page, events_frame(18, [{"kind": "pass", "seat": 3, "numbers": [6, 1]}], mid_view()))
        page.evaluate("window.__drop()")
        page.wait_for_function("window.__sockets.length === 2", timeout=5000)
        page.wait_for_function("window.__sent.filter(f => f.type === 'hello').length === 2", timeout=5000)
        hellos = [f for f in sent(page) if f["type"] == "hello"]
        assert hellos[-1] == {"type": "hello", "table": "t_test", "token": "tok123", "last_seq": 18}
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_a_paused_table_says_so_in_the_status_line(browser, base_url, width, height):
    ctx, page = open_table(browser, base_url, width=width, height=height)
    try:
        status = page.locator("#conn")
        assert status.is_hidden()
        push(page, paused_frame(True))
        assert status.is_visible() and status.get_attribute("data-status") == "paused"
        assert "no puede guardar" in status.inner_text()
        assert_no_hscroll(page, width)
        shot(page, f"table-paused-{width}.png")
        page.click('[data-testid="lang-toggle"]')
        assert "cannot save" in status.inner_text()
        push(page, paused_frame(False))
        assert status.is_hidden()
        assert page.errors == []
    finally:
        ctx.close()


def test_a_reconnect_after_the_table_resumed_is_not_left_paused(browser, base_url):
    """The socket dropped while the table could not save; the table resumed meanwhile
    (its paused: false went to the old socket): the new socket's welcome clears it."""
    ctx, page = open_table(browser, base_url)
    try:
        status = page.locator("#conn")
        push(page, paused_frame(True))
        assert status.get_attribute("data-status") == "paused"
        page.evaluate("window.__drop()")
        page.wait_for_function("window.__sockets.length === 2", timeout=5000)
        page.wait_for_function("window.__sent.filter(f => f.type === 'hello').length === 2", timeout=5000)
        push(page, WELCOME)
        page.wait_for_function("document.getElementById('conn').hidden", timeout=5000)
        assert page.errors == []
    finally:
        ctx.close()


def test_table_frames_change_the_seats_and_players_speak(browser, base_url):
    seats = [human(0, "Ana"), SEATS[1], human(2, "Yoli"), SEATS[3]]
    ctx, page = open_table(browser, base_url, table=table_state(seats))
    try:
        seat = page.locator('.seat[data-seat="2"]')
        assert seat.locator('[data-testid="seat-name"]').inner_text() == "Yoli"
        assert seat.locator(".chip--off").count() == 0
        # Yoli's socket closes: the table frame says so, and her seat shows it.
        push(page, table_frame(17, table_state([*seats[:2], human(2, "Yoli", connected=False), seats[3]])))
        assert seat.locator(".chip--off").is_visible()
        assert "sin conexión" in seat.inner_text()
        shot(page, "table-seat-away-1280.png")
        push(page, table_frame(17, table_state(seats)))
        assert seat.locator(".chip--off").count() == 0
        # A player's phrase shows like a neighbour's line, with the player's name.
        push(page, said_frame(17, 2, "¡Buenas, caballeros!", "Evening, everyone!", name="Yoli", phrase="hola", by="player"))
        bubble = page.locator('[data-testid="chat-bubble"][data-seat="2"]')
        assert bubble.inner_text().startswith("Yoli: ¡Buenas, caballeros!")
        assert "Evening, everyone!" in bubble.locator(".bubble-en").inner_text()
        assert page.errors == []
    finally:
        ctx.close()


def test_spectator_view_without_hand(browser, base_url):
    v = mid_view()
    v["seat"] = None
    v.pop("hand")
    v["legal"] = []
    ctx, page = open_table(browser, base_url, view=v)
    try:
        assert page.locator('[data-testid="tile"]').count() == 0
        assert page.evaluate("document.body.dataset.turn") == "other"
    finally:
        ctx.close()


def test_cross_layout_shows_all_ends(browser, base_url):
    v = base_view(
        rules=dict(RULES, preset="cross", max_pip=6, layout="cross", drawing=True),
        center=[6, 6],
        arms={"left": [[6, 2], [2, 2]], "right": [[6, 1]], "up": [[6, 3], [3, 0], [0, 0], [0, 4]], "down": [[6, 5]]},
        ends=[{"end": "left", "value": 2, "double": True, "outcome": 2}, {"end": "right", "value": 1, "double": False, "outcome": 1},
              {"end": "up", "value": 4, "double": False, "outcome": 4}, {"end": "down", "value": 5, "double": False, "outcome": 5}],
        last={"seat": 2, "tile": [6, 5], "end": "down"}, hand=[[1, 4], [2, 5]], counts=[2, 3, 3, 3],
        legal=[{"tile": [1, 4], "end": "right"}, {"tile": [1, 4], "end": "up"}, {"tile": [2, 5], "end": "left"}, {"tile": [2, 5], "end": "down"}],
        boneyard=4,
    )
    ctx, page = open_table(browser, base_url, width=360, height=740, view=v)
    try:
        assert page.locator('[data-testid="board"] .end-badge').count() == 4
        assert page.locator('[data-testid="board"] .line .tile').count() == 9
        page.click('[data-testid="tile"][data-tile="1-4"]')
        assert sorted(page.eval_on_selector_all('[data-testid="end-choice"]', "els => els.map(e => e.dataset.end)")) == ["right", "up"]
        assert_board_inside(page)
        assert_no_hscroll(page, 360)
        shot(page, "table-cross-360.png")
        page.click('[data-testid="end-choice"][data-end="up"]')
        assert sent(page)[-1] == {"type": "play", "seq": 17, "tile": [1, 4], "end": "up"}
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_layout_fits_screen(browser, base_url, width, height):
    ctx, page = open_table(browser, base_url, width=width, height=height)
    try:
        assert_no_hscroll(page, width)
        for i in range(page.locator('[data-testid="tile"]').count()):
            b = page.locator('[data-testid="tile"]').nth(i).bounding_box()
            assert b and b["width"] >= 40 and b["height"] >= 40
            assert b["x"] >= 0 and b["x"] + b["width"] <= width
        shot(page, f"table-mid-{width}.png")
        push(page, sync_frame(30, long_view()))
        page.wait_for_timeout(150)
        assert page.locator('[data-testid="board"] .line .tile').count() == 31
        assert_board_inside(page)
        assert_no_hscroll(page, width)
        shot(page, f"table-long-{width}.png")
        push(page, sync_frame(31, tranque_view()))
        page.locator('[data-testid="libreta"]').wait_for(state="visible")
        assert_no_hscroll(page, width)
        shot(page, f"table-tranque-{width}.png")
        page.click("#panel-close")
        shot(page, f"table-revealed-{width}.png")
        push(page, sync_frame(32, match_over_view()))
        page.locator('[data-testid="match-over"]').wait_for(state="visible")
        assert_no_hscroll(page, width)
        shot(page, f"table-match-over-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- home, rules, vocab


# The home page's tests are in test_web_home.py (against the real server's /api/presets).


@pytest.mark.parametrize("path,es,en", [
    ("/rules", "Reglas del dominó cubano", "Rules of Cuban dominoes"),
    ("/vocab", "El vocabulario de la mesa", "The table vocabulary"),
])
def test_rules_and_vocab_both_languages(browser, base_url, path, es, en):
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}{path}")
        h1 = page.locator("h1:visible")
        assert h1.inner_text() == es
        text_es = page.locator("article.lang-es").inner_text()
        for word in ["dar agua", "la data", "las dormidas", "la salida", "me pegué", "tranque", "capicúa", "pollona", "viajera", "la libreta"]:
            assert word.lower() in text_es.lower(), word
        assert_no_hscroll(page, 360)
        page.click('[data-testid="lang-toggle"]')
        assert page.locator("h1:visible").inner_text() == en
        assert len(page.locator("article.lang-en").inner_text()) > 1500
        name = path.strip("/")
        shot(page, f"{name}-en-360.png")
    finally:
        ctx.close()


def test_batched_burst_is_paced_and_all_announced(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        v = mid_view()
        v["turn"], v["legal"] = 0, [dict(x) for x in MID_LEGAL]
        burst = [
            {"kind": "play", "seat": 1, "tile": [3, 1], "end": "right"},
            {"kind": "pass", "seat": 2, "numbers": [6, 1]},
            {"kind": "pass", "seat": 3, "numbers": [6, 1]},
        ]
        push(page, events_frame(18, burst, v))
        # The view and seq are current at once: an intent made right away carries the batch's last seq...
        assert page.evaluate("document.body.dataset.turn") == "me"
        page.click('[data-testid="tile"][data-tile="1-4"]')
        assert sent(page)[-1] == {"type": "play", "seq": 20, "tile": [1, 4], "end": "right"}
        # ...while the banners follow one another, to the last event's.
        page.locator('[data-testid="banner"][data-kind="pass"][data-seat="3"]').wait_for(timeout=4000)
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Chucho pasa')", timeout=4000)
    finally:
        ctx.close()


def test_redeal_question(browser, base_url):
    v = base_view(phase="redeal_question", turn=0, center=None, arms={}, ends=[], last=None,
                  hand=[[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 6], [7, 8], [1, 9], [2, 7], [3, 8]],
                  counts=[10, 10, 10, 10], redeal_pending=[0], legal=[{"redeal": True}, {"redeal": False}],
                  rules=dict(RULES, redeal_five_doubles="on_request"))
    ctx, page = open_table(browser, base_url, view=v, seq=3)
    try:
        box = page.locator("#redeal-ask")
        assert box.is_visible()
        box.locator("button.btn-primary").click()
        assert sent(page)[-1] == {"type": "redeal", "seq": 3, "accept": True}
        assert page.evaluate("document.body.dataset.phase") == "redeal_question"
    finally:
        ctx.close()


# --------------------------------------------------------------------------- review fixes


def hand_start_view(hand_number: int, opener: int, **kw: Any) -> dict[str, Any]:
    """A fresh hand: empty board, the opener on turn."""
    v = base_view(hand_number=hand_number, turn=opener, opener=opener, center=None, arms={}, ends=[], last=None,
                  hand=[list(t) for t in MY_HAND], counts=[7, 7, 7, 7], legal=[], history=[],
                  passed_on=[[], [], [], []])
    if opener == 0:
        v["legal"] = [{"tile": list(t), "end": None} for t in MY_HAND]
    v.update(kw)
    return v


def hand_start(seq: int, n: int, opener: int) -> dict[str, Any]:
    """The frame of a new hand (its only event) with the opener on turn."""
    return events_frame(seq, [{"kind": "hand_start", "hand_number": n, "opener": opener, "seed_hash": SEED_HASH}],
                        hand_start_view(n, opener))


HAND_BANNER = '[data-testid="banner"][data-kind="hand"]'


def test_hand_banner_is_short_and_leaves_the_board_for_my_turn(browser, base_url):
    ctx, page = open_table(browser, base_url, width=360, height=740)
    try:
        # Alone, "Mano 3" flashes and is gone within ~1.2 s.
        push(page, hand_start(18, 3, opener=1))
        page.locator(HAND_BANNER).wait_for(state="visible", timeout=1000)
        assert "Mano 3" in page.locator(HAND_BANNER).inner_text()
        page.locator(HAND_BANNER).wait_for(state="detached", timeout=1600)  # 0.8 s + 0.35 s fade
        # A newer event (the opener's play) takes it away at once.
        push(page, hand_start(19, 4, opener=1))
        page.locator(HAND_BANNER).wait_for(state="visible", timeout=1000)
        after = mid_view()
        after.update(turn=2, legal=[], hand_number=4)
        push(page, events_frame(20, [{"kind": "play", "seat": 1, "tile": [3, 1], "end": "right"}], after))
        page.wait_for_timeout(100)
        assert page.locator(HAND_BANNER).count() == 0
        # Fast bots: the hand starts and the play that puts me on turn arrive together (two changes).
        mine = mid_view()
        mine["hand_number"] = 5
        push_together(page, [
            hand_start(21, 5, opener=3),
            events_frame(22, [{"kind": "play", "seat": 3, "tile": [3, 1], "end": "right"}], mine),
        ])
        assert page.evaluate("document.body.dataset.turn") == "me"
        assert page.locator(HAND_BANNER).count() == 0
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Mano 5')", timeout=2000)
        shot(page, "table-hand-start-my-turn-360.png")
        # I open the hand: no banner over the board, the ticker says it.
        push(page, hand_start(23, 6, opener=0))
        assert page.evaluate("document.body.dataset.turn") == "me"
        page.wait_for_timeout(100)
        assert page.locator(HAND_BANNER).count() == 0
        page.wait_for_function("document.getElementById('announcer').textContent.includes('Tienes la salida')", timeout=2000)
        assert page.locator("#board-empty").is_visible()
        assert page.errors == []
    finally:
        ctx.close()


def lost_match_view(pollona: bool = True, capicua: bool = False) -> dict[str, Any]:
    v = match_over_view()
    v.update(scores=[0, 104], match_result={"winner": 1, "scores": [0, 104], "pollona": pollona, "viajera": False},
             sheet=[{"hand": 1, "kind": "domino", "team": 1, "points": 41, "scores": [0, 41]},
                    {"hand": 2, "kind": "tranque", "team": 1, "points": 63, "scores": [0, 104]}])
    v["result"] = dict(v["result"], seat=1, team=1, capicua=capicua)
    return v


def test_lost_match_is_not_celebrated(browser, base_url):
    ctx, page = open_table(browser, base_url)
    try:
        lost = lost_match_view(pollona=True)
        push(page, events_frame(18, [
            {"kind": "tranque"},
            {"kind": "hand_end", "result_kind": "tranque", "seat": 1, "team": 1, "points": 63},
            {"kind": "match_end", "winner": 1, "pollona": True, "viajera": False},
        ], lost))
        banner = page.locator('[data-testid="banner"][data-kind="pollona"]')
        banner.wait_for(state="visible", timeout=3000)  # announced...
        page.wait_for_timeout(300)
        assert page.locator("#confetti i").count() == 0  # ...not celebrated
        assert "cbanner--muted" in (banner.get_attribute("class") or "")
        over = page.locator('[data-testid="match-over"]')
        over.wait_for(state="visible", timeout=5000)
        assert over.get_attribute("data-outcome") == "lost"
        text = over.inner_text()
        assert "Perdimos" in text and "Pollona" in text and "Nos quedamos en cero" in text
        assert page.locator('[data-testid="match-lost"]').is_visible()
        assert page.locator("#match-over .celebrate").count() == 0
        assert page.evaluate("[...document.querySelectorAll('.pollito')].every(p => getComputedStyle(p).animationName === 'none')")
        assert page.locator("#confetti i").count() == 0
        shot(page, "table-match-lost-1280.png")
        assert page.errors == []
    finally:
        ctx.close()
    # The rivals' capicúa that ends a match we lose: no confetti either.
    ctx, page = open_table(browser, base_url)
    try:
        lost = lost_match_view(pollona=False, capicua=True)
        push(page, events_frame(18, [
            {"kind": "capicua"},
            {"kind": "domino"},
            {"kind": "match_end", "winner": 1, "pollona": False, "viajera": False},
        ], lost))
        page.locator('[data-testid="banner"][data-kind="lost"]').wait_for(state="visible", timeout=3000)
        assert page.locator("#confetti i").count() == 0
    finally:
        ctx.close()
    # A won match still gets the confetti.
    ctx, page = open_table(browser, base_url)
    try:
        won = match_over_view()
        won["match_result"] = dict(won["match_result"], pollona=False)
        push(page, events_frame(18, [{"kind": "match_end", "winner": 0, "pollona": False, "viajera": False}], won))
        page.wait_for_function("document.querySelectorAll('#confetti i').length > 10", timeout=3000)
        page.locator('[data-testid="match-over"][data-outcome="won"]').wait_for(state="visible", timeout=5000)
    finally:
        ctx.close()


def test_spanish_strings_agree(browser, base_url):
    ctx, page = open_table(browser, base_url, view=tranque_view())
    try:
        es = page.evaluate("import('/static/js/i18n/index.js').then((m) => m.STRINGS.es)")
        for key, text in es.items():
            # {team} may be "Ellos", "Nosotros", "Tú": no singular verb right after it.
            assert not re.search(r"\{team\} (se anota|gana|nos|se)\b", text), (key, text)
            assert not re.search(r"\b(Ellos|Nosotros) se anota\b|\bNosotros nos anota\b|\bEllos gana\b", text), (key, text)
            assert "por la {end}" not in text, (key, text)  # "por la arriba", "por la brazo 5"
        assert es["say.tranque"].endswith("se cuentan los puntos.")
        assert "los enseña" in es["val.on_request"]
        # Seen from a seat: "Ellos se anotan", never "Ellos se anota".
        v = tranque_view()
        v["result"] = dict(v["result"], seat=1, team=1)
        push(page, sync_frame(18, v))
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=3000)
        assert page.locator(".result-points").inner_text() == "Ellos se anotan 63"
        # A spectator reads a neutral phrase.
        v = tranque_view()
        v["seat"] = None
        push(page, sync_frame(19, v))
        page.wait_for_function("document.querySelector('.result-points').textContent === 'Puntos para Sur–Norte: 63'", timeout=3000)
    finally:
        ctx.close()
    # One against one: the viewer's own points read "Te anotas"; a play names its end's number ("al doble 6").
    rules = dict(RULES, preset="mano-a-mano", max_pip=6, players=2, partnership=False, drawing=True)
    v = base_view(rules=rules, phase="hand_over", turn=None, teams=[0, 1], counts=[0, 2], scores=[21, 12], hand=[],
                  result={"kind": "domino", "seat": 0, "team": 0, "points": 9, "capicua": False, "pip_totals": [0, 9],
                          "next_opener": 0, "seed": "s33d"},
                  revealed=[[], [[4, 5]]], passed_on=[[], []])
    ctx, page = open_table(browser, base_url, view=v)
    try:
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=3000)
        assert page.locator(".result-points").inner_text() == "Te anotas 9"
        assert "te pegaste" in page.locator(".result-line").inner_text().lower()
        cross = base_view(rules=dict(RULES, preset="cross", max_pip=6, layout="cross", drawing=True), turn=3, legal=[],
                          center=[6, 6], arms={"up": [[6, 3]]}, ends=[{"end": "up", "value": 3, "double": False, "outcome": 3}],
                          last={"seat": 2, "tile": [6, 3], "end": "up"})
        push(page, events_frame(18, [{"kind": "play", "seat": 2, "tile": [6, 3], "end": "up"}], cross))
        page.wait_for_function("document.getElementById('announcer').textContent.includes('juega el 6-3 al doble 6')", timeout=3000)
        assert page.errors == []
    finally:
        ctx.close()


def test_verify_links_open_the_verify_page_of_the_hand(browser, base_url):
    ctx, page = open_table(browser, base_url, view=tranque_view())
    try:
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=3000)
        hrefs = [page.locator('[data-testid="verify-link"]').get_attribute("href"),
                 page.locator("#seed-pop a").get_attribute("href")]
        for href in hrefs:
            url = urlparse(href)
            assert url.path == "/verify"  # a page that says it in words, not the raw JSON
            q = {k: vals[0] for k, vals in parse_qs(url.query).items()}
            assert q == {"table": "t_test", "hand": "2"}
    finally:
        ctx.close()
