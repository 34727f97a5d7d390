"""Time to a perfect board: Brendan Owen's sets up to 8x8 and Tomy's four clue puzzles.

Search for perfect boards (no quota, no breaks) with the exact kernel: forward checking and
fail-first candidate order (``--value-order table``: Blackwood's kernel in the tables' order).
The default fill order is the portfolio (orders in turn with doubling node caps); ``--order
rows`` runs one depth-first search of the row scan, the best single order on Brendan's sets.
Identical pieces are one type, so the clue puzzles' repeated pieces are not tried twice in one
place. Each set runs for at most ``--limit`` seconds per seed; the table gives the median over
seeds of the time to the first perfect board (wall and CPU: the machine is shared), with nodes
and placements, and how many seeds solved it. Every board is checked by the independent
verifier.

    .venv/bin/python benchmarks/edges_small.py                 # 3 seeds, 120 s limit
    .venv/bin/python benchmarks/edges_small.py --only brendan_08x08 --order rows \
        --limit 5400 --jobs 2 --seeds 1                         # the 8x8 on both cores

Wall-clock runs on a shared machine: the `uptime` load is printed with them.

Measured here (2026-11-29, load 6-8): every set up to 6x12 solves in under 0.05 CPU s (median of
5 seeds; Brendan 6x6 225,198 nodes, 0.007 CPU s). Brendan's 8x8 with ``--order rows``: seed 3
solved it after 101,852,496,620 nodes, 2,634 s wall / 2,171 s CPU (board and command in
``runs/edges-brendan-08x08-board.txt``); seeds 0, 1 and 2 were stopped unsolved after 1.3e10,
1.3e10 and 1.07e11 nodes, so 1 of 4 seeds, no median yet.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from rompicapo.edges.blackwood import BLACKWOOD_NODE_CAP, Settings, search, solve
from rompicapo.edges.puzzle import load_pieces

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "eternity2" / "benchmarks"
SETS = [
    "brendan_03x03",
    "brendan_04x04",
    "brendan_05x05",
    "brendan_06x06",
    "brendan_08x08",
    "e2_clue1_6x6",
    "e2_clue3_6x6",
    "e2_clue2_6x12",
    "e2_clue4_6x12",
]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per seed")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1, help="processes per seed (solve())")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--order", default="auto", help="fill order (auto: the portfolio)")
    ap.add_argument("--value-order", default="fail-first", choices=("fail-first", "table"))
    ap.add_argument("--restart-nodes", "--node-cap", type=int, default=BLACKWOOD_NODE_CAP)
    args = ap.parse_args()
    if not DATA.is_dir():  # outside the repository: say so in one line, no traceback
        print(
            "needs ../shared/data/eternity2/benchmarks (the project's shared data folder, "
            "beside the clone); not found",
            file=sys.stderr,
        )
        sys.exit(2)
    settings = Settings(
        order=args.order, value_order=args.value_order, restart_nodes=args.restart_nodes
    )
    print(
        f"## Time to a perfect board, {args.seeds} seeds, limit {args.limit:g} s, "
        f"{args.jobs} job(s), order {args.order}, {args.value_order} (load {load()})\n"
    )
    print(
        "| set | size | colours | solved | median s | median CPU s | median nodes "
        "| median placements | best |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.only or SETS:
        puzzle = load_pieces(DATA / f"{name}_pieces.txt", allow_duplicates=True)
        secs, cpus, nodes, places, best, solved = [], [], [], [], 0, 0
        for seed in range(args.seeds):
            if args.jobs == 1:
                r = search(puzzle, settings=settings, time_limit=args.limit, seed=seed)
            else:
                r = solve(
                    puzzle,
                    settings=settings,
                    time_limit=args.limit,
                    jobs=args.jobs,
                    seed=100 * seed,
                )
            assert r.verify()
            best = max(best, r.score)
            if r.solved:
                solved += 1
                secs.append(r.solve_seconds)
                cpus.append(r.cpu_seconds)
                nodes.append(r.counts["nodes"])
                places.append(r.counts["placements"])
        med = (
            f"{statistics.median(secs):.3f} | {statistics.median(cpus):.3f} | "
            f"{statistics.median(nodes):,.0f} | {statistics.median(places):,.0f}"
            if secs
            else f"> {args.limit:g} | - | - | -"
        )
        print(
            f"| {name} | {puzzle.rows}x{puzzle.cols} | {puzzle.max_colour} | "
            f"{solved}/{args.seeds} | {med} | {best}/{puzzle.n_joints} |",
            flush=True,
        )
    print(f"\nload after: {load()}")


if __name__ == "__main__":
    main()
