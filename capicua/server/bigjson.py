"""Big JSON answers, written without holding the event loop.

Python's JSON encoder holds the interpreter for the whole of each call: one
call for a replay of a long match (megabytes of views) kept every table
waiting for tens of milliseconds, even from a worker thread.
:func:`json_pieces` writes a value piece by piece instead (containers down to
:data:`SPLIT_DEPTH` item by item), so a worker thread writing it lets the event
loop's thread in between pieces; :func:`gzip_json` gzips the pieces as they
come and :func:`json_bytes` joins them, both meant to run in a worker thread.
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


def gzip_json(value: Any, chunk: int = 1 << 16) -> tuple[bytes, int]:
    """``value`` as gzipped compact JSON, and the JSON's size before gzip."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
    out: list[bytes] = []
    waiting: list[bytes] = []
    held = size = 0
    for piece in json_pieces(value):
        data = piece.encode()
        waiting.append(data)
        held += len(data)
        if held >= chunk:
            out.append(packer.compress(b"".join(waiting)))
            size, waiting, held = size + held, [], 0
    out.append(packer.compress(b"".join(waiting)))
    out.append(packer.flush())
    return b"".join(out), size + held


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON (UTF-8), written piece by piece."""
    return "".join(json_pieces(value)).encode()
