"""``capicua bench-cluster``: the cluster under a load of tables played at a human pace, and its failover.

Starts, itself, what ``make cluster`` starts: redis-server (no persistence), a
throw-away PostgreSQL (``tests/pgserver.py``; or ``--database URL``), and for
each N of ``--processes`` N ``capicua serve`` processes in cluster mode (their
own bot pools, plus ``--workers`` ``capicua worker``) behind HAProxy with
``deploy/haproxy.cfg``. Through the balancer it ramps ``--tables`` tables of
one guest and three bots, each guest playing like a person (the load and the
measures are ``capicua bench-server``'s: :mod:`capicua.tools.bench_server`),
and prints a row per step as the step ends: the play intent → its events frame
p50/p99 against the ping round trip on the same sockets at the same moment,
errors, the servers' CPU and memory per table, and events per CPU-second of
the servers (on a machine whose processes share cores, the figure that should
stay flat as processes are added). A step that fails is a row saying why; the
ramp of that N stops there, the rows before it stay printed, and the command
exits 1.

Then the failover (``--kills``): with ``--failover-tables`` tables playing on
two processes, the owner of a table (its row in ``table_leases``) is killed
(SIGKILL, its process group: the server and its bot pool) and the time from
the kill to the next events frame on that table is measured, beside the time
to the new owner's welcome to the guest (the table runs again). A neighbour's
turn in flight is asked again with no thinking pause (it waited it on the dead
owner), and a guest's thinking goes on across its reconnection as a person's
does (a play lost with its socket is made again at once); the guests act
as the page does (a closed socket reconnects through the balancer and says
hello with the last seq it heard), and the killed process is started again
before the next kill. Afterwards each measured table's log is compared with
what its guest saw: no acknowledged play missing, none written twice, and no
stand-in or offline mark for the failover.

Every process started here leads a process group of its own and is stopped
(by its PID) at the end, on an error and on Ctrl-C. Progress goes to stderr
(tqdm); rows to stdout (``--json``: one JSON object per line). With
``CAPICUA_BENCH_CLUSTER_LOGS=DIR`` the processes' logs, the HAProxy configs and
each server's ``/metrics`` as each ramp left it are copied to DIR.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from capicua.tools.bench_server import (
    Guest,
    Server,
    Stats,
    StepFailed,
    _free_port,
    _open_many,
    _pinger,
    _why,
    add_load_options,
    children_cpu_s,
    install_uvloop,
    measure,
    open_tables,
    percentile,
    proc_cpu_s,
    self_cpu_s,
    step_row,
)

ROOT = Path(__file__).resolve().parents[2]
P99_TARGET_MS = 50.0  # the bound: the tables a setup holds are those at an intent→event p99 within it
START_S = 60.0  # a guard against a part of the cluster that never starts, not a measure


def _end_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, grace_s: float = 20.0) -> None:
    """Signal the whole process group ``proc`` leads (a worker and its pool together), wait for its
    leader (SIGKILL to the group after ``grace_s``), then kill whatever of the group is left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # ended already
        os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):  # a pool worker its leader left behind
        os.killpg(proc.pid, signal.SIGKILL)


class Services:
    """redis-server and PostgreSQL, for the whole run."""

    def __init__(self, tmp: Path, database: str | None) -> None:
        self.tmp = tmp
        self.redis: subprocess.Popen[bytes] | None = None
        self.pg: subprocess.Popen[bytes] | None = None
        self.redis_url = ""
        self.database = database or ""

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server not found: run `bash scripts/ensure-system-deps.sh`")
        port = _free_port()
        with open(self.tmp / "redis.log", "ab") as log:
            self.redis = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(self.tmp), "--daemonize", "no", "--loglevel", "warning"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        if not self.database:
            # tests/pgserver.py as make cluster runs it: prints a fresh database's URL, stops (and deletes) on Enter.
            self.pg = subprocess.Popen([sys.executable, str(ROOT / "tests" / "pgserver.py")], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
            assert self.pg.stdout is not None
            self.database = self.pg.stdout.readline().decode().strip()
            if not self.database.startswith("postgresql"):
                raise RuntimeError(f"PostgreSQL did not start: {self.database}")

    def stop(self) -> None:
        if self.pg is not None:
            with contextlib.suppress(BrokenPipeError, OSError):  # it ended already: nothing to tell it
                assert self.pg.stdin is not None
                self.pg.stdin.write(b"\n")
                self.pg.stdin.close()
            try:  # Enter: it stops its cluster and deletes it
                self.pg.wait(timeout=30)
            except subprocess.TimeoutExpired:
                _end_group(self.pg, sig=signal.SIGKILL)
        if self.redis is not None:
            _end_group(self.redis)


class Cluster:
    """N ``capicua serve`` processes, ``workers`` ``capicua worker`` and HAProxy in front of them."""

    def __init__(self, services: Services, tmp: Path, processes: int, workers: int, bot_delay: str) -> None:
        haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(haproxy).exists():  # before any process starts: nothing to stop then
            raise RuntimeError("haproxy not found: run `bash scripts/ensure-system-deps.sh`")
        self.services = services
        self.tmp = tmp
        self.bot_delay = bot_delay
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.ports = [_free_port() for _ in range(processes)]
        config = subprocess.run([sys.executable, str(ROOT / "tests" / "haproxyserver.py"), "--render", "--port",
                                 str(self.port), *map(str, self.ports)], capture_output=True, text=True, check=True)
        (tmp / "haproxy.cfg").write_text(config.stdout)
        self.starts = 0
        self.nodes: list[str] = []
        self.servers: list[Server] = [self._serve(i) for i in range(processes)]
        self.workers = [self._worker(i) for i in range(workers)]
        with open(tmp / "haproxy.log", "ab") as log:
            self.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(tmp / "haproxy.cfg")], stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)

    def _serve(self, i: int) -> Server:
        self.starts += 1
        node = f"bench-s{i + 1}-{self.starts}"  # a process started again is a new node
        if i < len(self.nodes):
            self.nodes[i] = node
        else:
            self.nodes.append(node)
        data = self.tmp / node
        data.mkdir()
        return Server(self.bot_delay, data, port=self.ports[i], settings={
            "CAPICUA_DATABASE_URL": self.services.database, "CAPICUA_REDIS_URL": self.services.redis_url,
            "CAPICUA_NODE_ID": node, "CAPICUA_TRUSTED_PROXIES": "127.0.0.1"})

    def _worker(self, i: int) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "capicua", "worker", "--redis", self.services.redis_url,
               "--log-level", "warning", "--name", f"bench-w{i + 1}"]
        with open(self.tmp / f"worker{i + 1}.log", "ab") as log:
            return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    async def wait(self, client: Any, only: int | None = None) -> None:
        """Every server ready, and the balancer sending to each of them (``only``: to that one, started
        again: by least connections the balancer sends every new request to it, none to the others)."""
        for s in self.servers:
            await s.wait(client)
        want = set(self.nodes) if only is None else {self.nodes[only]}
        deadline = time.monotonic() + START_S
        while True:
            seen = set()
            for _ in range(4 * len(self.servers)):
                with contextlib.suppress(Exception):  # the balancer not listening, or its checks not up yet
                    r = await client.get(self.base + "/readyz", headers={"connection": "close"})
                    if r.status_code == 200:
                        seen.add(r.json().get("node"))
            if want <= seen:
                return
            if time.monotonic() > deadline or self.haproxy.poll() is not None:
                raise RuntimeError(f"the balancer sends to {sorted(seen)}, not to {sorted(want - seen)}")
            await asyncio.sleep(0.2)

    async def save_metrics(self, client: Any) -> None:
        """Each server's /metrics as the run left it, beside its log (kept by CAPICUA_BENCH_CLUSTER_LOGS)."""
        for node, s in zip(self.nodes, self.servers, strict=True):
            with contextlib.suppress(Exception):  # a server that died: no metrics to keep
                (self.tmp / node / "metrics.txt").write_text((await client.get(s.base + "/metrics")).text)

    def node_index(self, node: str) -> int | None:
        return self.nodes.index(node) if node in self.nodes else None

    def kill(self, i: int) -> None:
        """SIGKILL the server's whole group (the process and its bot pool), as a machine that dies."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.servers[i].proc.pid, signal.SIGKILL)
        self.servers[i].proc.wait()
        self.servers[i].log.close()

    def restart(self, i: int) -> None:
        self.servers[i] = self._serve(i)

    def cpu_s(self) -> float:
        return sum(s.cpu_s() for s in self.servers)

    def bots_cpu_s(self) -> float:
        """The servers' bot pools and the workers (with their pools)."""
        total = sum(s.pool_cpu_s() for s in self.servers)
        for w in self.workers:
            with contextlib.suppress(OSError):  # a worker that ended uses no more CPU
                total += proc_cpu_s(w.pid) + children_cpu_s(w.pid)
        return total

    def rss_kb(self) -> int:
        return sum(s.rss_kb() for s in self.servers)

    def stop(self) -> None:
        _end_group(self.haproxy, sig=signal.SIGKILL)
        for s in self.servers:  # SIGTERM: each drains, giving its leases up
            s.proc.send_signal(signal.SIGTERM)
        for s in self.servers:
            s.stop()
        for w in self.workers:
            _end_group(w)


class FollowingGuest(Guest):
    """A guest whose page reconnects through the balancer when its socket closes (hello with
    the last seq it heard), and who keeps every event it heard by seq (to check the log against)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heard: dict[int, Any] = {}  # seq -> event, as heard
        self.resent_differently = 0  # a seq heard again with another event
        self.sent_plays = 0
        self.stopped = False
        self.reconnects = 0
        self.frame_seen = asyncio.Event()  # set by every events frame (the failover's clock stops on it)
        self.welcomed = asyncio.Event()  # set by a welcome (an owner answered its hello)
        self.welcomed_at = 0.0  # perf_counter of the first welcome since the event was cleared
        self.thought_until = 0.0  # perf_counter: when the thinking under way ends
        # A person's thinking goes on while the page reconnects: when it ends, carried over
        # (None: nothing was under way); a play lost with its socket is decided already.
        self.carried_until: float | None = None

    def _frame(self, f: dict[str, Any]) -> None:
        if f.get("type") == "welcome":
            if not self.welcomed.is_set():
                self.welcomed_at = time.perf_counter()
                self.welcomed.set()
        if f.get("type") == "events":
            for e in f["events"]:
                if self.heard.setdefault(e["seq"], e["event"]) != e["event"]:
                    self.resent_differently += 1
            self.frame_seen.set()
        super()._frame(f)

    def _thinking(self) -> float:
        now = time.perf_counter()
        if self.carried_until is not None:
            seconds, self.carried_until = max(0.0, self.carried_until - now), None
        else:
            seconds = super()._thinking()
        self.thought_until = now + seconds
        return seconds

    async def _act_later(self) -> None:
        plays = self.stats.plays
        await super()._act_later()
        self.sent_plays += self.stats.plays - plays

    async def run(self) -> None:
        import websockets

        from capicua.tools import bench_server

        while True:
            await super().run()
            if self.stopped:
                return
            # The socket closed (its process died): reconnect through the balancer, as the page does.
            now = time.perf_counter()
            if self.pending is not None:
                self.carried_until = self.thought_until
                self.pending.cancel()
                self.pending = None
            if self.sent_at is not None:
                self.carried_until = now  # the play, decided, is made again as soon as the page allows
            self.sent_at = None  # a play in flight may be lost with its socket: not waited for
            while not self.stopped:
                await asyncio.sleep(0.25)
                try:
                    self.ws = await websockets.connect(self.ws_url, max_size=2**22,
                                                       compression=bench_server.WS_COMPRESSION)
                    await self.ws.send(json.dumps(dict(self.hello, last_seq=self.seq)))
                    self.reconnects += 1
                    break
                except Exception:  # the balancer has no process to send it to yet: tried again
                    continue

    async def close(self) -> None:
        self.stopped = True
        await super().close()


@dataclass
class Failover:
    times_s: list[float] = field(default_factory=list)
    # kill → the new owner's welcome to the guest (its table runs again; the next event
    # then waits for what is left of the guest's thinking, if it is the guest's turn)
    back_s: list[float] = field(default_factory=list)
    stalled: int = 0  # kills after which the table sent nothing within --failover-wait
    skipped: int = 0  # no table with a live lease to kill the owner of


def _owner(engine: Any, table_id: str) -> str | None:
    from sqlalchemy import text

    with engine.connect() as conn:
        row = conn.execute(text("select owner from table_leases where table_id = :t and expires_at > now()"),
                           {"t": table_id}).first()
    return None if row is None or not row[0] else str(row[0])


def _check_logs(engine: Any, guests: list[FollowingGuest]) -> dict[str, int]:
    """Each guest's table log against what the guest heard: its human plays the log holds
    against those it heard (lost: heard, not in the log; doubled: more in the log than it
    sent), any seq heard twice differently, and stand-ins or offline marks."""
    from sqlalchemy import text

    out = {"plays_checked": 0, "lost": 0, "doubled": 0, "resent_differently": 0, "stand_ins": 0, "offline_marks": 0}
    with engine.connect() as conn:
        for g in guests:
            seat = g.view["seat"] if g.view else 0
            rows = conn.execute(text("select data from table_events where table_id = :t order by seq"),
                                {"t": g.hello["table"]}).scalars().all()
            entries = [r if isinstance(r, dict) else json.loads(r) for r in rows]
            logged = sum(1 for e in entries if e.get("op") == "action" and e.get("seat") == seat
                         and e.get("by") == "human" and "tile" in (e.get("action") or {}))
            heard = sum(1 for e in g.heard.values() if e.get("kind") == "play" and e.get("seat") == seat)
            out["plays_checked"] += heard
            out["lost"] += max(0, heard - logged)
            out["doubled"] += max(0, logged - g.sent_plays)
            out["resent_differently"] += g.resent_differently
            out["stand_ins"] += sum(1 for e in entries if e.get("op") == "controller")
            out["offline_marks"] += sum(1 for e in entries if e.get("op") == "presence" and not e.get("online"))
    return out


Emit = Any  # (kind, row) -> None


async def _measure_step(cluster: Cluster, stats: Stats, n: int, args: argparse.Namespace, bar: Any,
                        base_rss: int) -> dict[str, Any]:
    dt, (server_cpu, bots_cpu, generator_cpu) = await measure(
        args, bar, stats, lambda: [cluster.cpu_s(), cluster.bots_cpu_s(), self_cpu_s()])
    return {
        "processes": len(cluster.servers),
        **step_row(n, stats, dt, cluster.rss_kb(), base_rss),
        "server_cpu_pct": round(100 * server_cpu / dt, 1),
        "bots_cpu_pct": round(100 * bots_cpu / dt, 1),
        "generator_cpu_pct": round(100 * generator_cpu / dt, 1),
        "events_per_server_cpu_s": round(stats.events / server_cpu, 1) if server_cpu > 0 else None,
    }


async def ramp(services: Services, tmp: Path, processes: int, args: argparse.Namespace, emit: Emit,
               bar: Any) -> list[dict[str, Any]]:
    """The ramp of tables over ``processes`` servers: a row per step, emitted as it ends."""
    import httpx

    rows: list[dict[str, Any]] = []
    step_dir = tmp / f"p{processes}"
    step_dir.mkdir()
    cluster = Cluster(services, step_dir, processes, args.workers, args.bot_delay)
    stats = Stats()
    guests: list[Guest] = []
    rng = random.Random(processes)
    stop = asyncio.Event()
    pinger: asyncio.Task[None] | None = None
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as client:
        try:
            await cluster.wait(client)
            await asyncio.sleep(2.0)  # the bot pools' workers start
            base_rss = cluster.rss_kb()
            pinger = asyncio.get_running_loop().create_task(_pinger(guests, stop, 0.01))
            for n in sorted(set(args.tables)):
                bar.set_postfix_str(f"{processes} processes, opening {n - len(guests)} tables")
                try:
                    await open_tables(guests, n, cluster.base, cluster.ws_url, stats, args, rng, client)
                except StepFailed as exc:
                    rows.append({"processes": processes, "tables": n, "failed": str(exc)})
                    emit("step", rows[-1])
                    break
                bar.set_postfix_str(f"{processes} processes, {n} tables")
                rows.append(await _measure_step(cluster, stats, n, args, bar, base_rss))
                emit("step", rows[-1])
        except (RuntimeError, OSError) as exc:  # the cluster itself did not start: a row says so
            rows.append({"processes": processes, "tables": 0, "failed": _why(exc)})
            emit("step", rows[-1])
        finally:
            stop.set()
            if pinger is not None:
                pinger.cancel()
            await cluster.save_metrics(client)
            for g in guests:
                await g.close()
            cluster.stop()
    return rows


async def failover(services: Services, tmp: Path, args: argparse.Namespace, emit: Emit, bar: Any) -> dict[str, Any]:
    """``--kills`` times: kill -9 the owner of a playing table, time the kill → the table's next events frame."""
    import httpx
    from sqlalchemy import create_engine

    fdir = tmp / "failover"
    fdir.mkdir()
    cluster = Cluster(services, fdir, 2, args.workers, args.bot_delay)
    engine = create_engine(services.database, pool_size=1)
    stats = Stats()
    rng = random.Random(23)
    guests = [FollowingGuest(cluster.base, cluster.ws_url, stats, args.think, rng)
              for _ in range(args.failover_tables)]
    result = Failover()
    row: dict[str, Any]
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as client:
        try:
            await cluster.wait(client)
            await _open_many(list(guests), client, args.level)
            await asyncio.sleep(args.think * 2)
            for _ in range(args.kills):
                bar.set_postfix_str(f"failover: {len(result.times_s)} timed, {result.stalled} stalled")
                chosen = None
                for g in rng.sample(guests, len(guests)):
                    owner = await asyncio.to_thread(_owner, engine, g.hello["table"])
                    i = None if owner is None else cluster.node_index(owner)
                    if i is not None:
                        chosen = (g, i)
                        break
                if chosen is None:
                    result.skipped += 1
                    bar.update(1)
                    continue
                g, i = chosen
                g.frame_seen.clear()
                g.welcomed.clear()
                t0 = time.perf_counter()
                cluster.kill(i)
                try:
                    await asyncio.wait_for(g.frame_seen.wait(), args.failover_wait)
                    result.times_s.append(time.perf_counter() - t0)
                except TimeoutError:
                    result.stalled += 1
                else:  # the welcome may follow that frame (a neighbour answered at once)
                    with contextlib.suppress(TimeoutError):  # none: not timed (the row counts those timed)
                        await asyncio.wait_for(g.welcomed.wait(), args.failover_wait)
                        result.back_s.append(g.welcomed_at - t0)
                cluster.restart(i)
                await cluster.wait(client, only=i)
                bar.update(1)
            await asyncio.sleep(args.think * 3)  # the last acknowledgements arrive
            checks = await asyncio.to_thread(_check_logs, engine, guests)
            times = result.times_s
            row = {
                "kills": args.kills, "timed": len(times), "stalled": result.stalled, "skipped": result.skipped,
                "wait_s": args.failover_wait,
                "kill_to_event_s": _spread(times),
                "kill_to_welcome_s": _spread(result.back_s), "welcomed": len(result.back_s),
                "reconnects": sum(g.reconnects for g in guests), **checks,
            }
        except (RuntimeError, OSError, StepFailed) as exc:
            row = {"kills": args.kills, "failed": _why(exc)}
        finally:
            await cluster.save_metrics(client)
            for g in guests:
                await g.close()
            cluster.stop()
            engine.dispose()
    emit("failover", row)
    return row


def _spread(times: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(times, 50), 2), "p99": round(percentile(times, 99), 2),
            "max": round(max(times), 2) if times else float("nan")}


def _held(rows: list[dict[str, Any]]) -> int:
    """The most tables of a ramp at which that step and every one before it kept p99 within the target."""
    held = 0
    for r in rows:
        if "failed" in r or not r["latency_ms"]["p99"] <= P99_TARGET_MS:
            break
        held = r["tables"]
    return held


async def run(args: argparse.Namespace, emit: Emit) -> bool:
    """Every step and the failover; True when any failed."""
    from tqdm import tqdm

    failed = False
    steps = len(set(args.tables)) * (args.seconds + args.warmup)
    with tempfile.TemporaryDirectory(prefix="capicua-bench-cluster-") as name:
        tmp = Path(name)
        services = Services(tmp, args.database)
        bar = tqdm(total=len(args.processes) * steps + args.kills, unit="s", file=sys.stderr,
                   desc="bench-cluster", dynamic_ncols=True)
        try:
            services.start()
            held: list[dict[str, Any]] = []
            for n in args.processes:
                rows = await ramp(services, tmp, n, args, emit, bar)
                failed |= any("failed" in r for r in rows)
                held.append({"processes": n, "tables_held": _held(rows)})
                emit("held", held[-1])
            if args.kills:
                failed |= "failed" in await failover(services, tmp, args, emit, bar)
        finally:
            bar.close()
            services.stop()
            keep = os.environ.get("CAPICUA_BENCH_CLUSTER_LOGS")
            if keep:  # the processes' logs, for a look after the run
                shutil.copytree(tmp, keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.sock"))
    return failed


COLUMNS = 12


def render_header(args: argparse.Namespace) -> str:
    return "\n".join([
        f"capicua bench-cluster: one guest and three bots ({args.level}) per table through HAProxy, think "
        f"{args.think} s, bot delay {args.bot_delay} s, {args.workers} bot worker(s), {args.seconds} s per step",
        "baseline: the ping round trip on the same sockets at the same time; CPU in percent of one core",
        "",
        "| processes | tables | plays | play→event p50 / p95 / p99 ms | ping p50 / p99 ms | events/s | errors "
        "| servers CPU % | bots CPU % | generator CPU % | servers RSS MB, KB/table | events per server CPU-s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ])


def render(kind: str, r: dict[str, Any]) -> str:
    if kind == "held":
        return f"| {r['processes']} | held at p99 ≤ {P99_TARGET_MS:g} ms: {r['tables_held']} tables |" + " |" * (
            COLUMNS - 2)
    if kind == "failover":
        if "failed" in r:
            return f"\nfailover: failed: {r['failed']}"
        t, w = r["kill_to_event_s"], r["kill_to_welcome_s"]
        return (f"\nfailover over {r['kills']} kills -9 of a table's owner (2 processes): owner killed → next event "
                f"p50 {t['p50']} s, p99 {t['p99']} s, max {t['max']} s ({r['timed']} timed, {r['stalled']} with "
                f"no event within {r['wait_s']:g} s, {r['skipped']} skipped); owner killed → the new owner's "
                f"welcome p50 {w['p50']} s, p99 {w['p99']} s, max {w['max']} s ({r['welcomed']} welcomed); "
                f"{r['reconnects']} reconnections; "
                f"of {r['plays_checked']} acknowledged plays of the guests, lost {r['lost']}, doubled {r['doubled']}, seqs heard twice differently "
                f"{r['resent_differently']}, stand-ins {r['stand_ins']}, offline marks {r['offline_marks']}")
    if "failed" in r:
        return f"| {r['processes']} | {r['tables']} | failed: {r['failed']} |" + " |" * (COLUMNS - 3)
    lat, ping = r["latency_ms"], r["ping_ms"]
    return (f"| {r['processes']} | {r['tables']} | {r['plays']} | {lat['p50']} / {lat['p95']} / {lat['p99']} | "
            f"{ping['p50']} / {ping['p99']} | {r['events_per_s']} | {r['errors']} | {r['server_cpu_pct']} | "
            f"{r['bots_cpu_pct']} | {r['generator_cpu_pct']} | {r['server_rss_mb']}, {r['kb_per_table']} | "
            f"{r['events_per_server_cpu_s']} |")


def printer(args: argparse.Namespace) -> Emit:
    """Print each row as it comes, flushed: a later failure (or a kill) never loses it."""

    def emit(kind: str, row: dict[str, Any]) -> None:
        print(json.dumps({kind: row}) if args.json else render(kind, row), flush=True)

    return emit


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="capicua bench-cluster", description=__doc__.split("\n\n")[0])
    p.add_argument("--processes", type=_ints, default=[1, 2, 4], help="server processes per ramp (default 1,2,4)")
    p.add_argument("--workers", type=int, default=1, help="capicua worker processes beside the servers (default 1)")
    add_load_options(p, [250, 500, 1000, 2000])
    p.add_argument("--database", default=None, metavar="URL",
                   help="a PostgreSQL to use (default: a throw-away one, tests/pgserver.py)")
    p.add_argument("--kills", type=int, default=20, help="owners killed in the failover measure (0: skip)")
    p.add_argument("--failover-tables", type=int, default=20, help="tables playing during the failover (20)")
    p.add_argument("--failover-wait", type=float, default=30.0,
                   help="seconds a killed table may stay silent before it counts as stalled (30)")
    args = p.parse_args(argv)
    install_uvloop()
    if not args.json:
        print(render_header(args), flush=True)
    # Ctrl-C and SIGTERM end the run through the finally blocks that stop every process started.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        failed = asyncio.run(run(args, printer(args)))
    except KeyboardInterrupt:
        print("interrupted: every process started was stopped", file=sys.stderr)
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
