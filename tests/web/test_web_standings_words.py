"""The standings in words (issue 21, item 7), in headless Chromium on the real
server and store, at 1280 and 360 px: no "μ − 3σ" on the pages (the formula is a
tooltip); a beginner's score never shows below 0 and the profile says why (a
provisional score starts at 0); the rating chart has axis values (scores and
match numbers); the profile lists the achievements still to earn; a match among
friends is not on the "contra los vecinos" card; and this browser's own profile
speaks to it ("Tu perfil", "Tu juego", "Ganaste"), knowing it is its own from
the player id kept in localStorage, with no token in any URL.
Screenshots: /work/shots/W2/."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import test_web_static as web
from standings_helpers import Table, find, seats
from test_standings_store import LOSS
from test_web_standings import finish_matches, sign_in

from capicua.standings import achievements as ach
from capicua.store.models import RatingRow

browser = web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion
SHOTS = Path(os.environ.get("CAPICUA_SHOTS", "/work/shots/W2"))


def shot(page: Any, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full)


def new_page(browser: Any, width: int, storage: dict[str, str] | None = None) -> tuple[Any, Any, list[str]]:
    """A Spanish page holding ``storage`` in its localStorage; returns it with the URLs it requests."""
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale="es-ES")
    script = "localStorage.setItem('capicua.lang', 'es');"
    for key, value in (storage or {}).items():
        script += f"localStorage.setItem({key!r}, {value!r});"
    ctx.add_init_script(script)
    page = ctx.new_page()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return ctx, page, urls


def signed_in_browser(browser: Any, base: str) -> tuple[dict[str, str], str, str]:
    """Sign in as the page does ("Sentarme aquí": POST /api/players through guest.js) and
    return this browser's localStorage, its token and its player id."""
    ctx, page, _ = new_page(browser, 1280)
    try:
        page.goto(f"{base}/rules")
        got = page.evaluate("async () => (await import('/static/js/guest.js')).signIn('Ana')")
        assert got.get("token"), got
        kept = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
    finally:
        ctx.close()
    token = kept["capicua.token"]
    player = page_player(kept)
    return {k: v for k, v in kept.items() if k != "capicua.lang"}, token, player


def page_player(storage: dict[str, str]) -> str:
    import json

    kept = json.loads(storage["capicua.player"])
    assert kept["of"] == storage["capicua.token"][-8:] and kept["player"].startswith("p_")
    return str(kept["player"])


def test_the_standings_in_words_and_my_own_profile(browser: Any, live_server: Any) -> None:
    srv = live_server()
    store = srv.app.state.deps.store
    storage, token, ana = signed_in_browser(browser, srv.base)
    # Ana's first match, lost against two experto neighbours: μ − 3σ is below 0.
    table = Table(store, "t_words", seats({0: ana}, {1: "experto", 3: "experto"}))
    finish_matches(table, [LOSS])
    with store.sessions() as s:
        raw = s.get(RatingRow, (ana, "neighbours"))
        assert raw is not None and raw.score < 0
    capicua_win = find(lambda r: r["result"]["winner"] == 0 and any(
        h["result"].get("capicua") and h["result"].get("seat") == 0 for h in r["hands"]))
    for record in (capicua_win, LOSS, capicua_win):
        table.rematch()
        assert table.finish(record) == [None]
    # Beto played only among friends (four guests at a private table): nothing against the neighbours.
    beto, cuca, dani = (sign_in(srv, n)[0] for n in ("Beto", "Cuca", "Dani"))
    finish_matches(Table(store, "t_amigos", seats({0: beto, 1: cuca, 2: ana, 3: dani}), private=True), [LOSS])
    body = srv.get(f"/api/players/{ana}").json()
    history = body["ratings"]["neighbours"]["history"]
    assert history[0]["score"] == 0.0 and all(p["score"] >= 0 for p in history)
    earned = [a["id"] for a in body["achievements"]]
    to_earn = [a["id"] for a in body["to_earn"]]
    assert earned and to_earn and sorted(earned + to_earn) == sorted(a.id for a in ach.CATALOGUE)

    for width in (1280, 360):
        # My own profile: this browser's player id is in its localStorage.
        ctx, page, urls = new_page(browser, width, storage)
        try:
            page.goto(f"{srv.base}/player/{ana}")
            page.wait_for_selector('[data-testid="pf-level"]', timeout=WAIT_MS)
            assert page.locator('[data-testid="pf-yours"]').text_content() == "Tu perfil"
            assert page.inner_text('[data-testid="pf-stat-favourite"] dt') == "Tu juego"
            results = page.eval_on_selector_all('[data-testid="pf-match"] .pf-match-result', "els => els.map((e) => e.textContent)")
            assert results == ["Perdiste", "Ganaste", "Perdiste", "Ganaste", "Perdiste"]  # the friends' match last
            assert "te faltan" in page.inner_text('[data-testid="pf-level"]')
            # The score: never below 0, said in words; no formula on the page.
            text = page.inner_text("body")
            assert "μ" not in text and "σ" not in text and "−" not in page.inner_text('[data-testid="pf-rating-neighbours"]')
            explain = page.inner_text('[data-testid="pf-rating-neighbours"] [data-testid="pf-score-explain"]')
            assert explain == ("Tu puntuación es provisional: empieza en 0, nunca baja de 0 y sube cuando ganas "
                               "y a medida que juegas más partidas.")
            # The chart's axes: score values up the side, match numbers along the foot.
            card = page.locator('[data-testid="pf-rating-neighbours"]')
            yticks = [float(v) for v in card.locator('[data-testid="pf-chart-ytick"]').evaluate_all(
                "els => els.map((e) => e.dataset.value)")]
            assert len(yticks) >= 2 and yticks[0] <= min(p["score"] for p in history)
            assert yticks[-1] >= max(p["score"] for p in history)
            assert card.locator('[data-testid="pf-chart-ytick"]').first.text_content() == f"{yticks[0]:g}".replace(".", ",")
            xticks = card.locator('[data-testid="pf-chart-xtick"]').all_text_contents()
            assert xticks[0] == "partida 1" and xticks[-1] == f"partida {len(history)}", xticks
            # Among friends only: not on the neighbours' card.
            assert page.inner_text('[data-testid="pf-rating-neighbours"] .pf-board-what') == (
                "Las partidas en que todos los rivales eran vecinos.")
            # The achievements still to earn, with how.
            shown = page.eval_on_selector_all('[data-testid="pf-to-earn"]', "els => els.map((e) => e.dataset.id)")
            assert shown == to_earn
            first = next(a for a in ach.CATALOGUE if a.id == to_earn[0])
            assert first.goal in page.inner_text('[data-testid="pf-to-earn"] >> nth=0')
            web.assert_no_hscroll(page, width)
            shot(page, f"profile-mine-{width}.png")
            shot(page, f"profile-mine-{width}-full.png", full=True)
            # Known from localStorage: no token in any address this page asked for.
            assert not [u for u in urls if token in u], urls
            assert page.errors == []  # type: ignore[attr-defined]
        finally:
            ctx.close()
        # Someone else's profile (this browser is Ana's): the third person.
        ctx, page, _ = new_page(browser, width, storage)
        try:
            page.goto(f"{srv.base}/player/{beto}")
            page.wait_for_selector('[data-testid="pf-level"]', timeout=WAIT_MS)
            assert page.locator('[data-testid="pf-yours"]').count() == 0
            assert page.inner_text('[data-testid="pf-stat-favourite"] dt') == "Su juego"
            assert page.eval_on_selector_all('[data-testid="pf-match"] .pf-match-result', "els => els.map((e) => e.textContent)") == ["Perdió"]
            assert "le faltan" in page.inner_text('[data-testid="pf-level"]')
            assert page.locator('[data-testid="pf-rating-neighbours"] [data-testid="pf-chart-empty"]').count() == 1
            assert page.locator('[data-testid="pf-rating-friends"] [data-testid="pf-chart-point"]').count() == 1
            assert page.inner_text('[data-testid="pf-rating-friends"] [data-testid="pf-score-explain"]').startswith(
                "Puntuación provisional: empieza en 0, nunca baja de 0 y sube cuando gana")
            if width == 1280:
                page.click('[data-testid="lang-toggle"]')
                page.wait_for_function("document.querySelector('[data-testid=\"pf-stat-favourite\"] dt').textContent === 'Favourite game'",
                                       timeout=WAIT_MS)
                assert page.inner_text('[data-testid="pf-to-earn"] >> nth=0').endswith("Win a match.")
        finally:
            ctx.close()
        # The leaderboard: the score in words, the formula only in the tooltip.
        ctx, page, _ = new_page(browser, width)
        try:
            page.goto(f"{srv.base}/leaderboard")
            page.wait_for_selector('[data-testid="lb-empty"]', timeout=WAIT_MS)
            lead = page.locator('[data-i18n="lb.lead"]')
            assert "empieza en 0" in lead.inner_text() and "μ" not in page.inner_text("body")
            assert "μ − 3σ" in (lead.get_attribute("title") or "")
            shot(page, f"leaderboard-words-{width}.png")
        finally:
            ctx.close()
