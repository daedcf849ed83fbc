"""``capicua bench-cluster`` (issue 23, item 12) keeps what it measured: it starts its own
redis-server, PostgreSQL, HAProxy and server process, prints each step's row as the step
ends (read here while the command still runs), and a step that fails (the servers'
bound on connections set so low that the second step meets its 503) is a row of its own
after the rows before it; the command exits 1 and leaves no process of its own behind."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from test_bench_server_rows import left_behind

pytestmark = pytest.mark.xdist_group("cluster")

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--processes", "1", "--tables", "2,8", "--seconds", "2", "--warmup", "0", "--think", "0.2",
        "--bot-delay", "0", "--kills", "0", "--workers", "1"]
GUARD_S = 120.0  # a guard against hangs, not a timed assertion


def test_rows_come_as_steps_end_and_a_failing_step_is_a_row(tmp_path: Path) -> None:
    mark = f"bench-cluster-{uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    # The servers' bound on connections: 2 tables' sockets fit, 8 do not (their 503 fails the step).
    env.update(PYTHONPATH=str(ROOT), CAPICUA_TEST_RUN=mark, CAPICUA_MAX_CONNECTIONS="6")
    err = tmp_path / "stderr"
    with open(err, "w") as progress:
        proc = subprocess.Popen([sys.executable, "-m", "capicua", "bench-cluster", *TINY], stdout=subprocess.PIPE,
                                stderr=progress, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None
        rows = []
        running_at_first_row = None
        for line in proc.stdout:
            if line.startswith("| 1 |"):
                rows.append(line.strip())
                if running_at_first_row is None:
                    running_at_first_row = proc.poll() is None
        assert proc.wait(timeout=GUARD_S) == 1, err.read_text()[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert running_at_first_row  # printed as the step ended, not at the end of the run
    assert len(rows) == 3, rows
    measured, failed, held = rows
    cells = [c.strip() for c in measured.strip("|").split("|")]
    assert cells[1] == "2" and int(cells[2]) > 0 and cells[5].replace(".", "").isdigit()  # tables, plays, events/s
    assert float(cells[11]) > 0  # events per server CPU-second
    assert failed.startswith("| 1 | 8 | failed: ") and "did not open" in failed and "503" in failed
    assert "held at p99 ≤ 50 ms: 2 tables" in held or "held at p99 ≤ 50 ms: 0 tables" in held
    assert "Traceback" not in err.read_text()
    assert left_behind(mark) == []  # redis, PostgreSQL, HAProxy, the server, its pool, the worker: all stopped
