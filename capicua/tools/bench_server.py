"""``capicua bench-server``: the server under a load of tables played at a human pace.

Starts a real server process (SQLite, its default bot pool), then a ramp: for
each N of ``--tables`` it opens tables until N are playing, each one guest
and neighbours (``--level``, ``medio`` by default) over a real websocket, and
measures for ``--seconds``:

- the latency from a guest's play intent to the ``events`` frame carrying that
  play (p50/p95/p99), against a baseline measured in the same run at the same
  moment: the round trip of a ``ping`` on the same sockets (the floor the
  sockets, the loop and the load generator set);
- events and frames per second, refused intents;
- the server's and the load generator's CPU (percent of one core) and the
  server's memory, per table; events per CPU-second of the server's process
  (its bot pool's workers apart): the server's cost per event, the figure that
  decides how many tables one process holds.

A guest thinks ``--think`` seconds before each move and before "Siguiente
mano", and asks for "Otra partida" when a match ends, so the load holds
steady. Then ``--idle`` more tables are opened and left waiting for their
guest: the server's memory per idle table, with its socket and after the
socket has gone. Progress goes to stderr; the table of results to stdout, each
step's row as soon as the step ends (``--json``: one JSON object per line). A
step that fails (a 503 from the server's bound on connections, a table that
never opens) is a row of its own, saying why; the ramp stops there, the rows
before it stay printed, and the command exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLK_TCK = os.sysconf("SC_CLK_TCK")
# The guests' websockets offer permessage-deflate, as every browser does (--ws-deflate off: they do not).
WS_COMPRESSION: str | None = "deflate"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children_cpu_s(pid: int) -> float:
    """CPU seconds of a process's live children (the bot pool's workers)."""
    total = 0.0
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        with contextlib.suppress(OSError):  # a child that ended meanwhile used no more CPU
            total += proc_cpu_s(int(child)) + children_cpu_s(int(child))
    return total


def self_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # ms, play intent -> its events frame
    pings: list[float] = field(default_factory=list)  # ms, ping -> pong (the baseline)
    events: int = 0
    frames: int = 0
    errors: int = 0
    plays: int = 0

    def reset(self) -> None:
        self.latencies.clear()
        self.pings.clear()
        self.events = self.frames = self.errors = self.plays = 0


class Guest:
    """One guest at one table, playing like a person: think, then play the first legal move."""

    def __init__(self, base: str, ws_url: str, stats: Stats, think: float, rng: random.Random) -> None:
        self.base = base
        self.ws_url = ws_url
        self.stats = stats
        self.think = think
        self.rng = rng
        self.ws: Any = None
        self.seq = 0
        self.view: dict[str, Any] | None = None
        self.sent_at: float | None = None
        self.sent_seq = -1
        self.pending: asyncio.Task[None] | None = None
        self.ping_at: float | None = None
        self.ready = asyncio.Event()
        self.hello: dict[str, str] = {}  # the hello of its table, said again on a reconnection (bench-cluster)
        self.measure = True

    async def open(self, client: Any, level: str, watch_ready: bool = True) -> None:
        r = await client.post(self.base + "/api/tables", json={"nickname": "Bench", "partner_level": level,
                                                               "rival_level": level})
        r.raise_for_status()
        body = r.json()
        import websockets

        self.ws = await websockets.connect(self.ws_url, max_size=2**22, compression=WS_COMPRESSION)
        self.hello = {"type": "hello", "table": body["table_id"], "token": body["token"]}
        await self.ws.send(json.dumps(self.hello))

    async def run(self) -> None:
        try:
            async for text in self.ws:
                self._frame(json.loads(text))
        except Exception:  # the server went away at the end of the run
            return

    def _frame(self, f: dict[str, Any]) -> None:
        now = time.perf_counter()
        kind = f.get("type")
        self.stats.frames += 1
        if kind == "pong":
            if self.ping_at is not None:
                self.stats.pings.append((now - self.ping_at) * 1000)
                self.ping_at = None
            return
        if kind == "error":
            self.stats.errors += 1
            self.sent_at = None
            self._next()
            return
        if kind not in ("events", "sync"):
            return
        if kind == "events":
            self.stats.events += len(f["events"])
            if self.sent_at is not None and f["seq"] > self.sent_seq:
                me = self.view["seat"] if self.view else 0
                if any(e["event"]["kind"] == "play" and e["event"].get("seat") == me for e in f["events"]):
                    self.stats.latencies.append((now - self.sent_at) * 1000)
                    self.sent_at = None
        self.seq = f["seq"]
        self.view = f["view"]
        self.ready.set()
        self._next()

    def _next(self) -> None:
        v = self.view
        if v is None or self.pending is not None or self.sent_at is not None:
            return
        mine = v["phase"] in ("play", "redeal_question") and v["turn"] == v["seat"] and v["legal"]
        if mine or v["phase"] in ("hand_over", "match_over"):
            self.pending = asyncio.get_running_loop().create_task(self._act_later())

    def _thinking(self) -> float:
        """Seconds the guest thinks before its next move."""
        return self.think * self.rng.uniform(0.75, 1.25)

    async def _act_later(self) -> None:
        await asyncio.sleep(self._thinking())
        self.pending = None
        v = self.view
        if v is None:
            return
        if v["phase"] == "hand_over":
            await self.ws.send(json.dumps({"type": "next_hand", "seq": self.seq}))
        elif v["phase"] == "match_over":
            await self.ws.send(json.dumps({"type": "rematch"}))
        elif v["phase"] in ("play", "redeal_question") and v["turn"] == v["seat"] and v["legal"]:
            move = v["legal"][0]
            frame = ({"type": "redeal", "seq": self.seq, "accept": move["redeal"]} if "redeal" in move
                     else {"type": "play", "seq": self.seq, "tile": move["tile"], "end": move["end"]})
            self.sent_seq = self.seq
            self.sent_at = time.perf_counter()
            self.stats.plays += 1
            await self.ws.send(json.dumps(frame))
            return
        self._next()

    async def ping(self) -> None:
        if self.ping_at is None and self.ws is not None:
            self.ping_at = time.perf_counter()
            with contextlib.suppress(Exception):  # a closed socket: the ping stays unanswered and counts so
                await self.ws.send('{"type":"ping"}')

    async def close(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):  # already closed by the server: nothing to do
                await self.ws.close()


class Server:
    """``python -m capicua.server`` in a process of its own, on a fresh SQLite database."""

    def __init__(self, bot_delay: str, tmp: Path, limit_concurrency: int | None = None, port: int | None = None,
                 settings: dict[str, str] | None = None) -> None:
        self.port = port or _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        # Every guest of the load comes from one address: the per-address and per-guest bounds are lifted.
        env = dict(os.environ, CAPICUA_RATE_LIMIT="1000,1", CAPICUA_TABLE_RATE="1000000,1",
                   CAPICUA_GUEST_TABLE_RATE="1000000,1", CAPICUA_GUEST_RATE="1000000,1",
                   CAPICUA_SOCKETS_PER_CLIENT="1000000", CAPICUA_SOCKETS_PER_GUEST="1000000")
        if limit_concurrency is not None:
            env["CAPICUA_MAX_CONNECTIONS"] = str(limit_concurrency)
        env.update(settings or {})  # a cluster's database, Redis and node id (bench-cluster)
        cmd = [sys.executable, "-m", "capicua.server", "--port", str(self.port), "--data-dir", str(tmp),
               "--bot-delay", bot_delay, "--log-level", "warning"]
        self.log = open(tmp / "server.log", "ab")  # noqa: SIM115 - closed in stop()
        # A group of its own: the server's bot pools (a forkserver and its workers) are stopped with it.
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    async def wait(self, client: Any) -> None:
        for _ in range(600):
            with contextlib.suppress(Exception):  # not listening yet: asked again
                if (await client.get(self.base + "/healthz")).status_code == 200:
                    return
            if self.proc.poll() is not None:
                raise RuntimeError("the server did not start")
            await asyncio.sleep(0.1)
        raise RuntimeError("the server did not start")

    def cpu_s(self) -> float:
        return proc_cpu_s(self.proc.pid)

    def pool_cpu_s(self) -> float:
        try:
            return children_cpu_s(self.proc.pid)
        except OSError:  # the server has ended: no pool left to count
            return 0.0

    def rss_kb(self) -> int:
        return proc_rss_kb(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=20)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        # What is left of its group (a pool worker the server's exit left behind) ends too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        keep = os.environ.get("CAPICUA_BENCH_SERVER_LOG")
        if keep:  # the server's own log, for a look after the run
            Path(keep).write_bytes(Path(self.log.name).read_bytes())


async def _pinger(guests: list[Guest], stop: asyncio.Event, every: float) -> None:
    rng = random.Random(7)
    while not stop.is_set():
        if guests:
            await rng.choice(guests).ping()
        await asyncio.sleep(every)


class StepFailed(Exception):
    """A step of the ramp could not be run: its row says why."""


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:200]


async def _open_many(guests: list[Guest], client: Any, level: str, at_once: int = 20) -> None:
    """Open a table for each guest. :class:`StepFailed` when any could not (once every
    attempt has ended: none is left running)."""
    sem = asyncio.Semaphore(at_once)

    async def one(g: Guest) -> None:
        async with sem:
            await g.open(client, level)
            asyncio.get_running_loop().create_task(g.run())
            await asyncio.wait_for(g.ready.wait(), 120)

    results = await asyncio.gather(*(one(g) for g in guests), return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        # Every distinct cause, most frequent first: when a bound refuses some tables (a
        # 503) the others may fail on the way out in some other way.
        causes = Counter(_why(f) for f in failed)
        why = "; ".join(c for c, _ in causes.most_common())[:300]
        raise StepFailed(f"{len(failed)} of {len(guests)} tables did not open ({why})")


async def measure(args: argparse.Namespace, bar: Any, stats: Stats,
                  cpu: Callable[[], list[float]]) -> tuple[float, list[float]]:
    """Wait ``args.warmup`` seconds, reset ``stats`` and measure for ``args.seconds``: the
    seconds measured and the CPU seconds each clock of ``cpu()`` counted meanwhile."""
    for _ in range(int(args.warmup)):
        await asyncio.sleep(1)
        bar.update(1)
    # The generator's own collector must not pause the measurement: its
    # full collections of a thousand clients' state took 200-800 ms.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats.reset()
    t0, before = time.perf_counter(), cpu()
    for _ in range(int(args.seconds)):
        await asyncio.sleep(1)
        bar.update(1)
    dt = time.perf_counter() - t0
    gc.enable()
    gc.unfreeze()
    return dt, [after - at_start for at_start, after in zip(before, cpu(), strict=True)]


def step_row(tables: int, stats: Stats, dt: float, rss_kb: int, base_rss_kb: int) -> dict[str, Any]:
    """What a step measured of the load over ``dt`` seconds (the CPU figures are the caller's)."""
    return {
        "tables": tables,
        "plays": stats.plays,
        "latency_ms": {p: round(percentile(stats.latencies, q), 1) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))},
        "ping_ms": {p: round(percentile(stats.pings, q), 1) for p, q in (("p50", 50), ("p99", 99))},
        "events_per_s": round(stats.events / dt, 1),
        "frames_per_s": round(stats.frames / dt, 1),
        "errors": stats.errors,
        "server_rss_mb": round(rss_kb / 1024, 1),
        "kb_per_table": round((rss_kb - base_rss_kb) / tables, 1),
    }


async def open_tables(guests: list[Guest], n: int, base: str, ws_url: str, stats: Stats, args: argparse.Namespace,
                      rng: random.Random, client: Any) -> None:
    """Open tables (a :class:`Guest` each, added to ``guests``) until ``n`` play; :class:`StepFailed`
    when some could not."""
    new = [Guest(base, ws_url, stats, args.think, rng) for _ in range(n - len(guests))]
    guests.extend(new)  # closed at the end, opened or not
    await _open_many(new, client, args.level)


Emit = Callable[[str, dict[str, Any]], None]  # ("step" | "idle", its row) as each one ends


async def ramp(args: argparse.Namespace, emit: Emit) -> dict[str, Any]:
    import httpx
    from tqdm import tqdm

    out: dict[str, Any] = {"steps": [], "idle": None, "think_s": args.think, "level": args.level,
                           "bot_delay": args.bot_delay, "seconds": args.seconds,
                           "ws_compression": WS_COMPRESSION}
    with tempfile.TemporaryDirectory(prefix="capicua-bench-") as tmp:
        server = Server(args.bot_delay, Path(tmp), args.limit_concurrency)
        stats = Stats()
        guests: list[Guest] = []
        rng = random.Random(1)
        limits = httpx.Limits(max_connections=50)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            try:
                await server.wait(client)
                await asyncio.sleep(2.0)  # the bot pool's workers start
                base_rss = server.rss_kb()
                stop = asyncio.Event()
                pinger = asyncio.get_running_loop().create_task(_pinger(guests, stop, 0.01))
                steps = sorted(set(args.tables))
                bar = tqdm(total=len(steps) * (args.seconds + args.warmup), unit="s", file=sys.stderr,
                           desc="bench-server", dynamic_ncols=True)
                for n in steps:
                    bar.set_postfix_str(f"opening {n - len(guests)} tables")
                    try:
                        await open_tables(guests, n, server.base, server.ws_url, stats, args, rng, client)
                    except StepFailed as exc:
                        failed = {"tables": n, "failed": str(exc)}
                        out["steps"].append(failed)
                        emit("step", failed)
                        break
                    bar.set_postfix_str(f"{n} tables")
                    dt, (server_cpu, pool_cpu, generator_cpu) = await measure(
                        args, bar, stats, lambda: [server.cpu_s(), server.pool_cpu_s(), self_cpu_s()])
                    step = {
                        **step_row(n, stats, dt, server.rss_kb(), base_rss),
                        "server_cpu_pct": round(100 * server_cpu / dt, 1),
                        "events_per_server_cpu_s": round(stats.events / server_cpu, 1) if server_cpu > 0 else None,
                        "bot_pool_cpu_pct": round(100 * pool_cpu / dt, 1),
                        "generator_cpu_pct": round(100 * generator_cpu / dt, 1),
                    }
                    out["steps"].append(step)
                    emit("step", step)
                bar.close()
                stop.set()
                pinger.cancel()
                for g in guests:
                    await g.close()
                guests.clear()
            finally:
                server.stop()
        if args.idle and not failed_step(out):
            try:
                out["idle"] = await idle_memory(args)
            except StepFailed as exc:
                out["idle"] = {"tables": args.idle, "failed": str(exc)}
            emit("idle", out["idle"])
    return out


def failed_step(out: dict[str, Any]) -> bool:
    return any("failed" in s for s in out["steps"]) or bool(out["idle"] and "failed" in out["idle"])


async def idle_memory(args: argparse.Namespace) -> dict[str, Any]:
    """Memory per table in memory with nobody playing, on a fresh server with
    neighbours who never move (each table waits). Tables whose guest has gone:
    two batches are opened, each guest says hello and leaves; the second batch
    reuses the memory the first one's sockets freed, so its growth is the
    tables' own. Then a third batch whose guests stay: a table with its socket."""
    import httpx
    from tqdm import tqdm

    with tempfile.TemporaryDirectory(prefix="capicua-bench-idle-") as tmp:
        server = Server("1000000", Path(tmp))
        stats = Stats()
        rng = random.Random(2)
        n = args.idle
        rss: list[int] = []
        async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as client:
            try:
                await server.wait(client)
                await asyncio.sleep(2.0)
                with tqdm(total=4, desc=f"idle tables ({n} per batch)", file=sys.stderr) as bar:
                    for _batch, size, stay in (("warm", 100, False), ("first", n, False), ("second", n, False),
                                              ("staying", n, True)):
                        guests = [Guest(server.base, server.ws_url, stats, 1e9, rng) for _ in range(size)]
                        await _open_many(guests, client, "medio")
                        if not stay:
                            for g in guests:
                                await g.close()
                        await asyncio.sleep(2.0)
                        rss.append(server.rss_kb())
                        bar.update(1)
            finally:
                server.stop()
    return {
        "tables": n,
        "kb_per_idle_table": round((rss[2] - rss[1]) / n, 1),
        "kb_per_table_with_socket": round((rss[3] - rss[2]) / n, 1),
        "rss_mb": [round(r / 1024, 1) for r in rss],
    }


COLUMNS = 13


def render_header(args: argparse.Namespace) -> str:
    return "\n".join([
        f"capicua bench-server: one guest and neighbours ({args.level}) per table, think {args.think} s, "
        f"bot delay {args.bot_delay} s, {args.seconds} s per step, websocket compression {WS_COMPRESSION or 'off'}",
        "baseline: the ping round trip on the same sockets at the same time (the generator's garbage collector "
        "is off while it measures)",
        "",
        "| tables | plays | play→event p50 / p95 / p99 ms | ping p50 / p99 ms | events/s | frames/s | errors "
        "| server CPU % | events per server CPU-s | bot pool CPU % | generator CPU % | server RSS MB | KB/table |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ])


def render_step(s: dict[str, Any]) -> str:
    if "failed" in s:
        return f"| {s['tables']} | failed: {s['failed']} |" + " |" * (COLUMNS - 2)
    lat, ping = s["latency_ms"], s["ping_ms"]
    return (
        f"| {s['tables']} | {s['plays']} | {lat['p50']} / {lat['p95']} / {lat['p99']} | "
        f"{ping['p50']} / {ping['p99']} | {s['events_per_s']} | {s['frames_per_s']} | {s['errors']} | "
        f"{s['server_cpu_pct']} | {s['events_per_server_cpu_s']} | {s['bot_pool_cpu_pct']} | {s['generator_cpu_pct']} | "
        f"{s['server_rss_mb']} | {s['kb_per_table']} |"
    )


def render_idle(idle: dict[str, Any]) -> str:
    if "failed" in idle:
        return f"\nidle tables ({idle['tables']} per batch): failed: {idle['failed']}"
    return (f"\nidle tables ({idle['tables']} per batch): {idle['kb_per_idle_table']} KB each in memory with "
            f"nobody connected (mid-hand, waiting for their guest); {idle['kb_per_table_with_socket']} KB each "
            f"with the guest's socket open (server RSS by batch: {idle['rss_mb']} MB)")


def printer(args: argparse.Namespace) -> Emit:
    """Print each row as it comes, flushed: a later failure (or a kill) never loses it."""

    def emit(kind: str, row: dict[str, Any]) -> None:
        if args.json:
            text = json.dumps({kind: row})
        else:
            text = render_step(row) if kind == "step" else render_idle(row)
        print(text, flush=True)

    return emit


def add_load_options(p: argparse.ArgumentParser, tables: list[int]) -> None:
    """The options of the load (bench-server's and bench-cluster's): the ramp, each step's
    seconds, the guests' and the neighbours' pace, the output."""
    p.add_argument("--tables", type=lambda s: [int(x) for x in s.split(",")], default=tables,
                   help=f"the ramp: numbers of tables playing at once (default {','.join(map(str, tables))})")
    p.add_argument("--seconds", type=float, default=30.0, help="measured seconds per step (default 30)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring each step (default 5)")
    p.add_argument("--think", type=float, default=2.0, help="a guest's seconds to think (default 2)")
    p.add_argument("--bot-delay", default="0.6,1.5", help='the neighbours\' delay, as capicua serve takes it')
    p.add_argument("--level", default="medio", help="the neighbours' level (default medio)")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")


def install_uvloop() -> None:
    """The load generator's loop: uvloop where installed (less of its own CPU in the measures)."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # uvloop is optional: the standard loop then
        pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="capicua bench-server", description=__doc__.split("\n\n")[0])
    add_load_options(p, [100, 250, 500, 1000])
    p.add_argument("--idle", type=int, default=1000, help="idle tables to measure memory with (0: skip)")
    p.add_argument("--limit-concurrency", type=int, default=None,
                   help="the server's bound on connections and requests at once (default: the server's, 1024)")
    p.add_argument("--ws-deflate", choices=("on", "off"), default="on",
                   help="whether the guests' websockets take permessage-deflate, as browsers do (default on)")
    args = p.parse_args(argv)
    global WS_COMPRESSION
    WS_COMPRESSION = "deflate" if args.ws_deflate == "on" else None
    install_uvloop()
    if not args.json:
        print(render_header(args), flush=True)
    out = asyncio.run(ramp(args, printer(args)))
    return 1 if failed_step(out) else 0


if __name__ == "__main__":
    sys.exit(main())
