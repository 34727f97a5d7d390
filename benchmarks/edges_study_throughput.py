"""Study throughput: placements/s summed over N workers against N x one worker's.

Runs the same study (Eternity II, Blackwood's setting, ``--jobs-per-run`` node-budgeted jobs
with different seeds) once on one worker and once on N workers (local processes, or a Dask
cluster with ``--scheduler``), each into a fresh SQLite file, and prints:

- the study rate: all placements / the study's wall time (what a user of ``rompicapo edges
  study`` gets, with process start-up, table building and result writing included);
- the summed worker rate: for each worker (host, pid), its placements / its seconds of search,
  summed over the workers ("placements/s summed over workers");
- the CPU rate per worker: placements / CPU seconds of the searching thread. On a shared
  machine the wall-clock rates also count the time other processes held the cores (see the
  load printed); the CPU rate shows whether the workers themselves slow each other down.

    .venv/bin/python benchmarks/edges_study_throughput.py               # 1 vs 2 processes
    .venv/bin/python benchmarks/edges_study_throughput.py --workers 2 --nodes 400000000

Target: summed rate with N workers within 10 % of N x the one-worker rate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

from rompicapo.edges.puzzle import eternity2
from rompicapo.edges.study import Budget, Design, run_study

TARGET = 0.9  # summed rate >= 90 % of N x one worker's


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def one_study(workers: int, n_jobs: int, nodes: int, scheduler: str | None) -> dict:
    design = Design(colour_sets="none", curves=0, break_variants=0, baseline_seeds=n_jobs)
    per_worker: dict = defaultdict(lambda: [0, 0.0, 0.0])
    with tempfile.TemporaryDirectory() as tmp:

        def on_result(job: dict, out: dict) -> None:
            w = per_worker[(out["host"], out["pid"])]
            w[0] += out["placements"]
            w[1] += out["seconds"]
            w[2] += out["cpu_seconds"]

        load_before = load()
        run = run_study(
            Path(tmp) / "bench.sqlite",
            eternity2(),
            design,
            Budget(node_limit=nodes),
            jobs=workers,
            scheduler=scheduler,
            on_result=on_result,
        )
    return {
        "workers": len(per_worker),
        "study_rate": run.placements / run.seconds,
        "summed_rate": sum(p / s for p, s, _ in per_worker.values()),
        "cpu_rates": [p / c for p, _, c in per_worker.values()],
        "seconds": run.seconds,
        "load": f"{load_before} -> {load()}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="N (all cores)")
    ap.add_argument("--nodes", type=int, default=300_000_000, help="nodes per job (~3 s)")
    ap.add_argument("--jobs-per-run", type=int, default=None, help="jobs (default 2 per worker)")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler for the N-worker run")
    args = ap.parse_args()
    n_jobs = args.jobs_per_run or 2 * args.workers
    print(f"# Study throughput: {n_jobs} jobs of {args.nodes:,} nodes, Eternity II\n")
    # warm the numba cache so neither run pays compilation
    one_study(1, 1, 1000, None)
    single = one_study(1, n_jobs, args.nodes, None)
    multi = one_study(args.workers, n_jobs, args.nodes, args.scheduler)
    print("| workers | study M/s (wall) | summed worker M/s | M/s per CPU second, median "
          "per worker | seconds | load (1, 5, 15 min) |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---|")
    for r in (single, multi):
        print(
            f"| {r['workers']} | {r['study_rate'] / 1e6:.1f} | {r['summed_rate'] / 1e6:.1f} | "
            f"{statistics.median(r['cpu_rates']) / 1e6:.1f} | {r['seconds']:.1f} | {r['load']} |"
        )
    n = multi["workers"]
    ratio = multi["summed_rate"] / (n * single["summed_rate"])
    cpu_ratio = statistics.median(multi["cpu_rates"]) / statistics.median(single["cpu_rates"])
    study_ratio = multi["study_rate"] / (n * single["study_rate"])
    print()
    print("| measure | N workers / (N x one worker) | target |")
    print("|---|---:|---:|")
    print(f"| summed worker rate (wall) | {ratio:.2f} | >= {TARGET} |")
    print(f"| study rate (wall, with start-up) | {study_ratio:.2f} | >= {TARGET} |")
    print(f"| per-worker CPU rate | {cpu_ratio:.2f} | >= {TARGET} |")


if __name__ == "__main__":
    main()
