"""Placements per second of Blackwood's search on Eternity II (issue 7), one thread and 2 vs 1.

Counts placements as Bucas does (forward placements; a node is a placement or a retreat).
Blackwood's settings: his fill order, quota, breaks and heuristic colours, centre clue only.

    .venv/bin/python benchmarks/edges_speed.py                  # 3 seeds x 30 s, then 2 vs 1
    .venv/bin/python benchmarks/edges_speed.py --seconds 60 --seeds 5

Rates on a shared machine: per wall-clock second (what a user sees; it drops when other
processes hold the cores, see the `uptime` load printed with them) and per CPU second of the
searching thread (time.thread_time(): the speed of the code itself while it runs). References:
shared/references/blackwood-algorithm.md §10 and the issue (one thread, 60 s).
"""

from __future__ import annotations

import argparse
import os
import statistics

from rompicapo.edges.blackwood import search, solve
from rompicapo.edges.puzzle import eternity2, eternity2_clues

# (program, M placements/s, note): shared/references/blackwood-algorithm.md §10 and issue 7
REFERENCES = [
    ("libblackwood JB470 (Bucas, C, gcc)", 18.0, "median of 16.5-29.6 measured here"),
    ("Blackwood C# on Mono", 6.5, "13.1 M iterations/s measured here"),
    ("Blackwood C# on .NET (article)", 9.45, "18.9 M nodes/s ~ 2 nodes per placement"),
    ("fabri1983 eternity2_solver (Java)", 9.5, "7-12 M pieces/s per thread, reported"),
]
TARGET = 20.0  # M placements/s per thread, issue 7


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def one_thread(seconds: float, seeds: int) -> float:
    puzzle, clues = eternity2(), eternity2_clues("centre")
    search(puzzle, clues, seconds=None, max_nodes=1000)  # compile outside the timings
    print(f"## One thread, Blackwood's settings, centre clue, {seconds:g} s per seed\n")
    print(f"load before: {load()}\n")
    print("| seed | placements | seconds | CPU seconds | M/s wall | M/s CPU | deepest | best |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    rates, cpu_rates = [], []
    for seed in range(seeds):
        r = search(puzzle, clues, seconds=seconds, seed=seed)
        rate = r.placements_per_second / 1e6
        rates.append(rate)
        cpu_rates.append(r.placements_per_cpu_second / 1e6)
        print(
            f"| {seed} | {r.counts['placements']:,} | {r.solve_seconds:.1f} | "
            f"{r.cpu_seconds:.1f} | {rate:.2f} | {cpu_rates[-1]:.2f} | "
            f"{r.deepest} | {r.search_score} |"
        )
    med = statistics.median(rates)
    med_cpu = statistics.median(cpu_rates)
    print(f"\nload after: {load()}\n")
    print("| program | M placements/s | ratio ours/theirs | note |")
    print("|---|---:|---:|---|")
    print(f"| rompicapo (numba), median wall | {med:.2f} | 1.00 | max {max(rates):.2f} |")
    print(f"| rompicapo (numba), median per CPU second | {med_cpu:.2f} | | |")
    for name, ref, note in REFERENCES:
        print(f"| {name} | {ref:.2f} | {med / ref:.2f} | {note} |")
    print(
        f"| issue 7 target | {TARGET:.2f} | {med / TARGET:.2f} | (CPU: {med_cpu / TARGET:.2f}) |\n"
    )
    return med


def two_vs_one(seconds: float) -> None:
    puzzle, clues = eternity2(), eternity2_clues("centre")
    print(f"## Processes: 2 vs 1, {seconds:g} s each (load {load()})\n")
    print("| jobs | placements | search seconds | M placements/s (sum) | ratio to 1 job | CPU s |")
    print("|---:|---:|---:|---:|---:|---:|")
    base = None
    for jobs in (1, 2):
        r = solve(puzzle, clues, seconds=seconds, jobs=jobs, seed=10)
        rate = r.counts["placements"] / r.solve_seconds / 1e6
        base = base or rate
        print(
            f"| {jobs} | {r.counts['placements']:,} | {r.solve_seconds:.1f} | {rate:.2f} | "
            f"{rate / base:.2f} | {r.cpu_seconds:.1f} |"
        )
    print(f"\nload after: {load()} (2 cores shared with other users: 2.00 needs idle cores)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--skip-parallel", action="store_true")
    args = ap.parse_args()
    one_thread(args.seconds, args.seeds)
    if not args.skip_parallel:
        two_vs_one(args.seconds)


if __name__ == "__main__":
    main()
