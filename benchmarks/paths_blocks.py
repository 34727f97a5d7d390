"""The block construction's figures, side by side with the greedy constructors.

1. Path array fill at 10000 x 10000: cells per second, one thread and all cores, against the
   article's greedy solver (caselle_v2, ../shared/anchors) and our greedy constructor, as
   ratios. Per-core rate = cells / thread CPU seconds of the one-thread run.
2. Random access: 10^6 random ``cell_at`` (and ``step_of``) queries on a 10^6 x 10^6 board.
3. Every board with 5 <= R, C <= 200 (``--all-max``) built and verified by the independent
   verifier.
4. ``--big N``: N x N written as a streamed .rpath file and verified streaming (processes on
   all cores), with the peak memory summed over the process tree (sampled by psutil) and the
   times. ``--big 100000`` is 10^10 cells (10 GB on disk; give ``--dir``).

    python benchmarks/paths_blocks.py                         # 1-3
    python benchmarks/paths_blocks.py --big 100000 --dir /work/scratch

Wall-clock figures on a shared machine: the `uptime` load is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil
from rich.console import Console
from rich.table import Table

from rompicapo.common import default_jobs
from rompicapo.paths import construct, verify_path
from rompicapo.paths.blocks import BlockPath, warm_up, write_blocks_rpath
from rompicapo.paths.verify_stream import verify_rpath

ANCHORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "anchors"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def fill_rates(size: int, repeats: int) -> tuple[float, float, float]:
    """(cells/s wall 1 thread, cells/s per CPU-second 1 thread, cells/s wall all cores)."""
    bp = BlockPath(size, size)
    out = np.empty(size * size, np.int32)
    one, cpu, allc = [], [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.thread_time()
        bp.fill_path(out, jobs=1)
        one.append(out.size / (time.perf_counter() - t))
        cpu.append(out.size / max(1e-9, time.thread_time() - c))
        t = time.perf_counter()
        bp.fill_path(out)
        allc.append(out.size / (time.perf_counter() - t))
    assert verify_path(out, size, size, "caselle", start=(0, 0)).ok
    return statistics.median(one), statistics.median(cpu), statistics.median(allc)


def greedy_rates(size: int) -> tuple[float, float]:
    sys.path.insert(0, str(ANCHORS.resolve()))
    import caselle_v2  # the article's solver, run as it is

    caselle_v2.solve(50, 0, 1)  # warm
    t = time.perf_counter()
    path, _ = caselle_v2.solve(size, 0, 0)
    ref = size * size / (time.perf_counter() - t)
    assert caselle_v2.verify(path, size)
    del path
    construct(300, method="greedy")
    res = construct(size, method="greedy")
    assert res.verify()
    return ref, size * size / res.solve_seconds


class PeakMemory:
    """Peak of the summed RSS of this process and its children, sampled every 0.2 s."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me, *me.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    total += p.memory_info().rss
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10000, help="fill benchmark board (10000)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--all-max", type=int, default=200, help="verify every board up to this")
    ap.add_argument("--no-reference", action="store_true", help="skip the greedy runs")
    ap.add_argument("--big", type=int, default=0, help="N: stream N x N to disk and verify")
    ap.add_argument("--dir", default=".", help="where the big .rpath file goes")
    ap.add_argument("--keep", action="store_true", help="keep the big file")
    args = ap.parse_args()
    if not args.no_reference and not ANCHORS.is_dir():  # outside the repository: one line
        print(
            "needs ../shared/anchors (the article's caselle_v2, in the project's shared "
            "folder beside the clone; or run --no-reference); not found",
            file=sys.stderr,
        )
        sys.exit(2)
    console = Console(width=max(Console().width, 140))
    warm_up()
    console.print(f"cores: {default_jobs()}, load average: {load()}")

    # 1. fill rate
    one, cpu, allc = fill_rates(args.size, args.repeats)
    t = Table(title=f"path array fill, {args.size}x{args.size} (median of {args.repeats})")
    for col in ("method", "M cells/s", "vs caselle_v2", "note"):
        t.add_column(col, justify="right")
    ref = ours_greedy = None
    if not args.no_reference:
        ref, ours_greedy = greedy_rates(args.size)
        t.add_row("caselle_v2 (article, greedy)", f"{ref / 1e6:.1f}", "1.00x", "reference")
        t.add_row("rompicapo greedy, all cores", f"{ours_greedy / 1e6:.1f}",
                  f"{ours_greedy / ref:.2f}x", "Warnsdorff + Pósa")  # fmt: skip
    for name, rate, note in (
        ("blocks, 1 thread", one, "wall"),
        ("blocks, 1 thread per CPU s", cpu, "target >= 300 per core"),
        (f"blocks, {default_jobs()} threads", allc, "wall"),
    ):
        ratio = f"{rate / ref:.0f}x" if ref else "-"
        t.add_row(name, f"{rate / 1e6:.0f}", ratio, note)
    console.print(t)

    # 2. random access
    bp = BlockPath(10**6, 10**6)
    steps = np.random.default_rng(0).integers(1, 10**12 + 1, 10**6)
    ta, tb = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        r, c = bp.cell_at(steps)
        t1 = time.perf_counter()
        back = bp.step_of(r, c)
        ta.append(t1 - t0)
        tb.append(time.perf_counter() - t1)
    assert np.array_equal(back, steps)
    console.print(
        f"random access, 10^6 queries on 10^6 x 10^6: cell_at {statistics.median(ta):.3f} s, "
        f"step_of {statistics.median(tb):.3f} s (median of 5; target < 1 s); round trip exact"
    )

    # 3. every board up to --all-max
    t0 = time.perf_counter()
    bad = []
    cells = 0
    for rows in range(5, args.all_max + 1):
        for cols in range(5, args.all_max + 1):
            path = BlockPath(rows, cols).fill_path(jobs=1)
            cells += path.size
            if not verify_path(path, rows, cols, "caselle", start=(0, 0)):
                bad.append((rows, cols))
    n = (args.all_max - 4) ** 2
    console.print(
        f"every board 5..{args.all_max} x 5..{args.all_max}: {n:,} boards, {cells:,} cells, "
        f"{'all verified' if not bad else f'{len(bad)} FAILED: {bad[:5]}'} "
        f"in {time.perf_counter() - t0:.1f} s"
    )

    # 4. the big streamed board
    if args.big:
        name = Path(args.dir) / f"blocks_{args.big}.rpath"
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            header = write_blocks_rpath(name, args.big, args.big)
            t_write = time.perf_counter() - t0
            peak_write = mem.peak
            t0 = time.perf_counter()
            check = verify_rpath(name)
            t_verify = time.perf_counter() - t0
        t = Table(title=f"{args.big}x{args.big} streamed to {name} (load {load()})")
        for col in ("cells", "file", "write", "write rate", "verify", "verify rate", "peak mem",
                    "verified"):  # fmt: skip
            t.add_column(col, justify="right")
        nc = header.cells
        t.add_row(f"{nc:.3g}", f"{header.file_size / 1e9:.2f} GB", f"{t_write:.1f} s",
                  f"{nc / t_write / 1e6:.0f} M/s", f"{t_verify:.1f} s",
                  f"{nc / t_verify / 1e6:.0f} M/s",
                  f"{max(mem.peak, peak_write) / 1e9:.2f} GB",
                  "yes" if check else f"NO: {check.reason}")  # fmt: skip
        console.print(t)
        if not args.keep:
            name.unlink()


if __name__ == "__main__":
    main()
