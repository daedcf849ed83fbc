"""The pages and the static files, light on mobile data.

The web folder is read once (and again when a file in it changes): every file is
kept in memory with its gzip (level 9, made once, not per request) and an ETag.
The *version* is a digest of every file that is not a page; the pages are rewritten
so that each ``/static/…`` URL in them reads ``/static/v/<version>/…``. Under that
prefix a file is the same forever, so it is served with
``Cache-Control: public, max-age=31536000, immutable``: a phone that has the page's
files never asks for them again until they change, and then the page names new
URLs. The ES modules import each other by relative URLs, which resolve against the
importing module's URL: the prefix versions the whole import graph at once, with
no build step.

The pages (``/``, ``/t/{id}``, …) and the unversioned ``/static/…`` URLs are
``Cache-Control: no-cache`` with an ETag: a reload asks, and gets ``304 Not
Modified`` when nothing changed. A versioned URL of another version (a page from
before a deploy) gets today's file, revalidated rather than kept for a year.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
import re
import time
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from capicua.server.http.compress import takes_gzip
from capicua.server.http.deps import Deps

PAGES = {"/": "index.html", "/gente": "gente.html",
         "/t/{table_id}": "table.html", "/rules": "rules.html", "/vocab": "vocab.html",
         "/verify": "verify.html", "/leaderboard": "leaderboard.html", "/player/{player_id}": "player.html",
         "/parque": "parque.html", "/llevar": "llevar.html"}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
GZIP_MIN = 256  # bytes: smaller files go as they are (gzip's header would eat the gain)
COMPRESSIBLE = {".html", ".js", ".css", ".svg", ".json", ".txt", ".map"}
CHECK_EVERY_S = 1.0  # at most this often a page load looks at the folder for changed files
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}
# A /static/ URL in a page's src or href (not one already versioned).
_STATIC_URL = re.compile(r'((?:src|href)=")/static/(?!v/)')


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as it is served: its bytes, their gzip (None when it does not pay), an ETag."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str  # of the bytes as they are; the gzipped bytes' is etag with -gz

    @classmethod
    def of(cls, body: bytes, suffix: str) -> Asset:
        gz = None
        if suffix in COMPRESSIBLE and len(body) >= GZIP_MIN:
            gz = gzip.compress(body, compresslevel=9, mtime=0)
            if len(gz) >= len(body):
                gz = None
        media = MEDIA_TYPES.get(suffix) or mimetypes.guess_type("x" + suffix)[0] or "application/octet-stream"
        return cls(body, gz, media, '"' + hashlib.sha256(body).hexdigest()[:20] + '"')

    def response(self, request: Request, cache_control: str, status: int = 200) -> Response:
        """This file for this request: gzipped when the client takes gzip, a 304 when
        the client already has it (``If-None-Match``)."""
        use_gzip = self.gzipped is not None and takes_gzip(request.headers.get("accept-encoding", ""))
        etag = self.etag[:-1] + '-gz"' if use_gzip else self.etag
        headers = {"Cache-Control": cache_control}
        if cache_control != IMMUTABLE:  # an immutable file is never asked again: no ETag to carry
            headers["ETag"] = etag
        if self.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if status == 200 and _matches(request.headers.get("if-none-match"), self.etag):
            return Response(status_code=304, headers=headers)
        body = self.body
        if use_gzip:
            assert self.gzipped is not None
            body = self.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, status_code=status, media_type=self.media_type, headers=headers)


def _matches(header: str | None, etag: str) -> bool:
    """``If-None-Match`` names this file (either encoding's ETag, weak or strong)."""
    if not header:
        return False
    gz = etag[:-1] + '-gz"'
    for tag in header.split(","):
        tag = tag.strip().removeprefix("W/")
        if tag in (etag, gz, "*"):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The web folder at one moment: its files, its pages (rewritten) and its version."""

    version: str
    files: dict[str, Asset]  # by path inside the folder, "js/table.js"
    pages: dict[str, Asset]  # by page file name, "table.html": /static/ URLs versioned
    stamp: tuple[tuple[str, int, int], ...]  # (path, size, mtime) of every file, to notice a change


def _stamp(web: Path) -> tuple[tuple[str, int, int], ...]:
    if not web.is_dir():
        return ()
    out = []
    for path in sorted(web.rglob("*")):
        rel = path.relative_to(web).as_posix()
        if path.is_file() and not any(part.startswith(".") for part in rel.split("/")):
            st = path.stat()
            out.append((rel, st.st_size, st.st_mtime_ns))
    return tuple(out)


_READ: dict[tuple[Path, tuple[tuple[str, int, int], ...]], Snapshot] = {}  # the last reads, by folder and stamp


def read_folder(web: Path) -> Snapshot:
    """Read the web folder: every file, the version of its non-page files, the pages rewritten.
    A folder read before and unchanged since is not read (nor gzipped) again."""
    stamp = _stamp(web)
    key = (web.resolve(), stamp)
    if key in _READ:
        return _READ[key]
    raw = {rel: (web / rel).read_bytes() for rel, _, _ in stamp}
    digest = hashlib.sha256()
    for rel, body in raw.items():
        if not rel.endswith(".html"):
            digest.update(rel.encode() + b"\0" + hashlib.sha256(body).digest())
    version = digest.hexdigest()[:12]
    files, pages = {}, {}
    for rel, body in raw.items():
        if rel.endswith(".html"):
            body = versioned_page(body.decode("utf-8"), version).encode("utf-8")
        elif rel.endswith(".css"):
            body = without_css_comments(body.decode("utf-8")).encode("utf-8")
        elif rel.endswith(".js"):
            body = without_js_comments(body.decode("utf-8")).encode("utf-8")
        asset = Asset.of(body, Path(rel).suffix.lower())
        files[rel] = asset
        if "/" not in rel and rel.endswith(".html"):
            pages[rel] = asset
    snap = Snapshot(version, files, pages, stamp)
    if len(_READ) >= 4:
        _READ.clear()
    _READ[key] = snap
    return snap


def without_css_comments(css: str) -> str:
    """The style sheet without its ``/* comments */`` (a sixth of capicua.css's gzip), each
    replaced by the line breaks it held so that line numbers stay; strings are kept whole."""
    out: list[str] = []
    i, n, start = 0, len(css), 0
    while i < n:
        c = css[i]
        if c in "\"'":
            i += 1
            while i < n and css[i] != c and css[i] != "\n":
                i += 2 if css[i] == "\\" else 1
            i += 1
        elif css.startswith("/*", i):
            end = css.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out += [css[start:i], "\n" * css.count("\n", i, end)]
            i = start = end
        else:
            i += 1
    out.append(css[start:])
    return "".join(out)


# After one of these characters (or at the start) a "/" opens a regular expression, not a division.
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORDS = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
                      "do", "else", "yield", "await"}


def without_js_comments(js: str) -> str:
    """The module without its ``//`` and ``/* */`` comments (a quarter of the table page's
    scripts once gzipped: what keeps the page split in many ES modules as light as one
    file), each replaced by the line breaks it held so that line numbers in a stack
    trace stay. Strings, template literals (their ``${}`` included) and regular
    expressions are kept whole; a ``/`` is a regular expression where a division
    cannot stand (after an operator, a bracket or a keyword such as ``return``)."""
    out: list[str] = []
    i, n, start = 0, len(js), 0
    last = ""  # the last character of code before i that is not white space
    word = ""  # the last identifier before i, when it is the last code
    braces: list[str] = []  # per open "{": "code", or "template" when it opened a ${} in a template literal

    def skip_template(k: int) -> int:
        """From inside a template literal at k: past its closing backtick, or past the "${" that opens code."""
        while k < n:
            ch = js[k]
            if ch == "\\":
                k += 2
            elif ch == "`":
                return k + 1
            elif js.startswith("${", k):
                braces.append("template")
                return k + 2
            else:
                k += 1
        return k

    while i < n:
        c = js[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in "\"'":
            i += 1
            while i < n and js[i] != c and js[i] != "\n":
                i += 2 if js[i] == "\\" else 1
            i += 1
            last, word = c, ""
        elif c == "`":
            i = skip_template(i + 1)
            last, word = "`", ""
        elif js.startswith("//", i):
            end = js.find("\n", i)
            end = n if end < 0 else end  # the line break stays
            out.append(js[start:i].rstrip(" \t"))
            i = start = end
        elif js.startswith("/*", i):
            end = js.find("*/", i + 2)
            end = n if end < 0 else end + 2
            before = js[start:i].rstrip(" \t")
            breaks = js.count("\n", i, end)
            # Tokens stay apart: a one-line comment between two of them leaves a space.
            apart = before and not before.endswith("\n") and js[end:end + 1] not in ("", " ", "\t", "\r", "\n")
            out += [before, "\n" * breaks if breaks else " " if apart else ""]
            i = start = end
        elif c == "/" and (last == "" or last in _REGEX_AFTER or word in _REGEX_AFTER_WORDS):
            i += 1
            in_class = False
            while i < n and js[i] != "\n" and (in_class or js[i] != "/"):
                if js[i] == "\\":
                    i += 1
                elif js[i] == "[":
                    in_class = True
                elif js[i] == "]":
                    in_class = False
                i += 1
            i += 1
            last, word = "/", ""
        elif c == "{":
            braces.append("code")
            i += 1
            last, word = c, ""
        elif c == "}" and braces and braces[-1] == "template":
            braces.pop()
            i = skip_template(i + 1)
            last, word = "`", ""
        else:
            if c == "}" and braces:
                braces.pop()
            if c.isalnum() or c in "_$":
                j = i
                while j < n and (js[j].isalnum() or js[j] in "_$"):
                    j += 1
                word = js[i:j]
                i = j
                last = word[-1]
            else:
                i += 1
                last, word = c, ""
    out.append(js[start:])
    return "".join(out)


def versioned_page(html: str, version: str) -> str:
    """A page whose ``src="/static/…"`` and ``href="/static/…"`` read ``/static/v/<version>/…``."""
    return _STATIC_URL.sub(rf"\1/static/v/{version}/", html)


class WebAssets:
    """The web folder as served: pages, versioned and unversioned static files.

    A page load looks at the folder (at most every ``CHECK_EVERY_S``, in a worker
    thread) and reads it again when a file changed: a deploy in place, or a
    developer's edit, is served at the next page load under a new version."""

    def __init__(self, web: Path) -> None:
        self.web = web
        self.snapshot = read_folder(web)
        self._checked = time.monotonic()
        self._lock = asyncio.Lock()

    @property
    def version(self) -> str:
        return self.snapshot.version

    async def _fresh(self) -> Snapshot:
        if time.monotonic() - self._checked < CHECK_EVERY_S:
            return self.snapshot
        async with self._lock:
            if time.monotonic() - self._checked >= CHECK_EVERY_S:
                if await asyncio.to_thread(_stamp, self.web) != self.snapshot.stamp:
                    self.snapshot = await asyncio.to_thread(read_folder, self.web)
                self._checked = time.monotonic()
        return self.snapshot

    async def page(self, request: Request, name: str, status: int = 200) -> Response:
        """A page (``table.html``), its static URLs versioned; ``no-cache`` with an ETag."""
        asset = (await self._fresh()).pages.get(name)
        if asset is None:
            return Response(f"{name} is not there yet", status_code=404, media_type="text/plain")
        return asset.response(request, REVALIDATE, status)

    async def versioned(self, request: Request) -> Response:
        """``/static/v/{version}/{path}``: immutable when the version is today's."""
        snap = self.snapshot
        asset = snap.files.get(request.path_params["path"])
        if asset is None:
            raise HTTPException(status_code=404)
        path: str = request.path_params["path"]
        # A page is not in the version (it may change while the files do not): never kept.
        same = request.path_params["version"] == snap.version and not path.endswith(".html")
        return asset.response(request, IMMUTABLE if same else REVALIDATE)

    async def unversioned(self, request: Request) -> Response:
        """``/static/{path}``: revalidated at every use."""
        asset = self.snapshot.files.get(request.path_params["path"])
        if asset is None:
            raise HTTPException(status_code=404)
        return asset.response(request, REVALIDATE)


def routes(deps: Deps) -> list[BaseRoute]:
    """The pages (:data:`PAGES`; the replay's is :mod:`capicua.server.http.replay`'s) and the static files."""
    assets = deps.assets

    def page(path: str, name: str) -> Route:
        async def endpoint(request: Request) -> Response:
            return await assets.page(request, name)

        return Route(path, endpoint)

    return [
        *(page(path, name) for path, name in PAGES.items()),
        Route("/static/v/{version}/{path:path}", assets.versioned),
        Route("/static/{path:path}", assets.unversioned),
    ]
