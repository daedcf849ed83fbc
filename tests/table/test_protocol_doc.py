"""docs/protocol.md names everything the protocol has: every intent, frame type and
error code of capicua/table/protocol.py, every event kind the engine emits and every
field of a seat's view. A new one without its documentation fails here."""

from __future__ import annotations

import re
from pathlib import Path

from capicua.engine import Match, make_rules
from capicua.table import protocol

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
ENGINE = Path(protocol.__file__).resolve().parents[1] / "engine" / "state.py"


def named(word: str) -> bool:
    return f"`{word}`" in DOC or f'"{word}"' in DOC


def test_every_intent_frame_and_code_is_documented() -> None:
    frames = set(re.findall(r'"type": "(\w+)"', Path(protocol.__file__).read_text()))
    assert frames, "no frame types found: the pattern no longer matches protocol.py"
    missing = [t for t in (*protocol.INTENT_TYPES, *sorted(frames), *(c.value for c in protocol.Code)) if not named(t)]
    assert missing == []


def test_every_event_kind_and_view_field_is_documented() -> None:
    kinds = set(re.findall(r'"kind": "(\w+)"', ENGINE.read_text()))
    assert {"play", "pass", "domino", "tranque", "hand_start"} <= kinds
    view = Match(make_rules("cubano"), seed="doc").view(0)
    ends = [k for e in view.get("ends") or [] if isinstance(e, dict) for k in e]
    missing = [w for w in (*sorted(kinds), *view, *ends) if not named(w)]
    assert missing == []
