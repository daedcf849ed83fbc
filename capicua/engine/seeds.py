"""Seeds and deals.

All randomness of a match comes from its seed (a string). Each hand gets its
own seed, derived from the match seed with SHA-256 so that revealing a
hand's seed after the hand says nothing about the next one. Before a hand
the table publishes ``sha256(hand_seed)``; after it, the seed itself, and
:func:`deal_from_seed` recomputes the deal so anyone can check it.
"""

from __future__ import annotations

import hashlib
import random

from capicua.engine.tiles import Tile, full_set


def hand_seed(match_seed: str, hand_number: int) -> str:
    """The seed of hand ``hand_number`` (1-based) of a match."""
    return hashlib.sha256(f"capicua/hand/{match_seed}/{hand_number}".encode()).hexdigest()


def setup_seed(match_seed: str) -> str:
    """The seed of the draws made before the first hand (who opens)."""
    return hashlib.sha256(f"capicua/setup/{match_seed}".encode()).hexdigest()


def seed_hash(seed: str) -> str:
    """The commitment published before a hand: ``sha256(seed)`` in hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


def shuffled_set(rng: random.Random, max_pip: int) -> list[Tile]:
    """One shuffle of the whole set ("dar agua")."""
    tiles = full_set(max_pip)
    rng.shuffle(tiles)
    return tiles


def split_deal(tiles: list[Tile], players: int, hand_size: int) -> tuple[list[list[Tile]], list[Tile]]:
    """Seat ``i`` takes tiles ``i*hand_size .. (i+1)*hand_size``; the rest sleep, in order."""
    hands = [sorted(tiles[i * hand_size : (i + 1) * hand_size]) for i in range(players)]
    return hands, tiles[players * hand_size :]
