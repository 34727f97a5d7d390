"""Open knight paths from every start on narrow boards: how many starts fail.

``construct(method="auto")`` from every cell of R x n and n x R: on boards with both sides odd
a start off the colour of (0, 0) must be refused with the colouring argument, every other
start must give a path the independent verifier accepts. 5 x n and n x 5 for every n in
5..``--max`` (default 100); 6..9 x n for n in 5..30 and every 5th n up to ``--max``.

3 x n and 4 x n (and n x 3, n x 4) for every n in 3..``--narrow-max``, and ``--long`` lengths
(every start, one orientation): here some starts have no path, so a start fails when it gets
neither a verified path nor "impossible" with a proof; the impossible starts are tallied by
their proof (colour, Pósa's 4 x n argument, the column-profile search) and listed.

    python benchmarks/paths_narrow.py [--max 100] [--groups wide,narrow,long]
        [--narrow-max 60] [--long 100,1000,2000] [--time SECONDS]
        [--json benchmarks/results/paths_narrow.json]

``--time`` is each construct call's time limit (to measure code that can search for ever).
``--json`` replaces the file's rows of the groups run and keeps the others.

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


def three_four(top: int):
    for n in range(3, top + 1):
        for rows in (3, 4):
            yield rows, n
            if n != rows:
                yield n, rows


def long_three_four(lengths: list[int]):
    for n in lengths:
        yield 3, n
        yield 4, n


def proof_kind(proof: str) -> str:
    for word, kind in (("Pósa", "Pósa"), ("colour", "colour"), ("column profiles", "profile"),
                       ("exhaustive", "exhaustive"), ("neighbour", "structure"),
                       ("reached", "structure")):  # fmt: skip
        if word in proof:
            return kind
    return "other"


def check_any(rows, cols, tally, bad, impossible, time_limit):
    """Every start: a verified path or "impossible" with a proof (the boards where some starts
    have no path at all)."""
    for r in range(rows):
        for c in range(cols):
            res = construct(rows, cols, start=(r, c), moves="knight", method="auto", jobs=1,
                            time_limit=time_limit)  # fmt: skip
            if res.status == "impossible" and res.proof:
                kind = proof_kind(res.proof)
                tally[f"impossible ({kind})"] += 1
                impossible.setdefault(f"{rows}x{cols}", {}).setdefault(kind, []).append((r, c))
            elif res.found and bool(verify_path(res.path, rows, cols, "knight", start=(r, c))):
                tally[res.method] += 1
            else:
                tally[res.status] += 1
                bad.append((rows, cols, r, c, res.status))


def check(rows: int, cols: int, tally: collections.Counter, bad: list, time_limit=None) -> None:
    odd = rows % 2 and cols % 2
    for r in range(rows):
        for c in range(cols):
            res = construct(rows, cols, start=(r, c), moves="knight", method="auto", jobs=1,
                            time_limit=time_limit)  # fmt: skip
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
    ap.add_argument(
        "--groups",
        default="wide,narrow,long",
        help="comma-separated: wide (5..9 x n), narrow (3, 4 x n), long",
    )
    ap.add_argument("--narrow-max", type=int, default=60)
    ap.add_argument("--long", default="100,1000,2000", help="lengths of 3 x n and 4 x n")
    ap.add_argument("--time", type=float, default=None, help="time limit per construct call")
    ap.add_argument("--json", help="write the summary to this file")
    args = ap.parse_args()
    chosen = set(args.groups.split(","))
    cpu = cpu_model()
    print(f"CPU: {cpu}, {os.cpu_count()} cores; load average {os.getloadavg()}")
    t0, c0 = time.perf_counter(), time.process_time()
    rows_out = []
    lengths = [int(x) for x in args.long.split(",") if x]
    groups = {}
    if "wide" in chosen:
        groups[f"5 x n and n x 5, every n (n <= {args.max})"] = (five_by_n(args.max), check)
        groups[f"6..9 x n, n <= 30 and every 5th (n <= {args.max})"] = (
            six_to_nine(args.max), check)  # fmt: skip
    if "narrow" in chosen:
        groups[f"3 x n, 4 x n, n x 3, n x 4, every n in 3..{args.narrow_max}"] = (
            three_four(args.narrow_max), check_any)  # fmt: skip
    if "long" in chosen:
        groups[f"3 x n and 4 x n, n in {lengths}"] = (long_three_four(lengths), check_any)
    for group, (boards, checker) in groups.items():
        tally: collections.Counter = collections.Counter()
        bad: list = []
        impossible: dict = {}
        n_boards = 0
        g0 = time.perf_counter()
        for rows, cols in boards:
            if checker is check_any:
                checker(rows, cols, tally, bad, impossible, args.time)
            else:
                checker(rows, cols, tally, bad, args.time)
            n_boards += 1
        starts = sum(tally.values())
        took = time.perf_counter() - g0
        print(f"{group}: {n_boards} boards, {starts} starts, {len(bad)} failed "
              f"{bad[:10]}, {took:.0f} s; {dict(tally)}", flush=True)  # fmt: skip
        row = {
            "job": f"open knight paths from every start, {group}",
            "boards": n_boards, "starts": starts, "failed": len(bad),
            "failures": bad[:20], "by_method": dict(tally),
            "wall_seconds": round(took, 1),
        }  # fmt: skip
        if args.time is not None:
            row["time_limit"] = args.time
        if checker is check_any:
            # the starts with no path that only the exhaustive programme shows (colour and
            # Pósa's cases are whole colour classes and middle rows: counted, not listed)
            row["impossible_by_profile"] = {
                board: kinds["profile"] for board, kinds in impossible.items() if "profile" in kinds
            }
            for kind in ("colour", "Pósa"):
                boards_k = [b for b, kinds in impossible.items() if kind in kinds]
                if boards_k:
                    print(f"  impossible ({kind}) on {len(boards_k)} boards")
            for board, starts_b in row["impossible_by_profile"].items():
                print(f"  {board} no path (profile proof) from {starts_b}")
        rows_out.append(row)
    wall, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"total {wall:.0f} s wall, {cpu_s:.0f} CPU s, load {load}")
    for row in rows_out:
        row.update(load=load, cpu=cpu, commit=commit(),
                   date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))  # fmt: skip
    if args.json:
        jobs = {row["job"] for row in rows_out}
        try:
            with open(args.json) as fh:
                kept = [row for row in json.load(fh) if row["job"] not in jobs]
        except (OSError, ValueError):
            kept = []
        with open(args.json, "w") as fh:
            json.dump(kept + rows_out, fh, indent=1)
        print(f"written to {args.json}")


if __name__ == "__main__":
    main()
