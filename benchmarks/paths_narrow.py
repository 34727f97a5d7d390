"""Open knight paths from every start on narrow boards (issue 15): how many starts fail.

``construct(method="auto")`` from every cell of R x n and n x R: on boards with both sides odd
a start off the colour of (0, 0) must be refused with the colouring argument, every other
start must give a path the independent verifier accepts. 5 x n and n x 5 for every n in
5..``--max`` (default 100); 6..9 x n for n in 5..30 and every 5th n up to ``--max``.

    python benchmarks/paths_narrow.py [--max 100] [--json benchmarks/results/paths_narrow.json]

No peer: the figure is a count of failures (target 0), with the time, load and CPU model.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time

from machine import commit, cpu_model

from rompicapo.paths import construct, verify_path


def five_by_n(top: int):
    for n in range(5, top + 1):
        yield 5, n
        if n != 5:
            yield n, 5


def six_to_nine(top: int):
    for rows in (6, 7, 8, 9):
        for n in range(5, top + 1):
            if n <= 30 or n % 5 == 0:
                yield rows, n


def check(rows: int, cols: int, tally: collections.Counter, bad: list) -> None:
    odd = rows % 2 and cols % 2
    for r in range(rows):
        for c in range(cols):
            res = construct(rows, cols, start=(r, c), moves="knight", method="auto", jobs=1)
            if odd and (r + c) % 2:
                ok = res.status == "impossible" and "colour" in res.proof
                tally["refused (colour)" if ok else "WRONG"] += 1
            else:
                ok = res.found and bool(verify_path(res.path, rows, cols, "knight", start=(r, c)))
                tally[res.method if ok else res.status] += 1
            if not ok:
                bad.append((rows, cols, r, c, res.status))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--json", help="write the summary to this file")
    args = ap.parse_args()
    cpu = cpu_model()
    print(f"CPU: {cpu}, {os.cpu_count()} cores; load average {os.getloadavg()}")
    t0, c0 = time.perf_counter(), time.process_time()
    rows_out = []
    groups = {"5 x n and n x 5, every n": five_by_n, "6..9 x n, n <= 30 and every 5th": six_to_nine}
    for group, boards in groups.items():
        tally: collections.Counter = collections.Counter()
        bad: list = []
        n_boards = 0
        g0 = time.perf_counter()
        for rows, cols in boards(args.max):
            check(rows, cols, tally, bad)
            n_boards += 1
        starts = sum(tally.values())
        took = time.perf_counter() - g0
        print(f"{group}: {n_boards} boards, {starts} starts, {len(bad)} failed "
              f"{bad[:10]}, {took:.0f} s; {dict(tally)}", flush=True)  # fmt: skip
        rows_out.append({
            "job": f"open knight paths from every start, {group} (n <= {args.max})",
            "boards": n_boards, "starts": starts, "failed": len(bad),
            "failures": bad[:20], "by_method": dict(tally),
            "wall_seconds": round(took, 1),
        })  # fmt: skip
    wall, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"total {wall:.0f} s wall, {cpu_s:.0f} CPU s, load {load}")
    for row in rows_out:
        row.update(load=load, cpu=cpu, commit=commit(),
                   date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))  # fmt: skip
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows_out, fh, indent=1)
        print(f"written to {args.json}")


if __name__ == "__main__":
    main()
