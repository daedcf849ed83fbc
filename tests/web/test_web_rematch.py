""""Otra partida" by consent in the browser (issue 21 item 1): friends at a private
table finish a match, one of them is gone, and the page shows the ready check
("Otra partida · 2/3 listos", who waits for whom) and the host's decisions for the
gone seat — a neighbour takes it, or the table goes back to its lobby.

Python websocket clients play the match for everyone (``drive``); the pages are
further tabs of the same guests (Chromium, one context per guest). Screenshots of
the ready check with one player gone at 1280 and 360 px go to /work/shots/H1a/
(outside the repository) when that folder's parent exists, else to artifacts/.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest
import test_web_lobby as lobby_web
from conftest import drive
from test_web_lobby import GUARD_MS, Player, open_link
from test_web_static import ARTIFACTS, assert_no_hscroll

browser = lobby_web.browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
SHOTS = Path("/work/shots/H1a") if Path("/work/shots").is_dir() else ARTIFACTS
DEBOUNCE_MS = 300  # a closed tab counts as a player gone after this (the server's default is 5 s)


def quick_server(live_server: Any) -> Any:
    """A live server whose tables take a closed tab for a player gone sooner: the test
    need not wait out the presence debounce."""
    srv = live_server()
    srv.tables.config = dataclasses.replace(srv.tables.config, presence_debounce_ms=DEBOUNCE_MS)
    return srv


def match_end(f: dict[str, Any]) -> bool:
    return f.get("type") == "events" and any(e["event"]["kind"] == "match_end" for e in f["events"])


def play_match(clients: list[Any]) -> None:
    """Every client plays its seat until the match is over."""
    ended: list[Any] = []
    runners = [threading.Thread(target=lambda c=c: ended.append(drive(c, match_end)), daemon=True) for c in clients]
    for r in runners:
        r.start()
    for r in runners:
        r.join(timeout=180)
    assert len(ended) == len(clients), "the match did not end"


def rematch_text(p: Player) -> str:
    return str(p.page.locator('[data-testid="rematch"]').inner_text())


def wait_rematch_text(p: Player, text: str) -> None:
    p.page.wait_for_function("(t) => document.querySelector('[data-testid=rematch]').textContent === t",
                             arg=text, timeout=3 * GUARD_MS)


def shot(p: Player, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    p.page.wait_for_timeout(300)
    p.page.screenshot(path=str(SHOTS / name))


def test_a_gone_friend_blocks_otra_partida_until_the_host_gives_the_seat_to_a_neighbour(
    browser: Any, live_server: Any
) -> None:
    srv = quick_server(live_server)
    opened = srv.new_table(nickname="Ana", preset="cubano", private=True, options={"target": 50})
    tid = opened["table_id"]
    tokens = {"Ana": opened["token"]}
    for name in ("Beto", "Carla", "Dani"):
        tokens[name] = srv.post("/api/players", {"nickname": name}).json()["token"]
    clients = {name: srv.client() for name in tokens}
    for seat, name in enumerate(tokens):
        clients[name].hello(tid, tokens[name])
        if seat:
            clients[name].send({"type": "sit", "seat": seat})
            clients[name].until(lambda f: f.get("type") == "welcome" and f["seat"] is not None)
    ana, beto = Player(browser, token=tokens["Ana"]), Player(browser, token=tokens["Beto"], phone=True)
    pages = [ana, beto]
    try:
        for p in pages:
            open_link(p, f"{srv.base}/t/{tid}")
        clients["Ana"].send({"type": "start"})
        play_match(list(clients.values()))
        clients["Dani"].close()  # Dani closed the tab as the match ended

        for p in pages:
            p.page.locator('[data-testid="rematch"]').wait_for(state="visible", timeout=3 * GUARD_MS)
        # Past the presence debounce Dani is gone: her seat waits for the host.
        ana.page.locator('[data-testid="rematch-gone"][data-seat="3"]').wait_for(timeout=GUARD_MS)
        assert rematch_text(ana) == "Otra partida · 0/3 listos"
        ana.page.click('[data-testid="rematch"]')
        beto.page.click('[data-testid="rematch"]')
        for p in pages:
            wait_rematch_text(p, "Otra partida · 2/3 listos")
            assert p.page.locator('[data-testid="rematch"]').is_disabled()
        assert ana.page.locator('[data-testid="rematch-status"]').inner_text() == "Estás listo. Esperando a Carla…"
        gone = ana.page.locator('[data-testid="rematch-gone"][data-seat="3"]')
        assert "Dani se fue de la mesa." in gone.inner_text()
        assert gone.locator('[data-testid="rematch-stand-in"]').inner_text() == "Que un vecino juegue por Dani"
        gone.locator('[data-testid="rematch-fill"]').wait_for(timeout=GUARD_MS)
        assert ana.page.locator('[data-testid="to-lobby"]').is_visible()
        # Beto is not the host: he is told who decides, and has no buttons for it.
        beto_gone = beto.page.locator('[data-testid="rematch-gone"][data-seat="3"]')
        assert "Ana decide qué hacer con su silla." in beto_gone.inner_text()
        assert beto_gone.locator("button").count() == 0 and beto.page.locator('[data-testid="to-lobby"]').count() == 0
        shot(ana, "rematch-gone-host-1280.png")
        shot(beto, "rematch-gone-360.png")
        assert_no_hscroll(beto.page, 360)
        ana.page.set_viewport_size({"width": 360, "height": 740})
        shot(ana, "rematch-gone-host-360.png")
        assert_no_hscroll(ana.page, 360)
        ana.page.set_viewport_size({"width": 1280, "height": 800})
        beto.page.locator('[data-testid="lang-toggle"]').dispatch_event('click')
        wait_rematch_text(beto, "Rematch · 2/3 ready")
        assert "Ana decides what becomes of the seat." in beto_gone.inner_text()
        beto.page.locator('[data-testid="lang-toggle"]').dispatch_event('click')

        # Carla says yes too: everyone here is ready, and still nothing starts without the host.
        clients["Carla"].send({"type": "rematch"})
        wait_rematch_text(ana, "Otra partida · 3/3 listos")
        summary = srv.get(f"/api/tables/{tid}").json()
        assert summary["status"] == "finished" and summary["match_number"] == 1 and summary["deadline"] is None
        assert summary["rematch"]["gone"] == [3]
        gone.locator('[data-testid="rematch-fill-level"]').select_option("experto")
        gone.locator('[data-testid="rematch-fill"]').click()
        for name in ("Ana", "Beto", "Carla"):
            clients[name].until(lambda f: f.get("type") == "events"
                                and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
        summary = srv.get(f"/api/tables/{tid}").json()
        assert summary["match_number"] == 2 and summary["status"] == "playing"
        assert summary["seats"][3]["kind"] == "bot" and summary["seats"][3]["level"] == "experto"
        for p in pages:
            p.page.wait_for_function("document.body.dataset.phase === 'play' || document.body.dataset.phase === 'redeal_question'",
                                     timeout=GUARD_MS)
        # Dani comes back: her seat is a neighbour's now, she watches.
        back = srv.client()
        assert back.hello(tid, tokens["Dani"])["seat"] is None
        back.close()
        for p in pages:
            assert p.errors == [], p.errors
    finally:
        for p in pages:
            p.close()
        for c in clients.values():
            c.close()


def test_the_host_takes_the_table_back_to_its_lobby_when_a_friend_is_gone(browser: Any, live_server: Any) -> None:
    srv = quick_server(live_server)
    opened = srv.new_table(nickname="Ana", preset="mano-a-mano", private=True, options={"target": 50})
    tid = opened["table_id"]
    beto_token = srv.post("/api/players", {"nickname": "Beto"}).json()["token"]
    ana_c, beto_c = srv.client(), srv.client()
    ana_c.hello(tid, opened["token"])
    beto_c.hello(tid, beto_token)
    beto_c.send({"type": "sit", "seat": 1})
    beto_c.until(lambda f: f.get("type") == "welcome" and f["seat"] == 1)
    ana = Player(browser, token=opened["token"], phone=True)
    try:
        open_link(ana, f"{srv.base}/t/{tid}")
        ana_c.send({"type": "start"})
        play_match([ana_c, beto_c])
        beto_c.close()
        ana.page.locator('[data-testid="rematch-gone"][data-seat="1"]').wait_for(timeout=3 * GUARD_MS)
        ana.page.click('[data-testid="to-lobby"]')
        # The lobby again, for match 2: Beto's seat shows him gone; the host gives it to a neighbour and starts.
        ana.page.locator('[data-testid="lobby"]').wait_for(state="visible", timeout=GUARD_MS)
        summary = srv.get(f"/api/tables/{tid}").json()
        assert summary["status"] == "lobby" and summary["match_number"] == 2 and summary["scores"] == [0, 0]
        ana.seat(1).locator('[data-testid="clear"]').click()
        ana.seat(1).locator('[data-testid="fill"]').click()
        ana.page.locator('[data-testid="start"]').click()
        ana.page.wait_for_function("document.body.dataset.lobby === 'off' && document.body.dataset.phase !== 'match_over'",
                                   timeout=GUARD_MS)
        summary = srv.get(f"/api/tables/{tid}").json()
        assert summary["status"] == "playing" and summary["match_number"] == 2 and summary["seats"][1]["kind"] == "bot"
        assert ana.errors == [], ana.errors
    finally:
        ana.close()
        ana_c.close()
        beto_c.close()


def test_the_profile_says_a_neighbour_played_for_the_player(browser: Any, live_server: Any) -> None:
    """Two matches of Beto's at a friends' table: the first his, the second played for him
    by his stand-in from the first move (he had gone): counted once, and said."""
    from standings_helpers import Table, find, seats

    srv = live_server()
    store = srv.app.state.deps.store
    ana, beto = store.create_player("Ana")[0], store.create_player("Beto")[0]
    record = find(lambda r: r["result"]["winner"] == 1)
    t = Table(store, "t_profile", seats({0: ana, 1: beto}), private=True)
    t.log({"op": "start_hand", "present": [0, 1]})
    assert t.finish(record, {"op": "action", "seat": 1, "action": {}, "by": "human"}) == [None]
    t.log({"op": "presence", "seat": 1, "online": False})
    t.rematch()
    t.log({"op": "stand_in", "seat": 1}, {"op": "controller", "seat": 1, "to": "stand_in"},
          {"op": "start_hand", "present": [0]})
    assert t.finish(record, {"op": "action", "seat": 1, "action": {}, "by": "stand_in"}) == [None]
    p = Player(browser, phone=True)
    try:
        p.page.goto(f"{srv.base}/player/{beto}")
        note = p.page.locator('[data-testid="pf-stand-ins"]')
        note.wait_for(timeout=GUARD_MS)
        assert note.inner_text() == "Un vecino jugó por Beto una partida desde el principio: no cuenta aquí."
        assert p.page.locator('[data-testid="pf-stat-matches"] dd').inner_text() == "1"
        assert p.page.locator('[data-testid="pf-match"]').count() == 1
        assert_no_hscroll(p.page, 360)
        shot(p, "profile-stand-in-360.png")
        p.page.locator('[data-testid="lang-toggle"]').click()
        p.page.wait_for_function("(t) => document.querySelector('[data-testid=pf-stand-ins]').textContent === t",
                                 arg="A neighbour played one match for Beto from the start: it is not counted here.",
                                 timeout=GUARD_MS)
        p.page.goto(f"{srv.base}/player/{ana}")
        p.page.locator('[data-testid="pf-stat-matches"]').wait_for(timeout=GUARD_MS)
        assert p.page.locator('[data-testid="pf-stand-ins"]').count() == 0
        assert p.errors == [], p.errors
    finally:
        p.close()
