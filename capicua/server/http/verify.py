"""``GET /api/verify``: read the query strictly, recompute the deal off the event loop.

Two forms (docs/protocol.md, "Fair deals"):

* ``?seed=HAND_SEED&preset=P&options=JSON&hand=N`` (``previous`` and
  ``shown`` when the deal depends on them) recomputes a deal from a revealed
  seed with the rules a table may choose (:func:`table_rules`: no set or
  hand size of one's own, so no request can ask for rules that void every
  deal);
* ``?table=ID&hand=N`` verifies a finished hand of a table from its match
  record, against the hash the table published before the deal.

Every bad query is an :class:`~capicua.server.http.errors.HttpError` (400
``malformed`` / ``bad_rules``, 404 ``unknown_table``, 409 ``hand_not_over``, 422
``no_deal``), never a 500: :mod:`capicua.table.fairness` raises its own errors,
which :func:`http_error` gives their statuses. The recomputation runs in a
worker thread, so the event loop never waits for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.engine import RulesError
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError
from capicua.server.ports import LiveMatches, MatchRecords
from capicua.table.fairness import HandNotOver, NoDeal, VerifyError, verify_deal, verify_record_hand
from capicua.table.jsonsafe import loads as safe_loads
from capicua.table.options import table_rules
from capicua.table.protocol import table_id_ok

MAX_HAND = 10_000  # no match lasts this many hands; 5 digits at most
MAX_SEED = 200  # revealed seeds are 64 hex digits
MAX_OPTIONS_TEXT = 2000
QUERY_KEYS = {"seed", "preset", "options", "hand", "previous", "shown", "table", "match"}
STATUS: dict[type[Exception], int] = {HandNotOver: 409, NoDeal: 422}  # fairness's errors that are not 400


def routes(deps: Deps) -> list[BaseRoute]:
    async def verify(request: Request) -> Response:
        return JSONResponse(await answer(deps.tables, deps.records, request.query_params))

    return [Route("/api/verify", verify)]


def http_error(exc: VerifyError | RulesError) -> HttpError:
    """The answer to a verification :mod:`capicua.table.fairness` or the engine refused."""
    return HttpError(STATUS.get(type(exc), 400), exc.code, str(exc))


def malformed(message: str) -> HttpError:
    return HttpError(400, "malformed", message)


def parse_hand(raw: str | None) -> int:
    """``hand``: ASCII digits only (``²`` and other Unicode digits are refused), 1 to :data:`MAX_HAND`."""
    if raw is None or raw == "":
        return 1
    if len(raw) > len(str(MAX_HAND)) or not raw.isascii() or not raw.isdigit():
        raise malformed(f"hand is a hand number from 1 to {MAX_HAND}")
    number = int(raw)
    if not 1 <= number <= MAX_HAND:
        raise malformed(f"hand is a hand number from 1 to {MAX_HAND}")
    return number


def parse_options(raw: str | None) -> dict[str, Any]:
    """``options``: a JSON object (the table's options), parsed with the depth-bounded loader."""
    if raw is None or raw == "":
        return {}
    if len(raw) > MAX_OPTIONS_TEXT:
        raise malformed("options are too long")
    try:
        options = safe_loads(raw)
    except ValueError as exc:
        raise malformed("options must be a JSON object") from exc
    if not isinstance(options, dict):
        raise malformed("options must be a JSON object")
    return options


def parse_shown(raw: str | None) -> list[int]:
    """``shown``: the seats that showed five doubles, in order, as ``2`` or ``2,0``."""
    if raw is None or raw == "":
        return []
    parts = raw.split(",")
    if len(parts) > 8 or not all(p.isascii() and p.isdigit() and len(p) == 1 for p in parts):
        raise malformed("shown lists seat numbers, like 2 or 2,0")
    return [int(p) for p in parts]


def parse_seed(raw: str | None) -> str:
    if raw is None or not 0 < len(raw) <= MAX_SEED or not raw.isascii() or not raw.isprintable():
        raise malformed("give the hand's revealed seed: ?seed=...&preset=... (or ?table=ID&hand=N)")
    return raw


def seed_form(query: Mapping[str, str]) -> Callable[[], dict[str, Any]]:
    """The recomputation a seed query asks for, once every field has been checked."""
    seed = parse_seed(query.get("seed"))
    hand = parse_hand(query.get("hand"))
    options = parse_options(query.get("options"))
    shown = parse_shown(query.get("shown"))
    previous = query.get("previous") or None
    preset = query.get("preset") or "cubano"
    try:
        rules = table_rules(preset, options)
    except RulesError as exc:
        raise HttpError(400, "bad_rules", str(exc)) from exc
    return lambda: verify_deal(rules.preset, seed, dict(rules.options), hand, previous, shown)


async def table_form(
    live: LiveMatches, records: MatchRecords, query: Mapping[str, str]
) -> Callable[[], dict[str, Any]]:
    """The verification of hand ``hand`` of match ``match`` (by default the table's
    latest) of table ``table``, from the match's record.

    A table this process runs gives the record of its current match here, on the
    loop (between the table's own steps, so never half-changed); any other record
    is read from the store (written at every hand end), without loading the
    table. The recomputation itself is the caller's job."""
    table_id = query.get("table", "")
    hand = parse_hand(query.get("hand"))
    number = parse_hand(query.get("match")) if query.get("match") else None
    if not table_id_ok(table_id):
        raise HttpError(404, "unknown_table", "no such table")
    try:
        record = live.hand_record(table_id, number, hand)
    except VerifyError as exc:
        raise http_error(exc) from None
    if record is None:
        stored = await records.records(table_id)
        if stored is None:
            raise HttpError(404, "unknown_table", "no such table")
        found = [m for m in stored if number is None or m["number"] == number]
        if not found:
            raise HttpError(404, "unknown_table", f"this table has no match {number}")
        record = found[-1]["record"] or {"rules": stored_rules(found[-1]), "hands": []}
    return lambda: verify_record_hand(record, hand)


def stored_rules(match: dict[str, Any]) -> dict[str, Any]:
    return {"preset": match.get("preset", "cubano"), "options": match.get("options", {})}


async def answer(live: LiveMatches, records: MatchRecords, query: Mapping[str, str]) -> dict[str, Any]:
    """The answer to a ``/api/verify`` query. Raises :class:`HttpError`."""
    unknown = sorted(set(query) - QUERY_KEYS)
    if unknown:
        raise malformed(f"unknown parameter {unknown[0]!r}")
    job = await table_form(live, records, query) if "table" in query else seed_form(query)
    try:
        return await asyncio.to_thread(job)
    except (VerifyError, RulesError) as exc:
        raise http_error(exc) from None
