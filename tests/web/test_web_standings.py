"""The standings in the browser (headless Chromium, the real server and store): the
leaderboard in the API's order, its filters and my place; a profile's level,
progress, rating chart, achievements and recent matches with their replay links;
the level beside a guest's name at the table and the honours frame celebrated
there; and issue 12's end to end: a match against the neighbours, then my level,
my place on the leaderboard and the match's replay opened from my profile.
Screenshots: artifacts/leaderboard-*.png, profile-*.png, table-honours-*.png."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import test_web_static as web
from conftest import drive
from sqlalchemy import update
from standings_helpers import Table, find, seats
from test_web_static import assert_no_hscroll, mid_view, open_table, shot
from webfake import push, table_state

from capicua.standings.ratings import PROVISIONAL_MATCHES
from capicua.store.models import RatingHistoryRow
from capicua.table import protocol
from capicua.table.seating import BOT, HUMAN, Seat

browser, server, base_url = web.browser, web.server, web.base_url

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion
TOKEN_KEY = "capicua.token"


def sign_in(srv: Any, name: str) -> tuple[str, str]:
    r = srv.post("/api/players", {"nickname": name})
    assert r.status_code == 200, r.text
    return r.json()["player"], r.json()["token"]


def finish_matches(table: Table, records: list[dict[str, Any]]) -> None:
    for i, record in enumerate(records):
        if i:
            table.rematch()
        assert table.finish(record) == [None]


def open_page(
    browser: Any, url: str, token: str | None = None, width: int = 1280, lang: str = "es", clock: bool = False
) -> tuple[Any, Any]:
    """A page at ``url`` in the page's ``lang``, this browser holding ``token``; ``clock``:
    its timers run when the test says (Playwright's clock), not on their own."""
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    script = f"localStorage.setItem('capicua.lang', '{lang}');"
    if token:
        script += f"localStorage.setItem('{TOKEN_KEY}', '{token}');"
    ctx.add_init_script(script)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    if clock:
        page.clock.install()
    page.goto(url)
    return ctx, page


def shown_players(page: Any) -> list[str]:
    return page.eval_on_selector_all('[data-testid="lb-row"]', "els => els.map((e) => e.dataset.player)")


def wait_board(page: Any, board: str, period: str) -> None:
    page.wait_for_function(
        "([b, p]) => { const el = document.querySelector('[data-testid=lb-body]');"
        " return el && el.dataset.board === b && el.dataset.period === p && el.getAttribute('aria-busy') === 'false'; }",
        arg=[board, period], timeout=WAIT_MS,
    )


# ------------------------------------------------------------------ the leaderboard


def test_the_leaderboard_shows_the_apis_rows_its_filters_change_them_and_my_place_shows(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ctx, page = open_page(browser, f"{srv.base}/leaderboard")
    try:  # an empty board says so plainly
        page.wait_for_selector('[data-testid="lb-empty"]', timeout=WAIT_MS)
        assert str(PROVISIONAL_MATCHES) in page.inner_text('[data-testid="lb-empty"]')
    finally:
        ctx.close()
    store = srv.app.state.deps.store
    ana, _ = sign_in(srv, "Ana")
    beto, _ = sign_in(srv, "Beto")
    dani, _ = sign_in(srv, "Dani")
    cuca, cuca_token = sign_in(srv, "Cuca")
    won = find(lambda r: r["result"]["winner"] == 0)
    lost = find(lambda r: r["result"]["winner"] == 1)
    # Ana and Beto partners at a private table: both boards; Dani alone with the neighbours.
    finish_matches(Table(store, "t_friends", seats({0: ana, 2: beto}), private=True), [won] * 7 + [lost] * 3)
    finish_matches(Table(store, "t_ana", seats({0: ana})), [won] * 2)
    finish_matches(Table(store, "t_dani", seats({0: dani}, {1: "experto", 3: "experto"})), [won] * 6 + [lost] * 4)
    finish_matches(Table(store, "t_cuca", seats({0: cuca})), [won, lost, won])
    # Dani's matches were three weeks ago: in this month's board, not this week's.
    with store.sessions() as s, s.begin():
        s.execute(update(RatingHistoryRow).where(RatingHistoryRow.player_id == dani)
                  .values(at=datetime.now(UTC).replace(tzinfo=None) - timedelta(days=21)))

    def api(board: str, period: str) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{srv.base}/api/leaderboard?board={board}&period={period}",
                                         headers={"Authorization": f"Bearer {cuca_token}"}).json()
        return body

    for width in (1280, 360):
        ctx, page = open_page(browser, f"{srv.base}/leaderboard", token=cuca_token, width=width)
        try:
            wait_board(page, "neighbours", "all")
            expected = [r["player"] for r in api("neighbours", "all")["rows"]]
            assert sorted(expected) == sorted([ana, beto, dani]), expected
            assert shown_players(page) == expected + [cuca]  # my row under the ranked ones
            mine = page.locator('[data-testid="lb-row"].lb-row--me')
            assert mine.count() == 1 and mine.get_attribute("data-player") == cuca
            need = api("neighbours", "all")["me"]["matches_needed"]
            assert need == PROVISIONAL_MATCHES - 3
            assert page.inner_text('[data-testid="lb-me"]') == f"Te faltan {need} partidas para entrar en la tabla."
            scores = page.eval_on_selector_all('[data-testid="lb-score"]', "els => els.map((e) => e.textContent)")
            assert scores[:3] == [f"{r['score']:.1f}".replace(".", ",") for r in api("neighbours", "all")["rows"]]
            assert_no_hscroll(page, width)
            shot(page, f"leaderboard-{width}.png")
            if width == 360:
                continue
            # The filters reload from the API, by keyboard too.
            page.locator('input[name="period"][value="all"]').focus()
            page.keyboard.press("ArrowRight")  # the last choice wraps round to the first: "esta semana"
            wait_board(page, "neighbours", "week")
            week = [r["player"] for r in api("neighbours", "week")["rows"]]
            assert dani not in week and shown_players(page)[: len(week)] == week
            page.locator('input[name="period"][value="month"]').check()
            wait_board(page, "neighbours", "month")
            assert dani in shown_players(page)
            page.click('input[name="board"][value="friends"]')  # the pill the label draws
            wait_board(page, "friends", "month")
            friends = [r["player"] for r in api("friends", "month")["rows"]]
            assert sorted(friends) == sorted([ana, beto]) and shown_players(page)[:2] == friends
            assert "board=friends" in page.url and "period=month" in page.url
            page.click('[data-testid="lang-toggle"]')
            need_friends = api("friends", "month")["me"]["matches_needed"]
            assert need_friends == PROVISIONAL_MATCHES  # Cuca never played among friends
            assert page.inner_text('[data-testid="lb-me"]') == f"{need_friends} more matches and you are on the board."
            assert page.locator("th").nth(1).inner_text() == "Player"
            # The profile link of a row, and "Mi perfil" (the token's player).
            assert page.locator('[data-testid="my-profile"]').get_attribute("href") == f"/player/{cuca}"
            assert page.locator(f'[data-player="{ana}"] a').get_attribute("href") == f"/player/{ana}"
            assert page.errors == []
        finally:
            ctx.close()
    # The home page links the leaderboard, and my profile once it knows my token's player.
    ctx, page = open_page(browser, f"{srv.base}/", token=cuca_token, width=360)
    try:
        assert page.locator('[data-testid="leaderboard-link"]').get_attribute("href") == "/leaderboard"
        page.wait_for_selector('[data-testid="my-profile"]:not([hidden])', timeout=WAIT_MS)
        assert page.locator('[data-testid="my-profile"]').get_attribute("href") == f"/player/{cuca}"
        assert page.inner_text('[data-testid="my-profile"]') == "Mi perfil"
        assert_no_hscroll(page, 360)
    finally:
        ctx.close()
    ctx, page = open_page(browser, f"{srv.base}/")  # no token: no profile to link
    try:
        page.wait_for_selector('[data-testid="leaderboard-link"]', timeout=WAIT_MS)
        page.wait_for_load_state("networkidle")
        assert page.locator('[data-testid="my-profile"]').is_hidden()
    finally:
        ctx.close()


# ------------------------------------------------------------------ the profile


def test_a_profile_shows_level_progress_chart_achievements_and_recent_matches(browser: Any, live_server: Any) -> None:
    srv = live_server()
    store = srv.app.state.deps.store
    ana, token = sign_in(srv, "Ana")
    capicua_win = find(lambda r: r["result"]["winner"] == 0 and any(
        h["result"].get("capicua") and h["result"].get("seat") == 0 for h in r["hands"]))
    lost = find(lambda r: r["result"]["winner"] == 1)
    finish_matches(Table(store, "t_prof", seats({0: ana}, {1: "experto", 3: "experto"})), [capicua_win, lost, capicua_win, lost])
    body = srv.get(f"/api/players/{ana}").json()
    level, history = body["level"], body["ratings"]["neighbours"]["history"]
    assert len(history) == 4 and body["achievements"] and len(body["recent"]) == 4
    for width in (1280, 360):
        ctx, page = open_page(browser, f"{srv.base}/player/{ana}", token=token, width=width)
        try:
            page.wait_for_selector('[data-testid="pf-level"]', timeout=WAIT_MS)
            assert page.inner_text('[data-testid="pf-name"]') == "Ana"
            assert page.inner_text('[data-testid="pf-level-name"]') == level["name"]
            bar = page.locator('[data-testid="pf-progress"]')
            assert bar.get_attribute("aria-valuenow") == str(level["xp"] - level["level_xp"])
            assert bar.get_attribute("aria-valuemax") == str(level["next_xp"] - level["level_xp"])
            chart = page.locator('[data-testid="pf-rating-neighbours"]')
            assert chart.locator('[data-testid="pf-chart-point"]').count() == len(history)
            assert chart.locator('[data-testid="pf-provisional"]').count() == 1  # 4 < PROVISIONAL_MATCHES
            assert page.locator('[data-testid="pf-rating-friends"] [data-testid="pf-chart-empty"]').count() == 1
            assert page.inner_text('[data-testid="pf-stat-matches"] dd') == "4"
            assert page.inner_text('[data-testid="pf-stat-capicuas"] dd') == str(body["stats"]["capicuas"])
            assert page.inner_text('[data-testid="pf-stat-favourite"] dd') == "Cubano en parejas (doble nueve)"
            ids = page.eval_on_selector_all('[data-testid="pf-achievement"]', "els => els.map((e) => e.dataset.id)")
            assert ids == [a["id"] for a in body["achievements"]]
            links = page.eval_on_selector_all('[data-testid="pf-replay"]', "els => els.map((e) => e.getAttribute('href'))")
            assert links == [m["replay"] for m in body["recent"]] == [f"/replay/t_prof/{n}" for n in (4, 3, 2, 1)]
            results = page.eval_on_selector_all('[data-testid="pf-match"] .pf-match-result', "els => els.map((e) => e.textContent)")
            assert results == ["Perdió", "Ganó", "Perdió", "Ganó"]
            assert_no_hscroll(page, width)
            shot(page, f"profile-{width}.png")
            page.screenshot(path=str(web.ARTIFACTS / f"profile-{width}-full.png"), full_page=True)
            if width == 1280:
                page.click('[data-testid="lang-toggle"]')
                assert page.inner_text('[data-testid="pf-level-name"]') == level["name_en"]
                assert page.inner_text('[data-testid="pf-stat-favourite"] dt') == "Favourite game"
            assert page.errors == []
        finally:
            ctx.close()
    # An unknown player: a plain page, in the page's language.
    for lang, words in (("es", "No hay ningún jugador"), ("en", "There is no such player")):
        ctx, page = open_page(browser, f"{srv.base}/player/p_nobody", lang=lang)
        try:
            page.wait_for_selector('[data-testid="pf-error"]', timeout=WAIT_MS)
            assert page.locator('[data-testid="pf-error"]').get_attribute("data-code") == "unknown_player"
            assert words in page.inner_text('[data-testid="pf-error"]')
        finally:
            ctx.close()


# ------------------------------------------------------------------ at the table


def test_the_honours_frame_is_celebrated_and_a_level_shows_beside_a_name(browser: Any, base_url: str) -> None:
    pichon = {"number": 1, "name": "Pichón", "name_en": "Fledgling"}
    seats_now = [
        Seat(0, HUMAN, "Ana", online=True, player_level=pichon).public(),
        Seat(1, BOT, "Pancho", level="dificil", character="pancho").public(),
        Seat(2, HUMAN, "Yoli", online=True, player_level={"number": 4, "name": "Fajador", "name_en": "Scrapper"}).public(),
        Seat(3, BOT, "Chucho", level="botagorda", character="chucho").public(),
    ]
    for width in (1280, 360):
        ctx, page = open_table(browser, base_url, width=width, height=800 if width > 360 else 740,
                               view=mid_view(), table=table_state(seats_now))
        try:
            levels = page.eval_on_selector_all(
                '[data-testid="seat"]', "els => els.sort((a, b) => a.dataset.seat - b.dataset.seat)"
                ".map((e) => { const l = e.querySelector('[data-testid=seat-level]'); return l ? l.textContent : ''; })")
            assert levels == ["nivel Pichón", "", "nivel Fajador", ""]
            frame = protocol.honours_frame(0, {"number": 2, "name": "Aprendiz", "name_en": "Apprentice"}, [
                {"id": "primera_capicua", "name": "Primera capicúa", "name_en": "First capicúa"},
                {"id": "contra_expertos", "name": "Le ganaste a los expertos", "name_en": "Beat the experts"},
            ])
            push(page, frame)
            page.wait_for_selector('[data-testid="honours"]', timeout=WAIT_MS)
            assert page.inner_text('[data-testid="honours-level"]') == "¡Subiste a nivel Aprendiz!"
            assert page.eval_on_selector_all('[data-testid="honours-achievement"]', "els => els.map((e) => e.textContent)") == [
                "Logro: Primera capicúa", "Logro: Le ganaste a los expertos"]
            assert_no_hscroll(page, width)
            shot(page, f"table-honours-{width}.png")
            if width == 1280:
                page.click('[data-testid="lang-toggle"]')
                assert page.inner_text('[data-testid="honours-level"]') == "Level up: Apprentice!"
                assert page.locator('.seat[data-seat="2"] [data-testid="seat-level"]').inner_text() == "level Scrapper"
                page.keyboard.press("Tab")
                page.locator('[data-testid="honours-close"]').focus()
                page.keyboard.press("Enter")
                assert page.locator('[data-testid="honours"]').count() == 0
            assert page.errors == []
        finally:
            ctx.close()


def _has_event(frame: dict[str, Any], kind: str) -> bool:
    return frame.get("type") == "events" and any(e["event"]["kind"] == kind for e in frame["events"])


def test_a_table_tells_every_seat_the_guests_level_and_its_rise(live_server: Any) -> None:
    srv = live_server()
    t = srv.new_table(options={"target": 50})
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    first = c.until(lambda f: f["type"] == "table" and f["table"]["seats"][0].get("player_level") is not None)
    assert first["table"]["seats"][0]["player_level"] == {"number": 0, "name": "Recién llegado", "name_en": "Newcomer"}
    assert all("player_level" not in s for s in first["table"]["seats"][1:])  # neighbours have their own level
    drive(c, lambda f: _has_event(f, "match_end"))
    risen = c.until(lambda f: f["type"] == "table" and (f["table"]["seats"][0]["player_level"] or {}).get("number") == 1)
    assert risen["table"]["seats"][0]["player_level"] == {"number": 1, "name": "Pichón", "name_en": "Fledgling"}
    c.close()
    # A page opened after the match sees the level too: in its welcome, when the table
    # still holds it, else in a table frame once it is read from the store.
    c = srv.client()
    welcome = c.hello(t["table_id"], t["token"])
    again = welcome if welcome["table"]["seats"][0].get("player_level") is not None else c.until(
        lambda f: f["type"] == "table" and f["table"]["seats"][0].get("player_level") is not None)
    assert again["table"]["seats"][0]["player_level"]["number"] == 1
    c.close()


# ------------------------------------------------------------------ issue 12, done when


def test_after_a_match_against_the_neighbours_i_see_my_level_my_place_and_open_its_replay(
    browser: Any, live_server: Any
) -> None:
    srv = live_server()
    t = srv.new_table(options={"target": 50})
    ctx, page = open_page(browser, f"{srv.base}/t/{t['table_id']}", token=t["token"], clock=True)
    try:
        page.wait_for_selector('.seat[data-seat="0"] [data-testid="seat-level"]', timeout=WAIT_MS)
        assert page.inner_text('.seat[data-seat="0"] [data-testid="seat-level"]') == "nivel Recién llegado"
        c = srv.client()  # my other socket plays my seat; the page follows the same seat
        c.hello(t["table_id"], t["token"])
        drive(c, lambda f: f["type"] == "honours")
        c.close()
        # The page plays every move's effects at the table's pace: its clock runs them at once.
        page.clock.run_for(600_000)
        page.wait_for_selector('[data-testid="honours"]', timeout=WAIT_MS)
        assert page.inner_text('[data-testid="honours-level"]') == "¡Subiste a nivel Pichón!"
        page.wait_for_function(
            "() => { const l = document.querySelector('.seat[data-seat=\"0\"] [data-testid=seat-level]');"
            " return l && l.textContent === 'nivel Pichón'; }", timeout=WAIT_MS)
        page.clock.run_for(60_000)  # the end-of-match scene (banners, hands, then the sheet)
        page.wait_for_selector('[data-testid="match-over"] [data-testid="leaderboard-link"]', timeout=WAIT_MS)
        page.click('[data-testid="match-over"] [data-testid="leaderboard-link"]')
        page.wait_for_url("**/leaderboard", timeout=WAIT_MS)
        page.wait_for_selector('[data-testid="lb-me"]:not([hidden])', timeout=WAIT_MS)
        me = httpx.get(f"{srv.base}/api/leaderboard", headers={"Authorization": f"Bearer {t['token']}"}).json()["me"]
        assert me["matches"] == 1 and me["rank"] is None
        assert page.inner_text('[data-testid="lb-me"]') == f"Te faltan {PROVISIONAL_MATCHES - 1} partidas para entrar en la tabla."
        page.wait_for_selector('[data-testid="my-profile"]:not([hidden])', timeout=WAIT_MS)
        page.click('[data-testid="my-profile"]')
        page.wait_for_selector('[data-testid="pf-level"]', timeout=WAIT_MS)
        assert page.inner_text('[data-testid="pf-level-name"]') == "Pichón"
        assert page.locator('[data-testid="pf-match"]').count() == 1
        page.click('[data-testid="pf-replay"]')
        page.wait_for_url(f"**/replay/{t['table_id']}/1", timeout=WAIT_MS)
        page.wait_for_selector('[data-testid="replay-bar"]:not([hidden])', timeout=WAIT_MS)
        assert page.locator('[data-testid="replay-message"]').is_hidden()
        assert page.errors == []
    finally:
        ctx.close()


def test_a_level_is_shown_only_for_the_guest_it_was_read_for_and_nothing_is_logged() -> None:
    from tablesim import Sim

    from capicua.table.commands import PlayerLevels

    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    pichon = {"number": 1, "name": "Pichón", "name_en": "Fledgling"}
    # A level read for someone who is no longer in that seat (or a seat that is not there) is dropped.
    stale = sim.send(PlayerLevels(((0, "p_other", pichon), (7, "p_ana", pichon))))
    assert stale.entries == [] and stale.frames == []
    assert sim.core.table_state()["seats"][0]["player_level"] is None
    out = sim.send(PlayerLevels(((0, "p_ana", pichon),)))
    assert out.entries == []  # a level is the standings', never the table's log
    tables = [f for a, f in out.frames if f["type"] == "table"]
    assert len(tables) == 1 and tables[0]["table"]["seats"][0]["player_level"] == pichon
    assert sim.send(PlayerLevels(((0, "p_ana", pichon),))).frames == []  # the same level again: no frame
