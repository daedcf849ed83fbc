"""The experto's analyses at the server: computed after each hand, stored, and
read for ``GET /api/analysis/{table_id}/{match_number}`` (docs/analysis.md; the
route is :mod:`capicua.server.http.analysis`).

:class:`Analyst` takes the hands that ended (the table shell tells it, through
its :class:`~capicua.server.ports.HandEnds` port) and analyses them one at a time, each hand as one job of
the analysis pool (capicua.server.app.analysis_executor: a worker at the lowest
CPU priority, apart from the neighbours' pool): the record is read and replayed,
each decision searched, and the result written to the store, all in the worker. Nothing of it runs on the
event loop, and a table never waits for it. A hand whose analysis failed (the
store could not be written, the pool lost a worker) is tried again after
:data:`RETRY_S` (10 s, 1 min, 5 min), its match still ``pending``; after the last
try it is logged as given up and left out, and the answer for its match leaves
it out too. A record the engine refuses (:class:`RecordError`) fails the same way
every time, so it is given up at its first failure.

Only the choices a player made themself are judged: the table log's ``by`` of
each action tells them from a stand-in's or a time-out's. Only finished hands are
analysed, so no tile is shown that the table has not revealed.

In a cluster the search itself goes to the ``capicua worker`` processes
(:attr:`Analyst.workers`: :meth:`capicua.server.adapters.redis_bots.RedisBots.analyse`,
the stream ``capicua:analyses``): the analysis pool reads what the hand needs
(:func:`hand_job`: the record, the seats, who chose what; the worker never reads
the store), a worker searches it (:func:`analyse_job`) and the pool saves the
result, so any process serves it. With no worker alive, Redis down, or no answer
in time, the analysis pool searches it itself, as a single process does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol

from capicua.bots import analysis
from capicua.engine.errors import RecordError
from capicua.server.http.matchaccess import Access, access_of
from capicua.store import Store
from capicua.store import analyses as stored
from capicua.table.log import Action, Entry, Rematch, StartHand, is_first_format, read_log

log = logging.getLogger("capicua.analysis")

# Hands waiting to be analysed, at most: past it a hand that ends is not queued
# (the analysis shares the bot pool; under load the neighbours come first). It is
# not lost: the first request for its match finds it missing and queues it then.
MAX_BACKLOG = 500
# Seconds before each new try of a hand whose analysis failed: a store fault of up
# to ~6 minutes loses nothing; a hand that fails every time costs four tries.
RETRY_S = (10.0, 60.0, 300.0)
Key = tuple[str, int, int]  # table, match, hand


class AnalysisRefused(Exception):
    """An analysis that is not shown: ``code`` is the protocol's name for why
    (``unknown_table``, ``unknown_match``, ``private_match``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def choices(entries: Sequence[Entry], match_number: int) -> dict[int, list[tuple[int, str]]]:
    """Per hand of match ``match_number`` (from 1), the seat and the ``by`` of every
    chosen action, in order, from the table's log (a ``rematch`` entry starts the
    next match, a ``start_hand`` the next hand)."""
    match, hand = 1, 0
    out: dict[int, list[tuple[int, str]]] = {}
    for e in entries:
        if isinstance(e, Rematch):
            match, hand = match + 1, 0
        elif isinstance(e, StartHand):
            hand += 1
            if match == match_number:
                out[hand] = []
        elif isinstance(e, Action) and match == match_number and hand in out:
            out[hand].append((e.seat, e.by))
    return out


def expected(inputs: stored.MatchInputs, match_number: int) -> dict[int, tuple[list[int], list[str]]]:
    """The finished hands of the match that have choices of a player: per hand, the
    seats to analyse and who made each chosen action."""
    record = inputs.record or {}
    done = {i + 1 for i, h in enumerate(record.get("hands") or []) if h.get("result") is not None}
    out = {}
    # A log of the first format (before capicua migrate-logs) names nobody's own choices.
    entries = [] if is_first_format(inputs.entries) else read_log(inputs.entries)
    for hand, chosen in choices(entries, match_number).items():
        seats = sorted({seat for seat, by in chosen if by == analysis.HUMAN})
        if hand in done and seats:
            out[hand] = (seats, [by for _, by in chosen])
    return out


_WORKER_STORES: dict[str, Store] = {}  # per worker process: one store per database


def _store(database_url: str) -> Store:
    store = _WORKER_STORES.get(database_url)
    if store is None:
        store = _WORKER_STORES[database_url] = Store(database_url)
    return store


def hand_job(database_url: str, key: Key, budget_ms: float | None = None) -> dict[str, Any] | None:
    """What analysing hand ``key`` needs, read from the store (in a worker of the
    analysis pool): a JSON object :func:`analyse_job` takes in any process. ``None``
    when there is nothing to do: the hand is analysed already, or has no move a
    player chose."""
    store = _store(database_url)
    table_id, match_number, hand = key
    inputs = stored.inputs(store, table_id, match_number)
    if inputs is None or inputs.record is None:
        return None
    todo = expected(inputs, match_number).get(hand)
    if todo is None:
        return None
    seats, chosen_by = todo
    have = {(a["hand"], a["seat"]) for a in stored.load(store, table_id, match_number)}
    if all((hand, s) in have for s in seats):
        return None
    return {"table": table_id, "match": match_number, "hand": hand, "seats": seats, "chosen_by": chosen_by,
            "record": inputs.record, "budget_ms": budget_ms}


def analyse_job(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The analysis :func:`hand_job`'s job asks for (pure: the search, in a process
    of the analysis pool or of a ``capicua worker``)."""
    hand, seats = job["hand"], job["seats"]
    judged = [
        analysis.judge(d, analysis.search(d, job["budget_ms"]))
        for d in analysis.decisions(job["record"], hand, seats, job["table"], job["match"], job["chosen_by"])
    ]
    return analysis.summarise(hand, seats, judged)


def save_analysis(database_url: str, key: Key, results: list[dict[str, Any]]) -> None:
    """Store a hand's analysis (in a worker of the analysis pool): every process serves it."""
    stored.save(_store(database_url), *key, results)


def analyse_stored_hand(database_url: str, key: Key, budget_ms: float | None = None) -> bool:
    """Analyse hand ``key`` from the store and save the result (in a worker of the
    analysis pool). False when there was nothing to do: the hand is analysed
    already, or has no move a player chose."""
    job = hand_job(database_url, key, budget_ms)
    if job is None:
        return False
    save_analysis(database_url, key, analyse_job(job))
    return True


class AnalysisWorkers(Protocol):
    """Processes that search a hand's analysis for this server (a cluster's workers)."""

    async def analyse(self, job: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The analysis of :func:`hand_job`'s ``job``; ``None`` when no worker computed
        it (none alive, Redis down, no answer in time): the server's pool does."""


class Analyst:
    """Analyses finished hands one at a time, in ``executor`` (the bot pool)."""

    def __init__(
        self, store: Store, executor: Executor | None, budget_ms: float | None = None, backlog: int = MAX_BACKLOG,
        duty: float = 1.0, workers: AnalysisWorkers | None = None,
    ) -> None:
        self.store = store
        self.executor = executor
        self.workers = workers  # a cluster's: the searches go to its capicua worker processes
        self.counts = {"worker": 0, "local": 0}  # hands analysed, by where the search ran
        self.budget_ms = budget_ms
        self.backlog = backlog
        self.duty = duty
        self.retry_s = RETRY_S
        self.queued: set[Key] = set()
        self.failed: set[Key] = set()  # given up: every try failed
        self.tries: dict[Key, int] = {}  # failed tries of a hand that will be tried again
        self._retries: dict[Key, asyncio.TimerHandle] = {}
        self._queue: asyncio.Queue[Key] | None = None
        self._worker: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ computing

    def hand_ended(self, table_id: str, match_number: int, hand: int) -> None:
        """A hand of a table with players ended (on the loop): analyse it soon."""
        self._enqueue((table_id, match_number, hand))

    def _enqueue(self, key: Key) -> None:
        if key in self.queued or key in self.failed or key in self._retries or len(self.queued) >= self.backlog:
            return
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="capicua-analyst")
        self.queued.add(key)
        self._queue.put_nowait(key)

    async def _work(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            key = await self._queue.get()
            started = loop.time()
            try:
                await self._analyse(key)
                self.tries.pop(key, None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # one bad hand must not stop the others
                self._failed(key, exc)
            finally:
                self.queued.discard(key)
            if self.duty < 1.0:
                # At most ``duty`` of the time: a busy server ends more hands than one
                # worker can analyse, and the worker's reads and writes of the store
                # would otherwise contend with the tables' appends without a pause.
                await asyncio.sleep((loop.time() - started) * (1.0 - self.duty) / self.duty)

    def _failed(self, key: Key, exc: Exception) -> None:
        """Try ``key`` again later, or give it up after the last of :attr:`retry_s`."""
        tries = self.tries.get(key, 0) + 1
        why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if isinstance(exc, RecordError):  # the record itself is refused: no retry can help
            self.tries.pop(key, None)
            self.failed.add(key)
            log.warning("the analysis of table %s match %d hand %d failed (%s); given up", *key, why)
            return
        if tries > len(self.retry_s):
            self.tries.pop(key, None)
            self.failed.add(key)
            log.warning("the analysis of table %s match %d hand %d failed %d times (%s); given up", *key, tries, why)
            return
        self.tries[key] = tries
        wait = self.retry_s[tries - 1]
        log.warning("the analysis of table %s match %d hand %d failed (%s); tried again in %g s", *key, why, wait)
        self._retries[key] = asyncio.get_running_loop().call_later(wait, self._retry, key)

    def _retry(self, key: Key) -> None:
        del self._retries[key]
        self._enqueue(key)

    async def _analyse(self, key: Key) -> None:
        # The whole hand is one job of the analysis pool: reading the record and the
        # log, replaying, searching and saving. None of it runs in the server's
        # process, whose threads share the interpreter with the event loop.
        loop = asyncio.get_running_loop()
        url = self.store.url
        if self.workers is None:
            if await loop.run_in_executor(self.executor, analyse_stored_hand, url, key, self.budget_ms):
                self.counts["local"] += 1
            return
        # A cluster: the pool reads and saves, a worker process searches when one is alive.
        job = await loop.run_in_executor(self.executor, hand_job, url, key, self.budget_ms)
        if job is None:
            return
        results = await self.workers.analyse(job)
        if results is None:
            results = await loop.run_in_executor(self.executor, analyse_job, job)
            self.counts["local"] += 1
        else:
            self.counts["worker"] += 1
        await loop.run_in_executor(self.executor, save_analysis, url, key, results)

    async def close(self) -> None:
        for handle in self._retries.values():
            handle.cancel()
        self._retries.clear()
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker

    # ------------------------------------------------------------ answering

    async def answer(
        self, table_id: str, match_number: int, may_see: Callable[[Access], bool] | None = None
    ) -> dict[str, Any]:
        """The analysis of a match as far as it is computed: ``{"status": "pending" |
        "ready", "hands"}``; the hands not computed yet are queued. ``may_see``:
        whether the asker may see a match (a private table's are for its players,
        :mod:`capicua.server.http.matchaccess`); None lets anyone see any. Raises
        :class:`AnalysisRefused`, and SQLAlchemy's errors while the store cannot be read."""
        hands, missing = await asyncio.to_thread(self._read, table_id, match_number, may_see)
        for hand in missing:  # not computed yet (a restart, an older match): compute it now
            self._enqueue((table_id, match_number, hand))
        return {"status": "pending" if missing else "ready", "hands": hands}

    def _read(
        self, table_id: str, match_number: int, may_see: Callable[[Access], bool] | None = None
    ) -> tuple[list[dict[str, Any]], list[int]]:
        inputs = stored.inputs(self.store, table_id, match_number)
        if inputs is None:
            if stored.table_known(self.store, table_id):
                raise AnalysisRefused("unknown_match", f"this table has no match {match_number}")
            raise AnalysisRefused("unknown_table", "no such table")
        if may_see is not None and not may_see(access_of(inputs.entries, match_number)):
            raise AnalysisRefused("private_match", "this match was played at a private table: it is for its players")
        rows = stored.load(self.store, table_id, match_number)
        have = {(r["hand"], r["seat"]) for r in rows}
        missing = [
            hand for hand, (seats, _) in sorted(expected(inputs, match_number).items())
            if (table_id, match_number, hand) not in self.failed and any((hand, s) not in have for s in seats)
        ]
        # A hand stored before the answer carried its stakes gets them from its decisions.
        return [analysis.with_stakes(r["result"]) for r in rows], missing


__all__ = ["AnalysisRefused", "AnalysisWorkers", "Analyst", "analyse_job", "analyse_stored_hand", "choices",
           "expected", "hand_job", "save_analysis"]
