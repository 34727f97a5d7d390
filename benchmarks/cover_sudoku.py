"""Sudoku uniqueness checks (stop at 2 solutions) on the shared sets, side by side with tdoku.

    python benchmarks/cover_sudoku.py --peers ../peers-build [--json FILE] [--quick]
    python benchmarks/cover_sudoku.py --ab OLD.py NEW.py [--sets 1106,serg] [--rounds 8]

``--peers DIR`` is the folder ``bash ../shared/peers/build.sh DIR`` filled; its
``tdoku_bench FILE MIN_CPU_S`` checks every puzzle of FILE for uniqueness (limit 2 solutions)
with tdoku's fastest solver and prints CPU puzzles/s. For every set the peer and rompicapo's
``sudoku.solve_batch(puzzles, limit=2)`` run alternately on the same file, ``--runs``
times each; one run repeats its whole file until ``--min-cpu`` CPU seconds have passed (the
driver does the same), and the rate is puzzles / CPU seconds. Medians of the runs are printed
with the ratio ours / tdoku (above 1: we check puzzles faster), the load average and the CPU
model: the machine is shared and changes from day to day, so only a ratio measured in one run
means anything. Both programs' solution counts (0 / 1 / 2+) are compared, and our solutions
are checked by the independent verifier. File parsing and the kernel's compilation are timed
apart (not in the rate).

Without ``--peers`` only rompicapo runs. ``--json FILE`` writes one row per set: set,
puzzles, peer, peer_rate, ours_rate, ratio (ours / peer), unit, load, cpu, date, commit and
both programs' guesses per puzzle. ``--dlx`` adds the DLX engine on samples and
``--generate N`` times the generator.

``--ab OLD.py NEW.py`` compares two versions of the 9x9 kernel module, loaded from their files
(e.g. ``git show REV:rompicapo/cover/_sudoku_simd.py > old.py``; each file needs
``solve(puzzles, limit) -> (counts, solutions, stats)``): both run in this process on the same
puzzles, alternated ABBA, ``--rounds`` rounds of ``--min-cpu`` CPU seconds each; it prints the
medians, new / old, and whether the counts agree.

The magictour top1465 set is not in ``../shared/data/sudoku``: it is read from the data folder
when it is there, else from the repository's copy (``tests/data/sudoku``, with its source).

History (ours / tdoku, puzzles per CPU second, uniqueness check; medians; 2026-12-02 on an
Intel Xeon "emeraldrapids", 2 cores shared by several jobs, so the load is 6-10):

| kernel | 17-clue | 1905 11+ | 1106 | serg | top1465 |
| --- | ---: | ---: | ---: | ---: | ---: |
| band bit-set kernel (ddb2ffc), 3 runs, load 5.7-6.9 | 0.57 | 0.51 | 0.47 | 0.45 | 0.44 |
| vector kernel, one box at a time (4cecc06), 5 runs, load 9-12 | 1.24 | 1.01 | 0.98 | 1.16 | 1.03 |
| two marked boxes at a time (a86c267), 5 runs, load 6-8 | 1.35 | 1.26 | 1.17 | 1.25 | 1.18 |
| the same kernel (1970589), 7 runs, load 5.2-5.8 | 1.37 | 1.23 | 1.24 | 1.25 | 1.21 |

(The first table of this kind, measured at ddb2ffc on the same machine at load 1-2: 0.61,
0.57, 0.56, 0.55, 0.55.) The steps of the vector kernel (``rompicapo.cover._sudoku_simd``,
LLVM IR from a numba intrinsic), each paired against the step before with ``--ab``-style runs
(both kernels in one process, alternated, same puzzles, medians of 5-8 rounds of 0.5-1 CPU s;
new / old):

| step | 17-clue | 1106 | serg | top1465 | 1905 |
| --- | ---: | ---: | ---: | ---: | ---: |
| 1. a caller skips a call whose message changes nothing | 1.08 | 1.05 | 1.12 | 1.14 | |
| 2. one propagate function sweeping marked units | 1.19 | 0.98 | 1.11 | 1.12 | |
| 3. + the contradictions sweeps missed (vs 1) | 1.21 | 1.09 | 1.11 | 1.15 | |
| 4. one branch for both contradiction tests | 1.01 | 1.03 | 1.00 | 1.04 | |
| 5. the cleaned module (4cecc06) | 1.01 | 1.01 | 1.07 | 1.00 | |
| 6. two marked boxes at a time (a86c267) | 1.14 | 1.13 | 0.96 | 1.17 | 1.13 |

Step 1 is against the first version (tdoku's model written as IR: boxes and bands as vectors,
each box and band a function, messages sent by recursive calls); 2 sweeps the marked bands
then the marked boxes in one function (no calls, and increments that arrive together are
handled in one visit), which cost guesses (1106: 110.3 to 116.1) until 3 added the two
contradictions the recursive order used to meet early (a digit that no lane of a box row or
column may hold, a triad that fewer than three digits reach); 5 drops the leaf's union test
(propagation already proves it); 6 runs two marked boxes side by side in one 512-bit vector,
two independent dependency chains in the same instructions, their band messages through a
per-box pshufb control. The first version's rates beside tdoku were 0.74 (17-clue),
0.83 (1106), 0.74 (serg), 0.69 (top1465), 0.82 (1905). Measured and dropped: the marked units
dispatched through a jump table instead of sweeps (0.86-0.94); branching first in any band with
a digit of two configurations (more guesses: 1106 116.9 against 110.6; 0.81-0.99); band
eliminations kept as triads with a test against the open triads (serg 0.92); pairs split into
two 256-bit halves (0.90-1.06 of the 512-bit pairs); pairs with the box's band messages picked
by lane selects instead of pshufb (0.96-0.98 of pshufb). Guesses per puzzle stayed tdoku's
(1106: 110.56 against 110.44; 17-clue 0.57; serg 6.92 against 7.04; top1465 8.93 against 8.94;
1905 61.68 against 61.67).

Compile time of the Sudoku kernels, cold (an empty numba cache), load 3-7: before, the band
bit-set kernel's two signatures and the cell kernel that ``sudoku.solve`` also compiled took
9.7 + 2.7 + 10.2 = 22.5 s of CPU (``rompicapo sudoku solve PUZZLE`` 26.2 s of CPU cold); the
vector kernel compiles in 1.4-1.5 s (the command 1.9 s of CPU cold, 0.9 s warm), and the cell
kernel, which only rating uses, compiles on ``rate()``'s first call.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
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
    ap.add_argument("--ab", type=Path, nargs=2, metavar=("OLD", "NEW"),
                    help="compare two kernel module files instead (see above)")  # fmt: skip
    ap.add_argument("--rounds", type=int, default=8, help="alternated rounds for --ab")
    args = ap.parse_args()
    data = args.data or find_data()
    if args.ab:
        compare_kernels(args, data)
        return
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
        f"{'set':26} {'puzzles':>8} {'tdoku /s':>10} {'ours /s':>10} {'ours/tdoku':>10}"
        f" {'guess/p tdoku':>13} {'ours':>6} {'counts':>7} {'load':>5}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for label, path in chosen_sets(args, data):
        puzzles = sudoku.read_puzzles(path)
        loads = []
        peer_rates: list[float] = []
        ours_rates: list[float] = []
        peer = None
        batch = None
        for run in range(args.runs):
            loads.append(os.getloadavg()[0])
            # alternated ABBA: neither program always runs first
            for who in ("peer", "ours") if run % 2 == 0 else ("ours", "peer"):
                if who == "peer" and exe is not None:
                    peer = run_peer(exe, path, args.min_cpu)
                    peer_rates.append(peer["rate"])
                elif who == "ours":
                    rate, batch = run_ours(puzzles, args.min_cpu)
                    ours_rates.append(rate)
        c = batch.counts_per_puzzle
        hist = (int((c == 0).sum()), int((c == 1).sum()), int((c >= 2).sum()))
        agree = peer is None or peer["hist"] == hist
        ok = batch.verify() and agree
        ours_rate = statistics.median(ours_rates)
        peer_rate = statistics.median(peer_rates) if peer_rates else None
        ratio = ours_rate / peer_rate if peer_rate else None
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


def chosen_sets(args: argparse.Namespace, data: Path):
    """(label, path) of the sets ``--sets`` and ``--quick`` leave, those present."""
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
        yield label, path


def load_kernel(path: Path):
    """A kernel module from its file, under a name fixed by the file's path (so numba's cache
    of it stays valid from one run to the next)."""
    name = "sudoku_kernel_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compare_kernels(args: argparse.Namespace, data: Path) -> None:
    """``--ab OLD NEW``: both kernel files in this process, alternated ABBA on each set."""
    kernels = [load_kernel(path) for path in args.ab]
    for path, kernel in zip(args.ab, kernels, strict=True):
        c0 = time.process_time()
        kernel.solve(np.zeros((1, 81), np.uint8), 2)
        print(f"{path}: compile/load {time.process_time() - c0:.2f} s CPU")
    print(f"CPU {cpu_model()}, load {os.getloadavg()[0]:.2f}; limit 2, {args.rounds} rounds of "
          f"{args.min_cpu} CPU s, ABBA; rates in puzzles per CPU second")  # fmt: skip
    for label, path in chosen_sets(args, data):
        puzzles = sudoku.read_puzzles(path)
        rates: list[list[float]] = [[], []]
        counts: list = [None, None]
        guesses = [0.0, 0.0]
        for r in range(args.rounds):
            for k in (0, 1) if r % 2 == 0 else (1, 0):
                cpu = 0.0
                solved = 0
                while cpu < args.min_cpu:
                    c0 = time.process_time()
                    counts[k], _, stats = kernels[k].solve(puzzles, 2)
                    cpu += time.process_time() - c0
                    solved += len(puzzles)
                rates[k].append(solved / cpu)
                guesses[k] = float(stats[:, 0].mean())
        old, new = (statistics.median(r) for r in rates)
        agree = np.array_equal(counts[0], counts[1])
        print(
            f"{label:26} old {old:10,.0f} new {new:10,.0f} new/old {new / old:6.3f}"
            f"  guesses {guesses[0]:.2f} / {guesses[1]:.2f}"
            f"  counts {'agree' if agree else 'DIFFER'}  load {os.getloadavg()[0]:.2f}",
            flush=True,
        )


def dlx_samples(data: Path) -> None:
    """The same uniqueness check through Algorithm X, one Python call per puzzle."""
    sudoku.solve("." * 81, limit=1, engine="dlx")  # compile or load the engine first
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
