"""``capicua bench-server`` keeps what it measured (issue 21, item 12): each
step's row is printed as the step ends, and a step that fails (here: the
server's bound on connections set so low that the second step meets its 503)
is a row of its own, after the rows before it; the command exits 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--tables", "1,6", "--seconds", "1", "--warmup", "0", "--think", "0.2", "--idle", "0", "--bot-delay", "0",
        "--limit-concurrency", "5"]


def left_behind(mark: str) -> list[int]:
    """Live processes whose environment holds ``mark`` (started by one run: the server, its pools)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile, or not ours
                continue
    return found


def bench(*extra: str) -> subprocess.CompletedProcess[str]:
    """A tiny run, and nothing of it left running afterwards (the server's pool workers included)."""
    mark = f"bench-rows-{uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    env["PYTHONPATH"] = str(ROOT)
    env["CAPICUA_TEST_RUN"] = mark
    done = subprocess.run([sys.executable, "-m", "capicua", "bench-server", *TINY, *extra], capture_output=True,
                          text=True, env=env, timeout=300)
    assert left_behind(mark) == []
    return done


def test_a_failing_step_is_a_row_after_the_rows_before_it() -> None:
    done = bench()
    assert done.returncode == 1, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and not line.startswith("| tables")]
    assert len(rows) == 2, done.stdout
    measured, failed = rows
    cells = [c.strip() for c in measured.strip("|").split("|")]
    assert cells[0] == "1" and int(cells[1]) >= 0 and cells[4].replace(".", "").isdigit()  # plays, events/s
    assert cells[8].replace(".", "").isdigit()  # events per server CPU-second
    assert failed.startswith("| 6 | failed: ") and "did not open" in failed and "503" in failed
    assert "Traceback" not in done.stderr


def test_json_rows_are_one_object_a_line() -> None:
    done = bench("--json")
    assert done.returncode == 1, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [r["step"]["tables"] for r in rows] == [1, 6]
    assert "latency_ms" in rows[0]["step"] and "503" in rows[1]["step"]["failed"]
