"""Exact cover: our dancing links on every shared .dlx file, next to Knuth's DLX1 and xcover.

Prints, per file: the count (checked against the README), our CPU seconds (median of the runs),
nodes and updates, DLX1's CPU seconds from issue 5 (gcc -O2, "this kind of machine") and the
ratio, and PyPI ``xcover`` (numba, Algorithm C) run side by side in this process after a warm-up
(its first-call compilation excluded), if it is installed (``pip install xcover``).
Then parallel counting of pento-6x10 (all orientations) with 1 and 2 processes (wall clock).

    .venv/bin/python benchmarks/cover_dlx.py [--quick] [--no-xcover] [--no-parallel] [--runs N]
                                             [--engines]

``--engines`` also times our dancing-cells kernel (sparse sets) next to dancing links.

CPU seconds (``time.process_time``) are quoted, as the issue's references are; the machine is
shared, so the load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from rompicapo.cover import Packing, count, read_dlx
from rompicapo.cover.solve import _warm

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "exact-cover"

# (file, README count, DLX1 CPU seconds quoted in issue 5 or None)
CASES = [
    ("queens-8", 92, None),
    ("queens-10", 724, None),
    ("queens-12", 14200, 0.075),
    ("queens-13", 73712, None),
    ("queens-14", 365596, None),
    ("queens-15", 2279184, None),
    ("langford-11", 35584, None),
    ("langford-11-half", 17792, None),
    ("langford-12-half", 108144, 0.39),
    ("pento-3x20", 8, None),
    ("pento-4x15", 1472, None),
    ("pento-6x10-xq", 2339, 2.6),
    ("pento-6x10", 9356, 10.4),
    ("color-example", 1, None),
    ("bounds-example", 1, None),
]
BIG = {"queens-14", "queens-15", "pento-6x10", "pento-4x15"}


def cpu_seconds(func, runs: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(runs):
        t0 = time.process_time()
        result = func()
        times.append(time.process_time() - t0)
    return statistics.median(times), result


def xcover_count(problem) -> int | None:
    try:
        import xcover
    except ImportError:
        return None
    colored = bool(problem.arrays().has_colors)
    options = [[str(i) if c is None else f"{i}:{c}" for i, c in opt] for opt in problem.options]
    primary = [str(i) for i in problem.primary]
    secondary = [str(i) for i in problem.secondary]
    return sum(
        1 for _ in xcover.covers(options, primary=primary, secondary=secondary, colored=colored)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the files that take seconds")
    ap.add_argument("--no-xcover", action="store_true", help="do not run xcover side by side")
    ap.add_argument("--no-parallel", action="store_true", help="skip the parallel run")
    ap.add_argument("--runs", type=int, default=3, help="runs per small file (median)")
    ap.add_argument(
        "--engines", action="store_true", help="also time dancing cells against dancing links"
    )
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"compile/load of our kernels: {_warm():.2f} s")
    have_xcover = False
    if not args.no_xcover:
        t0 = time.process_time()
        have_xcover = xcover_count(read_dlx(DATA / "queens-8.dlx")) == 92
        if have_xcover:
            print(f"xcover warm-up (compilation): {time.process_time() - t0:.1f} s CPU")
    head = (
        f"{'file':18} {'count':>8} {'ok':>3} {'ours s':>8} {'nodes':>11} {'updates':>13}"
        f" {'DLX1 s':>7} {'ours/DLX1':>9} {'xcover s':>9} {'xc/ours':>8}"
    )
    print(head)
    print("-" * len(head))
    cases = [c for c in CASES if not (args.quick and c[0] in BIG)]
    cases.append(("pento-5x12 (built)", 4040, 6.7))
    for name, expected, dlx1 in cases:
        if name.startswith("pento-5x12"):
            if args.quick:
                continue
            problem = Packing.build("pentominoes", "5x12").problem
        else:
            problem = read_dlx(DATA / f"{name}.dlx")
        runs = 1 if name in BIG or name.startswith("pento") else args.runs
        secs, r = cpu_seconds(lambda p=problem: count(p), runs)
        cells_text = ""
        if args.engines and r.algorithm.startswith("X"):
            cs, rc = cpu_seconds(lambda p=problem: count(p, engine="cells"), runs)
            cells_text = (
                f"  cells {cs:.3f} s ({cs / secs:.2f}x links), {rc.counts['updates']:,} upd"
            )
        ratio = f"{secs / dlx1:9.2f}" if dlx1 else " " * 9
        dlx1_text = f"{dlx1:7.3f}" if dlx1 else " " * 7
        xc_text, xc_ratio = " " * 9, " " * 8
        if have_xcover and not (args.quick and name in BIG):
            xs, xn = cpu_seconds(lambda p=problem: xcover_count(p), 1)
            xc_text = f"{xs:9.3f}" + ("" if xn == expected else "!")
            xc_ratio = f"{xs / secs:8.2f}" if secs > 0 else ""
        print(
            f"{name:18} {r.count:8} {'yes' if r.count == expected else 'NO':>3} {secs:8.3f}"
            f" {r.counts['nodes']:11,} {r.counts['updates']:13,} {dlx1_text} {ratio}"
            f" {xc_text} {xc_ratio}{cells_text}",
            flush=True,
        )
    if not args.no_parallel and not args.quick:
        problem = read_dlx(DATA / "pento-6x10.dlx")
        print("\nparallel counting, pento-6x10 (all orientations):")
        t0, c0 = time.perf_counter(), time.process_time()
        one = count(problem)
        wall1, cpu1 = time.perf_counter() - t0, time.process_time() - c0
        print(f"  jobs=1: {one.count} in {wall1:.2f} s wall, {cpu1:.2f} s CPU", flush=True)
        t0 = time.perf_counter()
        two = count(problem, jobs=2)
        wall2 = time.perf_counter() - t0
        busiest = two.counts["worker_cpu_ms_max"] / 1000
        print(
            f"  jobs=2: {two.count} in {wall2:.2f} s wall (speed-up {wall1 / wall2:.2f}x);"
            f" busiest worker {busiest:.2f} s CPU, all workers"
            f" {two.counts['worker_cpu_ms_total'] / 1000:.2f} s CPU, {two.counts['parts']} parts;"
            f" speed-up on two idle cores about {cpu1 / busiest:.2f}x",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
