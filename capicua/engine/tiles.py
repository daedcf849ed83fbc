"""Tiles of a domino set.

A tile is a tuple ``(a, b)`` with ``a <= b`` (its canonical form). Tiles are
also numbered ``0 .. n-1`` in the order of :func:`full_set` so that the fast
path can hold a hand as a bitmask.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Tile = tuple[int, int]


def canonical(a: int, b: int) -> Tile:
    """The canonical form of the tile with halves ``a`` and ``b``."""
    return (a, b) if a <= b else (b, a)


_SETS: dict[int, tuple[Tile, ...]] = {}


def full_set(max_pip: int) -> list[Tile]:
    """Every tile of the double-``max_pip`` set, in index order.

    The tiles are the same tuple objects every time, so the hands, deals and
    lines of every match in a process share them instead of each holding
    copies (a table in memory is then a few kilobytes smaller)."""
    tiles = _SETS.get(max_pip)
    if tiles is None:
        tiles = _SETS[max_pip] = tuple((a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))
    return list(tiles)


def tile_index(tile: Tile, max_pip: int) -> int:
    """Index of a canonical tile in :func:`full_set` order."""
    a, b = tile
    # Rows before row a hold (max_pip+1) + max_pip + ... tiles.
    return a * (max_pip + 1) - a * (a - 1) // 2 + (b - a)


def pips(tile: Sequence[int]) -> int:
    """Points of a tile: the sum of its halves."""
    return int(tile[0]) + int(tile[1])


def hand_pips(tiles: Iterable[Tile]) -> int:
    return sum(a + b for a, b in tiles)


def parse_tile(raw: object, max_pip: int) -> Tile:
    """Read a tile from JSON-like input; raises ``MalformedActionError``."""
    from capicua.engine.errors import MalformedActionError

    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise MalformedActionError("a tile is a pair of numbers, like [5, 3]")
    a, b = raw
    if type(a) is not int or type(b) is not int:
        raise MalformedActionError("a tile's halves are whole numbers")
    if not (0 <= a <= max_pip and 0 <= b <= max_pip):
        raise MalformedActionError(f"a tile's halves go from 0 to {max_pip} in this set")
    return (a, b)
