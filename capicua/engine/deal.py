"""Dealing a hand: the one implementation that the match and the verify code share.

A hand's deals come from its seed alone: ``random.Random(hand_seed)``
shuffles the whole set; seat ``i`` takes the ``i``-th ``hand_size`` tiles and
the rest sleep, in draw order. A deal the rules void (five doubles in one
hand with ``redeal_five_doubles=automatic``; no double anywhere when the
opener is decided by the deal) is followed by another shuffle of the same
generator. With ``redeal_five_doubles=on_request`` a player holding five
doubles may show them: the standing deal is then voided too and dealing goes
on from the same generator.

:func:`deal_hand` computes every deal of a hand from its seed, the opener
rule of the hand and the seats that showed five doubles, so that
:class:`~capicua.engine.state.Match` (which deals) and ``capicua.table.fairness``
(which recomputes a revealed hand) cannot disagree.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capicua.engine.errors import NoDealError
from capicua.engine.rules import DEAL_OPENERS, Rules
from capicua.engine.seeds import shuffled_set, split_deal
from capicua.engine.tiles import Tile

# Deals tried before giving up. The rules a table may choose void at most 7% of
# deals (measured: the 2-player double-nine cross, no double in 14 of 55 tiles);
# even 2 tiles each from the double-twelve set (no double 73% of the time) gives
# up by chance once in 1e27 hands (0.733 ** 200). Rules that void (nearly) every
# deal, such as 45 tiles each from the double-twelve set, give up after ~20 ms.
MAX_DEALS = 200


@dataclass(frozen=True)
class Deal:
    """One deal: each seat's tiles (sorted) and the sleeping tiles in draw order."""

    hands: tuple[tuple[Tile, ...], ...]
    sleeping: tuple[Tile, ...]

    def to_json(self) -> dict[str, Any]:
        return {"hands": [[list(t) for t in h] for h in self.hands], "sleeping": [list(t) for t in self.sleeping]}


@dataclass(frozen=True)
class HandDeals:
    """Every deal made for one hand: ``deals[-1]`` stands, each earlier one was
    voided for the reason at the same index of ``voided``."""

    deals: tuple[Deal, ...]
    voided: tuple[dict[str, Any], ...]

    @property
    def standing(self) -> Deal:
        return self.deals[-1]


def opener_rule(rules: Rules, hand_number: int, previous_kind: str | None) -> str:
    """The rule that chooses the opener of hand ``hand_number`` (1-based).

    ``previous_kind`` is the result kind of the hand before (``domino``,
    ``tranque`` or ``tie``); it is not used for the first hand.
    """
    if hand_number <= 1:
        return rules.first_opener
    if previous_kind == "domino":
        return rules.next_opener_after_win
    return rules.next_opener_after_tranque


def doubles_in(tiles: Sequence[Tile]) -> list[Tile]:
    return [t for t in tiles if t[0] == t[1]]


def void_reason(rules: Rules, rule: str, hands: Sequence[Sequence[Tile]]) -> dict[str, Any] | None:
    """Why the rules void a deal made under opener rule ``rule`` (``None``: it stands)."""
    if rules.redeal_five_doubles == "automatic":
        for seat, tiles in enumerate(hands):
            if len(doubles_in(tiles)) >= 5:
                return {"reason": "five_doubles", "seat": seat}
    if rule in DEAL_OPENERS and not any(doubles_in(tiles) for tiles in hands):
        return {"reason": "no_double", "seat": None}
    return None


def shown_void(deal: Deal, seat: int) -> dict[str, Any]:
    """The void of a deal in which ``seat`` showed its five doubles (on_request)."""
    shown = doubles_in(deal.hands[seat])
    if len(shown) < 5:
        raise NoDealError(f"seat {seat} holds {len(shown)} doubles: only five or more can be shown")
    return {"reason": "five_doubles_shown", "seat": seat, "doubles": [list(t) for t in shown]}


def shown_seats(voided: Sequence[dict[str, Any]]) -> list[Any]:
    """The seats that showed five doubles, in order, from a hand's ``voided`` list
    (as recorded: a caller reading a stranger's record checks that they are seats)."""
    return [v.get("seat") for v in voided if v.get("reason") == "five_doubles_shown"]


def deal_hand(
    rules: Rules,
    hand_seed: str,
    rule: str,
    shown: Sequence[int] = (),
    first: Deal | None = None,
) -> HandDeals:
    """Every deal of the hand whose seed is ``hand_seed``.

    ``rule`` is the hand's opener rule (:func:`opener_rule`); ``shown`` the
    seats that showed five doubles, in order, each voiding the deal standing
    at that moment; ``first`` replaces the first shuffle (a deal given by a
    test or puzzle: the rules still apply to it). Raises :class:`NoDealError`
    when no deal stands after :data:`MAX_DEALS` tries, or when a seat in
    ``shown`` did not hold five doubles.
    """
    rng = random.Random(hand_seed)
    deals: list[Deal] = []
    voided: list[dict[str, Any]] = []
    for index in range(len(shown) + 1):
        standing = _deal_until_it_stands(rules, rng, rule, first, deals, voided)
        first = None
        if index < len(shown):
            voided.append(shown_void(standing, shown[index]))
    return HandDeals(tuple(deals), tuple(voided))


def _deal_until_it_stands(
    rules: Rules,
    rng: random.Random,
    rule: str,
    first: Deal | None,
    deals: list[Deal],
    voided: list[dict[str, Any]],
) -> Deal:
    for _ in range(MAX_DEALS):
        if first is not None:
            deal, first = first, None
        else:
            hands, sleeping = split_deal(shuffled_set(rng, rules.max_pip), rules.players, rules.hand_size)
            deal = Deal(tuple(tuple(h) for h in hands), tuple(sleeping))
        deals.append(deal)
        void = void_reason(rules, rule, deal.hands)
        if void is None:
            return deal
        voided.append(void)
    raise NoDealError(
        f"no deal stood in {MAX_DEALS} tries: these rules void (nearly) every deal "
        f"({rules.players} hands of {rules.hand_size} from the double-{rules.max_pip} set)"
    )


__all__ = ["MAX_DEALS", "Deal", "HandDeals", "deal_hand", "doubles_in", "opener_rule", "shown_seats", "shown_void", "void_reason"]
