"""Hand-written deals for the rules tests.

``given(preset, hands, ...)`` builds a match whose first hand is dealt from the
hands written in the test (``"0-9 1-2 ..."``), through the engine's supported
hook ``Match.start_hand_with_deal``; the sleeping tiles are ``sleeping`` (in
draw order) followed by every other tile in set order.
"""

from __future__ import annotations

import json
from typing import Any

from capicua.engine import Match, Play, dumps, full_set, make_rules, replay
from capicua.engine.tiles import Tile, canonical


def tile(text: str) -> Tile:
    a, b = text.split("-")
    return canonical(int(a), int(b))


def tiles(text: str) -> list[Tile]:
    return [tile(t) for t in text.split()]


def deal_for(
    max_pip: int, hands: list[str], sleeping: str = ""
) -> tuple[list[list[Tile]], list[Tile]]:
    hs = [tiles(h) for h in hands]
    first = tiles(sleeping)
    used = {t for h in hs for t in h} | set(first)
    rest = [t for t in full_set(max_pip) if t not in used]
    return hs, first + rest


def given(
    preset: str,
    hands: list[str],
    sleeping: str = "",
    opener: int | None = None,
    seed: str = "hand-written",
    present: set[int] | None = None,
    **options: Any,
) -> Match:
    rules = make_rules(preset, **options)
    match = Match(rules, seed)
    hs, sl = deal_for(rules.max_pip, hands, sleeping)
    match.start_hand_with_deal(hs, sl, opener, present)
    return match


def next_given(match: Match, hands: list[str], sleeping: str = "", opener: int | None = None) -> list[dict[str, Any]]:
    hs, sl = deal_for(match.rules.max_pip, hands, sleeping)
    return match.start_hand_with_deal(hs, sl, opener)


def play(match: Match, seat: int, text: str, end: str | None = None) -> list[dict[str, Any]]:
    """Play a tile; for the first tile of a hand, ``"9-0"`` names the ends [9, 0]."""
    a, b = text.split("-")
    return match.apply(seat, Play((int(a), int(b)), end))


def run(match: Match, script: list[tuple[int, str, str | None]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for seat, text, end in script:
        assert match.turn == seat, f"seat {match.turn} is on turn, the script says {seat} plays {text}"
        events += play(match, seat, text, end)
    return events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["kind"] for e in events]


def moves(match: Match) -> set[tuple[Tile, str | None]]:
    """Legal plays of the seat on turn as {(canonical tile, end)}."""
    out = set()
    for m in match.legal_moves():
        assert isinstance(m, Play)
        out.add((canonical(*m.tile), m.end))
    return out


def assert_replays(match: Match) -> Match:
    """The record round-trips through JSON and replays to the same state."""
    again = replay(json.loads(dumps(match)))
    assert again.record() == match.record()
    assert again.scores == match.scores
    return again
