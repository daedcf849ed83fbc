"""A socket's side of the gateway ↔ table messages: its id, and what it hears of its table.

A socket is named by a :data:`~capicua.table.protocol.ConnId` that no other
gateway makes, in this process or another (:class:`ConnIds`): its audience
``conn:ID`` on a bus shared by a cluster is its alone. A :class:`Listener` is
the socket's place at one table: it subscribes the socket to its own audience,
moves it to the audience the table names (:class:`~capicua.table.protocol.Hears`),
hands it the frames, and notices when the table refuses it or leaves its owner
(its socket follows the new owner: :mod:`capicua.server.gateway.sockets`).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable

from capicua.server.ports import Bus, Subscription
from capicua.table.protocol import (
    ConnId,
    Frame,
    Hears,
    OwnerChanged,
    ToGateway,
    conn_audience,
)

PREFIX_BYTES = 6  # 48 random bits per gateway: two gateways of a cluster share a prefix once in ~10^14 pairs


class ConnIds:
    """Connection ids of one gateway: its random prefix and a counter (``3f9a2c1b0d4e.1a``).

    The prefix is drawn per gateway, not per process, so two gateways in one
    process (tests, a benchmark) never make the same id either."""

    def __init__(self) -> None:
        self.prefix = secrets.token_hex(PREFIX_BYTES)
        self._count = itertools.count(1)

    def new(self) -> ConnId:
        return ConnId(f"{self.prefix}.{next(self._count):x}")


class Listener:
    """What socket ``conn`` hears of table ``table_id``: ``put(text)`` gets each frame,
    ``close()`` is called when the table refused the socket's hello, ``follow(owner)``
    when the table changed owner (``None``: no process runs it now).

    ``seq`` is the table's sequence number as of the last frame heard (the gateway's
    own errors carry it, a hello said again asks from it); ``gone`` is true from the
    moment the table left its owner for no other (it stopped) until a table takes
    the socket's hello again. Without ``follow``, the socket stops hearing the table
    at any change of owner and stays gone."""

    def __init__(
        self, bus: Bus, table_id: str, conn: ConnId, put: Callable[[str], None], close: Callable[[], None],
        follow: Callable[[str | None], None] | None = None,
    ) -> None:
        self.bus = bus
        self.table_id = table_id
        self.conn = conn
        self.put = put
        self.close = close
        self.follow = follow
        self.seq: int | None = None
        self.gone = False
        self._sub: Subscription | None = bus.subscribe(table_id, (conn_audience(conn),), self.hear)

    def hear(self, message: ToGateway) -> None:
        """The bus's sink for this socket: never blocks."""
        if isinstance(message, Frame):
            if message.seq is not None:
                self.seq = message.seq
            self.put(message.text)
        elif isinstance(message, Hears):
            self.detach()
            if message.audience is None:  # refused: its error came first
                self.close()
            else:
                self.gone = False
                audiences = (conn_audience(self.conn), message.audience)
                self._sub = self.bus.subscribe(self.table_id, audiences, self.hear)
        elif isinstance(message, OwnerChanged):
            if message.owner is None:
                self.gone = True
            if self.follow is None:
                self.detach()
                self.gone = True
            else:  # still subscribed: the new owner's answer comes to the same audiences
                self.follow(message.owner)

    def detach(self) -> None:
        if self._sub is not None:
            self._sub.close()
            self._sub = None
