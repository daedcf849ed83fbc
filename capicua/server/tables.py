"""Tables as actors.

One asyncio task per table owns its :class:`~capicua.engine.Match` and
processes an inbox of messages one at a time: sockets joining and leaving,
players' intents, bots' decisions. Nothing else changes a table. Each change
is appended to the store before anyone hears of it, then every connected
seat gets the events with its own view (``match.view(seat)``) and nothing
else.

Seats hold a human (by token hash) or a bot (level + neighbour character),
in any mix. Bot decisions run in a process pool (``loop.run_in_executor``),
never on the event loop, and see exactly ``match.view(seat)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import secrets
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from capicua import neighbours
from capicua.engine import EngineError, Match, make_rules, parse_action, replay
from capicua.engine.rules import Rules

log = logging.getLogger("capicua.tables")

# Bot levels from weakest to strongest. The table asks for a level; it plays
# as the strongest level the bots package offers that is not above it.
LEVEL_ORDER = ("random", "botagorda", "medio", "dificil", "experto")
DEFAULT_LEVEL = "medio"
MAX_REPLAYED = 64  # a resuming client missing more events than this gets a fresh sync


def available_levels() -> tuple[str, ...]:
    from capicua import bots

    return tuple(bots.LEVELS)


def plays_as(level: str) -> str:
    """The bot level that actually plays for a requested ``level``."""
    have = available_levels()
    if level in have:
        return level
    idx = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    for cand in reversed(LEVEL_ORDER[: idx + 1]):
        if cand in have:
            return cand
    return have[-1]


def bot_decide(level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
    """Runs in a worker process."""
    from capicua.bots import decide

    return decide(level, view, seed)


def public_event(ev: dict[str, Any]) -> dict[str, Any]:
    """The event as the protocol sends it: ``hand_end`` carries the result's
    kind as ``result_kind``. (The engine now emits it so; this guards
    against records and engines where RESULT's ``kind`` overwrote it.)"""
    if "pip_totals" in ev and "next_opener" in ev and ev.get("kind") != "hand_end":
        return {**ev, "kind": "hand_end", "result_kind": ev.get("kind")}
    return ev


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def dumps(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Seat:
    seat: int
    kind: str  # "human" | "bot"
    name: str
    player_id: str | None = None
    token_hash: str | None = None
    level: str | None = None  # requested bot level
    character: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "name": self.name}
        if self.is_bot:
            out["level"] = self.level
            out["plays_as"] = plays_as(self.level or DEFAULT_LEVEL)
            out["character"] = self.character
            ch = neighbours.BY_ID.get(self.character or "")
            if ch is not None:
                out["tagline"] = {"es": ch.tagline_es, "en": ch.tagline_en}
                out["avatar"] = dict(ch.avatar)
        return out

    def to_store(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "kind": self.kind, "player_id": self.player_id, "name": self.name,
            "level": self.level, "character": self.character,
        }


class Conn:
    """The sending side of one client (a websocket, or a test double).

    The table calls :meth:`put` synchronously; a websocket conn queues the
    text and a writer task sends it, so a slow client never blocks a table.
    """

    MAX_QUEUE = 2000

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.seat: int | None = None
        self.table: Table | None = None
        self.closed = False

    def put(self, frame: dict[str, Any]) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.MAX_QUEUE:
            self.close()
            return
        self.queue.put_nowait(dumps(frame))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class Table:
    """One table's actor. Create through :class:`TableManager`."""

    def __init__(
        self,
        manager: TableManager,
        table_id: str,
        match: Match,
        seats: list[Seat],
        seq: int = 0,
        log_seq: int = 0,
        status: str = "active",
        bot_delay: tuple[float, float] | None = None,
        created_at: str | None = None,
        updated_at: str | None = None,
    ) -> None:
        self.manager = manager
        self.created_at = created_at or now_iso()
        self.updated_at = updated_at or self.created_at
        self.bot_delay = bot_delay
        self.id = table_id
        self.match = match
        self.seats = seats
        self.seq = seq  # protocol sequence number: one per public event
        # The first number of the latest batch of events (the frames of one
        # action): every frame of a batch carries the same final view, so an
        # intent made against any of them is current.
        self.batch_first = seq
        self.log_seq = log_seq  # entries in the store's event log
        self.status = status
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.conns: dict[int, set[Conn]] = {s.seat: set() for s in seats}
        self.history: deque[tuple[int, dict[str, Any]]] = deque(maxlen=manager.history_size)
        self.ready: set[int] = set()
        self.seen: set[int] = set()
        self.rng = random.Random(f"capicua/table/{match.seed}/{seq}")
        self.task: asyncio.Task[None] | None = None
        self.pending: asyncio.Task[None] | None = None
        self.pending_key: tuple[Any, ...] | None = None
        self.crashed: BaseException | None = None
        self.done = False
        self.over = asyncio.Event()  # set when the match is over (tests, housekeeping)
        if match.phase == "match_over":
            self.over.set()

    # ---------------------------------------------------------------- facts
    @property
    def rules(self) -> Rules:
        return self.match.rules

    @property
    def human_seats(self) -> list[int]:
        return [s.seat for s in self.seats if not s.is_bot]

    def connected(self) -> set[int]:
        return {s for s, cs in self.conns.items() if cs and not self.seats[s].is_bot}

    def seat_for_token(self, token: str) -> int | None:
        th = hashlib.sha256(token.encode()).hexdigest()
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, th):
                return s.seat
        return None

    def summary(self) -> dict[str, Any]:
        m = self.match
        connected = self.connected()
        return {
            "id": self.id,
            "preset": self.rules.preset,
            "rules": self.rules.describe(),
            "status": self.status,
            "phase": m.phase,
            "hand_number": len(m.hands),
            "scores": list(m.scores),
            "seq": self.seq,
            "match_result": m.match_result,
            "seats": [dict(s.public(), connected=s.seat in connected) for s in self.seats],
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    # ---------------------------------------------------------------- actor
    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    def post(self, *msg: Any) -> None:
        self.inbox.put_nowait(msg)

    async def stop(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _run(self) -> None:
        self._schedule()
        while not self.done:
            msg = await self.inbox.get()
            try:
                await self._handle(msg)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug or a store failure: stop this table, keep the server
                log.exception("table %s crashed on %r", self.id, msg[0])
                self.crashed = exc
                for conns in self.conns.values():
                    for c in conns:
                        c.put({"type": "error", "code": "internal", "message": "the table stopped; reload", "seq": self.seq})
                        c.close()
                self.manager.forget(self)
                return

    async def _handle(self, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "join":
            await self._join(msg[1], msg[2], msg[3])
        elif kind == "leave":
            conn = msg[1]
            for conns in self.conns.values():
                conns.discard(conn)
            if self.status == "finished" and not any(self.conns.values()):
                # Nobody looks at a finished match any more: free the memory
                # (the store keeps it; a later hello loads it again).
                self.manager.forget(self)
                self.done = True
        elif kind == "intent":
            await self._intent(msg[1], msg[2])
        elif kind == "bot":
            _, seat, action, key = msg
            if key == self.pending_key:
                self.pending = None
                self.pending_key = None
                await self._bot_action(seat, action)
        elif kind == "auto_next":
            if msg[1] == self.pending_key:
                self.pending = None
                self.pending_key = None
                if self.match.phase in ("new", "hand_over"):
                    await self._start_hand()
        elif kind == "call":  # run a function inside the actor (tests, admin)
            fn, fut = msg[1], msg[2]
            try:
                fut.set_result(fn(self))
            except Exception as exc:
                fut.set_exception(exc)

    # ---------------------------------------------------------------- joins
    async def _join(self, conn: Conn, seat: int, last_seq: int) -> None:
        conn.seat = seat
        conn.table = self
        self.conns[seat].add(conn)
        self.seen.add(seat)
        conn.put({"type": "welcome", "seat": seat, "protocol": 1, "table": self.summary()})
        missed = [(s, e) for s, e in self.history if s > last_seq]
        covered = bool(missed) and missed[0][0] == last_seq + 1
        if 0 < last_seq < self.seq and covered and len(missed) <= MAX_REPLAYED:
            view = self.match.view(seat)
            for s, ev in missed:
                conn.put({"type": "event", "seq": s, "event": ev, "view": view, "replayed": True})
        else:
            conn.put({"type": "sync", "seq": self.seq, "view": self.match.view(seat)})
        if self.match.phase == "new" and set(self.human_seats) <= self.seen:
            await self._start_hand()

    # -------------------------------------------------------------- intents
    def _error(self, conn: Conn, code: str, message: str) -> None:
        conn.put({"type": "error", "code": code, "message": message, "seq": self.seq})

    async def _intent(self, conn: Conn, frame: dict[str, Any]) -> None:
        seat = conn.seat
        if seat is None or conn not in self.conns.get(seat, ()):
            self._error(conn, "unauthorized", "say hello first")
            return
        if not (frame["seq"] == self.seq or self.batch_first <= frame["seq"] <= self.seq):
            self._error(conn, "stale", f"the table is at {self.seq}; you played against {frame['seq']}")
            return
        kind = frame["type"]
        if kind == "next_hand":
            if self.match.phase != "hand_over":
                self._error(conn, "bad_phase", "the hand is not over" if self.match.phase != "match_over" else "the match is over")
                return
            self.ready.add(seat)
            if set(self.human_seats) <= self.ready:
                await self._start_hand()
            return
        try:
            if kind == "play":
                action = parse_action({"tile": frame.get("tile"), "end": frame.get("end")}, self.rules.max_pip)
            else:  # redeal
                action = parse_action({"redeal": frame.get("accept")}, self.rules.max_pip)
            self.match.check(seat, action)
        except EngineError as exc:
            self._error(conn, getattr(exc, "code", "illegal"), str(exc))
            return
        await self._apply(seat, action.to_json())

    async def _bot_action(self, seat: int, action_json: dict[str, Any]) -> None:
        try:
            action = parse_action(action_json, self.rules.max_pip)
            self.match.check(seat, action)
        except EngineError:
            log.warning("table %s: bot at seat %d chose %r; playing its first legal move", self.id, seat, action_json)
            action = self.match.legal_moves()[0]
        await self._apply(seat, action.to_json())

    # --------------------------------------------------------------- change
    async def _apply(self, seat: int, action_json: dict[str, Any]) -> None:
        """Apply a checked action, persist it, then tell everyone."""
        action = parse_action(action_json, self.rules.max_pip)
        events = self.match.apply(seat, action)
        entry = {"op": "action", "seat": seat, "action": action_json, "table_seq": self.seq + len(events)}
        await self._commit(entry, events)

    async def _start_hand(self) -> None:
        present = sorted(self.connected())
        events = self.match.start_hand(frozenset(present))
        self.ready.clear()
        entry = {"op": "start_hand", "present": present, "table_seq": self.seq + len(events)}
        await self._commit(entry, events)

    async def _commit(self, entry: dict[str, Any], events: list[dict[str, Any]]) -> None:
        events = [public_event(e) for e in events]
        m = self.match
        store = self.manager.store
        self.log_seq += 1
        self.updated_at = now_iso()
        if store is not None:
            await self.manager.store_call(store.append_events, self.id, self.log_seq, [entry])
            if any(e["kind"] == "hand_end" for e in events):
                status = "finished" if m.phase == "match_over" else "active"
                await self.manager.store_call(store.update_match, self.id, status, list(m.scores), m.record())
        if m.phase == "match_over":
            self.status = "finished"
            self.over.set()
        self._broadcast(events)
        self._chat(events)
        self._schedule()

    def _broadcast(self, events: list[dict[str, Any]]) -> None:
        self.batch_first = self.seq + 1
        views = {seat: self.match.view(seat) for seat, conns in self.conns.items() if conns}
        for ev in events:
            self.seq += 1
            self.history.append((self.seq, ev))
            for seat, conns in self.conns.items():
                for c in list(conns):
                    c.put({"type": "event", "seq": self.seq, "event": ev, "view": views[seat]})

    def _send_all(self, frame: dict[str, Any]) -> None:
        for conns in self.conns.values():
            for c in list(conns):
                c.put(frame)

    # ------------------------------------------------------------ neighbours
    def _chat(self, events: list[dict[str, Any]]) -> None:
        """Neighbours comment on what just happened (not on every event)."""
        for line in neighbours.table_talk(self.rng, self.rules, self.seats, events):
            self._send_all({"type": "chat", "seq": self.seq, **line})

    # ------------------------------------------------------------- schedule
    def _schedule(self) -> None:
        """Start whatever the table waits for that is not a human: a bot's move, the next hand."""
        if self.pending is not None:
            return
        m = self.match
        loop = asyncio.get_running_loop()
        if m.phase in ("play", "redeal_question"):
            seat = m.turn
            if seat is None or not self.seats[seat].is_bot:
                return
            key = ("bot", self.seq, seat)
            view = m.view(seat)
            level = plays_as(self.seats[seat].level or DEFAULT_LEVEL)
            hand = m.hand
            assert hand is not None
            seed_src = f"capicua/bot/{m.seed}/{hand.number}/{len(hand.actions)}/{seat}"
            seed = int.from_bytes(hashlib.sha256(seed_src.encode()).digest()[:8], "big")
            self.pending_key = key
            self.pending = loop.create_task(self._think(seat, level, view, seed, key))
        elif m.phase in ("new", "hand_over") and not self.human_seats:
            key = ("next", self.seq)
            self.pending_key = key
            self.pending = loop.create_task(self._later(key))

    def _delay(self) -> float:
        lo, hi = self.bot_delay or self.manager.bot_delay
        if hi <= 0:
            return 0.0
        return self.rng.uniform(lo, hi)

    async def _think(self, seat: int, level: str, view: dict[str, Any], seed: int, key: tuple[Any, ...]) -> None:
        delay = self._delay()
        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(self.manager.executor, bot_decide, level, view, seed)
            if delay:
                await asyncio.sleep(delay)
            action = await fut
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bot at seat %d failed; playing its first legal move", self.id, seat)
            legal = view.get("legal") or []
            action = dict(legal[0]) if legal else {}
        self.post("bot", seat, action, key)

    async def _later(self, key: tuple[Any, ...]) -> None:
        delay = self._delay()
        if delay:
            await asyncio.sleep(delay * 2)
        else:
            await asyncio.sleep(0)
        self.post("auto_next", key)

    # ---------------------------------------------------------------- tests
    async def call(self, fn: Callable[[Table], Any]) -> Any:
        """Run ``fn(table)`` inside the actor, between two messages."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.post("call", fn, fut)
        return await fut


class TableManager:
    """Every table this process owns: creates them, loads them from the store, finds them."""

    def __init__(
        self,
        store: Any,
        executor: Executor | None,
        bot_delay: tuple[float, float] = (0.6, 1.5),
        store_executor: Executor | None = None,
        history_size: int = 256,
    ) -> None:
        self.store = store
        self.executor = executor
        self.bot_delay = bot_delay
        self.store_executor = store_executor
        self.history_size = history_size
        self.tables: dict[str, Table] = {}
        self._loading = asyncio.Lock()

    async def store_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.store_executor, fn, *args)

    def forget(self, table: Table) -> None:
        if self.tables.get(table.id) is table:
            del self.tables[table.id]

    async def create(
        self,
        preset: str,
        options: dict[str, Any],
        seats: list[Seat],
        seed: str | None = None,
        bot_delay: tuple[float, float] | None = None,
    ) -> Table:
        """A new table; raises ``RulesError`` for impossible rules."""
        rules = make_rules(preset, **options)
        if len(seats) != rules.players:
            raise ValueError(f"this game needs {rules.players} seats")
        table_id = "t_" + secrets.token_hex(6)
        match = Match(rules, seed or secrets.token_hex(16))
        if self.store is not None:
            for s in seats:
                if not s.is_bot and s.player_id is None and s.token_hash is not None:
                    s.player_id = await self.store_call(self.store.add_player, s.name, s.token_hash)
            await self.store_call(
                self.store.create_match, table_id, preset, dict(options), match.seed, rules.teams,
                [s.to_store() for s in seats],
            )
        table = Table(self, table_id, match, seats, bot_delay=bot_delay)
        self.tables[table_id] = table
        table.start()
        return table

    async def get(self, table_id: str) -> Table | None:
        """The table, loading it from the store when this process does not hold it."""
        table = self.tables.get(table_id)
        if table is not None or self.store is None:
            return table
        async with self._loading:
            table = self.tables.get(table_id)
            if table is not None:
                return table
            data = await self.store_call(self.store.load_match, table_id)
            if data is None:
                return None
            table = rebuild(self, data)
            self.tables[table_id] = table
            table.start()
            return table

    async def restore_active(self) -> list[str]:
        """Rebuild every unfinished table from the store (at startup)."""
        if self.store is None:
            return []
        ids = await self.store_call(self.store.active_match_ids)
        restored = []
        for tid in ids:
            try:
                if await self.get(tid) is not None:
                    restored.append(tid)
            except Exception:
                log.exception("could not restore table %s", tid)
        return restored

    async def close(self) -> None:
        for t in list(self.tables.values()):
            await t.stop()
        self.tables.clear()


def rebuild(manager: TableManager, data: dict[str, Any]) -> Table:
    """A table from its stored rows: replay the log through the engine."""
    rules = make_rules(data["preset"], **data["options"])
    match = Match(rules, data["seed"])
    seq = 0
    for entry in data["events"]:
        op = entry.get("op")
        if op == "start_hand":
            match.start_hand(frozenset(entry.get("present") or ()))
        elif op == "action":
            match.apply(entry["seat"], parse_action(entry["action"], rules.max_pip))
        else:
            raise ValueError(f"unknown log entry {entry!r}")
        seq = entry.get("table_seq", seq)
    # The engine's own replay re-validates the whole record.
    replay(match.record())
    seats = [
        Seat(
            seat=s["seat"], kind=s["kind"], name=s["name"], player_id=s.get("player_id"),
            token_hash=s.get("token_hash"), level=s.get("level"), character=s.get("character"),
        )
        for s in data["seats"]
    ]
    status = "finished" if match.phase == "match_over" else data.get("status", "active")
    table = Table(
        manager, data["id"], match, seats, seq=seq, log_seq=len(data["events"]), status=status,
        created_at=data.get("created_at"), updated_at=data.get("updated_at"),
    )
    table.seen = set()
    return table
