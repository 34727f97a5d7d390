"""Scores of Blackwood's search on Eternity II in a fixed time, one thread.

1. Centre clue only, Blackwood's settings, 60 s x 5 seeds: median and best score.
2. All five clues pinned, 120 s: the clue-aware settings (see below) and, for comparison,
   Blackwood's unchanged settings.

The score is Blackwood's and Bucas's figure: matched joints among the pieces placed on the best
partial board (``search``); ``completed`` adds the leftover pieces greedily in the holes.

    .venv/bin/python benchmarks/edges_scores.py                    # 5 x 60 s + 2 x 120 s
    .venv/bin/python benchmarks/edges_scores.py --seconds 20 --seeds 3 --clue-seconds 30
    .venv/bin/python benchmarks/edges_scores.py --only centre \
        --json benchmarks/results/edges_scores.json     # the rows of part 1, for the docs

Wall-clock runs on a shared machine: the `uptime` load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from machine import commit, cpu_model

from rompicapo.edges.blackwood import Settings, search
from rompicapo.edges.puzzle import eternity2, eternity2_clues

# Blackwood's published runs (one thread, 60 s, centre clue)
REFERENCES_CENTRE = [
    ("libblackwood JB470 (Bucas, C)", "458 best (250 placed, 10 breaks)", "247-250"),
    ("Blackwood C# on Mono", "452", "247"),
    ("Blackwood C# on .NET (article)", "454", "248"),
]
REFERENCES_ALL = [
    ("Blackwood's order, all five clues, 120 s (article)", "stuck near 45 pieces"),
    ("Verhaard's method reimplemented (article)", "438"),
    ("McGavin's method (article)", "204"),
    ("community best board with all five hints", "460"),
]
TARGET_MEDIAN, TARGET_BEST, TARGET_ALL = 454, 458, 438


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


ROWS: list[dict] = []  # part 1, written with --json


def centre(seconds: float, seeds: int) -> None:
    puzzle, clues = eternity2(), eternity2_clues("centre")
    # compile (the kernels and the plan's machine) outside the timings
    search(puzzle, clues, settings=Settings(kernel="machine"), time_limit=None, node_limit=1000)
    print(f"## Centre clue only, Blackwood's settings, {seconds:g} s x {seeds} seeds, 1 thread\n")
    print(f"load before: {load()}\n")
    print(
        "| seed | search score | pieces | deepest | completed | wall s | CPU s | M/s wall | "
        "M/s CPU | verified |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    scores = []
    for seed in range(seeds):
        r = search(puzzle, clues, time_limit=seconds, seed=seed)
        scores.append(r.search_score)
        ROWS.append({
            "seed": seed, "score": r.search_score, "pieces": r.search_depth,
            "completed": r.score, "wall_s": round(r.solve_seconds, 1),
            "cpu_s": round(r.cpu_seconds, 1), "verified": r.verify(),
            "job": f"Eternity II, centre clue, Blackwood's settings, {seconds:g} s, 1 thread",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit(),
            "cpu": cpu_model(), "load": load(),
        })  # fmt: skip
        print(
            f"| {seed} | {r.search_score} | {r.search_depth} | {r.deepest} | {r.score} | "
            f"{r.solve_seconds:.1f} | {r.cpu_seconds:.1f} | "
            f"{r.placements_per_second / 1e6:.2f} | {r.placements_per_cpu_second / 1e6:.2f} | "
            f"{r.verify()} |"
        )
    med = statistics.median(scores)
    print(f"\nload after: {load()}\n")
    print("| program | score | deepest |")
    print("|---|---|---|")
    print(f"| rompicapo: median / best | {med:g} / {max(scores)} | |")
    for name, s, d in REFERENCES_CENTRE:
        print(f"| {name} | {s} | {d} |")
    print(f"| aimed at | median >= {TARGET_MEDIAN}, best >= {TARGET_BEST} | |\n")


# With all five clues Blackwood's quota (tuned for a board without hints) starves the search
# near the hint pieces; the clue-aware defaults take 0.9 of it and allow breaks from position
# 150 on (blackwood.CLUE_QUOTA_SCALE, CLUE_BREAK_INDEXES).
CLUE_AWARE = Settings()  # "auto" resolves to the clue-aware settings with five clues
BLACKWOOD = Settings(quota="blackwood", breaks="blackwood", quota_scale=1.0)


def all_clues(seconds: float, seeds: int) -> None:
    puzzle, clues = eternity2(), eternity2_clues("all")
    print(f"## All five clues pinned, {seconds:g} s, 1 thread (load {load()})\n")
    print("| settings | seed | search score | pieces | deepest | completed | M placements/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    best = 0
    for label, settings in (("clue-aware", CLUE_AWARE), ("Blackwood's", BLACKWOOD)):
        for seed in range(seeds if settings is CLUE_AWARE else 1):
            r = search(puzzle, clues, time_limit=seconds, seed=seed, settings=settings)
            assert r.verify()
            if settings is CLUE_AWARE:
                best = max(best, r.search_score)
            print(
                f"| {label} | {seed} | {r.search_score} | {r.search_depth} | {r.deepest} | "
                f"{r.score} | {r.placements_per_second / 1e6:.2f} |"
            )
    print(f"\nload after: {load()}\n")
    print("| reference | score |")
    print("|---|---|")
    print(f"| rompicapo clue-aware, best | {best} |")
    for name, s in REFERENCES_ALL:
        print(f"| {name} | {s} |")
    print(f"| aimed at | >= {TARGET_ALL} |\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--clue-seconds", type=float, default=120.0)
    ap.add_argument("--clue-seeds", type=int, default=1)
    ap.add_argument("--only", choices=["centre", "all"], default=None)
    ap.add_argument("--json", help="write the rows of part 1 to this file")
    args = ap.parse_args()
    if args.only != "all":
        centre(args.seconds, args.seeds)
    if args.only != "centre":
        all_clues(args.clue_seconds, args.clue_seeds)
    if args.json and ROWS:
        Path(args.json).write_text(json.dumps(ROWS, indent=1) + "\n")
        print(f"rows written to {args.json}")


if __name__ == "__main__":
    main()
