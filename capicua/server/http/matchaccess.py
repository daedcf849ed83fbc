"""Who may see a finished match: its replay and its analysis (docs/protocol.md, "Replay").

A table against the neighbours shows its matches to anyone with the link. A
private table's id is its invitation, so a match played there is shown only
to its **players** — every guest seated at it while it was played, from its
first deal to its end, as the table's log tells — or to whoever holds the
match's own link: ``/replay/{table}/{match}?k=KEY``, where ``KEY``
(:func:`share_key`) is derived from the table's secret, so it opens that
match's replay and analysis and nothing else (not the live table, not another
match). The players' pages get the link in the replay's ``share`` field.

:func:`rebuild_match` plays the table's log again up to the end of one match
(the table as that match ended, the phrases said during it and its players):
the one walk the replay and this check share.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from capicua.engine import EngineError
from capicua.table.core import CoreConfig, TableCore
from capicua.table.log import Open, read_log

KEY_CHARS = 32  # hex digits of a share key: 128 bits
REBUILD_ERRORS = (ValueError, KeyError, TypeError, EngineError)  # a log the core cannot apply


@dataclass(frozen=True, slots=True)
class Access:
    """Who may see one finished match: anyone (``private`` false), its players,
    or whoever brings ``key``."""

    private: bool
    players: frozenset[str]
    key: str | None

    def allows(self, viewer: str | None, key: str | None) -> bool:
        """True for a match open to anyone, one of its players (``viewer``: a player id)
        or the right ``key``."""
        if not self.private or (viewer is not None and viewer in self.players):
            return True
        return self.key is not None and key is not None and hmac.compare_digest(key.encode(), self.key.encode())


@dataclass(slots=True)
class MatchEnd:
    """The table as one of its matches ended, rebuilt from its log."""

    core: TableCore  # the table at the match's last entry
    said: list[dict[str, Any]]  # the said frames of the match, in order
    first_seq: int  # the table's seq before the match's first event
    players: frozenset[str]  # the guests seated while it was played


def share_key(secret: str, table_id: str, number: int) -> str:
    """The key of the link that opens match ``number`` of a private table to anyone who has it."""
    mac = hmac.new(secret.encode(), f"capicua/replay/{table_id}/{number}".encode(), hashlib.sha256)
    return mac.hexdigest()[:KEY_CHARS]


def rebuild_match(entries: list[dict[str, Any]], number: int) -> MatchEnd:
    """Play the log again up to the end of match ``number`` (or the log's end).

    Raises one of :data:`REBUILD_ERRORS` on a log the core cannot apply."""
    opening, *rest = read_log(entries)
    assert isinstance(opening, Open)  # read_log's promise
    core = TableCore(opening, CoreConfig())
    frames: list[tuple[str, dict[str, Any]]] = []
    said: list[dict[str, Any]] = []
    players: set[str] = set()
    first_seq = 0
    for entry in rest:
        before = core.match_number
        core.apply(entry, frames)
        if before < number == core.match_number:
            first_seq = core.seq  # the seq the match before ended at
        if core.match_number == number:
            said.extend(frame for _, frame in frames if frame["type"] == "said")
            if core.match.hands:  # dealt: whoever sits now plays it (not a lobby before it)
                players.update(s.player for s in core.seats if s.is_human and s.player)
        frames.clear()  # the other frames (views per audience) are not needed
        if core.match_number > number or (core.match_number == number and core.match.phase == "match_over"):
            break
    return MatchEnd(core, said, first_seq, frozenset(players))


def access_of(entries: list[dict[str, Any]], number: int, players: frozenset[str] | None = None) -> Access:
    """Who may see match ``number`` of the table whose log is ``entries`` (``players``:
    already known from :func:`rebuild_match`, else the log is walked for them)."""
    opening = entries[0] if entries else {}
    if not opening.get("private"):
        return Access(False, frozenset(), None)
    if players is None:
        try:
            players = rebuild_match(entries, number).players
        except REBUILD_ERRORS:  # a log that does not rebuild names no player
            players = frozenset()
    secret = opening.get("secret")
    table_id = opening.get("table")
    key = share_key(secret, table_id, number) if isinstance(secret, str) and isinstance(table_id, str) else None
    return Access(True, players, key)


def share_link(table_id: str, number: int, access: Access) -> str | None:
    """The link a private match's players may share (None for a match open to anyone)."""
    if not access.private or access.key is None:
        return None
    return f"/replay/{table_id}/{number}?k={access.key}"
