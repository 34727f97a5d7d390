"""Connect Four: rompicapo's solver and Pascal Pons' solver, run side by side on his test sets.

With ``--peers DIR`` (the folder ``bash ../shared/peers/build.sh DIR`` filled) both programs
solve the same positions in the same run: Pons' ``c4bench`` driver (his solver, strong mode,
no opening book, his table reset before each position) and rompicapo's ``Connect4Solver``
(a new table epoch per position), alternately, ``--repeats`` times (default 3). Each program's
figure is the median over the repeats of its mean CPU microseconds per position (CPU time, not
wall: the machine is shared) and its mean nodes per position. Printed with both: the ratio
ours / Pons (below 1: rompicapo faster / fewer nodes), the load average and the CPU model.
Scores are checked against the files for both programs.

The three standard sets (data: ../shared/data/connect4, see its README):

    Begin-Medium   Test_L1_R2, every 20th line (50 positions)
    Begin-Hard     Test_L1_R3, the first 20 lines
    Middle-Medium  Test_L2_R2, every 10th line (100 positions)

    python benchmarks/connect4_vs_pons.py --peers ../peers-build
    python benchmarks/connect4_vs_pons.py --peers ../peers-build --sets L2_R2,L1_R2 --json out.json
    python benchmarks/connect4_vs_pons.py --sets L2_R2      # rompicapo only, quoted figures
    python benchmarks/connect4_vs_pons.py --empty           # + the empty board (minutes)
    python benchmarks/connect4_vs_pons.py --sets '' --empty \
        --empty-json benchmarks/results/connect4_empty.json   # the empty board alone

Without ``--peers`` only rompicapo runs, and Pons' figures are ones measured once with his c4bench
on this kind of machine (not side by side), in a column labelled as quoted.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cpu_model, write_json

from rompicapo.games.connect4 import Connect4Solver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data" / "connect4"

# name -> (file, blog name, every k-th line, at most n lines)
SETS = {
    "L1_R2": ("Test_L1_R2", "Begin-Medium", 20, 0),
    "L1_R3": ("Test_L1_R3", "Begin-Hard", 1, 20),
    "L2_R2": ("Test_L2_R2", "Middle-Medium", 10, 0),
    # the easier sets, for completeness (whole files)
    "L3_R1": ("Test_L3_R1", "End-Easy", 1, 0),
    "L2_R1": ("Test_L2_R1", "Middle-Easy", 1, 0),
    "L1_R1": ("Test_L1_R1", "Begin-Easy", 1, 0),
}
# Pons' figures measured once (his c4bench beside rompicapo, this kind of machine):
# mean CPU us per position, mean nodes. Used only without --peers, labelled "quoted".
QUOTED = {
    "L1_R2": (181_943, 1_144_440),
    "L1_R3": (4_265_930, 25_578_100),
    "L2_R2": (5_249, 32_762),
}


def read_set(key: str, data: Path) -> list[tuple[str, int]]:
    file, _, every, count = SETS[key]
    rows = []
    for line in (data / file).read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append((moves, int(score)))
    rows = rows[::every]
    return rows[:count] if count else rows


def load() -> float:
    return os.getloadavg()[0]


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


_SUMMARY = re.compile(
    r"SUMMARY n=(\d+) mismatches=(\d+) .*mean_cpu_us=([\d.e+-]+) mean_nodes=([\d.e+-]+)"
)


def run_pons(binary: Path, rows: list[tuple[str, int]]) -> tuple[float, float, int]:
    """Pons' driver on ``rows``: (mean CPU us, mean nodes, mismatches with the files)."""
    stdin = "".join(f"{m} {s}\n" for m, s in rows)
    out = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, check=True)
    match = _SUMMARY.search(out.stdout)
    if not match or int(match.group(1)) != len(rows):
        raise RuntimeError(f"c4bench printed no summary for {len(rows)} positions:\n{out.stdout}")
    return float(match.group(3)), float(match.group(4)), int(match.group(2))


def run_ours(
    solver: Connect4Solver, rows: list[tuple[str, int]], verbose: bool = False
) -> tuple[float, float, int]:
    """rompicapo on ``rows``: (mean CPU us, mean nodes, mismatches with the files)."""
    cpu = nodes = bad = 0
    for moves, expected in rows:
        r = solver.solve(moves)
        bad += r.score != expected
        cpu += r.cpu_seconds
        nodes += r.nodes
        if verbose:
            print(
                f"    {moves:<16} {r.score:>3} ({expected:>3}) {r.nodes:>12,} nodes "
                f"{r.cpu_seconds:8.3f} s CPU",
                flush=True,
            )
    return cpu / len(rows) * 1e6, nodes / len(rows), bad


def fmt_us(us: float) -> str:
    return f"{us:,.0f} us" if us < 1e6 else f"{us / 1e6:,.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=Path, help="folder filled by ../shared/peers/build.sh")
    ap.add_argument("--sets", default="L1_R2,L1_R3,L2_R2", help=f"comma list of {list(SETS)}")
    ap.add_argument("--repeats", type=int, default=3, help="alternating runs per program")
    ap.add_argument("--limit", type=int, default=0, help="at most N positions per set (0: all)")
    ap.add_argument("--data", type=Path, default=DATA, help="folder of Pons' Test_* files")
    ap.add_argument("--table-log2", type=int, default=None, help="rompicapo's table size")
    ap.add_argument("--json", type=Path, help="write one row per set to this file")
    ap.add_argument("--verbose", action="store_true", help="print every position of ours")
    ap.add_argument("--empty", action="store_true", help="also solve the empty board (ours)")
    ap.add_argument("--empty-json", type=Path, help="write the empty board's row to this file")
    args = ap.parse_args()

    keys = [k for k in args.sets.split(",") if k]
    for k in keys:
        if k not in SETS:
            ap.error(f"unknown set {k!r}; choose from {', '.join(SETS)}")
    binary = None
    if args.peers is not None:
        binary = args.peers / "c4bench"
        if not binary.exists():
            ap.error(f"{binary} not found: run bash ../shared/peers/build.sh {args.peers}")

    solver = Connect4Solver() if args.table_log2 is None else Connect4Solver(args.table_log2)
    cpu = cpu_model()
    commit = git_commit()
    print(f"CPU: {cpu}; commit {commit}; kernel compile/load {solver.compile_seconds:.2f} s")
    print(f"load average at start: {load():.2f} (1 min; 2 cores shared)")
    print("figures: median over the repeats of the mean CPU microseconds per position\n")
    peer_label = "Pons (run here)" if binary else "Pons (quoted)"
    head = (
        f"| set | n | {peer_label} us | rompicapo us | time ours/Pons | Pons nodes "
        f"| rompicapo nodes | nodes ours/Pons | load | mismatches |"
    )
    print(head)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    out_rows = []
    for k in keys:
        rows = read_set(k, args.data)
        if args.limit:
            rows = rows[: args.limit]
        peer_t, peer_n, ours_t, ours_n, loads = [], [], [], [], []
        bad = 0
        for rep in range(args.repeats):
            if binary is not None:
                t, n, b = run_pons(binary, rows)
                peer_t.append(t)
                peer_n.append(n)
                bad += b
            t, n, b = run_ours(solver, rows, verbose=args.verbose and rep == 0)
            ours_t.append(t)
            ours_n.append(n)
            bad += b
            loads.append(load())
        if binary is not None:
            pt, pn = statistics.median(peer_t), statistics.median(peer_n)
        else:
            pt, pn = QUOTED.get(k, (float("nan"), float("nan")))
        ot, on = statistics.median(ours_t), statistics.median(ours_n)
        ld = statistics.median(loads)
        print(
            f"| {SETS[k][1]} ({SETS[k][0]}) | {len(rows)} | {fmt_us(pt)} | {fmt_us(ot)} "
            f"| {ot / pt:.2f} | {pn:,.0f} | {on:,.0f} | {on / pn:.2f} | {ld:.2f} | {bad} |",
            flush=True,
        )
        out_rows.append(
            {
                "set": f"{SETS[k][1]} ({SETS[k][0]})",
                "positions": len(rows),
                "peer": "Pons c4bench (run here)" if binary else "Pons (quoted, measured once)",
                "peer_us": pt,
                "ours_us": ot,
                "ratio": ot / pt,
                "peer_nodes": pn,
                "ours_nodes": on,
                "nodes_ratio": on / pn,
                "runs_peer_us": peer_t,
                "runs_ours_us": ours_t,
                "mismatches": bad,
                "load": ld,
                "cpu": cpu,
                "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "commit": commit,
            }
        )
    print(f"\nload average at end: {load():.2f}")
    if args.json:
        write_json(args.json, out_rows)
    if args.empty:
        # a search from the empty board (no opening book), ours only: Pons' solver is not run
        load0 = load()
        t0, c0 = time.perf_counter(), time.thread_time()
        r = solver.solve("")
        cpu_s, wall_s, load1 = time.thread_time() - c0, time.perf_counter() - t0, load()
        print(
            f"empty board: score {r.score:+d}, {r.nodes:,} nodes, {cpu_s:.1f} s CPU, "
            f"{wall_s:.1f} s wall, load {load0:.2f} at start, {load1:.2f} at end",
            flush=True,
        )
        empty_row = [
            {
                "position": "empty board (one search from scratch, no opening book)",
                "peer": "not run",
                "score": r.score,
                "ours_cpu_s": cpu_s,
                "ours_wall_s": wall_s,
                "ours_nodes": r.nodes,
                "load_start": load0,
                "load_end": load1,
                "cpu": cpu,
                "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "commit": commit,
            }
        ]
        if args.empty_json:
            write_json(args.empty_json, empty_row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
