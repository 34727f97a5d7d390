"""rompicapo's path constructor against the article's solver (caselle_v2), side by side.

Both run in this process, JIT-warm, on the same boards and seeds, one after the other, so
machine load hits both alike. Reported: cells per second (board cells / solve seconds, median
over seeds), the ratio ours / reference, and the peak memory each solve allocated (numpy
arrays, measured with tracemalloc). Ours runs twice: on one thread (``jobs=1``) and on all
cores (the default; big boards are cut into bands solved at once). Every path is verified by
rompicapo's independent verifier; the reference's by its own ``verify``.

    python benchmarks/paths_vs_reference.py                  # 1000 3000 10000, 3 seeds
    python benchmarks/paths_vs_reference.py --sizes 3000 --seeds 5

The reference lives in ../shared/anchors (never copied into the project).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rompicapo.common import default_jobs
from rompicapo.paths import construct, verify_path

ANCHORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "anchors"


def load_reference():
    sys.path.insert(0, str(ANCHORS.resolve()))
    import caselle_v2  # the article's solver, run as it is

    return caselle_v2


def timed(fn):
    """(result, seconds, peak bytes allocated during the call)."""
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, dt, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    if not ANCHORS.is_dir():  # outside the repository: say so in one line, no traceback
        print(
            "needs ../shared/anchors (the article's caselle_v2, in the project's shared "
            "folder beside the clone); not found",
            file=sys.stderr,
        )
        sys.exit(2)
    ref = load_reference()
    console = Console(width=max(Console().width, 150))
    # warm both (numba compilation or cache load), not timed
    construct(200, seed=0)
    construct(3000, seed=0)
    ref.solve(50, 0, 1)
    console.print(
        f"cores: {default_jobs()}, load average: {os.getloadavg()[0]:.1f} "
        f"(compare ratios; absolute times vary with load)"
    )
    table = Table(title="caselle path from the corner: rompicapo vs the article's solver")
    for col in (
        "board", "seeds", "ref Mcells/s", "ours 1 thread", "ratio", f"ours {default_jobs()} cores",
        "ratio", "ref peak", "ours peak", "verified",
    ):  # fmt: skip
        table.add_column(col, justify="right")
    for size in args.sizes:
        n = size * size
        t_ref, t_one, t_all = [], [], []
        p_ref = p_ours = 0
        verified = True
        for seed in range(args.seeds):
            (path, _rot), dt, peak = timed(lambda s=seed, z=size: ref.solve(z, 0, s))
            verified &= path is not None and bool(ref.verify(path, size))
            t_ref.append(dt)
            p_ref = max(p_ref, peak)
            del path
            res, dt, peak = timed(lambda s=seed, z=size: construct(z, seed=s, jobs=1))
            verified &= bool(verify_path(res.path, size, size))
            t_one.append(res.solve_seconds)
            p_ours = max(p_ours, peak)
            del res
            res, dt, peak = timed(lambda s=seed, z=size: construct(z, seed=s))
            verified &= bool(verify_path(res.path, size, size))
            t_all.append(res.solve_seconds)
            del res
        r, o1, oa = (statistics.median(t) for t in (t_ref, t_one, t_all))
        table.add_row(
            f"{size}x{size}", str(args.seeds), f"{n / r / 1e6:.1f}", f"{n / o1 / 1e6:.1f}",
            f"{r / o1:.2f}x", f"{n / oa / 1e6:.1f}", f"{r / oa:.2f}x",
            f"{p_ref / 1e9:.2f} GB", f"{p_ours / 1e9:.2f} GB", "yes" if verified else "NO",
        )  # fmt: skip
    console.print(table)


if __name__ == "__main__":
    main()
