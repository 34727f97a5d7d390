"""The kernels' speed in two source trees, alternated: did a change to the compiled layer slow a
family down?

usage: python benchmarks/kernel_speed.py --base DIR [--rounds 5] [--family NAME ...]

``DIR`` is another checkout of rompicapo (say ``git worktree add /tmp/base v0.9``). Each round
runs every family's workload once in each tree, the two in turn (base, this checkout; then this
checkout, base on the next round), each in a fresh process with the same interpreter and the
tree on ``PYTHONPATH``. A process first calls its kernels on a small input (compiling them into
that tree's own numba cache on the first round, loading them after), then times the workload
in CPU seconds of the process (``time.process_time``), so start-up and compilation are left out.
It prints each family's median for both trees, their ratio (base / this: above 1 is faster
here) and the machine's load and CPU model, and appends the rows to
``benchmarks/results/kernel_speed.json``.

The workloads, one per family, each a second or a few of CPU: Sudoku (the 1465 hardest of
magictour's list, solved 60 times), exact cover (all 365,596 solutions of 14 queens), Connect
Four (the first 200 of Pons' L1_R1 test positions, one solver), Eternity II (Blackwood's search
for 150 million nodes on one job) and the paths count (every 5x7 path of the caselle moves).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import ROOT, commit, cpu_model, load_average

DATA = ROOT / "tests" / "data"

# family -> (warm-up code, timed code); both run with the tree's rompicapo importable
WORKLOADS = {
    "sudoku": (
        "from rompicapo.cover.sudoku_solve import solve_batch\n"
        "from rompicapo.cover.sudoku_model import read_puzzles\n"
        f"puzzles = read_puzzles({str(DATA / 'sudoku' / 'puzzles3_magictour_top1465.txt')!r})\n"
        "solve_batch(puzzles[:2])",
        "for _ in range(60): solve_batch(puzzles)",
    ),
    "cover": (
        "from rompicapo import cover\ncover.queens(6, jobs=1)",
        "assert cover.queens(14, jobs=1).count == 365596",
    ),
    "connect4": (
        "from rompicapo.games import Connect4Solver, connect4_test_set\n"
        f"tests = connect4_test_set({str(DATA / 'connect4' / 'Test_L1_R1')!r})[:200]\n"
        "solver = Connect4Solver()\nsolver.solve('4455443')",
        "for moves, _ in tests: solver.solve(moves)",
    ),
    "edges": (
        "from rompicapo import edges\ne2 = edges.eternity2()\n"
        "edges.search(e2, node_limit=1000, time_limit=None)",
        "edges.search(e2, node_limit=150_000_000, time_limit=None)",
    ),
    "paths": (
        "from rompicapo import paths\npaths.count_paths(3, 4, jobs=1)",
        "assert paths.count_paths(5, 7, jobs=1, samples=False).count > 0",
    ),
}

PROBE = """
import time
{warm}
t0 = time.process_time()
{timed}
print(time.process_time() - t0)
"""


def run_once(tree: Path, family: str) -> float:
    warm, timed = WORKLOADS[family]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROMPICAPO_")}
    env["PYTHONPATH"] = str(tree)
    p = subprocess.run([sys.executable, "-c", PROBE.format(warm=warm, timed=timed)],
                       cwd=tree, env=env, capture_output=True, text=True, check=False)  # fmt: skip
    if p.returncode != 0:
        raise SystemExit(f"{family} in {tree} failed:\n{p.stderr[-2000:]}")
    return float(p.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--family", nargs="*", choices=sorted(WORKLOADS), default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/kernel_speed.json")
    args = parser.parse_args(argv)
    families = args.family or list(WORKLOADS)
    trees = {"base": args.base.resolve(), "this": ROOT}
    times: dict[str, dict[str, list[float]]] = {f: {"base": [], "this": []} for f in families}
    loads = [load_average()[0]]
    for r in range(args.rounds):
        order = ("base", "this") if r % 2 == 0 else ("this", "base")
        for family in families:
            for name in order:
                times[family][name].append(run_once(trees[name], family))
        loads.append(load_average()[0])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    base_commit = subprocess.run(["git", "-C", str(trees["base"]), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip()  # fmt: skip
    rows = []
    print(f"CPU {cpu_model()}; load {min(loads):.1f}-{max(loads):.1f}; "
          f"base {base_commit}, this {commit()}; CPU s, median of {args.rounds}")  # fmt: skip
    print(f"{'family':10} {'base':>8} {'this':>8} {'base/this':>10}")
    for family in families:
        b, t = (statistics.median(times[family][k]) for k in ("base", "this"))
        ratios = [x / y for x, y in zip(times[family]["base"], times[family]["this"], strict=True)]
        ratio = statistics.median(ratios)
        print(f"{family:10} {b:8.3f} {t:8.3f} {ratio:10.3f}")
        rows.append({"family": family, "base_s": times[family]["base"],
                     "this_s": times[family]["this"], "ratio_median": ratio})  # fmt: skip
    record = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "cpu": cpu_model(), "load": [min(loads),
        max(loads)], "base": base_commit, "this": commit(), "rounds": args.rounds, "rows": rows,
    }  # fmt: skip
    old = json.loads(args.out.read_text()) if args.out.is_file() else []
    args.out.write_text(json.dumps([*old, record], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
