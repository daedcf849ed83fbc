"""Error pages (issue 21, item 9): an unknown URL gets a real 404 page in the
site's style and the reader's language, with a way home (JSON stays JSON under
/api/); an unknown table, or a finished one this browser had no seat at, says
so on a clean page (no ghost table under it) whose language toggle works.

The 404 answers come from the real server (``live_server``); the table's
notices from frames of protocol version 2 through the fake websocket of
tests/webfake.py. Chromium at 1280 and 360 px; screenshots go to artifacts/.
"""

# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)
from __future__ import annotations

from typing import Any

import httpx
import pytest
from test_web_static import (  # noqa: F401  (browser, base_url, server are fixtures)
    assert_no_hscroll,
    base_url,
    browser,
    match_over_view,
    server,
    shot,
)
from webfake import (
    FAKE_WS,
    error_frame,
    human,
    neighbour,
    push,
    sync_frame,
    table_state,
    welcome_frame,
)

from capicua.server.http.notfound import preferred_lang

WAIT_MS = 15_000  # a guard against hangs, not a timed assertion


# --------------------------------------------------------------------------- 404


@pytest.mark.parametrize("header,lang", [
    (None, "es"), ("es-CU,es;q=0.9", "es"), ("en-US,en;q=0.9", "en"), ("fr-FR, en;q=0.8, es;q=0.5", "en"),
    ("es;q=0.5, en;q=0.4", "es"), ("de", "es"), ("en;q=0, es;q=0.1", "es"), ("EN-gb", "en"), ("en;q=abc", "es"),
])
def test_the_readers_language_is_read_from_accept_language(header: str | None, lang: str) -> None:
    assert preferred_lang(header) == lang


def test_an_unknown_url_is_a_404_page_and_json_stays_json_under_api(live_server: Any) -> None:
    srv = live_server()
    for path in ("/no/such/page", "/t", "/tabla-de-posiciones", "/player"):
        r = httpx.get(srv.base + path, headers={"Accept-Language": "es-ES,es;q=0.9"})
        assert r.status_code == 404, path
        assert r.headers["content-type"].startswith("text/html"), (path, r.headers)
        assert 'data-testid="not-found"' in r.text and 'href="/"' in r.text
        assert '<html lang="es" data-lang="es">' in r.text
        assert "/static/" in r.text and "capicua.css" in r.text  # the site's own style
    english = httpx.get(srv.base + "/no/such/page", headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert english.status_code == 404 and '<html lang="en" data-lang="en">' in english.text
    assert "Accept-Language" in english.headers.get("vary", "")
    for path in ("/api/no-such-thing", "/api/tables/x/y/z"):
        r = httpx.get(srv.base + path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/json"), path
        assert r.json()["error"]["code"] == "not_found"
    # An unknown table is still the API's own error.
    r = httpx.get(srv.base + "/api/tables/t_nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_table"
    missing = httpx.get(srv.base + "/static/js/nope.js")
    assert missing.status_code == 404 and not missing.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
@pytest.mark.parametrize("locale", ["es-ES", "en-US"])
def test_the_404_page_speaks_the_readers_language_and_leads_home(browser, live_server, width, height, locale):
    srv = live_server()
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        answer = page.goto(f"{srv.base}/mesa/que/no/existe")
        assert answer is not None and answer.status == 404
        page.wait_for_function("document.documentElement.dataset.lang !== undefined")
        heading = page.locator('[data-testid="not-found"] h1:visible')
        assert heading.count() == 1
        spanish, english = "Esa página no está en la mesa", "That page is not on the table"
        assert heading.inner_text() == (english if locale.startswith("en") else spanish)
        assert_no_hscroll(page, width)
        shot(page, f"errors-404-{locale[:2]}-{width}.png")
        # The toggle switches the words, and the title.
        page.click('[data-testid="lang-toggle"]')
        assert heading.inner_text() == (spanish if locale.startswith("en") else english)
        assert ("mesa" in page.title()) == locale.startswith("en")
        page.click('[data-testid="go-home"]')
        page.wait_for_url(f"{srv.base}/")
        page.locator('[data-testid="play-button"]').wait_for(timeout=WAIT_MS)
        assert errors == []
    finally:
        ctx.close()


# --------------------------------------------------------------------------- the table's notices


SEATS = [human(0, "Ana"), neighbour(1, "Pancho", "pancho", "dificil"), human(2, "Beto"),
         neighbour(3, "Chucho", "chucho", "botagorda")]


def table_page(browser, base_url: str, width: int, height: int):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_init_script(FAKE_WS)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    return ctx, page


def nothing_of_the_table_shows(page) -> None:
    for sel in ("#felt", "#me", '[data-testid="scores"]', "#libreta-btn", '[data-testid="libreta"]', '[data-testid="board"]'):
        assert not page.locator(sel).is_visible(), sel
    assert page.locator('[data-testid="seat"]:visible').count() == 0


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_an_unknown_table_says_so_on_a_clean_page(browser, base_url, width, height):
    ctx, page = table_page(browser, base_url, width, height)
    try:
        push(page, error_frame("unknown_table", "no such table", None))
        fatal = page.locator("#fatal")
        fatal.wait_for(state="visible", timeout=WAIT_MS)
        assert "Esa mesa no existe" in fatal.inner_text()
        nothing_of_the_table_shows(page)
        assert fatal.locator('[data-testid="go-home"]').get_attribute("href") == "/"
        assert_no_hscroll(page, width)
        shot(page, f"errors-unknown-table-{width}.png")
        # The language toggle is not covered: a real click reaches it, and the words follow.
        page.click('[data-testid="lang-toggle"]', timeout=3000)
        assert "That table does not exist" in fatal.inner_text()
        assert fatal.locator('[data-testid="go-home"]').inner_text() == "Back home"
        assert page.errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_a_finished_table_says_so_on_a_clean_page_with_its_replay(browser, base_url, width, height):
    ctx, page = table_page(browser, base_url, width, height)
    try:
        push(page, welcome_frame(None, table_state(SEATS, status="finished", match_number=3)))
        over: dict[str, Any] = match_over_view()
        over["seat"] = None
        over.pop("hand")
        push(page, sync_frame(40, over))
        notice = page.locator('[data-testid="table-notice"]')
        notice.wait_for(state="visible", timeout=WAIT_MS)
        assert "ya se acabó" in notice.inner_text()
        page.wait_for_timeout(300)
        nothing_of_the_table_shows(page)
        assert notice.locator('[data-testid="notice-replay"]').get_attribute("href") == "/replay/t_test/3"
        assert notice.locator('[data-testid="notice-home"]').get_attribute("href") == "/"
        assert_no_hscroll(page, width)
        shot(page, f"errors-finished-table-{width}.png")
        page.click('[data-testid="lang-toggle"]', timeout=3000)
        assert "This match is over" in notice.inner_text()
        assert notice.locator('[data-testid="notice-replay"]').inner_text() == "Watch the replay"
        assert page.errors == []
    finally:
        ctx.close()


def test_a_table_being_played_keeps_its_notice_over_the_table(browser, base_url):
    """Watching a match in play is what a "started" notice offers: that table stays on the page."""
    ctx, page = table_page(browser, base_url, 1280, 800)
    try:
        push(page, welcome_frame(None, table_state(SEATS, status="playing")))
        v = match_over_view()
        v.update(seat=None, phase="play", turn=1, match_result=None, result=None, revealed=None)
        v.pop("hand")
        push(page, sync_frame(40, v))
        page.locator('[data-testid="table-notice"]').wait_for(state="visible", timeout=WAIT_MS)
        assert page.locator("#felt").is_visible() and page.locator('[data-testid="board"]').is_visible()
        assert page.evaluate("document.body.dataset.page") == "table"
    finally:
        ctx.close()
