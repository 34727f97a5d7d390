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

from rompicapo.common import InputError, SearchResult
from rompicapo.cover.problem import Problem

__all__ = [
    "LangfordResult",
    "QueensResult",
    "langford",
    "langford_problem",
    "queens",
    "queens_problem",
]


def queens_problem(n: int) -> Problem:
    """The n-queens problem: 2n primary items, 4n-2 secondary items, n*n options."""
    if n < 1:
        raise InputError(f"the board needs at least one row, got n={n}")
    p = Problem(
        primary=[f"r{i}" for i in range(n)] + [f"c{j}" for j in range(n)],
        secondary=[f"a{k}" for k in range(2 * n - 1)] + [f"b{k}" for k in range(2 * n - 1)],
    )
    for i in range(n):
        for j in range(n):
            p.add_option([f"r{i}", f"c{j}", f"a{i + j}", f"b{i - j + n - 1}"])
    return p


@dataclass
class QueensResult(SearchResult):
    """``placements``: the solutions kept, each the column of the queen in rows 0..n-1."""

    n: int = 0
    count: int = 0
    placements: list[list[int]] = field(default_factory=list)

    def verify(self) -> bool:
        from rompicapo.cover.verify import queens_ok

        return all(queens_ok(self.n, cols) for cols in self.placements)


def _columns(n: int, solution: list[int]) -> list[int]:
    cols = [0] * n
    for k in solution:  # option k is square (k // n, k % n)
        cols[k // n] = k % n
    return cols


def queens(n: int, *, limit: int | None = None, keep: int = 0, jobs: int = 1) -> QueensResult:
    """Count the n-queens solutions (``limit=None``: all), keeping the first ``keep``."""
    from rompicapo.cover.solve import count, solve

    problem = queens_problem(n)
    if keep == 0 and limit is None:
        r = count(problem, jobs=jobs)
    else:
        r = solve(problem, limit=limit, keep=keep)
    return QueensResult(
        n=n,
        count=r.count,
        placements=[_columns(n, s) for s in r.solutions],
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


def draw_queens(n: int, cols: list[int]) -> str:
    """A board with ``Q`` for queens and ``.`` for empty squares."""
    return "\n".join(" ".join("Q" if cols[i] == j else "." for j in range(n)) for i in range(n))


def langford_problem(n: int, *, half: bool = False) -> Problem:
    """Langford pairs for digits 1..n in 2n slots (digit i's two copies i+1 slots apart)."""
    if n < 1:
        raise InputError(f"Langford pairs need n >= 1, got {n}")
    p = Problem(primary=[f"d{i}" for i in range(1, n + 1)] + [f"s{j}" for j in range(1, 2 * n + 1)])
    for i in range(1, n + 1):
        for j in range(1, 2 * n - i):
            if half and i == 1 and j > n - 1:
                continue
            p.add_option([f"d{i}", f"s{j}", f"s{j + i + 1}"])
    return p


@dataclass
class LangfordResult(SearchResult):
    """``sequences``: the solutions kept, each the 2n slots' digits."""

    n: int = 0
    count: int = 0
    sequences: list[list[int]] = field(default_factory=list)

    def verify(self) -> bool:
        from rompicapo.cover.verify import langford_ok

        return all(langford_ok(self.n, s) for s in self.sequences)


def _sequence(problem: Problem, n: int, solution: list[int]) -> list[int]:
    seq = [0] * (2 * n)
    for k in solution:
        names = [name for name, _ in problem.options[k]]
        digit = int(names[0][1:])
        for slot in names[1:]:
            seq[int(slot[1:]) - 1] = digit
    return seq


def langford(n: int, *, half: bool = False, keep: int = 0) -> LangfordResult:
    """Count Langford pairings of 1..n (``half``: one of each mirror pair)."""
    from rompicapo.cover.solve import solve

    problem = langford_problem(n, half=half)
    r = solve(problem, limit=None, keep=keep)
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
    """Every n-queens solution, lazily, as the column of the queen in each row."""
    from rompicapo.cover.solve import iter_solutions

    for s in iter_solutions(queens_problem(n)):
        yield _columns(n, s)
