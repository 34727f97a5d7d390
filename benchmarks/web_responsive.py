"""The playground's responsiveness: latency idle and under load, and the first
Sudoku on a cold numba cache, old server and new side by side.

Each round starts ``rompicapo serve`` of each checkout in turn (``--old``: a checkout with its
venv, e.g. a release before the playground's worker processes; ``--new``: this one) on a free
port with ``--jobs 3`` and measures, alternating old and new:

1. idle: ``--gets`` GETs of a static file (``/static/style.css``) and ``--moves`` Connect Four
   move answers (``POST /api/games/connect4/move``, time cap 0.5 s, each a different random
   position of 8 to 12 moves: the same list for both servers);
2. the same while two Connect Four "who wins" jobs (the empty board and one move, 60 s) run;
3. with ``--cold``: the time from starting ``rompicapo serve`` with ``NUMBA_CACHE_DIR`` at an
   empty folder to the first Sudoku answer (the request sent as soon as the port answers, as
   a user clicking at once would).

Latencies are wall times seen by a client (p50 and p99, milliseconds); the machine is shared,
so the load and the CPU model are printed with them, and only figures of the same round are
compared.

    .venv/bin/python benchmarks/web_responsive.py --old /work/main --rounds 2 --cold 1
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from machine import ROOT, cpu_model


def positions(n: int, seed: int = 1) -> list[str]:
    """``n`` random positions of 8 to 12 moves, none over: early enough that the move's time
    cap matters, and all different (a server caches the positions it solved)."""
    import random

    from rompicapo.games.connect4 import parse_position

    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < n:
        moves, p = "", parse_position("")
        for _ in range(rng.randint(8, 12)):
            col = rng.choice(p.playable_columns())
            if p.play(col).won:
                break
            moves, p = moves + str(col), p.play(col)
        else:
            out.add(moves)
    return sorted(out)


EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``rompicapo serve`` of a checkout, with the page's tokens when it has them."""

    def __init__(self, checkout: Path, env: dict | None = None) -> None:
        self.checkout = checkout
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        exe = checkout / ".venv" / "bin" / "rompicapo"
        # each checkout compiles into a cache of its own (never into the checkout itself)
        tag = hashlib.sha1(str(checkout.resolve()).encode()).hexdigest()[:10]
        cache = Path(tempfile.gettempdir()) / f"rompicapo-bench-numba-{tag}"
        env = {"NUMBA_CACHE_DIR": str(cache), **(env or {})}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [str(exe), "serve", "--port", str(self.port), "--jobs", "3"],
            cwd=checkout, env={**os.environ, **env},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self.headers: dict[str, str] = {}

    def wait_listening(self, timeout: float = 120) -> None:
        t0 = time.monotonic()
        while True:
            try:
                html = urllib.request.urlopen(self.base + "/", timeout=5).read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() - t0 > timeout or self.proc.poll() is not None:
                    raise RuntimeError(f"{self.checkout}: the server did not start") from None
                time.sleep(0.05)
        found = dict(re.findall(r'<meta name="(csrf-token|owner-token)" content="([^"]+)"', html))
        if found:  # the new server: a page's tokens
            self.headers = {
                "X-CSRF-Token": found["csrf-token"],
                "X-Owner-Token": found["owner-token"],
            }

    def wait_warm(self, timeout: float = 900) -> None:
        """Until the server says it compiles nothing (the old server does not say)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            health = json.loads(urllib.request.urlopen(self.base + "/api/health").read())
            if not health.get("compiling"):
                return
            time.sleep(1)

    def new_page(self) -> Server:
        """The same server as another page (its own owner token, for the new server)."""
        other = object.__new__(Server)
        other.__dict__.update(self.__dict__)
        other.wait_listening()
        return other

    def post(self, path: str, body: dict, timeout: float = 120) -> dict:
        req = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **self.headers},
        )  # fmt: skip
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def get(self, path: str) -> None:
        req = urllib.request.Request(self.base + path, headers=self.headers)
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def timed(call, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def pct(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[min(len(values) - 1, round(0.99 * (len(values) - 1)))]


def solve_jobs(server: Server) -> list[tuple[Server, str]]:
    """Two Connect Four "who wins" jobs, each from its own page (the old server: its own tab)."""
    jobs = []
    for k, moves in enumerate(("", "4")):
        page = server.new_page()
        body = {"moves": moves, "time_limit": 60}
        if not page.headers:
            body["tab"] = f"bench-{k}"
        jobs.append((page, page.post("/api/games/connect4/solve", body)["id"]))
    return jobs


def latency_round(checkout: Path, gets: int, moves: int) -> dict[str, tuple[float, float]]:
    server = Server(checkout)
    todo = iter(positions(2 * moves + 1))

    def move() -> None:
        server.post("/api/games/connect4/move", {"moves": next(todo), "time_limit": 0.5})

    try:
        server.wait_listening()
        server.post(  # the kernels loaded (or compiled: minutes on a loaded machine)
            "/api/games/connect4/move", {"moves": next(todo), "time_limit": 0.5}, timeout=900
        )
        server.wait_warm()  # the new server: its start-up compilation done (steady state)
        time.sleep(2)
        out = {}
        out["static idle"] = pct(timed(lambda: server.get("/static/style.css"), gets))
        out["move idle"] = pct(timed(move, moves))
        jobs = solve_jobs(server)
        time.sleep(2)  # both searching
        out["static, 2 solves"] = pct(timed(lambda: server.get("/static/style.css"), gets))
        out["move, 2 solves"] = pct(timed(move, moves))
        for page, job in jobs:
            page.post(f"/api/jobs/{job}/stop", {})
        return out
    finally:
        server.stop()


def cold_start(checkout: Path) -> float:
    """Seconds from starting the server (empty numba cache) to the first Sudoku answer."""
    with tempfile.TemporaryDirectory(prefix="rompicapo-cold-") as cache:
        server = Server(checkout, env={"NUMBA_CACHE_DIR": cache})
        try:
            server.wait_listening()
            answer = server.post("/api/cover/sudoku/solve", {"puzzle": EASY}, timeout=600)
            assert answer["solutions"] == 1, answer
            seconds = time.perf_counter() - server.started
            if server.headers:  # the new server: how long each family's warm-up took
                t0 = time.monotonic()
                while time.monotonic() - t0 < 600:
                    health = json.loads(urllib.request.urlopen(server.base + "/api/health").read())
                    if not health["compiling"]:
                        break
                    time.sleep(1)
                print(f"  warm-ups on the cold cache, s: {health['warmed']}", flush=True)
            return seconds
        finally:
            server.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="the old checkout (with .venv)")
    ap.add_argument("--new", type=Path, default=ROOT, help="the new checkout (with .venv)")
    ap.add_argument("--rounds", type=int, default=2, help="latency rounds (old, new each)")
    ap.add_argument("--gets", type=int, default=100, help="static GETs per measure")
    ap.add_argument("--moves", type=int, default=15, help="move answers per measure")
    ap.add_argument("--cold", type=int, default=1, help="cold-cache starts of each")
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}; cores {os.cpu_count()}; load {os.getloadavg()[0]:.2f}")
    rows: dict[str, dict[str, list]] = {}
    for r in range(args.rounds):
        for name, checkout in (("old", args.old), ("new", args.new)):
            load = os.getloadavg()[0]
            for what, (p50, p99) in latency_round(checkout, args.gets, args.moves).items():
                rows.setdefault(what, {}).setdefault(name, []).append((p50, p99))
                print(f"round {r + 1} {name:3} {what:17} p50 {p50 * 1e3:8.1f} ms  "
                      f"p99 {p99 * 1e3:8.1f} ms  (load {load:.1f})", flush=True)  # fmt: skip
    print("\nmedians over rounds (p50 / p99, ms):")
    for what, by in rows.items():
        cells = []
        for name in ("old", "new"):
            p50 = statistics.median(x[0] for x in by[name]) * 1e3
            p99 = statistics.median(x[1] for x in by[name]) * 1e3
            cells.append(f"{name} {p50:7.1f} / {p99:7.1f}")
        print(f"  {what:17} " + "   ".join(cells))
    for k in range(args.cold):
        for name, checkout in (("old", args.old), ("new", args.new)):
            load = os.getloadavg()[0]
            seconds = cold_start(checkout)
            print(f"cold {k + 1} {name:3}: first Sudoku answer {seconds:.1f} s after "
                  f"'rompicapo serve' (load {load:.1f})", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
