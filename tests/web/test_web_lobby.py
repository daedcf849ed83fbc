"""Friends at one table, in the browser: "Jugar con amigos", the lobby, joining from the link.

A real server (``live_server`` of tests/conftest.py) and Debian's Chromium;
several players are several browser contexts (each its own localStorage: its
own guest token), and where a test only needs a player to be there, a Python
websocket client (``WSClient``, ``drive``) plays for them. Screenshots of the
lobby and of the four-human table go to artifacts/ at 1280 and 360 px.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from typing import Any

import pytest
import test_web_static as web
from conftest import drive
from test_web_static import ARTIFACTS, assert_no_hscroll
from webfake import FAKE_WS, paused_frame, push, sent, table_state, welcome_frame
from webfake import human as human_seat

# Chromium as the other page tests launch it, and their fake server (static files only), as fixtures of this module.
browser, server, base_url = web.browser, web.server, web.base_url

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
GUARD_MS = 20_000  # a guard against a page that never gets there, not a timed assertion
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


class Player:
    """One browser context with its page: its own localStorage, so its own guest."""

    def __init__(self, browser: Any, *, phone: bool = False, token: str | None = None, lang: str | None = None,
                 share: bool = False) -> None:
        self.ctx = browser.new_context(**PHONE) if phone else browser.new_context(viewport={"width": 1280, "height": 800})
        if token:
            self.ctx.add_init_script(f"localStorage.setItem('capicua.token', {json.dumps(token)})")
        if lang:
            self.ctx.add_init_script(f"localStorage.setItem('capicua.lang', {json.dumps(lang)})")
        if share:  # a browser with a share sheet: record what the page hands it
            self.ctx.add_init_script("navigator.share = async (data) => { window.__shared = data; };")
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self._frame(self.received, payload))
        ws.on("framesent", lambda payload: self._frame(self.sent, payload))

    @staticmethod
    def _frame(into: list[dict[str, Any]], payload: Any) -> None:
        try:
            into.append(json.loads(payload))
        except (TypeError, ValueError):
            pass

    def hellos(self) -> list[dict[str, Any]]:
        return [f for f in self.sent if f.get("type") == "hello"]

    def welcomed_seats(self) -> list[int | None]:
        return [f["seat"] for f in self.received if f.get("type") == "welcome"]

    def my_seat(self) -> str | None:
        """The seat the lobby draws as mine (the card marked "(tú)"), or None."""
        seat: str | None = self.page.evaluate("(document.querySelector('.lseat--me') || {dataset: {}}).dataset.seat ?? null")
        return seat

    def wait_my_seat(self, seat: int | None) -> None:
        want = "null" if seat is None else f"'{seat}'"
        self.page.wait_for_function(f"((document.querySelector('.lseat--me') || {{dataset: {{}}}}).dataset.seat ?? null) === {want}",
                                    timeout=GUARD_MS)

    def status_line(self) -> str:
        return str(self.page.locator('[data-testid="lobby-status"]').inner_text())

    def wait_status(self, text: str) -> None:
        self.page.wait_for_function("(t) => document.querySelector('[data-testid=lobby-status]').textContent.includes(t)",
                                    arg=text, timeout=GUARD_MS)

    def error_codes(self) -> list[str]:
        return [f["code"] for f in self.received if f.get("type") == "error"]

    def seat(self, n: int) -> Any:
        return self.page.locator(f'[data-testid="lobby-seat"][data-seat="{n}"]')

    def seat_names(self) -> list[str]:
        names: list[str] = self.page.eval_on_selector_all(
            '[data-testid="lobby-seat"]',
            "els => els.sort((a, b) => a.dataset.seat - b.dataset.seat).map(e => e.dataset.kind === 'empty' ? '' : e.querySelector('[data-testid=lobby-seat-name]').textContent)",
        )
        return names

    def wait_names(self, names: list[str]) -> None:
        """Wait until the lobby shows these names (the viewer's own with " (tú)")."""
        self.page.wait_for_function(
            """(want) => {
                 const got = [...document.querySelectorAll('[data-testid=lobby-seat]')]
                   .sort((a, b) => a.dataset.seat - b.dataset.seat)
                   .map(e => e.dataset.kind === 'empty' ? '' : e.querySelector('[data-testid=lobby-seat-name]').textContent.replace(' (tú)', ''));
                 return JSON.stringify(got) === JSON.stringify(want);
               }""",
            arg=names, timeout=GUARD_MS,
        )

    def phase(self) -> str:
        return str(self.page.evaluate("document.body.dataset.phase || ''"))

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.wait_for_timeout(200)
        self.page.screenshot(path=str(ARTIFACTS / name))

    def close(self) -> None:
        self.ctx.close()


def watching_said(p: Player) -> list[str]:
    """What the page shows to say this browser watches: the notice of a table it has no seat at,
    the spectator's mark where a hand would be (each visible one's text)."""
    texts: list[str] = p.page.eval_on_selector_all(
        '[data-testid="table-notice"] [data-testid="notice-text"], [data-testid="watching"]',
        "els => els.filter((e) => e.getClientRects().length).map((e) => e.textContent)")
    return texts


def open_link(p: Player, url: str) -> None:
    p.page.goto(url)
    p.page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=GUARD_MS)


def sit_with_name(p: Player, nickname: str, seat: int) -> None:
    """A friend with no token: types only a nickname and sits."""
    p.page.fill('[data-testid="lobby-nickname"]', nickname)
    p.seat(seat).locator('[data-testid="sit"]').click()


def play_turns(players: list[Player], until: Any, label: str) -> int:
    """Click the playable tiles of whoever is on turn (and an end when asked) until ``until()``; returns the plays."""
    plays = 0
    deadline = time.monotonic() + 180
    while not until():
        assert time.monotonic() < deadline, f"{label}: the hand did not end ({[p.phase() for p in players]}, {plays} plays)"
        acted = False
        for p in players:
            page = p.page
            choice = page.locator('[data-testid="end-choice"]:visible')
            if choice.count():
                choice.first.click()
                acted = True
                continue
            if p.phase() != "play" or page.evaluate("document.body.dataset.turn") != "me":
                continue
            tile = page.locator('[data-testid="my-hand"] [data-testid="tile"][data-playable="true"]')
            if not tile.count():
                continue
            before = page.locator('[data-testid="my-hand"] [data-testid="tile"]').count()
            try:
                tile.first.click(timeout=2000)
                page.wait_for_function(
                    f"document.querySelectorAll('[data-testid=my-hand] [data-testid=tile]').length < {before}"
                    " || document.querySelector('[data-testid=end-choice]') !== null || document.body.dataset.phase !== 'play'",
                    timeout=10_000,
                )
            except Exception:
                continue  # re-drawn under the pointer: look again
            if page.locator('[data-testid="my-hand"] [data-testid="tile"]').count() < before:
                plays += 1
            acted = True
        if not acted:
            players[0].page.wait_for_timeout(40)
    return plays


# --------------------------------------------------------------------------- four friends


def test_four_friends_sit_from_the_link_move_start_and_play_a_whole_hand(browser: Any, live_server: Any) -> None:
    srv = live_server()
    host = Player(browser)
    host.ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=srv.base)
    beto, cuca, dani = Player(browser), Player(browser, phone=True, share=True), Player(browser)
    everyone = [host, beto, cuca, dani]
    try:
        # The host: the home page's "Jugar con amigos", same pickers as "¡Jugar!".
        host.page.goto(srv.base + "/")
        host.page.wait_for_function("document.querySelectorAll('[data-testid=preset] option').length > 1")
        host.page.fill('[data-testid="nickname"]', "Ana")
        friends = host.page.locator('[data-testid="friends-button"]')
        assert friends.inner_text() == "Jugar con amigos"
        with host.page.expect_request("**/api/tables") as req:
            friends.click()
        body = json.loads(req.value.post_data or "{}")
        assert body["private"] is True and body["preset"] == "cubano" and "partner_level" not in body
        host.page.wait_for_url("**/t/*")
        host.page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=GUARD_MS)
        table_id = host.page.url.rsplit("/", 1)[1]
        # The link carries the table's unguessable code (at least 96 random bits).
        link = host.page.locator('[data-testid="share-link"]').input_value()
        assert link == f"{srv.base}/t/{table_id}"
        assert re.fullmatch(r"t_[A-Za-z0-9_-]{16,}", table_id), table_id
        assert host.seat_names() == ["Ana (tú)", "", "", ""]
        assert host.page.locator('[data-testid="start"]').is_disabled()
        host.page.click('[data-testid="copy-link"]')
        host.page.wait_for_function("document.getElementById('lobby-copied').textContent.includes('copiado')", timeout=GUARD_MS)
        assert host.page.evaluate("navigator.clipboard.readText()") == link
        assert host.page.locator('[data-testid="share-button"]').is_hidden()  # no share sheet in this browser

        # The home page on a phone: both buttons in view of each other.
        cuca.page.goto(srv.base + "/")
        cuca.page.wait_for_function("document.querySelectorAll('[data-testid=preset] option').length > 1")
        assert cuca.page.locator('[data-testid="friends-button"]').is_visible()
        assert_no_hscroll(cuca.page, 360)
        ARTIFACTS.mkdir(exist_ok=True)
        cuca.page.screenshot(path=str(ARTIFACTS / "lobby-home-360.png"), full_page=True)
        # Three friends open the link: each types only a nickname and sits.
        for p in (beto, cuca, dani):
            open_link(p, link)
            assert p.page.locator('[data-testid="lobby-nickname"]').is_visible()
            assert p.page.locator('[data-testid="start"]').is_hidden()
        cuca.page.click('[data-testid="share-button"]')  # the phone's share sheet
        cuca.page.wait_for_function("window.__shared && window.__shared.url", timeout=GUARD_MS)
        assert cuca.page.evaluate("window.__shared.url") == link
        for p, name, seat in ((beto, "Beto", 1), (cuca, "Cuca", 2), (dani, "Dani", 3)):
            sit_with_name(p, name, seat)
            p.page.locator(f'[data-testid="lobby-seat"][data-seat="{seat}"] [data-testid="stand"]').wait_for(timeout=GUARD_MS)
        for p in everyone:
            p.wait_names(["Ana", "Beto", "Cuca", "Dani"])
        # Dani stands up; the host seats a neighbour of a chosen level there (the levels are the server's),
        # then empties the seat again; Dani sits back down (her browser has its token now: no name asked).
        dani.seat(3).locator('[data-testid="stand"]').click()
        host.wait_names(["Ana", "Beto", "Cuca", ""])
        levels = host.seat(3).locator('[data-testid="fill-level"] option').evaluate_all("os => os.map(o => o.value)")
        assert levels == srv.get("/api/presets").json()["levels"]
        host.seat(3).locator('[data-testid="fill-level"]').select_option("botagorda")
        host.seat(3).locator('[data-testid="fill"]').click()
        for p in everyone:
            p.page.wait_for_function(
                "document.querySelector('[data-testid=lobby-seat][data-seat=\"3\"]').dataset.kind === 'bot'", timeout=GUARD_MS)
        assert "vecino · botagorda" in beto.seat(3).inner_text()  # the level's short name: it fits a phone
        assert host.page.locator('[data-testid="start"]').is_enabled()
        host.seat(3).locator('[data-testid="clear"]').click()
        dani.page.wait_for_function(
            "document.querySelector('[data-testid=lobby-seat][data-seat=\"3\"]').dataset.kind === 'empty'", timeout=GUARD_MS)
        assert dani.page.locator('[data-testid="lobby-nickname"]').is_hidden()
        dani.seat(3).locator('[data-testid="sit"]').click()
        for p in everyone:
            p.wait_names(["Ana", "Beto", "Cuca", "Dani"])
        # Every browser kept one token, the one its sign-in got.
        tokens = {p.page.evaluate("localStorage.getItem('capicua.token')") for p in everyone}
        assert len(tokens) == 4 and None not in tokens
        assert host.page.locator('[data-testid="start"]').is_enabled()
        host.shot("lobby-full-1280.png")
        cuca.page.evaluate("window.scrollTo(0, 0)")
        cuca.shot("lobby-full-360.png")
        assert_no_hscroll(cuca.page, 360)

        # The host swaps Beto (East) and Cuca (North): partners change; everyone sees it at once.
        host.seat(1).locator('[data-testid="move"]').click()
        host.seat(2).locator('[data-testid="move-here"]').click()
        for p in everyone:
            p.wait_names(["Ana", "Cuca", "Beto", "Dani"])
        # Beto's page follows him: his seat is now North (across from his own view: at the bottom).
        beto.page.locator('[data-testid="lobby-seat"][data-seat="2"] [data-testid="stand"]').wait_for(timeout=GUARD_MS)
        assert beto.page.locator('.lring-slot--bottom [data-testid="lobby-seat"]').get_attribute("data-seat") == "2"
        assert cuca.page.locator('.lring-slot--bottom [data-testid="lobby-seat"]').get_attribute("data-seat") == "1"
        # Dani's page in English: the lobby follows the toggle.
        dani.page.click('[data-testid="lang-toggle"]')
        assert dani.seat(3).locator('[data-testid="stand"]').inner_text() == "Stand up"
        assert "Watching" in dani.page.locator('[data-testid="lobby-watchers"]').inner_text() or "Nobody" in dani.page.locator('[data-testid="lobby-watchers"]').inner_text()
        dani.page.click('[data-testid="lang-toggle"]')
        assert dani.seat(3).locator('[data-testid="stand"]').inner_text() == "Levantarme"
        # The settings: the host chooses, everyone reads them.
        host.page.select_option('[data-testid="grace"]', "60")
        dani.page.wait_for_function("document.getElementById('lobby-settings').textContent.includes('60 segundos')", timeout=GUARD_MS)

        host.page.click('[data-testid="start"]')
        for p in everyone:
            p.page.wait_for_function("document.body.dataset.phase === 'play'", timeout=GUARD_MS)
            assert p.page.locator('[data-testid="lobby"]').is_hidden()
        # Each sees the table from their own seat, their hand at the bottom.
        for p, seat, name in ((host, 0, "Ana"), (cuca, 1, "Cuca"), (beto, 2, "Beto"), (dani, 3, "Dani")):
            mine = p.page.locator('#slot-bottom [data-testid="seat"]')
            assert mine.get_attribute("data-seat") == str(seat), name
            assert mine.locator('[data-testid="seat-name"]').inner_text() == name
            assert p.page.locator('[data-testid="my-hand"] [data-testid="tile"]').count() == 10

        shots: dict[str, bool] = {}

        def hand_over() -> bool:
            if not shots and sum(p.page.locator('[data-testid="my-hand"] [data-testid="tile"]').count() for p in everyone) <= 36:
                shots["mid"] = True
                host.shot("lobby-four-humans-1280.png")
                cuca.shot("lobby-four-humans-360.png")
            return all(p.phase() in ("hand_over", "match_over") for p in everyone)

        t0 = time.monotonic()
        plays = play_turns(everyone, hand_over, "four humans")
        print(f"\nfour humans: a whole hand in {time.monotonic() - t0:.1f} s, {plays} tiles clicked")
        assert plays > 0 and shots
        summary = srv.get(f"/api/tables/{table_id}").json()
        assert summary["phase"] in ("hand_over", "match_over") and [s["name"] for s in summary["seats"]] == ["Ana", "Cuca", "Beto", "Dani"]
        for p in everyone:
            assert p.errors == [], p.errors
    finally:
        for p in everyone:
            p.close()


# --------------------------------------------------------------------------- plain refusals


def test_a_full_table_an_unknown_code_and_a_started_table_say_so(browser: Any, live_server: Any) -> None:
    srv = live_server()
    opened = srv.new_table(nickname="Ana", preset="mano-a-mano", private=True)
    tid = opened["table_id"]
    host = srv.client()
    assert host.hello(tid, opened["token"])["seat"] == 0
    fede_token = srv.post("/api/players", {"nickname": "Fede"}).json()["token"]
    fede = srv.client()
    eli = Player(browser)
    newcomer = Player(browser, phone=True)
    lost = Player(browser)
    english = Player(browser, lang="en")
    stale = Player(browser, token="a-token-from-another-server")
    players = [eli, newcomer, lost, english, stale]
    try:
        # A browser whose token this server does not know forgets it and watches: sitting asks for a name.
        open_link(stale, f"{srv.base}/t/{tid}")
        stale.page.locator('[data-testid="lobby-nickname"]').wait_for(state="visible", timeout=GUARD_MS)
        assert "unauthorized" in stale.error_codes()
        assert stale.page.evaluate("localStorage.getItem('capicua.token')") is None
        assert stale.page.locator("#fatal").is_hidden()
        stale.close()
        players.remove(stale)
        open_link(eli, f"{srv.base}/t/{tid}")
        assert eli.seat_names() == ["Ana", ""]

        def fede_sits_first(route: Any) -> None:
            # While Eli's browser signs in, Fede takes the last free seat.
            assert fede.hello(tid, fede_token)["seat"] is None
            fede.send({"type": "sit", "seat": 1})
            fede.until(lambda f: f.get("type") == "table" and f["table"]["seats"][1]["kind"] == "human")
            route.continue_()

        eli.page.route("**/api/players", fede_sits_first)
        sit_with_name(eli, "Eli", 1)
        notice = eli.page.locator('[data-testid="table-notice"]')
        notice.wait_for(state="visible", timeout=GUARD_MS)
        eli.page.wait_for_function("document.querySelector('[data-testid=table-notice]').dataset.kind === 'full'", timeout=GUARD_MS)
        assert "La mesa está completa" in notice.inner_text()
        assert notice.locator('[data-testid="notice-home"]').get_attribute("href") == "/"
        for _ in range(100):  # the refusal the page acted on (read off its socket)
            if "table_full" in eli.error_codes():
                break
            eli.page.wait_for_timeout(50)
        assert "table_full" in eli.error_codes(), eli.error_codes()
        eli.wait_names(["Ana", "Fede"])
        assert eli.page.locator('[data-testid="sit"]').count() == 0
        eli.shot("lobby-table-full-1280.png")
        # "Mirar": the same table, watching (?mirar=1): a hello that asks for no seat, and no notice left to explain.
        watch = notice.locator('[data-testid="notice-watch"]')
        assert watch.get_attribute("href") == f"/t/{tid}?mirar=1"
        with eli.page.expect_navigation():
            watch.click()
        assert eli.page.url == f"{srv.base}/t/{tid}?mirar=1"
        eli.page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=GUARD_MS)
        eli.wait_names(["Ana", "Fede"])
        assert eli.hellos()[-1]["watch"] is True
        assert notice.is_hidden() and eli.my_seat() is None
        eli.wait_status("Ya están todos sentados: esperando a que Ana empiece la partida.")

        # A guessed code, a mistyped one: unknown, plainly, with the way home; in the page's language.
        for code in ["t_" + secrets.token_urlsafe(16), "t_no!such"]:
            lost.page.goto(f"{srv.base}/t/{code}")
            fatal = lost.page.locator("#fatal")
            fatal.wait_for(state="visible", timeout=GUARD_MS)
            assert "Esa mesa no existe" in fatal.inner_text(), code
            assert fatal.locator('a[href="/"]').count() == 1
        english.page.goto(f"{srv.base}/t/t_{secrets.token_urlsafe(16)}")
        english.page.locator("#fatal").wait_for(state="visible", timeout=GUARD_MS)
        assert "That table does not exist" in english.page.locator("#fatal").inner_text()

        # The host starts: Eli, who chose to watch, watches: the mark where a hand would be, said once.
        host.send({"type": "start"})
        eli.page.wait_for_function("document.body.dataset.phase === 'play'", timeout=GUARD_MS)
        assert watching_said(eli) == ["Estás mirando — los mirones son de palo."]
        eli.shot("spectator-1280.png")
        # A newcomer to the started table watches, and the page says so, once: the notice, with "Mirar".
        newcomer.page.goto(f"{srv.base}/t/{tid}")
        newcomer.page.wait_for_function("document.body.dataset.phase === 'play'", timeout=GUARD_MS)
        text = newcomer.page.locator('[data-testid="table-notice"]').inner_text()
        assert "ya empezó" in text and "estás mirando" in text
        assert len(watching_said(newcomer)) == 1
        assert newcomer.page.locator('[data-testid="notice-watch"]').get_attribute("href") == f"/t/{tid}?mirar=1"
        assert newcomer.page.locator('[data-testid="lobby"]').is_hidden()
        assert newcomer.page.locator('[data-testid="my-hand"] [data-testid="tile"]').count() == 0
        newcomer.shot("spectator-started-360.png")
        assert_no_hscroll(newcomer.page, 360)
        # Its "Mirar": the spectator's view, the mark instead of the notice.
        newcomer.page.click('[data-testid="notice-watch"]')
        newcomer.page.wait_for_url(f"**/t/{tid}?mirar=1")
        newcomer.page.locator('[data-testid="watching"]').wait_for(timeout=GUARD_MS)
        assert len(watching_said(newcomer)) == 1
        newcomer.shot("spectator-360.png")
        for p in players:
            assert p.errors == [], p.errors
    finally:
        for p in players:
            p.close()
        host.close()
        fede.close()


# --------------------------------------------------------------------------- Otra partida


def test_otra_partida_starts_match_two_with_the_same_seats_and_a_finished_table_says_so(browser: Any, live_server: Any) -> None:
    srv = live_server()
    opened = srv.new_table(nickname="Ana", preset="mano-a-mano", private=True, options={"target": 50})
    tid = opened["table_id"]
    beto_token = srv.post("/api/players", {"nickname": "Beto"}).json()["token"]
    ana_c, beto_c = srv.client(), srv.client()
    assert ana_c.hello(tid, opened["token"])["seat"] == 0
    assert beto_c.hello(tid, beto_token)["seat"] is None
    # Each player's browser is one more tab of the same guest (the Python clients play their turns).
    ana, beto = Player(browser, token=opened["token"], phone=True), Player(browser, token=beto_token)
    late = Player(browser)
    players = [ana, beto, late]
    try:
        open_link(ana, f"{srv.base}/t/{tid}")
        ana.page.locator('[data-testid="lobby-seat"][data-seat="1"] [data-testid="fill"]').wait_for(timeout=GUARD_MS)
        ana.shot("lobby-host-360.png")
        assert_no_hscroll(ana.page, 360)
        beto_c.send({"type": "sit", "seat": 1})
        ana.wait_names(["Ana", "Beto"])
        open_link(beto, f"{srv.base}/t/{tid}")
        ana.page.locator('[data-testid="start"]').click()

        def match_end(f: dict[str, Any]) -> bool:
            return f.get("type") == "events" and any(e["event"]["kind"] == "match_end" for e in f["events"])

        ends: dict[str, dict[str, Any]] = {}
        runners = [threading.Thread(target=lambda c=c, k=k: ends.setdefault(k, drive(c, match_end)), daemon=True)
                   for c, k in ((ana_c, "ana"), (beto_c, "beto"))]
        t0 = time.monotonic()
        for r in runners:
            r.start()
        for r in runners:
            r.join(timeout=120)
        assert set(ends) == {"ana", "beto"}, "the match did not end"
        print(f"\nmatch 1 to 50 driven in {time.monotonic() - t0:.1f} s, {ana_c.view and ana_c.view['hand_number']} hands")

        # A newcomer to the finished table is told so, with the way home.
        late.page.goto(f"{srv.base}/t/{tid}")
        late.page.wait_for_function("document.querySelector('[data-testid=table-notice]').dataset.kind === 'finished'", timeout=GUARD_MS)
        assert "ya se acabó" in late.page.locator('[data-testid="table-notice"]').inner_text()
        assert late.page.locator('[data-testid="notice-watch"]').get_attribute("href") == f"/t/{tid}?mirar=1"
        assert len(watching_said(late)) == 1
        assert late.page.locator('[data-testid="rematch"]').is_hidden()  # watchers do not start matches

        # The pages play the last hand's burst of plays one effect at a time (about 0.4 s
        # each), then the end-of-match scene: on a loaded machine that alone can pass 20 s.
        for p in (ana, beto):
            p.page.locator('[data-testid="rematch"]').wait_for(state="visible", timeout=3 * GUARD_MS)
        assert beto.page.locator('[data-testid="rematch"]').inner_text() == "Otra partida · 0/2 listos"
        ana.shot("lobby-match-over-360.png")
        ana.page.click('[data-testid="rematch"]')
        # A ready check: Ana waits for Beto, and nothing starts until he says so too.
        for p in (ana, beto):
            p.page.wait_for_function("document.querySelector('[data-testid=rematch]').textContent === 'Otra partida · 1/2 listos'",
                                     timeout=GUARD_MS)
        assert ana.page.locator('[data-testid="rematch"]').is_disabled()
        assert ana.page.locator('[data-testid="rematch-status"]').inner_text() == "Estás listo. Esperando a Beto…"
        assert beto.page.locator('[data-testid="rematch"]').is_enabled()
        assert srv.get(f"/api/tables/{tid}").json()["match_number"] == 1
        beto.page.click('[data-testid="rematch"]')
        for c in (ana_c, beto_c):
            c.until(lambda f: f.get("type") == "events" and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
        summary = srv.get(f"/api/tables/{tid}").json()
        assert summary["match_number"] == 2 and summary["status"] == "playing"
        assert [s["name"] for s in summary["seats"]] == ["Ana", "Beto"]
        for p, seat, name in ((ana, 0, "Ana"), (beto, 1, "Beto")):
            p.page.wait_for_function("document.body.dataset.phase === 'play'", timeout=GUARD_MS)
            assert p.page.locator('[data-testid="libreta"]').is_hidden()
            mine = p.page.locator('#slot-bottom [data-testid="seat"]')
            assert mine.get_attribute("data-seat") == str(seat) and mine.locator('[data-testid="seat-name"]').inner_text() == name
            scores = p.page.locator('[data-testid="scores"] .score-pts').all_inner_texts()
            assert scores == ["0", "0"], scores
        late.page.wait_for_function("document.querySelector('[data-testid=table-notice]').dataset.kind === 'started'", timeout=GUARD_MS)
        for p in players:
            assert p.errors == [], p.errors
    finally:
        for p in players:
            p.close()
        ana_c.close()
        beto_c.close()


# --------------------------------------------------------------------------- my seat, the lobby's status line


def test_my_seat_follows_the_welcome_when_the_host_moves_me_or_i_move_myself(browser: Any, live_server: Any) -> None:
    """The server tells every socket whose seat changed its new seat (a welcome, then a sync):
    the page takes its seat from that alone. Beto's browser holds his token but not his
    nickname, so the TABLE's names could not tell it which seat is his; it never says hello
    again to find out. Meanwhile the lobby's status line says what the lobby waits for."""
    srv = live_server()
    opened = srv.new_table(nickname="Ana", preset="cubano", private=True)
    tid = opened["table_id"]
    beto_token = srv.post("/api/players", {"nickname": "Beto"}).json()["token"]
    ana, beto = Player(browser, token=opened["token"]), Player(browser, token=beto_token)
    everyone = [ana, beto]
    try:
        for p in everyone:
            open_link(p, f"{srv.base}/t/{tid}")
        ana.wait_my_seat(0)
        ana.wait_status("Faltan 3 jugadores")
        assert beto.my_seat() is None
        beto.wait_status("Toca «Sentarme aquí» en una silla libre.")
        beto.seat(1).locator('[data-testid="sit"]').click()
        beto.wait_my_seat(1)
        ana.wait_status("Faltan 2 jugadores")
        beto.wait_status("Faltan 2 jugadores. Cuando estén todos, Ana empieza la partida.")
        shoot_both(ana, "lobby-status-host")
        shoot_both(beto, "lobby-status-friend")
        # The host moves Beto to West: his page follows, hers stays.
        ana.seat(1).locator('[data-testid="move"]').click()
        ana.seat(3).locator('[data-testid="move-here"]').click()
        for p in everyone:
            p.wait_names(["Ana", "", "", "Beto"])
        beto.wait_my_seat(3)
        assert beto.page.locator('.lring-slot--bottom [data-testid="lobby-seat"]').get_attribute("data-seat") == "3"
        assert ana.my_seat() == "0"
        # Beto moves himself: stands up (watching), then sits across from Ana.
        beto.seat(3).locator('[data-testid="stand"]').click()
        beto.wait_my_seat(None)
        beto.seat(2).locator('[data-testid="sit"]').click()
        beto.wait_my_seat(2)
        ana.wait_names(["Ana", "", "Beto", ""])
        # The host moves herself to East: still the host, from her new seat.
        ana.seat(0).locator('[data-testid="move"]').click()
        ana.seat(1).locator('[data-testid="move-here"]').click()
        ana.wait_my_seat(1)
        beto.wait_names(["", "Ana", "Beto", ""])
        assert ana.page.locator('[data-testid="start"]').is_visible()
        assert "abrió la mesa" in beto.seat(1).inner_text()
        assert beto.my_seat() == "2"
        # Neighbours in the free seats: the table is full, the host may start.
        for seat in (0, 3):
            ana.seat(seat).locator('[data-testid="fill"]').click()
            ana.page.wait_for_function(
                f"document.querySelector('[data-testid=lobby-seat][data-seat=\"{seat}\"]').dataset.kind === 'bot'", timeout=GUARD_MS)
        ana.wait_status("Ya están todos sentados: toca «Empezar» cuando quieras.")
        beto.wait_status("Ya están todos sentados: esperando a que Ana empiece la partida.")
        beto.page.click('[data-testid="lang-toggle"]')
        beto.wait_status("Everyone is seated: waiting for Ana to start the match.")
        ana.page.click('[data-testid="lang-toggle"]')
        ana.wait_status("Everyone is seated: tap “Start” when you like.")
        # Every seat a page held, it was told (the hello's answer, then one welcome per change), in one hello each.
        assert ana.welcomed_seats() == [0, 1]
        assert beto.welcomed_seats() == [None, 1, 3, None, 2]
        assert [len(p.hellos()) for p in everyone] == [1, 1]
        for p in everyone:
            assert p.errors == [], p.errors
    finally:
        for p in everyone:
            p.close()


def shoot_both(p: Player, name: str) -> None:
    """Screenshots of the page at 1280 and 360 px (then back to 1280), to artifacts/NAME-WIDTH.png."""
    p.shot(f"{name}-1280.png")
    p.page.set_viewport_size({"width": 360, "height": 740})
    p.page.evaluate("window.scrollTo(0, 0)")
    assert_no_hscroll(p.page, 360)
    p.shot(f"{name}-360.png")
    p.page.set_viewport_size({"width": 1280, "height": 800})


def test_the_lobbys_status_line_says_when_the_connection_is_lost(browser: Any, base_url: str) -> None:
    """Before the match the table's status line is not shown: the lobby's own says the connection, in both languages."""
    ctx = browser.new_context()
    ctx.add_init_script(FAKE_WS)
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/t/t_test")
        page.wait_for_function("window.__sent && window.__sent.length > 0")
        seats = [human_seat(0, "Ana"), human_seat(1, "Beto"), {"seat": 2, "kind": "empty", "name": ""},
                 {"seat": 3, "kind": "empty", "name": ""}]
        push(page, welcome_frame(1, table_state(seats, private=True, status="lobby", host_seat=0)))
        line = page.locator('[data-testid="lobby-status"]')
        page.wait_for_function("document.querySelector('[data-testid=lobby-status]').textContent.startsWith('Faltan 2')")
        assert line.inner_text() == "Faltan 2 jugadores. Cuando estén todos, Ana empieza la partida."
        assert page.locator("#ticker").is_hidden()  # the table's status line, under the hidden board
        page.evaluate("window.__drop()")
        page.wait_for_function("document.querySelector('[data-testid=lobby-status]').dataset.conn === 'reconnecting'")
        assert line.inner_text() == "Se cayó la conexión. Reconectando…"
        page.click('[data-testid="lang-toggle"]')
        assert line.inner_text() == "Connection lost. Reconnecting…"
        page.wait_for_function("window.__sent.filter((f) => f.type === 'hello').length === 2")  # it came back
        push(page, welcome_frame(1, table_state(seats, private=True, status="lobby", host_seat=0)))
        page.wait_for_function("document.querySelector('[data-testid=lobby-status]').dataset.conn === 'open'")
        assert line.inner_text() == "2 players to go. When everyone is here, Ana starts the match."
        push(page, paused_frame(True))
        assert line.inner_text() == "The table cannot save right now: waiting a moment…"
    finally:
        ctx.close()


def test_a_token_kept_per_table_before_becomes_the_one_token(browser: Any, base_url: str) -> None:
    """A browser from before one token per browser: its token (the guest-token pref) moves to
    capicua.token, is said in the hello, and the remembered tables keep no token."""
    ctx = browser.new_context()
    ctx.add_init_script(FAKE_WS)
    ctx.add_init_script("""
      if (!sessionStorage.getItem('seeded')) {
        sessionStorage.setItem('seeded', '1');
        localStorage.removeItem('capicua.token');
        localStorage.setItem('capicua.pref.guest-token', 'tok-old');
        localStorage.setItem('capicua:table:t_old', JSON.stringify({ table_id: 't_old', token: 'tok-old', seat: 2, created: 5 }));
      }""")
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/t/t_test")
        page.wait_for_function("window.__sent && window.__sent.length > 0")
        assert sent(page)[0] == {"type": "hello", "table": "t_test", "token": "tok-old", "last_seq": 0}
        assert page.evaluate("localStorage.getItem('capicua.token')") == "tok-old"
        assert page.evaluate("localStorage.getItem('capicua.pref.guest-token')") is None
        assert json.loads(page.evaluate("localStorage.getItem('capicua:table:t_old')")) == {"table_id": "t_old", "created": 5}
    finally:
        ctx.close()
