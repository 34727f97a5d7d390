"""The first command of every family, on a cold cache, in a fresh process.

Each command runs in a subprocess with an empty numba cache folder (``NUMBA_CACHE_DIR``), an
empty rompicapo cache folder and no shipped kernels (``ROMPICAPO_SHIPPED_KERNELS=0``;
.ci/smoke.py checks that the wheel's first commands load them), as a first run without them
does. The test checks the answer, that the one-line compilation notice appears exactly once on
stderr (and not at all on the second, warm run, whose kernels come from the cache just
written), and that the command imported and compiled nothing of another family.
``benchmarks/first_run.py`` measures the seconds; no test times anything.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTICE = re.compile(r"^compiling the (.+), once: about (\d+) s$", re.M)

# Runs the command through the CLI's main() and, at exit, writes to fd 3 (a file) the rompicapo
# modules it imported and the modules of the kernels numba compiled (numba's event API).
RUNNER = r"""
import json, os, sys
from numba.core import event

compiled = []

class Recorder(event.Listener):
    def on_start(self, ev):
        d = ev.data.get("dispatcher")
        compiled.append(getattr(getattr(d, "py_func", None), "__module__", "") or "")
    def on_end(self, ev):
        pass

event.register("numba:compile", Recorder())
from rompicapo.cli import main
try:
    status = main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as fh:
        json.dump({"modules": sorted(m for m in sys.modules if m.startswith("rompicapo.")),
                   "compiled": sorted(set(compiled))}, fh)
sys.exit(status)
"""

# The README's puzzle (Wikipedia's example Sudoku) and its solution's first row.
SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"

FAMILIES = ("paths", "cover", "games", "edges")


def _caselle_path_ok(text: str, n: int) -> bool:
    """The printed n x n grid numbers every cell once, each step a caselle move (3 along a row
    or column, 2 along a diagonal): checked here, sharing nothing with the solver."""
    rows = [[int(x) for x in line.split()] for line in text.strip().splitlines()[-n:]]
    if len(rows) != n or any(len(r) != n for r in rows):
        return False
    where = {v: (r, c) for r, row in enumerate(rows) for c, v in enumerate(row)}
    if sorted(where) != list(range(1, n * n + 1)):
        return False
    for k in range(1, n * n):
        (r0, c0), (r1, c1) = where[k], where[k + 1]
        dr, dc = abs(r1 - r0), abs(c1 - c0)
        if sorted((dr, dc)) not in ([0, 3], [2, 2]):
            return False
    return True


# (family, argv, check of stdout): each family's first command, as the README gives it.
FIRST_COMMANDS = [
    ("paths", ["path", "10"], lambda out: _caselle_path_ok(out, 10)),
    # 13,272 paths from (2, 3) on 5x7: the README's figure, checked by the exhaustive counts
    # in tests/paths (OEIS-style tables of the article)
    ("paths", ["count", "5x7", "--start", "2,3"], lambda out: "13,272" in out),
    (
        "cover",
        ["sudoku", "solve", SUDOKU],
        lambda out: "5 3 4 | 6 7 8 | 9 1 2" in out and "unique solution" in out,
    ),
    # 724 solutions of the 10-queens problem (OEIS A000170)
    ("cover", ["queens", "10"], lambda out: "724 solutions" in out),
    # after 4455 the player to move wins with his 4th stone: score 18 (Pons' convention);
    # searched (the opening book would answer without the kernel)
    ("games", ["game", "connect4", "solve", "4455", "--no-book"], lambda out: "score 18" in out),
    (
        "edges",
        ["edges", "solve", "eternity2", "--time", "5"],
        lambda out: re.search(r"score \d+/480", out) is not None,
    ),
]


def _run(argv: list[str], cache: Path, record: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update(
        NUMBA_CACHE_DIR=str(cache / "numba"),
        ROMPICAPO_CACHE_DIR=str(cache / "rompicapo"),
        PYTHONPATH=str(ROOT),
        ROMPICAPO_SHIPPED_KERNELS="0",  # a checkout may hold them (built for the wheel)
    )
    return subprocess.run(
        [sys.executable, "-c", RUNNER, str(record), *argv],
        cwd=cache,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize(
    ("family", "argv", "check"),
    FIRST_COMMANDS,
    ids=[" ".join(argv[:3]) for _, argv, _ in FIRST_COMMANDS],
)
def test_first_command_cold_then_warm(tmp_path, family, argv, check):
    record = tmp_path / "record.json"
    cold = _run(argv, tmp_path, record)
    assert cold.returncode == 0, cold.stderr
    assert check(cold.stdout), cold.stdout
    notices = NOTICE.findall(cold.stderr)
    assert len(notices) == 1, cold.stderr  # said once, however many kernels compiled
    assert notices[0][0] and int(notices[0][1]) >= 1
    seen = json.loads(record.read_text())
    others = [f for f in FAMILIES if f != family]
    for name in seen["modules"] + seen["compiled"]:
        assert not any(name.startswith(f"rompicapo.{o}.") for o in others), name
    assert seen["compiled"], "a cold cache compiled nothing: was the cache folder used?"
    # the kernels are in the cache now: the same command compiles nothing and says nothing
    warm = _run(argv, tmp_path, record)
    assert warm.returncode == 0, warm.stderr
    assert check(warm.stdout), warm.stdout
    assert NOTICE.search(warm.stderr) is None, warm.stderr
    assert json.loads(record.read_text())["compiled"] == []


def test_quiet_silences_the_notice(tmp_path):
    quiet = _run(["path", "5x7", "--start", "2,3", "--quiet"], tmp_path, tmp_path / "r.json")
    assert quiet.returncode == 0, quiet.stderr
    assert "found, verified" in quiet.stdout
    assert NOTICE.search(quiet.stderr) is None, quiet.stderr
    assert json.loads((tmp_path / "r.json").read_text())["compiled"]  # it did compile
