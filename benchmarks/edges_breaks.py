"""Break schedules for a score on Eternity II: searches of the same length and seeds, each
schedule in turn.

    python benchmarks/edges_breaks.py                     # 12 searches of 30 s per schedule
    python benchmarks/edges_breaks.py --searches 4 --seconds 10

Each search is Blackwood's (his quota and colours, the centre clue, the compiled machine) with
one break schedule, and either stops at the first complete board (Blackwood's rule) or goes on
for complete boards with fewer breaks (``Settings(stop_at_complete=False)``). The schedules run
in turn, seed after seed, two searches at a time with ``--jobs 2``, so every schedule meets the
same load. A row per schedule: the scores of its searches (each board recounted by the
independent verifier), their minimum, median, mean and maximum, with the date, commit, CPU and
load. The rows go to ``benchmarks/results/edges_breaks.json``; the how-it-works page shows
them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import commit, cpu_model, load_average

from rompicapo.edges.blackwood import BLACKWOOD_BREAK_INDEXES, Settings, search
from rompicapo.edges.puzzle import eternity2, eternity2_clues
from rompicapo.edges.verify import board_problems, count_matched_joints

RESULTS = Path(__file__).resolve().parent / "results" / "edges_breaks.json"

# (label, break positions past Blackwood's ten, stop at a complete board)
SCHEDULES = (
    ("Blackwood's ten", (), True),
    ("ten + six (243, 246, 249, 251, 253, 255)", (243, 246, 249, 251, 253, 255), False),
    ("ten + eight (241, 243, ..., 255), stop", tuple(range(241, 256, 2)), True),
    ("ten + eight (241, 243, ..., 255): score", tuple(range(241, 256, 2)), False),
    ("ten + sixteen (240, 241, ..., 255)", tuple(range(240, 256)), False),
)


def one_search(task: tuple) -> int:
    """The verified score of one search (a worker process)."""
    extra, stop, seconds, seed = task
    puzzle = eternity2()
    breaks = tuple(sorted(BLACKWOOD_BREAK_INDEXES + extra)) if extra else "blackwood"
    settings = Settings(breaks=breaks, stop_at_complete=stop, kernel="machine")
    result = search(puzzle, eternity2_clues("centre"), settings=settings, time_limit=seconds,
                    seed=seed)  # fmt: skip
    placements = result.board.placements()
    pieces = puzzle.pieces.tolist()
    if board_problems(16, 16, pieces, placements, complete=True):
        raise SystemExit(f"seed {seed}: the board does not verify")
    counted = count_matched_joints(16, 16, pieces, placements)
    if counted != result.score:
        raise SystemExit(f"seed {seed}: score {result.score} claimed, {counted} counted")
    return counted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--searches", type=int, default=12, help="searches per schedule")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds per search")
    ap.add_argument("--first-seed", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, default=RESULTS)
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.searches)
    # schedule after schedule for each pair of seeds: all of them meet the same load
    tasks = []
    for start in range(0, len(seeds), args.jobs):
        for _, extra, stop in SCHEDULES:
            tasks += [(extra, stop, args.seconds, s) for s in seeds[start : start + args.jobs]]
    load_start = load_average()[0]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        for _, extra, stop in SCHEDULES:
            pool.submit(one_search, (extra, stop, 0.5, 0)).result()  # each machine compiled
        scores = list(pool.map(one_search, tasks))
    load_end = load_average()[0]
    rows = []
    for label, extra, stop in SCHEDULES:
        got = [
            sc for (e, st, _, _), sc in zip(tasks, scores, strict=True) if (e, st) == (extra, stop)
        ]
        rows.append({
            "breaks": label,
            "after_complete": "stop" if stop else "go on",
            "searches": len(got),
            "seconds": args.seconds,
            "min": min(got), "median": statistics.median(got),
            "mean": round(statistics.fmean(got), 2), "max": max(got),
            "scores": got, "seeds": [seeds[0], seeds[-1]],
            "date": time.strftime("%Y-%m-%d"), "commit": commit(), "cpu": cpu_model(),
            "load_start": load_start, "load_end": load_end,
        })  # fmt: skip
        print(f"{label:48} {rows[-1]['after_complete']:6} {min(got)}-{max(got)} "
              f"median {rows[-1]['median']} mean {rows[-1]['mean']}", flush=True)  # fmt: skip
    print(f"{time.monotonic() - started:.0f} s, load {load_start:.1f}-{load_end:.1f}, "
          f"{cpu_model()}")  # fmt: skip
    args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
