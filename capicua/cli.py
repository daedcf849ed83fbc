"""Command line: ``capicua serve | worker | sim | replay | verify | analyse | bench | tournament | fit-playmodel``."""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections.abc import Sequence
from typing import Any

from capicua.engine import (
    Match,
    RecordError,
    RulesError,
    make_rules,
    parse_action,
    replay,
    replay_summary,
    rules_from_json,
)


def _sim_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sim", help="play bot-vs-bot matches and print a JSON summary (a progress bar goes to stderr)"
    )
    p.add_argument("--preset", default="cubano")
    p.add_argument("--matches", type=int, default=10)
    p.add_argument("--seed", default="1")
    p.add_argument("--bot", default="random", help="level of the first side (seats 0 and 2)")
    p.add_argument("--vs", default=None, help="level of the other side (default: the same as --bot)")
    p.add_argument(
        "--swap",
        action="store_true",
        help="alternate sides every match so that each level sits in every seat equally",
    )
    p.add_argument("--records", default=None, help="write every match record to this JSON-lines file")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    p.add_argument("--verbose", action="store_true", help="print every hand as it is played")


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["target=50", "partnership=false"]`` -> ``{"target": 50, "partnership": False}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise RulesError(f"option {pair!r} is not KEY=VALUE")
        value: Any = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        out[key] = value
    return out


def run_sim(args: argparse.Namespace, out: Any = None, progress: bool = False) -> dict[str, Any]:
    """The summary of ``args.matches`` matches; ``--verbose`` hands go to
    ``out`` (stdout), and with ``progress`` a bar over the matches to stderr."""
    from tqdm import tqdm

    from capicua.bots import decide

    out = out if out is not None else sys.stdout
    rules = make_rules(args.preset, **parse_options(args.option))
    levels = (args.bot, args.vs or args.bot)
    teams = rules.teams
    summary: dict[str, Any] = {
        "preset": args.preset,
        "matches": args.matches,
        "seed": args.seed,
        "levels": {"a": levels[0], "b": levels[1]},
        "hands": 0,
        "domino": 0,
        "tranque": 0,
        "tie": 0,
        "target": 0,  # hands cut short by an in-play score reaching the target (All Fives)
        "redeals": 0,
        "hands_won_by_team": [0] * teams,
        "matches_won_by_team": [0] * teams,
        "hands_won_by_level": {"a": 0, "b": 0},
        "matches_won_by_level": {"a": 0, "b": 0},
        "hands_won_by_opening_team": 0,
        "hands_won_by_other_team": 0,
        "points": 0,
        "capicua": 0,
        "pollona": 0,
        "viajera": 0,
    }
    records = open(args.records, "w") if args.records else None
    bar = tqdm(total=args.matches, desc="matches", unit="match", file=sys.stderr, disable=not progress)
    try:
        for m in range(args.matches):
            swapped = bool(args.swap and m % 2 == 1)
            match = Match(rules, f"{args.seed}/{m}")

            def side_of(seat: int, swapped: bool = swapped) -> str:
                # Side "a" holds the even seats (team 0) unless swapped.
                even = rules.team_of(seat) % 2 == 0 if rules.partnership else seat % 2 == 0
                return "a" if even != swapped else "b"

            decision = 0
            while True:
                if match.phase in ("new", "hand_over"):
                    match.start_hand()
                    continue
                if match.phase == "match_over":
                    break
                seat = match.turn
                assert seat is not None
                level = levels[0] if side_of(seat) == "a" else levels[1]
                choice = decide(level, match.view(seat), seed=zlib.crc32(f"{args.seed}/{m}/{decision}".encode()))
                decision += 1
                match.apply(seat, parse_action(choice, rules.max_pip))
                if match.phase in ("hand_over", "match_over"):
                    _count_hand(summary, match, side_of)
                    if args.verbose:
                        # tqdm.write lifts the progress bar off the terminal while the hand is printed.
                        tqdm.write(describe_hand(match), file=out)
            assert match.match_result is not None
            winner = match.match_result["winner"]
            summary["matches_won_by_team"][winner] += 1
            win_seat = rules.seats_of_team(winner)[0]
            summary["matches_won_by_level"][side_of(win_seat)] += 1
            summary["pollona"] += int(match.match_result["pollona"])
            summary["viajera"] += int(match.match_result["viajera"])
            if records:
                records.write(json.dumps(match.record(), separators=(",", ":")) + "\n")
            bar.update(1)
    finally:
        bar.close()
        if records:
            records.close()
    hands = summary["hands"] or 1
    decided = summary["hands"] - summary["tie"] or 1
    summary["mean_points_per_hand"] = round(summary["points"] / hands, 3)
    summary["share_won_by_level_a"] = round(summary["hands_won_by_level"]["a"] / decided, 4)
    summary["share_of_hands"] = {
        "opening_team": round(summary["hands_won_by_opening_team"] / hands, 4),
        "other_team": round(summary["hands_won_by_other_team"] / hands, 4),
        "tie": round(summary["tie"] / hands, 4),
    }
    del summary["points"]
    return summary


def _count_hand(summary: dict[str, Any], match: Match, side_of: Any) -> None:
    hand = match.hand
    assert hand is not None and hand.result is not None
    res = hand.result
    summary["hands"] += 1
    summary[res["kind"]] += 1
    summary["redeals"] += len(hand.voided)
    summary["capicua"] += int(res["capicua"])
    summary["points"] += res["points"]
    if res["team"] is not None:
        summary["hands_won_by_team"][res["team"]] += 1
        summary["hands_won_by_level"][side_of(res["seat"])] += 1
        if res["team"] == match.rules.team_of(hand.opener):
            summary["hands_won_by_opening_team"] += 1
        else:
            summary["hands_won_by_other_team"] += 1


SEATS4 = ("South", "East", "North", "West")


def seat_name(match: Match, seat: int | None) -> str:
    if seat is None:
        return "-"
    return SEATS4[seat] if match.rules.players == 4 else f"Seat {seat}"


def describe_hand(match: Match) -> str:
    """A readable account of the last hand: deal, every action, result."""
    hand = match.hand
    assert hand is not None
    lines = [f"Hand {hand.number} (opener {seat_name(match, hand.opener)}, seed hash {hand.seed_hash[:12]}…)"]
    for seat, tiles in enumerate(hand.initial):
        shown = " ".join(f"{a}-{b}" for a, b in tiles)
        lines.append(f"  {seat_name(match, seat):>6}: {shown}")
    for a in hand.actions:
        who = seat_name(match, a["seat"])
        if "play" in a:
            x, y = a["play"]
            where = f" on the {a['end']}" if a["end"] else " (la salida)"
            extra = f"  +{a['score']}" if "score" in a else ""
            lines.append(f"    {who} plays {x}-{y}{where}{extra}")
        elif "draw" in a:
            lines.append(f"    {who} draws")
        elif "redeal" in a:
            lines.append(f"    {who} {'shows five doubles: redeal' if a['redeal'] else 'keeps the deal'}")
        else:
            lines.append(f"    {who}: paso")
    res = hand.result
    if res is not None:
        if res["kind"] == "tie":
            lines.append("  Tranque, tied: nobody scores.")
        elif res["kind"] == "target":
            lines.append(f"  {seat_name(match, res['seat'])} reaches the target: the match ends here.")
        else:
            kind = "¡Dominó!" if res["kind"] == "domino" else "Tranque"
            cap = " ¡Capicúa!" if res["capicua"] else ""
            lines.append(
                f"  {kind}{cap} {seat_name(match, res['seat'])} wins {res['points']} for team {res['team']}."
            )
        lines.append(f"  Scores: {match.scores}")
    return "\n".join(lines)


def load_records(text: str) -> list[Any]:
    """One JSON document, or JSON lines (what ``capicua sim --records`` writes).
    Raises ``ValueError`` only (JSON nested too deep for the parser included)."""
    try:
        try:
            records = [json.loads(text)]
        except json.JSONDecodeError:  # not one document: JSON lines (sim --records)
            records = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    except RecursionError:
        raise ValueError("nested too deep") from None
    if not records:
        raise ValueError("the file holds no record")
    return records


def cmd_replay(path: str) -> int:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        print(json.dumps({"ok": False, "error": str(exc)}))
        return 2
    try:
        records = load_records(text)
    except ValueError as exc:
        print(json.dumps({"ok": False, "error": f"not JSON: {exc}"}))
        return 2
    results = []
    for index, record in enumerate(records):
        try:
            match = replay(record)
        except RecordError as exc:
            print(
                json.dumps(
                    {
                        "ok": False,
                        "record": index,
                        "hand": exc.hand,
                        "action": exc.action,
                        "field": exc.field,
                        "error": str(exc),
                    }
                )
            )
            return 1
        results.append(replay_summary(match))
    print(json.dumps(results[0] if len(results) == 1 else {"ok": True, "records": results}, indent=1))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """``capicua verify``: a hand's deal from its seed (``--seed``) or from a record (``--record``)."""
    from capicua.table.fairness import VerifyError, verify_deal, verify_record_hand

    try:
        if args.record is not None:
            answer = verify_record_hand(_read_record(args.record, args.match), args.hand)
        elif args.seed is not None:
            shown = [int(x) for x in args.shown.split(",")] if args.shown else []
            answer = verify_deal(args.preset, args.seed, parse_options(args.option), args.hand, args.previous, shown)
        else:
            raise VerifyError("give --seed HAND_SEED, or --record FILE and --hand N")
    except (RulesError, VerifyError, ValueError, OSError) as exc:
        code = exc.code if isinstance(exc, (RulesError, VerifyError)) else "malformed"
        print(json.dumps({"ok": False, "code": code, "error": str(exc)}))
        return 2
    print(json.dumps(answer, indent=1))
    ok = answer["hash_ok"] is not False and answer["deal_matches"] is not False
    return 0 if ok else 1


def _read_record(path: str, index: int) -> Any:
    """Record ``index`` of a file holding one JSON record or JSON lines (``sim --records``)."""
    with open(path) as fh:
        records = load_records(fh.read())
    if not 0 <= index < len(records):
        raise ValueError(f"{path} holds {len(records)} records; --match goes from 0 to {len(records) - 1}")
    return records[index]


def _analyse_parser(sub: Any) -> None:
    p = sub.add_parser("analyse", help="the experto's analysis of a hand of a match record (docs/analysis.md)")
    p.add_argument("--record", default=None, metavar="FILE", help="a match record (JSON, or JSON lines)")
    p.add_argument("--match", type=int, default=0, help="which record of a JSON-lines file (0 by default)")
    p.add_argument("--hand", type=int, default=1, help="the hand number (1 by default)")
    p.add_argument("--seats", default=None, metavar="SEAT,SEAT", help="the seats to analyse (default: every seat)")
    p.add_argument("--table", default="", help="the table id the seeds are drawn from (as the server does)")
    p.add_argument("--match-number", type=int, default=1, help="the table's match number, for the seeds")
    p.add_argument("--budget-ms", type=float, default=None, help="the experto's budget per decision (its default)")
    p.add_argument("--bench", action="store_true", help="CPU per hand over --hands fresh cubano hands, "
                   "against the experto deciding the same positions")
    p.add_argument("--hands", type=int, default=20, help="hands the benchmark analyses (20)")
    p.add_argument("--seed", default="bench", help="the benchmark's deals")


def cmd_analyse(args: argparse.Namespace) -> int:
    """``capicua analyse``: the analysis JSON on stdout, the timing on stderr."""
    import time

    from capicua.bots.analysis import analyse_hand, bench

    if args.bench:
        print(json.dumps(bench(args.hands, args.seed, args.budget_ms), indent=1))
        return 0
    try:
        if args.record is None:
            raise ValueError("give --record FILE (and --hand N), or --bench")
        record = _read_record(args.record, args.match)
        if args.seats:
            seats = [int(x) for x in args.seats.split(",")]
        else:
            seats = list(range(rules_from_json(record.get("rules") if isinstance(record, dict) else None).players))
        cpu, wall = time.process_time(), time.perf_counter()
        result = analyse_hand(record, args.hand, seats, args.table, args.match_number, args.budget_ms)
    except RecordError as exc:
        print(json.dumps({"ok": False, "code": "bad_record", "hand": exc.hand, "field": exc.field, "error": str(exc)}))
        return 1
    except RulesError as exc:
        print(json.dumps({"ok": False, "code": "bad_record", "error": f"bad rules: {exc}"}))
        return 1
    except (ValueError, OSError) as exc:
        print(json.dumps({"ok": False, "code": "malformed", "error": str(exc)}))
        return 2
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps(result, indent=1))
    n = sum(len(r["decisions"]) for r in result)
    print(f"hand {args.hand}: {n} decisions, {cpu:.2f} s CPU, {wall:.2f} s wall", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Subcommands owned by other modules take their own arguments.
    if argv and argv[0] == "serve":
        from capicua.server.app import main as serve_main

        return serve_main(argv[1:], prog="capicua serve")
    if argv and argv[0] == "worker":
        from capicua.server.worker import main as worker_main

        return worker_main(argv[1:])
    if argv and argv[0] == "bench-server":
        from capicua.tools.bench_server import main as bench_server_main

        return int(bench_server_main(argv[1:]) or 0)
    if argv and argv[0] == "bench-matchmaking":
        from capicua.tools.bench_matchmaking import main as bench_matchmaking_main

        return bench_matchmaking_main(argv[1:])
    if argv and argv[0] == "bench-cluster":
        from capicua.tools.bench_cluster import main as bench_cluster_main

        return bench_cluster_main(argv[1:])
    if argv and argv[0] == "bench-store":
        from capicua.tools.bench_store import main as bench_store_main

        return bench_store_main(argv[1:])
    if argv and argv[0] == "bench-standings":
        from capicua.tools.bench_standings import main as bench_standings_main

        return bench_standings_main(argv[1:])
    if argv and argv[0] == "bench":
        from capicua.tools.bench import main as bench_main

        return int(bench_main(argv[1:]) or 0)
    if argv and argv[0] == "tournament":
        from capicua.tools.tournament import main as tournament_main

        return int(tournament_main(argv[1:]) or 0)
    if argv and argv[0] == "migrate-logs":
        from capicua.tools.migrate_logs import main as migrate_logs_main

        return migrate_logs_main(argv[1:])
    if argv and argv[0] == "fit-playmodel":
        from capicua.tools.fit_playmodel import main as fit_main

        return int(fit_main(argv[1:]) or 0)

    parser = argparse.ArgumentParser(prog="capicua", description="Capicúa: Cuban dominoes")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run the web game (--host, --port, --database, --data-dir, --bot-delay, --log-level)")
    _sim_parser(sub)
    rp = sub.add_parser("replay", help="re-validate a match record (JSON or JSON lines) and print its results")
    rp.add_argument("file")
    vp = sub.add_parser(
        "verify", help="recompute a hand's deal from its revealed seed, or from a match record"
    )
    vp.add_argument("--preset", default="cubano")
    vp.add_argument("--seed", default=None, help="the hand seed revealed after the hand")
    vp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    vp.add_argument("--hand", type=int, default=1, help="the hand number (1 by default)")
    vp.add_argument(
        "--previous", choices=("domino", "tranque", "tie"), default=None,
        help="how the hand before ended (asked only when the deal depends on it)",
    )
    vp.add_argument("--shown", default="", metavar="SEAT,SEAT", help="seats that showed five doubles, in order")
    vp.add_argument("--record", default=None, metavar="FILE", help="verify hand --hand of this match record")
    vp.add_argument("--match", type=int, default=0, help="which record of a JSON-lines file (0 by default)")
    _analyse_parser(sub)
    sub.add_parser("worker", help="decide bot moves for the servers of a cluster (--redis URL, --processes)")
    sub.add_parser("bench", help="playout throughput benchmark")
    sub.add_parser("bench-server", help="the server under a ramp of tables played at a human pace")
    sub.add_parser("bench-matchmaking", help="guests joining the parque's queue at a rate: time to be seated, p50/p99")
    sub.add_parser("bench-cluster", help="1, 2, 4 server processes behind HAProxy under a ramp of tables, and failover")
    sub.add_parser("bench-store", help="the event log's appends/s and latency, by number of writer threads")
    sub.add_parser("bench-standings", help="the leaderboard and a profile over 100,000 results rows, timed")
    sub.add_parser("tournament", help="duplicate-deal bot tournament")
    sub.add_parser("fit-playmodel", help="fit experto's play model to the search bots' decisions")
    sub.add_parser("migrate-logs", help="rewrite the table logs of the first format, once (--database URL)")
    args = parser.parse_args(argv)

    if args.command == "sim":
        try:
            summary = run_sim(args, progress=True)
        except RulesError as exc:
            print(json.dumps({"ok": False, "error": str(exc)}))
            return 2
        print(json.dumps(summary, indent=1))
        return 0
    if args.command == "replay":
        return cmd_replay(args.file)
    if args.command == "verify":
        return cmd_verify(args)
    if args.command == "analyse":
        return cmd_analyse(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
