"""The parque in the browser (issue 24, item 6): two strangers press "Jugar con gente"
and land at one table with two neighbours; a host makes her private table public
from its lobby; a third browser opens the parque, finds both (the host's among the
tables waiting, the strangers' among those being played) and watches the strangers'. Screenshots of the parque
(the queue's wait, and the listing) at 1280 and 360 px go to artifacts/.

A real server (``live_server``) and Debian's Chromium, one browser context per
person (each its own guest). The chosen wait (30 s) is made to have run out by
moving the two queue rows' ``joined_at`` back in the store, not by sleeping.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
import test_web_static as web
from sqlalchemy import select
from test_web_static import ARTIFACTS, assert_no_hscroll

from capicua.store.models import QueueEntryRow

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
GUARD_MS = 20_000  # a guard against a page that never gets there, not a timed assertion
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
DESK = {"viewport": {"width": 1280, "height": 800}}


def open_parque(browser: Any, base: str, phone: bool = False) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(**(PHONE if phone else DESK))
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/parque")
    page.wait_for_selector('[data-testid="pq-preset"] option', state="attached", timeout=GUARD_MS)
    return ctx, page, errors


def shoot(page: Any, name: str, width: int) -> None:
    assert_no_hscroll(page, width)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_two_strangers_meet_at_one_table_with_two_neighbours_and_a_third_watches(browser: Any, live_server: Any) -> None:
    srv = live_server()
    people = [open_parque(browser, srv.base), open_parque(browser, srv.base, phone=True)]
    for (_, page, _), name in zip(people, ("Ana", "Beto"), strict=True):
        page.fill('[data-testid="pq-nickname"]', name)
        page.locator('[data-testid="pq-wait"] label', has_text="30 s").click()
        page.click('[data-testid="pq-join"]')
        page.wait_for_selector('[data-testid="pq-queued"]:not([hidden])', timeout=GUARD_MS)
    people[1][1].wait_for_function(
        "document.getElementById('pq-waiting-text').textContent.includes('1')", timeout=GUARD_MS)
    shoot(people[0][1], "parque-queued-1280.png", 1280)
    shoot(people[1][1], "parque-queued-360.png", 360)

    store = srv.app.state.deps.store
    with store.sessions.begin() as s:  # both waited their 30 s
        for row in s.scalars(select(QueueEntryRow)):
            row.joined_at -= timedelta(seconds=31)
    tables = set()
    for _, page, _ in people:
        page.wait_for_url(re.compile(r"/t/t_[\w-]+$"), timeout=GUARD_MS)
        tables.add(page.url.rsplit("/", 1)[1])
    assert len(tables) == 1
    [table_id] = tables
    seats = srv.get(f"/api/tables/{table_id}").json()["seats"]
    assert sorted(s["kind"] for s in seats) == ["bot", "bot", "human", "human"]
    assert sorted(s["name"] for s in seats if s["kind"] == "human") == ["Ana", "Beto"]
    for _, page, _ in people:  # each page sits in its own seat: the hand is dealt, its tiles shown
        page.wait_for_function("document.querySelectorAll('[data-testid=my-hand] [data-testid=tile]').length > 0",
                               timeout=GUARD_MS)

    # A host makes her private table public from its lobby: the parque lists it, with "Sentarse".
    made = srv.new_table("Yuli", private=True)
    host_ctx = browser.new_context(**DESK)
    host_ctx.add_init_script(f"localStorage.setItem('capicua.token', {json.dumps(made['token'])})")
    host = host_ctx.new_page()
    host.goto(f"{srv.base}/t/{made['table_id']}")
    switch = host.locator('[data-testid="lobby-public"]')
    switch.wait_for(timeout=GUARD_MS)
    host.wait_for_function("!document.querySelector('[data-testid=lobby-public]').disabled", timeout=GUARD_MS)
    assert not switch.is_checked()  # by link only until the host says otherwise
    switch.check()
    host.wait_for_function("document.querySelector('[data-testid=lobby-public]').checked", timeout=GUARD_MS)

    watcher_ctx, watcher, watcher_errors = open_parque(browser, srv.base)
    public = watcher.locator(f'[data-testid="pq-waiting"][data-table="{made["table_id"]}"]')
    public.wait_for(timeout=GUARD_MS)
    assert "Yuli" in public.inner_text()
    assert public.locator('[data-testid="pq-sit"]').get_attribute("href") == f"/t/{made['table_id']}"
    row = watcher.locator(f'[data-testid="pq-playing"][data-table="{table_id}"]')
    row.wait_for(timeout=GUARD_MS)
    assert "Ana" in row.inner_text() and "Beto" in row.inner_text()
    around = watcher.locator('[data-testid="pq-around"]').inner_text()
    assert "Ana" in around and "Beto" in around and "Yuli" in around  # who is around: seen lately
    shoot(watcher, "parque-1280.png", 1280)
    phone_ctx, phone, phone_errors = open_parque(browser, srv.base, phone=True)
    phone.locator(f'[data-testid="pq-playing"][data-table="{table_id}"]').wait_for(timeout=GUARD_MS)
    shoot(phone, "parque-360.png", 360)
    phone_ctx.close()

    # The home page's panel shows the parque in brief, with the same tables.
    watcher.goto(f"{srv.base}/")
    panel = watcher.locator('[data-testid="pq-panel"]')
    panel.locator(f'[data-testid="pq-playing"][data-table="{table_id}"]').wait_for(timeout=GUARD_MS)
    assert panel.locator(f'[data-testid="pq-waiting"][data-table="{made["table_id"]}"]').count() == 1
    watcher.goto(f"{srv.base}/parque")
    row.wait_for(timeout=GUARD_MS)

    hellos: list[str] = []
    watcher.on("websocket", lambda ws: ws.on("framesent", lambda payload: hellos.append(str(payload))))
    row.locator('[data-testid="pq-watch"]').click()
    watcher.wait_for_url(re.compile(rf"/t/{re.escape(table_id)}\?mirar=1$"), timeout=GUARD_MS)
    watcher.wait_for_selector('[data-testid="board"]', timeout=GUARD_MS)
    assert watcher.locator("[data-testid=my-hand] [data-testid=tile]").count() == 0  # a watcher holds no tiles
    assert any('"watch":true' in h.replace(" ", "") for h in hellos), hellos
    for _, _, errors in [*people, (None, None, watcher_errors), (None, None, phone_errors)]:
        assert not errors, errors
    for ctx, _, _ in people:
        ctx.close()
    watcher_ctx.close()
    host_ctx.close()
