"""``capicua migrate-logs``: the logs of the first format rewritten once, offline and
fenced (the server no longer rewrites them as it loads a table), on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from capicua.cli import main as cli_main
from capicua.engine import Match, make_rules
from capicua.store import Store, tablelogs
from capicua.table.core import TableCore
from capicua.table.log import LogError, Open, read_log
from capicua.tools.migrate_logs import first_format_log, migrate_logs


def first_format_events(seed: str, moves: int = 6) -> tuple[list[dict[str, Any]], Match]:
    """The entries a table of the first format logged for a hand's first ``moves``, and the match they make."""
    m = Match(make_rules("cubano"), seed)
    old: list[dict[str, Any]] = [{"op": "start_hand", "present": [0], "table_seq": 1}]
    m.start_hand(frozenset({0}))
    for _ in range(moves):
        seat = m.turn
        move = m.legal_moves()[0]
        old.append({"op": "action", "seat": seat, "action": move.to_json(), "table_seq": 0})
        m.apply(seat, move)  # type: ignore[arg-type]
    return old, m


def neighbour_seats(player: str | None) -> list[dict[str, Any]]:
    ana: dict[str, Any] = {"seat": 0, "kind": "human", "name": "Ana"}
    if player is not None:
        ana["player"] = player
    return [ana, *({"seat": s, "kind": "bot", "name": n, "level": "medio", "character": c}
                   for s, n, c in ((1, "Cuca", "cuca"), (2, "Pancho", "pancho"), (3, "Yoli", "yoli")))]


def test_a_log_of_the_first_format_reads_as_a_table_log() -> None:
    old, m = first_format_events("legacy-seed")
    row = {"id": "t_old", "preset": "cubano", "options": {}, "seed": "legacy-seed", "events": old,
           "seats": [{"seat": 0, "kind": "human", "name": "Ana", "player_id": "p_a"},
                     *({"seat": s, "kind": "bot", "name": n, "level": "medio", "character": c}
                       for s, n, c in ((1, "Cuca", "cuca"), (2, "Pancho", "pancho"), (3, "Yoli", "yoli")))]}
    core = TableCore.from_log(first_format_log(row))
    assert core.match.view(0) == m.view(0)
    assert core.seat_of("p_a") == 0


def store_first_format_table(store: Store, table_id: str, seed: str) -> tuple[list[dict[str, Any]], Match]:
    """A table whose stored log is of the first format (its game and seats in the rows only)."""
    player = store.create_player("Ana")[0]
    tablelogs.create_table(store, Open(table_id, "cubano", {}, seed, tuple(neighbour_seats(player))).to_json(), seed, 2)
    old, m = first_format_events(seed)
    tablelogs.rewrite_log(store, table_id, 1, old)  # the rows as a table of the first format left them
    return old, m


def test_migrate_logs_rewrites_the_first_format_once_and_then_the_table_loads(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    try:
        old, m = store_first_format_table(store, "t_old", "legacy-seed")
        tablelogs.create_table(store, Open("t_new", "cubano", {}, "sec", tuple(neighbour_seats(None))).to_json(),
                               "seed", 2)
        row = tablelogs.load_entries(store, "t_old")
        assert row is not None and row["events"] == old
        with pytest.raises(LogError, match="migrate-logs"):
            read_log(row["events"])  # the server refuses a log of the first format: no rewrite at load
        assert tablelogs.first_format_tables(store) == ["t_old"]

        report = migrate_logs(store)
        assert report.migrated == ["t_old"] and not report.stale and not report.failed
        row = tablelogs.load_entries(store, "t_old")
        assert row is not None and row["events"][0]["op"] == "open" and row["events"][1:] == [
            {"op": "start_hand", "present": [0], "at": 0},
            *({"op": "action", "seat": e["seat"], "action": e["action"],
               "by": "human" if e["seat"] == 0 else "bot", "at": 0} for e in old[1:]),
        ]
        core = TableCore.from_log(read_log(row["events"]))
        assert core.match.view(0) == m.view(0) and core.seat_of(row["seats"][0]["player_id"]) == 0

        # A second run changes nothing.
        assert tablelogs.first_format_tables(store) == []
        again = migrate_logs(store)
        assert again.migrated == [] and not again.stale and not again.failed
        assert tablelogs.load_entries(store, "t_old") == row
    finally:
        store.close()


def test_a_rewrite_is_fenced_by_the_count_it_was_read_with(database_url: str) -> None:
    store = Store(database_url)
    store.migrate()
    try:
        old, _ = store_first_format_table(store, "t_old", "legacy-seed")
        # A server appended after the log was read (len(old) entries): the rewrite is refused whole.
        with pytest.raises(tablelogs.StaleLog):
            tablelogs.rewrite_log(store, "t_old", len(old) - 1, [{"op": "open"}])
        row = tablelogs.load_entries(store, "t_old")
        assert row is not None and row["events"] == old
    finally:
        store.close()


def test_the_command(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    store = Store(url)
    store.migrate()
    store_first_format_table(store, "t_old", "legacy-seed")
    store.close()
    assert cli_main(["migrate-logs", "--database", url]) == 0
    assert cli_main(["migrate-logs", "--database", url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1 logs migrated") and out[1].startswith("0 logs migrated")
