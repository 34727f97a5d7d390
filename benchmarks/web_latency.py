"""The playground's figures: Connect Four answer latency, path-map tile time, memory.

1. Connect Four: the latency of the games page's analysis request (every column's score, under
   the default time cap) over the positions of Pascal Pons' Begin-Medium set
   (``../shared/data/connect4/Test_L1_R2``), median and p99, with how many positions had all
   their columns solved within the cap; beside it the uncapped analysis (every column solved
   exactly, ``Connect4Solver.analyze``) of the same positions, wall and CPU.
2. Path map: one 256x256 tile of the 10^6 x 10^6 board at several zooms, through HTTP (wall) and
   rendered directly (wall and CPU of the rendering thread).
3. Memory: the server's RSS after a warm-up, then after ``--requests`` requests of each kind
   (analysis, computer move, tile, cell, step, window, hint, Nim, tic-tac-toe): growth in %.

The app runs in this process under Starlette's test client (the server's memory is this
process's and its worker processes'). The analysis runs in a worker process, so the
analysis "CPU" column is this process's (the request's handling), not the search's; the
wall times are the figures. The machine is shared: the load and the CPU model are printed.

    /work/venv/bin/python benchmarks/web_latency.py                     # 200 positions
    /work/venv/bin/python benchmarks/web_latency.py --full 0 --requests 0   # latency only
    /work/venv/bin/python benchmarks/web_latency.py --positions 1000 --requests 1000

Measured here (2026-12-01, AMD EPYC, 2 cores, load 13 from other runs): analysis request
with the default 80 ms cap, 200 positions: median 99 ms wall / 39 ms CPU, p99 127 ms wall /
51 ms CPU; every column exact in 12/200 positions (477/1395 columns), every column's outcome
(win/draw/loss) known in 34/200 (600/1395 columns). Uncapped exact analysis of 10 of them
(``--full 10``): median 1.3 s CPU, p99 53 s CPU: the Begin-Medium positions (6 to 14 moves
played) are far from "every score in 100 ms" on this machine. Tiles: median render CPU 5-16 ms
at every zoom, p99 <= 16.8 ms; HTTP wall 28-45 ms under that load. RSS 199.6 -> 199.8 MiB over
9,000 requests (+0.1%).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from machine import cpu_model

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "connect4" / "Test_L1_R2"
BIG = {"rows": 1_000_000, "cols": 1_000_000}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q / 100 * (len(values) - 1)))]


def ms(x: float) -> str:
    return f"{x * 1e3:.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="Begin-Medium positions timed")
    ap.add_argument("--full", type=int, default=10, help="of them, solved uncapped too")
    ap.add_argument("--requests", type=int, default=1000, help="requests of each kind (memory)")
    ap.add_argument("--tiles", type=int, default=30, help="tiles per zoom")
    args = ap.parse_args()
    if not DATA.is_file():
        print(f"web_latency: needs Pons' Begin-Medium set at {DATA} (../shared)", file=sys.stderr)
        return 2

    import psutil
    from starlette.testclient import TestClient

    from rompicapo.games.connect4 import Connect4Solver, read_test_set
    from rompicapo.web import create_app
    from rompicapo.web.games import C4_TIME_CAP
    from rompicapo.web.paths import Board, render_tile

    print(f"CPU: {cpu_model()}; cores {os.cpu_count()}; load at start {load()}")
    positions = [m for m, _ in read_test_set(DATA)]
    rng = random.Random(14)
    rng.shuffle(positions)
    positions = positions[: args.positions]
    proc = psutil.Process()

    app = create_app(jobs=2, port=8765)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        # the page's tokens: every POST carries them
        html = client.get("/").text
        for name, header in (("csrf-token", "X-CSRF-Token"), ("owner-token", "X-Owner-Token")):
            token = html.split(f'<meta name="{name}" content="', 1)[1].split('"', 1)[0]
            client.headers[header] = token
        # warm-up: the solver's table and kernels, the block table, the tile code
        t0 = time.perf_counter()
        client.post("/api/games/connect4/analyze", json={"moves": "4444"})
        handle = client.post("/api/paths/board", json=BIG).json()["board"]
        BOARD = {"board": handle}
        TILE = {"b": handle}
        client.get("/api/paths/tile", params={**TILE, "z": 0, "x": 0, "y": 0})
        print(f"warm-up (compile or load the kernels): {time.perf_counter() - t0:.1f} s")

        # 1. Connect Four
        walls, cpus, solved_all, solved_cols, outcome_all, outcome_cols = [], [], 0, 0, 0, 0
        for moves in positions:
            # process CPU: the server's threads and the client's (idle but for the request)
            t, c = time.perf_counter(), time.process_time()
            d = client.post("/api/games/connect4/analyze", json={"moves": moves}).json()
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            states = [c["state"] for c in d["columns"]]
            solved_cols += sum(s == "solved" for s in states)
            solved_all += all(s in ("solved", "full") for s in states)
            outcome_cols += sum(s in ("solved", "weak") for s in states)
            outcome_all += all(s in ("solved", "weak", "full") for s in states)
        playable = sum(len([c for c in range(1, 8) if m.count(str(c)) < 6]) for m in positions)
        print(
            f"\nConnect Four analysis request, {len(positions)} Begin-Medium positions, "
            f"default cap {C4_TIME_CAP * 1e3:.0f} ms (load {load()}):"
        )
        print(
            f"  median {ms(statistics.median(walls))} wall / {ms(statistics.median(cpus))} CPU, "
            f"p99 {ms(pct(walls, 99))} wall / {ms(pct(cpus, 99))} CPU; "
            f"{solved_all}/{len(positions)} positions with every column's exact score, "
            f"{solved_cols}/{playable} columns exact; outcome (win/draw/loss) known for "
            f"every column in {outcome_all}/{len(positions)} positions, "
            f"{outcome_cols}/{playable} columns"
        )
        fw, fc = [], []
        solver = Connect4Solver(table_log2=21) if args.full else None
        for moves in positions[: args.full]:
            t, c = time.perf_counter(), time.thread_time()
            solver.analyze(moves)
            fw.append(time.perf_counter() - t)
            fc.append(time.thread_time() - c)
        if fw:
            print(
                f"  uncapped analysis (all 7 columns exact), {len(fw)} positions: median "
                f"{ms(statistics.median(fw))} wall / {ms(statistics.median(fc))} CPU, p99 "
                f"{ms(pct(fw, 99))} wall / {ms(pct(fc, 99))} CPU"
            )
        del solver

        # 2. tiles
        board = Board(10**6, 10**6, (0, 0), "blocks")
        print(f"\nTiles 256x256 of the 10^6 x 10^6 board (load {load()}):")
        print(f"  {'zoom':>5} {'px per cell':>12} {'HTTP wall':>10} {'render wall':>12} "
              f"{'render CPU':>11} {'p99 CPU':>9}")  # fmt: skip
        for z in (-12, -8, -4, 0, 3, 6):
            extent = max(1, int(10**6 * 2.0**z) // 256)
            http, wall, cpu = [], [], []
            for _ in range(args.tiles):
                x, y = rng.randrange(extent), rng.randrange(extent)
                t = time.perf_counter()
                r = client.get("/api/paths/tile", params={**TILE, "z": z, "x": x, "y": y})
                http.append(time.perf_counter() - t)
                assert r.status_code == 200
                t, c = time.perf_counter(), time.thread_time()
                render_tile(board, z, x, y)
                wall.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - c)
            scale = f"{2.0**z:g}"
            print(
                f"  {z:>5} {scale:>12} {ms(statistics.median(http)):>10} "
                f"{ms(statistics.median(wall)):>12} {ms(statistics.median(cpu)):>11} "
                f"{ms(pct(cpu, 99)):>9}"
            )

        # 3. memory
        def kinds(i: int):
            moves = positions[i % len(positions)]
            step = rng.randrange(1, 10**12)
            r, c = rng.randrange(10**6), rng.randrange(10**6)
            z = rng.choice((-12, -6, 0, 4))
            extent = max(1, int(10**6 * 2.0**z) // 256)
            return [
                ("post", "/api/games/connect4/analyze", {"moves": moves, "time_limit": 0.01}),
                ("post", "/api/games/connect4/move", {"moves": moves, "time_limit": 0.01}),
                ("get", "/api/paths/tile",
                 {**TILE, "z": z, "x": rng.randrange(extent), "y": rng.randrange(extent)}),
                ("post", "/api/paths/cell", {**BOARD, "step": step}),
                ("post", "/api/paths/step", {**BOARD, "r": r, "c": c}),
                ("post", "/api/paths/window", {**BOARD, "r0": r, "c0": c, "h": 30, "w": 30}),
                ("post", "/api/paths/prefix",
                 {"rows": 10, "cols": 10, "prefix": [[0, 0], [0, 3]], "time_limit": 0.2}),
                ("post", "/api/games/nim", {"heaps": [i % 9, 5, 8, i % 13]}),
                ("post", "/api/games/tictactoe/analyze", {"moves": [i % 9]}),
            ]  # fmt: skip

        def burst(n: int) -> float:
            t = time.perf_counter()
            for i in range(n):
                for method, url, data in kinds(i):
                    if method == "get":
                        resp = client.get(url, params=data)
                    else:
                        resp = client.post(url, json=data)
                    assert resp.status_code == 200, (url, resp.text[:200])
            return time.perf_counter() - t

        if args.requests <= 0:
            print(f"load at the end {load()}")
            return 0

        def rss() -> int:  # the server and its worker processes
            return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)])

        burst(min(200, args.requests))
        before = rss()
        seconds = burst(args.requests)
        after = rss()
        n_kinds = len(kinds(0))
        print(
            f"\nMemory: RSS {before / 2**20:.1f} MiB after a warm-up of "
            f"{min(200, args.requests)} requests of each of {n_kinds} kinds; "
            f"{after / 2**20:.1f} MiB after {args.requests} more of each "
            f"({args.requests * n_kinds:,} requests, {seconds:.0f} s): growth "
            f"{(after - before) / before * 100:+.1f}% (target < 10%)"
        )
    print(f"load at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
