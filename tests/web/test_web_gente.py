"""Gente in the browser (issue 24, items 3 and 6): two friends sat at one table, so
each finds the other on the Gente page; one opens a new table and invites the other
from Gente; the notice reaches the other's open tab, and Aceptar seats them there.
Screenshots of Gente and of the invitation's notice at 1280 and 360 px go to
artifacts/.

A real server (``live_server``) and Debian's Chromium, one browser context per
person. The invitee's tab is told it became visible (``visibilitychange``, what a
phone does when its browser comes back to the front) instead of waiting for its
next 20 s poll.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import test_web_static as web
from test_web_lobby import GUARD_MS, Player, open_link, sit_with_name
from test_web_static import ARTIFACTS, assert_no_hscroll

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def shoot(page: Any, name: str, width: int) -> None:
    assert_no_hscroll(page, width)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True, animations="disabled")


def open_friends_table(p: Player, base: str, nickname: str | None = None) -> str:
    """The home page's "Jugar con amigos": the new table's id, its lobby shown."""
    p.page.goto(base + "/")
    p.page.wait_for_function("document.querySelectorAll('[data-testid=preset] option').length > 1")
    if nickname:
        p.page.fill('[data-testid="nickname"]', nickname)
    before = p.page.url
    p.page.click('[data-testid="friends-button"]')
    p.page.wait_for_url(lambda url: "/t/" in url and url != before, timeout=GUARD_MS)
    p.page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=GUARD_MS)
    return p.page.url.rsplit("/", 1)[1]


def open_gente(p: Player, url: str) -> None:
    p.page.goto(url)
    p.page.wait_for_selector('[data-testid="gente-body"][aria-busy="false"]', timeout=GUARD_MS)


def test_friends_find_each_other_in_gente_and_an_invitation_seats_the_invitee(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto = Player(browser), Player(browser, phone=True)
    try:
        first = open_friends_table(ana, srv.base, "Ana")
        open_link(beto, f"{srv.base}/t/{first}")
        sit_with_name(beto, "Beto", 1)
        for p in (ana, beto):
            p.wait_names(["Ana", "Beto", "", ""])
        ana_id = ana.page.evaluate("JSON.parse(localStorage.getItem('capicua.player') || '{}').player || null")
        # A guest's name in the lobby links to their profile (in a new tab: the lobby stays).
        name = ana.seat(1).locator('[data-testid="lobby-seat-name"] a')
        assert name.inner_text() == "Beto" and name.get_attribute("target") == "_blank"
        beto_profile = name.get_attribute("href")
        assert re.fullmatch(r"/player/p_[0-9a-f]{16}", beto_profile or ""), beto_profile

        # Each finds the other in Gente, around now, with a link to their profile.
        open_gente(beto, f"{srv.base}/gente")
        row = beto.page.locator('[data-testid="gente-row"]')
        assert row.count() == 1 and row.locator('[data-testid="gente-name"]').inner_text() == "Ana"
        assert row.locator('[data-testid="gente-around"]').is_visible()
        if ana_id:
            assert row.get_attribute("data-player") == ana_id
        assert row.locator('[data-testid="gente-name"]').get_attribute("href").startswith("/player/p_")
        # The table he may invite to: the lobby where he sits (Ana is there already).
        assert beto.page.locator('[data-testid="gente-table"]').input_value() == first
        assert row.locator('[data-testid="gente-seated"]').is_visible()  # no Invitar: she sits there

        # Ana opens a new table and goes from its lobby to Gente, that table chosen.
        second = open_friends_table(ana, srv.base)
        assert second != first
        link = ana.page.locator('[data-testid="lobby-gente"]')
        assert link.is_visible() and link.get_attribute("href") == f"/gente?mesa={second}"
        link.click()
        ana.page.wait_for_selector('[data-testid="gente-body"][aria-busy="false"]', timeout=GUARD_MS)
        assert ana.page.locator('[data-testid="gente-table"]').input_value() == second
        beto_row = ana.page.locator('[data-testid="gente-row"]')
        assert beto_row.count() == 1 and beto_row.locator('[data-testid="gente-name"]').inner_text() == "Beto"
        assert beto_row.locator('[data-testid="gente-name"]').get_attribute("href") == beto_profile
        # The search finds a player by the start of their name, case and accents aside.
        ana.page.fill('[data-testid="gente-search"]', "BÉT")
        ana.page.click('[data-testid="gente-search-button"]')
        found = ana.page.locator('[data-testid="gente-found-row"]')
        found.first.wait_for(timeout=GUARD_MS)
        assert found.count() == 1 and found.locator('[data-testid="gente-name"]').inner_text() == "Beto"
        beto_row.locator('[data-testid="gente-invite"]').click()
        beto_row.locator('[data-testid="gente-sent"]').wait_for(timeout=GUARD_MS)
        shoot(ana.page, "gente-1280.png", 1280)
        # Silenciar, and Oír de nuevo from the list of the muted.
        beto_row.locator('[data-testid="gente-mute"]').click()
        ana.page.wait_for_selector('[data-testid="gente-mute"][aria-pressed="true"]', timeout=GUARD_MS)
        muted = ana.page.locator('[data-testid="gente-muted"]')
        assert muted.count() == 1 and muted.get_attribute("data-player") == beto_profile.rsplit("/", 1)[1]
        ana.page.click('[data-testid="gente-mutes"] summary')
        muted.locator("button").click()
        ana.page.wait_for_selector('[data-testid="gente-mute"][aria-pressed="false"]', timeout=GUARD_MS)
        assert ana.page.locator('[data-testid="gente-mutes"]').count() == 0

        shoot(beto.page, "gente-360.png", 360)
        # The notice reaches Beto's open tab (here: his Gente page) when it is visible again.
        beto.page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        notice = beto.page.locator(f'[data-testid="invite-notice"][data-table="{second}"]')
        notice.wait_for(timeout=GUARD_MS)
        assert "Ana te invita a su mesa" in notice.inner_text()
        shoot(beto.page, "gente-invitation-360.png", 360)
        beto.page.set_viewport_size({"width": 1280, "height": 800})
        shoot(beto.page, "gente-invitation-1280.png", 1280)
        beto.page.set_viewport_size({"width": 360, "height": 740})

        # Aceptar: Beto lands at the new table and takes the free seat.
        notice.locator('[data-testid="invite-accept"]').click()
        beto.page.wait_for_url(re.compile(rf"/t/{re.escape(second)}\?sentarme=1$"), timeout=GUARD_MS)
        beto.wait_my_seat(1)
        seats = srv.get(f"/api/tables/{second}").json()["seats"]
        assert [s["name"] for s in seats if s["kind"] == "human"] == ["Ana", "Beto"]
        assert not ana.errors and not beto.errors, (ana.errors, beto.errors)
    finally:
        ana.close()
        beto.close()
