"""Invitations to sit at a table, and who hears none from whom (Gente, issue 24).

A guest seated at a table waiting in its lobby with a free seat invites someone
they shared a table with (:func:`capicua.store.people.shared_a_table`): a row of
``invitations`` that expires after :data:`TTL`. Everything is in the store, so
the invitation survives a restart and any process of a cluster answers for it.

Rules (each a :class:`Refused` with its code, nothing written):

- the sender is seated at the table, the table waits in its lobby, it has a free
  seat, and the invitee is not seated there already;
- not to oneself, not to a stranger: a guest the sender never shared a table with
  (a search by nickname finds anyone, and an invitation shows a notice in every
  tab of theirs: from strangers that is a channel for spam; a stranger gets the
  table's link instead, or meets you in the parque);
- one invitation per sender, invitee and table at a time: until it expires, a
  second is ``already_invited`` — whether the first is pending, was dismissed
  ("Ahora no", so a dismissal cannot be answered by sending it again) or went to
  someone who mutes the sender (below);
- at most :data:`PER_SENDER` invitations per sender in a sliding window
  (``too_fast``), counted on the rows themselves, so it holds across a cluster.

A guest may mute a sender (``invitation_mutes``). An invitation from a muted
sender is refused quietly: it is stored with status ``muted``, never shown to
the invitee, and the sender sees exactly what an invitation nobody answered
shows — sent, then expired — since the sender is told nothing of any answer
("Ahora no" is quiet too) but an acceptance, which they see at the table.

Synchronous, like the rest of the store: the server calls these in a thread.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from capicua.store import Store, iso_utc
from capicua.store.models import InvitationMuteRow, InvitationRow, Player, TableRow, TableSeatRow
from capicua.store.people import shared_a_table

TTL = timedelta(minutes=10)
PER_SENDER = (20, timedelta(minutes=10))  # a person invites a few friends to each table, a few tables an hour
SHOWN = 10  # invitations a guest is shown at once (the newest)
MUTES_SHOWN = 200  # mutes a guest is shown (the newest)
LOBBIES = 5  # tables a guest is offered to invite to (their newest lobbies)
PENDING = "pending"
ACCEPTED = "accepted"
DISMISSED = "dismissed"
MUTED = "muted"
LOBBY = "lobby"
EMPTY = "empty"
HUMAN = "human"


class Refused(ValueError):
    """An invitation, answer or mute the rules refuse: its protocol ``code``, a
    readable message, the ``field`` at fault, and for ``too_fast`` the seconds to wait."""

    def __init__(self, code: str, message: str, field: str | None = None, wait_s: float = 0.0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.wait_s = wait_s


def send(store: Store, sender: str, invitee: str, table_id: str, now: datetime) -> dict[str, Any]:
    """Invite ``invitee`` to ``table_id``: the invitation as its sender sees it,
    ``{"id", "table", "to", "expires_at"}`` (the same whether or not the invitee mutes
    the sender). Raises :class:`Refused`."""
    if invitee == sender:
        raise Refused("malformed", "you cannot invite yourself", "player")
    with store.sessions() as s:
        if s.get(Player, invitee) is None:
            raise Refused("unknown_player", f"no player {invitee}", "player")
        table = s.get(TableRow, table_id)
        if table is None:
            raise Refused("unknown_table", f"no table {table_id}", "table")
        seats = s.execute(
            select(TableSeatRow.kind, TableSeatRow.player_id).where(TableSeatRow.table_id == table_id)
        ).all()
        _check_table(table, seats, sender)
        if any(pid == invitee for _, pid in seats):
            raise Refused("already_seated", "they already sit at this table", "player")
    if not shared_a_table(store, sender, invitee):
        raise Refused("not_acquainted", "you can invite the people you shared a table with", "player")
    count, window = PER_SENDER
    try:
        with store.sessions.begin() as s:
            sent = s.execute(
                select(func.count(), func.min(InvitationRow.created_at))
                .where(InvitationRow.sender_id == sender, InvitationRow.created_at > now - window)
            ).one()
            if sent[0] >= count:
                wait = (sent[1] + window - now).total_seconds()
                raise Refused("too_fast", f"at most {count} invitations in {window.total_seconds():g} s",
                              wait_s=max(wait, 0.0))
            row = s.scalar(select(InvitationRow).where(
                InvitationRow.sender_id == sender, InvitationRow.invitee_id == invitee,
                InvitationRow.table_id == table_id,
            ))
            if row is not None and row.expires_at > now and row.status != ACCEPTED:
                raise Refused("already_invited", "you invited them to this table already", "player")
            muted = s.get(InvitationMuteRow, (invitee, sender)) is not None
            invitation_id, expires_at = "i_" + secrets.token_hex(16), now + TTL
            values: dict[str, Any] = {"id": invitation_id, "status": MUTED if muted else PENDING,
                                      "created_at": now, "expires_at": expires_at}
            if row is None:
                s.add(InvitationRow(sender_id=sender, invitee_id=invitee, table_id=table_id, **values))
            else:
                # Sent again after it expired or was accepted: the same row, a new invitation.
                s.execute(update(InvitationRow).where(InvitationRow.id == row.id).values(**values))
    except IntegrityError:  # the same invitation, sent at the same moment by another request
        raise Refused("already_invited", "you invited them to this table already", "player") from None
    return {"id": invitation_id, "table": table_id, "to": invitee, "expires_at": iso_utc(expires_at)}


def _check_table(table: TableRow, seats: Any, sender: str) -> None:
    if not any(kind == HUMAN and pid == sender for kind, pid in seats):
        raise Refused("not_seated", "you invite to a table where you sit", "table")
    if table.status != LOBBY:
        raise Refused("started", "the match has started: nobody can sit now", "table")
    if not any(kind == EMPTY for kind, _ in seats):
        raise Refused("table_full", "every seat is taken", "table")


def shown_to(store: Store, invitee: str, now: datetime) -> list[dict[str, Any]]:
    """The invitations ``invitee`` is shown, newest first (at most :data:`SHOWN`): pending,
    not expired, from a sender they do not mute, to a table still waiting in its lobby
    with a free seat: ``[{"id", "table", "from": {"player", "nickname"}, "preset",
    "free_seats", "expires_at"}]``."""
    with store.sessions() as s:
        muted = select(InvitationMuteRow.muted_id).where(InvitationMuteRow.player_id == invitee)
        rows = s.execute(
            select(InvitationRow.id, InvitationRow.table_id, InvitationRow.sender_id, InvitationRow.expires_at,
                   Player.nickname, TableRow.preset)
            .join(Player, Player.id == InvitationRow.sender_id)
            .join(TableRow, TableRow.id == InvitationRow.table_id)
            .where(InvitationRow.invitee_id == invitee, InvitationRow.expires_at > now,
                   InvitationRow.status == PENDING, TableRow.status == LOBBY,
                   InvitationRow.sender_id.not_in(muted))
            .order_by(InvitationRow.created_at.desc(), InvitationRow.id)
            .limit(SHOWN)
        ).all()
        free = _free_seats(s, sorted({r.table_id for r in rows}))
    return [
        {"id": r.id, "table": r.table_id, "from": {"player": r.sender_id, "nickname": r.nickname},
         "preset": r.preset, "free_seats": free.get(r.table_id, 0), "expires_at": iso_utc(r.expires_at)}
        for r in rows if free.get(r.table_id, 0) > 0
    ]


def open_lobbies(store: Store, player: str) -> list[dict[str, Any]]:
    """The tables ``player`` may invite to now, newest first (at most :data:`LOBBIES`): where
    they sit, waiting in their lobby with a free seat: ``[{"table", "preset", "free_seats",
    "seated"}]``, ``seated`` the players there (whom an invitation would not seat again)."""
    with store.sessions() as s:
        mine = select(TableSeatRow.table_id).where(TableSeatRow.player_id == player, TableSeatRow.kind == HUMAN)
        rows = s.execute(
            select(TableRow.id, TableRow.preset)
            .where(TableRow.id.in_(mine), TableRow.status == LOBBY)
            .order_by(TableRow.updated_at.desc(), TableRow.id)
            .limit(LOBBIES)
        ).all()
        ids = [r.id for r in rows]
        free = _free_seats(s, ids)
        seated: dict[str, list[str | None]] = {}
        for table_id, pid in s.execute(
            select(TableSeatRow.table_id, TableSeatRow.player_id)
            .where(TableSeatRow.table_id.in_(ids), TableSeatRow.kind == HUMAN, TableSeatRow.player_id.is_not(None))
            .order_by(TableSeatRow.table_id, TableSeatRow.seat)
        ):
            seated.setdefault(table_id, []).append(pid)
    return [{"table": r.id, "preset": r.preset, "free_seats": free[r.id], "seated": seated.get(r.id, [])}
            for r in rows if free.get(r.id)]


def _free_seats(s: Session, tables: list[str]) -> dict[str, int]:
    if not tables:
        return {}
    return dict(s.execute(
        select(TableSeatRow.table_id, func.count())
        .where(TableSeatRow.table_id.in_(tables), TableSeatRow.kind == EMPTY)
        .group_by(TableSeatRow.table_id)
    ).all())


def answer(store: Store, invitee: str, invitation_id: str, accept: bool, now: datetime) -> dict[str, Any]:
    """``invitee`` accepts (Aceptar) or dismisses (Ahora no) an invitation shown to them.
    Accepting answers ``{"table", "seat"}``: the table to go to and the free seat to
    take there (the table's own rules decide the sit; a seat taken meanwhile is its
    ``seat_taken``). Raises :class:`Refused`: ``unknown_invitation`` (not theirs, not
    shown to them, or answered already), ``expired``, ``started``, ``table_full``."""
    with store.sessions.begin() as s:
        row = s.get(InvitationRow, invitation_id)
        if row is None or row.invitee_id != invitee or row.status != PENDING:
            raise Refused("unknown_invitation", "no such invitation for you", "invitation")
        if s.get(InvitationMuteRow, (invitee, row.sender_id)) is not None:
            raise Refused("unknown_invitation", "no such invitation for you", "invitation")
        if row.expires_at <= now:
            raise Refused("expired", "this invitation has expired", "invitation")
        table = s.get(TableRow, row.table_id)
        assert table is not None  # a foreign key
        if not accept:
            row.status = DISMISSED
            return {"table": row.table_id}
        seats = s.execute(select(TableSeatRow.seat, TableSeatRow.kind).where(TableSeatRow.table_id == row.table_id)
                          .order_by(TableSeatRow.seat)).all()
        if table.status != LOBBY:
            raise Refused("started", "the match has started: nobody can sit now", "invitation")
        free = [seat for seat, kind in seats if kind == EMPTY]
        if not free:
            raise Refused("table_full", "every seat is taken", "invitation")
        row.status = ACCEPTED
        return {"table": row.table_id, "seat": free[0]}


def mute(store: Store, player: str, muted: str, now: datetime) -> None:
    """``player`` hears no more invitations from ``muted`` (again: nothing changes)."""
    if muted == player:
        raise Refused("malformed", "you cannot mute yourself", "player")
    try:
        with store.sessions.begin() as s:
            if s.get(Player, muted) is None:
                raise Refused("unknown_player", f"no player {muted}", "player")
            if s.get(InvitationMuteRow, (player, muted)) is None:
                s.add(InvitationMuteRow(player_id=player, muted_id=muted, created_at=now))
    except IntegrityError:  # muted at the same moment by another request: muted it is
        pass


def unmute(store: Store, player: str, muted: str) -> None:
    """``player`` hears invitations from ``muted`` again (one not muted: nothing changes)."""
    with store.sessions.begin() as s:
        s.execute(delete(InvitationMuteRow).where(InvitationMuteRow.player_id == player,
                                                  InvitationMuteRow.muted_id == muted))


def mutes(store: Store, player: str) -> list[dict[str, Any]]:
    """Whom ``player`` mutes, newest first: ``[{"player", "nickname", "since"}]``."""
    with store.sessions() as s:
        rows = s.execute(
            select(InvitationMuteRow.muted_id, Player.nickname, InvitationMuteRow.created_at)
            .join(Player, Player.id == InvitationMuteRow.muted_id)
            .where(InvitationMuteRow.player_id == player)
            .order_by(InvitationMuteRow.created_at.desc(), InvitationMuteRow.muted_id)
            .limit(MUTES_SHOWN)
        ).all()
    return [{"player": pid, "nickname": nick, "since": iso_utc(at)} for pid, nick, at in rows]


def muted_among(store: Store, player: str, others: list[str]) -> set[str]:
    """Which of ``others`` ``player`` mutes."""
    if not others:
        return set()
    with store.sessions() as s:
        return set(s.scalars(select(InvitationMuteRow.muted_id).where(
            InvitationMuteRow.player_id == player, InvitationMuteRow.muted_id.in_(others))))
