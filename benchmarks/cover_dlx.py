"""Exact cover: rompicapo beside Knuth's DLX1, DLX2 and DLX3 on every .dlx file, side by side.

    python benchmarks/cover_dlx.py --peers ../peers-build [--json FILE] [--runs N]
                                   [--only NAME,...] [--min-cpu S] [--engines] [--parallel]

``--peers DIR`` is the folder ``bash ../shared/peers/build.sh DIR`` filled: ``dlx1``, ``dlx2``
and ``dlx3``, Knuth's programs as ctangle writes them from his CWEB sources (gcc -O3), reading
his ``.dlx`` format on standard input and printing ``Altogether N solutions, X+Y mems,
U updates, ... K nodes`` on standard error. A file with multiplicities goes to DLX3, one with
colours to DLX2, any other to DLX1.

The files: every ``.dlx`` file under ``tests/data`` and in ``../shared/data/exact-cover``; a
file in both (same bytes) is measured once, its row naming both places.

For every file the peer and rompicapo run alternately, ``--runs`` times each (medians):
- the peer: the CPU time (user + system) of its process, start-up and reading included, as a
  user runs it (``dlx1 < file``); its start-up alone is printed first (a one-option file);
- rompicapo: the CPU time of ``count(read_dlx(file), jobs=1)`` in this process (reading
  included, one thread), after one untimed call on the file has compiled the engine (or loaded
  it from numba's cache): compilation is printed apart, not timed.
A run repeats its program until ``--min-cpu`` CPU seconds have passed and takes the mean, so
files solved in a millisecond are timed as precisely as the others. Both solution counts are
compared (a row says ``DIFFER`` and the script exits 1 when they do not agree), and Knuth's
node counts are printed beside ours (bit sets walk Knuth's tree, so they agree there).

``ratio`` is the peer's CPU time over ours: above 1 rompicapo is faster. The machine is
shared and its CPU model changes from day to day, so the load average and the CPU model are
printed with the figures; only a ratio measured in one run means anything.

``--json FILE`` writes one row per file (``benchmarks/results/cover_dlx.json``, shown on the
results page). ``--engines`` adds the CPU time of each of our engines (``engine=`` of
:func:`rompicapo.cover.count`) on the files without multiplicities; ``--parallel`` counts
pento-6x10 with 1 and 2 threads (the count runs on threads: a spawned process first spends
0.5-1 s loading numba and the kernels).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import commit, cpu_model, write_json

from rompicapo.cover import count, read_dlx

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(
    r"Altogether (\d+) solutions?, (\d+)\+(\d+)(?:-\d+)? mems, (\d+) updates,"
    r"(?: (\d+) cleansings,)? \d+ bytes, (\d+) nodes"
)
ENGINES = ("bits", "cells", "links")


def find_shared() -> Path:
    """``shared/data/exact-cover`` beside the checkout or beside one of its parents
    (worktrees live one level deeper than the main checkout)."""
    for parent in [ROOT, *ROOT.parents]:
        candidate = parent / ".." / "shared" / "data" / "exact-cover"
        if candidate.is_dir():
            return candidate.resolve()
    return ROOT / ".." / "shared" / "data" / "exact-cover"


def dlx_files(shared: Path) -> list[tuple[str, Path, list[str]]]:
    """(name, path, places) for every distinct ``.dlx`` file, by name."""
    found: dict[str, tuple[str, Path, list[str]]] = {}
    places = [(ROOT / "tests" / "data", "tests/data"), (shared, "shared/data/exact-cover")]
    for folder, label in places:
        for path in sorted(folder.rglob("*.dlx")) if folder.is_dir() else []:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest in found:
                found[digest][2].append(label)
            else:
                found[digest] = (path.stem, path, [label])
    # by family (the name up to its first "-"), then by size: the quick ones of a family first
    return sorted(found.values(), key=lambda f: (f[0].split("-")[0], f[1].stat().st_size))


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_peer(exe: Path, path: Path, min_cpu: float) -> tuple[float, dict]:
    """Run the peer on ``path`` until ``min_cpu`` CPU seconds: CPU seconds per run, and its
    summary line's figures."""
    runs = 0
    c0 = children_cpu()
    while True:
        with open(path, "rb") as stdin:
            done = subprocess.run([str(exe)], stdin=stdin, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, check=True)  # fmt: skip
        runs += 1
        spent = children_cpu() - c0
        if spent >= min_cpu:
            break
    m = SUMMARY.search(done.stderr.decode(errors="replace"))
    if m is None:
        sys.exit(f"{exe.name} printed no summary line on {path.name}: {done.stderr[-300:]!r}")
    solutions, read_mems, mems, updates, cleansings, nodes = m.groups()
    return spent / runs, {
        "solutions": int(solutions),
        "mems": int(read_mems) + int(mems),
        "updates": int(updates),
        "cleansings": int(cleansings or 0),
        "nodes": int(nodes),
    }


def run_ours(path: Path, min_cpu: float, engine: str = "auto"):
    """``count(read_dlx(path), jobs=1)`` until ``min_cpu`` CPU seconds: CPU seconds per run,
    and the last result."""
    runs = 0
    spent = 0.0
    while True:
        c0 = time.process_time()
        result = count(read_dlx(path), jobs=1, engine=engine)
        spent += time.process_time() - c0
        runs += 1
        if spent >= min_cpu:
            return spent / runs, result


def peer_for(problem_arrays) -> str:
    if problem_arrays.has_multiplicities:
        return "dlx3"
    return "dlx2" if problem_arrays.has_colours else "dlx1"


def parallel_table(path: Path, runs: int) -> None:
    """Count ``path`` with 1 thread and 2 threads: medians of wall seconds, and
    the CPU seconds of the busiest worker."""
    problem = read_dlx(path)
    print(f"\nparallel counting, {path.name}, medians of {runs} runs:")
    print(f"  {'workers':22} {'wall s':>7} {'speed-up':>8} {'busiest CPU s':>13} {'count':>7}")
    rows = {"1 (this process)": {"jobs": 1}, "2 threads": {"jobs": 2}}
    walls: dict = {k: [] for k in rows}
    busiest: dict = {k: [] for k in rows}
    counts: dict = {}
    for _ in range(runs):
        for label, kw in rows.items():
            t0, c0 = time.perf_counter(), time.process_time()
            r = count(problem, **kw)
            walls[label].append(time.perf_counter() - t0)
            cpu = r.counts.get("worker_cpu_ms_max")
            busiest[label].append(cpu / 1000 if cpu is not None else time.process_time() - c0)
            counts[label] = r.count
    one = statistics.median(walls["1 (this process)"])
    for label in rows:
        wall = statistics.median(walls[label])
        print(f"  {label:22} {wall:7.2f} {one / wall:7.2f}x"
              f" {statistics.median(busiest[label]):13.2f} {counts[label]:7}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=Path, help="folder filled by ../shared/peers/build.sh")
    ap.add_argument("--json", type=Path, help="write the result rows to this file")
    ap.add_argument("--runs", type=int, default=3, help="alternated runs per program (median)")
    ap.add_argument("--min-cpu", type=float, default=0.3, help="CPU seconds per run at least")
    ap.add_argument("--only", default="", help="comma-separated file names (no .dlx)")
    ap.add_argument("--engines", action="store_true", help="time each of our engines too")
    ap.add_argument("--parallel", action="store_true", help="parallel counting of pento-6x10")
    args = ap.parse_args()
    shared = find_shared()
    files = dlx_files(shared)
    if not files:
        print(f"no .dlx file in tests/data or {shared}", file=sys.stderr)
        sys.exit(2)
    if args.peers is not None:
        missing = [p for p in ("dlx1", "dlx2", "dlx3") if not (args.peers / p).exists()]
        if missing:
            ap.error(f"{args.peers} lacks {', '.join(missing)}: run ../shared/peers/build.sh")
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    cpu_name, rev = cpu_model(), commit()
    print(f"CPU {cpu_name}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}; "
          f"commit {rev}; {len(files)} files")  # fmt: skip
    if args.peers is not None:
        with tempfile.TemporaryDirectory() as folder:
            trivial = Path(folder) / "one-option.dlx"
            trivial.write_text("a\na\n")
            floor, _ = run_peer(args.peers / "dlx1", trivial, args.min_cpu)
        print(f"DLX1 on a one-option file (its start-up): {1000 * floor:.2f} ms CPU")
    head = (f"{'file':17} {'peer':>4} {'solutions':>9} {'peer s':>9} {'ours s':>9} {'ratio':>6}"
            f" {'peer nodes':>11} {'our nodes':>11} {'engine':>7} {'counts':>6} {'compile':>7}"
            + "".join(f" {e + ' s':>8}" for e in ENGINES if args.engines))  # fmt: skip
    print(head)
    print("-" * len(head))
    rows = []
    bad = False
    for name, path, places in files:
        if wanted and name not in wanted:
            continue
        problem = read_dlx(path)
        peer = peer_for(problem.arrays())
        first = count(problem, jobs=1, node_limit=1)  # compiles (or loads) the engine
        loads, peer_times, ours_times = [], [], []
        peer_counts, result = None, None
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            if args.peers is not None:
                t, peer_counts = run_peer(args.peers / peer, path, args.min_cpu)
                peer_times.append(t)
            t, result = run_ours(path, args.min_cpu)
            ours_times.append(t)
        ours_s = statistics.median(ours_times)
        peer_s = statistics.median(peer_times) if peer_times else None
        agree = peer_counts is None or peer_counts["solutions"] == result.count
        bad |= not agree
        engines = {}
        if args.engines and peer != "dlx3":
            for e in ENGINES:
                if e == "cells" and peer == "dlx2":
                    continue
                count(problem, jobs=1, engine=e, node_limit=1)
                engines[e] = statistics.median(
                    run_ours(path, args.min_cpu, e)[0] for _ in range(args.runs)
                )
        print(
            f"{name:17} {peer:>4} {result.count:9} {peer_s or 0:9.4f} {ours_s:9.4f}"
            f" {peer_s / ours_s if peer_s else 0:6.2f}"
            f" {peer_counts['nodes'] if peer_counts else 0:11,} {result.counts['nodes']:11,}"
            f" {result.algorithm:>7} {'agree' if agree else 'DIFFER':>6}"
            f" {first.compile_seconds:7.2f}"
            + "".join(f" {engines[e]:8.4f}" if e in engines else " " * 9
                      for e in ENGINES if args.engines),
            flush=True,
        )  # fmt: skip
        rows.append({
            "file": name, "peer": peer.upper(), "solutions": result.count,
            "peer_s": round(peer_s, 6) if peer_s else None, "ours_s": round(ours_s, 6),
            "ratio": round(peer_s / ours_s, 3) if peer_s else None,
            "peer_nodes": peer_counts["nodes"] if peer_counts else None,
            "ours_nodes": result.counts["nodes"], "engine": result.algorithm,
            "counts_agree": agree, "unit": "CPU s per count", "load": round(
                statistics.median(loads), 2), "cpu": cpu_name,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "commit": rev, "places": places, "peer_counts": peer_counts,
            "ours_counts": result.counts, "peer_runs": peer_times, "ours_runs": ours_times,
        })  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.json:
        write_json(args.json, rows)
    if args.parallel:
        parallel_table(shared / "pento-6x10.dlx", args.runs)
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
