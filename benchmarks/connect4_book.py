"""Connect Four's opening book: what it holds, how fast every column's score comes with it and
without it, and its entries checked by a re-solve and against Pascal Pons' solver.

Figures, in one run (CPU model, load and commit printed and written with them):

1. the book: depth, positions per layer (mirror images once), file size; with ``--build-json``
   (the ``--json`` of ``rompicapo game connect4 book build``) the CPU and wall seconds of each
   layer of its build;
2. all seven column scores (``solve_moves(..., analyse=True)``, the call behind ``rompicapo
   game connect4 analyze``, warm) and the playground's analysis of a move
   (`rompicapo.web.games.analyze`), with the book and with the search alone (``book=False``),
   alternated position by position on the same positions: the empty board and ``--sample``
   random positions of each number of stones the book answers (0 .. depth - 1). The search
   alone gets ``--nobook-sample`` of them, each within ``--nobook-time`` seconds (a position
   of few stones takes it minutes): how many it finished is printed beside its times;
3. ``--verify K`` entries re-solved by the search (``verify_book``), and, with ``--peers DIR``
   (``bash ../shared/peers/build.sh DIR``), ``--pons K`` entries
   of the deepest layer solved by Pons' ``c4bench`` (his solver, no opening book): compared,
   mismatches counted.

    python benchmarks/connect4_book.py --peers ../peers-build \
        --json benchmarks/results/connect4_book.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import commit, cpu_model, load_average, write_json

from rompicapo.games.connect4 import parse_position, solve_moves
from rompicapo.games.connect4_book import default_book, read_book
from rompicapo.games.connect4_book_build import verify_book


def load() -> float:
    return load_average()[0]


def random_positions(stones: int, n: int, rng: random.Random) -> list[str]:
    """``n`` random games of ``stones`` moves, none won on the way, distinct."""
    out: set[str] = set()
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        p = parse_position("")
        while p.count < stones and not p.over:
            child = p.play(rng.choice(p.playable_columns()))
            if child.won:
                break
            p = child
        if p.count == stones and not p.over:
            out.add(p.moves)
    return sorted(out)


def time_analysis(moves: str, book, time_limit: float | None) -> tuple[float, bool]:
    """Wall seconds of every column's score, and whether all seven came."""
    t0 = time.perf_counter()
    r = solve_moves(moves, analyse=True, book=book, time_limit=time_limit)
    return time.perf_counter() - t0, r.complete


def time_playground(moves: str, cap: float) -> tuple[float, int]:
    """Wall seconds of the playground's analysis of a move, and its exact columns."""
    from rompicapo.web.games import analyze

    t0 = time.perf_counter()
    d = analyze(moves, cap)
    return time.perf_counter() - t0, sum(c["state"] == "solved" for c in d["columns"])


def book_moves(book, stones_max: int) -> dict[int, str]:
    """A move string for each key of the book up to ``stones_max`` stones (plain replays)."""
    from rompicapo.games.connect4_book import book_key

    found: dict[int, str] = {}
    level = [""]
    for _ in range(stones_max + 1):
        nxt = []
        for m in level:
            p = parse_position(m)
            k = book_key(p.pos, p.mask)
            if k in found:
                continue
            found[k] = m
            if p.count < stones_max:
                nxt += [m + str(c) for c in p.playable_columns() if not p.play(c).won]
        level = nxt
    return found


_LINE = re.compile(r"^(\d*) exp=\S+ score=(-?\d+) nodes=(\d+) us=\d+ cpu_us=(\d+)")


def pons_scores(binary: Path, moves: list[str]) -> list[tuple[int, float]]:
    """Pons' score and CPU seconds for each position (his driver, no opening book)."""
    out = subprocess.run(
        [str(binary)],
        input="".join(f"{m}\n" for m in moves),
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [_LINE.match(line) for line in out.stdout.splitlines()]
    rows = [r for r in rows if r]
    if len(rows) != len(moves):
        raise RuntimeError(f"c4bench answered {len(rows)} of {len(moves)} positions")
    return [(int(r.group(2)), int(r.group(4)) / 1e6) for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", type=Path, help="a book file (default: the one shipped)")
    ap.add_argument("--build-json", type=Path, help="the --json of the book's build")
    ap.add_argument("--sample", type=int, default=100, help="random positions per depth")
    ap.add_argument("--nobook-sample", type=int, default=5, help="of them, searched alone")
    ap.add_argument("--nobook-time", type=float, default=20.0, help="seconds per search alone")
    ap.add_argument("--cap", type=float, default=0.3, help="the playground's time cap")
    ap.add_argument("--verify", type=int, default=20, help="entries re-solved by the search")
    ap.add_argument("--peers", type=Path, help="folder filled by ../shared/peers/build.sh")
    ap.add_argument("--pons", type=int, default=20, help="entries solved by Pons' solver")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    args = ap.parse_args()

    book = read_book(args.book) if args.book else default_book()
    if book is None:
        ap.error("no book: give --book FILE")
    rng = random.Random(args.seed)
    info = book.info()
    result: dict = {
        "cpu": cpu_model(),
        "commit": commit(),
        "load_start": load(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "book": {
            "depth": book.depth,
            "entries": book.entries,
            "layers": info.layers,
            "file_bytes": info.file_bytes,
            "sha256": info.sha256,
        },
    }
    print(f"CPU: {result['cpu']}; commit {result['commit']}; load {load():.2f} (2 cores shared)")
    print(f"book: depth {book.depth}, {book.entries:,} entries, {info.file_bytes:,} bytes")
    if args.build_json:
        build = json.loads(args.build_json.read_text())
        result["build"] = build["layers"]
        for s, row in build["layers"].items():
            print(
                f"  {int(s):2d} stones: {row['positions']:>7,} positions, "
                f"{row['cpu_seconds']:9.1f} s CPU, {row['wall_seconds']:9.1f} s wall "
                f"({row['how']})"
            )
    else:
        for s, n in info.layers.items():
            print(f"  {s:2d} stones: {n:>7,} positions")

    # warm both paths (kernel loaded, book read) before timing
    solve_moves("4455", analyse=True, book=book)
    solve_moves("4455", analyse=True, book=False)
    time_playground("4455", args.cap)

    print("\nall seven column scores, wall seconds (median; book / search alone):")
    print("| stones | n | book | playground | n alone | alone | alone finished | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    rows = []
    for stones in range(book.depth):
        positions = [""] if stones == 0 else random_positions(stones, args.sample, rng)
        alone_set = set(positions[: args.nobook_sample])
        with_book, web, alone, finished = [], [], [], 0
        for moves in positions:  # alternated: the book, the playground, the search alone
            t, complete = time_analysis(moves, book, None)
            assert complete
            with_book.append(t)
            t, exact = time_playground(moves, args.cap)
            assert exact == len(parse_position(moves).playable_columns())
            web.append(t)
            if moves in alone_set:
                t, complete = time_analysis(moves, False, args.nobook_time)
                alone.append(t)
                finished += complete
        b, w = statistics.median(with_book), statistics.median(web)
        a = statistics.median(alone) if alone else float("nan")
        row = {
            "stones": stones,
            "positions": len(positions),
            "book_s": b,
            "playground_s": w,
            "alone_positions": len(alone),
            "alone_s": a,
            "alone_finished": finished,
            "alone_time_limit_s": args.nobook_time,
            "runs_book_s": with_book,
            "runs_alone_s": alone,
            "load": load(),
        }
        rows.append(row)
        print(
            f"| {stones} | {len(positions)} | {b:.5f} | {w:.5f} | {len(alone)} | {a:.2f} "
            f"| {finished}/{len(alone)} | {'>= ' if finished < len(alone) else ''}{a / b:,.0f}x |",
            flush=True,
        )
    result["columns"] = rows

    if args.verify:
        v = verify_book(book, sample=min(args.verify, book.entries), seed=args.seed)
        result["verify"] = {
            "checked": v.checked,
            "mismatches": len(v.mismatches),
            "by_stones": v.by_stones,
            "cpu_seconds": v.cpu_seconds,
        }
        print(
            f"\nre-solved by the search: {v.checked} entries ({v.by_stones}), "
            f"{len(v.mismatches)} mismatches, {v.cpu_seconds:.1f} s CPU",
            flush=True,
        )
    if args.peers and args.pons:
        binary = args.peers / "c4bench"
        keys = book_moves(book, book.depth)
        deep = [k for k, m in keys.items() if len(m) == book.depth]
        picks = rng.sample(deep, min(args.pons, len(deep)))
        moves = [keys[k] for k in picks]
        theirs = pons_scores(binary, moves)
        ours = [book.score(m) for m in moves]
        bad = [(m, o, t) for m, o, (t, _) in zip(moves, ours, theirs, strict=True) if o != t]
        cpu_pons = sum(c for _, c in theirs)
        result["pons"] = {
            "compared": len(moves),
            "mismatches": len(bad),
            "cpu_seconds": cpu_pons,
            "positions": moves,
            "mismatched": bad,
        }
        print(
            f"compared with Pons' solver: {len(moves)} entries of "
            f"{book.depth} stones, {len(bad)} mismatches ({cpu_pons:.1f} s of his CPU)"
        )
    result["load_end"] = load()
    print(f"load average at end: {load():.2f}")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
