"""N queens and Langford pairs as exact-cover problems.

N queens: rows ``r{i}`` and columns ``c{j}`` are primary (one queen each), the diagonals
``a{i+j}`` and ``b{i-j+n-1}`` secondary (at most one queen), one option per square, exactly as
in the shared ``queens-N.dlx`` files. Langford pairs: digit ``d{i}`` primary, slots ``s{j}``
primary, option ``d{i} s{j} s{j+i+1}``; ``half`` keeps digit 1's first slot at most ``n-1``,
which picks one of each pair of mirror-image solutions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import (
    Deadline,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    check_int,
    check_limit,
    check_memory,
    check_time_limit,
    renamed_keywords,
)
from rompicapo.cover.problem import Problem

#: The largest board: its exact-cover form has n*n options (a million here), built in Python.
MAX_QUEENS = 1000
#: Bytes per option of a built problem in Python (four item names, tuples, list slots).
_BYTES_PER_OPTION = 700

__all__ = [
    "LangfordResult",
    "QueensResult",
    "langford",
    "langford_problem",
    "queens",
    "queens_problem",
]


def queens_problem(n: int, *, deadline: Deadline | None = None) -> Problem:
    """The n-queens problem: 2n primary items, 4n-2 secondary items, n×n options
    (``1 <= n <= MAX_QUEENS``; the memory of the options is checked before they are built).
    ``deadline``: when it passes while the options are built, ``TimeoutError`` (a million
    options take seconds).

    ```pycon
    >>> p = queens_problem(4)
    >>> len(p.primary), len(p.secondary), len(p), p.describe(0)  # rows and columns, diagonals
    (8, 14, 16, 'r0 c0 a0 b3')
    >>> from rompicapo.cover import count
    >>> count(p, jobs=1).count
    2

    ```"""
    n = check_int(n, "n", minimum=1, maximum=MAX_QUEENS)
    check_memory(_BYTES_PER_OPTION * n * n, f"the {n}-queens problem")
    p = Problem(
        primary=[f"r{i}" for i in range(n)] + [f"c{j}" for j in range(n)],
        secondary=[f"a{k}" for k in range(2 * n - 1)] + [f"b{k}" for k in range(2 * n - 1)],
    )
    for i in range(n):
        if deadline is not None and deadline.expired():
            raise TimeoutError("the time limit passed while the problem was built")
        for j in range(n):
            p.add_option([f"r{i}", f"c{j}", f"a{i + j}", f"b{i - j + n - 1}"])
    return p


@dataclass
class QueensResult(SearchResult):
    """``placements``: the solutions kept, each the column of the queen in rows 0..n-1;
    ``count`` the number found (all of them when ``complete``).

    ``to_dict()`` (``rompicapo queens --json``): ``n``, ``solutions`` (the number found),
    ``placements``, ``nodes``, ``solve_seconds``, plus ``count``, ``complete``, ``stopped``,
    ``jobs``, ``notes``, ``counts``, ``compile_seconds``, ``peak_bytes``.

    ```pycon
    >>> result = queens(6, limit=2, jobs=1)
    >>> result.count, result.placements, result.verify()
    (2, [[1, 3, 5, 0, 2, 4], [2, 5, 1, 4, 0, 3]], True)
    >>> print(queens(4, limit=1, jobs=1).report())
    solution 1: columns 2 4 1 3
    . Q . .
    . . . Q
    Q . . .
    . . Q .
    <BLANKLINE>
    first 1 solution of 4 queens; ... s

    ```"""

    n: int = 0
    """The side of the board and the number of queens."""
    count: int = 0
    """Solutions found: all of them when ``complete``."""
    placements: list[list[int]] = field(default_factory=list)
    """The solutions kept, each the column (from 0) of the queen in rows 0..n-1."""
    complete: bool = True
    """True when every solution was counted."""
    stopped: str | None = None
    """Why the count ended early, or None."""
    listing: bool = False
    """True when the call listed solutions (a limit) rather than counting them all."""
    jobs: int = 1
    """Workers that counted."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user."""

    _dict_exclude = ("listing",)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the first kept solution's board (None when only counting)."""
        from rompicapo.cover.render import queens_svg

        if not self.placements:
            return None
        kept = len(self.placements)
        title = f"{self.n} queens on the {self.n}x{self.n} board, no two attacking" + (
            f" (the first of {kept} solutions kept)" if kept > 1 else ""
        )
        return queens_svg(self.n, list(self.placements[0]), title=title)

    def _repr_html_(self) -> str | None:
        """Jupyter shows the count when no board was kept (the board otherwise)."""
        from html import escape

        return None if self.placements else f"<pre>{escape(self.report())}</pre>"

    def verify(self) -> bool:
        """True when no two kept queens attack each other (checked independently);
        NotVerifiable when no placement was kept (a count)."""
        from rompicapo.cover.verify import queens_ok

        if not self.placements:
            raise NotVerifiable("no placement was kept, so there is nothing to check")
        return all(queens_ok(self.n, cols) for cols in self.placements)

    def _dict_extra(self) -> dict[str, Any]:
        return {"solutions": self.count, "nodes": self.counts.get("nodes", 0)}

    def report(self) -> str:
        """The kept placements drawn, then how many solutions there are."""
        out = []
        for k, cols in enumerate(self.placements, start=1):
            out += [
                f"solution {k}: columns {' '.join(str(c + 1) for c in cols)}",
                draw_queens(self.n, cols),
                "",
            ]
        noun = "solutions" if self.count != 1 else "solution"
        what = "first " if self.listing else ""
        bound = "" if self.complete or self.listing else f" (stopped: {self.stopped})"
        out.append(
            f"{what}{self.count} {noun} of {self.n} queens{bound}; {self.solve_seconds:.3f} s"
        )
        return "\n".join(out)


def _columns(n: int, solution: list[int]) -> list[int]:
    cols = [0] * n
    for k in solution:  # option k is square (k // n, k % n)
        cols[k // n] = k % n
    return cols


@renamed_keywords(keep="keep_solutions")
def queens(
    n: int,
    *,
    limit: int | None = None,
    keep_solutions: int | None = None,
    jobs: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> QueensResult:
    """Count the n-queens solutions, or list the first ``limit`` of them.

    ``keep_solutions`` (formerly ``keep``) is how many placements to keep: by default all that are
    found when there is a ``limit``, none when counting them all. Counting runs on ``jobs`` workers
    (None = all cores, 1 = this process); the other keywords are the run contract's (see
    `rompicapo.cover.solve()`).

    ```pycon
    >>> eight = queens(8, jobs=1)
    >>> eight.count, eight.complete
    (92, True)
    >>> queens(8, limit=1, jobs=1).placements  # the first, a column per row
    [[0, 4, 7, 5, 2, 6, 1, 3]]

    ```"""
    from rompicapo.cover.engine import solutions_to_keep
    from rompicapo.cover.solve import count, solve

    deadline = Deadline(check_time_limit(time_limit))
    limit = check_limit(limit)
    keep = solutions_to_keep(limit, keep_solutions)
    if jobs is not None:
        check_int(jobs, "jobs", minimum=1, maximum=4096)
    listing = keep > 0 or limit is not None
    try:
        problem = queens_problem(n, deadline=deadline)
    except TimeoutError:  # the time limit covers building the problem: nothing counted yet
        return QueensResult(
            n=int(n), complete=False, stopped="time", listing=listing,
            notes=["the time limit passed while the problem was built"],
            solve_seconds=deadline.elapsed(),
        )  # fmt: skip
    n = int(n)
    left = None if time_limit is None else max(deadline.remaining(), 1e-6)
    common = {"time_limit": left, "node_limit": node_limit, "progress": progress}
    if not listing:
        r = count(problem, jobs=jobs, **common)
    else:
        r = solve(problem, limit=limit, keep_solutions=keep, **common)
    return QueensResult(
        n=n,
        count=r.count,
        placements=[_columns(n, s) for s in r.solutions],
        complete=r.complete,
        stopped=r.stopped,
        listing=listing,
        jobs=r.jobs,
        notes=r.notes,
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


def draw_queens(n: int, cols: list[int]) -> str:
    """A board with ``Q`` for queens and ``.`` for empty squares."""
    return "\n".join(" ".join("Q" if cols[i] == j else "." for j in range(n)) for i in range(n))


def langford_problem(n: int, *, half: bool = False) -> Problem:
    """Langford pairs for digits 1..n in 2n slots (digit i's two copies i+1 slots apart).

    ```pycon
    >>> p = langford_problem(3)
    >>> p.primary, p.describe(0)  # digit 1 in slots 1 and 3
    (['d1', 'd2', 'd3', 's1', 's2', 's3', 's4', 's5', 's6'], 'd1 s1 s3')
    >>> from rompicapo.cover import count
    >>> count(p, jobs=1).count  # 312132 and its reversal 231213
    2
    >>> count(langford_problem(3, half=True), jobs=1).count  # one of each mirror pair
    1

    ```"""
    n = check_int(n, "n", minimum=1, maximum=10_000)
    p = Problem(primary=[f"d{i}" for i in range(1, n + 1)] + [f"s{j}" for j in range(1, 2 * n + 1)])
    for i in range(1, n + 1):
        for j in range(1, 2 * n - i):
            if half and i == 1 and j > n - 1:
                continue
            p.add_option([f"d{i}", f"s{j}", f"s{j + i + 1}"])
    return p


@dataclass
class LangfordResult(SearchResult):
    """``sequences``: the solutions kept, each the 2n slots' digits.

    ```pycon
    >>> result = langford(3, keep_solutions=2)
    >>> result.count, result.sequences, result.verify()
    (2, [[3, 1, 2, 1, 3, 2], [2, 3, 1, 2, 1, 3]], True)

    ```"""

    n: int = 0
    """The pairs: digits 1..n, each twice."""
    count: int = 0
    """Sequences found."""
    sequences: list[list[int]] = field(default_factory=list)
    """The sequences kept, each the 2n slots' digits."""

    def verify(self) -> bool:
        """True when every kept sequence is a Langford pairing; NotVerifiable when none was
        kept."""
        from rompicapo.cover.verify import langford_ok

        if not self.sequences:
            raise NotVerifiable("no sequence was kept, so there is nothing to check")
        return all(langford_ok(self.n, s) for s in self.sequences)


def _sequence(problem: Problem, n: int, solution: list[int]) -> list[int]:
    seq = [0] * (2 * n)
    for k in solution:
        names = [name for name, _ in problem.options[k]]
        digit = int(names[0][1:])
        for slot in names[1:]:
            seq[int(slot[1:]) - 1] = digit
    return seq


@renamed_keywords(keep="keep_solutions")
def langford(
    n: int,
    *,
    half: bool = False,
    keep_solutions: int = 0,
    time_limit: float | None = None,
    progress: ProgressCallback | None = None,
) -> LangfordResult:
    """Count Langford pairings of 1..n (``half``: one of each mirror pair), keeping the first
    ``keep_solutions`` sequences (formerly ``keep``).

    ```pycon
    >>> langford(7).count  # Langford pairings of 1..7, each counted with its reversal
    52

    ```"""
    from rompicapo.cover.solve import solve

    keep = check_int(keep_solutions, "keep_solutions", minimum=0, maximum=10**18)
    problem = langford_problem(n, half=half)
    r = solve(problem, limit=None, keep_solutions=keep, time_limit=time_limit, progress=progress)
    return LangfordResult(
        n=n,
        count=r.count,
        sequences=[_sequence(problem, n, s) for s in r.solutions],
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


def iter_queens(n: int) -> Iterator[list[int]]:
    """Every n-queens solution, lazily, as the column of the queen in each row.

    ```pycon
    >>> list(iter_queens(4))  # the column of the queen in each row
    [[1, 3, 0, 2], [2, 0, 3, 1]]
    >>> sum(1 for _ in iter_queens(6))
    4

    ```"""
    from rompicapo.cover.solve import iter_solutions

    n = check_int(n, "n", minimum=1, maximum=MAX_QUEENS)
    for s in iter_solutions(queens_problem(n)):
        yield _columns(n, s)
