"""Fair deals you can check: recompute a hand's deal from its revealed seed.

Before a hand the table publishes ``seed_hash = sha256(hand_seed)``; when the
hand is over it reveals ``hand_seed``. The deal is recomputed with the
engine's own deal code (:func:`capicua.engine.deal.deal_hand`, the function
:class:`~capicua.engine.Match` deals with), so it is the deal that was
played: the deals the rules voided, the deals voided because a player showed
five doubles (``redeal_five_doubles=on_request``), and the opener rule of
hand N (which decides whether a deal without any double is void) included.

Two forms, used by ``capicua verify`` and ``GET /api/verify``:

* :func:`verify_deal` — from a seed: the rules, the hand number, how the
  hand before ended (only when the deal depends on it) and the seats that
  showed five doubles;
* :func:`verify_record_hand` — hand N of a match record: everything above
  comes from the record, which also gives the hash published before the deal
  and the deal that was played, to compare.

Both answer :data:`ANSWER_KEYS` (see docs/protocol.md, "Fair deals") or raise
:class:`VerifyError` (or one of its subclasses), whose ``code`` names the reason
as the protocol does; what that is in HTTP is the server's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from capicua.engine import (
    EngineError,
    Match,
    Rules,
    RulesError,
    make_rules,
    rules_from_json,
    seed_hash,
)
from capicua.engine.deal import HandDeals, deal_hand, opener_rule, shown_seats

ANSWER_KEYS = (
    "preset", "options", "hand", "seed", "seed_hash", "published_hash", "hash_ok",
    "hands", "sleeping", "voided", "deals", "deal_matches",
)
PREVIOUS_KINDS = ("domino", "tranque", "tie")


class VerifyError(ValueError):
    """A verification that cannot be answered because the question is malformed (a
    seed, hand number, previous hand or seat that cannot be, a record that cannot be
    read). ``code`` is the protocol's name for the reason; the subclasses are the
    other reasons. Each caller says it its own way (``/api/verify`` as an HTTP
    status: capicua.server.http.verify)."""

    code = "malformed"


class RecordRulesError(VerifyError):
    """The record's rules cannot be built."""

    code = "bad_rules"


class HandNotOver(VerifyError):
    """The hand is not over (or not dealt yet): its seed is still secret."""

    code = "hand_not_over"


class NoDeal(VerifyError):
    """The rules void every deal of this seed, or a seat said to show five doubles could not."""

    code = "no_deal"


def verify_deal(
    preset: str,
    hand_seed: str,
    options: dict[str, Any] | None = None,
    hand_number: int = 1,
    previous_kind: str | None = None,
    shown: Sequence[int] = (),
) -> dict[str, Any]:
    """Recompute the deal of hand ``hand_number`` whose revealed seed is ``hand_seed``.

    ``previous_kind`` is how the hand before ended (``domino``, ``tranque``
    or ``tie``); it is needed only when the opener rules after a win and
    after a tranque deal differently (one of them is decided by the deal),
    and :class:`VerifyError` says so when it is missing then.
    ``shown`` are the seats that showed five doubles, in order (the hand's
    ``voided`` list names them). Raises :class:`RulesError` for rules that
    cannot be built.
    """
    if not isinstance(hand_seed, str) or not hand_seed:
        raise VerifyError("the seed is a non-empty string")
    rules = make_rules(preset, **(options or {}))
    return deal_answer(rules, hand_seed, hand_number, _deals(rules, hand_seed, hand_number, previous_kind, shown))


def verify_record_hand(record: Any, hand_number: int) -> dict[str, Any]:
    """Recompute the deal of hand ``hand_number`` (1-based) of a match record
    and compare it with the hash published before it and the deal played.

    A hand that is not over (or not dealt yet) keeps its seed secret:
    :class:`HandNotOver`. A record that cannot be read is :class:`VerifyError`,
    one whose rules cannot be built :class:`RecordRulesError`.
    """
    if not isinstance(record, dict) or not isinstance(record.get("hands"), list):
        raise VerifyError("a match record is an object with a list of hands")
    try:
        rules = rules_from_json(record.get("rules"))
    except RulesError as exc:
        raise RecordRulesError(f"the record's rules: {exc}") from exc
    hands = record["hands"]
    if not 1 <= hand_number <= len(hands):
        raise HandNotOver(f"hand {hand_number} has not been dealt yet")
    entry = _hand_entry(hands, hand_number)
    result = entry.get("result")
    if result is None:
        raise HandNotOver(f"hand {hand_number} is not over: its seed is still secret")
    seed = result.get("seed") if isinstance(result, dict) else None
    if not isinstance(seed, str) or not seed:
        raise VerifyError(f"hand {hand_number} of the record reveals no seed")
    previous = _hand_entry(hands, hand_number - 1).get("result") if hand_number > 1 else None
    previous_kind = previous.get("kind") if isinstance(previous, dict) else None
    voided = entry.get("voided")
    if not isinstance(voided, list) or not all(isinstance(v, dict) for v in voided):
        raise VerifyError(f"hand {hand_number} of the record has no list of voided deals")
    dealt = _deals(rules, seed, hand_number, previous_kind, shown_seats(voided))
    answer = deal_answer(rules, seed, hand_number, dealt)
    published = entry.get("seed_hash")
    answer["published_hash"] = published if isinstance(published, str) else None
    answer["hash_ok"] = answer["seed_hash"] == answer["published_hash"]
    answer["deal_matches"] = entry.get("deal") == dealt.standing.to_json()
    return answer



def hand_to_verify(match: Match, hand_number: int) -> dict[str, Any]:
    """The record :func:`verify_record_hand` needs of hand ``hand_number`` of a match
    still being played: its rules, the result kinds of the hands before (the opener
    rule) and that hand's entry. A hand in play keeps its seed secret: :class:`HandNotOver`."""
    if hand_number > len(match.hands) or match.hands[hand_number - 1].result is None:
        raise HandNotOver(f"hand {hand_number} is not over: its seed is still secret")
    # Every hand before it is over (a match plays one hand at a time).
    before = [{"result": {"kind": h.result["kind"]}} for h in match.hands[: hand_number - 1] if h.result is not None]
    return {"rules": match.rules.to_json(), "hands": [*before, match.hand_record(match.hands[hand_number - 1])]}

def deal_answer(rules: Rules, hand_seed: str, hand_number: int, dealt: HandDeals) -> dict[str, Any]:
    """The answer for a recomputed deal (the seed form: nothing published to compare with)."""
    standing = dealt.standing.to_json()
    return {
        "preset": rules.preset,
        "options": dict(rules.options),
        "hand": hand_number,
        "seed": hand_seed,
        "seed_hash": seed_hash(hand_seed),
        "published_hash": None,
        "hash_ok": None,
        "hands": standing["hands"],
        "sleeping": standing["sleeping"],
        "voided": [dict(v) for v in dealt.voided],
        "deals": len(dealt.deals),
        "deal_matches": None,
    }


def _deals(
    rules: Rules, hand_seed: str, hand_number: int, previous_kind: str | None, shown: Sequence[int]
) -> HandDeals:
    if type(hand_number) is not int or hand_number < 1:
        raise VerifyError("hand is a hand number: 1, 2, 3 ...")
    if previous_kind is not None and previous_kind not in PREVIOUS_KINDS:
        raise VerifyError(f"previous is one of {', '.join(PREVIOUS_KINDS)}")
    if any(type(s) is not int or not 0 <= s < rules.players for s in shown):
        raise VerifyError(f"the seats that showed five doubles are numbers from 0 to {rules.players - 1}")
    try:
        if previous_kind is None and hand_number > 1:
            # Ask the engine both ways; only when they differ must the caller say.
            after_win, after_tranque = (
                deal_hand(rules, hand_seed, opener_rule(rules, hand_number, kind), shown) for kind in ("domino", "tranque")
            )
            if after_win != after_tranque:
                raise VerifyError(
                    f"hand {hand_number}'s deal depends on how hand {hand_number - 1} ended: "
                    "say previous=domino, tranque or tie"
                )
            return after_win
        return deal_hand(rules, hand_seed, opener_rule(rules, hand_number, previous_kind), shown)
    except EngineError as exc:  # NoDealError: the rules void every deal, or a seat could not show
        raise NoDeal(str(exc)) from exc


def _hand_entry(hands: list[Any], hand_number: int) -> dict[str, Any]:
    entry = hands[hand_number - 1]
    if not isinstance(entry, dict):
        raise VerifyError(f"hand {hand_number} of the record is not an object")
    return entry


__all__ = [
    "ANSWER_KEYS", "HandNotOver", "NoDeal", "RecordRulesError", "VerifyError", "deal_answer", "verify_deal",
    "verify_record_hand",
]
