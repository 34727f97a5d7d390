"""The first command of every family from an installed wheel: seconds cold and warm.

usage: python benchmarks/first_run.py [--wheel WHEEL] [--rounds N] [--without-shipped]

Installs the wheel (default: one built here, with the shipped kernels compiled first, as .ci/run
builds it) into a fresh venv in a temporary folder, then runs each family's first command (the
README's) through the installed ``rompicapo`` script: *cold* (an empty ``NUMBA_CACHE_DIR`` and
rompicapo cache folder: a newcomer's first run) then *warm* (the same folders again), command
after command, round after round, so that the load of a shared machine falls on both alike.
``--without-shipped`` adds a cold run with the shipped kernels turned off
(``ROMPICAPO_SHIPPED_KERNELS=0``: numba compiles everything, as before they were shipped).
Prints wall-clock and CPU seconds (the process and its children), the load and the CPU model,
and writes benchmarks/results/first_run.json.

Measured 2026-12-02 (AMD EPYC, 2 cores, load 0.1-1.4, commit 4097ca8; median of 3 rounds,
wall / CPU seconds; benchmarks/results/first_run.json). "shipped cold" is a newcomer's first
run from the wheel (empty caches), "warm" the second, "compiled cold" the same wheel with the
shipped kernels off (what every first run paid before they were shipped):

    command                        shipped cold   warm        compiled cold
    path 10                        0.5 / 0.6      0.5 / 0.6   1.5 / 1.6
    count 5x7 --start 2,3          0.6 / 0.7      0.6 / 0.7   3.5 / 3.5
    sudoku solve (README's)        0.5 / 0.6      0.5 / 0.6   1.2 / 1.3
    queens 10                      0.5 / 0.6      0.5 / 0.6   2.7 / 2.8
    game connect4 solve 4455       0.9 / 0.9      0.7 / 0.8   7.5 / 7.7
    edges solve eternity2 --time 5 5.1 / 5.1      4.8 / 4.8   4.8 / 4.8

A cold run costs what a warm one does; what is left is Python's start and the imports. On a
loaded machine (load 5-10, the same day) the same runs took 1.7-4.2 s cold and 2.3-4.1 s warm:
the load stretches both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import commit, cpu_model, load_average

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rompicapo.warmup import FIRST_COMMANDS as FIRST

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("wall", "cpu")


def _label(argv) -> str:
    """The command as shown: long arguments (a puzzle) cut short."""
    return " ".join(a if len(a) <= 12 else a[:8] + "..." for a in argv)


def build_wheel(out: Path) -> Path:
    """The shipped kernels compiled, then the wheel built from the checkout (.ci/run's way)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "rompicapo.common.jit", "build"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                    str(out), "."], cwd=ROOT, check=True, capture_output=True)  # fmt: skip
    (wheel,) = out.glob("rompicapo-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A fresh venv with the wheel installed: its ``rompicapo`` script."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True,
                   capture_output=True)  # fmt: skip
    return venv / "bin" / "rompicapo"


def timed(exe: Path, argv: list[str], env: dict, cwd: Path) -> dict:
    """One run: wall and CPU seconds (user + system of the child), exit status, and whether it
    printed the compilation notice."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([str(exe), *argv], env=env, cwd=cwd, capture_output=True, text=True,
                       timeout=1800)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall": round(wall, 2),
        "cpu": round(cpu, 2),
        "status": p.returncode,
        "compiled": "compiling the" in p.stderr,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--without-shipped", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/first_run.json")
    args = parser.parse_args()
    modes = ["cold", "warm"] + (["compiled cold"] if args.without_shipped else [])
    load0 = load_average()
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="rompicapo-first-run-") as tmp:
        tmp_path = Path(tmp)
        wheel = args.wheel or build_wheel(tmp_path / "dist")
        exe = install(wheel, tmp_path / "venv")
        print(f"{wheel.name} in {tmp_path / 'venv'}; CPU {cpu_model()}, load {load0}")
        for r in range(args.rounds):
            for argv in FIRST:
                caches = Path(tempfile.mkdtemp(prefix="caches-", dir=tmp))
                for mode in modes:
                    if mode == "compiled cold":  # a cache of its own, shipped kernels off
                        caches = Path(tempfile.mkdtemp(prefix="caches-", dir=tmp))
                    env = dict(os.environ, NUMBA_CACHE_DIR=str(caches / "numba"),
                               ROMPICAPO_CACHE_DIR=str(caches / "rompicapo"),
                               HOME=str(caches))  # fmt: skip
                    env.pop("PYTHONPATH", None)
                    if mode == "compiled cold":
                        env["ROMPICAPO_SHIPPED_KERNELS"] = "0"
                    out = timed(exe, argv, env, caches)
                    out.update(command=_label(argv), mode=mode, round=r)
                    out["load"] = os.getloadavg()[0]
                    runs.append(out)
                    print(f"r{r} {mode:13} {_label(argv):32} wall {out['wall']:6.2f} s  "
                          f"cpu {out['cpu']:6.2f} s  exit {out['status']}"
                          f"{'  (compiled)' if out['compiled'] else ''}", flush=True)  # fmt: skip
    summary = {}
    for argv in FIRST:
        name = _label(argv)
        summary[name] = {}
        for mode in modes:
            mine = [x for x in runs if x["command"] == name and x["mode"] == mode]
            summary[name][mode] = {k: statistics.median(x[k] for x in mine) for k in KEYS}
    result = {
        "cpu": cpu_model(),
        "load_before": load0,
        "load_after": load_average(),
        "commit": commit(),
        "rounds": args.rounds,
        "summary_median": summary,
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"load after {result['load_after']}; written {args.out}")
    for name, by_mode in summary.items():
        cells = "  ".join(f"{m} {v['wall']:.1f}/{v['cpu']:.1f}" for m, v in by_mode.items())
        print(f"{name:32} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
