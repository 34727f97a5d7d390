"""Connect Four: rompicapo's solver on Pascal Pons' test sets, side by side with his solver.

Reads the six sets from ../shared/data/connect4/ (see its README). For each set: positions
solved, how many scores agree with the file, mean time and mean nodes per position, then Pons'
figures measured on this kind of machine (issue 6; his C++ solver, AGPL, is not run here) and
the ratios ours/his. Nodes are machine-independent; wall times are noisy on a shared machine
(a solve of a few microseconds that loses the CPU to another process costs milliseconds), so
the CPU time of each solve is measured too and used for the ratio, with the load average.

    .venv/bin/python benchmarks/connect4_vs_pons.py                 # the five easier sets
    .venv/bin/python benchmarks/connect4_vs_pons.py --hard-every 100  # + a Begin-Hard sample
    .venv/bin/python benchmarks/connect4_vs_pons.py --empty          # + the empty board
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from rompicapo.games import _connect4_kernel as K
from rompicapo.games.connect4 import Connect4Solver

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "connect4"

# (file, blog name, Pons' mean time here in seconds, Pons' mean nodes) from issue 6 and the
# data README ("here strong"); Begin-Medium time is the middle of the quoted 290-489 ms;
# Begin-Hard is his 50-position sample (no opening book).
PONS = [
    ("Test_L3_R1", "End-Easy", 15.5e-6, 51.3),
    ("Test_L2_R1", "Middle-Easy", 80e-6, 449.6),
    ("Test_L2_R2", "Middle-Medium", 10.15e-3, 39_907),
    ("Test_L1_R1", "Begin-Easy", 762e-6, 3_298),
    ("Test_L1_R2", "Begin-Medium", 0.39, 1_200_785),
    ("Test_L1_R3", "Begin-Hard", 44.75, 81.4e6),
]


def read_set(name: str) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append((moves, int(score)))
    return rows


def run_set(
    solver: Connect4Solver, rows: list[tuple[str, int]], weak: bool = False, verbose: bool = False
):
    ok, times, cpu, nodes = 0, [], [], []
    for moves, expected in rows:
        r = solver.solve(moves, weak=weak)
        want = (expected > 0) - (expected < 0) if weak else expected
        ok += r.score == want
        if verbose:
            print(
                f"  {moves:<16} score {r.score:>3} (file {expected:>3})  nodes {r.nodes:>13,}  "
                f"wall {r.solve_seconds:8.2f} s  CPU {r.cpu_seconds:8.2f} s",
                flush=True,
            )
        times.append(r.solve_seconds)
        cpu.append(r.cpu_seconds)
        nodes.append(r.nodes)
    return ok, times, cpu, nodes


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="first N positions per set (0: all)")
    ap.add_argument("--sets", default="L3_R1,L2_R1,L2_R2,L1_R1,L1_R2")
    ap.add_argument("--hard-every", type=int, default=0, help="Begin-Hard: every k-th position")
    ap.add_argument("--hard-count", type=int, default=0, help="Begin-Hard: at most this many")
    ap.add_argument("--empty", action="store_true", help="also solve the empty board")
    ap.add_argument("--features", type=int, default=K.ALL_FEATURES)
    ap.add_argument("--table-log2", type=int, default=23)
    args = ap.parse_args()

    solver = Connect4Solver(args.table_log2, features=args.features)
    print(f"compile/load of the kernel: {solver.compile_seconds:.2f} s; features={args.features}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores, shared)")
    wanted = {f"Test_{s}" for s in args.sets.split(",") if s}
    if args.hard_every:
        wanted.add("Test_L1_R3")
    head = (
        f"{'set':<14}{'n':>6}{'correct':>9}{'mean wall':>11}{'median':>10}{'mean CPU':>11}"
        f"{'mean nodes':>14}{'Pons time':>11}{'Pons nodes':>13}{'CPU x':>7}{'nodes x':>9}"
    )
    print(head)
    print("-" * len(head))
    for file, name, p_time, p_nodes in PONS:
        if file not in wanted:
            continue
        rows = read_set(file)
        if file == "Test_L1_R3":
            rows = rows[:: args.hard_every]
            if args.hard_count:
                rows = rows[: args.hard_count]
        elif args.limit:
            rows = rows[: args.limit]
        ok, times, cpu, nodes = run_set(solver, rows, verbose=file == "Test_L1_R3")
        mt, mc, mn = statistics.mean(times), statistics.mean(cpu), statistics.mean(nodes)
        print(
            f"{name:<14}{len(rows):>6}{ok:>9}{fmt_time(mt):>11}"
            f"{fmt_time(statistics.median(times)):>10}{fmt_time(mc):>11}{mn:>14,.1f}"
            f"{fmt_time(p_time):>11}{p_nodes:>13,.1f}{mc / p_time:>7.2f}{mn / p_nodes:>9.2f}",
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if args.empty:
        t0 = time.perf_counter()
        analysis = solver.analyze("")
        print(
            f"empty board: column scores {analysis.scores}, best {analysis.best_columns}, "
            f"{analysis.counts['nodes']:,} nodes, {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
