"""Compile every numba kernel ahead, on all cores: what ``rompicapo warm-up`` runs, and what
the playground calls at start-up.

numba compiles a kernel the first time it runs and keeps the machine code in its on-disk cache,
so a newcomer's first command waits seconds for it. `warm_up()` pays that wait once, ahead:
it runs every family's public API on tiny inputs (the calls the commands make, so the same
kernels with the same signatures), one group of kernels per worker process, and returns what
each group compiled (or found already cached) and how long it took. Groups never share a kernel
module, so two processes never write the same cache index at once.

The same tasks, run once when the wheel is built for a portable CPU level, are the kernels the
wheel ships compiled (`rompicapo.common.jit`): where those can run, the first commands and
this warm-up load them instead of compiling.

    ```pycon
    >>> from rompicapo.warmup import FAMILIES, tasks_of
    >>> FAMILIES
    ('paths', 'cover', 'games', 'edges')
    >>> [t.name for t in tasks_of(["games"])]
    ['Connect Four solver', 'Pig solver']

    ```"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rompicapo.common import (
    InputError,
    SearchResult,
    compiled_seconds,
    default_jobs,
    run_jobs,
    watch_compilation,
)

__all__ = [
    "FAMILIES",
    "FIRST_COMMANDS",
    "WarmUpResult",
    "WarmUpTask",
    "run_task",
    "tasks_of",
    "warm_up",
]

FAMILIES = ("paths", "cover", "games", "edges")

# The README's Sudoku (Wikipedia's example), solved by the first command of the family.
_SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"

# Each family's first commands as the README gives them (``rompicapo`` arguments): the tasks
# below compile their kernels with the same signatures, so the wheel's shipped kernels
# (rompicapo.common.jit) cover them; .ci/smoke.py and benchmarks/first_run.py run them.
FIRST_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("path", "10"),
    ("count", "5x7", "--start", "2,3"),
    ("sudoku", "solve", _SUDOKU),
    ("queens", "10"),
    ("game", "connect4", "solve", "4455"),
    ("edges", "solve", "eternity2", "--time", "5"),
)


def _paths_calls() -> None:
    from rompicapo.paths import (
        KNIGHT,
        cells_at,
        check_path_file,
        construct,
        count_paths,
        find_path,
        steps_of,
        write_path,
    )

    found = find_path(10, 10)  # `rompicapo path 10`: the block construction
    construct(10, 10)  # Warnsdorff's walk with Pósa's rotations, the Python API's default
    construct(8, 8, moves=KNIGHT)
    construct(12, 12, moves=KNIGHT, closed=True)
    count_paths(5, 7, start=(2, 3), jobs=1)  # `rompicapo count 5x7 --start 2,3`
    cells_at(10, 10, [1, 100])
    steps_of(10, 10, [(0, 0), (9, 9)])
    with tempfile.TemporaryDirectory(prefix="rompicapo-warm-up-") as tmp:
        for suffix in (".rpath", ".npy"):
            path = Path(tmp) / f"p{suffix}"
            write_path(found, path)
            check_path_file(path, (10, 10), jobs=1)  # `rompicapo verify-path`


def _sudoku_calls() -> None:
    from rompicapo.cover import sudoku

    sudoku.solve(_SUDOKU)
    sudoku.rate(_SUDOKU)


def _exact_cover_calls() -> None:
    from rompicapo.cover import Problem, langford, pack, queens, solve

    queens(10, jobs=1)  # `rompicapo queens 10`
    problem = Problem(primary=["a", "b", "c"], secondary=["x"])
    problem.add_option(["a", "x"])
    problem.add_option(["b", "c"])
    problem.add_option(["a", "b", "c"])
    solve(problem)
    langford(3)
    pack("pentominoes", "6x10", limit=1, jobs=1)


def _connect4_calls() -> None:
    from rompicapo.games.connect4 import solve_moves

    solve_moves("4455")  # `rompicapo game connect4 solve 4455` (the opening book answers)
    # the search itself, for the positions beyond the book
    solve_moves("4455", book=False)
    solve_moves("4455", analyze=True, book=False)


def _pig_calls() -> None:
    from rompicapo.games.pig import solve_pig

    solve_pig(20)


def _edges_calls() -> None:
    from rompicapo.edges import improve_board, make_puzzle, solve

    # `rompicapo edges solve eternity2 --time 5`: the kernels Blackwood's search runs
    solve("eternity2", time_limit=None, node_limit=20_000, jobs=1)
    small = make_puzzle("4x4", frame_colours=2, inner_colours=3, seed=0)
    result = solve(small.puzzle, time_limit=None, node_limit=2_000, jobs=1)
    improve_board(result.board, small.puzzle, time_limit=None, node_limit=2_000)


@dataclass(frozen=True)
class WarmUpTask:
    """One group of kernels: its family, the name a person knows it by, and the calls that
    compile it (public API on tiny inputs)."""

    family: str
    name: str
    run: Callable[[], None]


_TASKS: tuple[WarmUpTask, ...] = (
    WarmUpTask("paths", "path solvers, counter and verifier", _paths_calls),
    WarmUpTask("cover", "Sudoku solver", _sudoku_calls),
    WarmUpTask("cover", "exact-cover solver", _exact_cover_calls),
    WarmUpTask("games", "Connect Four solver", _connect4_calls),
    WarmUpTask("games", "Pig solver", _pig_calls),
    WarmUpTask("edges", "Eternity II search and improver", _edges_calls),
)


def tasks_of(families: Iterable[str] | None = None) -> list[WarmUpTask]:
    """The warm-up tasks of ``families`` (default: all of `FAMILIES`), in order.

    Raises [`InputError`][rompicapo.common.InputError] for an unknown family name."""
    wanted = list(FAMILIES) if families is None else list(families)
    unknown = [f for f in wanted if f not in FAMILIES]
    if unknown:
        raise InputError(f"unknown family {unknown[0]!r}: choose among {', '.join(FAMILIES)}")
    return [t for t in _TASKS if t.family in wanted]


def run_task(name: str) -> float:
    """Run the task called ``name`` (a `WarmUpTask`'s name) in this process: the seconds
    it took. The playground's start-up warm-up runs them this way.

    Raises ValueError for an unknown name."""
    for task in _TASKS:
        if task.name == name:
            t0 = time.perf_counter()
            task.run()
            return time.perf_counter() - t0
    raise ValueError(f"no warm-up task called {name!r}")


def _run_task(index: int) -> dict:
    """One task in a worker process: the seconds it took and the seconds numba compiled."""
    task = _TASKS[index]
    watch_compilation(None)
    before = compiled_seconds()
    t0 = time.perf_counter()
    # the API's own reports and progress lines are not the warm-up's business
    with contextlib.redirect_stdout(io.StringIO()):
        task.run()
    return {
        "family": task.family,
        "name": task.name,
        "seconds": time.perf_counter() - t0,
        "compile_seconds": compiled_seconds() - before,
    }


@dataclass
class WarmUpResult(SearchResult):
    """What `warm_up()` did: one entry per task (``family``, ``name``, ``seconds``,
    ``compile_seconds``: zero when the kernels came from numba's cache), the wall-clock
    seconds of the whole warm-up (``solve_seconds``) and the worker processes it used."""

    tasks: list[dict] = field(default_factory=list)
    jobs: int = 1

    def verify(self) -> bool:
        """True when every task ran (each one's calls check their own answers)."""
        return len(self.tasks) > 0

    def report(self) -> str:
        lines = []
        for t in self.tasks:
            how = (
                f"compiled in {t['compile_seconds']:.1f} s"
                if t["compile_seconds"] > 0
                else "already compiled (loaded from the cache)"
            )
            lines.append(f"{t['family']:6} {t['name']}: {how}, {t['seconds']:.1f} s in all")
        lines.append(
            f"warm-up done in {self.solve_seconds:.1f} s on {self.jobs} "
            f"process{'es' if self.jobs > 1 else ''}"
        )
        return "\n".join(lines)


def warm_up(families: Sequence[str] | None = None, *, jobs: int | None = None) -> WarmUpResult:
    """Compile every kernel of ``families`` (default: all) ahead, into numba's on-disk cache,
    one group of kernels per worker process on ``jobs`` processes (default: all cores; 1: in
    this process). Later commands and API calls then load the kernels in a moment.

    The kernels go where numba caches them: beside the sources when that folder is writable,
    else the user's cache folder, or ``NUMBA_CACHE_DIR`` when it is set. The playground calls
    it in the background at start-up.
    """
    tasks = tasks_of(families)
    n = min(len(tasks), default_jobs() if jobs is None else max(1, int(jobs)))
    indices = [_TASKS.index(t) for t in tasks]
    t0 = time.perf_counter()
    done = {out["name"]: out for _, out in run_jobs(_run_task, indices, n_jobs=n)}
    return WarmUpResult(
        solve_seconds=time.perf_counter() - t0,
        compile_seconds=sum(d["compile_seconds"] for d in done.values()),
        tasks=[done[t.name] for t in tasks],
        jobs=n,
    )
