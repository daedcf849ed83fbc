"""``capicua bench-matchmaking`` (issue 24, item 6): a tiny run seats its guests,
one row per step, as JSON, and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_run_seats_every_guest_and_prints_one_row_per_step() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    done = subprocess.run(
        [sys.executable, "-m", "capicua.cli", "bench-matchmaking", "--guests", "4", "--rates", "50",
         "--poll", "0.2", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    [row] = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["seated"] == 4 and row["unseated"] == 0 and row["refused"] == {}
    assert row["people_per_table"] == {"4": 1} and row["seated_p50_s"] <= row["seated_p99_s"]
