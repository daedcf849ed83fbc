"""Smoke test of ``capicua bench``: it runs and reports every figure.
Performance itself is never asserted here."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")

from capicua.tools import bench  # noqa: E402

# One xdist worker loads (and, the first time, compiles) the numba kernel.
pytestmark = pytest.mark.xdist_group("numba-kernel")


def test_bench_reports_every_figure(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "_pin_one_core", lambda: None)  # leave the test worker's affinity alone
    assert bench.main(["--seconds", "0.02", "--presets", "cubano,la-plaza", "--json", "--skip-cold-compile"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["presets"]) == {"cubano", "la-plaza"}
    for fig in report["presets"].values():
        assert fig["baseline"]["playouts"] >= 1
        for key in ("fast", "kernel", "kernel_policy_p0.5"):
            assert fig[key]["playouts_per_s"] > 0 and fig[key]["ratio"] > 0
        assert fig["fast_apply_undo"]["operations"] > 0
    assert isinstance(report["target_met"], bool)
    assert report["kernel_warmup_s"] >= 0
