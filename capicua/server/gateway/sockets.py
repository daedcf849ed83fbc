"""One websocket: the client's bounds, its hello, its intents to its table, and
the frames back.

The socket tier is the lila-ws half of the server: it reaches a table only
through the :class:`~capicua.server.ports.TableRouter` port and the messages of
:mod:`capicua.table.protocol` (``Join``, ``Leave``, ``FromConn`` to the table;
``Frame``, ``Hears``, ``OwnerChanged`` back on the bus, heard by a
:class:`~capicua.server.gateway.conns.Listener`). It never reads a table's state.

Checks run in this order: sockets per client address (``too_many``, closes),
the hello deadline (``timeout``, closes), the frame rate (``too_fast``; every
frame counts, however large or bad), then :func:`capicua.table.protocol.parse_intent`
(``too_large``, ``malformed``), hello (``unknown_table``, sockets per guest
and per player at a table: ``too_many``), and inside the table everything
else. A slow client never blocks a table: frames wait in the socket's own
queue, and a client that lets it fill up is dropped.

A socket follows its table from owner to owner: told the owner changed
(:class:`~capicua.table.protocol.OwnerChanged`, after another process took the
table over), it says its hello again to the new owner with the last seq it heard,
and the table answers what it missed (the page does not reload, its seat is not
marked offline). Told no process runs the table now, it asks where the table
lives again (loading it here when no process runs it) and says its hello there.
An owner that died holding the lease says nothing: in a cluster one loop of the
process (:meth:`Sockets.follow_leases`) reads, every tenth of a lease and in one
query, the leases of the tables its sockets follow, and when one ran out (or
moved to another owner than the one they follow) those sockets ask again where
the table lives, which takes the lease and loads the table here, and say hello
there, even sockets that were silent all along. When the bus may have lost frames of a table
(:meth:`Sockets.refill`), its sockets here leave and say hello again at once, with
the last seq they heard, so nothing is missing.

A hello to a paused table (its store cannot be written) is told ``paused`` at
once; its welcome follows when the table can save again. A hello whose table
or guest cannot be read from the store now is told ``paused`` too, and tried
again until the store answers (then ``paused: false`` and the welcome).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from capicua.server import metrics
from capicua.server.gateway.conns import ConnIds, Listener
from capicua.server.gateway.identity import Guest, Guests
from capicua.server.gateway.limits import (
    SILENT_SOCKETS,
    SOCKETS_PER_ADDRESS,
    SOCKETS_PER_GUEST,
    ClientAddresses,
    SlidingWindow,
    SocketCounts,
)
from capicua.server.ports import RETRY_S, Bus, Leases, LogUnavailable, TableRouter
from capicua.server.runtime.logsetup import current_table
from capicua.table import protocol
from capicua.table.protocol import (
    Code,
    ConnId,
    FromConn,
    Join,
    Leave,
    ProtocolError,
    Route,
    ToTable,
)

log = logging.getLogger("capicua.server")
LEASE_LOOKS = 10  # looks at the followed tables' leases per lease time
LEASE_MARGIN_S = 0.01  # looked at again this long after a live lease should run out
WS_POLICY_CLOSE = 1008  # the websocket close code for a socket the server refuses
MAX_QUEUE = 2000  # frames waiting for a slow client before it is dropped


@dataclass
class SocketLimits:
    rate: tuple[int, float] = (20, 1.0)  # frames per seconds per socket
    per_player: int = 4  # sockets of one player at one table
    per_client: int = SOCKETS_PER_ADDRESS  # sockets of one client address (the flood guard)
    hello_timeout: float = 10.0  # seconds a new socket has to say hello
    per_guest: int = SOCKETS_PER_GUEST  # sockets of one guest, at every table together
    silent: int = SILENT_SOCKETS  # sockets yet to say hello, in the process: the oldest is shed past it


class Sockets:
    """Every websocket of this process."""

    def __init__(
        self, tables: TableRouter, bus: Bus, guests: Guests, limits: SocketLimits,
        addresses: ClientAddresses | None = None,
        count_sockets: Callable[[str, int], SocketCounts] = lambda kind, cap: SocketCounts(cap),
    ) -> None:
        self.tables = tables
        self.addresses = addresses or ClientAddresses()  # behind trusted proxies: their X-Forwarded-For
        self.bus = bus
        self.guests = guests
        self.conn_ids = ConnIds()
        self.limits = limits
        # Counted here, or across a cluster (count_sockets: adapters.redis_limits.SharedSocketCounts).
        self.per_client = count_sockets("address", limits.per_client)
        self.per_player = count_sockets("seat", limits.per_player)
        self.per_guest = count_sockets("guest", limits.per_guest)
        self.silent: dict[ConnId, _Session] = {}  # sockets yet to say hello, oldest first
        self.at_table: dict[str, set[_Session]] = {}  # the sockets that said hello, by table
        # Whether the process is draining (the app sets it): a socket closed then tells
        # its table it is moving to another process, not gone (runtime/drain.py).
        self.draining: Callable[[], bool] = lambda: False

    def refill(self, table_id: str) -> None:
        """Frames of ``table_id`` may have been lost on the way here (a gap on the bus):
        each of its sockets says hello again with the last seq it heard, and the table
        answers what it missed."""
        for session in list(self.at_table.get(table_id, ())):
            session.refill()

    async def follow_leases(self, leases: Leases) -> None:
        """Run for as long as the process serves (a cluster's: one process has no other
        owner): follow, for every socket here at a table, the lease of the owner it
        follows. Every tenth of a lease, or as a lease should run out if that is
        sooner, the leases of all those tables are read in one query; a lease that ran
        out or was given up (its owner died, is paused or drained) or that another owner
        holds now makes those sockets ask again where their table lives and say hello
        there, which takes the lease over and loads the table in this process when none
        runs it. A live lease of the owner they follow changes nothing. Sockets that
        follow this process are looked at too: woken from a pause past its lease, it
        lost its tables, and its sockets move to the new owner without waiting to be told."""
        every = leases.ttl_ms / 1000 / LEASE_LOOKS
        failing = False
        while True:
            wait = every
            try:
                wait = await self._look(leases, every)
                failing = False
            except LogUnavailable as exc:  # the owners cannot write either: looked at again next time
                if not failing:
                    log.warning("the leases of the tables followed here cannot be read: %s", exc)
                failing = True
            except Exception:  # a fault here must not end the watch for the process's life
                log.exception("following the leases of the tables followed here failed")
            await asyncio.sleep(wait)

    async def _look(self, leases: Leases, every: float) -> float:
        """Read the followed leases once, move the sockets whose owner lost its lease;
        returns how long to wait before the next look."""
        wait = every
        followed = self._following()
        if not followed:
            return wait
        holders = await leases.holders(sorted(followed))
        for table_id, holder in holders.items():
            for session in followed[table_id]:
                owner = session.following()  # read again: it may have moved or closed meanwhile
                if owner is None:
                    continue
                if not holder.live or owner != holder.owner:
                    session.route_again()
                else:
                    wait = min(wait, holder.left_ms / 1000 + LEASE_MARGIN_S)
        return wait

    def _following(self) -> dict[str, list[_Session]]:
        """The sockets here that follow an owner, by table (those asking where theirs
        lives already left out)."""
        out: dict[str, list[_Session]] = {}
        for table_id, sessions in self.at_table.items():
            for session in sessions:
                if session.following() is not None:
                    out.setdefault(table_id, []).append(session)
        return out

    def _quiet(self, session: _Session) -> None:
        """Count ``session`` among the silent sockets, shedding the oldest past the cap."""
        self.silent[session.conn] = session
        while len(self.silent) > self.limits.silent:
            oldest = self.silent.pop(next(iter(self.silent)))
            oldest.error(Code.TOO_MANY, "too many sockets waiting for their hello; reconnect")
            oldest.close()

    async def serve(self, websocket: WebSocket) -> None:
        client = self.addresses.key(websocket.client, websocket.headers.getlist("x-forwarded-for"))
        try:
            await websocket.accept()
        except OSError:  # the client left during the handshake
            return
        if not self.per_client.add(client):
            await _refuse(websocket, Code.TOO_MANY, f"at most {self.limits.per_client} sockets from one address")
            return
        session = _Session(self, websocket, client)
        self._quiet(session)
        try:
            await session.run()
        finally:
            self.silent.pop(session.conn, None)
            self.per_client.remove(client)


class _Session:
    def __init__(self, owner: Sockets, websocket: WebSocket, client: str) -> None:
        self.owner = owner
        self.ws = websocket
        self.client = client
        self.conn = owner.conn_ids.new()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        self.route: Route | None = None  # the table this socket said hello to
        self.listener: Listener | None = None  # what it hears of that table
        self.player_key: tuple[str, str] | None = None
        self.guest_key: str | None = None
        self.limiter = SlidingWindow(*owner.limits.rate)
        self.waiting: asyncio.Task[None] | None = None  # a hello tried again until the store answers
        self.joined: Join | None = None  # the hello as its table was told it (said again to a new owner)
        self.rerouting: asyncio.Task[None] | None = None  # asking where the table lives again
        self.must_rejoin = False  # ... and saying hello there even if it is where it was
        self.asked_at: float | None = None  # when its oldest intent not yet answered by a frame was sent

    def put(self, text: str) -> None:
        """A frame for this client: never blocks."""
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            self.close()
            return
        if self.asked_at is not None:
            metrics.intent_answered(time.monotonic() - self.asked_at)
            self.asked_at = None
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    def error(self, code: Code, message: str) -> None:
        seq = self.listener.seq if self.listener is not None else None
        self.put(json.dumps(protocol.error_frame(code, message, seq)))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        writer = loop.create_task(self._write())
        hello_by = loop.time() + self.owner.limits.hello_timeout
        try:
            while not self.closed:
                said = self.route is not None or self.waiting is not None
                timeout = None if said else hello_by - loop.time()
                msg = await _receive(self.ws, timeout)
                if msg is None:
                    self.error(Code.TIMEOUT, f"a socket says hello within {self.owner.limits.hello_timeout:g} s")
                    break
                if msg["type"] == "websocket.disconnect":
                    break
                await self._frame(msg)
        except (WebSocketDisconnect, OSError) as exc:  # the socket broke: nothing to report
            log.debug("websocket from %s broke: %s", self.client, type(exc).__name__)
        except Exception:  # a server fault, not the client's doing
            log.exception("websocket from %s: server fault", self.client)
            self.error(Code.INTERNAL, "the server failed; reload")
        finally:
            for task in (self.waiting, self.rerouting):
                if task is not None:
                    task.cancel()
            if self.route is not None and self.listener is not None:
                at_table = self.owner.at_table.get(self.route.table)
                if at_table is not None:
                    at_table.discard(self)
                    if not at_table:
                        del self.owner.at_table[self.route.table]
                self.listener.detach()
                if not self.listener.gone:
                    self.owner.tables.send(self.route, Leave(self.conn, moving=self.owner.draining()))
            if self.player_key is not None:
                self.owner.per_player.remove(self.player_key)
            if self.guest_key is not None:
                self.owner.per_guest.remove(self.guest_key)
            self.close()
            with contextlib.suppress(Exception):  # the writer ends on a failed send, which closed the socket
                await writer

    async def _frame(self, msg: Any) -> None:
        text = msg.get("text")
        raw: str | bytes | None = text if text is not None else msg.get("bytes")
        if not self.limiter.allow():
            self.error(Code.TOO_FAST, f"at most {self.limiter.limit} frames in {self.limiter.window:g} s")
            return
        try:
            intent = protocol.parse_intent(raw)
        except ProtocolError as exc:
            self.error(exc.code, exc.message)
            return
        if isinstance(intent, protocol.Ping):
            self.put(json.dumps(protocol.pong_frame()))
        elif isinstance(intent, protocol.Hello):
            await self._hello(intent)
        elif self.waiting is not None:
            self.error(Code.PAUSED, "the table cannot be read right now; nothing changed")
        elif self.route is None or self.listener is None:
            self.error(Code.UNAUTHORIZED, "say hello first")
        elif self.rerouting is not None:
            self.error(Code.PAUSED, "the table is moving to another server; nothing changed, try again")
        elif self.listener.gone:
            self.error(Code.INTERNAL, "the table stopped; reload")
            self.close()
        else:
            if self.asked_at is None:  # the first frame back ends the wait (capicua_intent_frame_seconds)
                self.asked_at = time.monotonic()
            metrics.intent()
            self._tell(FromConn(self.conn, intent))

    async def _hello(self, hello: protocol.Hello) -> None:
        self.owner.silent.pop(self.conn, None)  # it spoke: no longer shed first
        if self.route is not None or self.waiting is not None:
            self.error(Code.MALFORMED, "this socket already said hello")
            return
        try:
            route, guest = await self._find(hello)
        except LogUnavailable:
            # Said at once (the page shows it); the welcome comes once the store answers.
            self.put(json.dumps(protocol.paused_frame(True)))
            self.waiting = asyncio.get_running_loop().create_task(self._hello_later(hello))
            return
        self._join(hello, route, guest)

    async def _find(self, hello: protocol.Hello) -> tuple[Route | None, Guest | None]:
        """Where the table lives (loaded when no process runs it) and the guest of the hello's token."""
        route = await self.owner.tables.route(hello.table)
        guest = await self.owner.guests.find(hello.token) if route is not None else None
        return route, guest

    async def _hello_later(self, hello: protocol.Hello) -> None:
        attempt = 0
        while True:
            await asyncio.sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
            attempt += 1
            try:
                route, guest = await self._find(hello)
                break
            except LogUnavailable:  # still down: the socket has been told it is paused; try after the next wait
                continue
        self.waiting = None
        self.put(json.dumps(protocol.paused_frame(False)))
        self._join(hello, route, guest)
        if self.route is None:  # refused: nothing more for this socket to wait for
            self.close()

    def _join(self, hello: protocol.Hello, route: Route | None, guest: Guest | None) -> None:
        if route is None:
            self.error(Code.UNKNOWN_TABLE, f"no table {hello.table!r}")
            return
        if hello.token is not None and guest is None:
            self.error(Code.UNAUTHORIZED, "this browser's token is unknown here; sign in again")
            return
        if guest is not None:
            if not self.owner.per_guest.add(guest.player):
                self.error(Code.TOO_MANY, f"at most {self.owner.limits.per_guest} sockets per player at all tables")
                self.close()
                return
            self.guest_key = guest.player
        if guest is not None and not hello.watch:
            key = (route.table, guest.player)
            if not self.owner.per_player.add(key):
                self.error(Code.TOO_MANY, f"at most {self.owner.limits.per_player} sockets per player at a table")
                self.close()
                return
            self.player_key = key
        self.route = route
        current_table.set(route.table)  # this socket's log records name its table
        # Heard before the Join is sent: the table's answer goes to conn:ID.
        self.listener = Listener(self.owner.bus, route.table, self.conn, self.put, self.close, self._follow)
        self.owner.at_table.setdefault(route.table, set()).add(self)
        self.joined = Join(self.conn, guest.player if guest else None, guest.nickname if guest else "",
                           hello.last_seq, hello.watch)
        self._tell(self.joined)

    # ------------------------------------------------------------ following the table

    def _tell(self, message: ToTable) -> None:
        assert self.route is not None
        self.owner.tables.send(self.route, message)

    def following(self) -> str | None:
        """The owner this socket's table messages go to (``None``: none yet, or it is
        asking where the table lives)."""
        if self.route is None or self.closed or self.rerouting is not None:
            return None
        return self.route.owner

    def route_again(self) -> None:
        """Its owner's lease ran out or moved: ask where the table lives now, and say
        hello there if that is another process (one already told the new owner by an
        ``OwnerChanged`` follows it: it says no second hello)."""
        self._route_again(rejoin=False)

    def _follow(self, owner: str | None) -> None:
        """The table changed owner: say hello to the new one (``None``: find where it lives now)."""
        if self.route is None or self.closed:
            return
        if owner is None:
            self._route_again(rejoin=True)
        elif owner != self.route.owner:  # the owner it already follows: its hello went there
            self._say_hello_again(Route(self.route.table, owner))

    def _say_hello_again(self, route: Route) -> None:
        assert self.joined is not None and self.listener is not None
        self.route = route
        seq = self.listener.seq
        self._tell(replace(self.joined, last_seq=self.joined.last_seq if seq is None else seq))

    def refill(self) -> None:
        """Frames of the table may have been lost: leave and say hello again with the last seq heard."""
        if self.route is None or self.listener is None or self.listener.gone or self.rerouting is not None:
            return
        self.owner.tables.send(self.route, Leave(self.conn))
        self._say_hello_again(self.route)

    def _route_again(self, rejoin: bool) -> None:
        self.must_rejoin |= rejoin
        if self.rerouting is None and self.route is not None:
            self.rerouting = asyncio.get_running_loop().create_task(self._reroute(self.route.table))

    async def _reroute(self, table_id: str) -> None:
        attempt = 0
        try:
            while True:
                try:
                    route = await self.owner.tables.route(table_id)
                    break
                except LogUnavailable:  # the store, or the process stopping: tried again until the socket closes
                    await asyncio.sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
                    attempt += 1
        finally:
            self.rerouting = None
        if route is None:
            self.error(Code.UNKNOWN_TABLE, f"no table {table_id!r}")
            self.close()
        elif self.must_rejoin or route != self.route:
            self.must_rejoin = False
            self._say_hello_again(route)

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                break
            try:
                await self.ws.send_text(text)
            except Exception as exc:  # the client went away; its reader hears the close
                log.debug("websocket from %s: a send failed (%s)", self.client, type(exc).__name__)
                self.closed = True
                break
        if self.ws.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):  # a socket already broken cannot be closed cleanly: it is gone
                await self.ws.close()


async def _receive(websocket: WebSocket, timeout: float | None) -> Any:
    """The socket's next message, or None when ``timeout`` seconds pass first."""
    if timeout is None:
        return await websocket.receive()
    try:
        return await asyncio.wait_for(websocket.receive(), max(timeout, 0.0))
    except TimeoutError:
        return None


async def _refuse(websocket: WebSocket, code: Code, message: str) -> None:
    """Tell a socket the server will not keep it, and close it."""
    with contextlib.suppress(Exception):  # a client that left first has nothing to be told
        await websocket.send_text(json.dumps(protocol.error_frame(code, message, None)))
        await websocket.close(WS_POLICY_CLOSE)
