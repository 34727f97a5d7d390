"""The generic search library side by side with OpenSpiel's Python algorithms.

- tic-tac-toe, full alpha-beta from the empty board: nodes, time, microseconds per node;
- Pig to 10, expectiminimax to depth 8 (players' plies; chance plies free, as OpenSpiel
  counts) with a constant evaluation, and our Star1 on the same tree;
- Nim (3, 5, 8), normal play: OpenSpiel's alpha_beta_search has no transposition table (not
  finished in 120 s); ours plain and with the Engine's table.

OpenSpiel (PyPI ``open-spiel``, a benchmark-only package) is imported if installed; otherwise
figures measured once on this kind of machine are printed in its place
(labelled as such, not side by side). Timings are medians of ``--repeat`` runs on a
shared 2-core machine (the load average is printed).

    .venv/bin/python benchmarks/games_vs_openspiel.py [--repeat 5] [--nim-timeout 30]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import time

from rompicapo.games import Engine, TicTacToe, alphabeta, expectiminimax, solve, star1
from rompicapo.games.impartial import Nim
from rompicapo.games.pig import Pig

# OpenSpiel measured once on this kind of machine (not side by side)
OPENSPIEL_MEASURED_ONCE = {"ttt_nodes": 18_297, "ttt_seconds": 0.2, "pig_seconds": 7.2}


def median_time(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


class ZeroEvalPig(Pig):
    def evaluate(self, state) -> float:
        return 0.5  # constant, like the OpenSpiel run: measures the search, not the heuristic


def openspiel_counts():
    """OpenSpiel's algorithms with a node counter wrapped around their recursive functions."""
    import pyspiel
    from open_spiel.python.algorithms import minimax

    counter = {"n": 0}
    ab, emm = minimax._alpha_beta, minimax.expectiminimax

    def counted_ab(*a, **k):
        counter["n"] += 1
        return ab(*a, **k)

    def counted_emm(*a, **k):
        counter["n"] += 1
        return emm(*a, **k)

    minimax._alpha_beta = counted_ab
    minimax.expectiminimax = counted_emm
    return pyspiel, minimax, counter


def _openspiel_nim(_):
    pyspiel, minimax, counter = openspiel_counts()
    game = pyspiel.load_game("nim", {"pile_sizes": "3;5;8", "is_misere": False})
    value, _ = minimax.alpha_beta_search(game, maximum_depth=100)
    return value, counter["n"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--nim-timeout", type=float, default=30.0)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores, shared)")
    try:
        pyspiel, minimax, counter = openspiel_counts()
    except ImportError:
        pyspiel = None
        print("open-spiel not installed: its column shows figures measured once")

    # ---- tic-tac-toe
    ttt = TicTacToe()
    t_ours, ours = median_time(lambda: alphabeta(ttt), args.repeat)
    t_eng, eng = median_time(lambda: Engine(ttt).search(), args.repeat)
    if pyspiel is not None:
        game = pyspiel.load_game("tic_tac_toe")

        def run():
            counter["n"] = 0
            return minimax.alpha_beta_search(game)

        t_os, _ = median_time(run, args.repeat)
        n_os = counter["n"]
    else:
        t_os, n_os = OPENSPIEL_MEASURED_ONCE["ttt_seconds"], OPENSPIEL_MEASURED_ONCE["ttt_nodes"]
    print("\ntic-tac-toe, alpha-beta from the empty board (value 0)")
    print(f"{'search':<34}{'nodes':>10}{'time':>10}{'us/node':>10}{'x faster':>10}")
    us_os = t_os / n_os * 1e6
    for name, n, t in [
        ("OpenSpiel alpha_beta_search", n_os, t_os),
        ("rompicapo alphabeta (plain)", ours.stats.nodes, t_ours),
        ("rompicapo Engine (TT+killers+hist)", eng.stats.nodes, t_eng),
    ]:
        print(f"{name:<34}{n:>10,}{t:>9.3f}s{t / n * 1e6:>10.2f}{us_os / (t / n * 1e6):>10.1f}")

    # ---- Pig to 10, depth 8
    pig = ZeroEvalPig(10)
    t_emm, emm = median_time(lambda: expectiminimax(pig, depth=8, count_chance=False), 1)
    t_s1, s1 = median_time(lambda: star1(pig, depth=8, count_chance=False), 1)
    print("\nPig to 10, expectiminimax depth 8 (players' plies), constant evaluation")
    rows = [
        ("rompicapo expectiminimax", emm.stats.nodes, t_emm, emm.value),
        ("rompicapo Star1", s1.stats.nodes, t_s1, s1.value),
    ]
    if pyspiel is not None:
        pgame = pyspiel.load_game("pig", {"winscore": 10})
        counter["n"] = 0
        t0 = time.perf_counter()
        v, _ = minimax.expectiminimax(pgame.new_initial_state(), 8, lambda s: 0.0, 0)
        rows.insert(0, ("OpenSpiel expectiminimax", counter["n"], time.perf_counter() - t0, v))
    else:
        once = OPENSPIEL_MEASURED_ONCE["pig_seconds"]
        rows.insert(0, ("OpenSpiel (measured once)", 0, once, None))
    print(f"{'search':<34}{'nodes':>12}{'time':>10}{'us/node':>10}")
    for name, n, t, _v in rows:
        per = f"{t / n * 1e6:>10.2f}" if n else f"{'':>10}"
        print(f"{name:<34}{n:>12,}{t:>9.3f}s{per}")
    print("(OpenSpiel's Pig differs in detail: it may hold a turn total of 0 and values are")
    print(" returns in [-1, 1]; the trees are of the same kind, not identical)")

    # ---- Nim (3, 5, 8)
    print("\nNim (3,5,8), normal play, exact value")
    nim = Nim((3, 5, 8))
    for name, fn in [
        ("rompicapo Engine (TT)", lambda: Engine(nim).search()),
        ("rompicapo solve (memo)", lambda: solve(nim)),
    ]:
        t, out = median_time(fn, args.repeat)
        print(f"{name:<34}{out.stats.nodes:>12,}{t:>9.3f}s  value {out.value:+g}")
    if pyspiel is not None:
        ctx = mp.get_context("spawn")
        with ctx.Pool(1) as pool:
            t0 = time.perf_counter()
            res = pool.apply_async(_openspiel_nim, (None,))
            try:
                v, n = res.get(timeout=args.nim_timeout)
                print(
                    f"{'OpenSpiel alpha_beta_search':<34}{n:>12,}{time.perf_counter() - t0:>9.3f}s"
                )
            except mp.TimeoutError:
                print(
                    f"{'OpenSpiel alpha_beta_search':<34}{'-':>12}  not finished in "
                    f"{args.nim_timeout:.0f} s (OpenSpiel measured once: not in 120 s)"
                )
                pool.terminate()
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
