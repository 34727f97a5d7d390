"""Smoke test of the installed package (run by .ci/run with the fresh venv's python).

usage: python smoke.py README.md DATA_DIR EXPECT_CACHE_DIR

Runs from an empty folder (the README's data files copied into it), never from the checkout:
first it proves that ``rompicapo`` is the installed copy, then runs the README's console and
Python examples (through the installed package's own example runner), every command's
``--help``, and each command once on a small input, through the installed ``rompicapo`` script.
The wheel ships the kernels of every family's first command compiled (rompicapo/compiled/):
where this CPU can run them, those commands must compile nothing (no compilation notice). Then
it checks that numba caches what it compiles (a run with the shipped kernels turned off) under
EXPECT_CACHE_DIR (the user's cache folder, or ``NUMBA_CACHE_DIR``) and wrote nothing into
site-packages. Prints 'N passed, N failed'.
"""

from __future__ import annotations

import argparse
import doctest
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import rompicapo
from rompicapo.cli import build_parser
from rompicapo.cli.examples import check_console_block
from rompicapo.common import is_compile_notice
from rompicapo.common.jit import SHIPPED_FOLDER, shipped_manifest
from rompicapo.warmup import FIRST_COMMANDS

SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
E2_BOARD = "tests/data/eternity2/eternity2_board_blackwood_470.txt"

# each command once, on a small input (paths relative to the working folder)
RUNS = [
    ["path", "10"],
    ["path", "12x12", "--moves", "knight", "--out", "knight.rpath", "--quiet"],
    ["verify-path", "knight.rpath", "12x12", "--moves", "knight"],
    ["path-at", "10", "1", "100"],
    ["step-of", "10", "1,1"],
    ["count", "5x7", "--start", "2,3"],
    ["cover", "tests/data/exact-cover/queens-8.dlx", "--jobs", "1"],
    ["sudoku", "solve", SUDOKU],
    ["sudoku", "rate", SUDOKU],
    ["sudoku", "generate", "--seed", "1", "--time", "30"],
    ["queens", "10"],
    ["polyomino", "--count", "--region", "3x20"],
    ["game", "tictactoe"],
    ["game", "nim", "3", "5", "8"],
    ["game", "grundy", "subtract", "1,3,4", "--upto", "20"],
    ["game", "connect4", "solve", "4455"],
    ["game", "pig", "--goal", "20"],
    ["edges", "solve", "eternity2", "--time", "5"],
    ["edges", "score", E2_BOARD, "eternity2"],
    # long enough for the improver to compile on a loaded machine where nothing is shipped
    ["edges", "improve", E2_BOARD, "eternity2", "--time", "10"],
    ["edges", "generate", "4x4", "--frame-colours", "2", "--inner-colours", "3"],
    ["edges", "render", E2_BOARD, "eternity2", "--svg", "board.svg"],
    ["edges", "url", E2_BOARD, "eternity2"],
    ["warm-up", "--family", "games"],
]


def _commands(parser: argparse.ArgumentParser, prefix: list[str]) -> list[list[str]]:
    out = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, [*prefix, name])
    return out


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S)


def main() -> int:
    readme, data, cache = (Path(a).resolve() for a in sys.argv[1:4])  # before the chdir below
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    package = Path(rompicapo.__file__).resolve().parent
    failed: list[str] = []
    passed = 0

    def check(label: str, ok: bool, detail: str = "") -> None:
        nonlocal passed
        if ok:
            passed += 1
        else:
            failed.append(label)
            print(f"FAILED {label}\n{detail[-3000:]}", file=sys.stderr)

    check("installed copy", package.is_relative_to(site), f"{package} not under {site}")
    work = Path(tempfile.mkdtemp(prefix="rompicapo-smoke-"))
    shutil.copytree(data, work / "tests" / "data")
    os.chdir(work)
    text = readme.read_text()
    for block in _blocks(text, "console"):
        try:
            check_console_block(block)
            check(f"README console: {block.splitlines()[0]}", True)
        except AssertionError as exc:
            check(f"README console: {block.splitlines()[0]}", False, str(exc))
    for block in _blocks(text, "pycon"):
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
        result = runner.run(test)
        check("README pycon", result.failed == 0)
    exe = str(Path(sys.executable).parent / "rompicapo")
    for command in _commands(build_parser(), []):
        p = subprocess.run([exe, *command, "--help"], capture_output=True, text=True)
        check(f"rompicapo {' '.join(command)} --help", p.returncode == 0, p.stderr)
    check("shipped kernels in the wheel", (SHIPPED_FOLDER / "manifest.json").is_file())
    shipped = shipped_manifest() is not None
    if not shipped:
        print("note: this CPU or numba cannot use the shipped kernels", file=sys.stderr)
    for argv in RUNS:
        p = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=900)
        label = f"rompicapo {' '.join(argv)}"
        check(label, p.returncode == 0 and "Traceback" not in p.stderr, p.stdout + p.stderr)
        if shipped and tuple(argv) in FIRST_COMMANDS:
            notices = [line for line in p.stderr.splitlines() if is_compile_notice(line)]
            check(f"{label}: nothing compiled", not notices, p.stderr)
    # what numba compiles is cached in the user's folder, never in site-packages
    off = dict(os.environ, ROMPICAPO_SHIPPED_KERNELS="0")
    p = subprocess.run([exe, "path", "10"], capture_output=True, text=True, env=off, timeout=900)
    check("rompicapo path 10 (shipped kernels off)", p.returncode == 0, p.stdout + p.stderr)
    written = [
        p
        for p in package.rglob("*")
        if p.suffix in (".nbi", ".nbc") and not p.is_relative_to(SHIPPED_FOLDER)
    ]
    check("nothing cached in site-packages", not written, "\n".join(map(str, written[:5])))
    if os.environ.get("NUMBA_CACHE_DIR"):  # respected: nothing went to the user-wide folder
        user_wide = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "numba"
        stray = list(user_wide.rglob("*.nbi")) if user_wide.is_dir() else []
        check("NUMBA_CACHE_DIR respected", not stray, "\n".join(map(str, stray[:5])))
    cached = list(cache.rglob("*.nbi"))
    check(f"kernels cached under {cache}", len(cached) > 0, f"no index file under {cache}")
    print(
        f"smoke ({'root' if os.geteuid() == 0 else 'user'}): {passed} passed, {len(failed)} failed"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
