"""A throw-away PostgreSQL server for the tests: Debian's ``initdb`` and ``pg_ctl``
make a cluster under a temporary directory (data dir and unix socket dir), serve it
on a free port on loopback, and delete it when stopped. Never a mock.

``initdb`` refuses to run as root, so as root the cluster belongs to the ``postgres``
user (the Debian package creates it) and runs under ``runuser``. Durability is off
(``fsync``, ``synchronous_commit``, ``full_page_writes``): a test database lives
for one test.

Standalone, to serve a cluster by hand (for ``capicua bench-store`` say)::

    .venv/bin/python tests/pgserver.py [--durable]   # prints a database's URL, stops on Enter

(``--durable``: fsync and synchronous commits on, as a production server has them.)
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

SUPERUSER = "capicua"
_SETTINGS = (
    "-F -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
    "-c max_connections=200 -c shared_buffers=32MB"
)
_DURABLE = "-c max_connections=200 -c shared_buffers=32MB"


class PostgresMissing(RuntimeError):
    """No ``initdb`` on this machine (``bash scripts/ensure-system-deps.sh`` installs it)."""


def find_bin_dir() -> Path:
    """The bin directory of the newest Debian PostgreSQL (``/usr/lib/postgresql/N/bin``),
    else wherever ``initdb`` is on the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    raise PostgresMissing("initdb not found: run `bash scripts/ensure-system-deps.sh` (installs postgresql)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _run(bin_dir: Path, *args: str) -> None:
    """A PostgreSQL program; as root, as the postgres user (initdb refuses root)."""
    cmd = [str(bin_dir / args[0]), *args[1:]]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


def _remove_cluster(bin_dir: Path, root: Path) -> None:
    if (root / "data").exists():
        try:
            _run(bin_dir, "pg_ctl", "-D", str(root / "data"), "-w", "-s", "-m", "immediate", "stop")
        except RuntimeError:
            pass  # never started, or already gone: the directory goes all the same
    shutil.rmtree(root, ignore_errors=True)


def reap_orphans(bin_dir: Path) -> None:
    """Stop and delete the clusters of test processes that died without stopping them
    (killed by a timeout, say): each cluster's directory names its owner's pid."""
    places = {Path("/tmp"), Path(tempfile.gettempdir())}
    for owner in (o for place in places for o in place.glob("capicua-pg-*/owner")):
        try:
            pid = int(owner.read_text())
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            _remove_cluster(bin_dir, owner.parent)


class PgServer:
    """One cluster: :meth:`start`, then :meth:`create_database` per test, :meth:`stop`."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable  # fsync and synchronous commits on, as a real server (benchmarks)
        self.bin = find_bin_dir()
        self._as_root = os.geteuid() == 0
        # As root the server runs as postgres, who must reach the directory: under /tmp,
        # not a TMPDIR that may be root's own.
        self.root = Path(tempfile.mkdtemp(prefix="capicua-pg-", dir="/tmp" if self._as_root else None))
        self.data = self.root / "data"
        self.sockets = self.root / "sock"
        self.port = _free_port()
        self._counter = 0
        self._lock = threading.Lock()

    def _run(self, *args: str) -> None:
        _run(self.bin, *args)

    def start(self) -> PgServer:
        reap_orphans(self.bin)
        (self.root / "owner").write_text(str(os.getpid()))
        self.sockets.mkdir()
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync", "--no-instructions")
        self.resume()
        return self

    def halt(self) -> None:
        """Stop the server (its clients are disconnected), keeping its data: :meth:`resume`
        starts it again on the same port (a restart, as the cluster tests make one)."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-s", "-m", "fast", "stop")

    def resume(self) -> None:
        settings = _DURABLE if self.durable else _SETTINGS
        options = f"{settings} -p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-s", "-l", str(self.root / "server.log"),
                  "-o", options, "start")

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy URL (psycopg 3) of ``database``, over the unix socket."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.sockets}&port={self.port}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.sockets), port=self.port, user=SUPERUSER, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(sql)

    def create_database(self) -> str:
        """A fresh, empty database (a copy of ``template0``): returns its URL."""
        with self._lock:
            self._counter += 1
            name = f"t{os.getpid()}_{self._counter}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by :meth:`create_database` (connections left open by the
        test are ended: ``WITH (FORCE)``)."""
        name = url.split("/")[-1].split("?")[0]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        _remove_cluster(self.bin, self.root)


if __name__ == "__main__":
    import sys

    server = PgServer(durable="--durable" in sys.argv).start()
    try:
        print(server.create_database(), flush=True)
        input("serving; Enter stops the server\n")
    finally:
        server.stop()
