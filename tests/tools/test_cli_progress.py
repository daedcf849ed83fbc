"""``capicua tournament`` and ``capicua sim`` show a progress bar on stderr
while stdout keeps exactly the JSON it printed before there was a bar."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capicua.tools.tournament import run

ROOT = Path(__file__).resolve().parents[2]
# The console script installed next to the interpreter running the tests.
CAPICUA = Path(sys.executable).with_name("capicua")

# The keys the commands printed before the progress bars (same arguments).
TOURNAMENT_KEYS = {
    "a", "b", "preset", "seed", "first_deal", "workers", "budget_ms_a", "budget_ms_b", "options_a", "options_b",
    "duplicate_hands", "hands_played", "a_wins", "b_wins", "ties", "a_win_rate_decided", "a_win_rate_ci95",
    "a_points_per_hand", "b_points_per_hand", "a_margin_per_hand", "a_margin_per_hand_ci95", "margin_sd",
    "match_target", "a_match_win_rate_estimated", "match_win_rate_method", "decision_time_a",
    "decision_time_b", "wall_seconds",
}
PLAYED_MATCH_KEYS = {"matches_played", "a_match_win_rate_played", "a_match_win_rate_played_ci95"}
SIM_KEYS = {
    "preset", "matches", "seed", "levels", "hands", "domino", "tranque", "tie", "target", "redeals",
    "hands_won_by_team", "matches_won_by_team", "hands_won_by_level", "matches_won_by_level",
    "hands_won_by_opening_team", "hands_won_by_other_team", "capicua", "pollona", "viajera",
    "mean_points_per_hand", "share_won_by_level_a", "share_of_hands",
}


def run_capicua(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CAPICUA), *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def final_bar(stderr: str, desc: str) -> str:
    """The last drawing of the bar named ``desc`` (tqdm redraws it after a carriage return)."""
    drawings = [d for d in re.split(r"[\r\n]", stderr) if d.startswith(f"{desc}:")]
    assert drawings, f"no {desc!r} bar in stderr: {stderr!r}"
    return drawings[-1]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_tournament_bars_on_stderr_json_alone_on_stdout(workers: str) -> None:
    done = run_capicua("tournament", "--preset", "cubano", "--a", "random", "--b", "botagorda", "--hands", "5",
                       "--matches", "3", "--seed", "progress", "--workers", workers)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == TOURNAMENT_KEYS | PLAYED_MATCH_KEYS
    assert out["hands_played"] == 10 and out["matches_played"] == 3
    deals = final_bar(done.stderr, "deals")
    assert re.search(r"100%\|.*\| 5/5 \[", deals), deals
    matches = final_bar(done.stderr, "matches")
    assert re.search(r"100%\|.*\| 3/3 \[", matches), matches
    assert "<00:00" in deals  # the time left, run out


def test_sim_bar_on_stderr_json_alone_on_stdout() -> None:
    done = run_capicua("sim", "--preset", "cubano", "--matches", "4", "--seed", "progress",
                       "--bot", "random", "--vs", "botagorda")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)) == SIM_KEYS
    bar = final_bar(done.stderr, "matches")
    assert re.search(r"100%\|.*\| 4/4 \[.*match/s\]", bar), bar


def test_tournament_run_is_quiet_as_a_library(capsys: pytest.CaptureFixture[str]) -> None:
    """Only the command asks for the bar: ``run`` called from Python writes nothing."""
    out = run("cubano", "random", "botagorda", hands=2, seed="quiet", matches=1)
    assert set(out) == TOURNAMENT_KEYS | PLAYED_MATCH_KEYS
    assert capsys.readouterr() == ("", "")
