"""A whole cluster for the tests of issue 23, and what they check over its sockets.

:class:`Cluster`: ``capicua serve`` processes in cluster mode (``--database`` on a
real PostgreSQL, ``--redis`` on a real redis-server) behind a real HAProxy with
``deploy/haproxy.cfg`` (tests/serveprocess.py, pgserver.py, redisserver.py,
haproxyserver.py). Its sockets open through the balancer (:meth:`Cluster.socket`
says which process each reached: the one whose ``capicua_sockets`` went up) or
straight to one process (:meth:`Cluster.socket_at`); it reads each process's
``/metrics``, the table's lease row (its owner) and its log.

What the sockets heard is held to the committed log, replayed here through the
table core (:class:`Committed`): every event a socket heard at seq ``n`` is the
log's event ``n`` (so no socket heard an event its owner did not commit, and all
heard the same), none is missing between the first and the last a socket heard,
and no frame to a seat carries a tile of another seat's hand or a sleeping tile
(test_leak.py's reading of tiles), to a spectator no tile of any hand.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from conftest import WSClient
from haproxyserver import HaproxyServer
from prometheus_client.parser import text_string_to_metric_families
from serveprocess import ServeProcess
from sqlalchemy import select
from sqlalchemy import text as sql
from test_leak import tiles_in

from capicua.store import Store
from capicua.store.models import TableLeaseRow
from capicua.table.core import TableCore
from capicua.table.log import read_entry

GUARD_S = 30.0  # a guard against hangs, not a timed assertion


def until(ok: Callable[[], Any], what: str, guard: float = GUARD_S) -> Any:
    """Poll ``ok`` until it answers something true (returned)."""
    deadline = time.monotonic() + guard
    while True:
        got = ok()
        if got:
            return got
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


class Cluster:
    """``nodes`` serve processes (named ``node-a``, ``node-b``, …) on one database of
    ``pg`` and on ``redis``, behind one HAProxy. :meth:`close` stops them all."""

    def __init__(self, tmp: Path, pg: Any, redis: Any, nodes: int = 3) -> None:
        self.pg = pg
        self.redis = redis
        self.url = pg.create_database()
        self.servers: dict[str, ServeProcess] = {}
        self.balancer: HaproxyServer | None = None
        try:
            for i in range(nodes):
                name = f"node-{'abcdefgh'[i]}"
                # Named in PostgreSQL's pg_stat_activity: a test sees what each process waits on.
                database = f"{self.url}&application_name={name}"
                self.servers[name] = ServeProcess(
                    tmp, ["--database", database, "--redis", redis.url, "--node-id", name], name=name)
            self.balancer = HaproxyServer([s.port for s in self.servers.values()])
            until(lambda: self.balanced(4 * nodes) == set(self.servers), "every process is in the rotation")
        except BaseException:
            self.close()
            raise

    @property
    def base(self) -> str:
        assert self.balancer is not None
        return self.balancer.base

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.close()
        for s in self.servers.values():
            s.stop(signal.SIGKILL)  # their drain is not what these tests are about (test_drain's)
        self.pg.drop_database(self.url)

    def balanced(self, tries: int) -> set[str]:
        """The processes that answered ``tries`` fresh requests to ``/readyz`` through the balancer."""
        seen = set()
        for _ in range(tries):
            r = httpx.get(self.base + "/readyz", timeout=5, headers={"connection": "close"})
            if r.status_code == 200:
                seen.add(r.json()["node"])
        return seen

    # ------------------------------------------------------------ reading the processes

    def metric(self, node: str, name: str) -> float:
        """A sample of ``node``'s ``/metrics`` (0 when it has none yet)."""
        text = httpx.get(self.servers[node].base + "/metrics", timeout=5).text
        return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name)

    def sockets(self) -> dict[str, float]:
        return {node: self.metric(node, "capicua_sockets") for node in self.servers}

    def log_of(self, node: str) -> str:
        return self.servers[node].log.read_text()

    # ------------------------------------------------------------ sockets and tables

    def post(self, path: str, body: dict[str, Any], node: str | None = None) -> dict[str, Any]:
        """A POST through the balancer (or straight to ``node``), answered 200."""
        base = self.base if node is None else self.servers[node].base
        r = httpx.post(base + path, json=body, timeout=10)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def socket(self) -> tuple[WSClient, str]:
        """A websocket through the balancer, and the process it reached."""
        before = self.sockets()
        c = WSClient(self.base.replace("http://", "ws://") + "/ws")

        def grown() -> str | None:
            now = self.sockets()
            up = [n for n in now if now[n] > before[n]]
            return up[0] if len(up) == 1 and sum(now.values()) == sum(before.values()) + 1 else None

        return c, until(grown, "the new socket is counted by one process")

    def socket_at(self, node: str) -> WSClient:
        return WSClient(self.servers[node].base.replace("http://", "ws://") + "/ws")

    @contextmanager
    def _store(self) -> Iterator[Store]:
        """The cluster's database, on connections of its own (a test restarts the server)."""
        store = Store(self.url)
        try:
            yield store
        finally:
            store.close()

    def owner(self, table_id: str) -> tuple[str, int]:
        """The table's lease: its holder and epoch."""
        with self._store() as store, store.sessions() as s:
            row = s.execute(select(TableLeaseRow.owner, TableLeaseRow.epoch)
                            .where(TableLeaseRow.table_id == table_id)).one()
        return str(row[0]), int(row[1])

    @contextmanager
    def leases_locked(self) -> Iterator[Callable[[], None]]:
        """Hold ``table_leases`` locked: every process's lease renewals and appends wait
        (their rows are read ``FOR UPDATE`` / ``FOR SHARE``) until the returned callable
        lets it go. (A row lock would not do: a renewal of a lease whose row names
        another owner matches no row, and does not wait.)"""
        with self._store() as store, store.engine.connect() as conn:
            conn.execute(sql("LOCK TABLE table_leases IN EXCLUSIVE MODE"))
            yield conn.rollback
            conn.rollback()

    def waiting(self, node: str, query: str) -> int:
        """How many of ``node``'s database sessions wait on a lock in a statement holding ``query``."""
        with self._store() as store, store.engine.connect() as conn:
            return int(conn.execute(sql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n"
                " AND wait_event_type = 'Lock' AND query LIKE :q"), {"n": node, "q": f"%{query}%"}).scalar_one())

    def committed(self, table_id: str) -> Committed:
        with self._store() as store:
            row = store.load_table(table_id)
        assert row is not None
        return Committed(row["events"])


@dataclass
class Hand:
    """The deal as it stands after an event: each seat's tiles, the sleeping ones."""

    phase: str
    hands: list[set[tuple[int, int]]]
    sleeping: set[tuple[int, int]]


class Committed:
    """A table's committed log, replayed entry by entry: the events it numbered and
    the hands after each."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        read = [read_entry(e) for e in entries]
        core = TableCore(read[0])  # type: ignore[arg-type]
        self.events: dict[int, dict[str, Any]] = {}
        self.hands: dict[int, Hand | None] = {0: None}
        for entry in read[1:]:
            before = core.seq
            core.apply(entry)
            for seq, text in core.history:
                if seq > before:
                    self.events[seq] = json.loads(text)
            if core.seq > before:
                m = core.match
                hand = m.hand
                self.hands[core.seq] = None if hand is None else Hand(
                    m.phase, [set(map(tuple, h)) for h in hand.hands], set(map(tuple, hand.boneyard)))  # type: ignore[arg-type]
        self.seq = core.seq

    def plays(self) -> list[tuple[int, int, str]]:
        """The actions written, as (hand, seat, action), ``hand`` counting the hands dealt
        (of every match): a tile is played once in a hand, so one of them twice would be
        an action doubled."""
        out: list[tuple[int, int, str]] = []
        hand = 0
        for e in self.entries:
            hand += e["op"] in ("start", "start_hand", "rematch")  # each deals a hand
            if e["op"] == "action":
                out.append((hand, e["seat"], json.dumps(e["action"], sort_keys=True)))
        return out

    def ops(self) -> list[str]:
        return [e["op"] for e in self.entries]

    def check_heard(self, frames: Iterable[dict[str, Any]], who: str) -> set[int]:
        """Every event in ``frames`` is the committed one of its seq; none is missing
        between the first and the last heard. Returns the seqs heard."""
        heard: set[int] = set()
        for f in frames:
            if f.get("type") != "events":
                continue
            for e in f["events"]:
                seq = e["seq"]
                assert seq in self.events, f"{who} heard seq {seq}, which the log does not hold (it ends at {self.seq})"
                assert e["event"] == self.events[seq], f"{who} heard at seq {seq} {e['event']}, the log {self.events[seq]}"
                heard.add(seq)
        if heard:
            missing = set(range(min(heard), max(heard) + 1)) - heard
            assert not missing, f"{who} never heard seqs {sorted(missing)}"
        return heard

    def check_no_leak(self, frames: Iterable[dict[str, Any]], seat: int | None, who: str) -> int:
        """No frame to ``seat`` (``None``: a spectator) holds a tile of another seat's hand
        while the hand is played, nor a sleeping tile, as the deal stood at the frame's
        seq. Returns how many frames were checked against a deal."""
        checked = 0
        for f in frames:
            seq = f.get("seq")
            if not isinstance(seq, int) or seq not in self.hands:
                continue
            hand = self.hands[seq]
            if hand is None:
                continue
            checked += 1
            seen = tiles_in(f)
            assert not (seen & hand.sleeping), f"{who} was sent sleeping tiles {seen & hand.sleeping}: {f}"
            if hand.phase in ("play", "redeal_question"):
                others = {t for s, h in enumerate(hand.hands) if s != seat for t in h}
                assert not (seen & others), f"{who} (seat {seat}) was sent {seen & others} of another hand: {f}"
        return checked


def play_moves(clients: list[WSClient], moves: int, stop: Callable[[WSClient], bool] = lambda c: False) -> int:
    """The players ``clients`` (one socket per seat) play their turns, first legal move,
    ``moves`` times or until the hand is over or ``stop`` holds for the player on turn.
    Each move waits until every socket heard the last one. Returns the moves made."""
    made = 0
    while made < moves:
        seq = max(c.seq for c in clients)
        for c in clients:
            while c.seq < seq:
                c.recv()
        views = [c.view for c in clients if c.view is not None]
        if not views or views[0]["phase"] not in ("play", "redeal_question"):
            return made
        mover = next((c for c in clients if c.my_turn()), None)
        if mover is None:  # a neighbour's turn (or the deal): wait for the next events
            clients[0].until(lambda f: f["type"] == "events")
            continue
        if stop(mover):
            return made
        mover.send({"type": "play", "seq": mover.seq, **mover.view["legal"][0]})  # type: ignore[index]
        mover.until(lambda f, seq=seq: f["type"] == "events" and f["seq"] > seq)  # type: ignore[misc]
        made += 1
    return made


def catch_up(clients: list[WSClient], seq: int) -> None:
    """Read each socket's frames until it heard seq ``seq``."""
    for c in clients:
        while c.seq < seq:
            c.recv()


@dataclass
class Seated:
    """A table of a guest and three neighbours, the guest's socket on a process that is
    not the table's owner (her gateway), a spectator's socket on the owner."""

    table: str
    player: WSClient
    watcher: WSClient
    owner: str
    gateway: str

    def close(self) -> None:
        self.player.close()
        self.watcher.close()


def table_of_one(cluster: Cluster, nickname: str, node: str | None = None) -> Seated:
    """:class:`Seated`, the table opened through the balancer (or by ``node``, its owner);
    the guest has played once and it is her turn again."""
    t = cluster.post("/api/tables", {"nickname": nickname}, node)
    tid = t["table_id"]
    owner, _ = cluster.owner(tid)
    gateway = next(n for n in cluster.servers if n != owner)
    player, watcher = cluster.socket_at(gateway), cluster.socket_at(owner)
    seated = Seated(tid, player, watcher, owner, gateway)
    try:
        assert player.hello(tid, t["token"])["type"] == "welcome"
        watcher.send({"type": "hello", "table": tid, "watch": True})
        assert watcher.until(lambda f: f["type"] in ("welcome", "error"))["type"] == "welcome"
        drive_on(player, lambda f: f["type"] == "events" and player.my_turn() and played(player) > 0)
    except BaseException:
        seated.close()
        raise
    return seated


def played(c: WSClient, after: int = 0) -> int:
    """How many plays of ``c``'s seat it heard after seq ``after``."""
    seat = c.view["seat"] if c.view is not None else None
    return sum(1 for f in c.frames if f.get("type") == "events" for e in f["events"]
               if e["seq"] > after and e["event"]["kind"] == "play" and e["event"]["seat"] == seat)


def plays_on(c: WSClient, moves: int = 2) -> None:
    """``c`` plays ``moves`` more tiles of hers (the hand, or the next, goes on)."""
    after = c.seq
    drive_on(c, lambda f: played(c, after) >= moves)


def drive_on(c: WSClient, stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """``c`` plays its turns (first legal move), says next_hand after each hand and
    "Otra partida" after each match, until a frame it reads satisfies ``stop`` (it
    acts first on the view it holds). Unlike conftest's ``drive`` it plays on across
    matches (a hand can end one: a blocked hand's points may pass the target, and the
    hand numbers start again). Each thing is said once per seq it answers; a welcome
    (a hello said again: whatever was not answered is lost) lets it say them again."""
    answered: set[tuple[str, int]] = set()
    f: dict[str, Any] | None = None
    while True:
        if f is not None:
            if stop(f):
                return f
            if f["type"] == "error":
                raise AssertionError(f"unexpected error {f}")
            if f["type"] == "welcome":
                answered.clear()
        v = c.view
        if v is not None and (f is None or f["type"] in ("events", "sync")):
            if c.my_turn():
                said: tuple[str, dict[str, Any]] = ("play", {"type": "play", "seq": c.seq, **v["legal"][0]})
            elif v["phase"] == "hand_over":
                said = ("next_hand", {"type": "next_hand", "seq": c.seq})
            elif v["phase"] == "match_over":
                said = ("rematch", {"type": "rematch"})
            else:
                said = ("", {})
            if said[0] and (said[0], c.seq) not in answered:
                answered.add((said[0], c.seq))
                c.send(said[1])
        f = c.recv()


def held_to_the_log(cluster: Cluster, seated: Seated) -> Committed:
    """What the guest's and the spectator's sockets heard is the committed log's; no
    action written twice; the fault made nobody gone and no stand-in play."""
    log = cluster.committed(seated.table)
    log.check_heard(seated.player.frames, f"the guest on {seated.gateway}")
    log.check_heard(seated.watcher.frames, f"the spectator on {seated.owner}")
    assert len(log.plays()) == len(set(log.plays()))
    assert "controller" not in log.ops()
    assert not any(e["op"] == "presence" and not e["online"] for e in log.entries)
    return log
