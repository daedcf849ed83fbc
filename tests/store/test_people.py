"""Gente in the store, on SQLite and PostgreSQL: the people a guest shared a table
with (capicua.store.people), the search by nickname, invitations and mutes
(capicua.store.invitations)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select, update
from standings_helpers import Table, find, seats

from capicua.store import Store, invitations, people
from capicua.store.invitations import Refused
from capicua.store.models import InvitationRow, ResultRow, TableRow, TableSeatRow

pytestmark = pytest.mark.xdist_group("store")

NOW = datetime(2026, 12, 5, 12, 0, 0)


def lobby(store: Store, table_id: str, humans: dict[int, str]) -> None:
    """A private table in its lobby: ``humans`` seated, the other seats empty."""
    entries = [
        {"seat": s, "kind": "human", "name": f"G{s}", "player": humans[s], "level": "medio", "character": "fefa"}
        if s in humans else {"seat": s, "kind": "empty", "name": ""}
        for s in range(4)
    ]
    Table(store, table_id, entries, private=True)


def touch(store: Store, table_id: str, at: datetime) -> None:
    """The table's last change, and the end of every match of it, at ``at``."""
    with store.sessions.begin() as s:
        s.execute(update(TableRow).where(TableRow.id == table_id).values(updated_at=at))
        s.execute(update(ResultRow).where(ResultRow.table_id == table_id).values(finished_at=at))


@pytest.fixture
def store(database_url: str) -> Store:
    made = Store(database_url)
    made.migrate()
    return made


def guests(store: Store, *names: str) -> dict[str, str]:
    return {name: store.create_player(name)[0] for name in names}


def test_people_are_the_humans_of_my_matches_and_tables_newest_first(store: Store) -> None:
    g = guests(store, "Ana", "Beto", "Caro", "Dani")
    # A finished match: Ana and Beto with two neighbours.
    played = Table(store, "t_played", seats({0: g["Ana"], 2: g["Beto"]}))
    assert played.finish(find(lambda r: True)) == [None]
    touch(store, "t_played", NOW - timedelta(hours=2))
    # A lobby where Ana and Caro sit now (no match finished there).
    lobby(store, "t_lobby", {0: g["Ana"], 1: g["Caro"]})
    touch(store, "t_lobby", NOW - timedelta(minutes=5))
    # Dani never sat with Ana (only with Beto).
    lobby(store, "t_other", {0: g["Dani"], 1: g["Beto"]})

    page = people.people(store, g["Ana"])
    rows = page["people"]
    assert [r["nickname"] for r in rows] == ["Caro", "Beto"]  # the newest first; never a neighbour nor herself
    assert page["next"] is None
    beto = rows[1]
    assert beto["player"] == g["Beto"] and beto["matches"] == 1 and beto["level"]["number"] >= 0
    assert rows[0]["matches"] == 0 and rows[0]["last_at"].startswith("2026-12-05T11:55")
    assert [r["nickname"] for r in people.people(store, g["Dani"])["people"]] == ["Beto"]
    assert people.shared_a_table(store, g["Ana"], g["Beto"]) and not people.shared_a_table(store, g["Ana"], g["Dani"])

    # Pages: one person each, the second after the first's cursor, then none.
    first = people.people(store, g["Ana"], limit=1)
    assert [r["nickname"] for r in first["people"]] == ["Caro"] and first["next"] is not None
    second = people.people(store, g["Ana"], after=first["next"], limit=1)
    assert [r["nickname"] for r in second["people"]] == ["Beto"] and second["next"] is None


def test_a_guest_of_another_match_at_the_same_table_is_not_met(store: Store) -> None:
    g = guests(store, "Ana", "Beto")
    table = Table(store, "t_two", seats({0: g["Ana"], 2: g["Beto"]}))
    assert table.finish(find(lambda r: True)) == [None]
    # As if Beto played only the table's second match, and Ana left after the first.
    with store.sessions.begin() as s:
        s.execute(update(ResultRow).where(ResultRow.player_id == g["Beto"]).values(match_number=2))
        s.execute(update(TableSeatRow).where(TableSeatRow.player_id == g["Ana"])
                  .values(kind="empty", player_id=None))
    assert people.people(store, g["Ana"])["people"] == []
    assert people.people(store, g["Beto"])["people"] == []


def test_search_by_prefix_without_case_or_accents(store: Store) -> None:
    g = guests(store, "José Ñico", "jorge", "Ab", "A b c", "Zoe")
    assert [r["nickname"] for r in people.search(store, "JO")] == ["jorge", "José Ñico"]
    assert [r["nickname"] for r in people.search(store, "josé ñi")] == ["José Ñico"]
    assert [r["nickname"] for r in people.search(store, "jose  nico")] == ["José Ñico"]
    assert people.search(store, "nico") == []  # by the nickname's start, not inside it
    assert people.search(store, "j") == [] and people.search(store, "  ") == []
    # Compared by code point: "a b" is a prefix of "A b c" only (a collation that
    # skips spaces would take "Ab" too).
    assert [r["nickname"] for r in people.search(store, "a b")] == ["A b c"]
    assert people.search(store, "jo", limit=1)[0]["player"] == g["jorge"]
    store.rename_player(g["Zoe"], "Joaquín")
    assert [r["nickname"] for r in people.search(store, "joa")] == ["Joaquín"]
    assert people.search(store, "zo") == []


def invited(store: Store) -> dict[str, str]:
    """Ana and Beto played a match; Ana waits in a lobby with a free seat; Caro is a stranger."""
    g = guests(store, "Ana", "Beto", "Caro")
    played = Table(store, "t_played", seats({0: g["Ana"], 2: g["Beto"]}))
    assert played.finish(find(lambda r: True)) == [None]
    lobby(store, "t_lobby", {0: g["Ana"]})
    return g


def refused(code: str, fn: object, *args: object) -> Refused:
    with pytest.raises(Refused) as caught:
        fn(*args)  # type: ignore[operator]
    assert caught.value.code == code, caught.value
    return caught.value


def count(store: Store) -> int:
    with store.sessions() as s:
        return int(s.scalar(select(func.count()).select_from(InvitationRow)) or 0)


def test_an_invitation_is_shown_accepted_and_refused_when_it_breaks_a_rule(store: Store) -> None:
    g = invited(store)
    ana, beto, caro = g["Ana"], g["Beto"], g["Caro"]
    refused("malformed", invitations.send, store, ana, ana, "t_lobby", NOW)
    refused("unknown_player", invitations.send, store, ana, "p_nobody", "t_lobby", NOW)
    refused("unknown_table", invitations.send, store, ana, beto, "t_nowhere", NOW)
    refused("not_seated", invitations.send, store, beto, ana, "t_lobby", NOW)
    refused("started", invitations.send, store, ana, beto, "t_played", NOW)  # a table being played
    refused("not_acquainted", invitations.send, store, ana, caro, "t_lobby", NOW)
    assert count(store) == 0

    sent = invitations.send(store, ana, beto, "t_lobby", NOW)
    assert sent["table"] == "t_lobby" and sent["to"] == beto and sent["expires_at"].startswith("2026-12-05T12:10")
    refused("already_invited", invitations.send, store, ana, beto, "t_lobby", NOW + timedelta(minutes=9))
    shown = invitations.shown_to(store, beto, NOW + timedelta(minutes=1))
    assert [(i["id"], i["from"]["nickname"], i["free_seats"], i["preset"]) for i in shown] == [
        (sent["id"], "Ana", 3, "cubano")]
    assert invitations.shown_to(store, ana, NOW) == []
    refused("unknown_invitation", invitations.answer, store, ana, sent["id"], True, NOW)  # not hers
    assert invitations.answer(store, beto, sent["id"], True, NOW) == {"table": "t_lobby", "seat": 1}
    refused("unknown_invitation", invitations.answer, store, beto, sent["id"], True, NOW)  # answered
    assert invitations.shown_to(store, beto, NOW) == []


def test_an_invitation_expires_and_a_dismissed_one_is_not_sent_again_before(store: Store) -> None:
    g = invited(store)
    ana, beto = g["Ana"], g["Beto"]
    sent = invitations.send(store, ana, beto, "t_lobby", NOW)
    later = NOW + invitations.TTL
    assert invitations.shown_to(store, beto, later) == []
    refused("expired", invitations.answer, store, beto, sent["id"], True, later)
    again = invitations.send(store, ana, beto, "t_lobby", later)  # the same row, a new invitation
    assert again["id"] != sent["id"] and count(store) == 1
    refused("unknown_invitation", invitations.answer, store, beto, sent["id"], True, later)
    assert invitations.answer(store, beto, again["id"], False, later) == {"table": "t_lobby"}
    assert invitations.shown_to(store, beto, later) == []
    # "Ahora no" cannot be answered by sending it again until it would have expired.
    refused("already_invited", invitations.send, store, ana, beto, "t_lobby", later + timedelta(minutes=1))


def test_a_full_table_shows_no_invitation_and_cannot_be_accepted(store: Store) -> None:
    g = invited(store)
    sent = invitations.send(store, g["Ana"], g["Beto"], "t_lobby", NOW)
    with store.sessions.begin() as s:
        s.execute(update(TableSeatRow).where(TableSeatRow.table_id == "t_lobby", TableSeatRow.kind == "empty")
                  .values(kind="bot", name="Fefa", level="medio"))
    assert invitations.shown_to(store, g["Beto"], NOW) == []
    refused("table_full", invitations.answer, store, g["Beto"], sent["id"], True, NOW)
    refused("table_full", invitations.send, store, g["Ana"], g["Beto"], "t_lobby", NOW + invitations.TTL)


def test_a_muted_sender_is_refused_quietly(store: Store) -> None:
    g = invited(store)
    ana, beto = g["Ana"], g["Beto"]
    invitations.mute(store, beto, ana, NOW)
    invitations.mute(store, beto, ana, NOW)  # again: still one mute
    assert [m["nickname"] for m in invitations.mutes(store, beto)] == ["Ana"]
    assert invitations.muted_among(store, beto, [ana, g["Caro"]]) == {ana}
    refused("malformed", invitations.mute, store, beto, beto, NOW)
    refused("unknown_player", invitations.mute, store, beto, "p_nobody", NOW)
    # Ana sees what she would see of any invitation: sent, then "already invited" until it expires.
    sent = invitations.send(store, ana, beto, "t_lobby", NOW)
    assert set(sent) == {"id", "table", "to", "expires_at"}
    refused("already_invited", invitations.send, store, ana, beto, "t_lobby", NOW)
    assert invitations.shown_to(store, beto, NOW) == []
    refused("unknown_invitation", invitations.answer, store, beto, sent["id"], True, NOW)
    invitations.unmute(store, beto, ana)
    assert invitations.mutes(store, beto) == []
    # Muted when it was sent: it stays unseen; the next one is heard.
    assert invitations.shown_to(store, beto, NOW) == []
    assert invitations.send(store, ana, beto, "t_lobby", NOW + invitations.TTL)["id"]
    assert len(invitations.shown_to(store, beto, NOW + invitations.TTL)) == 1


def test_a_sender_sends_at_most_the_budget_in_the_window(store: Store) -> None:
    g = invited(store)
    ana, beto = g["Ana"], g["Beto"]
    limit, window = invitations.PER_SENDER
    for i in range(limit):
        lobby(store, f"t_{i}", {0: ana})
        invitations.send(store, ana, beto, f"t_{i}", NOW + timedelta(seconds=i))
    lobby(store, "t_more", {0: ana})
    too_fast = refused("too_fast", invitations.send, store, ana, beto, "t_more", NOW + timedelta(seconds=limit))
    assert too_fast.wait_s == pytest.approx((window - timedelta(seconds=limit)).total_seconds())
    assert count(store) == limit
    assert invitations.send(store, ana, beto, "t_more", NOW + window + timedelta(seconds=1))["table"] == "t_more"
