"""capicua.table.jsonsafe: deep nesting, NaN and bad bytes are ValueErrors, never RecursionError."""

from __future__ import annotations

import json

import pytest

from capicua.table import jsonsafe


def test_plain_json_parses_as_the_standard_parser_does() -> None:
    for text in ('{"type": "hello", "table": "t_1", "last_seq": 0}', "[1, [2, [3]]]", '"x"', "5", "null",
                 '{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', '{"a": "\\"[[["}'):
        assert jsonsafe.loads(text) == json.loads(text)
    assert jsonsafe.loads(b'{"nickname": "Ana \xc3\xb1"}') == {"nickname": "Ana ñ"}


def test_the_depth_counts_brackets_outside_strings_only() -> None:
    assert jsonsafe.nesting_depth("5") == 0
    assert jsonsafe.nesting_depth('{"a": [1, {"b": []}]}') == 4
    assert jsonsafe.nesting_depth('["]]]][[[[", "\\"[[["]') == 1


def test_the_standard_parser_recurses_on_deep_nesting() -> None:
    """Why the module exists: json.loads raises RecursionError, which no ``except ValueError`` catches."""
    with pytest.raises(RecursionError):
        json.loads("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("depth", [17, 999, 100_000])
def test_too_deep_nesting_is_a_value_error(depth: int) -> None:
    with pytest.raises(jsonsafe.JSONDepthError):
        jsonsafe.loads("[" * depth + "]" * depth)
    with pytest.raises(ValueError):
        jsonsafe.loads('{"a":' * depth + "1" + "}" * depth)


def test_the_limit_is_a_parameter() -> None:
    assert jsonsafe.loads("[[[]]]", max_depth=3) == [[[]]]
    with pytest.raises(ValueError):
        jsonsafe.loads("[[[]]]", max_depth=2)
    assert jsonsafe.loads("[" * 16 + "]" * 16) is not None  # the default allows 16


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "{not json", b"\xff\xfe", "[" * 10])
def test_what_is_not_json_is_a_value_error(text: str | bytes) -> None:
    with pytest.raises(ValueError):
        jsonsafe.loads(text)
