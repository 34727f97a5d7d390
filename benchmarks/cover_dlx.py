"""Exact cover: our dancing links on every shared .dlx file, next to Knuth's DLX1 and xcover.

Prints, per file: the count (checked against the README), the engine ``auto`` picked, our CPU
seconds (median of the runs), nodes and updates, DLX1's CPU seconds from issue 5 (gcc -O2,
"this kind of machine") and the ratio, and PyPI ``xcover`` (numba, Algorithm C on dancing
cells) run side by side in this process after a warm-up (its first-call compilation excluded;
its input converted to its arrays before the clock starts), if it is installed
(``pip install xcover``); the runs of the two alternate. Then parallel counting of pento-6x10
(all orientations) with 1 and 2 processes: wall clock, and CPU seconds of the workers.

    .venv/bin/python benchmarks/cover_dlx.py [--quick] [--no-xcover] [--no-parallel] [--runs N]
                                             [--engines]

``--engines`` times both of our kernels (dancing cells and dancing links) on the problems
without colours or multiplicities; "ours" is then the one ``engine="auto"`` picks.

CPU seconds (``time.process_time``) are quoted, as the issue's references are; the machine is
shared, so the load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from rompicapo.cover import Packing, count, read_dlx
from rompicapo.cover.solve import _Search, _warm

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


def cpu_seconds(funcs: dict, runs: int) -> dict:
    """Median CPU seconds and last result of each function, the runs interleaved (A B A B ...)
    so a change of load on the shared machine hits every column alike."""
    times: dict = {k: [] for k in funcs}
    results: dict = {}
    for _ in range(runs):
        for k, func in funcs.items():
            t0 = time.process_time()
            results[k] = func()
            times[k].append(time.process_time() - t0)
    return {k: (statistics.median(times[k]), results[k]) for k in funcs}


def xcover_counter(problem):
    """A function counting ``problem``'s solutions with xcover's Algorithm C, its input already
    converted to xcover's arrays (so only its search is timed), or None without xcover."""
    try:
        from xcover.dancing_cells import algorithm_c
        from xcover.solvers import input_as_arrays
    except ImportError:
        return None
    colored = bool(problem.arrays().has_colors)
    options = [[str(i) if c is None else f"{i}:{c}" for i, c in opt] for opt in problem.options]
    primary = [str(i) for i in problem.primary]
    secondary = [str(i) for i in problem.secondary]
    arrays = input_as_arrays(options, primary=primary, secondary=secondary, colored=colored)
    return lambda: sum(1 for _ in algorithm_c(*arrays))


def parallel_table(problem, runs: int) -> None:
    """Count pento-6x10 with 1 worker, then 2 threads and 2 processes: wall seconds, and the
    CPU seconds of the busiest worker (on a shared machine the wall time depends on the
    other users; the busiest worker's CPU time is what the wall time would be on two idle
    cores, less start-up, so both speed-ups are printed). Medians of ``runs``."""
    print("\nparallel counting, pento-6x10 (all orientations), medians of", runs, "runs:")
    print(
        f"  {'workers':22} {'wall s':>7} {'speed-up':>8} {'busiest CPU s':>13}"
        f" {'all CPU s':>9} {'CPU speed-up':>12} {'parts':>5}"
    )
    rows: dict = {
        "1 (this process)": {"jobs": 1},
        "2 threads": {"jobs": 2},
        "2 processes (spawn)": {"jobs": 2, "processes": True},
    }
    walls: dict = {k: [] for k in rows}
    cpus: dict = {k: [] for k in rows}
    results: dict = {}
    for _ in range(runs):
        for label, kw in rows.items():
            t0, c0 = time.perf_counter(), time.process_time()
            results[label] = r = count(problem, **kw)
            walls[label].append(time.perf_counter() - t0)
            if kw["jobs"] > 1:
                cpus[label].append((r.counts["worker_cpu_ms_max"] / 1000, r.counts))
            else:
                cpus[label].append((time.process_time() - c0, {}))
    wall1 = statistics.median(walls["1 (this process)"])
    cpu1 = statistics.median(c for c, _ in cpus["1 (this process)"])
    for label in rows:
        wall = statistics.median(walls[label])
        busiest = statistics.median(c for c, _ in cpus[label])
        counts = cpus[label][-1][1]
        total = counts.get("worker_cpu_ms_total", 1000 * busiest) / 1000
        print(
            f"  {label:22} {wall:7.2f} {wall1 / wall:7.2f}x {busiest:13.2f} {total:9.2f}"
            f" {cpu1 / busiest:11.2f}x {counts.get('parts', 1):>5}"
            + ("" if results[label].count == 9356 else "  WRONG COUNT"),
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the files that take seconds")
    ap.add_argument("--no-xcover", action="store_true", help="do not run xcover side by side")
    ap.add_argument("--no-parallel", action="store_true", help="skip the parallel runs")
    ap.add_argument("--parallel-only", action="store_true", help="only the parallel runs")
    ap.add_argument("--runs", type=int, default=3, help="runs per small file (median)")
    ap.add_argument(
        "--engines", action="store_true", help="time dancing cells and dancing links both"
    )
    args = ap.parse_args()
    if not DATA.is_dir():  # outside the repository: say so in one line, no traceback
        print(
            "needs ../shared/data/exact-cover (the project's shared data folder, beside the "
            "clone; the same .dlx files are in tests/data/exact-cover); not found",
            file=sys.stderr,
        )
        sys.exit(2)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"compile/load of our kernels: {_warm():.2f} s")
    if args.parallel_only:
        parallel_table(read_dlx(DATA / "pento-6x10.dlx"), args.runs)
        return
    have_xcover = False
    if not args.no_xcover:
        t0 = time.process_time()
        counter = xcover_counter(read_dlx(DATA / "queens-8.dlx"))
        have_xcover = counter is not None and counter() == 92
        if have_xcover:
            print(f"xcover warm-up (compilation or cache load): {time.process_time() - t0:.1f} s")
    head = (
        f"{'file':18} {'count':>8} {'ok':>3} {'engine':>8} {'ours s':>8} {'nodes':>11}"
        f" {'updates':>13} {'DLX1 s':>7} {'ours/DLX1':>9} {'xcover s':>9} {'xc/ours':>8}"
        + (f" {'cells s':>8} {'links s':>8} {'links/cells':>11}" if args.engines else "")
    )
    print(head)
    print("-" * len(head))
    cases = [c for c in CASES if not (args.quick and c[0] in BIG)]
    if not args.quick:
        cases.append(("pento-5x12 (built)", 4040, 6.7))
    for name, expected, dlx1 in cases:
        if name.startswith("pento-5x12"):
            problem = Packing.build("pentominoes", "5x12").problem
        else:
            problem = read_dlx(DATA / f"{name}.dlx")
        arrays = problem.arrays()
        both = args.engines and not (arrays.has_colours or arrays.has_multiplicities)
        if both:  # time both engines; "ours" is the one "auto" picks
            funcs = {
                e: (lambda p=problem, e=e: count(p, engine=e, jobs=1)) for e in ("cells", "links")
            }
        else:
            funcs = {"ours": lambda p=problem: count(p, jobs=1)}
        counter = xcover_counter(problem) if have_xcover else None
        if counter is not None:
            funcs["xcover"] = counter
        runs = 1 if name == "queens-15" else args.runs
        got = cpu_seconds(funcs, runs)
        if both:
            got["ours"] = got[_Search(problem.arrays()).engine]
        secs, r = got["ours"]
        ratio = f"{secs / dlx1:9.2f}" if dlx1 else " " * 9
        dlx1_text = f"{dlx1:7.3f}" if dlx1 else " " * 7
        xc_text, xc_ratio = " " * 9, " " * 8
        if "xcover" in got:
            xs, xn = got["xcover"]
            xc_text = f"{xs:9.3f}" + ("" if xn == expected else "!")
            xc_ratio = f"{xs / secs:8.2f}" if secs > 0 else ""
        engines_text = ""
        if both:
            cs, ls = got["cells"][0], got["links"][0]
            engines_text = f" {cs:8.3f} {ls:8.3f} {ls / cs if cs > 0 else 0:11.2f}"
        print(
            f"{name:18} {r.count:8} {'yes' if r.count == expected else 'NO':>3}"
            f" {r.algorithm:>8} {secs:8.3f} {r.counts['nodes']:11,} {r.counts['updates']:13,}"
            f" {dlx1_text} {ratio} {xc_text} {xc_ratio}{engines_text}",
            flush=True,
        )
    if not args.no_parallel and not args.quick:
        parallel_table(read_dlx(DATA / "pento-6x10.dlx"), args.runs)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
