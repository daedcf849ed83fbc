"""The pages and static files as the server sends them (capicua.server.http.static) and
gzip for the API's answers (capicua.server.http.compress): versioned URLs cached for a
year, pages revalidated with an ETag, gzip where the client takes it, never twice.
No browser: tests/server/test_bandwidth.py measures the same in Chromium."""

from __future__ import annotations

import gzip
import re
import shutil
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from capicua.server.app import WEB, create_app
from capicua.server.http import compress, static
from capicua.server.http.compress import GzipAnswers
from capicua.server.http.static import (
    IMMUTABLE,
    PAGES,
    read_folder,
    versioned_page,
    without_css_comments,
    without_js_comments,
)

with warnings.catch_warnings():  # Starlette would rather have httpx2, which is not a dependency
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

STATIC_URL = re.compile(r'(?:src|href)="(/static/[^"]+)"')
IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}/[^'"]+)['"]""")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The app without its lifespan: the pages, the static files and /api/phrases need no store."""
    db = tmp_path_factory.mktemp("static") / "db.sqlite3"
    return TestClient(create_app(database_url=f"sqlite:///{db}"))


@pytest.fixture(scope="module")
def version(client: Any) -> str:
    m = re.search(r"/static/v/([0-9a-f]+)/", client.get("/").text)
    assert m, "the home page names no versioned URL"
    return m.group(1)


def test_every_page_names_only_versioned_static_urls_and_each_resolves_immutable(client: Any, version: str) -> None:
    for route, name in PAGES.items():
        path = route.replace("{table_id}", "t_abc").replace("{player_id}", "p_abc")
        r = client.get(path)
        assert r.status_code == 200, path
        assert r.headers["cache-control"] == "no-cache" and r.headers["etag"], path
        urls = STATIC_URL.findall(r.text)
        assert urls, f"{name} names no static file"
        for url in urls:
            assert url.startswith(f"/static/v/{version}/"), (name, url)
            asset = client.get(url)
            assert asset.status_code == 200, url
            assert asset.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
            file = WEB / url.split("/", 4)[4]
            expected = file.read_bytes()
            if file.suffix == ".css":
                expected = without_css_comments(expected.decode()).encode()
            elif file.suffix == ".js":
                expected = without_js_comments(expected.decode()).encode()
            assert asset.content == expected, url


def test_every_module_import_resolves_under_the_version(client: Any, version: str) -> None:
    """Relative imports resolve against the importing module's URL: under the version
    prefix, the whole import graph is versioned. Every import names a file that is served."""
    js = sorted((WEB / "js").rglob("*.js"))
    seen = 0
    for module in js:
        folder = Path("/") / module.parent.relative_to(WEB)
        for spec in IMPORT.findall(without_js_comments(module.read_text())):  # as served: a JSDoc type is no import
            target = (folder / spec).resolve().as_posix()
            r = client.get(f"/static/v/{version}{target}")
            assert r.status_code == 200 and r.headers["cache-control"] == IMMUTABLE, (module.name, spec)
            seen += 1
    assert seen > 20


def test_a_page_and_an_unversioned_file_are_revalidated_with_an_etag(client: Any) -> None:
    for path in ("/t/t_abc", "/static/js/board.js", "/static/table.html"):
        first = client.get(path)
        assert first.status_code == 200 and first.headers["cache-control"] == "no-cache", path
        again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == first.headers["etag"]
    stale = client.get("/t/t_abc", headers={"If-None-Match": '"something-else"'})
    assert stale.status_code == 200 and stale.content


def test_static_files_are_gzipped_for_a_client_that_takes_gzip(client: Any, version: str) -> None:
    raw = without_js_comments((WEB / "js" / "board.js").read_text()).encode()
    url = f"/static/v/{version}/js/board.js"
    packed = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.headers["vary"] == "Accept-Encoding"
    assert packed.content == raw  # httpx undid the gzip
    assert int(packed.headers["content-length"]) < len(raw) / 2.5
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == raw
    refused = client.get(url, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "content-encoding" not in refused.headers
    page = client.get("/t/t_abc", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert page.headers["content-encoding"] == "gzip"


def test_another_version_is_served_but_not_kept_and_unknown_files_are_404(client: Any) -> None:
    r = client.get("/static/v/0123456789ab/js/board.js")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    version = re.search(r"/static/v/([0-9a-f]+)/", client.get("/").text)
    assert version
    page = client.get(f"/static/v/{version.group(1)}/table.html")  # a page is not in the version
    assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
    for path in ("/static/js/nothing.js", "/static/v/x/js/nothing.js", "/static/../pyproject.toml",
                 "/static/%2e%2e/%2e%2e/pyproject.toml", "/static/v/x/../../app.py", "/static/"):
        assert client.get(path).status_code == 404, path


def test_the_version_follows_the_files_and_a_page_load_picks_up_a_change(tmp_path: Path, monkeypatch: Any) -> None:
    web = Path(shutil.copytree(WEB, tmp_path / "web"))
    before = read_folder(web)
    (web / "table.html").write_text((web / "table.html").read_text() + "<!-- a page-only change -->")
    assert read_folder(web).version == before.version  # a page is no-cache: its change keeps the files' URLs
    (web / "js" / "dom.js").write_text((web / "js" / "dom.js").read_text() + "\n// changed\n")
    after = read_folder(web)
    assert after.version != before.version
    assert f"/static/v/{after.version}/js/live.js" in after.pages["table.html"].body.decode()

    app = TestClient(create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", web_dir=web))
    first = app.get("/t/t_abc").text
    (web / "js" / "dom.js").write_text((web / "js" / "dom.js").read_text() + "\nexport const changedAgain = 1;\n")
    monkeypatch.setattr(static, "CHECK_EVERY_S", 0.0)
    second = app.get("/t/t_abc").text
    assert first != second and "/static/v/" in second
    version = re.search(r"/static/v/([0-9a-f]+)/", second)
    assert version and app.get(f"/static/v/{version.group(1)}/js/dom.js").text.endswith("changedAgain = 1;\n")


def test_style_sheets_go_without_comments_and_keep_their_lines_and_strings() -> None:
    css = 'a { b: 1; } /* one\ntwo */ c { content: "/* kept */"; }\n/* end */d { e: \'\\\'/*\' }'
    assert without_css_comments(css) == 'a { b: 1; } \n c { content: "/* kept */"; }\nd { e: \'\\\'/*\' }'
    real = (WEB / "css" / "capicua.css").read_text()
    served = without_css_comments(real)
    assert served.count("\n") == real.count("\n") and "/*" not in served.replace('"/*', "")
    assert len(gzip.compress(served.encode(), 9)) < 0.9 * len(gzip.compress(real.encode(), 9))


def test_scripts_go_without_comments_and_keep_their_lines_strings_templates_and_regexps() -> None:
    js = ("a = b / c; // x\nd = /['`\"]/g.test(e) /* y */ ? 1 : 2;\n"
          "const s = `line\n// kept ${a /* c */ + `in ${'}'} //x`} /* kept */`;\n"
          "return/* x */value; x = '/* kept */' + \"// kept\" + /[/]\\/\\/*/.source;\n/**\n * doc\n */\nf();")
    assert without_js_comments(js) == (
        "a = b / c;\nd = /['`\"]/g.test(e) ? 1 : 2;\n"
        "const s = `line\n// kept ${a + `in ${'}'} //x`} /* kept */`;\n"
        "return value; x = '/* kept */' + \"// kept\" + /[/]\\/\\/*/.source;\n\n\n\nf();")


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to parse the scripts")
def test_every_script_served_without_comments_still_parses_and_is_smaller(tmp_path: Path) -> None:
    """Every module of the web folder, as served, is a module that node parses, with the
    source's line numbers; its gzip is smaller than the source's."""
    import subprocess

    scripts = sorted((WEB / "js").rglob("*.js"))
    for script in scripts:
        source = script.read_text()
        served = without_js_comments(source)
        assert served.count("\n") == source.count("\n") and without_js_comments(served) == served, script
        copy = tmp_path / (script.stem + ".mjs")
        copy.write_text(served)
        check = subprocess.run(["node", "--check", str(copy)], capture_output=True, text=True)
        assert check.returncode == 0, (script, check.stderr)
    source_gz = sum(len(gzip.compress(p.read_bytes(), 9)) for p in scripts)
    served_gz = sum(len(gzip.compress(without_js_comments(p.read_text()).encode(), 9)) for p in scripts)
    assert served_gz < 0.85 * source_gz, (served_gz, source_gz)


def test_versioned_page_rewrites_only_static_src_and_href() -> None:
    html = ('<link href="/static/css/a.css"><script src="/static/js/b.js"></script>'
            '<a href="/rules">x</a><img src="/static/v/old/img/c.svg"><p>/static/js/d.js</p>')
    assert versioned_page(html, "abc") == (
        '<link href="/static/v/abc/css/a.css"><script src="/static/v/abc/js/b.js"></script>'
        '<a href="/rules">x</a><img src="/static/v/old/img/c.svg"><p>/static/js/d.js</p>'
    )


# ------------------------------------------------------------------ the API's answers


def test_a_json_answer_over_a_kilobyte_is_gzipped_for_a_client_that_takes_it(client: Any) -> None:
    packed = client.get("/api/phrases", headers={"Accept-Encoding": "gzip"})
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["vary"]
    assert int(packed.headers["content-length"]) < len(packed.content) / 2
    assert packed.json()["phrases"]
    plain = client.get("/api/phrases", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.json() == packed.json()


def _tiny_app() -> TestClient:
    big = {"rows": [{"n": i, "name": f"player {i}"} for i in range(8000)]}  # ~170 KB of JSON

    async def small(request: Any) -> Response:
        return JSONResponse({"ok": True})

    async def large(request: Any) -> Response:
        return JSONResponse(big)

    async def already(request: Any) -> Response:
        body = gzip.compress(b'{"replay": "' + b"x" * 5000 + b'"}')
        return Response(body, media_type="application/json", headers={"Content-Encoding": "gzip"})

    async def binary(request: Any) -> Response:
        return Response(b"\x00" * 5000, media_type="application/octet-stream")

    routes = [Route("/small", small), Route("/large", large), Route("/already", already), Route("/binary", binary)]
    return TestClient(Starlette(routes=routes, middleware=[Middleware(GzipAnswers)]))


def test_small_binary_and_already_encoded_answers_pass_as_they_are() -> None:
    c = _tiny_app()
    assert "content-encoding" not in c.get("/small", headers={"Accept-Encoding": "gzip"}).headers
    assert "content-encoding" not in c.get("/binary", headers={"Accept-Encoding": "gzip"}).headers
    r = c.get("/already", headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"  # once: httpx's one gunzip gives the JSON back
    assert r.json() == {"replay": "x" * 5000}


def test_a_large_answer_is_gzipped_off_the_event_loop(monkeypatch: Any) -> None:
    threads: list[str] = []
    real = gzip.compress

    def spy(data: bytes, *args: Any, **kw: Any) -> bytes:
        threads.append(threading.current_thread().name)
        return real(data, *args, **kw)

    monkeypatch.setattr(compress.gzip, "compress", spy)
    c = _tiny_app()
    with c:
        loop_thread = c.portal.call(lambda: threading.current_thread().name)  # type: ignore[union-attr]
        r = c.get("/large", headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and len(r.json()["rows"]) == 8000
    assert len(threads) == 1 and threads[0] != loop_thread, (threads, loop_thread)


def test_the_replay_page_names_versioned_urls_with_its_matchs_status(tmp_path: Path) -> None:
    """The replay page answers with its match's status (here: no such table) and,
    like every page, names only versioned static URLs."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool, TestClient(
        create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", executor=pool)
    ) as c:
        r = c.get("/replay/t_nothing/1")
        assert r.status_code == 404
        assert r.headers["cache-control"] == "no-cache" and r.headers["etag"]
        urls = STATIC_URL.findall(r.text)
        assert urls and all(re.match(r"/static/v/[0-9a-f]+/", u) for u in urls), urls
