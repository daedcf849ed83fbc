"""Browser tests of the board (capicua/web/js/board.js, travel.js and the end
chooser of table.js): the double-nine cross drawn from real engine positions,
draws shown one by one, ends chosen by their number or on the board, and
neighbours' tiles flying from their seats.

They reuse the fake server of test_web_static.py and the fake websocket of
webfake.py (protocol version 2). Geometry
is read in the browser (getBoundingClientRect); animations are stepped by
hand (Element.getAnimations), never timed. Screenshots go to artifacts/.
"""
# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from test_web_static import (  # noqa: F401  (server: a fixture base_url needs)
    WELCOME,
    base_url,
    browser,
    long_view,
    mid_view,
    server,
    shot,
)
from webfake import FAKE_WS, events_frame, push, push_together, sent, sync_frame

from capicua.engine import Match, make_rules

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web_board")]

CENTRE_ARMS = ("left", "right", "up", "down")
SIZES = [(1280, 800), (360, 740)]


# --------------------------------------------------------------------------- engine positions


def pick_first(moves: list[Any]) -> Any:
    return moves[0]


def pick_last(moves: list[Any]) -> Any:
    return moves[-1]


def doubles_laid(view: dict[str, Any]) -> int:
    return sum(1 for arm in view["arms"].values() for t in arm if t[0] == t[1])


def nine_cross_match(seed: str, doubles: int, pick: Callable[[list[Any]], Any], seat: int = 0) -> Match:
    """A double-nine cross hand played until `doubles` doubles are laid and `seat` is on turn."""
    match = Match(make_rules("double-nine-cross"), seed)
    match.start_hand()
    while match.phase == "play":
        view = match.view(seat)
        if doubles_laid(view) >= doubles and match.turn == seat and view["legal"]:
            return match
        match.apply(match.turn, pick(match.legal_moves()))
    raise AssertionError(f"{seed}: the hand ended before {doubles} doubles were laid")


# Positions with several doubles laid; `pick_last` plays on the newest lines, so they grow too.
POSITIONS = [("cross-24", 3, pick_first), ("cross-36", 3, pick_first), ("cross-33", 3, pick_last), ("cross-70", 3, pick_last)]


def nine_cross_view(seed: str, doubles: int, pick: Callable[[list[Any]], Any]) -> dict[str, Any]:
    return nine_cross_match(seed, doubles, pick).view(0)


def table_with(browser, base_url, view: dict[str, Any], width: int = 1280, height: int = 800, hold_flights: bool = True, **ctx_args: Any):
    """open_table with `view` (at seq 40); flights start paused (HOLD_FLIGHTS_JS) unless told not to."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, **ctx_args)
    ctx.add_init_script(FAKE_WS)
    if hold_flights:
        ctx.add_init_script(HOLD_FLIGHTS_JS)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    push(page, WELCOME)
    push(page, sync_frame(40, view))
    page.wait_for_function("document.body.dataset.phase !== 'loading'")
    return ctx, page


BOARD_TILES_JS = """() => [...document.querySelectorAll('[data-testid=board] .line .tile')].map(g => {
  const r = g.querySelector('.tile-face').getBoundingClientRect();
  return {key: g.dataset.key, arm: g.dataset.arm || null, index: g.dataset.index === undefined ? null : Number(g.dataset.index),
          x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
})"""


def board_tiles(page) -> list[dict[str, Any]]:
    return page.evaluate(BOARD_TILES_JS)


def gap(a: dict[str, float], b: dict[str, float]) -> float:
    """Distance between two rects (0 when they touch or overlap)."""
    dx = max(0.0, max(a["x0"], b["x0"]) - min(a["x1"], b["x1"]))
    dy = max(0.0, max(a["y0"], b["y0"]) - min(a["y1"], b["y1"]))
    return float((dx * dx + dy * dy) ** 0.5)


def overlap_area(a: dict[str, float], b: dict[str, float]) -> float:
    w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
    h = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
    return max(0.0, w) * max(0.0, h)


# --------------------------------------------------------------------------- item 7: the cross


@pytest.mark.parametrize("width,height", SIZES)
def test_nine_cross_lines_start_at_their_doubles(browser, base_url, width, height):
    ctx, page = table_with(browser, base_url, nine_cross_view(*POSITIONS[0]), width, height)
    try:
        for n, (seed, doubles, pick) in enumerate(POSITIONS):
            view = nine_cross_view(seed, doubles, pick)
            # How long the page takes to take the frame and draw the table (the layout search included).
            ms = page.evaluate("(f) => { const t0 = performance.now(); window.__push(f); return performance.now() - t0; }",
                               sync_frame(41 + n, view))
            tiles = board_tiles(page)
            assert len(tiles) == 1 + sum(len(a) for a in view["arms"].values())
            by_key = {t["key"]: t for t in tiles}
            # Faces are inset a little from the tile's square: touching tiles show a hairline between them.
            short = min(min(t["x1"] - t["x0"], t["y1"] - t["y0"]) for t in tiles)
            touch = 0.12 * short
            board = page.locator('[data-testid="board"]').bounding_box()
            assert board is not None
            # Each line a double opened starts at that double: its first tile touches the double's face.
            branches = {name: arm for name, arm in view["arms"].items() if name not in CENTRE_ARMS and arm}
            assert branches, f"{seed}: no line grew from a double"
            for name, arm in branches.items():
                d = arm[0][0]
                first = next(t for t in tiles if t["arm"] == name and t["index"] == 0)
                assert gap(first, by_key[f"{d}-{d}"]) <= touch, (seed, name, first, by_key[f"{d}-{d}"])
            # Tiles of the centre's lines start at the centre tile.
            centre = next(t for t in tiles if t["arm"] is None)
            for name in CENTRE_ARMS:
                first = next((t for t in tiles if t["arm"] == name and t["index"] == 0), None)
                if first:
                    assert gap(first, centre) <= touch, (seed, name)
            # No two tiles overlap; all are on the board.
            for i, a in enumerate(tiles):
                assert board["x"] - 1 <= a["x0"] and a["x1"] <= board["x"] + board["width"] + 1, (seed, a)
                assert board["y"] - 1 <= a["y0"] and a["y1"] <= board["y"] + board["height"] + 1, (seed, a)
                for b in tiles[i + 1:]:
                    assert overlap_area(a, b) < 1.0, (seed, a, b)
            # Centred: the drawing's middle is near the board's.
            x0 = min(t["x0"] for t in tiles)
            x1 = max(t["x1"] for t in tiles)
            y0 = min(t["y0"] for t in tiles)
            y1 = max(t["y1"] for t in tiles)
            off_x = (x0 + x1) / 2 - (board["x"] + board["width"] / 2)
            off_y = (y0 + y1) / 2 - (board["y"] + board["height"] / 2)
            assert abs(off_x) <= 0.1 * board["width"] and abs(off_y) <= 0.1 * board["height"], (seed, off_x, off_y)
            # Big enough to read: the short side of a tile (one pip square).
            fill = max((x1 - x0) / board["width"], (y1 - y0) / board["height"])
            print(f"{width}px {seed}: {len(tiles)} tiles, half tile {short:.1f}px, fills {fill:.0%} of the board, "
                  f"off centre {off_x:+.0f},{off_y:+.0f}px, frame drawn in {ms:.0f} ms")
            assert short >= (18 if width >= 1000 else 10), (seed, short)
            # No bare number labels a line: the only text on the board is the open ends' numbers.
            texts = page.eval_on_selector_all('[data-testid="board"] text', "els => els.map(e => e.closest('.end-badge') ? 'end' : e.textContent)")
            assert set(texts) <= {"end"}, texts
            assert page.locator('[data-testid="board"] .end-badge').count() == len(view["ends"])
            if n == len(POSITIONS) - 1:
                shot(page, f"board-nine-cross-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()



def test_within_a_hand_the_cross_only_shrinks_and_stays_put(browser, base_url):
    """Play a double-nine cross hand frame by frame: the tiles never grow, and most stay where they were."""
    match = Match(make_rules("double-nine-cross"), "steady-4")
    match.start_hand()
    views = []
    while match.phase == "play" and len(views) < 16:
        match.apply(match.turn, match.legal_moves()[-1])
        views.append(match.view(0))
    ctx, page = table_with(browser, base_url, views[0], 360, 740)
    try:
        sizes: list[float] = []
        moved = 0
        kept = 0
        before: dict[str, tuple[float, float]] = {}
        for n, view in enumerate(views[1:]):
            push(page, sync_frame(41 + n, view))
            tiles = {t["key"]: t for t in board_tiles(page)}
            sizes.append(min(min(t["x1"] - t["x0"], t["y1"] - t["y0"]) for t in tiles.values()))
            # Where each tile is, seen from the centre tile (the drawing as a whole recentres as it grows).
            centre = next(t for t in tiles.values() if t["arm"] is None)
            rel = {key: (t["x0"] - centre["x0"], t["y0"] - centre["y0"]) for key, t in tiles.items()}
            if len(sizes) > 1 and abs(sizes[-1] - sizes[-2]) < 0.5:
                for key, old in before.items():
                    kept += 1
                    moved += max(abs(old[0] - rel[key][0]), abs(old[1] - rel[key][1])) > 1
            before = rel
        print(f"half tile over the hand: {[round(x) for x in sizes]}; of tiles seen twice at one size, {moved} of {kept} moved")
        assert all(b <= a + 0.5 for a, b in zip(sizes, sizes[1:], strict=False)), sizes
        assert moved <= kept // 4, (moved, kept)
        assert page.errors == []
    finally:
        ctx.close()

# --------------------------------------------------------------------------- item 8: choosing the end


def turned_line_choice(seed: int) -> tuple[dict[str, Any], list[int]]:
    """long_view's snake (it turns at the board's edges) with my turn and a tile that fits both ends."""
    v = long_view(seed=seed)
    left, right = (e["value"] for e in v["ends"])
    on_board = {tuple(sorted(t)) for arm in v["arms"].values() for t in arm} | {tuple(sorted(v["center"]))}
    tile = [left, right]
    assert left != right and tuple(sorted(tile)) not in on_board, f"seed {seed}: pick another seed"
    v.update(turn=0, hand=[tile, *v["hand"][:3]], counts=[4, 2, 3, 1],
             legal=[{"tile": tile, "end": "left"}, {"tile": tile, "end": "right"}])
    return v, tile


GHOST_HALF_PIPS_JS = """([end, armLength, value]) => {
  // The ghost's half next to the end tile, and that tile's outer half: the pips each shows.
  const ghost = document.querySelector(`[data-testid=ghost][data-end="${end}"] .tile--ghost`);
  // The drawn end: the line's last tile, or for a line not started yet the tile it hangs from
  // (the centre tile, or the double that opened it).
  const from = end in {left: 1, right: 1, up: 1, down: 1} ? '[data-center]' : `[data-key="${value}-${value}"]`;
  const last = document.querySelector(armLength
    ? `[data-testid=board] .line .tile[data-arm="${end}"][data-index="${armLength - 1}"]`
    : `[data-testid=board] .line .tile${from}`);
  const rect = (el) => el.querySelector('.tile-face').getBoundingClientRect();
  const g = rect(ghost); const t = rect(last);
  const halves = (r) => r.width > r.height
    ? [[r.left, r.top, r.left + r.width / 2, r.bottom], [r.left + r.width / 2, r.top, r.right, r.bottom]]
    : [[r.left, r.top, r.right, r.top + r.height / 2], [r.left, r.top + r.height / 2, r.right, r.bottom]];
  const centre = (h) => [(h[0] + h[2]) / 2, (h[1] + h[3]) / 2];
  const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  const near = (halvesOf, other) => halvesOf.slice().sort((a, b) => dist(centre(a), other) - dist(centre(b), other))[0];
  const pips = (el, h) => [...el.querySelectorAll('circle.pip')].filter((c) => {
    const r = c.getBoundingClientRect(); const x = r.left + r.width / 2; const y = r.top + r.height / 2;
    return x > h[0] && x < h[2] && y > h[1] && y < h[3];
  }).length;
  const gHalf = near(halves(g), centre([t.left, t.top, t.right, t.bottom]));
  const tHalf = near(halves(t), centre([g.left, g.top, g.right, g.bottom]));
  const gap = Math.max(0, Math.max(g.left, t.left) - Math.min(g.right, t.right)) + Math.max(0, Math.max(g.top, t.top) - Math.min(g.bottom, t.bottom));
  return { ghostPips: pips(ghost, gHalf), endPips: pips(last, tHalf), gap, half: Math.min(g.width, g.height) };
}"""


def ghost_at(page, view: dict[str, Any], end: str) -> dict[str, Any]:
    """GHOST_HALF_PIPS_JS for `end` of `view` (the view the test gave the page)."""
    value = next(e["value"] for e in view["ends"] if e["end"] == end)
    seen: dict[str, Any] = page.evaluate(GHOST_HALF_PIPS_JS, [end, len(view["arms"][end]), value])
    return seen


def test_ghosts_in_the_nine_cross_touch_their_ends(browser, base_url):
    view = nine_cross_view("cross-30", 3, pick_first)
    tile = [1, 3]
    ends = {move["end"] for move in view["legal"] if sorted(move["tile"]) == tile}
    assert len(ends) == 5 and any(not view["arms"][e] for e in ends)  # some on lines not started yet
    values = {e["end"]: e["value"] for e in view["ends"]}
    for width, height in SIZES:
        ctx, page = table_with(browser, base_url, view, width, height)
        try:
            page.click('[data-testid="tile"][data-tile="1-3"]')
            assert set(page.eval_on_selector_all('[data-testid="ghost"]', "els => els.map(e => e.dataset.end)")) == ends
            assert sorted(page.eval_on_selector_all('[data-testid="end-choice"]', "els => els.map(e => e.textContent)")) == ["al doble 1", "al doble 3"]
            for end in sorted(ends):
                seen = ghost_at(page, view, end)
                assert seen["gap"] <= 0.15 * seen["half"], (end, seen)
                assert seen["ghostPips"] == values[end], (end, seen)
            shot(page, f"board-nine-cross-choice-{width}.png")
            target = sorted(ends)[-1]
            page.click(f'[data-testid="ghost"][data-end="{target}"]')
            assert [f for f in sent(page) if f["type"] == "play"] == [{"type": "play", "seq": 40, "tile": [1, 3], "end": target}]
            assert page.errors == []
        finally:
            ctx.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_ghosts_on_a_turned_line_name_and_play_their_end(browser, base_url, width, height):
    view, tile = turned_line_choice(seed=1)
    ctx, page = table_with(browser, base_url, view, width, height)
    try:
        # The line has turned at the board's edges: its tiles lie in several rows.
        rows = {round((t["y0"] + t["y1"]) / 2 / 5) for t in board_tiles(page)}
        assert len(rows) >= 3, rows
        page.click(f'[data-testid="tile"][data-tile="{tile[0]}-{tile[1]}"]')
        # The text chooser names each end by its number, never left or right.
        labels = page.eval_on_selector_all('[data-testid="end-choice"]', "els => els.map(e => e.textContent)")
        ends = {e["end"]: e for e in view["ends"]}
        assert sorted(labels) == sorted(f"al {'doble ' if e['double'] else ''}{e['value']}" for e in view["ends"])
        assert page.locator('[data-testid="ghost"]').count() == 2
        for end in ("left", "right"):
            seen = ghost_at(page, view, end)
            print(f"{width}px ghost at {end} ({ends[end]['value']}): {seen}")
            assert seen["gap"] <= 0.15 * seen["half"], seen  # it touches the drawn end
            assert seen["ghostPips"] == ends[end]["value"] == seen["endPips"], seen
        shot(page, f"board-choice-turned-{width}.png")
        page.click('[data-testid="ghost"][data-end="left"]')
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 40, "tile": tile, "end": "left"}]
        assert page.locator('[data-testid="ghost"]').count() == 0
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 7: draws; item 11: tiles travel

# Test instrumentation (not in the page): every animation of a flying tile starts paused, so the
# test can step it (Element.getAnimations()) and read where it is, whatever the machine's speed.
HOLD_FLIGHTS_JS = """
(() => {
  window.__flights = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const a = animate.apply(this, args);
    if (this.dataset && this.dataset.testid === 'flyer') { a.pause(); window.__flights.push({ kind: this.dataset.kind, anim: a, el: this }); }
    return a;
  };
})();
"""


def batch_with_draws(seed: str, player: int, drawer: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A double-nine cross hand (first legal moves) up to a play by `player` after which `drawer`
    draws; returns seat 0's view before it and the batch's frame (with the view after it)."""
    match = Match(make_rules("double-nine-cross"), seed)
    match.start_hand()
    seq = 50
    while match.phase == "play":
        before = match.view(0)
        seat = match.turn
        events = match.apply(seat, match.legal_moves()[0])
        seq += len(events)
        draws = [e["seat"] for e in events if e["kind"] == "draw"]
        if seat == player and len(draws) >= 3 and set(draws) == {drawer} and events[0]["kind"] == "play":
            after = match.view(0)
            first = seq - len(events) + 1
            return before, events_frame(first, events, after)
    raise AssertionError(f"{seed}: no such batch")


def draws_in(batch: dict[str, Any]) -> int:
    return sum(1 for e in batch["events"] if e["event"]["kind"] == "draw")


WATCH_JS = """([selector, read]) => {
  // What the page shows: the distinct values in order, read after every change
  // of the DOM (a frame-by-frame watch missed a value on a loaded machine, when
  // frames came slower than the test's steps) and at every frame.
  window.__shown = [];
  const look = new Function('el', read);
  const see = () => {
    const el = document.querySelector(selector);
    const v = el ? look(el) : null;
    if (window.__shown[window.__shown.length - 1] !== v) window.__shown.push(v);
  };
  new MutationObserver(see).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  const tick = () => { see(); window.__watch = requestAnimationFrame(tick); };
  tick();
}"""


FLIGHT_ENDS_JS = """(i) => {
  // Where held flight i is at its start and at its end (viewport rects).
  const f = window.__flights[i];
  const at = (t) => { f.anim.currentTime = t; const r = f.el.getBoundingClientRect(); return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
  const start = at(0);
  const end = at(f.anim.effect.getComputedTiming().duration);
  f.anim.currentTime = 0;
  return {start, end, kind: f.kind};
}"""


def land_flights(page, kind: str) -> None:
    """Let every held flight of `kind` land (jump to its end)."""
    page.evaluate("(k) => window.__flights.filter((f) => f.kind === k).forEach((f) => f.anim.finish())", kind)


def rect_of(page, selector: str) -> dict[str, float]:
    return page.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect(); return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; }", selector)


def centre_in(r: dict[str, float], box: dict[str, float], slack: float = 4.0) -> bool:
    cx, cy = (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2
    return box["x0"] - slack <= cx <= box["x1"] + slack and box["y0"] - slack <= cy <= box["y1"] + slack


@pytest.mark.parametrize("width,height", SIZES)
def test_a_neighbours_draws_show_one_by_one(browser, base_url, width, height):
    before, batch = batch_with_draws("draws-19", player=0, drawer=1)
    ctx, page = table_with(browser, base_url, before, width, height)
    try:
        count = before["counts"][1]
        k = draws_in(batch)
        badge = '.seat[data-seat="1"] [data-testid="count-badge"]'
        page.evaluate(WATCH_JS, [badge, "return el.textContent"])
        # Every "¡Roba!" stamp the seat shows is counted as it is added: a stamp lives
        # 1.1 s, which a loaded machine can spend between two of the test's own calls.
        page.evaluate("""() => { window.__robas = 0; new MutationObserver((ms) => { for (const m of ms)
            for (const n of m.addedNodes) if (n.nodeType === 1 && n.matches('.seat[data-seat="1"] .sbanner--draw')) window.__robas++;
          }).observe(document.body, {subtree: true, childList: true}); }""")
        push(page, batch)
        for i in range(k):
            # A face-down tile flies from the boneyard to the seat, which says "¡Roba!"...
            page.wait_for_function("(n) => window.__flights.filter((f) => f.kind === 'draw').length > n", arg=i)
            flight = page.evaluate(FLIGHT_ENDS_JS, i)
            assert centre_in(flight["start"], rect_of(page, "#sleeping")), flight
            assert centre_in(flight["end"], rect_of(page, '.seat[data-seat="1"]')), flight
            # At least one stamp per draw so far (a re-drawn seat card adds its stamp again).
            page.wait_for_function("(n) => window.__robas > n", arg=i, timeout=5000)
            # ...and the count goes up only when it lands.
            assert page.locator(badge).inner_text() == str(count + i)
            if i == 0:
                page.evaluate("() => { window.__flights[0].anim.currentTime = 130; }")
                shot(page, f"board-draw-{width}.png")
            page.evaluate("(i) => window.__flights[i].anim.finish()", i)
            page.wait_for_function("([s, n]) => document.querySelector(s).textContent === String(n)", arg=[badge, count + i + 1])
        page.wait_for_function("(n) => window.__shown[window.__shown.length - 1] === String(n)", arg=count + k)
        shown = page.evaluate("window.__shown")
        print(f"seat 1 draws {k}: the count showed {shown}")
        assert shown == [str(count + i) for i in range(k + 1)]
        assert page.errors == []
    finally:
        ctx.close()


def test_my_own_draws_reach_my_hand_one_by_one(browser, base_url):
    before, batch = batch_with_draws("draws-2", player=3, drawer=0)
    ctx, page = table_with(browser, base_url, before)
    try:
        after = batch["view"]
        drawn = [a["draw"] for a in after["history"][len(before["history"]):] if a.get("draw")]
        assert len(drawn) >= 3 and all(isinstance(t, list) for t in drawn)  # my view names my drawn tiles
        visible = "return [...el.querySelectorAll('[data-testid=tile]')].filter((b) => b.style.visibility !== 'hidden').length"
        page.evaluate(WATCH_JS, ['[data-testid="my-hand"]', visible])
        push(page, batch)
        for i, tile in enumerate(drawn):
            page.wait_for_function("(n) => window.__flights.filter((f) => f.kind === 'draw').length > n", arg=i)
            flights = page.evaluate("window.__flights.map((f, i) => [f.kind, i])")
            index = [j for kind, j in flights if kind == "draw"][i]
            flight = page.evaluate(FLIGHT_ENDS_JS, index)
            key = "-".join(map(str, sorted(tile)))
            target = f'[data-testid="my-hand"] [data-key="{key}"]'
            # It flies to the drawn tile's place in my hand, which waits, hidden, until it lands.
            assert centre_in(flight["end"], rect_of(page, target), slack=2), (flight, tile)
            assert page.locator(target).evaluate("(b) => b.style.visibility") == "hidden"
            page.evaluate("(i) => window.__flights[i].anim.finish()", index)
            page.wait_for_function("(s) => document.querySelector(s).style.visibility === ''", arg=target)
        n = len(before["hand"])
        page.wait_for_function("(n) => window.__shown[window.__shown.length - 1] === n", arg=n + len(drawn))
        shown = page.evaluate("window.__shown")
        print(f"I draw {len(drawn)}: my hand showed {shown} tiles")
        assert shown == [n + i for i in range(len(drawn) + 1)]
        assert page.errors == []
    finally:
        ctx.close()


def play_frame(seq: int, view: dict[str, Any], seat: int, tile: list[int], end: str, replayed: bool = False) -> dict[str, Any]:
    """`seat` plays `tile` at `end` of `view`: the frame of that change."""
    v = copy.deepcopy(view)
    v["arms"][end].append(tile)
    v["ends"] = [e if e["end"] != end else {"end": end, "value": tile[1], "double": tile[0] == tile[1], "outcome": tile[1]} for e in v["ends"]]
    v.update(last={"seat": seat, "tile": tile, "end": end}, turn=(seat + 1) % 4, legal=[])
    v["counts"][seat] -= 1
    return events_frame(seq, [{"kind": "play", "seat": seat, "tile": tile, "end": end}], v, replayed)


def visibility(page, selector: str) -> str:
    """The computed visibility of `selector`, found and read in one task (the board may redraw
    between two calls, and a replaced element has no computed style)."""
    value: str = page.evaluate("(s) => getComputedStyle(document.querySelector(s)).visibility", selector)
    return value


def test_a_neighbours_tile_flies_from_its_seat_to_its_place(browser, base_url):
    ctx, page = table_with(browser, base_url, mid_view())
    try:
        push(page, play_frame(41, mid_view(), seat=2, tile=[6, 3], end="left"))
        page.wait_for_function("window.__flights.length === 1")
        flight = page.evaluate(FLIGHT_ENDS_JS, 0)
        assert flight["kind"] == "play"
        tile = '[data-testid="board"] .line .tile[data-key="3-6"]'
        seat = rect_of(page, '.seat[data-seat="2"]')
        place = rect_of(page, tile)
        print(f"flight from {flight['start']} (seat {seat}) to {flight['end']} (its place {place})")
        assert centre_in(flight["start"], seat), (flight, seat)
        for k in ("x0", "y0", "x1", "y1"):
            assert abs(flight["end"][k] - place[k]) <= 1.5, (flight, place)
        # In the air, its place on the board is empty; it slams when it lands.
        assert visibility(page, tile) == "hidden"
        page.evaluate("() => window.__flights[0].anim.currentTime = 150")
        shot(page, "board-flight-1280.png")
        land_flights(page, "play")
        page.wait_for_function("(s) => getComputedStyle(document.querySelector(s)).visibility === 'visible'", arg=tile)
        assert "tile--slam" in (page.locator(tile).get_attribute("class") or "")
        assert page.locator('[data-testid="flyer"]').count() == 0
        # My own play does not fly.
        v = copy.deepcopy(mid_view())
        push(page, sync_frame(42, v))
        push(page, play_frame(43, v, seat=0, tile=[1, 4], end="right"))
        page.wait_for_function("() => document.querySelector('[data-testid=board] .line .tile[data-key=\"1-4\"]')")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate("window.__flights.length") == 1
        assert page.errors == []
    finally:
        ctx.close()


def test_replayed_frames_and_reduced_motion_do_not_fly(browser, base_url):
    ctx, page = table_with(browser, base_url, mid_view())
    try:
        push(page, play_frame(41, mid_view(), seat=2, tile=[6, 3], end="left", replayed=True))
        page.wait_for_function("() => document.querySelector('[data-testid=board] .line .tile[data-key=\"3-6\"]')")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate("window.__flights.length") == 0
        assert visibility(page, '[data-testid="board"] .line .tile[data-key="3-6"]') == "visible"
    finally:
        ctx.close()
    ctx, page = table_with(browser, base_url, mid_view(), reduced_motion="reduce")
    try:
        push(page, play_frame(41, mid_view(), seat=2, tile=[6, 3], end="left"))
        page.wait_for_function("() => document.querySelector('[data-testid=board] .line .tile[data-key=\"3-6\"]')")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate("window.__flights.length") == 0
        assert visibility(page, '[data-testid="board"] .line .tile[data-key="3-6"]') == "visible"
        assert page.errors == []
    finally:
        ctx.close()


def ghost_centre(page, end: str) -> tuple[float, float]:
    r = rect_of(page, f'[data-testid="ghost"][data-end="{end}"] .tile-face')
    return (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2


def tile_centre(page, key: str) -> tuple[float, float]:
    r = rect_of(page, f'[data-testid="my-hand"] [data-testid="tile"][data-key="{key}"]')
    return (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2


def test_dragging_a_tile_onto_a_ghost_plays_there(browser, base_url):
    view, tile = turned_line_choice(seed=1)
    key = "-".join(map(str, sorted(tile)))
    ctx, page = table_with(browser, base_url, view)
    try:
        # Press, move: the ghosts show where it fits (no chooser opened by a tap).
        x, y = tile_centre(page, key)
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x, y - 40, steps=4)
        page.wait_for_function("() => document.querySelectorAll('[data-testid=ghost]').length === 2")
        assert page.locator('[data-testid="drag-tile"]').count() == 1
        gx, gy = ghost_centre(page, "right")
        page.mouse.move(gx, gy, steps=8)
        assert page.locator('[data-testid="ghost"][data-end="right"]').get_attribute("class") == "ghost ghost--over"
        shot(page, "board-drag-1280.png")
        page.mouse.up()
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 40, "tile": tile, "end": "right"}]
        assert page.locator('[data-testid="drag-tile"]').count() == 0
        assert page.locator('[data-testid="end-choice"]').count() == 0  # the release was no tap
        # Let go away from the ghosts: nothing is played, the choice stays open.
        push(page, sync_frame(41, view))
        x, y = tile_centre(page, key)
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 60, y - 10, steps=4)
        page.mouse.up()
        assert len([f for f in sent(page) if f["type"] == "play"]) == 1
        assert page.locator('[data-testid="ghost"]').count() == 2
        assert page.locator('[data-testid="end-choice"]').count() == 2
        assert page.errors == []
    finally:
        ctx.close()


def test_dragging_with_a_finger_plays_too(browser, base_url):
    view, tile = turned_line_choice(seed=1)
    key = "-".join(map(str, sorted(tile)))
    ctx, page = table_with(browser, base_url, view, 360, 740, has_touch=True, is_mobile=True)
    try:
        cdp = ctx.new_cdp_session(page)
        x, y = tile_centre(page, key)

        def touch(kind: str, px: float, py: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": px, "y": py, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", x, y)
        for i in range(1, 5):
            touch("touchMove", x, y - 12 * i)
        page.wait_for_function("() => document.querySelectorAll('[data-testid=ghost]').length === 2")
        gx, gy = ghost_centre(page, "left")
        for i in range(1, 9):
            touch("touchMove", x + (gx - x) * i / 8, y - 48 + (gy - y + 48) * i / 8)
        touch("touchEnd", gx, gy)
        page.wait_for_function("() => window.__sent.some((f) => f.type === 'play')")
        plays = [f for f in sent(page) if f["type"] == "play"]
        assert plays == [{"type": "play", "seq": 40, "tile": tile, "end": "left"}]
        assert page.errors == []
    finally:
        ctx.close()


def test_a_sync_in_the_middle_of_draws_shows_the_table_as_it_is(browser, base_url):
    before, batch = batch_with_draws("draws-19", player=0, drawer=1)
    ctx, page = table_with(browser, base_url, before)
    try:
        after = batch["view"]
        badge = '.seat[data-seat="1"] [data-testid="count-badge"]'
        push(page, batch)
        page.wait_for_function("() => window.__flights.some((f) => f.kind === 'draw')")
        assert page.locator(badge).inner_text() == str(before["counts"][1])
        push(page, sync_frame(batch["seq"], after))
        assert page.locator(badge).inner_text() == str(after["counts"][1])
        assert page.locator('[data-testid="flyer"]').count() == 0
        assert page.errors == []
    finally:
        ctx.close()


def test_draws_behind_other_effects_wait_from_the_start(browser, base_url):
    """A batch that arrives while the last one's effects still play: its draws show one by one
    from the count before them, never the count after them first."""
    before, batch = batch_with_draws("draws-19", player=0, drawer=1)
    ctx, page = table_with(browser, base_url, before)
    try:
        count = before["counts"][1]
        k = draws_in(batch)
        badge = '.seat[data-seat="1"] [data-testid="count-badge"]'
        page.evaluate(WATCH_JS, [badge, "return el.textContent"])
        # A pass whose stamp holds the queue (its effect waits before the next), then the batch.
        knock = events_frame(batch["events"][0]["seq"] - 1, [{"kind": "pass", "seat": 3, "numbers": [1]}], before)
        push_together(page, [knock, batch])
        for i in range(k):
            page.wait_for_function("(n) => window.__flights.filter((f) => f.kind === 'draw').length > n", arg=i)
            page.evaluate("(i) => window.__flights.filter((f) => f.kind === 'draw')[i].anim.finish()", i)
            page.wait_for_function("([s, n]) => document.querySelector(s).textContent === String(n)", arg=[badge, count + i + 1])
        page.wait_for_function("(n) => window.__shown[window.__shown.length - 1] === String(n)", arg=count + k)
        assert page.evaluate("window.__shown") == [str(count + i) for i in range(k + 1)]
        assert page.errors == []
    finally:
        ctx.close()
