"""The command line: sim is deterministic, replay accepts honest records and
rejects tampered ones with the index of the first bad action."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from capicua.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "capicua", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_sim_same_seed_same_output(tmp_path: Path) -> None:
    args = ["sim", "--preset", "cubano", "--matches", "3", "--seed", "42", "--bot", "botagorda", "--vs", "random"]
    first = run_cli(*args, "--records", str(tmp_path / "a.jsonl"))
    second = run_cli(*args, "--records", str(tmp_path / "b.jsonl"))
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    summary = json.loads(first.stdout)
    assert summary["hands"] == summary["domino"] + summary["tranque"] + summary["tie"]
    assert sum(summary["matches_won_by_team"]) == 3
    assert sum(summary["hands_won_by_team"]) == summary["hands"] - summary["tie"]


@pytest.mark.parametrize("preset", ["la-plaza", "mano-a-mano", "all-fives", "double-nine-cross"])
def test_sim_records_replay(tmp_path: Path, preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "r.jsonl"
    assert main(["sim", "--preset", preset, "--matches", "2", "--seed", "s", "--records", str(records)]) == 0
    capsys.readouterr()
    assert main(["replay", str(records)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and len(out["records"]) == 2
    for rec_line, summary in zip(records.read_text().splitlines(), out["records"], strict=True):
        assert summary["scores"] == json.loads(rec_line)["scores"]


def _one_record(tmp_path: Path) -> dict:
    records = tmp_path / "r.jsonl"
    assert main(["sim", "--preset", "cubano", "--matches", "1", "--seed", "t", "--records", str(records)]) == 0
    return json.loads(records.read_text().splitlines()[0])


def _replay(tmp_path: Path, record: dict, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    capsys.readouterr()
    code = main(["replay", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_replay_rejects_tile_not_in_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one_record(tmp_path)
    hand = record["hands"][0]
    plays = [i for i, a in enumerate(hand["actions"]) if "play" in a and a["end"] is not None]
    i = plays[3]
    seat = hand["actions"][i]["seat"]
    # A tile that the seat was never dealt.
    dealt = {tuple(t) for t in hand["deal"]["hands"][seat]}
    foreign = next(tuple(t) for t in hand["deal"]["sleeping"] if tuple(t) not in dealt)
    hand["actions"][i]["play"] = list(foreign)
    code, out = _replay(tmp_path, record, capsys)
    assert code == 1 and out["ok"] is False
    assert (out["hand"], out["action"]) == (0, i)
    assert "hold" in out["error"]


def test_replay_rejects_pass_holding_playable_tile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one_record(tmp_path)
    hand = record["hands"][0]
    i = next(i for i, a in enumerate(hand["actions"]) if "play" in a and a["end"] is not None)
    seat = hand["actions"][i]["seat"]
    hand["actions"][i] = {"seat": seat, "pass": True}
    code, out = _replay(tmp_path, record, capsys)
    assert code == 1
    assert (out["hand"], out["action"]) == (0, i)
    assert "playable" in out["error"]


def test_replay_rejects_wrong_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one_record(tmp_path)
    hand = record["hands"][0]
    hand["result"]["points"] += 1
    code, out = _replay(tmp_path, record, capsys)
    assert code == 1
    assert (out["hand"], out["action"]) == (0, len(hand["actions"]))
    assert "points" in out["error"]


def test_replay_rejects_deal_not_from_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _one_record(tmp_path)
    deal = record["hands"][0]["deal"]
    deal["hands"][0][0], deal["sleeping"][0] = deal["sleeping"][0], deal["hands"][0][0]
    code, out = _replay(tmp_path, record, capsys)
    assert code == 1 and out["hand"] == 0 and "seed" in out["error"]


def test_sim_verbose_prints_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--preset", "cubano", "--matches", "1", "--seed", "v", "--bot", "botagorda", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1" in out and "South" in out and "Scores" in out


def test_sim_refuses_impossible_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--preset", "cubano", "--option", "players=3"]) == 2
    assert "players" in json.loads(capsys.readouterr().out)["error"]


def _all_fives_record(tmp_path: Path) -> dict:
    """A finished All Fives match: in-play points, a cut-short last hand, several hands."""
    records = tmp_path / "af.jsonl"
    assert main(["sim", "--preset", "all-fives", "--matches", "1", "--seed", "a", "--records", str(records)]) == 0
    return json.loads(records.read_text().splitlines()[0])


def _scoring_hand(record: dict) -> int:
    return next(i for i, h in enumerate(record["hands"]) if h["result"]["in_play_points"] > 0 and i > 0)


# (what is altered, how, the hand and field the refusal names; "H" is a hand with in-play points)
TAMPERING = [
    ("match winner", lambda r, h: r["result"].update(winner=(r["result"]["winner"] + 1) % 4), None, "result.winner"),
    ("pollona", lambda r, h: r["result"].update(pollona=True), None, "result.pollona"),
    ("viajera", lambda r, h: r["result"].update(viajera=True), None, "result.viajera"),
    ("match scores", lambda r, h: r["scores"].__setitem__(1, r["scores"][1] + 5), None, "scores"),
    ("hand scores", lambda r, h: r["hands"][h]["result"]["scores"].__setitem__(0, 999), "H", "result.scores"),
    ("pip totals", lambda r, h: r["hands"][h]["result"]["pip_totals"].reverse(), "H", "result.pip_totals"),
    ("in-play points", lambda r, h: r["hands"][h]["result"].update(in_play_points=1), "H", "result.in_play_points"),
    ("revealed seed", lambda r, h: r["hands"][h]["result"].update(seed="0" * 64), "H", "result.seed"),
    ("seed hash", lambda r, h: r["hands"][h].update(seed_hash="0" * 64), "H", "seed_hash"),
    ("hand number", lambda r, h: r["hands"][h].update(number=h + 7), "H", "number"),
    ("deal count", lambda r, h: r["hands"][h].update(deals=r["hands"][h]["deals"] + 1), "H", "deals"),
    ("voided deals", lambda r, h: r["hands"][h]["voided"].append({"reason": "no_double", "seat": None}), "H", "voided"),
    ("capicua as 0", lambda r, h: r["hands"][h]["result"].update(capicua=0), "H", "result.capicua"),
    ("unknown field", lambda r, h: r["hands"][h].update(note="fine"), "H", "note"),
    ("missing field", lambda r, h: r["hands"][h].pop("deals"), "H", "deals"),
    ("opener not a seat", lambda r, h: r["hands"][h].update(opener={"seat": 0}), "H", "opener"),
    ("cut-short kind", lambda r, h: r["hands"][-1]["result"].update(kind="domino"), "last", "result.kind"),
]


@pytest.mark.parametrize(("what", "alter", "hand", "field"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_replay_refuses_every_altered_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, alter: object, hand: str | None, field: str
) -> None:
    record = _all_fives_record(tmp_path)
    capsys.readouterr()
    code, out = _replay(tmp_path, record, capsys)
    assert code == 0 and out["ok"] is True  # the honest record replays
    h = _scoring_hand(record)
    alter(record, h)  # type: ignore[operator]
    code, out = _replay(tmp_path, record, capsys)
    assert code == 1 and out["ok"] is False, what
    expected_hand = {None: None, "H": h, "last": len(record["hands"]) - 1}[hand]
    assert (out["hand"], out["field"]) == (expected_hand, field), out
    assert out["error"]


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "{not json", ""])
def test_replay_and_verify_refuse_files_that_are_not_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    capsys.readouterr()
    assert main(["replay", str(path)]) in (1, 2)
    assert json.loads(capsys.readouterr().out)["ok"] is False
    assert main(["verify", "--record", str(path), "--hand", "1"]) == 2
    assert json.loads(capsys.readouterr().out)["ok"] is False
