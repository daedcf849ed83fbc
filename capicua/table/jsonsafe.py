"""JSON from strangers: a loader that refuses what would hurt the server.

:func:`json.loads` recurses once per nested array or object, so a frame like
``"[" * 999 + "]" * 999`` raises :class:`RecursionError` (not a
:class:`ValueError`) deep inside the parser. :func:`loads` counts the nesting
first, with a flat scan that never recurses, and only then parses. It also
refuses ``NaN`` and ``Infinity``, which Python's parser accepts but JSON does
not have. Every refusal is a :class:`ValueError`, so a caller needs one
``except ValueError`` to answer ``malformed``.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 16  # no message of the protocol nests deeper than 3

# A JSON string (its escapes included) or a bracket. Strings are matched
# whole so that brackets inside them are not counted; the two alternatives of
# the string body never overlap, so the scan is linear.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JSONDepthError(ValueError):
    """The text nests arrays and objects deeper than allowed."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar).

    Brackets inside strings do not count. Unbalanced text gets the depth its
    opening brackets reach; the parser refuses it afterwards."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` (UTF-8 when bytes) as JSON, nested at most ``max_depth`` deep.

    Raises :class:`ValueError` (:class:`JSONDepthError` for too deep nesting,
    :class:`UnicodeDecodeError` for bytes that are not UTF-8) and nothing else."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if nesting_depth(text) > max_depth:
        raise JSONDepthError(f"JSON nested deeper than {max_depth}")
    return json.loads(text, parse_constant=_refuse_constant)
