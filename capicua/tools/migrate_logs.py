"""``capicua migrate-logs --database URL``: rewrite the table logs of the first format, once.

The first tables logged ``start_hand`` and ``action`` entries only; their game,
seed and seats lived in the store's rows. This command rewrites each such log
in the table log's format (:mod:`capicua.table.log`): an ``open`` entry built
from the rows, then the old entries, each action with the ``by`` its seat's kind
says (the old tables were one guest against neighbours, playing from the start:
not private, no lobby). A server reads only that format: a log of the first
format is refused when its table is loaded, until this command has run.

Idempotent: a log that begins with ``open`` is left alone, so a second run
changes nothing (it reports 0 migrated).

Fenced, so it may run beside a live server: each log is rewritten in one
transaction that locks its table's row and checks that the log still holds the
number of entries it was read with (:func:`capicua.store.tablelogs.rewrite_log`);
an append made since (every append updates that row, and writes entry numbers
that the unique ``(table_id, seq)`` admits once) makes the rewrite of that table
stale: it is left as it is, reported, and taken up by the next run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from capicua.store import Store, tablelogs
from capicua.table.log import Action, Entry, Open, StartHand, is_first_format, write_log


class FirstFormatError(ValueError):
    """A log of the first format holds an entry that format never wrote."""


def first_format_log(row: Mapping[str, Any]) -> list[Entry]:
    """A log of the first format (``row`` as :meth:`capicua.store.Store.load_table`
    returns it: preset, options, seed, seats and events) in the table log's format."""
    seats = []
    kinds = {}
    for s in row["seats"]:
        kinds[s["seat"]] = s["kind"]
        seat: dict[str, Any] = {"seat": s["seat"], "kind": s["kind"], "name": s["name"]}
        for key, stored in (("player", "player_id"), ("level", "level"), ("character", "character")):
            if s.get(stored):
                seat[key] = s[stored]
        seats.append(seat)
    entries: list[Entry] = [
        Open(row["id"], row["preset"], dict(row["options"]), row["seed"], tuple(seats), seed=row["seed"])
    ]
    for old in row["events"]:
        op = old.get("op")
        if op == "start_hand":
            entries.append(StartHand(tuple(old.get("present") or ())))
        elif op == "action":
            by = "bot" if kinds.get(old["seat"]) == "bot" else "human"
            entries.append(Action(int(old["seat"]), dict(old["action"]), by))
        else:
            raise FirstFormatError(f"unknown entry of the first log format: {old!r}")
    return entries


@dataclass(slots=True)
class Report:
    migrated: list[str] = field(default_factory=list)  # rewritten now
    stale: list[str] = field(default_factory=list)  # written to while being migrated: the next run takes them
    failed: list[str] = field(default_factory=list)  # not a log of the first format either: left alone


def migrate_logs(store: Store) -> Report:
    """Rewrite every log of the first format in ``store`` (see the module doc)."""
    report = Report()
    for table_id in tablelogs.first_format_tables(store):
        row = tablelogs.load_entries(store, table_id)
        if row is None or not is_first_format(row["events"]):
            continue  # gone, or migrated meanwhile
        try:
            entries = first_format_log(row)
        except (FirstFormatError, KeyError, TypeError, ValueError) as exc:
            print(f"{table_id}: not migrated: {exc}", file=sys.stderr)
            report.failed.append(table_id)
            continue
        try:
            tablelogs.rewrite_log(store, table_id, len(row["events"]), write_log(entries))
        except tablelogs.StaleLog as exc:
            print(f"{table_id}: not migrated: {exc}", file=sys.stderr)
            report.stale.append(table_id)
            continue
        report.migrated.append(table_id)
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="capicua migrate-logs",
        description="Rewrite the table logs of the first format in the table log's format (idempotent, fenced). "
        "The database's schema is brought up to date first, as the server does when it starts.",
    )
    p.add_argument("--database", required=True, metavar="URL", help="the store's SQLAlchemy URL (sqlite:///… or postgresql://…)")
    args = p.parse_args(argv)
    store = Store(args.database)
    try:
        store.migrate()
        report = migrate_logs(store)
    finally:
        store.close()
    print(f"{len(report.migrated)} logs migrated, {len(report.stale)} written to meanwhile (run again), "
          f"{len(report.failed)} not readable")
    return 1 if report.stale or report.failed else 0
