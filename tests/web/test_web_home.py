"""Browser tests of the home page, the verify page and the result panel's focus.

The home and verify pages run against the real server (``live_server`` of
tests/conftest.py): the games and their seat choices come from its
``/api/presets``, tables are really opened, and a real hand is verified. The
result panel's keyboard focus and the table's error words use the fake
websocket of tests/webfake.py (protocol version 2). Screenshots go to artifacts/.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_web_static as web
from test_web_static import (
    ARTIFACTS,
    assert_no_hscroll,
    match_over_view,
    mid_view,
    open_table,
    shot,
    tranque_view,
)
from webfake import error_frame, events_frame, push, sent

from capicua.engine import make_rules
from capicua.engine.rules import PRESETS
from capicua.table.options import seat_choices

# The fake server and Chromium of test_web_static, as fixtures of this module.
server, base_url, browser = web.server, web.base_url, web.browser

pytestmark = [pytest.mark.browser]
LIVE = pytest.mark.xdist_group("home")  # tests on a live server (their own group: xdist balances groups)
FAKE = pytest.mark.xdist_group("web")  # tests on the fake websocket of webfake


def seats_value(choice: dict[str, Any]) -> str:
    return f"{choice['players']}:{'pairs' if choice['partnership'] else 'solo'}"


def home(browser: Any, base: str, width: int = 1280, height: int = 800) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base}/")
    page.wait_for_function(f"document.querySelectorAll('[data-testid=preset] option').length === {len(PRESETS)}")
    return ctx, page


def choose_game(page: Any, preset: str, seats: str | None = None) -> None:
    page.select_option('[data-testid="preset"]', preset)
    if seats is not None:
        page.select_option('[data-testid="seats"]', seats)


def full_shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def answer_with(status: int, answer: dict[str, Any] | None) -> Any:
    """A route handler that answers POST /api/tables with ``answer`` (or a plain-text 500 page)."""

    def handle(route: Any) -> None:
        if answer is None:
            route.fulfill(status=status, content_type="text/plain", body="Internal Server Error")
        else:
            route.fulfill(status=status, content_type="application/json", body=json.dumps(answer))

    return handle


def form_error(page: Any) -> str:
    el = page.locator("#form-error")
    el.wait_for(state="visible", timeout=5000)
    return str(el.inner_text())


# --------------------------------------------------------------------------- home (live server)


@LIVE
def test_home_offers_every_game_with_its_seat_choices(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ctx, page = home(browser, srv.base)
    try:
        games = page.eval_on_selector_all('[data-testid="preset"] option', "els => els.map(e => e.value)")
        assert games == list(PRESETS)
        assert page.locator('[data-testid="preset"]').input_value() == "cubano"
        for preset in PRESETS:
            choose_game(page, preset)
            rules = make_rules(preset)
            offered = page.eval_on_selector_all('[data-testid="seats"] option', "els => els.map(e => e.value)")
            assert offered == [seats_value(c) for c in seat_choices(preset)], preset
            default = seats_value({"players": rules.players, "partnership": rules.partnership})
            assert page.locator('[data-testid="seats"]').input_value() == default, preset
            # A partner level only where there are partners.
            assert page.locator('[data-testid="partner-level"]').is_visible() == rules.partnership, preset
        choose_game(page, "block", "3:solo")
        assert not page.locator('[data-testid="partner-level"]').is_visible()
        assert page.locator("#rival-level-label").inner_text() == "Nivel de los vecinos"
        choose_game(page, "block", "4:pairs")
        assert page.locator('[data-testid="partner-level"]').is_visible()
        assert page.locator("#rival-level-label").inner_text() == "Nivel de los contrarios"
        assert page.errors == []
    finally:
        ctx.close()


@LIVE
@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_home_screens_with_a_two_and_a_three_player_game(browser: Any, live_server: Any, width: int, height: int) -> None:
    srv = live_server()
    ctx, page = home(browser, srv.base, width, height)
    try:
        choose_game(page, "mano-a-mano")
        assert page.locator('[data-testid="seats"]').inner_text().strip() == "2, tú contra un vecino"
        assert_no_hscroll(page, width)
        shot(page, f"home-2-players-{width}.png")
        choose_game(page, "all-fives", "3:solo")
        assert_no_hscroll(page, width)
        shot(page, f"home-3-players-{width}.png")
    finally:
        ctx.close()


@LIVE
def test_home_opens_two_three_and_five_player_tables(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ctx, page = home(browser, srv.base)
    try:
        page.fill('[data-testid="nickname"]', "Yuniel")
        tokens: list[str] = []
        for preset, seats, options in [
            ("mano-a-mano", None, {}),
            ("all-fives", "3:solo", {"players": 3, "partnership": False}),
            ("fives-and-threes", None, {}),
            ("block", "5:solo", {"players": 5, "partnership": False}),
        ]:
            page.goto(f"{srv.base}/")
            page.wait_for_function(f"document.querySelectorAll('[data-testid=preset] option').length === {len(PRESETS)}")
            choose_game(page, preset, seats)
            with page.expect_request("**/api/tables") as req:
                page.click('[data-testid="play-button"]')
            body = json.loads(req.value.post_data or "{}")
            assert body["preset"] == preset and body["options"] == options
            page.wait_for_url("**/t/*")
            table_id = page.url.rsplit("/", 1)[1]
            summary = srv.get(f"/api/tables/{table_id}").json()
            rules = make_rules(preset, **options)
            assert summary["preset"] == preset and len(summary["seats"]) == rules.players
            # One token per browser, sent with every table request; the table is remembered without it.
            tokens.append(page.evaluate("localStorage.getItem('capicua.token')"))
            assert body.get("token") == (tokens[0] if len(tokens) > 1 else None)
            stored = json.loads(page.evaluate(f"localStorage.getItem('capicua:table:{table_id}')"))
            assert stored["table_id"] == table_id and stored["preset"] == preset and "token" not in stored
        assert len(set(tokens)) == 1 and tokens[0]
        # The server knows that token: signing in with it is the same guest.
        assert srv.post("/api/players", {"nickname": "Yuniel", "token": tokens[0]}).json()["token"] == tokens[0]
        assert page.errors == []
    finally:
        ctx.close()


@LIVE
def test_home_errors_are_in_the_page_language(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ctx, page = home(browser, srv.base)
    english = "tables against the neighbours are four players in two partnerships"
    try:
        # A real refusal of the server: a capicúa bonus has no meaning in a cross.
        choose_game(page, "cross")
        page.click("#options summary")
        page.select_option("#opt-capicua_bonus", "25")
        page.click('[data-testid="play-button"]')
        text = form_error(page)
        assert text == "No se pudo abrir la mesa: Esas opciones no se pueden jugar juntas en este juego.", text
        page.click('[data-testid="lang-toggle"]')
        assert form_error(page) == "Could not open the table: Those options cannot be played together in this game."
        page.click('[data-testid="lang-toggle"]')
        answers = [
            (429, {"error": {"code": "too_fast", "message": english}}, "Demasiadas mesas en poco rato. Espera"),
            (408, {"error": {"code": "too_slow", "message": english}}, "tardó demasiado en llegar"),
            (400, {"error": {"code": "bad_rules", "message": english, "field": "players"}}, "no se juega con esos jugadores"),
            (400, {"error": {"code": "malformed", "message": english, "field": "nickname"}}, "de 1 a 24 letras"),
            (500, None, "El servidor tuvo un problema"),
        ]
        for status, answer, spanish in answers:
            page.route("**/api/tables", answer_with(status, answer))
            page.click('[data-testid="play-button"]')
            page.wait_for_function("(s) => document.getElementById('form-error').textContent.includes(s)", arg=spanish, timeout=5000)
            assert english not in form_error(page) and "Internal" not in form_error(page)
            page.unroute("**/api/tables")
        page.route("**/api/tables", lambda route: route.fulfill(
            status=429, content_type="application/json", headers={"Retry-After": "150"},
            body=json.dumps({"error": {"code": "too_fast", "message": english}})))
        page.click('[data-testid="play-button"]')
        page.wait_for_function("document.getElementById('form-error').textContent.includes('dentro de 3 min')", timeout=5000)
        page.unroute("**/api/tables")
        page.route("**/api/tables", lambda route: route.abort())
        page.click('[data-testid="play-button"]')
        page.wait_for_function("document.getElementById('form-error').textContent.includes('No hay conexión con el servidor')", timeout=5000)
        assert page.locator('[data-testid="play-button"]').is_enabled()
        assert page.errors == []
    finally:
        ctx.close()


@LIVE
def test_open_tables_list_only_unfinished_ones_by_game_score_and_date(browser: Any, live_server: Any) -> None:
    srv = live_server()
    active = srv.new_table(preset="la-plaza")
    finished = srv.new_table(preset="cubano")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    try:
        page.goto(f"{srv.base}/rules")
        entries = {
            active["table_id"]: {"table_id": active["table_id"], "token": active["token"], "seat": 0, "created": 2},
            finished["table_id"]: {"table_id": finished["table_id"], "token": finished["token"], "seat": 0, "created": 3},
            "t_gone": {"table_id": "t_gone", "token": "x", "seat": 0, "created": 1},
        }
        page.evaluate("(es) => { for (const [id, e] of Object.entries(es)) localStorage.setItem('capicua:table:' + id, JSON.stringify(e)); }", entries)
        # The finished match: its real summary, marked over (a whole match is test_e2e_presets' job).
        real = srv.get(f"/api/tables/{finished['table_id']}").json()
        over = dict(real, status="finished", phase="match_over")
        page.route(f"**/api/tables/{finished['table_id']}", lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(over)))
        page.goto(f"{srv.base}/")
        page.locator('[data-testid="resume-table"]').first.wait_for(state="visible", timeout=5000)
        links = page.locator('[data-testid="resume-table"]')
        assert links.count() == 1
        link = links.first
        assert link.get_attribute("data-table") == active["table_id"]
        assert link.get_attribute("href") == f"/t/{active['table_id']}"
        text = link.inner_text()
        assert text.startswith("La Plaza (doble seis, parejas) · 0–0"), text
        assert active["table_id"] not in text  # not a raw id
        summary = srv.get(f"/api/tables/{active['table_id']}").json()
        if summary.get("updated_at") or summary.get("created_at"):
            assert text.count(" · ") == 2, text  # game · score · date
        print(f"\nopen table listed as: {text!r}")
        # The unknown table is forgotten; the finished one is kept (its page still shows the result) but not listed.
        assert page.evaluate("localStorage.getItem('capicua:table:t_gone')") is None
        assert page.evaluate(f"localStorage.getItem('capicua:table:{finished['table_id']}')") is not None
        page.click('[data-testid="lang-toggle"]')
        assert link.inner_text().startswith("La Plaza (double-six, partners) · 0–0")
        full_shot(page, "home-open-tables-1280.png")
    finally:
        ctx.close()


# --------------------------------------------------------------------------- verify page (live server)


def _play_first_hand(srv: Any, seed: str) -> tuple[str, dict[str, Any], Any]:
    """A table with a chosen seed whose first hand is played to its end: (table_id, hand_start event, client)."""
    from conftest import drive

    tid, token = srv.table_with_seed(seed, bot_delay=(0.0, 0.0))
    c = srv.client()
    assert c.hello(tid, token)["type"] == "welcome"
    start = c.until(lambda f: f.get("type") in ("events", "sync") and f["view"].get("seed_hash"))
    drive(c, lambda f: f["type"] == "events" and any(e["event"]["kind"] == "hand_end" for e in f["events"]))
    return tid, start, c


def verify_page(browser: Any, url: str, width: int = 1280, height: int = 800) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_function("document.getElementById('verify').getAttribute('aria-busy') === 'false'", timeout=10_000)
    return ctx, page


@LIVE
def test_verify_page_says_the_hash_matches_and_draws_the_deal(browser: Any, live_server: Any) -> None:
    srv = live_server()
    tid, start, c = _play_first_hand(srv, "verify-page-1")
    shown_hash = start["view"]["seed_hash"]
    table = srv.run(srv.tables.get(tid))
    deal = table.core.match.record()["hands"][0]["deal"]
    seed = c.view["result"]["seed"]
    c.close()
    for width, height in [(1280, 800), (360, 740)]:
        ctx, page = verify_page(browser, f"{srv.base}/verify?table={tid}&hand=1", width, height)
        try:
            verdict = page.locator('[data-testid="verify-hash"]')
            assert verdict.get_attribute("data-ok") == "true"
            assert "sha256(semilla) = el hash mostrado antes del reparto ✔" in verdict.inner_text()
            assert page.locator('[data-testid="verify-published"]').inner_text() == shown_hash
            assert page.locator('[data-testid="verify-seed"]').inner_text() == seed
            assert page.locator('[data-testid="verify-deal"]').get_attribute("data-ok") == "true"
            # Exactly the tiles of the record's deal, seat by seat, and the sleeping ones.
            assert page.locator('[data-testid="verify-hand"]').count() == 4
            shown = [page.locator(f'[data-testid="verify-hand"][data-seat="{s}"] .vf-tiles').get_attribute("data-tiles")
                     for s in range(4)]
            assert shown == [" ".join(f"{a}-{b}" for a, b in hand) for hand in deal["hands"]]
            names = [page.locator(f'[data-testid="verify-hand"][data-seat="{s}"] .vf-name').inner_text() for s in range(4)]
            assert names == ["Ana", "Cuca", "Pancho", "Yoli"]
            sleeping = page.locator('[data-testid="verify-sleeping"]').get_attribute("data-tiles")
            assert sleeping == " ".join(f"{a}-{b}" for a, b in deal["sleeping"])
            assert len(deal["sleeping"]) == 15
            assert_no_hscroll(page, width)
            full_shot(page, f"verify-{width}.png")
            assert page.errors == []
        finally:
            ctx.close()


@LIVE
def test_verify_page_says_plainly_when_the_hand_is_not_over(browser: Any, live_server: Any) -> None:
    srv = live_server()
    tid, token = srv.table_with_seed("verify-page-2", bot_delay=(0.0, 0.0))
    c = srv.client()
    assert c.hello(tid, token)["type"] == "welcome"
    c.until(lambda f: f.get("type") in ("events", "sync") and f["view"].get("phase") == "play")
    ctx, page = verify_page(browser, f"{srv.base}/verify?table={tid}&hand=1")
    try:
        err = page.locator('[data-testid="verify-error"]')
        assert err.get_attribute("data-code") == "hand_not_over"
        assert err.inner_text().startswith("Esa mano todavía se está jugando.")
        assert page.locator('[data-testid="verify-hand"]').count() == 0
        page.click('[data-testid="lang-toggle"]')
        assert err.inner_text().startswith("That hand is still being played.")
    finally:
        ctx.close()
        c.close()


@LIVE
def test_verify_page_from_a_seed_alone_says_there_is_no_hash_to_compare(browser: Any, live_server: Any) -> None:
    from capicua.table.fairness import verify_deal

    srv = live_server()
    ctx, page = verify_page(browser, f"{srv.base}/verify?seed=una-semilla&preset=mano-a-mano&hand=1")
    try:
        assert page.locator('[data-testid="verify-hash"]').get_attribute("data-ok") == "none"
        assert page.locator('[data-testid="verify-deal"]').count() == 0  # nothing was played to compare with
        deal = verify_deal("mano-a-mano", "una-semilla", {}, hand_number=1)
        shown = [page.locator(f'[data-testid="verify-hand"][data-seat="{s}"] .vf-tiles').get_attribute("data-tiles") for s in range(2)]
        assert shown == [" ".join(f"{a}-{b}" for a, b in hand) for hand in deal["hands"]]
        assert page.locator('[data-testid="verify-hand"] .vf-name').all_inner_texts() == ["Silla 1", "Silla 2"]
        assert len(page.locator('[data-testid="verify-sleeping"]').get_attribute("data-tiles").split()) == 14
        assert page.errors == []
    finally:
        ctx.close()


@LIVE
def test_home_without_the_games_list_says_so_and_tries_again(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    try:
        page.route("**/api/presets", lambda route: route.abort())
        page.goto(f"{srv.base}/")
        assert form_error(page) == "No se pudo abrir la mesa: No se pudo cargar la lista de juegos."
        page.unroute("**/api/presets")
        page.fill('[data-testid="nickname"]', "Yuniel")
        page.click('[data-testid="play-button"]')  # asks for the games again, then opens the table
        page.wait_for_url("**/t/*")
    finally:
        ctx.close()


# --------------------------------------------------------------------------- the table (fake websocket)


@FAKE
def test_result_panel_takes_the_focus_and_enter_plays_on(browser: Any, base_url: str) -> None:
    ctx, page = open_table(browser, base_url)
    try:
        page.locator('[data-testid="tile"][data-playable="true"]').first.focus()
        push(page, events_frame(18, [{"kind": "hand_end", "result_kind": "tranque"}], tranque_view()))
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=5000)
        page.wait_for_function("document.activeElement && document.activeElement.id === 'next-hand'", timeout=3000)
        page.keyboard.press("Enter")
        assert [f for f in sent(page) if f["type"] == "next_hand"] == [{"type": "next_hand", "seq": 18}]
        # The next hand closes the panel and gives the focus back to the hand.
        v = mid_view()
        v.update(hand_number=3)
        push(page, events_frame(19, [{"kind": "hand_start", "hand_number": 3, "opener": 0}], v))
        page.locator('[data-testid="libreta"]').wait_for(state="hidden", timeout=5000)
        assert page.evaluate("document.activeElement.dataset.testid") == "tile"
        # After the match, the default action is "Otra partida".
        push(page, events_frame(20, [{"kind": "match_end", "winner": 0, "pollona": True, "viajera": False}], match_over_view()))
        page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=5000)
        page.wait_for_function("document.activeElement && document.activeElement.id === 'rematch'", timeout=3000)
        assert page.errors == []
    finally:
        ctx.close()


@FAKE
def test_result_panel_seen_on_reload_has_the_focus_too(browser: Any, base_url: str) -> None:
    ctx, page = open_table(browser, base_url, view=tranque_view())
    try:
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=5000)
        assert page.evaluate("document.activeElement.id") == "next-hand"
    finally:
        ctx.close()


@FAKE
def test_table_errors_are_words_not_the_server_message(browser: Any, base_url: str) -> None:
    ctx, page = open_table(browser, base_url)
    try:
        english = "KeyError: traceback for developers"
        for code, spanish in [("some_new_code", "Algo salió mal en la mesa"), ("paused", "no cambió nada"),
                              ("too_many", "demasiadas pestañas"), ("watcher", "los mirones son de palo")]:
            push(page, error_frame(code, english, 17))
            toast = page.locator(f'[data-testid="toast"][data-code="{code}"]')
            assert spanish in toast.inner_text() and english not in toast.inner_text(), code
        page.click('[data-testid="lang-toggle"]')
        push(page, error_frame("paused", english, 17))
        assert "nothing changed" in page.locator('[data-testid="toast"][data-code="paused"]').last.inner_text()
    finally:
        ctx.close()


@FAKE
def test_the_revealed_seed_is_not_padded_like_a_page_column(browser: Any, base_url: str) -> None:
    ctx, page = open_table(browser, base_url, view=tranque_view())
    try:
        page.locator('[data-testid="seed-reveal"]').wait_for(state="visible", timeout=5000)
        pads = page.evaluate("[...document.querySelectorAll('#result code, #seed-pop code')]"
                             ".map((el) => [getComputedStyle(el).paddingLeft, getComputedStyle(el).wordBreak])")
        assert pads and all(p == ["0px", "break-all"] for p in pads), pads
    finally:
        ctx.close()
