"""The moves no player makes: a neighbour's, a stand-in's, a timed-out player's.

After every command :func:`settle` asks the bot pool to play the seat on turn
when no player plays it now (an :class:`~capicua.table.commands.AskBot`, once
per turn: ``table.asked_bot`` is the key asked), and :func:`answer` logs what
it played, if the table still waits for it. The key says who moves and when:
``bot:SEQ:SEAT`` (a neighbour), ``stand_in:SEQ:SEAT`` (for an absent player),
``timeout:SEQ:SEAT`` (the player's turn ran out) — the log's ``by``.
Functions over a :class:`~capicua.table.core.TableCore`.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from capicua.engine import EngineError, parse_action
from capicua.table import log
from capicua.table.commands import AskBot, BotAnswer, Outcome
from capicua.table.seating import STAND_IN, STAND_IN_LEVEL

if TYPE_CHECKING:
    from capicua.table.core import TableCore


def settle(table: TableCore, out: Outcome) -> None:
    """Ask the bot pool for the seat on turn, once, when no player plays it now."""
    again, table.ask_again = table.ask_again, False
    ask = _wanted(table)
    if ask is None or ask[0] == table.asked_bot:
        return
    key, seat, level = ask
    table.asked_bot = key
    m = table.match
    hand = m.hand
    assert hand is not None
    src = f"capicua/bot/{m.seed}/{hand.number}/{len(hand.actions)}/{seat}"
    seed = int.from_bytes(hashlib.sha256(src.encode()).digest()[:8], "big")
    out.effects.append(AskBot(key, seat, level, m.view(seat), seed, again))


def _wanted(table: TableCore) -> tuple[str, int, str] | None:
    m = table.match
    if table.status != "playing" or m.phase not in ("play", "redeal_question") or m.turn is None:
        return None
    seat = m.turn
    s = table.seats[seat]
    if s.is_bot:
        return f"bot:{table.seq}:{seat}", seat, s.level or STAND_IN_LEVEL
    if not s.is_human:
        return None
    level = s.level or table.config.stand_in_level
    if table.timed_out == (seat, table.seq):
        return f"timeout:{table.seq}:{seat}", seat, level
    # A stand-in plays only while some player is at the table: a table whose
    # players have all gone waits instead of playing their match out.
    if s.controller == STAND_IN and table.online_humans():
        return f"stand_in:{table.seq}:{seat}", seat, level
    asked = table.asked_bot
    if asked is not None and asked.startswith("stand_in:") and _split_key(asked)[1:] == (table.seq, seat):
        return asked, seat, level  # the player came back while the stand-in thinks
    return None


def answer(table: TableCore, cmd: BotAnswer, now: int, out: Outcome) -> None:
    """Log the move the bot pool answered, if the table still waits for it."""
    if cmd.key != table.asked_bot:
        return  # the table moved on while the bot thought
    table.asked_bot = None
    actor, seq, seat = _split_key(cmd.key)
    m = table.match
    if seq != table.seq or m.turn != seat:
        return
    try:
        action = parse_action(cmd.action, table.rules.max_pip)
        m.check(seat, action)
    except EngineError:
        # A bot that answers nonsense (or a pool that failed) must not stall the table.
        action = m.legal_moves()[0]
    table.commit(out, log.Action(seat, action.to_json(), actor, at=now))


def _split_key(key: str) -> tuple[str, int, int]:
    actor, seq, seat = key.split(":")
    return actor, int(seq), int(seat)
