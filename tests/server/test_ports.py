"""Every adapter implements the ports it stands for (capicua.server.ports), as mypy
sees it: the ports are Protocols, so only a type check can say an adapter fits.
The composition root passes the server's own adapters to typed parameters; this
holds the ones it does not use (the in-memory log) to their ports too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FITS = '''
from capicua.server import ports
from capicua.server.adapters.botpool import PoolBots
from capicua.server.adapters.honours import StandingsLog
from capicua.server.adapters.memory import LocalBus, LoopClock, MemoryLog
from capicua.server.adapters.redis_bots import RedisBots
from capicua.server.adapters.redis_bus import RedisBus, RedisRouter
from capicua.server.adapters.sql import StoreGuests, StoreLog
from capicua.server.analyst import Analyst
from capicua.server.registry import Tables


def fits(
    memory: MemoryLog, store: StoreLog, standings: StandingsLog, bus: LocalBus, clock: LoopClock,
    bots: PoolBots, guests: StoreGuests, tables: Tables, analyst: Analyst,
    redis_bus: RedisBus, redis_router: RedisRouter, redis_bots: RedisBots,
) -> None:
    logs: list[ports.EventLog] = [memory, store, standings]
    records: list[ports.MatchRecords] = [memory, store, standings]
    told: ports.Standings = standings
    carried: ports.Bus = bus
    timed: ports.Clock = clock
    asked: list[ports.BotPool] = [bots, redis_bots]
    known: ports.GuestBook = guests
    routed: ports.TableRouter = tables
    live: ports.LiveMatches = tables
    ended: ports.HandEnds = analyst
    buses: list[ports.Bus] = [redis_bus]
    routers: list[ports.TableRouter] = [redis_router]
    print(logs, records, told, carried, timed, asked, known, routed, live, ended, buses, routers)
'''

MISFITS = '''
from capicua.server import ports
from capicua.server.adapters.memory import LocalBus, MemoryLog


def misfits(bus: LocalBus, memory: MemoryLog) -> None:
    asked: ports.BotPool = bus
    told: ports.Standings = memory
    print(asked, told)
'''


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )


def test_every_adapter_fits_its_ports(tmp_path: Path) -> None:
    found = mypy(tmp_path, "fits", FITS)
    assert found.returncode == 0, found.stdout + found.stderr


def test_the_check_catches_an_adapter_that_does_not_fit(tmp_path: Path) -> None:
    found = mypy(tmp_path, "misfits", MISFITS)
    assert found.returncode == 1
    assert '"LocalBus", variable has type "BotPool"' in found.stdout
    assert '"MemoryLog", variable has type "Standings"' in found.stdout
