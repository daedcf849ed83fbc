"""Who may see a finished match: its replay and its analysis (docs/protocol.md, "Replay").

A table against the neighbours shows its matches to anyone with the link. A
private table's id is its invitation, so a match played there is shown only
to its **players** — every guest seated at it while it was played, from its
first deal to its end, as the table's log tells — or to whoever holds the
match's own link: ``/replay/{table}/{match}?k=KEY``, where ``KEY``
(:func:`share_key`) is derived from the table's secret, so it opens that
match's replay and analysis and nothing else (not the live table, not another
match). The players' pages get the link in the replay's ``share`` field.

:func:`capicua.table.replay.rebuild_match` plays the table's log again up to
the end of one match (the table as that match ended, the phrases said during
it and its players): the one walk the replay and this check share.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from capicua.table.log import LogError, Open, is_first_format, read_entry, read_log
from capicua.table.replay import REBUILD_ERRORS, rebuild_match

KEY_CHARS = 32  # hex digits of a share key: 128 bits


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


def share_key(secret: str, table_id: str, number: int) -> str:
    """The key of the link that opens match ``number`` of a private table to anyone who has it."""
    mac = hmac.new(secret.encode(), f"capicua/replay/{table_id}/{number}".encode(), hashlib.sha256)
    return mac.hexdigest()[:KEY_CHARS]


def access_of(
    stored: Sequence[Mapping[str, Any]], number: int, players: frozenset[str] | None = None
) -> Access:
    """Who may see match ``number`` of the table whose stored log is ``stored`` (read
    through :mod:`capicua.table.log`; ``players``: already known from
    :func:`~capicua.table.replay.rebuild_match`, else the log is played again for them).

    A log of the first format opens to anyone (a table had no privacy before its log
    began with ``open``); an opening that does not read is shown to nobody."""
    if is_first_format(stored):
        return Access(False, frozenset(), None)
    try:
        opening = read_entry(stored[0])
    except LogError:
        return Access(True, frozenset(), None)
    assert isinstance(opening, Open)  # is_first_format's promise
    if not opening.private:
        return Access(False, frozenset(), None)
    if players is None:
        try:
            players = rebuild_match(read_log(stored), number).players
        except REBUILD_ERRORS:  # a log that does not rebuild names no player
            players = frozenset()
    return Access(True, players, share_key(opening.secret, opening.table, number))


def share_link(table_id: str, number: int, access: Access) -> str | None:
    """The link a private match's players may share (None for a match open to anyone)."""
    if not access.private or access.key is None:
        return None
    return f"/replay/{table_id}/{number}?k={access.key}"
