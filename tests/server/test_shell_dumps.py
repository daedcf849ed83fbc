"""The shell writes frames with orjson: the text must be what ``json.dumps`` wrote
before it (the wire does not change), for every frame a table sends and for what
orjson refuses."""

from __future__ import annotations

import json
from typing import Any

from tablesim import Sim

from capicua.server.shell import dumps


def as_json_wrote(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


def test_every_frame_of_a_match_is_written_as_json_wrote_it() -> None:
    sim = Sim(seed="dumps")
    sim.join(1, "p_ana", "Ana Ñúñez")
    sim.join(2, None, "Mirón", watch=True)
    for _ in range(3):
        if sim.core.match.phase not in ("play", "redeal_question"):
            break
        sim.play_out_hand({0: 1})
    kinds = {f["type"] for _, f in sim.frames}
    assert {"welcome", "sync", "events", "table"} <= kinds
    for _, frame in sim.frames:
        assert dumps(frame) == as_json_wrote(frame)


def test_what_orjson_refuses_is_written_by_json() -> None:
    for frame in ({"type": "x", "by_seat": {0: "a"}}, {"type": "x", "n": 2**70}, {"type": "x", "name": "\ud800"}):
        assert dumps(frame) == as_json_wrote(frame)
