"""Your identity on every device (issue 24, items 2 and 4) in the browser: a player
makes a key on their profile (a link and a QR code drawn in the page), a second
browser context opens the link and becomes the same player — the same profile
(level, rating, matches) and the same settings, changed on the first one's panel —
and the first signs the second out. The QR drawn is held to the `qrcode` package's
modules for the link. Screenshots: artifacts/key-1280.png, key-360.png,
profile-mine-360.png (the key, the devices and the settings)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import qrcode
import qrcode.util
import test_web_static as web
from standings_helpers import Table, find, seats
from test_web_static import assert_no_hscroll, shot

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion
MODULE = re.compile(r"M(\d+) (\d+)h1v1h-1z")


def context(browser: Any, width: int, signed_in: tuple[str, str] | None = None) -> tuple[Any, Any]:
    """A browser context at ``width``; ``signed_in``: (player, token) it holds, as its sign-in left them."""
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    script = "localStorage.setItem('capicua.lang', 'es');"
    if signed_in:
        player, token = signed_in
        kept = json.dumps({"player": player, "of": token[-8:]})
        script += f"localStorage.setItem('capicua.token', '{token}'); localStorage.setItem('capicua.player', '{kept}');"
    ctx.add_init_script(script)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return ctx, page


def profile_said(page: Any) -> dict[str, Any]:
    page.wait_for_selector('[data-testid="pf-level"]', timeout=WAIT_MS)
    return {
        "name": page.text_content('[data-testid="pf-name"]'),
        "level": page.get_attribute('[data-testid="pf-level"]', "data-number"),
        "scores": page.eval_on_selector_all('[data-testid="pf-score"]', "els => els.map((e) => e.textContent)"),
        "matches": page.eval_on_selector_all('[data-testid="pf-match"]', "els => els.map((e) => e.dataset.table)"),
    }


def drawn_modules(page: Any) -> tuple[int, list[str]]:
    """The QR on the page as rows of 0/1, and its mask."""
    qr = page.locator('[data-testid="key-qr"]')
    side = int(qr.get_attribute("viewBox").split()[2])
    dark = {(int(x) - 4, int(y) - 4) for x, y in MODULE.findall(qr.locator("path").get_attribute("d"))}
    n = side - 8
    return int(qr.get_attribute("data-mask")), ["".join("1" if (x, y) in dark else "0" for x in range(n)) for y in range(n)]


def reference(text: str, mask: int) -> list[str]:
    q = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=0, mask_pattern=mask)
    q.add_data(qrcode.util.QRData(text.encode(), mode=qrcode.util.MODE_8BIT_BYTE))
    q.make(fit=True)
    return ["".join("1" if dark else "0" for dark in row) for row in q.get_matrix()]


def test_a_key_link_carries_the_player_and_their_settings_to_a_second_browser(browser: Any, live_server: Any) -> None:
    srv = live_server()
    made = srv.post("/api/players", {"nickname": "Ana"}).json()
    ana, token = made["player"], made["token"]
    Table(srv.app.state.deps.store, "t_ana", seats({0: ana}, {1: "experto", 3: "experto"})).finish(
        find(lambda r: r["result"]["winner"] == 0))

    phone, first = context(browser, 1280, (ana, token))
    first.goto(f"{srv.base}/player/{ana}")
    said = profile_said(first)
    assert said["name"] == "Ana" and said["matches"] == ["t_ana"]
    # A setting changed on the panel is the player's: the other browser will have it.
    first.select_option('[data-testid="set-animation"]', "rapida")
    first.wait_for_selector('[data-testid="set-saved"][data-state="ok"]', timeout=WAIT_MS)
    assert first.evaluate("document.documentElement.dataset.anim") == "rapida"
    first.click('[data-testid="key-make"]')
    first.wait_for_selector('[data-testid="key-qr"]', timeout=WAIT_MS)
    link = first.input_value('[data-testid="key-link"]')
    assert re.fullmatch(rf"{re.escape(srv.base)}/llevar#[A-Za-z0-9_-]{{24}}", link), link
    mask, rows = drawn_modules(first)
    assert rows == reference(link, mask)  # what a phone's camera reads is the link
    first.locator('[data-testid="pf-key"]').scroll_into_view_if_needed()
    shot(first, "key-1280.png")

    laptop, second = context(browser, 360)
    second.goto(link)
    second.wait_for_selector('[data-testid="lv-go"]:enabled', timeout=WAIT_MS)
    assert "#" not in second.url  # the key left the address bar at once
    second.click('[data-testid="lv-go"]')
    second.wait_for_selector('[data-testid="lv-result"]:not([hidden])', timeout=WAIT_MS)
    assert second.get_attribute('[data-testid="lv-result"]', "data-code") == "ok", second.text_content('[data-testid="lv-result"]')
    second.click('[data-testid="lv-profile"]')
    second.wait_for_url(f"**/player/{ana}", timeout=WAIT_MS)
    assert profile_said(second) == said
    second.wait_for_selector('[data-testid="pf-yours"]', timeout=WAIT_MS)
    assert second.evaluate("document.documentElement.dataset.anim") == "rapida"
    assert second.input_value('[data-testid="set-animation"]') == "rapida"
    second.wait_for_function("document.querySelectorAll('[data-testid=pf-device]').length === 2", timeout=WAIT_MS)
    assert second.get_attribute('[data-testid="pf-device"]:first-child', "data-this") == "true"
    second.click('[data-testid="key-make"]')
    second.wait_for_selector('[data-testid="key-qr"]', timeout=WAIT_MS)
    assert_no_hscroll(second, 360)
    second.locator('[data-testid="pf-key"]').scroll_into_view_if_needed()
    shot(second, "key-360.png")
    second.locator(".pf-mine").screenshot(path=str(web.ARTIFACTS / "profile-mine-360.png"))

    # The first signs the second out: it is nobody there any more (its profile reads as anyone's).
    first.reload()
    first.wait_for_function("document.querySelectorAll('[data-testid=pf-device]').length === 2", timeout=WAIT_MS)
    first.click('[data-testid="pf-device"][data-this="false"] [data-testid="pf-device-sign-out"]')
    first.wait_for_function("document.querySelectorAll('[data-testid=pf-device]').length === 1", timeout=WAIT_MS)
    kept = second.evaluate("localStorage.getItem('capicua.token')")
    assert web_get(srv, "/api/devices", kept) == 401
    assert first.errors == [] and second.errors == []  # type: ignore[attr-defined]
    phone.close()
    laptop.close()


def web_get(srv: Any, path: str, token: str) -> int:
    import httpx

    return httpx.get(srv.base + path, headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code
