"""End to end: headless Chromium (Debian's, driven by Playwright for Python)
opens the home page, types a nickname, clicks Jugar and plays a WHOLE match
to the target by clicking its playable tiles, against bots at zero delay.

Screenshots of a hand in progress and of the final score sheet go to
artifacts/ at desktop (1280x800) and phone (360x740, touch) sizes. The time
from page load to the first tile played and the size of the page and its
scripts are printed (measured, not asserted).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e-browser")]

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "capicua" / "web"
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("CAPICUA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
GUARD_S = 600  # a guard against a hung match, not a timed assertion

needs_page = pytest.mark.skipif(not (WEB / "table.html").exists() or not (WEB / "index.html").exists(),
                                reason="the web page is not there yet")
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")


def _phase(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.phase || ''"))


class WireView:
    """The last VIEW the page received over its websocket (what the server said,
    read off the wire: the page has no test hook)."""

    def __init__(self, page: Any) -> None:
        self.view: dict[str, Any] | None = None
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: Any) -> None:
        try:
            frame = json.loads(payload)
        except (TypeError, ValueError):
            return
        if isinstance(frame, dict) and frame.get("type") in ("events", "sync"):
            self.view = frame["view"]


def play_match(page: Any, base: str, label: str, target: int = 50, tap: bool = False) -> dict[str, Any]:
    """Home → Jugar → a whole match. Returns measurements."""
    sizes: dict[str, int] = {}
    wire = WireView(page)

    def on_response(resp: Any) -> None:
        if resp.url.startswith(base) and "/api/" not in resp.url and "/ws" not in resp.url:
            try:
                sizes[resp.url] = len(resp.body())
            except Exception:
                pass

    page.on("response", on_response)
    t0 = time.monotonic()
    page.goto(base + "/", wait_until="load")
    page.fill("[data-testid=nickname]", "Yuniel")
    # Quick bots keep the test short (the searching levels cost CPU, not UI coverage).
    for sel in ("[data-testid=partner-level]", "[data-testid=rival-level]"):
        box = page.locator(sel)
        if box.count() and box.locator("option[value=botagorda]").count():
            box.select_option("botagorda")
    target_sel = page.locator("[data-testid=option-target]")
    if target_sel.count():
        if not target_sel.is_visible():
            page.click("#options > summary")  # the table options are folded away
        target_sel.select_option(str(target))
    page.click("[data-testid=play-button]")
    page.wait_for_url("**/t/*")
    t_table = time.monotonic()
    first_tile: float | None = None
    shot_mid = False
    plays = 0
    hands_seen: set[str] = set()
    deadline = time.monotonic() + GUARD_S
    while True:
        assert time.monotonic() < deadline, f"the match did not end (phase {_phase(page)!r}, {plays} plays)"
        phase = _phase(page)
        if phase == "match_over":
            break
        over = page.locator("[data-testid=match-over]:visible")
        if over.count():
            break
        nxt = page.locator("[data-testid=next-hand]:visible")
        if phase == "hand_over" and nxt.count():
            hands_seen.add(str(wire.view and wire.view["hand_number"]))
            (nxt.first.tap() if tap else nxt.first.click())
            page.wait_for_function("document.body.dataset.phase !== 'hand_over'", timeout=30_000)
            continue
        choice = page.locator("[data-testid=end-choice]:visible")
        if choice.count():
            (choice.first.tap() if tap else choice.first.click())
            page.wait_for_timeout(30)
            continue
        tile = page.locator("[data-testid=tile][data-playable=true]")
        if phase == "play" and page.evaluate("document.body.dataset.turn") == "me" and tile.count():
            before = page.locator("[data-testid=my-hand] [data-testid=tile]").count()
            try:
                (tile.first.tap(timeout=2000) if tap else tile.first.click(timeout=2000))
            except Exception:
                continue  # re-rendered under the pointer: look again
            try:
                page.wait_for_function(
                    f"document.querySelectorAll('[data-testid=my-hand] [data-testid=tile]').length < {before}"
                    " || document.querySelector('[data-testid=end-choice]') !== null"
                    " || document.body.dataset.phase !== 'play'",
                    timeout=10_000,
                )
            except Exception:
                continue
            if page.locator("[data-testid=my-hand] [data-testid=tile]").count() < before:
                plays += 1
                if first_tile is None:
                    first_tile = time.monotonic()
            if plays == 3 and not shot_mid:
                page.wait_for_timeout(300)
                page.screenshot(path=str(ARTIFACTS / f"{label}-hand.png"))
                shot_mid = True
            continue
        page.wait_for_timeout(40)
    # The page opens the score sheet ("la libreta") with the match result after the banners.
    page.wait_for_selector("[data-testid=match-over]", state="visible", timeout=30_000)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / f"{label}-final.png"), full_page=False)
    view = wire.view
    return {
        "first_tile_s": None if first_tile is None else first_tile - t0,
        "first_tile_from_table_s": None if first_tile is None else first_tile - t_table,
        "plays": plays,
        "view": view,
        "sizes": sizes,
        "shot_mid": shot_mid,
    }


def _report(label: str, res: dict[str, Any]) -> None:
    sizes = res["sizes"]
    total = sum(sizes.values())
    js = sum(v for k, v in sizes.items() if k.endswith(".js"))
    html = sum(v for k, v in sizes.items() if k.endswith(".html") or k.rstrip("/").count("/") <= 3 or "/t/" in k)
    print(f"\n[{label}] page load -> first tile played: {res['first_tile_s']:.2f} s "
          f"(table page -> first tile: {res['first_tile_from_table_s']:.2f} s), my plays: {res['plays']}")
    print(f"[{label}] bytes fetched from the server (home + table, static only): total {total}, "
          f"scripts {js}, html {html}, files {len(sizes)}")
    for url, n in sorted(sizes.items()):
        print(f"    {n:>7}  {url}")


@needs_page
@needs_chromium
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_whole_match_in_the_browser(live_server: Any, device: str) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    srv = live_server()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if device == "desktop":
            ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        else:
            ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True,
                                      device_scale_factor=2)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        res = play_match(page, srv.base, f"e2e-{device}", target=50, tap=device == "phone")
        _report(device, res)
        browser.close()
    view = res["view"]
    assert view is not None and view["phase"] == "match_over"
    assert max(view["scores"]) >= 50 and view["match_result"] is not None
    assert res["plays"] > 0 and res["shot_mid"]
    assert (ARTIFACTS / f"e2e-{device}-hand.png").exists() and (ARTIFACTS / f"e2e-{device}-final.png").exists()
    assert not errors, errors
