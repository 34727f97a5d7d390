"""Exact path counts on every R x C board with R <= C <= 7, and the kernel's speed.

Prints four tables:

1. the headline figures (5x7 from the centre and a corner, all 35 starts of 5x7, 6x6 all
   starts) next to their targets and the C program of the 2000s (13,272 from the centre in 18 s
   on an Athlon XP 2600), medians of a few runs;
2. every board R x C, R <= C <= 7: paths per start (total, min, max), closed tours per start
   (the same from every start), nodes, seconds and nodes per second;
3. nodes and time of each pruning rule of the kernel on a few starts;
4. an estimate for 7x7 (not counted here: hours of CPU): random prefix jobs of one start are
   counted and the mean is scaled to all jobs of every class of starts.

    .venv/bin/python benchmarks/small_boards.py            # everything but 7x7 (several minutes)
    .venv/bin/python benchmarks/small_boards.py --quick    # boards up to 36 cells
    .venv/bin/python benchmarks/small_boards.py --estimate-seconds 60
    .venv/bin/python benchmarks/small_boards.py --boards-only \
        --json benchmarks/results/paths_small_boards.json   # table 2 only, as the docs read it

Timings are wall clock on a shared machine: the `uptime` load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

import numpy as np
from machine import commit, cpu_model

from rompicapo.paths import _count_kernel as K
from rompicapo.paths import count as C
from rompicapo.paths.count_jobs import prefix_jobs
from rompicapo.paths.exhaustive import kernel_run
from rompicapo.paths.moves import parse_moves

BOARD_ROWS: list[dict] = []  # table 2, written with --json

# The C program that enumerated the "Solitario del 35": 13,272 paths from the centre
# of 5x7 in 18 s on an Athlon XP 2600; 52,730 from a corner.
C_PROGRAM_CENTRE_SECONDS = 18.0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def median_run(fn, repeats: int):
    results, seconds = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        results.append(fn())
        seconds.append(time.perf_counter() - t0)
    return results[-1], statistics.median(seconds)


def figures(repeats: int, jobs: int | None) -> None:
    print(f"## Headline figures (medians of {repeats} runs; load {load()})\n")
    print("| figure | count | nodes | seconds | target | C program | vs target | vs C |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    C.count_paths(3, 3, (0, 0))  # compile outside the timings
    rows = [
        ("5x7 from the centre (2,3)", lambda: C.count_paths(5, 7, (2, 3)), 0.1, 18.0),
        ("5x7 from a corner (0,0)", lambda: C.count_paths(5, 7, (0, 0)), None, None),
        ("5x7, all 35 starts", lambda: C.count_paths(5, 7), 2.0, None),
        ("6x6, all 36 starts", lambda: C.count_paths(6, 6, jobs=jobs), 10.0, None),
    ]
    for name, fn, target, c_seconds in rows:
        result, seconds = median_run(fn, repeats)
        vs_target = f"{target / seconds:.1f}x under" if target else ""
        vs_c = f"{c_seconds / seconds:,.0f}x faster" if c_seconds else ""
        print(
            f"| {name} | {result.count:,} | {result.nodes:,} | {seconds:.3f} | "
            f"{target or ''} | {c_seconds or ''} | {vs_target} | {vs_c} |"
        )
    print()


def boards(max_cells: int, jobs: int | None) -> None:
    print(f"## Every board R x C, R <= C <= 7, up to {max_cells} cells (load {load()})\n")
    print(
        "| board | start classes | paths, total | min | max | closed per start | nodes | "
        "seconds | nodes/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rows in range(1, 8):
        for cols in range(rows, 8):
            if rows * cols > max_cells:
                continue
            t0 = time.perf_counter()
            open_ = C.count_paths(rows, cols, jobs=jobs)
            # every start has the same number of closed tours (each tour passes every cell),
            # so one start is enough; (0, 0) lies on every tour.
            closed = C.count_paths(rows, cols, (0, 0), closed=True, jobs=jobs)
            seconds = time.perf_counter() - t0
            nodes = open_.nodes + closed.nodes
            BOARD_ROWS.append({
                "board": f"{rows}x{cols}", "total": open_.total, "min": open_.min,
                "max": open_.max, "closed_per_start": closed.count, "nodes": nodes,
                "seconds": round(seconds, 2), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                time.gmtime()), "commit": commit(), "cpu": cpu_model(), "load": load(),
            })  # fmt: skip
            print(
                f"| {rows}x{cols} | {len(C.start_classes(rows, cols))} | {open_.total:,} | "
                f"{open_.min:,} | {open_.max:,} | {closed.count:,} | {nodes:,} | "
                f"{seconds:.2f} | {nodes / seconds / 1e6:.1f} M |"
            )
    print()


def rules(repeats: int) -> None:
    print(f"## Pruning rules (CPU seconds, medians of {repeats}; load {load()})\n")
    print("| start | rules | nodes | CPU s | nodes/s |")
    print("|---|---|---:|---:|---:|")
    moves = parse_moves("caselle")
    sets = {
        "none (plain DFS)": 0,
        "links": K.LINKS,
        "links + lookahead (default)": K.LINKS | K.LOOKAHEAD,
        "links + lookahead + connected": K.LINKS | K.LOOKAHEAD | K.CONNECTED,
    }
    for value in sets.values():
        kernel_run(3, 3, moves, False, [0], rules=value)  # compile outside the timings
    for rows, cols, start in [(5, 7, (2, 3)), (5, 7, (0, 0)), (6, 6, (0, 0))]:
        for name, value in sets.items():
            if value == 0 and rows * cols > 35:
                continue
            cpu = []
            for _ in range(repeats):
                t0 = time.process_time()
                run = kernel_run(
                    rows, cols, moves, False, [start[0] * cols + start[1]], rules=value
                )
                cpu.append(time.process_time() - t0)
            s = statistics.median(cpu)
            print(
                f"| {rows}x{cols} {start} | {name} | {run.nodes:,} | {s:.3f} | "
                f"{run.nodes / s / 1e6:.1f} M |"
            )
    print()


def estimate_7x7(seconds_budget: float, depth: int, seed: int) -> None:
    print(f"## 7x7 estimate (random prefix jobs, {seconds_budget:.0f} s budget; load {load()})\n")
    moves = parse_moves("caselle")
    classes = C.start_classes(7, 7)
    print("| start | jobs at depth | sampled | mean nodes/job | est. nodes | ± (1 s.e.) | "
          "est. paths | CPU nodes/s | est. CPU hours |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = random.Random(seed)
    class_nodes = 0.0
    all_paths = 0.0
    total_hours = 0.0
    per_start = seconds_budget / len(classes)
    for rep in classes:
        prefixes, _ = prefix_jobs(7, 7, moves, False, [rep], depth)
        rng.shuffle(prefixes)
        nodes, leaves = [], []
        cpu = 0.0
        for p in prefixes:
            t0 = time.process_time()
            run = kernel_run(7, 7, moves, False, list(p))
            cpu += time.process_time() - t0
            nodes.append(run.nodes)
            leaves.append(run.leaves)
            if cpu > per_start and len(nodes) >= 5:
                break
        n = len(prefixes)
        mean = statistics.fmean(nodes)
        se = n * statistics.stdev(nodes) / np.sqrt(len(nodes)) if len(nodes) > 1 else float("nan")
        est = n * mean
        rate = sum(nodes) / cpu if cpu > 0 else float("nan")
        hours = est / rate / 3600
        class_nodes += est
        all_paths += n * statistics.fmean(leaves) * len(classes[rep])
        total_hours += hours
        print(
            f"| {rep} | {n:,} | {len(nodes)} | {mean:,.0f} | {est:.2e} | {se:.1e} | "
            f"{n * statistics.fmean(leaves):.2e} | {rate / 1e6:.1f} M | {hours:.2f} |"
        )
    print(
        f"\nThe {len(classes)} classes of starts: about {class_nodes:.1e} nodes, "
        f"{total_hours:.1f} CPU hours (divide by the cores); about {all_paths:.1e} paths "
        "from all 49 starts."
    )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="boards up to 36 cells only")
    parser.add_argument("--max-cells", type=int, default=42, help="largest board counted")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--estimate-seconds", type=float, default=0.0,
                        help="CPU seconds for the 7x7 estimate (0 = skip)")  # fmt: skip
    parser.add_argument("--estimate-depth", type=int, default=8)
    parser.add_argument("--estimate-only", action="store_true", help="only the 7x7 estimate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boards-only", action="store_true", help="only table 2")
    parser.add_argument("--json", help="write the rows of table 2 to this file")
    args = parser.parse_args()
    print(f"# small_boards ({Path(__file__).name}), {time.strftime('%Y-%m-%d %H:%M')}\n")
    if args.boards_only:
        boards(36 if args.quick else args.max_cells, args.jobs)
    elif not args.estimate_only:
        figures(args.repeats, args.jobs)
        boards(36 if args.quick else args.max_cells, args.jobs)
        rules(min(args.repeats, 3))
    if args.json and BOARD_ROWS:
        Path(args.json).write_text(json.dumps(BOARD_ROWS, indent=1) + "\n")
        print(f"rows written to {args.json}")
    if args.estimate_seconds > 0:
        estimate_7x7(args.estimate_seconds, args.estimate_depth, args.seed)


if __name__ == "__main__":
    main()
