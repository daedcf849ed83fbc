"""Sockets at a table for the tests of its owner (the shell, the registry): each one
hears its table on the bus through the gateway's own :class:`Listener` and speaks
to it through the router, exactly as a websocket does, with no websocket."""

from __future__ import annotations

from collections.abc import Callable

from capicua.server.gateway.conns import Listener
from capicua.server.registry import Tables
from capicua.table import protocol
from capicua.table.protocol import ConnId, FromConn, Join, Route


def route_of(tables: Tables, table_id: str) -> Route:
    """The route of a table ``tables`` runs (what :meth:`Tables.route` answers once it is loaded)."""
    return Route(table_id, tables.owner)


def hello(
    tables: Tables,
    table_id: str,
    conn: str,
    put: Callable[[str], None],
    player: str | None = None,
    name: str = "",
    last_seq: int = 0,
    watch: bool = False,
    close: Callable[[], None] = lambda: None,
) -> Listener:
    """Socket ``conn`` hears table ``table_id`` (its frames go to ``put``) and says hello."""
    listener = Listener(tables.bus, table_id, ConnId(conn), put, close)
    tables.send(route_of(tables, table_id), Join(ConnId(conn), player, name, last_seq, watch))
    return listener


def intent(tables: Tables, table_id: str, conn: str, said: protocol.Intent) -> None:
    """Socket ``conn`` sends an intent."""
    tables.send(route_of(tables, table_id), FromConn(ConnId(conn), said))
