"""Phones (issue 21, items 2 and 3): the celebration at the match end is seen,
not hidden under the score sheet; the lobby's and the table's words fit their
seat cards and the screen; a guest's name field comes before the seats; both
ways to play are on the home page's first screen.

Chromium at 360 and 390 px (and 1280 where the layout differs), boxes measured
with getBoundingClientRect; frames of protocol version 2 through the fake
websocket of tests/webfake.py, the home page on the real server. Screenshots
go to artifacts/.
"""

# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)
from __future__ import annotations

from typing import Any

import pytest
from test_web_static import (  # noqa: F401  (browser, base_url, server are fixtures)
    assert_no_hscroll,
    base_url,
    browser,
    match_over_view,
    mid_view,
    server,
    shot,
)
from webfake import (
    FAKE_WS,
    events_frame,
    human,
    neighbour,
    push,
    sync_frame,
    table_state,
    welcome_frame,
)

from capicua.table import protocol
from capicua.table.seating import HUMAN, STAND_IN, Seat

PHONES = [(360, 740), (390, 844)]


def phone_context(browser, width: int, height: int, *, token: bool = True):
    phone = width < 640
    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone,
                              device_scale_factor=2 if phone else 1)
    ctx.add_init_script(FAKE_WS)
    if not token:  # a friend who opened the link and has no guest yet
        ctx.add_init_script("localStorage.removeItem('capicua.token')")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return ctx, page


def open_page(browser, base_url: str, width: int, height: int, seat: int | None, table: dict[str, Any],
              view: dict[str, Any] | None, token: bool = True):
    ctx, page = phone_context(browser, width, height, token=token)
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    push(page, welcome_frame(seat, table))
    if view is not None:
        push(page, sync_frame(17, view))
    page.wait_for_timeout(100)
    return ctx, page


def box(page, selector: str) -> dict[str, float]:
    b = page.evaluate("(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
                      " return { x: r.left, y: r.top, r: r.right, b: r.bottom }; }", selector)
    return dict(b)


def inside(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    return a["x"] >= b["x"] - slack and a["r"] <= b["r"] + slack and a["y"] >= b["y"] - slack and a["b"] <= b["b"] + slack


def overlap(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    return a["x"] < b["r"] - slack and b["x"] < a["r"] - slack and a["y"] < b["b"] - slack and b["y"] < a["b"] - slack


def seen_at_its_centre(page, selector: str) -> bool:
    """What is on top at the centre of `selector`'s box is the element itself (or inside it)."""
    return bool(page.evaluate(
        "(sel) => { const el = document.querySelector(sel); if (!el) return false; const r = el.getBoundingClientRect();"
        " if (!r.width || !r.height) return false;"
        " const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!top && el.contains(top); }",
        selector))


# --------------------------------------------------------------------------- item 2: the match end


SEATS = [human(0, "Ana"), neighbour(1, "Pancho", "pancho", "dificil"), neighbour(2, "Cuca", "cuca", "medio"),
         neighbour(3, "Chucho", "chucho", "botagorda")]
MATCH_END = [
    {"kind": "play", "seat": 2, "tile": [3, 1], "end": "right"},
    {"kind": "domino", "seat": 2},
    {"kind": "hand_end", "result_kind": "domino", "seat": 2, "team": 0, "points": 63},
    {"kind": "match_end", "winner": 0, "pollona": True, "viajera": False},
]
HONOURS = protocol.honours_frame(0, {"number": 1, "name": "Pichón", "name_en": "Fledgling"},
                                 [{"id": "primera_victoria", "name": "Primera victoria", "name_en": "First win"},
                                  {"id": "primera_pollona", "name": "Primera pollona", "name_en": "First pollona"}])


@pytest.mark.parametrize("width,height", [*PHONES, (1280, 800)])
def test_the_honours_card_is_seen_at_the_match_end(browser, base_url, width, height):
    ctx, page = open_page(browser, base_url, width, height, 0, table_state(SEATS), mid_view())
    try:
        push(page, events_frame(18, MATCH_END, match_over_view()))
        push(page, HONOURS)  # the results are written a moment after the match's last batch
        card = page.locator('[data-testid="honours"]')
        card.wait_for(state="visible", timeout=5000)
        page.wait_for_timeout(600)  # its entrance
        assert seen_at_its_centre(page, '[data-testid="honours"]'), "the card is covered while the scene plays"
        # Then the score sheet opens: the card is still seen, on top of the sheet, not under it.
        page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=15000)
        page.wait_for_timeout(300)
        assert card.is_visible()
        card.scroll_into_view_if_needed()
        assert seen_at_its_centre(page, '[data-testid="honours"]'), "the score sheet covers the honours"
        for el in ('[data-testid="honours-level"]', '[data-testid="honours-achievement"]'):
            assert seen_at_its_centre(page, el), el
        # It comes before the sheet's lines, on the screen.
        c, over = box(page, '[data-testid="honours"]'), box(page, '[data-testid="match-over"]')
        assert c["b"] <= over["y"] + 0.5 and c["x"] >= 0 and c["r"] <= width
        assert_no_hscroll(page, width)
        shot(page, f"phones-match-end-honours-{width}.png")
        # Closed, it is gone; the sheet stays.
        page.click('[data-testid="honours-close"]')
        assert card.count() == 0 and page.locator('[data-testid="match-over"]').is_visible()
        assert page.errors == []
    finally:
        ctx.close()


def test_the_honours_float_again_when_the_sheet_is_closed(browser, base_url):
    ctx, page = open_page(browser, base_url, 360, 740, 0, table_state(SEATS), match_over_view())
    try:
        page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=5000)
        push(page, HONOURS)
        assert seen_at_its_centre(page, '[data-testid="honours"]')
        page.click("#panel-close")
        page.locator('[data-testid="libreta"]').wait_for(state="hidden", timeout=5000)
        page.wait_for_timeout(600)
        assert seen_at_its_centre(page, '[data-testid="honours"]')
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 3: the lobby


def lobby_seats() -> list[dict[str, Any]]:
    return [human(0, "Dani"), neighbour(1, "Botagorda", "chucho", "botagorda"), Seat(2).public(),
            neighbour(3, "Mima", "mima", "experto")]


def chips_and_cards(page, chip: str, card: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(
        """([chip, card]) => [...document.querySelectorAll(chip)].filter((c) => c.getClientRects().length).map((c) => {
             const r = c.getBoundingClientRect(), k = c.closest(card).getBoundingClientRect();
             return { text: c.textContent, chip: { x: r.left, y: r.top, r: r.right, b: r.bottom },
                      card: { x: k.left, y: k.top, r: k.right, b: k.bottom } }; })""", [chip, card])
    return found


@pytest.mark.parametrize("width,height", [*PHONES, (1280, 800)])
@pytest.mark.parametrize("who", ["guest", "host"])
def test_lobby_chips_fit_their_seats_and_the_name_comes_first(browser, base_url, width, height, who):
    table = table_state(lobby_seats(), status="lobby", host_seat=0, private=True)
    ctx, page = open_page(browser, base_url, width, height, None if who == "guest" else 0, table, None,
                          token=who == "host")
    try:
        page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=5000)
        chips = chips_and_cards(page, ".lseat .chip", ".lseat")
        assert len(chips) >= 4, chips
        for c in chips:
            assert inside(c["chip"], c["card"]), f"{c['text']!r} runs past its seat card: {c}"
            assert c["chip"]["x"] >= 0 and c["chip"]["r"] <= width, f"{c['text']!r} runs off the screen: {c}"
        assert any("botagorda" in c["text"] for c in chips)
        cards = page.evaluate("[...document.querySelectorAll('[data-testid=lobby-seat]')].map((e) => {"
                              " const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, r: r.right, b: r.bottom }; })")
        assert len(cards) == 4
        for i, a in enumerate(cards):
            assert a["x"] >= 0 and a["r"] <= width, a
            for b in cards[i + 1:]:
                assert not overlap(a, b), (a, b)
        if who == "guest":
            # A guest writes a name before tapping "Sentarme aquí": the field comes first.
            name, ring = box(page, "#lobby-join"), box(page, '[data-testid="lobby-ring"]')
            assert page.locator('[data-testid="lobby-nickname"]').is_visible()
            assert name["b"] <= ring["y"], (name, ring)
        assert_no_hscroll(page, width)
        shot(page, f"phones-lobby-{who}-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 3: the table


def stood_in(seat: int, name: str, character: str) -> dict[str, Any]:
    return Seat(seat, HUMAN, name, online=False, controller=STAND_IN, character=character, level="medio").public()


@pytest.mark.parametrize("width,height", [*PHONES, (1280, 800)])
def test_table_chips_and_stand_ins_fit_their_seat_cards(browser, base_url, width, height):
    seats = [human(0, "Ana"), stood_in(1, "Dani", "cheo"), human(2, "Maritza", connected=False),
             stood_in(3, "Alejandrina", "chucho")]
    v = mid_view()
    v["opener"] = 3
    ctx, page = open_page(browser, base_url, width, height, 0, table_state(seats), v)
    try:
        page.locator('[data-testid="stand-in"]').first.wait_for(timeout=5000)
        found = chips_and_cards(page, ".seat .chip, .seat [data-testid=stand-in]", ".seat")
        texts = " ".join(c["text"] for c in found)
        assert "Cheo juega por Dani" in texts and ("ausente" in texts or "sin conexión" in texts), texts
        for c in found:
            assert inside(c["chip"], c["card"]), f"{c['text']!r} is wider than its seat card: {c}"
            assert c["chip"]["x"] >= 0 and c["chip"]["r"] <= width, c
        assert_no_hscroll(page, width)
        shot(page, f"phones-table-stand-ins-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- item 3: the home page


def test_both_ways_to_play_are_on_a_phones_first_screen(browser, live_server):
    srv = live_server()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        page = ctx.new_page()
        page.goto(f"{srv.base}/")
        page.wait_for_function("document.querySelectorAll('#preset option').length > 0", timeout=15000)
        for testid in ("play-button", "friends-button"):
            b = page.locator(f'[data-testid="{testid}"]').bounding_box()
            assert b and b["y"] >= 0 and b["y"] + b["height"] <= 844 and b["x"] >= 0 and b["x"] + b["width"] <= 390, (testid, b)
        assert_no_hscroll(page, 390)
        shot(page, "phones-home-390.png")
    finally:
        ctx.close()
