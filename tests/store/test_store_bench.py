"""``capicua bench-store`` measures on the database it is given (a smoke run, tiny)."""

from __future__ import annotations

import json

import pytest

from capicua.tools.bench_store import main

pytestmark = pytest.mark.xdist_group("store")


def test_bench_store_reports_each_writer_count_against_the_baseline(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--database-url", database_url, "--tables", "3", "--appends", "4", "--writers", "1,2", "--json"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["database"] == ("sqlite" if database_url.startswith("sqlite") else "postgresql")
    assert report["baseline_writers"] == 1
    assert [(r["writers"], r["appends"]) for r in report["runs"]] == [(1, 12), (2, 12)]
    for r in report["runs"]:
        print(r)  # the figures of a tiny run: printed, not asserted
        assert r["appends_per_s"] > 0 and r["p99_ms"] >= r["p50_ms"] >= 0
