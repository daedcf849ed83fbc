"""Browser tests of a table with friends, on the real server (issue 11, items 4–7).

Every player is a browser context of its own (its guest token in its
localStorage), at a table opened in-process with chosen seats, seed, grace
and turn timer. The tests look at what each page shows — presence, the
stand-in, the countdown, the watchers, the phrases — and at what the server
did (its table core and its log). Timers that would make a test wait (the
grace window, the turn timer) are fired from the test on the server's loop,
as if their time had come. Two short tests at the end use the fake websocket
of tests/webfake.py, for what a real table cannot be made to do on cue (a
deadline repeated, a flood of neighbours' lines). Screenshots go to artifacts/.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
import test_web_static as web
from conftest import LiveServer, drive
from test_leak import tiles_in
from test_web_static import SEATS, assert_no_hscroll, mid_view, open_table, shot
from webfake import events_frame, push, push_together, said_frame, table_frame, table_state
from webfake import human as human_seat

from capicua.table.phrases import PHRASES

# Chromium and the fake server of test_web_static, as fixtures of this module.
browser, server, base_url = web.browser, web.server, web.base_url

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion
SEED_SOUTH_OPENS = "live-4"  # with all four seats present, seat 0 (South) opens the first hand
SEED_NEIGHBOUR_OPENS = "live-0"  # with seats 0 and 2 present, seat 3 (a neighbour) opens
FREE_TEXT = "input:visible, textarea:visible, [contenteditable]:visible"  # nowhere to type a word at the table


# --------------------------------------------------------------------------- the table


def guest(srv: Any, nickname: str) -> dict[str, str]:
    """A new guest (POST /api/players): {"player", "nickname", "token"}."""
    r = srv.post("/api/players", {"nickname": nickname})
    assert r.status_code == 200, r.text
    return dict(r.json())


def human(seat: int, g: dict[str, str], stand_in: str) -> dict[str, Any]:
    """A guest's seat, with the neighbour (`stand_in`) who plays for them when they are gone."""
    return {"seat": seat, "kind": "human", "name": g["nickname"], "player": g["player"], "level": "medio",
            "character": stand_in}


def bot(seat: int, character: str) -> dict[str, Any]:
    return {"seat": seat, "kind": "bot", "name": character.title(), "level": "botagorda", "character": character}


def new_table(srv: Any, seats: list[dict[str, Any]], seed: str, grace: int = 30, turn_timer: int = 0) -> str:
    shell = srv.run(srv.tables.open("cubano", {}, seats, seed=seed, grace=grace, turn_timer=turn_timer))
    return str(shell.id)


def core(srv: Any, table_id: str) -> Any:
    return srv.tables.shells[table_id].core


def on_loop(srv: Any, fn: Callable[[], Any]) -> Any:
    """fn() run on the server's loop (the table's state is only read or changed there)."""

    async def call() -> Any:
        return fn()

    return srv.run(call())


def log_entries(srv: Any, table_id: str) -> list[dict[str, Any]]:
    return list(srv.run(srv.tables.log.load(table_id)))


def fire_timer(srv: Any, table_id: str, prefix: str) -> str:
    """Fire the table's timer whose key starts with `prefix` ("grace:0:", "turn:"), as if its time had come."""
    shell = srv.tables.shells[table_id]
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        key = on_loop(srv, lambda: next((k for k in shell._timers if k.startswith(prefix)), None))
        if key is not None:
            on_loop(srv, lambda key=key: shell._fire(key))
            return str(key)
        time.sleep(0.05)
    raise AssertionError(f"no {prefix} timer at the table")


def wait_for(pred: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_MS / 1000
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


# --------------------------------------------------------------------------- the players' pages


class Visit:
    """A browser context holding one guest's token, and its page at the table
    (every websocket frame the page received, parsed, in `frames`)."""

    def __init__(self, browser: Any, srv: Any, table_id: str, token: str | None, width: int = 1280,
                 height: int = 800, query: str = "") -> None:
        self.srv, self.table_id, self.query = srv, table_id, query
        self.ctx = browser.new_context(viewport={"width": width, "height": height})
        if token is not None:  # the guest's token, where the pages keep this browser's one token
            self.ctx.add_init_script(f"localStorage.setItem('capicua.token', {json.dumps(token)});")
        self.frames: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.page = self.open()

    def open(self) -> Any:
        page = self.ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("websocket", self._record)
        page.goto(f"{self.srv.base}/t/{self.table_id}{self.query}")
        page.wait_for_function("document.body.dataset.phase !== 'loading'", timeout=WAIT_MS)
        self.page = page
        return page

    def _record(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))

    def seat(self, s: int) -> Any:
        return self.page.locator(f'.seat[data-seat="{s}"]')

    def hand(self) -> list[str]:
        return list(self.page.eval_on_selector_all('[data-testid="tile"]', "els => els.map((e) => e.dataset.tile)"))

    def board(self) -> list[str]:
        return sorted(self.page.eval_on_selector_all('[data-testid="board"] [data-key]', "els => els.map((e) => e.dataset.key)"))

    def close(self) -> None:
        self.ctx.close()


def visits(*vs: Visit) -> Any:
    """Close every context at the end of a test, whatever happened."""

    class Closer:
        def __enter__(self) -> tuple[Visit, ...]:
            return vs

        def __exit__(self, *exc: Any) -> None:
            for v in vs:
                v.close()

    return Closer()


def play_turns(players: list[Visit], done: Callable[[], bool]) -> None:
    """The players play their turns on their pages (the first playable tile, at
    its first end) until `done()`; the neighbours play theirs."""
    deadline = time.monotonic() + 2 * WAIT_MS / 1000
    while not done():
        assert time.monotonic() < deadline, "the table did not get there"
        for v in players:
            p = v.page
            if p.is_closed() or p.evaluate("document.body.dataset.turn") != "me":
                continue
            tile = p.locator('[data-testid="tile"][data-playable="true"][aria-disabled="false"]')
            if tile.count():
                tile.first.click()
                choice = p.locator('[data-testid="end-choice"]')
                if choice.count():
                    choice.first.click()
        time.sleep(0.1)


def plays(srv: Any, table_id: str) -> int:
    return int(on_loop(srv, lambda: sum("play" in a for a in core(srv, table_id).match.hand.actions)))


def turn(srv: Any, table_id: str) -> int | None:
    return on_loop(srv, lambda: core(srv, table_id).match.turn)  # type: ignore[no-any-return]


def tile_key(t: tuple[int, int] | list[int]) -> str:
    a, b = sorted(t)
    return f"{a}-{b}"


def server_hand(srv: Any, table_id: str, seat: int) -> list[str]:
    return sorted(on_loop(srv, lambda: [tile_key(t) for t in core(srv, table_id).match.hand.hands[seat]]))


# --------------------------------------------------------------------------- presence and reconnection


def test_a_player_who_closes_the_page_comes_back_to_the_same_seat_and_position(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto = guest(srv, "Ana"), guest(srv, "Beto")
    table = new_table(srv, [human(0, ana, "pancho"), bot(1, "cuca"), human(2, beto, "mima"), bot(3, "yoli")],
                       SEED_NEIGHBOUR_OPENS)
    with visits(Visit(browser, srv, table, ana["token"]), Visit(browser, srv, table, beto["token"])) as (a, b):
        presence = b.seat(0).locator('[data-testid="presence"]')
        assert presence.get_attribute("data-connected") == "true" and "en línea" in presence.inner_text()
        # A few tiles down, and the table waits for a player (nothing moves while Ana is away).
        play_turns([a, b], lambda: plays(srv, table) >= 3 and turn(srv, table) in (0, 2))
        a.page.wait_for_function(f"document.querySelectorAll('[data-testid=board] [data-key]').length === {plays(srv, table)}")
        hand, board = a.hand(), a.board()
        assert sorted(hand) == server_hand(srv, table, 0)
        seq = on_loop(srv, lambda: core(srv, table).seq)
        a.page.close()
        # Beto sees her go: a mark and the words, not colour alone.
        b.page.wait_for_selector('.seat[data-seat="0"] [data-testid="presence"][data-connected="false"]', timeout=WAIT_MS)
        assert "sin conexión" in b.seat(0).inner_text()
        assert "seat--away" in (b.seat(0).get_attribute("class") or "")
        # She opens the link again: the same seat (hers, at the bottom), the same tiles, the same board.
        a.open()
        a.page.locator('#slot-bottom .seat[data-seat="0"]').wait_for(timeout=WAIT_MS)
        a.page.wait_for_function(f"document.querySelectorAll('[data-testid=board] [data-key]').length === {len(board)}")
        assert a.hand() == hand and a.board() == board
        assert on_loop(srv, lambda: core(srv, table).seq) == seq
        b.page.wait_for_selector('.seat[data-seat="0"] [data-testid="presence"][data-connected="true"]', timeout=WAIT_MS)
        assert a.errors == [] and b.errors == []


def test_after_a_server_restart_everyone_is_back_in_the_same_seat_at_the_same_position(
        browser: Any, live_server: Any, bot_pool: Any) -> None:
    from capicua.server.app import create_app

    srv = live_server()
    ana, beto = guest(srv, "Ana"), guest(srv, "Beto")
    table = new_table(srv, [human(0, ana, "pancho"), bot(1, "cuca"), human(2, beto, "mima"), bot(3, "yoli")],
                      SEED_NEIGHBOUR_OPENS)
    again = None
    with visits(Visit(browser, srv, table, ana["token"]), Visit(browser, srv, table, beto["token"])) as (a, b):
        try:
            play_turns([a, b], lambda: plays(srv, table) >= 2 and turn(srv, table) in (0, 2))
            for v in (a, b):
                v.page.wait_for_function(f"document.querySelectorAll('[data-testid=board] [data-key]').length === {plays(srv, table)}")
            before = [(v.hand(), v.board()) for v in (a, b)]
            srv.stop()
            for v in (a, b):
                v.page.wait_for_selector('#conn[data-status="reconnecting"]', timeout=WAIT_MS)
            # The same database on the same port: the pages reconnect by themselves, and the table loads from its log.
            app = create_app(database_url=srv.database_url, executor=bot_pool, bot_delay=(0.0, 0.0), rate_limit=(1_000_000, 1.0))
            again = LiveServer(app, srv.port, srv.database_url).start()
            for v in (a, b):
                v.page.wait_for_selector("#conn", state="hidden", timeout=2 * WAIT_MS)
            for v, seat, other in ((a, 0, 2), (b, 2, 0)):
                v.page.locator(f'#slot-bottom .seat[data-seat="{seat}"]').wait_for(timeout=WAIT_MS)
                v.page.wait_for_selector(f'.seat[data-seat="{other}"] [data-testid="presence"][data-connected="true"]',
                                         timeout=WAIT_MS)
            assert [(v.hand(), v.board()) for v in (a, b)] == before
            assert a.errors == [] and b.errors == []
        finally:
            if again is not None:
                again.stop()


def test_after_the_grace_window_a_neighbour_plays_for_the_absent_player_until_they_return(
        browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto = guest(srv, "Ana"), guest(srv, "Beto")
    table = new_table(srv, [human(0, ana, "pancho"), bot(1, "cuca"), human(2, beto, "mima"), bot(3, "yoli")],
                       SEED_NEIGHBOUR_OPENS, grace=10)
    with visits(Visit(browser, srv, table, ana["token"]), Visit(browser, srv, table, beto["token"])) as (a, b):
        play_turns([a, b], lambda: plays(srv, table) >= 1)
        a.page.close()
        b.page.wait_for_selector('.seat[data-seat="0"] [data-testid="presence"][data-connected="false"]', timeout=WAIT_MS)
        assert b.seat(0).locator('[data-testid="stand-in"]').count() == 0  # within the grace window: nobody plays for her
        fire_timer(srv, table, "grace:0:")  # the ten seconds are up
        stand_in = b.seat(0).locator('[data-testid="stand-in"]')
        stand_in.wait_for(timeout=WAIT_MS)
        assert stand_in.inner_text() == "Pancho juega por Ana"
        assert "Pancho juega por Ana" in (b.seat(0).get_attribute("aria-label") or "")
        # Beto plays on; when Ana's turn comes, Pancho plays it.
        before = plays_by(srv, table, 0, "stand_in")
        play_turns([b], lambda: plays_by(srv, table, 0, "stand_in") > before)
        # She comes back: the seat is hers again.
        a.open()
        b.page.wait_for_selector('.seat[data-seat="0"] [data-testid="presence"][data-connected="true"]', timeout=WAIT_MS)
        assert b.seat(0).locator('[data-testid="stand-in"]').count() == 0
        assert a.page.locator('#slot-bottom [data-testid="stand-in"]').count() == 0
        assert sorted(a.hand()) == server_hand(srv, table, 0)
        assert on_loop(srv, lambda: core(srv, table).seats[0].controller) == "human"
        assert a.errors == [] and b.errors == []


def plays_by(srv: Any, table_id: str, seat: int, by: str) -> int:
    """How many moves of `seat` the table's log says `by` made."""
    return sum(1 for e in log_entries(srv, table_id) if e["op"] == "action" and e["seat"] == seat and e["by"] == by)


# --------------------------------------------------------------------------- the turn timer


def test_the_turn_timer_counts_down_on_the_seat_on_turn_and_the_stand_in_plays_when_it_runs_out(
        browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto, maite, rafa = (guest(srv, n) for n in ("Ana", "Beto", "Maite", "Rafa"))
    seats = [human(0, ana, "pancho"), human(1, beto, "cuca"), human(2, maite, "mima"), human(3, rafa, "yoli")]
    table = new_table(srv, seats, SEED_SOUTH_OPENS, grace=10, turn_timer=60)
    with visits(Visit(browser, srv, table, ana["token"], width=360, height=740), Visit(browser, srv, table, beto["token"]),
                Visit(browser, srv, table, maite["token"])) as (a, b, m):
        # Rafa comes (the first hand is dealt when every player is here), then loses his connection.
        r = srv.client()
        r.hello(table, rafa["token"])
        r.close()
        fire_timer(srv, table, "grace:3:")
        pages = (a, b, m)
        for v in pages:
            v.seat(3).locator('[data-testid="stand-in"]').wait_for(timeout=WAIT_MS)
            assert v.seat(3).locator('[data-testid="stand-in"]').inner_text() == "Yoli juega por Rafa"
            # Ana opens: her turn is on the clock, shown at her seat on every screen.
            v.seat(0).locator('[data-testid="countdown"]').wait_for(state="attached", timeout=WAIT_MS)
            assert v.page.locator('[data-testid="countdown"]').count() == 1
        assert b.seat(0).locator('[data-testid="countdown"]').is_visible()
        assert m.seat(0).locator('[data-testid="countdown"]').is_visible()
        # On her phone, beside her seat card (whose own ring gives it the room).
        mine = a.page.locator('[data-testid="my-countdown"]')
        assert mine.is_visible() and re.fullmatch(r"Quedan \d+ segundos", mine.get_attribute("aria-label") or "")
        assert b.page.locator('[data-testid="my-countdown"]').count() == 0
        first = int(a.seat(0).locator('[data-testid="countdown"]').get_attribute("data-seconds") or 0)
        assert 0 < first <= 60
        a.page.wait_for_function(f"Number(document.querySelector('[data-testid=my-countdown]').dataset.seconds) < {first}",
                                 timeout=WAIT_MS)
        print(f"countdown: {first} s, then {a.page.locator('[data-testid=my-countdown]').get_attribute('data-seconds')} s")
        shot(b.page, "live-friends-countdown-standin-1280.png")
        shot(a.page, "live-friends-my-countdown-360.png")
        assert_no_hscroll(a.page, 360)
        # Time is up: Pancho plays Ana's turn (the log says timeout), and the clock moves on to Beto.
        fire_timer(srv, table, "turn:")
        wait_for(lambda: plays_by(srv, table, 0, "timeout") == 1, "the stand-in's move on time-out")
        # Ana's page says who played for her (the play event's `by`), on her status line.
        a.page.wait_for_function(
            "document.getElementById('ticker').textContent.startsWith('Se te acabó el tiempo. Pancho jugó por ti')", timeout=WAIT_MS)
        print(f"Ana's status line: {a.page.locator('#ticker').inner_text()!r}")
        for v in pages:
            v.seat(1).locator('[data-testid="countdown"]').wait_for(timeout=WAIT_MS)
            assert v.seat(0).locator('[data-testid="countdown"]').count() == 0
        assert a.page.locator('[data-testid="my-countdown"]').count() == 0
        assert re.fullmatch(r"Te quedan \d+ s", b.page.locator('[data-testid="my-countdown"] .countdown-words').inner_text())
        shot(a.page, "live-friends-countdown-standin-360.png")
        shot(b.page, "live-friends-my-countdown-1280.png")
        assert a.errors == b.errors == m.errors == []


# --------------------------------------------------------------------------- spectators


def test_a_spectator_sees_the_public_view_hears_the_phrases_and_never_a_hidden_tile(
        browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto = guest(srv, "Ana"), guest(srv, "Beto")
    table = new_table(srv, [human(0, ana, "pancho"), bot(1, "cuca"), bot(2, "mima"), bot(3, "yoli")], "live-watch")
    # Beto has no seat: he opens the link's "Mirar" (?mirar=1) before the hand is dealt.
    with visits(Visit(browser, srv, table, beto["token"], query="?mirar=1")) as (w,):
        with visits(Visit(browser, srv, table, ana["token"])) as (a,):
            a.page.locator('[data-testid="watchers"]').wait_for(timeout=WAIT_MS)
            assert a.page.locator('[data-testid="watchers"]').inner_text() == "1 mirando"
            assert next(f for f in w.sent if f["type"] == "hello")["watch"] is True
            assert next(f for f in w.frames if f.get("type") == "welcome")["seat"] is None
            # Ana plays her hand from a second socket; her page and Beto's watch it.
            c = srv.client()
            c.hello(table, ana["token"])
            c.send({"type": "say", "phrase": "hola"})
            bubble = w.page.locator('[data-testid="chat-bubble"][data-by="player"]')
            bubble.wait_for(timeout=WAIT_MS)
            assert bubble.inner_text().startswith("Ana: ¡Buenas, mi gente!")
            assert "Evening, everyone!" in bubble.inner_text()
            # The public view: a mark, seat 0 at the bottom, no hand, and no word. It says once that he watches.
            assert w.page.locator('[data-testid="watching"]').inner_text() == "Estás mirando — los mirones son de palo."
            assert watching_shown(w) == 1
            assert w.page.locator('#slot-bottom .seat[data-seat="0"]').count() == 1
            assert w.page.locator('[data-testid="tile"]').count() == 0
            assert not w.page.locator('[data-testid="talk-btn"]').is_visible()
            assert w.page.locator(FREE_TEXT).count() == 0
            shot(w.page, "live-spectator-1280.png")
            # A second spectator, on a phone, with no token at all (it watches): the players see two.
            with visits(Visit(browser, srv, table, None, width=360, height=740)) as (w2,):
                a.page.wait_for_function("document.querySelector('[data-testid=watchers]').dataset.n === '2'",
                                         timeout=WAIT_MS)
                assert a.page.locator('[data-testid="watchers"]').inner_text() == "2 mirando"
                assert watching_shown(w2) == 1  # no ?mirar=1: the notice of a started table says it, the mark does not
                assert "estás mirando" in w2.page.locator('[data-testid="table-notice"]').inner_text()
                # A phone's header has no room: its status line says how many watch.
                assert w2.page.locator('[data-testid="watchers-line-chip"]').inner_text() == "2 mirando"
                assert not w2.page.locator('[data-testid="watchers"]').is_visible()
                assert w2.page.locator('[data-testid="tile"]').count() == 0
                assert_no_hscroll(w2.page, 360)
                w2.page.wait_for_timeout(300)
                shot(w2.page, "live-spectator-360.png")
                assert w2.errors == []
            hands = on_loop(srv, lambda: [list(h) for h in core(srv, table).match.hand.initial])
            drive(c, lambda f: f.get("type") == "events" and f["view"]["phase"] in ("hand_over", "match_over"))
            c.close()
            w.page.wait_for_function("['hand_over', 'match_over'].includes(document.body.dataset.phase)", timeout=WAIT_MS)
            assert a.errors == []
        scanned = scan_spectator_frames(w.frames, hands)
        print(f"spectator frames scanned before the hand was over: {scanned}")
        assert w.errors == []


def watching_shown(v: Visit) -> int:
    """How many things on the page say this browser watches: the notice of a table it has no
    seat at, the spectator's mark where a hand would be (the visible ones)."""
    n: int = v.page.eval_on_selector_all('[data-testid="table-notice"], [data-testid="watching"]',
                                         "els => els.filter((e) => e.getClientRects().length).length")
    return n


def scan_spectator_frames(frames: list[dict[str, Any]], initial: list[list[list[int]]]) -> int:
    """Every frame before the hand is over holds no tile of any hand but those
    already played (the play events it carries included); returns how many it read."""
    dealt = {tuple(sorted(t)) for h in initial for t in h}
    played: set[tuple[int, int]] = set()
    scanned = 0
    for f in frames:
        if f.get("type") == "events":
            played |= {tuple(sorted(e["event"]["tile"])) for e in f["events"] if e["event"]["kind"] == "play"}
        view = f.get("view") or {}
        if view.get("phase") in ("hand_over", "match_over"):
            break
        assert "hand" not in view, f"a spectator was sent a hand: {f}"
        leaked = (tiles_in(f) & dealt) - played
        assert not leaked, f"a spectator was sent {leaked} of a hand before it was over: {f}"
        scanned += 1
    else:
        raise AssertionError("the spectator never saw the hand end")
    assert played and scanned > 10, (played, scanned)
    return scanned


def test_the_spectator_scan_catches_a_hidden_tile() -> None:
    """The scan above can fail: a frame carrying a tile still in a hand is caught."""
    hands = [[[1, 2], [3, 4]], [[5, 6]]]
    leak = [{"type": "said", "seq": 1, "es": "", "en": "", "x": [6, 5]}]
    with pytest.raises(AssertionError, match="before it was over"):
        scan_spectator_frames(leak, hands)


# --------------------------------------------------------------------------- table talk


def test_a_phrase_from_the_palette_reaches_every_screen_and_spam_is_throttled(browser: Any, live_server: Any) -> None:
    srv = live_server()
    ana, beto = guest(srv, "Ana"), guest(srv, "Beto")
    table = new_table(srv, [human(0, ana, "pancho"), bot(1, "cuca"), human(2, beto, "mima"), bot(3, "yoli")],
                       SEED_NEIGHBOUR_OPENS)
    with visits(Visit(browser, srv, table, ana["token"]), Visit(browser, srv, table, beto["token"], width=360, height=740)) as (a, b):
        # The table waits for a player: nothing else is said meanwhile.
        play_turns([], lambda: turn(srv, table) in (0, 2))
        a.page.click('[data-testid="talk-btn"]')
        palette = a.page.locator('[data-testid="talk-palette"]')
        palette.wait_for(timeout=WAIT_MS)
        # The palette opens at once and fills when /api/phrases answers (slow on a loaded machine).
        a.page.wait_for_function(f"document.querySelectorAll('[data-testid=talk-palette] [data-testid=phrase]').length >= {len(PHRASES)}",
                                 timeout=WAIT_MS)
        assert palette.locator('[data-testid="phrase"]').count() == len(PHRASES)
        agua = palette.locator('[data-phrase="agua"]')
        assert agua.locator(".phrase-es").inner_text() == "¡Agua!" and agua.locator(".phrase-en").inner_text() == "Shuffle up!"
        assert a.page.locator(FREE_TEXT).count() == 0
        shot(a.page, "live-talk-palette-1280.png")
        agua.click()
        assert palette.is_hidden()
        for v in (a, b):
            bubble = v.page.locator('[data-testid="chat-bubble"][data-by="player"][data-seat="0"]')
            bubble.wait_for(timeout=WAIT_MS)
            assert bubble.locator(".bubble-es").inner_text() == "Ana: ¡Agua!"
            assert bubble.locator(".bubble-en").inner_text() == "Shuffle up!"
        shot(b.page, "live-talk-bubble-360.png")
        # Three phrases in ten seconds; the fourth is refused: "Más despacio…", and nothing is said.
        for phrase in ("se_enfria", "emoji_cafe", "bien_jugado"):
            a.page.click('[data-testid="talk-btn"]')
            palette.locator(f'[data-phrase="{phrase}"]').click()
        toast = a.page.locator('[data-testid="toast"][data-code="too_fast"]')
        toast.wait_for(timeout=WAIT_MS)
        assert toast.inner_text().startswith("Más despacio")
        said = [e["phrase"] for e in log_entries(srv, table) if e["op"] == "say"]
        assert said == ["agua", "se_enfria", "emoji_cafe"]
        b.page.wait_for_timeout(300)
        heard = [f["phrase"] for f in b.frames if f.get("type") == "said" and f["by"] == "player"]
        assert heard == said
        assert a.errors == [] and b.errors == []


# --------------------------------------------------------------------------- on the fake websocket


def test_a_repeated_deadline_keeps_its_count_and_one_for_a_seat_not_on_turn_is_not_shown(browser: Any, base_url: str) -> None:
    deadline = {"seat": 0, "at": 1_900_000_000_000, "ms": 15_000}
    table = table_state(SEATS, settings={"grace": 30, "turn_timer": 15}, deadline=deadline)
    ctx, page = open_table(browser, base_url, view=mid_view(), table=table)  # my turn
    try:
        assert page.locator('.seat[data-seat="0"] [data-testid="countdown"]').get_attribute("data-seconds") == "15"
        page.wait_for_function("Number(document.querySelector('[data-testid=my-countdown]').dataset.seconds) <= 13",
                               timeout=WAIT_MS)
        # The same deadline again (someone came to watch): the count goes on, it does not start over.
        push(page, table_frame(17, {**table, "watchers": 1}))
        page.wait_for_timeout(450)  # a repaint or two of every ring
        again = [int(page.locator(f"[data-testid={t}]").get_attribute("data-seconds") or 99) for t in ("countdown", "my-countdown")]
        print(f"after the repeated deadline: {again} s left")
        assert max(again) <= 13
        # My turn is over (the events come a moment before the table frame that moves the deadline): no count.
        push(page, events_frame(18, [{"kind": "pass", "seat": 0, "numbers": [6, 1]}], {**mid_view(), "turn": 1, "legal": []}))
        assert page.locator('[data-testid="countdown"], [data-testid="my-countdown"]').count() == 0
        push(page, table_frame(18, {**table, "deadline": {**deadline, "seat": 1, "at": deadline["at"] + 9000}}))
        assert page.locator('.seat[data-seat="1"] [data-testid="countdown"]').get_attribute("data-seconds") == "15"
        assert page.locator('[data-testid="my-countdown"]').count() == 0
        push(page, table_frame(18, {**table, "deadline": None}))
        assert page.locator('[data-testid="countdown"], [data-testid="my-countdown"]').count() == 0
        assert page.errors == []
    finally:
        ctx.close()


def test_a_players_phrase_is_never_dropped_for_the_neighbours_lines(browser: Any, base_url: str) -> None:
    seats = [SEATS[0], SEATS[1], human_seat(2, "Yoli"), SEATS[3]]
    ctx, page = open_table(browser, base_url, table=table_state(seats))
    try:
        def line(seat: int, n: int) -> dict[str, Any]:
            name = seats[seat]["name"]
            return said_frame(17, seat, f"Línea {n}", f"Line {n}", name=name, phrase="rival_pass")

        agua = said_frame(17, 2, "¡Agua!", "Shuffle up!", name="Yoli", phrase="agua", by="player")
        # Two lines show, the rest wait for room: the newest two of the neighbours', and Yoli's phrase.
        push_together(page, [line(1, 1), line(3, 2), line(1, 3), line(3, 4), agua, line(1, 5), line(3, 6), line(1, 7)])
        bubble = page.locator('[data-testid="chat-bubble"][data-by="player"]')
        bubble.wait_for(timeout=WAIT_MS)
        assert bubble.locator(".bubble-es").inner_text() == "Yoli: ¡Agua!"
        assert bubble.locator(".bubble-en").inner_text() == "Shuffle up!"
        assert page.errors == []
    finally:
        ctx.close()


def test_the_player_on_the_clock_is_told_ten_seconds_before_it_runs_out(browser: Any, base_url: str) -> None:
    deadline = {"seat": 0, "at": 1_900_000_000_000, "ms": 10_600}
    table = table_state(SEATS, settings={"grace": 30, "turn_timer": 15}, deadline=deadline)
    ctx, page = open_table(browser, base_url, view=mid_view(), table=table)  # my turn, 10.6 s left
    try:
        page.wait_for_function("document.querySelector('[data-testid=announcer]').textContent.includes('Te quedan 10 segundos')",
                               timeout=WAIT_MS)
        assert "si no juegas, tu vecino juega por ti" in page.locator("#ticker").inner_text()
        assert page.errors == []
    finally:
        ctx.close()


def test_a_play_a_stand_in_made_for_me_says_so_in_both_languages(browser: Any, base_url: str) -> None:
    """The play event says who made it (docs/protocol.md, `by`): the page words a stand-in's
    play for me ("Yoli jugó por ti"), live and when the page catches up after a drop."""
    ctx, page = open_table(browser, base_url, view=mid_view())  # my turn, seq 17
    try:
        def ticker_says(text: str) -> None:
            page.wait_for_function("(t) => document.getElementById('ticker').textContent === t", arg=text, timeout=WAIT_MS)

        yoli = {"name": "Yoli", "character": "yoli"}
        hand = [t for t in mid_view()["hand"] if t != [1, 4]]
        # The board after each play (a play is said by the number of the end it went on: "al 1", "al doble 6").
        after = {**mid_view(), "hand": hand, "legal": [], "turn": 1, "arms": {"left": [[5, 6], [6, 6]], "right": [[3, 1], [1, 4]]},
                 "ends": [{"end": "left", "value": 6, "double": True, "outcome": 6}, {"end": "right", "value": 4, "double": False, "outcome": 4}]}
        # My time ran out: my stand-in played my turn.
        timed = {"kind": "play", "seat": 0, "tile": [1, 4], "end": "right", "by": "timeout", "stand_in": yoli}
        push(page, events_frame(18, [timed], after))
        ticker_says("Se te acabó el tiempo. Yoli jugó por ti el 1-4 al 1.")
        page.click('[data-testid="lang-toggle"]')
        ticker_says("Your time ran out. Yoli played for you: 1-4 on the 1.")
        # A neighbour's own play is not "for me".
        push(page, events_frame(19, [{"kind": "play", "seat": 1, "tile": [4, 4], "end": "right", "by": "bot"}],
                                {**after, "turn": 2, "arms": {"left": [[5, 6], [6, 6]], "right": [[3, 1], [1, 4], [4, 4]]}}))
        ticker_says("Pancho plays double 4 on the 4.")
        # Back after a drop: the events missed come replayed; two of them my stand-in's plays for me.
        page.evaluate("window.__drop()")
        page.wait_for_function("window.__sent.filter((f) => f.type === 'hello').length === 2", timeout=WAIT_MS)
        missed = [{"kind": "play", "seat": 2, "tile": [4, 2], "end": "right", "by": "bot"},
                  {"kind": "play", "seat": 3, "tile": [2, 3], "end": "right", "by": "bot"},
                  {"kind": "play", "seat": 0, "tile": [3, 5], "end": "right", "by": "stand_in", "stand_in": yoli},
                  {"kind": "pass", "seat": 1, "numbers": [5, 6], "by": "auto"},
                  {"kind": "play", "seat": 2, "tile": [5, 5], "end": "right", "by": "bot"},
                  {"kind": "play", "seat": 3, "tile": [5, 0], "end": "right", "by": "bot"},
                  {"kind": "play", "seat": 0, "tile": [0, 6], "end": "right", "by": "stand_in", "stand_in": yoli}]
        push(page, events_frame(20, missed, {**after, "turn": 1, "hand": [[6, 1], [2, 2], [9, 9], [8, 8]]},
                                replayed=True))
        ticker_says("While you were away, Yoli played for you: 2 tiles.")
        page.click('[data-testid="lang-toggle"]')
        ticker_says("Mientras no estabas, Yoli jugó por ti: 2 fichas.")
        # My own play is mine.
        push(page, events_frame(27, [{"kind": "play", "seat": 0, "tile": [6, 1], "end": "left", "by": "human"}],
                                {**after, "turn": 1, "arms": {"left": [[5, 6], [6, 6], [6, 1]], "right": [[3, 1], [1, 4]]}}))
        ticker_says("Juegas el 6-1 al doble 6.")
        assert page.errors == []
    finally:
        ctx.close()
