"""Every preset of the rules plays a whole match at the table in headless Chromium.

For each preset of ``capicua.engine.rules.PRESETS``, with its default number
of players: the home page (choose the game, type a nickname, fast bots, the
smallest target, ¡Jugar!), then the table to the match's end by clicking
playable tiles (and the end chooser when a tile fits several ends), and
"Siguiente mano" with the Enter key, which must have the focus when the
result panel opens. The matches run at the same time, one browser context
each, against one live server with zero bot delay; the time of each match is
printed (measured, not asserted).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import LiveServer, free_port

from capicua.engine import make_rules
from capicua.engine.rules import PRESETS, TARGETS

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("e2e-presets")]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
TARGET = min(TARGETS)
AT_ONCE = 6  # matches played at the same time (two cores run the server, the bots and Chromium)
GUARD_S = 240.0  # a guard against a hung match, not a timed assertion

SNAPSHOT = """() => {
  const next = document.querySelector('[data-testid=next-hand]');
  const visible = (el) => !!el && el.offsetParent !== null;
  return {
    phase: document.body.dataset.phase || '',
    turn: document.body.dataset.turn || '',
    next: visible(next) && !next.disabled,
    focus: document.activeElement ? document.activeElement.id : '',
    choice: [...document.querySelectorAll('[data-testid=end-choice]')].some(visible),
    playable: document.querySelectorAll('[data-testid=my-hand] [data-testid=tile][data-playable=true]').length,
    tiles: document.querySelectorAll('[data-testid=my-hand] [data-testid=tile]').length,
  };
}"""


async def open_table(page: Any, base: str, preset: str) -> None:
    """Home → choose the game, a nickname, fast bots and the smallest target → ¡Jugar!"""
    await page.goto(base + "/")
    await page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=preset] option').length === n", arg=len(PRESETS))
    await page.select_option("[data-testid=preset]", preset)
    await page.fill("[data-testid=nickname]", "Yuniel")
    for sel in ("[data-testid=partner-level]", "[data-testid=rival-level]"):
        if await page.locator(sel).is_visible():
            await page.select_option(sel, "botagorda")
    await page.click("#options > summary")
    await page.select_option("[data-testid=option-target]", str(TARGET))
    await page.click("[data-testid=play-button]")
    await page.wait_for_url("**/t/*")


async def play_my_tile(page: Any, before: int) -> bool:
    """Click the first playable tile; True when it left the hand (or the end chooser opened)."""
    try:
        await page.locator("[data-testid=my-hand] [data-testid=tile][data-playable=true]").first.click(timeout=2000)
        await page.wait_for_function(
            "(n) => document.querySelectorAll('[data-testid=my-hand] [data-testid=tile]').length < n"
            " || [...document.querySelectorAll('[data-testid=end-choice]')].some((el) => el.offsetParent !== null)"
            " || document.body.dataset.phase !== 'play'",
            arg=before, timeout=10_000)
    except Exception:
        return False  # re-rendered under the pointer, or the turn moved on: look again
    return True


def watch_views(page: Any, out: dict[str, Any]) -> None:
    """Keep in ``out["view"]`` the last VIEW the page received over its websocket."""

    def frame(payload: Any) -> None:
        try:
            f = json.loads(payload)
        except (TypeError, ValueError):
            return
        if isinstance(f, dict) and f.get("type") in ("events", "sync"):
            out["view"] = f["view"]

    page.on("websocket", lambda ws: ws.on("framereceived", frame))


async def play_match(browser: Any, base: str, preset: str) -> dict[str, Any]:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    out: dict[str, Any] = {"errors": errors, "plays": 0, "hands": 0, "enter_without_focus": 0, "view": None}
    watch_views(page, out)
    t0 = time.monotonic()
    try:
        await open_table(page, base, preset)
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline and not errors:  # a page error: the page is broken, stop
            s = await page.evaluate(SNAPSHOT)
            out["last"] = s
            if s["phase"] == "match_over":
                break
            if s["phase"] == "hand_over" and s["next"]:
                # The result panel took the focus: Enter is "Siguiente mano".
                if s["focus"] != "next-hand":
                    out["enter_without_focus"] += 1
                    await page.click("[data-testid=next-hand]")
                else:
                    await page.keyboard.press("Enter")
                out["hands"] += 1
                await page.wait_for_function("document.body.dataset.phase !== 'hand_over'", timeout=30_000)
            elif s["choice"]:
                await page.locator("[data-testid=end-choice]:visible").first.click()
            elif s["phase"] == "play" and s["turn"] == "me" and s["playable"]:
                if await play_my_tile(page, s["tiles"]):
                    out["plays"] += 1
            else:
                await page.wait_for_timeout(40)
        if errors:
            raise RuntimeError(f"the page failed: {errors[0]}")
        await page.locator("[data-testid=match-over]").wait_for(state="visible", timeout=30_000)
        await page.screenshot(path=str(ARTIFACTS / f"e2e-preset-{preset}.png"))
    except Exception as exc:  # reported by the preset's own test
        out["failure"] = f"{type(exc).__name__}: {exc}; last seen {out.get('last')}"
        out["stuck_view"] = out["view"]
        await page.screenshot(path=str(ARTIFACTS / f"e2e-preset-{preset}-stuck.png"))
    finally:
        out["seconds"] = time.monotonic() - t0
        await ctx.close()
    return out


async def play_all(base: str, presets: list[str]) -> dict[str, dict[str, Any]]:
    from playwright.async_api import async_playwright

    slots = asyncio.Semaphore(AT_ONCE)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)

        async def one(preset: str) -> tuple[str, dict[str, Any]]:
            async with slots:
                return preset, await play_match(browser, base, preset)

        results = dict(await asyncio.gather(*(one(preset) for preset in presets)))
        await browser.close()
    return results


@pytest.fixture(scope="module")
def matches(
    request: pytest.FixtureRequest, bot_pool: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, dict[str, Any]]]:
    pytest.importorskip("playwright.async_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from capicua.server.app import create_app

    ARTIFACTS.mkdir(exist_ok=True)
    url = f"sqlite:///{tmp_path_factory.mktemp('presets') / 'db.sqlite3'}"
    app = create_app(database_url=url, executor=bot_pool, bot_delay=(0.0, 0.0),
                     rate_limit=(1_000_000, 1.0), table_rate=(1_000, 1.0))
    srv = LiveServer(app, free_port(), url).start()
    # Only the presets whose tests were selected (e.g. with -k) are played.
    chosen = [item.callspec.params["preset"] for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec")]
    t0 = time.monotonic()
    try:
        results = asyncio.run(play_all(srv.base, chosen))
    finally:
        srv.stop()
    print(f"\n{len(chosen)} matches to {TARGET}, {AT_ONCE} at a time: {time.monotonic() - t0:.1f} s in all")
    for preset, r in results.items():
        print(f"    {preset:<18} {r['seconds']:6.1f} s, {r['hands'] + 1} hands, {r['plays']} tiles clicked")
    yield results


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_plays_a_whole_match(matches: dict[str, dict[str, Any]], preset: str) -> None:
    res = matches[preset]
    assert "failure" not in res, res.get("failure")
    view = res["view"]
    rules = make_rules(preset)
    assert view["phase"] == "match_over" and view["match_result"] is not None
    assert view["rules"]["preset"] == preset and view["rules"]["target"] == TARGET
    assert len(view["counts"]) == rules.players  # the game's default number of players
    assert max(view["scores"]) >= TARGET
    assert res["plays"] > 0
    assert res["enter_without_focus"] == 0  # "Siguiente mano" had the focus every time
    assert not res["errors"], res["errors"]
