"""The table page's ES modules (capicua/web/js/table/, i18n/), read as files: the page
asks for every module its script imports at once (``<link rel="modulepreload">``, one
per module, none stale), and the state lives in one module. No browser."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "capicua" / "web"
JS = WEB / "js"
STATIC_IMPORT = re.compile(r"^import\s+(?:[^'\"]*?\s+from\s+)?['\"](\.{1,2}/[^'\"]+)['\"]", re.M)
MODULE_SCRIPT = re.compile(r'<script type="module" src="/static/js/([^"]+)"></script>')
PRELOAD = re.compile(r'<link rel="modulepreload" href="/static/js/([^"]+)">')


def import_graph(entry: str) -> list[str]:
    """Every module ``entry`` imports statically, itself included, by path under js/."""
    seen: list[str] = []
    todo = [JS / entry]
    while todo:
        path = todo.pop(0).resolve()
        rel = path.relative_to(JS).as_posix()
        if rel in seen:
            continue
        seen.append(rel)
        todo += [path.parent / spec for spec in STATIC_IMPORT.findall(path.read_text())]
    return seen


def test_the_table_page_preloads_exactly_the_modules_its_script_imports() -> None:
    html = (WEB / "table.html").read_text()
    scripts = MODULE_SCRIPT.findall(html)
    assert scripts == ["live.js"], scripts
    graph = import_graph("live.js")
    preloaded = PRELOAD.findall(html)
    assert len(preloaded) == len(set(preloaded)), preloaded
    assert set(preloaded) == set(graph) - {"live.js"}, (set(graph) ^ set(preloaded)) - {"live.js"}
    assert "table/main.js" in graph and "i18n/es.js" in graph and "i18n/en.js" in graph


def test_the_table_state_is_one_object_in_one_module() -> None:
    """Only table/state.js holds the table's state (S); the other table modules import it."""
    for module in sorted((JS / "table").glob("*.js")):
        text = module.read_text()
        declares = re.search(r"^(?:export )?(?:const|let|var) S\b", text, re.M)
        if module.name == "state.js":
            assert declares, "table/state.js declares S"
        else:
            assert not declares, f"{module.name} declares a state of its own"


def test_every_frame_the_server_sends_has_its_type_in_protocol_js() -> None:
    """web/js/protocol.js types every frame capicua/table/protocol.py builds, and the
    modules that read frames are type-checked against it (``// @ts-check``)."""
    server = (Path(__file__).resolve().parents[2] / "capicua" / "table" / "protocol.py").read_text()
    sent = set(re.findall(r'return \{"type": "(\w+)"', server)) | set(re.findall(r'"type": "(\w+)",\n', server))
    assert {"welcome", "sync", "events", "table", "said", "honours", "paused", "error", "pong"} <= sent, sent
    typed = set(re.findall(r"\{type: '(\w+)'", (JS / "protocol.js").read_text()))
    assert typed == sent, (sent - typed, typed - sent)
    for module in ("protocol.js", "table/state.js", "table/frames.js", "table/redeal.js"):
        assert (JS / module).read_text().startswith("// @ts-check\n"), module
    assert "import('../protocol.js').ServerFrame" in (JS / "table" / "frames.js").read_text()
