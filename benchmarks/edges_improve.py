"""The improver on Eternity II: what 30 s of ``improve`` add to the best board of a 20 s search.

For each seed, Blackwood's search (centre clue, one thread) runs for ``--solve-seconds``; its
best partial board (the last cells of its fill order empty) is handed to the improver for
``--polish-seconds`` on one thread. Two improvers run on the same boards, one after the
other, each in its own process: the one of ``--baseline`` (a git revision, default ``main``,
exported to a temporary folder) and the one of this checkout. The gain is the article's count:
the final score minus the partial board's (a published ALNS took a 454 partial board, 8 empty
cells, to 462 in 30 s: +8); the gain over the same board completed greedily
(``blackwood.complete_board``, what ``solve`` prints) is given beside it.

    python benchmarks/edges_improve.py                  # 3 x 20 s + 2 x 3 x 30 s, ~5 min
    python benchmarks/edges_improve.py --baseline none \
        --boards benchmarks/results/edges_improve.json  # this checkout on the stored boards

``--brendan`` runs the other figure instead: Brendan Owen's sets with a share of their
solution's cells emptied, completed by the improver beside Blackwood's search.
``--boards FILE`` reuses the boards of an earlier run (its JSON) instead of searching again.
Wall-clock runs on a shared machine: the load and the CPU model are printed and stored with
the figures; only the two improvers measured side by side in one run compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import commit, cpu_model, load_average

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "edges_improve.json"
TARGET_GAIN = 8  # the published ALNS: 454 -> 462 in 30 s
ARTICLE = (454, 462)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in load_average())


# --------------------------------------------------------------------------------------------
# Boards: the best partial board of a short search per seed
# --------------------------------------------------------------------------------------------


def make_boards(seeds: int, solve_s: float) -> list[dict]:
    from rompicapo.edges.blackwood import complete_board, search
    from rompicapo.edges.puzzle import eternity2, eternity2_clues, score

    puzzle, clues = eternity2(), eternity2_clues("centre")
    search(puzzle, clues, time_limit=None, node_limit=1000)  # compile outside the timings
    boards = []
    for seed in range(seeds):
        res = search(puzzle, clues, time_limit=solve_s, seed=seed)
        assert res.partial is not None
        boards.append(
            {
                "seed": seed,
                "score": score(res.partial, puzzle),
                "empty": puzzle.rows * puzzle.cols - res.partial.n_placed,
                "greedy": score(complete_board(res.partial, puzzle, clues), puzzle),
                "placements": [list(map(int, p)) for p in res.partial.placements()],
            }
        )
        b = boards[-1]
        print(f"  seed {seed}: partial board {b['score']} ({b['empty']} empty), {b['greedy']} "
              "completed greedily")  # fmt: skip
    return boards


# --------------------------------------------------------------------------------------------
# One improver on every board (run in a process of its own, its package on PYTHONPATH)
# --------------------------------------------------------------------------------------------


def run_improver(boards_file: str, polish_s: float) -> None:
    """The worker: improve each board, print one JSON line per board."""
    import rompicapo
    from rompicapo.edges.generate import generate
    from rompicapo.edges.improve import improve
    from rompicapo.edges.puzzle import Board, eternity2, eternity2_clues

    puzzle, clues = eternity2(), eternity2_clues("centre")
    small, solution = generate(5, 5, frame_colours=2, inner_colours=3, seed=1)
    holes = solution.copy()
    holes.piece[1:4, 1:4] = -1
    improve(holes, small, time_limit=None, node_limit=50, seed=0)  # compile outside the timings
    for spec in json.loads(Path(boards_file).read_text()):
        board = Board.empty(16, 16)
        for r, c, k, rot in spec["placements"]:
            board.piece[r, c], board.rotation[r, c] = k, rot
        t = time.process_time()
        res = improve(board, puzzle, time_limit=polish_s, seed=spec["seed"], clues=clues)
        cpu = time.process_time() - t
        d = res.to_dict()
        line = {
            "seed": spec["seed"],
            "package": str(Path(rompicapo.__file__).parent),
            "before": res.score_before,
            "completed": res.score_completed,
            "at_10": res.score_at(10),
            "after": res.score_after,
            "gain": res.gain,
            "iterations": res.iterations,
            "cpu_seconds": round(cpu, 2),
            "verified": res.verify(),
            "operators": d.get("operators", {}),
            "acceptance": d.get("acceptance"),
        }
        print(json.dumps(line), flush=True)


def export_revision(rev: str, into: Path) -> Path:
    """The ``rompicapo`` package of git revision ``rev``, unpacked under ``into``."""
    archive = into / "rev.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "rompicapo"], stdout=out, check=True
        )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def improver_runs(package_root: Path, boards_file: Path, polish_s: float) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        str(boards_file),
        "--polish-seconds",
        str(polish_s),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"the improver of {package_root} failed")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def summary(name: str, boards: list[dict], runs: list[dict]) -> dict:
    gains = [r["gain"] for r in runs]
    over_greedy = [r["after"] - b["greedy"] for b, r in zip(boards, runs, strict=True)]
    return {
        "improver": name,
        "median_gain": statistics.median(gains),
        "median_gain_over_greedy": statistics.median(over_greedy),
        "gains": gains,
        "gains_over_greedy": over_greedy,
        "finals": [r["after"] for r in runs],
        "runs": runs,
    }


def print_table(boards: list[dict], results: list[dict], polish_s: float) -> None:
    print(
        "\n| improver | seed | partial (empty) | greedy | holes filled | +10 s | "
        f"+{polish_s:g} s | gain | over greedy | repairs | CPU s | verified |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for res in results:
        for b, r in zip(boards, res["runs"], strict=True):
            print(
                f"| {res['improver']} | {b['seed']} | {b['score']} ({b['empty']}) | "
                f"{b['greedy']} | {r['completed']} | {r['at_10']} | {r['after']} | "
                f"{r['gain']:+d} | {r['after'] - b['greedy']:+d} | {r['iterations']:,} | "
                f"{r['cpu_seconds']:.1f} | {r['verified']} |"
            )
    print(
        f"\n| improver | median gain in {polish_s:g} s | over the greedy completion | reference |"
    )
    print("|---|---:|---:|---|")
    for res in results:
        print(
            f"| {res['improver']} | {res['median_gain']:+g} | "
            f"{res['median_gain_over_greedy']:+g} | target +{TARGET_GAIN} "
            f"(published ALNS {ARTICLE[0]} -> {ARTICLE[1]}) |"
        )


# --------------------------------------------------------------------------------------------
# Brendan Owen's sets with cells emptied (--brendan): completion, beside the solver
# --------------------------------------------------------------------------------------------

DATA = ROOT / ".." / "shared" / "data" / "eternity2" / "benchmarks"
BRENDAN = ["brendan_06x06", "brendan_08x08", "brendan_10x10", "brendan_12x12", "brendan_16x16"]


def brendan(seeds: int, limit: float, fractions: list[float]) -> None:
    """The improver completes boards with a share of their solution's cells emptied, side by
    side with Blackwood's search given the kept cells as clues, both for at most ``limit`` s."""
    import numpy as np

    from rompicapo.edges.blackwood import search
    from rompicapo.edges.improve import improve
    from rompicapo.edges.puzzle import load_board, load_pieces

    print(f"## Brendan's sets, random cells emptied: improver vs the solver, at most {limit:g} s\n")
    print("| set | emptied | seed | start | holes filled | improver: final (s) | "
          "solver with the rest pinned: final (s) | verified |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in BRENDAN:
        puzzle = load_pieces(DATA / f"{name}_pieces.txt")
        solution = load_board(DATA / f"{name}_solution.txt", puzzle)
        for frac in fractions:
            for seed in range(seeds):
                partial = solution.copy()
                rng = np.random.default_rng(seed)
                partial.piece[rng.random((puzzle.rows, puzzle.cols)) < frac] = -1
                imp = improve(partial, puzzle, time_limit=limit, seed=seed)
                t_imp = imp.history[-1][0] if imp.solved else imp.solve_seconds
                ref = search(puzzle, partial, time_limit=limit, seed=seed)
                print(
                    f"| {name} | {frac:.0%} ({puzzle.rows * puzzle.cols - partial.n_placed}) | "
                    f"{seed} | {imp.score_before} | {imp.score_completed} | "
                    f"{imp.score_after}/{puzzle.n_joints} ({t_imp:.2f}) | "
                    f"{ref.score}/{puzzle.n_joints} ({ref.solve_seconds:.2f}) | "
                    f"{imp.verify() and ref.verify()} |"
                )
    print(f"\nload after: {load()}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--solve-seconds", type=float, default=20.0)
    ap.add_argument("--polish-seconds", type=float, default=30.0)
    ap.add_argument("--baseline", default="main", help="git revision to compare with ('none')")
    ap.add_argument("--boards", default=None, help="reuse the boards of this results file")
    ap.add_argument("--json", default=str(RESULTS), help="where the results go")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument(
        "--brendan",
        action="store_true",
        help="instead: complete Brendan's sets with cells emptied (needs ../shared)",
    )
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per Brendan run")
    ap.add_argument("--fractions", default="0.5,0.9,1", help="shares of cells emptied")
    args = ap.parse_args()
    if args.worker:
        run_improver(args.worker, args.polish_seconds)
        return
    if args.brendan:
        if not DATA.is_dir():
            sys.exit("needs ../shared/data/eternity2/benchmarks beside the clone; not found")
        brendan(1, args.limit, [float(x) for x in args.fractions.split(",")])
        return
    print(f"CPU: {cpu_model()}; commit {commit()}; load before: {load()}")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.boards:
        boards = json.loads(Path(args.boards).read_text())["boards"]
        print(f"boards from {args.boards}")
    else:
        print(f"boards: {args.seeds} searches of {args.solve_seconds:g} s (one thread)")
        boards = make_boards(args.seeds, args.solve_seconds)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        boards_file = Path(tmp) / "boards.json"
        boards_file.write_text(json.dumps(boards))
        if args.baseline != "none":
            package = export_revision(args.baseline, Path(tmp))
            runs = improver_runs(package, boards_file, args.polish_seconds)
            results.append(summary(args.baseline, boards, runs))
        runs = improver_runs(ROOT, boards_file, args.polish_seconds)
        results.append(summary(f"this checkout ({commit()})", boards, runs))
    after = load()
    print_table(boards, results, args.polish_seconds)
    print(f"\nload after: {after}")
    record = {
        "job": f"Eternity II, centre clue: the best board of a {args.solve_seconds:g} s search, "
        f"then {args.polish_seconds:g} s of improve (1 thread)",
        "date": started,
        "cpu": cpu_model(),
        "commit": commit(),
        "load_after": after,
        "boards": boards,
        "results": results,
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    print(f"written to {args.json}")


if __name__ == "__main__":
    main()
