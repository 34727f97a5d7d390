"""Block cycles: figures side by side in one run.

1. From a random start on N x N (default 10000), caselle: cells/s of the new default (the
   block cycle read from the start, one thread; with the path array's allocation, and the
   fill alone into an array already in memory) against our greedy search (one job) and the
   article's ``caselle_v2`` (../shared/anchors) from the same start. Rounds alternate the three
   (ours, greedy, caselle_v2, ours, ...); medians of wall and CPU seconds (process CPU time:
   all three run on one thread). Every path verified by the independent verifier.
2. Closed caselle and knight tours on 10000x10000 (in memory, verified closed) and
   ``--big-closed`` (default 30000) streamed to .rpath and verified streaming; the closing
   move is checked from the file's moves (their net displacement), not by the construction.
3. Every board 5..``--all-max`` (default 200) from a random start, caselle and knight, by
   ``construct(method="auto")``: closed tours wherever Schwenk's theorem (knight) or the
   construction (caselle) gives one, open paths from a start of the right colour on odd x odd
   knight boards; all verified; the methods used are tallied. ``--workers`` processes share
   the boards (default: all cores); the starts come from one seeded stream all the same.

    python benchmarks/paths_cycles.py [--size 10000] [--rounds 3] [--all-max 200]
        [--skip-random] [--skip-closed] [--sample N --small S] [--workers W]
        [--json benchmarks/results/paths_cycles.json]
        [--sweep-json benchmarks/results/paths_sweep.json]

The load average and the CPU model are printed with the figures (a shared machine).
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from machine import cpu_model

from rompicapo.paths import construct, parse_moves, verify_path
from rompicapo.paths.cycles import BlockCycle, warm_up, write_cycle_rpath
from rompicapo.paths.rpath import read_chunk, read_header
from rompicapo.paths.verify_stream import verify_rpath

ANCHORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "anchors"
COMMIT = (
    subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
    ).stdout.strip()
    or "unknown"
)


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


ROWS: list[dict] = []  # the rows of part 1, written with --json
SWEEP_ROWS: list[dict] = []  # the row of part 3, written with --sweep-json


def random_start(size: int, rounds: int) -> None:
    sys.path.insert(0, str(ANCHORS.resolve()))
    import caselle_v2  # the article's solver, run as it is

    n = size * size
    rng = np.random.default_rng(4711)
    start = (int(rng.integers(size)), int(rng.integers(size)))
    caselle_v2.solve(50, 0, 1)  # warm its JIT
    construct(300, 300, start=(7, 7), method="greedy", jobs=1)
    times = collections.defaultdict(list)
    flat = start[0] * size + start[1]
    for r in range(rounds):
        # the path array is allocated inside the timing, as the other two allocate theirs
        out, w, c = timed(lambda: BlockCycle(size, size, "caselle", start).fill_path(jobs=1))
        times["blocks"].append((w, c))
        if r == 0:
            assert verify_path(out, size, size, "caselle", start=start, closed=True)
        del out
        # the fill alone, into an array already in memory (the first touch of 400 MB of fresh
        # pages costs more CPU than the fill itself)
        pre = np.ones(n, np.int32)
        _, w, c = timed(
            lambda pre=pre: BlockCycle(size, size, "caselle", start).fill_path(pre, jobs=1)
        )
        times["blocks, fill"].append((w, c))
        del pre
        res, w, c = timed(
            lambda r=r: construct(size, size, start=start, method="greedy", jobs=1, seed=r)
        )
        assert res.found and res.verify()
        times["greedy"].append((w, c))
        del res
        (path, _), w, c = timed(lambda r=r: caselle_v2.solve(size, flat, r))
        assert caselle_v2.verify(path, size) and int(path[0]) == flat
        del path
        times["caselle_v2"].append((w, c))
        print(f"  round {r + 1}: load {load()}", flush=True)
    print(f"\n1. caselle from random start {start} on {size}x{size}, {rounds} rounds alternated")
    med = {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v))
           for k, v in times.items()}  # fmt: skip
    print(f"   {'method':<13} {'wall s':>8} {'CPU s':>8} {'M cells/s wall':>15} "
          f"{'M cells/CPU-s':>14} {'vs greedy (CPU)':>16} {'vs caselle_v2 (CPU)':>20}")  # fmt: skip
    for k, (w, c) in med.items():
        print(
            f"   {k:<13} {w:8.3f} {c:8.3f} {n / w / 1e6:15.1f} {n / c / 1e6:14.1f} "
            f"{med['greedy'][1] / c:15.1f}x {med['caselle_v2'][1] / c:19.1f}x"
        )
        ROWS.append({
            "job": f"caselle path from {start} on {size}x{size}, one thread",
            "method": k,
            "peer": "caselle_v2 (the article's solver)",
            "peer_rate": round(n / med["caselle_v2"][1]),
            "ours_rate": round(n / c),
            "ratio": round(med["caselle_v2"][1] / c, 2),
            "vs_greedy": round(med["greedy"][1] / c, 2),
            "unit": f"cells per CPU second (median of {rounds} alternated rounds)",
            "load": load(),
            "cpu": cpu_model(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": COMMIT,
        })  # fmt: skip


def closing_move_ok(name: str, moves) -> bool:
    """Walk the file's moves (net displacement per move kind) to its last cell: one move
    from the start?"""
    header = read_header(name)
    deltas = np.array(header.moves, np.int64)
    counts = np.zeros(len(deltas), np.int64)
    with open(name, "rb") as f:
        for i in range(header.n_chunks):
            counts += np.bincount(read_chunk(f, header, i), minlength=len(deltas))
    end = np.array(header.start) + counts @ deltas
    return tuple(int(x) for x in end - np.array(header.start)) in set(moves)


def closed_tours(size: int, big: int, folder: str) -> None:
    print(f"\n2. closed tours (load {load()})")
    for leaper in ("caselle", "knight"):
        path, w, c = timed(
            lambda leaper=leaper: BlockCycle(size, size, leaper, (0, 0)).fill_path(jobs=1)
        )
        ok, wv, _ = timed(
            lambda leaper=leaper, path=path: verify_path(
                path, size, size, leaper, start=(0, 0), closed=True
            )
        )
        print(
            f"   {leaper:<8} {size}x{size}: {w:.3f} s wall, {c:.3f} CPU s (one thread), "
            f"{'verified closed' if ok else 'FAILED: ' + ok.reason} ({wv:.1f} s to verify)"
        )
        del path
    if not big:
        return
    for leaper in ("caselle", "knight"):
        name = os.path.join(folder, f"cycle_{leaper}_{big}.rpath")
        try:
            header, w, c = timed(
                lambda leaper=leaper, name=name: write_cycle_rpath(
                    name, big, big, leaper, (0, 0), jobs=1, encoding="u3"
                )
            )
            check, wv, _ = timed(lambda name=name, leaper=leaper: verify_rpath(name, moves=leaper))
            closes = closing_move_ok(name, parse_moves(leaper).moves)
            print(
                f"   {leaper:<8} {big}x{big} streamed (3-bit moves, "
                f"{header.file_size / 1e9:.2f} GB): written in {w:.1f} s wall / {c:.1f} CPU s "
                f"one thread ({header.cells / w / 1e6:.0f} M cells/s), "
                f"{'verified' if check else 'FAILED: ' + check.reason} in {wv:.1f} s, "
                f"closing move {'ok' if closes else 'MISSING'}"
            )
        finally:
            if os.path.exists(name):
                os.unlink(name)


def schwenk(m: int, n: int) -> bool:
    m, n = min(m, n), max(m, n)
    return not ((m % 2 and n % 2) or m in (1, 2, 4) or (m == 3 and n in (4, 6, 8)))


def sweep_boards(top: int, sample: int, small: int = 60) -> list[tuple[int, int]]:
    """Every R x C with 5 <= R, C <= top; with ``sample`` > 0: every board with both sides
    <= ``small``, every square, and ``sample`` more drawn at random (seeded) from the rest."""
    every = [(r, c) for r in range(5, top + 1) for c in range(5, top + 1)]
    if not sample:
        return every
    chosen = {(r, c) for r, c in every if max(r, c) <= small or r == c}
    rest = sorted(set(every) - chosen)
    pick = np.random.default_rng(16).choice(len(rest), min(sample, len(rest)), replace=False)
    return sorted(chosen | {rest[i] for i in pick})


def sweep_tasks(boards: list[tuple[int, int]]) -> list[tuple]:
    """(leaper, rows, cols, start, closed) for every board, caselle then knight, each start
    drawn from one seeded stream in that order (so the starts do not depend on the workers)."""
    rng = np.random.default_rng(15)
    tasks = []
    for leaper in ("caselle", "knight"):
        for rows, cols in boards:
            start = (int(rng.integers(rows)), int(rng.integers(cols)))
            closed = schwenk(rows, cols) if leaper == "knight" else True
            if leaper == "knight" and not closed and sum(start) % 2:
                # odd x odd: an open tour starts on the larger colour, (r + c) even
                r, c = start
                start = (r, c - 1 if c > 0 else c + 1)
            tasks.append((leaper, rows, cols, start, closed))
    return tasks


def sweep_one(task: tuple) -> tuple[tuple, tuple | None]:
    """Construct and verify one task: (tally key, the failure or None)."""
    leaper, rows, cols, start, closed = task
    res = construct(rows, cols, start=start, moves=leaper, closed=closed, method="auto",
                    time_limit=60, jobs=1)  # fmt: skip
    kind = "closed" if closed else "open"
    key = (leaper, kind, res.method.split(",")[0], res.status)
    ok = res.found and verify_path(res.path, rows, cols, leaper, start=start, closed=closed)
    return key, None if ok else (leaper, rows, cols, start, closed, res.status)


def every_board(top: int, sample: int = 0, small: int = 60, workers: int = 1) -> None:
    t0, c0 = time.perf_counter(), time.process_time()
    tally = collections.Counter()
    bad = []
    boards = sweep_boards(top, sample, small)
    tasks = sweep_tasks(boards)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for b, (key, failure) in enumerate(pool.imap_unordered(sweep_one, tasks, chunksize=16)):
            tally[key] += 1
            if failure:
                bad.append(failure)
                print(f"  FAILED: {failure}", flush=True)
            if (b + 1) % 2000 == 0:
                print(f"  {b + 1} of {len(tasks)} tasks, {len(bad)} failed, "
                      f"{time.perf_counter() - t0:.0f} s, load {load()}", flush=True)  # fmt: skip
        pool.close()
        pool.join()  # reaped, so the workers' CPU time is in os.times()
    cpu_children = sum(os.times()[2:4])
    took = time.perf_counter() - t0
    print(f"\n3. every board 5..{top} x 5..{top}, random start: "
          f"{'all verified' if not bad else f'{len(bad)} FAILED: {bad[:8]}'} "
          f"in {took:.0f} s (load {load()})")  # fmt: skip
    for (leaper, kind, method, status), k in sorted(tally.items()):
        print(f"   {leaper:<8} {kind:<6} {method:<18} {status:<10} {k:6d} boards")
    SWEEP_ROWS.append({
        "job": (f"every R x C board, 5 <= R, C <= {top} (both orientations)" if not sample else
                f"R x C boards, 5 <= R, C <= {top}: every one with both sides <= {small}, every "
                f"square, {sample} more at random ({len(boards)} boards)")
               + ", random start, caselle and knight by construct(method='auto'), each path "
               "verified; closed tours wherever Schwenk (knight) or the construction (caselle) "
               "gives one",
        "method": "auto",
        "boards": sum(tally.values()),
        "failed": len(bad),
        "failures": [list(map(str, b)) for b in bad[:20]],
        "closed_tours": sum(k for (_, kind, _, _), k in tally.items() if kind == "closed"),
        "by_method": {" ".join(key): k for key, k in sorted(tally.items())},
        "wall_seconds": round(took, 1),
        "cpu_seconds": round(time.process_time() - c0 + cpu_children, 1),
        "unit": "boards",
        "load": load(),
        "cpu": cpu_model(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": COMMIT,
    })  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--big-closed", type=int, default=30000, help="0 to skip")
    ap.add_argument("--all-max", type=int, default=200, help="0 to skip")
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="where big .rpath files go")
    ap.add_argument("--skip-random", action="store_true")
    ap.add_argument("--skip-closed", action="store_true")
    ap.add_argument("--sample", type=int, default=0,
                    help="part 3 on every board up to --small, every square and this many "
                    "more at random (0: every board)")  # fmt: skip
    ap.add_argument("--small", type=int, default=60)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes for part 3 (default: all cores)")  # fmt: skip
    ap.add_argument("--json", help="write the rows of part 1 to this file (rows of other "
                    "jobs are kept)")  # fmt: skip
    ap.add_argument("--sweep-json", help="write the row of part 3 to this file")
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; load average {load()}")
    warm_up()
    if not args.skip_random:
        random_start(args.size, args.rounds)
    if not args.skip_closed:
        closed_tours(args.size, args.big_closed, args.dir)
    if args.all_max:
        every_board(args.all_max, args.sample, args.small, args.workers)
    for name, rows in ((args.json, ROWS), (args.sweep_json, SWEEP_ROWS)):
        if name and rows:
            write_rows(name, rows)


def write_rows(name: str, rows: list[dict]) -> None:
    """The rows of the parts run replace theirs (same job and method); the others stay."""
    try:
        with open(name) as fh:
            kept = json.load(fh)
    except (OSError, ValueError):
        kept = []
    ran = {(r["job"], r["method"]) for r in rows}
    rows = [r for r in kept if (r.get("job"), r.get("method")) not in ran] + rows
    with open(name, "w") as fh:
        json.dump(rows, fh, indent=1)
    print(f"rows written to {name}")


if __name__ == "__main__":
    main()
