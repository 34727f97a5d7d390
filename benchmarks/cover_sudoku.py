"""Sudoku uniqueness checks (stop at 2 solutions) on the shared sets, side by side with tdoku.

    python benchmarks/cover_sudoku.py --peers ../peers-build [--json FILE] [--quick]

``--peers DIR`` is the folder ``bash ../shared/peers/build.sh DIR`` filled; its
``tdoku_bench FILE MIN_CPU_S`` checks every puzzle of FILE for uniqueness (limit 2 solutions)
with tdoku's fastest solver and prints CPU puzzles/s. For every set the peer and rompicapo's
``sudoku.solve_batch(puzzles, limit=2)`` run alternately on the same file, ``--runs``
times each; one run repeats its whole file until ``--min-cpu`` CPU seconds have passed (the
driver does the same), and the rate is puzzles / CPU seconds. Medians of the runs are printed
with the ratio peer / rompicapo, the load average and the CPU model: the machine is shared and
changes from day to day, so only a ratio measured in one run means anything. Both programs'
solution counts (0 / 1 / 2+) are compared, and our solutions are checked by the independent
verifier. File parsing and the kernel's compilation are timed apart (not in the rate).

Without ``--peers`` only rompicapo runs. ``--json FILE`` writes one row per set: set,
puzzles, peer, peer_rate, ours_rate, ratio, unit, load, cpu, date, commit and both programs'
guesses per puzzle. ``--dlx`` adds the DLX engine on samples and ``--generate N`` times the
generator.

The magictour top1465 set is not in ``../shared/data/sudoku``: it is read from the data folder
when it is there, else from the repository's copy (``tests/data/sudoku``, with its source).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
from machine import commit, cpu_model

from rompicapo.cover import sudoku

ROOT = Path(__file__).resolve().parents[1]
# sets the shared folder lacks, shipped with the tests
COPIES = ROOT / "tests" / "data" / "sudoku"

SETS = [
    ("puzzles2_17_clue.txt", "17-clue"),
    ("puzzles5_forum_hardest_1905_11+.txt", "forum hardest 1905 11+"),
    ("puzzles6_forum_hardest_1106.txt", "forum hardest 1106"),
    ("puzzles7_serg_benchmark.txt", "serg benchmark (2+ sol.)"),
    ("puzzles3_magictour_top1465.txt", "magictour top1465"),
]


def find_data() -> Path:
    """``shared/data/sudoku`` next to the checkout or next to one of its parents (worktrees
    live one level deeper than the main checkout)."""
    for parent in [ROOT, *ROOT.parents]:
        candidate = parent / ".." / "shared" / "data" / "sudoku"
        if candidate.is_dir():
            return candidate.resolve()
    return ROOT / ".." / "shared" / "data" / "sudoku"


def run_peer(exe: Path, path: Path, min_cpu: float) -> dict:
    """One run of the tdoku driver: its printed ``key=value`` fields."""
    out = subprocess.run([str(exe), str(path), str(min_cpu)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    fields = dict(re.findall(r"(\S+?)=(\S+)", out))
    return {
        "rate": float(fields["cpu_puzzles_per_s"]),
        "hist": (int(fields["sols0"]), int(fields["sols1"]), int(fields["sols2+"])),
        "guesses": float(fields["guesses/puzzle"]),
    }


def run_ours(puzzles: np.ndarray, min_cpu: float) -> tuple[float, sudoku.BatchResult]:
    """Whole-file batches until ``min_cpu`` CPU seconds: puzzles per CPU second."""
    solved = 0
    cpu = 0.0
    while True:
        c0 = time.process_time()
        batch = sudoku.solve_batch(puzzles, limit=2)
        cpu += time.process_time() - c0
        solved += len(puzzles)
        if cpu >= min_cpu:
            return solved / cpu, batch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=Path, help="folder filled by ../shared/peers/build.sh")
    ap.add_argument("--data", type=Path, default=None, help="folder of the puzzle files")
    ap.add_argument("--json", type=Path, help="write the result rows to this file")
    ap.add_argument("--quick", action="store_true", help="skip the 48,766-puzzle hard set")
    ap.add_argument("--sets", default="", help="comma-separated substrings of set labels")
    ap.add_argument("--runs", type=int, default=3, help="alternated runs per program (median)")
    ap.add_argument("--min-cpu", type=float, default=1.0, help="CPU seconds per run at least")
    ap.add_argument("--dlx", action="store_true", help="also time the DLX engine on samples")
    ap.add_argument("--generate", type=int, default=0, help="puzzles to generate (timing)")
    args = ap.parse_args()
    data = args.data or find_data()
    exe = None
    if args.peers is not None:
        exe = args.peers / "tdoku_bench"
        if not exe.exists():
            ap.error(f"{exe} not found: run bash ../shared/peers/build.sh {args.peers}")
    cpu_name = cpu_model()
    rev = commit()
    print(f"CPU {cpu_name}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}; "
          f"commit {rev}; data {data}")  # fmt: skip
    c0 = time.process_time()
    sudoku.solve_batch(np.zeros((1, 81), np.uint8))  # compile or load the kernel
    print(f"kernel compile/load {time.process_time() - c0:.2f} s CPU (not in the rates)")
    head = (
        f"{'set':26} {'puzzles':>8} {'tdoku /s':>10} {'ours /s':>10} {'tdoku/ours':>10}"
        f" {'guess/p tdoku':>13} {'ours':>6} {'counts':>7} {'load':>5}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    wanted = [s.strip().lower() for s in args.sets.split(",") if s.strip()]
    for filename, label in SETS:
        if args.quick and "1905" in filename:
            continue
        if wanted and not any(w in label.lower() for w in wanted):
            continue
        path = data / filename
        if not path.exists() and (COPIES / filename).exists():
            path = COPIES / filename
        if not path.exists():
            print(f"{label:26} not measured: {path} is absent")
            continue
        puzzles = sudoku.read_puzzles(path)
        loads = []
        peer_rates: list[float] = []
        ours_rates: list[float] = []
        peer = None
        batch = None
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            if exe is not None:
                peer = run_peer(exe, path, args.min_cpu)
                peer_rates.append(peer["rate"])
            rate, batch = run_ours(puzzles, args.min_cpu)
            ours_rates.append(rate)
        c = batch.counts_per_puzzle
        hist = (int((c == 0).sum()), int((c == 1).sum()), int((c >= 2).sum()))
        agree = peer is None or peer["hist"] == hist
        ok = batch.verify() and agree
        ours_rate = statistics.median(ours_rates)
        peer_rate = statistics.median(peer_rates) if peer_rates else None
        ratio = peer_rate / ours_rate if peer_rate else None
        load = statistics.median(loads)
        print(
            f"{label:26} {len(puzzles):8} {peer_rate or 0:10,.0f} {ours_rate:10,.0f}"
            f" {ratio or 0:10.2f} {peer['guesses'] if peer else 0:13.1f}"
            f" {batch.guesses.mean():6.1f} {'agree' if ok else 'DIFFER':>7} {load:5.2f}",
            flush=True,
        )
        if not ok:
            print(f"  counts 0/1/2+: ours {hist}, tdoku {peer and peer['hist']}, "
                  f"verified {batch.verify()}")  # fmt: skip
        rows.append({
            "set": label, "puzzles": len(puzzles), "peer": "tdoku" if exe else None,
            "peer_rate": round(peer_rate, 1) if peer_rate else None,
            "ours_rate": round(ours_rate, 1), "ratio": round(ratio, 3) if ratio else None,
            "unit": "puzzles/s (CPU), uniqueness check", "load": round(load, 2),
            "cpu": cpu_name, "date": datetime.datetime.now(datetime.UTC).isoformat(
                timespec="seconds"), "commit": rev,
            "peer_guesses_per_puzzle": peer["guesses"] if peer else None,
            "ours_guesses_per_puzzle": round(float(batch.guesses.mean()), 2),
            "counts_agree": bool(ok), "peer_runs": peer_rates, "ours_runs": ours_rates,
        })  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.dlx:
        dlx_samples(data)
    if args.generate:
        generator_timing(args.generate)


def dlx_samples(data: Path) -> None:
    """The same uniqueness check through Algorithm X, one Python call per puzzle."""
    from rompicapo.cover.solve import _warm as warm_dlx

    warm_dlx()
    print("\nDLX engine (Algorithm X, 324 items / 729 options, givens committed), samples:")
    for filename, label in SETS[:3]:
        puzzles = sudoku.read_puzzles(data / filename)[:300]
        c0 = time.process_time()
        counts = [
            sudoku.solve(sudoku.Sudoku.from_grid(p.reshape(9, 9)), engine="dlx").count
            for p in puzzles
        ]
        cpu = time.process_time() - c0
        print(
            f"  {label:26} {len(puzzles)} puzzles, {len(puzzles) / cpu:8,.0f} puzzles/s"
            f" (per-puzzle Python calls), all unique: {set(counts) == {1}}",
            flush=True,
        )


def generator_timing(n: int) -> None:
    times = []
    minimal = 0
    clues = []
    for seed in range(n):
        g = sudoku.generate(seed=seed)
        times.append(g.solve_seconds)
        minimal += g.minimal
        clues.append(g.puzzle.clue_count)
    print(
        f"\ngenerator, 9x9 unique+minimal: median {1000 * statistics.median(times):.1f} ms, "
        f"max {1000 * max(times):.1f} ms over {n} seeds; {minimal}/{n} minimal; "
        f"clues {min(clues)}..{max(clues)}, median {statistics.median(clues)}"
    )


if __name__ == "__main__":
    main()
