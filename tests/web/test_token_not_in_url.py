"""The guest token never travels in a URL (issue 21: uvicorn's access log held every
player's identity, from ``/api/leaderboard?token=…``). The pages send it in the
``Authorization: Bearer`` header; the server refuses a token in a query string
(400 ``malformed``, field ``token``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_web_static as web

from capicua.server.app import WEB
from capicua.table.log import Open
from capicua.tools.bench_replay import guest_and_neighbours, store_finished

browser = web.browser
pytestmark = pytest.mark.xdist_group("browser")
WAIT_MS = 15_000  # a guard against hangs, not a timed assertion

# Ways a page could put the token in an address.
TOKEN_IN_URL = [
    re.compile(r"""[?&]token="""),  # a query string written out
    re.compile(r"""\.(?:set|append)\(\s*['"]token['"]"""),  # URLSearchParams.set('token', …)
    re.compile(r"""URLSearchParams\([^)]*\btoken\b"""),  # new URLSearchParams({token})
    re.compile(r"""(?<!Bearer )\$\{[^}]*\b(?:token|readToken\(\))[^}]*\}"""),  # a template with the token in it
]


def test_no_page_builds_a_url_with_the_token() -> None:
    files = sorted([*WEB.rglob("*.js"), *WEB.rglob("*.html")])
    assert any(f.name == "me.js" for f in files)
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith(("//", "*", "/*", "<!--")):
                continue
            found.extend(f"{path.relative_to(WEB)}:{n}: {line.strip()}" for rx in TOKEN_IN_URL if rx.search(line))
    assert found == []


def test_the_rule_finds_the_old_way() -> None:
    old = "  const q = new URLSearchParams({ board, period });\n  if (token) q.set('token', token);"
    assert any(rx.search(old) for rx in TOKEN_IN_URL)
    assert any(rx.search("fetch(`/api/leaderboard?token=${token}`)") for rx in TOKEN_IN_URL)
    assert not any(rx.search("Authorization: `Bearer ${token}`") for rx in TOKEN_IN_URL)


@pytest.mark.parametrize("path", ["/api/leaderboard", "/api/players/{player}", "/api/replay/{table}/1",
                                  "/api/analysis/{table}/1"])
def test_a_token_in_a_query_is_refused(live_server: Any, path: str) -> None:
    srv = live_server()
    r = srv.post("/api/players", {"nickname": "Ana"})
    player, token = r.json()["player"], r.json()["token"]
    table = srv.new_table("Ana", token=token)["table_id"]
    url = srv.base + path.format(player=player, table=table)
    refused = httpx.get(f"{url}?token={token}")
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "malformed" and refused.json()["error"]["field"] == "token"
    assert token not in refused.text


@pytest.mark.browser
def test_the_pages_send_the_token_in_a_header_only(live_server: Any, browser: Any, tmp_path: Path) -> None:
    srv = live_server()
    r = srv.post("/api/players", {"nickname": "Ana"})
    player, token = r.json()["player"], r.json()["token"]
    table = "t_tokenNotInUrlTable00001"
    store_finished(srv.app.state.deps.store, Open(table, "cubano", {"target": 50}, "s",
                                                   tuple(guest_and_neighbours(player))).to_json())
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(f"localStorage.setItem('capicua.token', '{token}');")
    asked: list[tuple[str, str | None]] = []
    ctx.on("request", lambda req: asked.append((req.url, req.headers.get("authorization"))))
    page = ctx.new_page()
    try:
        page.goto(f"{srv.base}/leaderboard")
        page.wait_for_selector('[data-testid="lb-me"]:not([hidden])', timeout=WAIT_MS)
        page.goto(f"{srv.base}/player/{player}")
        page.wait_for_selector('[data-testid="pf-replay"]', timeout=WAIT_MS)
        page.goto(f"{srv.base}/replay/{table}/1")
        page.wait_for_selector('[data-testid="replay-timeline"] li', timeout=WAIT_MS)
        page.wait_for_function("() => !document.querySelector('[data-testid=replay-analysis]')"
                               "?.textContent.includes('Buscando')", timeout=WAIT_MS)
    finally:
        ctx.close()
    assert asked and not [url for url, _ in asked if token in url]
    api = {re.sub(r"[?/].*", "", url.split("/api/", 1)[1]): auth for url, auth in asked if "/api/" in url}
    for name in ("leaderboard", "players", "replay", "analysis"):
        assert api.get(name) == f"Bearer {token}", (name, api)
