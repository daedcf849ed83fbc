"""Light on mobile data (issue 21, item 4): what a phone downloads, measured in a
real Chromium and bounded by byte budgets, with the numbers printed.

The server runs with the production settings (``capicua.server.runtime.edge.uvicorn_config``:
websocket compression included) behind :class:`WireMeter`, a TCP relay that counts the
bytes each connection carries on the wire (headers, websocket framing, after
compression). A counter in front of the app counts the requests that reach it.

- a cold table page (an empty cache) is at most ``COLD_PAGE_BUDGET`` bytes;
- a warm reload reaches the server at most ``WARM_RELOAD_REQUESTS`` times
  (the page itself, its socket, the API it reads: versioned assets come from the cache);
- a whole cubano match costs a player's socket at most ``MATCH_WS_BUDGET`` bytes.

Run with ``-s`` to see the numbers: ``.venv/bin/pytest -q -s tests/server/test_bandwidth.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import WSClient
from edgeserver import EdgeServer

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

CHROMIUM = os.environ.get("CAPICUA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")

COLD_PAGE_BUDGET = 100_000  # bytes on the wire for a table page with an empty cache
WARM_RELOAD_REQUESTS = 5  # requests that reach the server when the page is reloaded
MATCH_WS_BUDGET = 120_000  # bytes on the wire of one player's socket for a whole cubano match
MATCH_SEED = "bandwidth-1"  # a cubano match of 6 hands to 100 (the example was 6 hands)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, bot_pool: Any) -> Iterator[EdgeServer]:
    """The server of a fresh deploy: its web folder copied just now (files as new as
    a deploy's, so that no cache can guess they are old and keep them)."""
    from capicua.server.app import WEB, create_app

    tmp = tmp_path_factory.mktemp("bandwidth")
    web = shutil.copytree(WEB, tmp / "web", copy_function=shutil.copy)
    app = create_app(database_url=f"sqlite:///{tmp / 'db.sqlite3'}", executor=bot_pool, bot_delay=(0.0, 0.0),
                     rate_limit=(1_000_000, 1.0), web_dir=web)
    srv = EdgeServer(app)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _player_context(browser: Any, token: str) -> Any:
    """A phone's browser that holds this guest's token (as after "Jugar"), with an empty cache."""
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    ctx.add_init_script(f"try {{ localStorage.setItem('capicua.token', {json.dumps(token)}); }} catch (_) {{}}")
    return ctx


class Transfers:
    """What Chromium's network layer reports for a page (CDP ``Network``): per request,
    the bytes it took on the wire (``encodedDataLength``: headers and body as sent)."""

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.urls: dict[str, str] = {}
        self.bytes: dict[str, int] = {}
        self.cached: set[str] = set()
        self.ws_received = 0  # payload bytes of websocket messages, as the page read them (decompressed)
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.requestServedFromCache", lambda e: self.cached.add(e["requestId"]))
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.on("Network.webSocketFrameReceived", self._ws_frame)
        self.cdp.send("Network.enable")

    def _sent(self, e: dict[str, Any]) -> None:
        self.urls[e["requestId"]] = e["request"]["url"]

    def _finished(self, e: dict[str, Any]) -> None:
        self.bytes[e["requestId"]] = int(e["encodedDataLength"])

    def _ws_frame(self, e: dict[str, Any]) -> None:
        self.ws_received += len(e["response"]["payloadData"].encode("utf-8"))

    def total(self) -> int:
        return sum(self.bytes.values())

    def report(self, label: str) -> None:
        print(f"\n[{label}] {len(self.urls)} requests, {self.total() / 1000:.1f} kB on the wire "
              f"({len(self.cached)} from the cache)")
        for rid, url in self.urls.items():
            note = " (cache)" if rid in self.cached else ""
            print(f"    {self.bytes.get(rid, 0):>7}  {url}{note}")


def _wait_table(page: Any) -> None:
    page.wait_for_function("['play', 'hand_over', 'match_over'].includes(document.body.dataset.phase)",
                           timeout=30_000)


# ------------------------------------------------------------------ tests


@needs_chromium
def test_a_cold_table_page_is_light_and_a_warm_reload_barely_reaches_the_server(server: EdgeServer, browser: Any) -> None:
    table = server.new_table()
    ctx = _player_context(browser, table["token"])
    page = ctx.new_page()
    cold = Transfers(page)
    page.goto(server.base + table["url"], wait_until="networkidle")
    _wait_table(page)
    page.wait_for_load_state("networkidle")
    cold.report("cold table page")
    cold_bytes = cold.total()
    cold.cdp.detach()
    static = [w for w in server.meter.wires if not w.websocket]
    print(f"    relay: {sum(w.down for w in static) / 1000:.1f} kB down on {len(static)} HTTP connections")

    server.app.seen.clear()
    warm = Transfers(page)
    page.reload(wait_until="networkidle")
    _wait_table(page)
    page.wait_for_load_state("networkidle")
    reached = list(server.app.seen)
    warm.report("warm reload")
    print(f"    reached the server: {len(reached)}: {reached}")
    ctx.close()
    assert cold_bytes <= COLD_PAGE_BUDGET, f"a cold table page took {cold_bytes} bytes"
    assert len(reached) <= WARM_RELOAD_REQUESTS, reached


def _play_out(client: WSClient, seat: int) -> int:
    """Play the seat's first legal move whenever it is on turn, and say "Siguiente mano"
    after each hand, until the match is over. Returns the hands played."""
    hands = 0
    deadline = time.monotonic() + 300  # a guard against a hung match, not a timed assertion
    asked: tuple[int, int] | None = None
    while time.monotonic() < deadline:
        frame = client.recv()
        view = client.view
        if view is None or frame.get("type") not in ("events", "sync"):
            continue
        key = (view["hand_number"], client.seq)
        if view["phase"] == "match_over":
            return hands + 1
        if view["phase"] == "hand_over" and asked != key:
            asked = key
            hands += 1
            client.send({"type": "next_hand", "seq": client.seq})
        elif view["phase"] in ("play", "redeal_question") and view["turn"] == seat and view["legal"] and asked != key:
            asked = key
            move = view["legal"][0]
            if "redeal" in move:
                client.send({"type": "redeal", "seq": client.seq, "accept": move["redeal"]})
            else:
                client.send({"type": "play", "seq": client.seq, "tile": move["tile"], "end": move["end"]})
    raise AssertionError("the match did not end")


@needs_chromium
def test_a_whole_cubano_match_costs_a_player_little_websocket_traffic(server: EdgeServer, browser: Any) -> None:
    """The player's page (Chromium) follows a whole cubano match to 100 against the
    neighbours; the same player's second socket (a Python client, as a second tab)
    makes the moves. Both sockets get every frame of the seat."""
    table = server.seeded_table(MATCH_SEED)
    since = len(server.meter.wires)
    ctx = _player_context(browser, table["token"])
    page = ctx.new_page()
    transfers = Transfers(page)
    page.goto(server.base + table["url"], wait_until="load")
    _wait_table(page)
    client = WSClient(f"ws://127.0.0.1:{server.meter.port}/ws")
    try:
        welcome = client.hello(table["table_id"], table["token"])
        assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
        hands = _play_out(client, 0)
        page.wait_for_function("document.body.dataset.phase === 'match_over'", timeout=60_000)
        raw = sum(len(json.dumps(f, separators=(",", ":"), ensure_ascii=False).encode()) for f in client.frames)
    finally:
        client.ws.close()
    page.wait_for_timeout(300)
    ctx.close()
    wires = server.meter.sockets(since)
    for w in wires:
        w.done.wait(10)
    chromium = [w for w in wires if "Chrome" in w.user_agent]
    python = [w for w in wires if "Chrome" not in w.user_agent]
    assert len(chromium) == 1 and len(python) == 1, [(w.user_agent, w.down) for w in wires]
    print(f"\n[a whole cubano match, {hands} hands] one player's socket, bytes from the server on the wire:")
    print(f"    Chromium: {chromium[0].down / 1000:.1f} kB on the wire, {transfers.ws_received / 1000:.1f} kB of JSON "
          f"read by the page ({chromium[0].up / 1000:.1f} kB up)")
    print(f"    Python client: {python[0].down / 1000:.1f} kB on the wire, {raw / 1000:.1f} kB of JSON")
    assert chromium[0].down <= MATCH_WS_BUDGET, chromium[0].down
    assert python[0].down <= MATCH_WS_BUDGET, python[0].down
