"""The bus and the table router over Redis, for a cluster of server processes.

:class:`RedisBus` (:class:`~capicua.server.ports.Bus`) carries a table's
:data:`~capicua.table.protocol.ToGateway` messages to every process holding a
socket of the table; :class:`RedisRouter` (:class:`~capicua.server.ports.TableRouter`)
carries a socket's :data:`~capicua.table.protocol.ToTable` messages to the one
process that owns the table. The two directions use different Redis structures
on purpose:

- **Frames: pub/sub**, one channel per table (``capicua:t:<table>``). A frame
  goes to however many gateways hold sockets of the table, and pub/sub is
  Redis's fan-out: one ``PUBLISH``, no per-reader state on the server, nothing
  kept once delivered. Pub/sub may lose messages (a dropped connection, Redis
  restarted) and that is tolerated, because the table's log in the store is
  the truth: each message carries its publisher's count for the table, so a
  subscriber that sees the count jump, or that had to reconnect, calls
  ``on_gap(table, last_seq)`` and the gateway refills its sockets from the log
  (``last_seq``: the table's sequence number in the last frame it heard).
  A process keeps **one** pub/sub connection, subscribes each table's channel
  once however many of its sockets hear the table, and hands each message to
  the sinks of its audience itself: a socket never hears another audience's
  frames (a seat's hidden tiles stay the seat's).
- **Intents: a Stream per owner process** (``capicua:o:<owner>``), appended
  with ``XADD … MAXLEN ~`` and read by the owner with ``XREAD BLOCK``. An intent
  is one player's action, addressed to exactly one process, and must not be
  lost because that process is busy for a moment: a Stream keeps it until the
  owner reads it (pub/sub would drop it if the owner's connection were slow
  or reconnecting), in order, and the owner reads many at a time. Each entry
  carries its sender and the sender's count, so one resent after a broken
  connection is delivered once.

Both survive Redis restarting without persistence: every loop reconnects with
backoff (0.1 s up to 5 s), the bus subscribes again and reports a gap for every
table it hears; frames published while Redis is away are dropped (the gap
refills them), intents sent meanwhile are kept in memory (up to
:data:`OUTBOX_MAX`) and sent when it is back. Nothing raises into the event
loop, and an outage is one warning line (and one line when Redis is back),
however many messages it costs.

A socket's hello must not reach its table before the socket can hear the
answer: :class:`RedisRouter` sends a message only once the bus's subscription
to the table's channel is in place at Redis (:meth:`RedisBus.heard`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from capicua.server import metrics
from capicua.server.adapters.memory import AudienceSinks, AudienceSub
from capicua.table.protocol import Frame, Route, ToGateway, ToTable
from capicua.table.wire import to_gateway_from_json, to_json, to_table_from_json

log = logging.getLogger("capicua.redis")

CHANNEL = "capicua:t:"  # + table id: the table's frames (pub/sub)
INBOX = "capicua:o:"  # + owner name: the owner's intents (a Stream)
INBOX_MAXLEN = 10_000  # entries an inbox keeps (about: MAXLEN ~) for an owner that reads late
OUTBOX_MAX = 100_000  # messages a process holds while Redis is away, then it drops the newest
BATCH = 512  # messages per pipeline, entries per XREAD
BACKOFF_S = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)  # waits between attempts to reach Redis
HEARD_WAIT_S = 2.0  # how long a hello waits for its table's subscription before it goes anyway
XREAD_BLOCK_MS = 1_000
COUNTERS_MAX = 100_000  # tables whose publish count a process remembers (least recently published forgotten)
MARK = "-"  # the audience of a message that carries no message, only its publisher's count


def _backoff(attempt: int) -> float:
    return BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]


class Outage:
    """What a process says about Redis: one warning when it is lost, one line when it
    is back, whichever of the process's Redis loops notices first."""

    def __init__(self, url: str) -> None:
        self.where = url.split("@")[-1]  # no password in the log
        self.down_since: float | None = None
        self.back_at = 0.0

    def failed(self, exc: BaseException, started: float) -> None:
        """An operation begun at ``started`` (``time.monotonic()``) failed."""
        metrics.redis_error()
        if started < self.back_at:
            return  # begun before Redis came back: the outage it saw is over
        if self.down_since is None:
            self.down_since = time.monotonic()
            log.warning("redis at %s unreachable (%s: %s); retrying", self.where, type(exc).__name__, exc)

    def ok(self) -> None:
        if self.down_since is not None:
            self.back_at = time.monotonic()
            log.warning("redis at %s back after %.1f s", self.where, self.back_at - self.down_since)
            self.down_since = None

    @property
    def down(self) -> bool:
        return self.down_since is not None


def _client(url: str, retries: bool = True) -> Redis:
    """A client of ``url``. ``retries``: redis-py reconnects a broken connection and
    sends the command again (a pooled connection Redis closed while it was idle);
    without, the first error reaches the caller (the pub/sub loop rebuilds its
    connection itself, to know that it lost messages)."""
    if retries:
        return Redis.from_url(url, socket_keepalive=True)
    return Redis.from_url(url, socket_keepalive=True, retry=Retry(NoBackoff(), 0))


class RedisBus:
    """:class:`~capicua.server.ports.Bus` over Redis pub/sub (the module says why).

    ``on_gap(table, last_seq)`` is called (on the loop) when this process may have
    missed messages of a table it hears: ``last_seq`` is the table's sequence number
    in the last frame heard (``None``: none yet). Call :meth:`start` on the running
    loop before use and :meth:`close` at the end."""

    def __init__(self, url: str, on_gap: Callable[[str, int | None], None], outage: Outage | None = None) -> None:
        self.name = secrets.token_hex(6)  # this publisher, in every message it sends
        self.on_gap = on_gap
        self.outage = outage or Outage(url)
        self._pub = _client(url)
        self._sub_client = _client(url, retries=False)
        self._tasks: list[asyncio.Task[None]] = []
        # subscribing
        self.sinks = AudienceSinks()  # this process's subscriptions, by table and audience
        self._pubsub: PubSub | None = None
        self._asked: set[str] = set()  # tables whose channel this connection asked to subscribe
        self._confirmed: set[str] = set()  # ... and Redis confirmed
        self._lost: set[str] = set()  # tables heard on a connection that broke: a gap once subscribed again
        self._dirty: set[str] = set()  # tables whose subscription may have to change
        self._dirty_event = asyncio.Event()
        self._waiting: dict[str, asyncio.Event] = {}  # tables a hello waits on (heard)
        self._counts: dict[str, dict[str, int]] = {}  # table -> publisher -> its last count heard
        self._last_seq: dict[str, int] = {}
        # publishing
        self._published: OrderedDict[str, int] = OrderedDict()  # table -> this publisher's count
        self._outbox: deque[tuple[str, str]] = deque()  # (table, message) not yet sent
        self._dropped: set[str] = set()  # tables with messages lost here: their count is published again
        self._outbox_event = asyncio.Event()
        self.published = 0  # messages sent to Redis (a benchmark's count)

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._listen(), name="redis-bus-listen"),
            asyncio.create_task(self._subscribe_loop(), name="redis-bus-subscribe"),
            asyncio.create_task(self._publish_loop(), name="redis-bus-publish"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        await self._pub.aclose()
        await self._sub_client.aclose()

    # ------------------------------------------------------------ the port

    def subscribe(
        self, table_id: str, audiences: tuple[str, ...], sink: Callable[[ToGateway], None]
    ) -> AudienceSub:
        sub = AudienceSub(table_id, audiences, sink, self._drop)
        if self.sinks.add(sub):
            self._touch(table_id)
        return sub

    def _drop(self, sub: AudienceSub) -> None:
        if self.sinks.remove(sub):
            self._touch(sub.table_id)

    def publish(self, table_id: str, audience: str, message: ToGateway) -> None:
        seq = message.seq if isinstance(message, Frame) else None
        self._send(table_id, audience, seq, json.dumps(to_json(message), separators=(",", ":")))

    async def heard(self, table_id: str) -> None:
        """Returns once this process hears the table's channel (at most :data:`HEARD_WAIT_S`;
        at once when no socket here listens to the table)."""
        if table_id in self._confirmed or table_id not in self.sinks.tables:
            return
        event = self._waiting.setdefault(table_id, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), HEARD_WAIT_S)
        except TimeoutError:  # Redis away: the hello goes anyway, and the gap once it is back refills the socket
            if self._waiting.get(table_id) is event:
                del self._waiting[table_id]

    # ------------------------------------------------------------ publishing

    def _send(self, table_id: str, audience: str, seq: int | None, body: str) -> None:
        count = self._published.pop(table_id, 0) + 1
        self._published[table_id] = count  # most recently published last
        if len(self._published) > COUNTERS_MAX:
            self._published.popitem(last=False)  # its next message counts from 1: subscribers start over
        if len(self._outbox) >= OUTBOX_MAX:
            self._dropped.add(table_id)
            return
        seq_text = "-" if seq is None else str(seq)
        self._outbox.append((table_id, f"{self.name} {count} {seq_text} {audience}\n{body}"))
        self._outbox_event.set()

    async def _publish_loop(self) -> None:
        attempt = 0
        while True:
            await self._outbox_event.wait()
            self._outbox_event.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(BATCH, len(self._outbox)))]
                started = time.monotonic()
                try:
                    async with self._pub.pipeline(transaction=False) as pipe:
                        for table_id, data in batch:
                            pipe.publish(CHANNEL + table_id, data)
                        await pipe.execute()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    # Dropped, not resent: a subscriber that refilled from the log since
                    # must not hear them after newer frames. Their tables' counts are
                    # published once Redis is back, so subscribers see the jump.
                    self.outage.failed(exc, started)
                    self._dropped.update(t for t, _ in batch)
                    await asyncio.sleep(_backoff(attempt))
                    attempt += 1
                    continue
                self.published += len(batch)
                attempt = 0
                self.outage.ok()
                if self._dropped:
                    for table_id in self._dropped:
                        count = self._published.get(table_id)
                        if count is not None:
                            self._outbox.append((table_id, f"{self.name} {count} - {MARK}\n"))
                    self._dropped.clear()

    # ------------------------------------------------------------ subscribing

    def _touch(self, table_id: str) -> None:
        self._dirty.add(table_id)
        self._dirty_event.set()

    async def _subscribe_loop(self) -> None:
        """Asks Redis for the channels of the tables heard here, and no others. It runs
        after the callbacks of the moment: a socket that moves from one audience of a
        table to another (unsubscribes, then subscribes) changes nothing at Redis."""
        while True:
            await self._dirty_event.wait()
            self._dirty_event.clear()
            pubsub = self._pubsub
            if pubsub is None:
                continue  # not connected: connecting subscribes every table heard
            dirty, self._dirty = self._dirty, set()
            wanted = [t for t in dirty if t in self.sinks.tables and t not in self._asked]
            unwanted = [t for t in dirty if t not in self.sinks.tables and t in self._asked]
            for t in unwanted:
                self._asked.discard(t)
                self._confirmed.discard(t)
                self._lost.discard(t)
                self._counts.pop(t, None)
                self._last_seq.pop(t, None)
            self._asked.update(wanted)
            try:
                if wanted:
                    await pubsub.subscribe(*(CHANNEL + t for t in wanted))
                if unwanted:
                    await pubsub.unsubscribe(*(CHANNEL + t for t in unwanted))
            except asyncio.CancelledError:
                raise
            except Exception:  # the connection broke: the listener notices, reconnects and subscribes again
                log.debug("redis bus: subscribing failed; the listener reconnects", exc_info=True)

    async def _listen(self) -> None:
        attempt = 0
        while True:
            started = time.monotonic()
            pubsub = self._sub_client.pubsub()
            try:
                await pubsub.connect()  # type: ignore[no-untyped-call]
                self._pubsub = pubsub
                attempt = 0
                self.outage.ok()
                started = time.monotonic()
                self._dirty.update(self.sinks.tables)  # subscribe every table heard, on this connection
                self._dirty_event.set()
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None:
                        self._on_message(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.outage.failed(exc, started)
            finally:
                if self._pubsub is pubsub:
                    self._lost |= self._confirmed
                    self._asked.clear()
                    self._confirmed.clear()
                    self._pubsub = None
                try:
                    await pubsub.aclose()
                except Exception:  # a broken connection closes with an error: it is closed all the same
                    log.debug("redis bus: closing a broken pub/sub connection", exc_info=True)
            await asyncio.sleep(_backoff(attempt))
            attempt += 1

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        channel = message["channel"]
        table_id = (channel.decode() if isinstance(channel, bytes) else str(channel))[len(CHANNEL):]
        if kind == "message":
            try:
                self._deliver(table_id, message["data"])
            except Exception:  # a message this process cannot read: the others still can
                log.exception("redis bus: a message of table %s could not be delivered", table_id)
        elif kind == "subscribe" and table_id in self._asked:
            self._confirmed.add(table_id)
            waiting = self._waiting.pop(table_id, None)
            if waiting is not None:
                waiting.set()
            if table_id in self._lost:
                self._lost.discard(table_id)
                self._counts.pop(table_id, None)
                self._gap(table_id)

    def _gap(self, table_id: str) -> None:
        try:
            self.on_gap(table_id, self._last_seq.get(table_id))
        except Exception:  # the refill failed: this table's sockets wait for the next gap or hello
            log.exception("redis bus: refilling table %s failed", table_id)

    def _deliver(self, table_id: str, data: bytes) -> None:
        head, _, body = data.partition(b"\n")
        publisher, count_text, seq_text, audience = head.decode().split(" ")
        count = int(count_text)
        counts = self._counts.setdefault(table_id, {})
        last = counts.get(publisher)
        if last is not None and count <= last and count != 1:
            return  # sent twice (a resent pipeline): heard already
        counts[publisher] = count
        if seq_text != "-":
            self._last_seq[table_id] = int(seq_text)
        if last is not None and count > last + 1:
            self._gap(table_id)
        targets = self.sinks.targets(table_id, audience) if audience != MARK else set()
        if targets:
            AudienceSinks.hand(targets, table_id, to_gateway_from_json(json.loads(body)))


class RedisRouter:
    """:class:`~capicua.server.ports.TableRouter` over Redis Streams (the module says why).

    ``me`` names this process as an owner (the name routes carry); ``owner_of(table)``
    answers which process owns a table (taking it when none does: the lease is the
    owner's business), ``None`` for no such table; ``deliver(route, message)`` hands a
    message addressed to this process to its table (the registry's own ``send``).
    A message for this process is delivered here without crossing Redis. ``bus``:
    this process's bus, so that a socket's message goes only once the socket hears
    its table (:meth:`RedisBus.heard`). Call :meth:`start` on the running loop
    before use and :meth:`close` at the end."""

    def __init__(
        self,
        url: str,
        me: str,
        owner_of: Callable[[str], Awaitable[str | None]],
        deliver: Callable[[Route, ToTable], None],
        bus: RedisBus | None = None,
        outage: Outage | None = None,
    ) -> None:
        self.me = me
        self.owner_of = owner_of
        self.deliver = deliver
        self.bus = bus
        self.outage = outage or (bus.outage if bus is not None else Outage(url))
        self.name = secrets.token_hex(6)  # this sender, in every entry it appends
        self._client = _client(url)
        self._reader = _client(url)  # XREAD BLOCK holds its connection
        self._tasks: list[asyncio.Task[None]] = []
        self._count = 0
        self._outbox: deque[tuple[Route, ToTable, int]] = deque()  # with this sender's count
        self._outbox_event = asyncio.Event()
        self._heard_from: dict[str, int] = {}  # sender -> its last count read here
        self.sent = 0
        self.received = 0

    @property
    def inbox(self) -> str:
        return INBOX + self.me

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._send_loop(), name="redis-router-send"),
            asyncio.create_task(self._read_loop(), name="redis-router-read"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        try:
            await self._client.delete(self.inbox)  # no one else reads it
        except Exception:  # Redis away: the inbox is bounded, and gone with the next restart
            log.debug("redis router: could not delete inbox %s", self.inbox, exc_info=True)
        await self._client.aclose()
        await self._reader.aclose()

    # ------------------------------------------------------------ the port

    async def route(self, table_id: str) -> Route | None:
        owner = await self.owner_of(table_id)
        return None if owner is None else Route(table_id, owner)

    def send(self, route: Route, message: ToTable) -> None:
        if len(self._outbox) >= OUTBOX_MAX:
            log.warning("redis router: %d messages wait for redis; one for %s dropped", OUTBOX_MAX, route.table)
            return
        self._count += 1
        self._outbox.append((route, message, self._count))
        self._outbox_event.set()

    # ------------------------------------------------------------ sending

    async def _send_loop(self) -> None:
        while True:
            await self._outbox_event.wait()
            self._outbox_event.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(BATCH, len(self._outbox)))]
                if self.bus is not None:
                    await asyncio.gather(*(self.bus.heard(t) for t in {r.table for r, _, _ in batch}))
                remote = []
                for route, message, count in batch:
                    if route.owner == self.me:
                        self._hand(route, message)
                    else:
                        remote.append((route, message, count))
                if remote:
                    await self._append(remote)

    async def _append(self, remote: list[tuple[Route, ToTable, int]]) -> None:
        """XADD each message to its owner's inbox, trying until Redis takes them: the
        messages behind wait, so each owner reads a sender's messages in order (a copy
        that did arrive before an error is read once: the owner skips a count it has read)."""
        entries = [
            (INBOX + route.owner, {
                "t": route.table, "s": self.name, "n": count,
                "m": json.dumps(to_json(message), separators=(",", ":")),
            })
            for route, message, count in remote
        ]
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for inbox, entry in entries:
                        pipe.xadd(inbox, entry, maxlen=INBOX_MAXLEN, approximate=True)  # type: ignore[arg-type]
                    await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.outage.failed(exc, started)
                await asyncio.sleep(_backoff(attempt))
                attempt += 1
                continue
            self.outage.ok()
            self.sent += len(entries)
            return

    def _hand(self, route: Route, message: ToTable) -> None:
        try:
            self.deliver(route, message)
        except Exception:  # one table's fault must not stop the inbox
            log.exception("redis router: table %s failed to take a message", route.table)

    # ------------------------------------------------------------ reading

    async def _read_loop(self) -> None:
        # The inbox is this process's alone (its name is new with the process), so it
        # is read from its start. Redis restarted empty makes entry ids from its clock
        # again, later than the last one read here: the same last id reads on.
        last_id = "0-0"
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                answer = cast(
                    "list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None",
                    await self._reader.xread({self.inbox: last_id}, count=BATCH, block=XREAD_BLOCK_MS),
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.outage.failed(exc, started)
                await asyncio.sleep(_backoff(attempt))
                attempt += 1
                continue
            attempt = 0
            self.outage.ok()
            for _stream, entries in answer or ():
                for entry_id, fields in entries:
                    last_id = entry_id.decode()
                    self._read_entry(fields)

    def _read_entry(self, fields: dict[bytes, bytes]) -> None:
        try:
            sender = fields[b"s"].decode()
            count = int(fields[b"n"])
            if count <= self._heard_from.get(sender, 0):
                return  # sent twice (a resent pipeline): delivered already
            self._heard_from[sender] = count
            route = Route(fields[b"t"].decode(), self.me)
            message = to_table_from_json(json.loads(fields[b"m"]))
        except Exception:  # an entry this process cannot read: the next ones still can
            log.exception("redis router: an unreadable entry in %s", self.inbox)
            return
        self.received += 1
        self._hand(route, message)
