"""Big JSON answers, written without holding the event loop.

Python's JSON encoder holds the interpreter for the whole of each call: one
call for a replay of a long match (megabytes of views) kept every table
waiting for tens of milliseconds, even from a worker thread.
:func:`json_pieces` writes a value piece by piece instead (containers down to
:data:`SPLIT_DEPTH` item by item), so a worker thread writing it lets the event
loop's thread in between pieces; :class:`GzipWriter` gzips the pieces as they
come (and lets a caller write a big answer part by part) and :func:`json_bytes`
joins them, all meant to run in a worker thread.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import Any

SPLIT_DEPTH = 4  # a replay: the body, its hands, a hand, its frames; each frame in one call
LEVEL = 6


def json_pieces(value: Any, depth: int = 0) -> Iterator[str]:
    """``value`` as compact JSON text, in pieces: containers down to :data:`SPLIT_DEPTH`
    are written item by item, so that the JSON encoder (which holds the interpreter
    for the whole of each call) never runs for long at a time and the event loop's
    thread gets its turns while it is written."""
    if depth < SPLIT_DEPTH and isinstance(value, dict) and value:
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ("," if i else "") + json.dumps(str(key)) + ":"
            yield from json_pieces(item, depth + 1)
        yield "}"
    elif depth < SPLIT_DEPTH and isinstance(value, list) and value:
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from json_pieces(item, depth + 1)
        yield "]"
    else:
        yield json.dumps(value, separators=(",", ":"))


class GzipWriter:
    """Gzipped compact JSON, written a piece at a time (:meth:`text`, :meth:`value`) so that
    a caller can build a big answer part by part and drop each part once written."""

    def __init__(self, chunk: int = 1 << 16) -> None:
        self.chunk = chunk
        self.size = 0  # bytes of JSON written so far
        self._packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
        self._out: list[bytes] = []
        self._waiting: list[bytes] = []
        self._held = 0

    def text(self, piece: str) -> None:
        """JSON text as it is (a bracket, a comma, a key)."""
        data = piece.encode()
        self._waiting.append(data)
        self._held += len(data)
        if self._held >= self.chunk:
            self._pack()

    def value(self, value: Any, depth: int = 0) -> None:
        """``value`` as JSON, in pieces (``depth``: how deep it sits in the whole answer)."""
        for piece in json_pieces(value, depth):
            self.text(piece)

    def _pack(self) -> None:
        self._out.append(self._packer.compress(b"".join(self._waiting)))
        self.size += self._held
        self._waiting, self._held = [], 0

    def finish(self) -> tuple[bytes, int]:
        """The gzipped bytes and the JSON's size before gzip."""
        self._pack()
        self._out.append(self._packer.flush())
        return b"".join(self._out), self.size


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON (UTF-8), written piece by piece."""
    return "".join(json_pieces(value)).encode()
