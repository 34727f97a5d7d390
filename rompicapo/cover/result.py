"""What an exact-cover search returns: [`CoverResult`][rompicapo.cover.CoverResult]."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import NotVerifiable, SearchResult
from rompicapo.cover.problem import Problem

__all__ = ["CoverResult"]


@dataclass
class CoverResult(SearchResult):
    """What a search found.

    ``solutions`` holds the solutions kept (lists of option numbers, givens included);
    ``count`` is the number found, the exact total when ``complete`` (the whole search tree was
    explored); ``stopped`` says why a search ended early (``"limit"``, ``"time"``, ``"nodes"``,
    ``"interrupted"``) or is ``None``. ``counts`` holds Knuth's measures: ``nodes``,
    ``updates``, ``cleansings``, ``max_level`` (and for parallel counts ``parts``, ``workers``
    and the workers' CPU time). ``notes`` are remarks for the user (jobs capped, options
    dropped). ``verify()`` checks every kept solution with `rompicapo.cover.verify`.

    ``to_dict()`` is what ``rompicapo cover --json`` prints: ``algorithm``, ``items``,
    ``options``, ``solutions`` (the number found), ``complete``, ``stopped``, ``nodes``,
    ``updates``, ``cleansings``, ``jobs``, ``solve_seconds``, ``compile_seconds``,
    ``peak_bytes``, ``kept`` (the kept solutions' options as Knuth writes them), ``file``,
    plus ``count``, ``counts`` and ``notes``.

    ```pycon
    >>> from rompicapo.cover import parse_dlx, solve
    >>> result = solve(parse_dlx("a b c d e f g\\nc e\\na d g\\nb c f\\na d f\\nb g\\nd e g\\n"))
    >>> result.solutions, result.count, result.complete, result.stopped
    ([[3, 4, 0]], 1, False, 'limit')
    >>> print(result.report())
    solution 1:
      c e
      a d f
      b g
    1 solution (stopped at the limit); 6 nodes, 12 updates; ... s
    >>> result.verify(), result.to_dict()["kept"]
    (True, [['a d f', 'b g', 'c e']])

    ```"""

    problem: Problem | None = None
    """The problem searched."""
    solutions: list[list[int]] = field(default_factory=list)
    """The solutions kept, each a list of option numbers (givens included)."""
    count: int = 0
    """Solutions found: the exact total when ``complete``."""
    complete: bool = False
    """True when the whole search tree was explored."""
    stopped: str | None = None
    """Why the search ended early (``"limit"``, ``"time"``, ``"nodes"``, ``"interrupted"``), or
    None."""
    algorithm: str = "X"
    """The algorithm that ran (``"X"``: Knuth's Algorithm X with dancing links, ...)."""
    jobs: int = 1
    """Workers that counted."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user (jobs capped, options dropped)."""

    _dict_exclude = ("problem", "solutions")

    @property
    def solution(self) -> list[int] | None:
        """The first solution kept, or None."""
        return self.solutions[0] if self.solutions else None

    def verify(self) -> bool:
        """True when every kept solution is an exact cover (checked independently), False
        when one is not; NotVerifiable when no solution was kept (a count, or no solution:
        neither can be checked without searching again)."""
        from rompicapo.cover.verify import cover_violations

        if self.problem is None or not self.solutions:
            raise NotVerifiable("no solution was kept, so there is nothing to check")
        return all(not cover_violations(self.problem, s) for s in self.solutions)

    def _dict_extra(self) -> dict[str, Any]:
        p = self.problem
        return {
            "items": {"primary": len(p.primary), "secondary": len(p.secondary)} if p else None,
            "options": len(p.options) if p else None,
            "solutions": self.count,
            "nodes": self.counts.get("nodes", 0),
            "updates": self.counts.get("updates", 0),
            "cleansings": self.counts.get("cleansings", 0),
            "kept": [[p.describe(k) for k in s] for s in self.solutions] if p else [],
            "file": p.source if p else None,
        }

    def report(self) -> str:
        """The kept solutions (one option a line, as Knuth writes them) and a summary line."""
        out = []
        p = self.problem
        for n, sol in enumerate(self.solutions, start=1):
            out.append(f"solution {n}:")
            out += [f"  {p.describe(k) if p else k}" for k in sorted(sol)]
        c = self.counts
        if self.complete:
            exact = ""
        elif self.stopped == "limit":
            exact = " (stopped at the limit)"
        elif self.stopped == "interrupted":
            exact = " (interrupted: a lower bound)"
        else:
            exact = f" (stopped by the {self.stopped} limit: a lower bound)"
        out.append(
            f"{self.count} solution{'s' * (self.count != 1)}{exact}; "
            f"{c.get('nodes', 0):,} nodes, {c.get('updates', 0):,} updates; "
            f"{self.solve_seconds:.3f} s" + (f" with {self.jobs} workers" if self.jobs > 1 else "")
        )
        return "\n".join(out)
