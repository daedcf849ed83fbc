"""The socket tier (capicua.server.gateway) and a table meet only in messages: the
gateway imports no table internals, its connection ids are unique across
gateways (a ``conn:ID`` audience on a bus shared by a cluster is one socket's),
and a table that stopped answers its sockets that its owner changed."""

from __future__ import annotations

import ast
import asyncio
import copy
import json
import sys
from pathlib import Path
from typing import Any

from sockets_at import hello, route_of
from tablesim import NEIGHBOURS

from capicua.server.adapters.memory import LocalBus, LoopClock, MemoryLog
from capicua.server.gateway.conns import ConnIds, Listener
from capicua.server.registry import Tables
from capicua.table import protocol
from capicua.table.core import CoreConfig
from capicua.table.protocol import ConnId, Frame, FromConn, Hears, OwnerChanged, conn_audience

GATEWAY = Path(__file__).resolve().parents[2] / "capicua" / "server" / "gateway"
# What the socket tier may import besides the standard library and Starlette: the
# ports, the protocol's messages, its own modules, and the log's context (which
# table a socket's log lines name).
# logsetup and metrics: the process's log context and its counters, which import nothing of the server.
GATEWAY_MAY_IMPORT = ("capicua.server.ports", "capicua.table.protocol", "capicua.server.gateway",
                      "capicua.server.runtime.logsetup", "capicua.server.metrics")


class _NoBots:
    def ask(self, level: str, view: dict[str, Any], seed: int, answer: Any, pause: bool = True) -> Any:
        return asyncio.get_running_loop().call_later(3600, lambda: None)


def _imports(path: Path) -> set[str]:
    """Everything a file imports, by its full name (``from a import b``: ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_gateway_imports_only_the_ports_the_protocol_and_itself() -> None:
    for path in sorted(GATEWAY.glob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in ("__future__", "starlette"):
                continue
            allowed = any(module == m or module.startswith(m + ".") for m in GATEWAY_MAY_IMPORT)
            assert allowed, f"gateway/{path.name} imports {module}"


def test_the_import_rule_catches_a_reach_into_the_shell(tmp_path: Path) -> None:
    """The check above can fail: a gateway module that imports the shell is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from capicua.server.shell import TableShell\nfrom capicua.server import registry\n")
    found = _imports(bad)
    assert found == {"capicua.server.shell.TableShell", "capicua.server.registry"}
    assert not any(m.startswith(GATEWAY_MAY_IMPORT) for m in found)


def test_connection_ids_never_repeat_across_gateways_in_one_process() -> None:
    gateways = [ConnIds() for _ in range(4)]
    ids = [g.new() for g in gateways for _ in range(5_000)]
    assert len(set(ids)) == len(ids)
    assert len({g.prefix for g in gateways}) == 4 and all(len(g.prefix) == 12 for g in gateways)


def test_two_gateways_on_one_bus_never_hear_each_others_sockets() -> None:
    """Each gateway's first socket: with one counter per process both were ``conn:1``,
    and a shared bus would hand one socket the other's welcome and errors."""
    bus = LocalBus()
    first, second = ConnIds(), ConnIds()
    heard: dict[str, list[str]] = {"a": [], "b": []}
    a = Listener(bus, "t_same", first.new(), heard["a"].append, lambda: None)
    b = Listener(bus, "t_same", second.new(), heard["b"].append, lambda: None)
    bus.publish("t_same", conn_audience(a.conn), Frame('{"type": "welcome"}', 3))
    assert heard == {"a": ['{"type": "welcome"}'], "b": []} and a.seq == 3 and b.seq is None


def test_a_socket_hears_the_audience_its_table_names_and_closes_when_refused() -> None:
    bus = LocalBus()
    closed: list[bool] = []
    heard: list[str] = []
    one = Listener(bus, "t_x", ConnId("g.1"), heard.append, lambda: closed.append(True))
    bus.publish("t_x", "seat:2", Frame("before", 1))  # not its audience yet
    bus.publish("t_x", conn_audience(one.conn), Hears("seat:2"))
    bus.publish("t_x", "seat:2", Frame("after", 2))
    bus.publish("t_x", conn_audience(one.conn), Hears(None))
    bus.publish("t_x", "seat:2", Frame("gone", 3))
    assert heard == ["after"] and closed == [True] and one.seq == 2


def test_a_table_tells_its_sockets_what_they_hear_and_that_it_stopped() -> None:
    async def main() -> None:
        tables = Tables(MemoryLog(), LocalBus(), LoopClock(), _NoBots(), CoreConfig(auto_next_ms=0))
        shell = await tables.open("cubano", {}, copy.deepcopy(NEIGHBOURS), seed="messages")
        frames: list[dict[str, Any]] = []
        ana = hello(tables, shell.id, "ana", lambda text: frames.append(json.loads(text)), "p_ana", "Ana")
        watcher: list[str] = []
        hello(tables, shell.id, "watcher", watcher.append, watch=True)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if shell.inbox.empty() and frames and watcher:
                break
        assert frames[0]["type"] == "welcome" and frames[0]["seat"] == 0
        assert ana.seq == shell.core.seq and not ana.gone
        await tables.close()  # the table stops: its sockets hear it no more
        assert ana.gone
        # A message for a table no process runs now: its socket is told so.
        late = Listener(tables.bus, shell.id, ConnId("late"), lambda text: None, lambda: None)
        tables.send(route_of(tables, shell.id), FromConn(ConnId("late"), protocol.Stand()))
        assert late.gone

    asyncio.run(main())


def test_a_stopped_table_publishes_owner_changed_to_everyone() -> None:
    async def main() -> None:
        bus = LocalBus()
        tables = Tables(MemoryLog(), bus, LoopClock(), _NoBots(), CoreConfig(auto_next_ms=0))
        shell = await tables.open("cubano", {}, copy.deepcopy(NEIGHBOURS), seed="owner")
        told: list[Any] = []
        bus.subscribe(shell.id, ("conn:spy",), told.append)
        await shell.stop()
        await shell.stop()  # said once
        assert told == [OwnerChanged(shell.id, None)]
        await tables.close()

    asyncio.run(main())
