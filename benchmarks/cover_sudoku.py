"""Sudoku: batch uniqueness checks (stop at 2 solutions) on the shared sets, next to the
reference figures of issue 5; the DLX engine on a sample for comparison; generator timing.

    .venv/bin/python benchmarks/cover_sudoku.py [--quick] [--generate N]

Puzzles per second = puzzles / CPU seconds of the one kernel call that solves the whole file
(file parsing is timed apart; median of ``--runs``). Ratios: tdoku's rate over ours, ours over
the DLX-style C solvers' and over the issue's target. The machine is shared: the load average
is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from rompicapo.cover import sudoku
from rompicapo.cover.solve import _warm as warm_dlx

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "sudoku"

# puzzles/s quoted in issue 5: (tdoku, DLX-style C solvers, target)
SETS = [
    ("puzzles2_17_clue.txt", "17-clue", 182_174, 25_000, 50_000),
    ("puzzles5_forum_hardest_1905_11+.txt", "1905 11+", 11_773, 1_400, None),
    ("puzzles6_forum_hardest_1106.txt", "hardest 1106", 7_546, 700, 2_000),
    ("puzzles7_serg_benchmark.txt", "serg (2+ sol.)", None, None, None),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 48,766-puzzle hard set")
    ap.add_argument("--generate", type=int, default=50, help="puzzles to generate (timing)")
    ap.add_argument("--runs", type=int, default=3, help="runs per set (median CPU time)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    sudoku.solve_batch(np.zeros((1, 81), np.uint8))  # compile or load the kernel
    head = (
        f"{'set':16} {'puzzles':>8} {'parse s':>8} {'solve s':>8} {'puzzles/s':>10}"
        f" {'guesses/p':>9} {'tdoku':>8} {'tdoku/us':>8} {'DLX C':>7} {'us/DLX C':>8}"
        f" {'target':>7} {'us/target':>9} {'unique':>7}"
    )
    print(head)
    print("-" * len(head))
    for filename, label, tdoku, dlx_c, target in SETS:
        if args.quick and "1905" in filename:
            continue
        t0 = time.perf_counter()
        puzzles = sudoku.read_puzzles(DATA / filename)
        parse = time.perf_counter() - t0
        cpus = []
        for _ in range(args.runs):
            c0 = time.process_time()
            batch = sudoku.solve_batch(puzzles)
            cpus.append(time.process_time() - c0)
        cpu = statistics.median(cpus)
        rate = len(puzzles) / cpu
        unique = int((batch.counts_per_puzzle == 1).sum())
        ok = batch.verify()

        def ratio(x: float | None) -> str:
            return f"{x:.2f}" if x else ""

        print(
            f"{label:16} {len(puzzles):8} {parse:8.3f} {cpu:8.3f} {rate:10,.0f}"
            f" {batch.guesses.mean():9.1f} {tdoku or '':>8} {ratio(tdoku and tdoku / rate):>8}"
            f" {dlx_c or '':>7} {ratio(dlx_c and rate / dlx_c):>8}"
            f" {target or '':>7} {ratio(target and rate / target):>9}"
            f" {unique:7}{'' if ok else ' VERIFY FAILED'}",
            flush=True,
        )
    # the DLX engine on samples: the same uniqueness check through Algorithm X
    warm_dlx()
    print("\nDLX engine (Algorithm X, 324 items / 729 options, givens committed), samples:")
    for filename, label, *_ in SETS[:3]:
        puzzles = sudoku.read_puzzles(DATA / filename)[:300]
        c0 = time.process_time()
        counts = [
            sudoku.solve(sudoku.Sudoku.from_grid(p.reshape(9, 9)), engine="dlx").count
            for p in puzzles
        ]
        cpu = time.process_time() - c0
        print(
            f"  {label:16} {len(puzzles)} puzzles, {len(puzzles) / cpu:8,.0f} puzzles/s"
            f" (per-puzzle Python calls), all unique: {set(counts) == {1}}",
            flush=True,
        )
    times = []
    minimal = 0
    clues = []
    for seed in range(args.generate):
        g = sudoku.generate(seed=seed)
        times.append(g.solve_seconds)
        minimal += g.minimal
        clues.append(g.puzzle.clue_count)
    print(
        f"\ngenerator, 9x9 unique+minimal: median {1000 * statistics.median(times):.1f} ms, "
        f"max {1000 * max(times):.1f} ms over {args.generate} seeds (target < 50 ms median); "
        f"{minimal}/{args.generate} minimal; clues {min(clues)}..{max(clues)}, "
        f"median {statistics.median(clues)}"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
