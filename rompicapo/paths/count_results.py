"""The results of exhaustive searches:

- [`CountResult`][rompicapo.paths.CountResult], of [`count_paths()`][rompicapo.paths.count_paths];
- [`ExhaustiveResult`][rompicapo.paths.ExhaustiveResult], of
  [`search_path()`][rompicapo.paths.search_path];
- `EndCountResult`, of `count_end_matrix()`.

Their ``verify()`` recounts or checks with `rompicapo.paths.verify`, which shares no code
with the search.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import NotVerifiable, SearchResult
from rompicapo.paths.moves import parse_moves
from rompicapo.paths.symmetry import Cell, apply_symmetry, board_symmetries, start_classes

__all__ = ["CountResult", "EndCountResult", "ExhaustiveResult", "table_text"]


@dataclass
class CountResult(SearchResult):
    """The exact number of paths (or closed tours) from one start or from every start.

    ``count`` is the number from ``start``, or with ``start=None`` the total over all starts;
    ``table`` (rows x cols, int64) holds the count from every start (``start=None`` only).
    ``nodes`` counts the search states visited, start states included (machine-independent
    work, the same however the count is split into jobs); ``samples`` maps a start
    cell to one path from it (one per class of starts that has any), for ``verify()``.

    ```pycon
    >>> from rompicapo.paths import count_paths
    >>> result = count_paths(4, 5)  # from every start
    >>> result.count, result.min, result.max, result.complete
    (144, 4, 12, True)
    >>> print(result.report(stats=False))
    4x5 caselle paths from every start:
         0  1  2  3  4
      0  6  6  4  6  6
      1  8  8 12  8  8
      2  8  8 12  8  8
      3  6  6  4  6  6
    total 144  min 4  max 12
    >>> result.verify()  # recounted by independent code
    True

    ```"""

    rows: int = 0
    """Rows of the board."""
    cols: int = 0
    """Columns of the board."""
    moves: str = "caselle"
    """The move set's spec (``"caselle"``, ``"knight"``, ``"DR,DC;..."``)."""
    closed: bool = False
    """True when closed tours were counted (the last cell one move from the first)."""
    start: Cell | None = None
    """The start counted from, ``(row, col)``; None for every start (see ``table``)."""
    count: int = 0
    """Paths from ``start``, or the total over all starts; a lower bound when not ``complete``."""
    table: np.ndarray | None = None
    """The count from every start, rows x cols (int64), when ``start`` is None."""
    nodes: int = 0
    """Search states visited, start states included: the same however the count is split into
    jobs."""
    jobs: int = 0
    """Jobs the count was split into."""
    split_depth: int = 0
    """The depth at which the search tree was cut into jobs (0: not split)."""
    samples: dict[Cell, np.ndarray] = field(default_factory=dict)
    """One path from a start of each class of symmetric starts that has any, for ``verify()``."""
    # False when the time limit stopped the count first: ``count`` is then a lower bound
    complete: bool = True
    """False when the time limit stopped the count first: ``count`` is then a lower bound."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user (jobs capped, a resumed checkpoint)."""
    checkpoint: str | None = None
    """The checkpoint file the count resumed from and saved to, if any."""

    _dict_exclude = ("samples", "table")

    @property
    def total(self) -> int:
        return self.count

    @property
    def stopped(self) -> str | None:
        """``"time"`` when the time limit ended the count first (``count`` is then a lower
        bound), else None: the name every family's result gives why a search stopped early."""
        return None if self.complete else "time"

    @property
    def min(self) -> int:
        return int(self.table.min()) if self.table is not None else self.count

    @property
    def max(self) -> int:
        return int(self.table.max()) if self.table is not None else self.count

    def _dict_extra(self) -> dict[str, Any]:
        if self.table is None:
            return {}
        return {"table": self.table, "total": self.total, "min": self.min, "max": self.max}

    def report(self, *, stats: bool = True) -> str:
        """The lines ``rompicapo count`` prints: the count (or the table), a proof line when
        there is no path, and (``stats``) the nodes and speed."""
        kind = "closed tours" if self.closed else "paths"
        board = f"{self.rows}x{self.cols} {self.moves}"
        lines = []
        if not self.complete:
            done = self.counts.get("jobs_done", 0)
            lines.append(
                f"{board} {kind}: stopped by the time limit after {done:,} of {self.jobs:,} "
                f"jobs; at least {self.count:,} (not a complete count)"
                + (
                    f"; the jobs done are saved in {self.checkpoint}: the same call resumes"
                    if self.checkpoint
                    else ""
                )
            )
        elif self.start is not None:
            lines.append(f"{board} {kind} from {self.start}: {self.count:,}")
            if self.count == 0:
                lines.append(
                    f"no {kind[:-1]} from {self.start}: proven by exhaustive search "
                    f"({self.nodes:,} nodes)"
                )
        else:
            lines.append(f"{board} {kind} from every start:")
            lines.append(table_text(self.table))
            lines.append(f"total {self.total:,}  min {self.min:,}  max {self.max:,}")
            if self.total == 0:
                lines.append(
                    f"no {kind[:-1]} from any start: proven by exhaustive search "
                    f"({self.nodes:,} nodes)"
                )
        if stats:
            searched = self.nodes - self.counts.get("nodes_from_checkpoint", 0)
            rate = searched / self.solve_seconds if self.solve_seconds > 0 else 0.0
            jobs = f"  jobs {self.jobs}" if self.jobs else ""
            lines.append(
                f"nodes {self.nodes:,}{jobs}  {self.solve_seconds:.3f} s"
                f" (+{self.compile_seconds:.2f} s compile)  {rate / 1e6:.1f} M nodes/s"
            )
        return "\n".join(lines)

    def verify(self) -> bool:
        """Recount with independent code: True when the recount equals ``count`` (and the table
        from every start, when there is one), False when not.

        The recount (`rompicapo.paths.verify.recount_paths()`, a plain depth-first search in Python)
        is slow on purpose, so it runs on boards of at most `RECOUNT_MAX_CELLS` cells; larger counts
        raise [`NotVerifiable`][rompicapo.common.NotVerifiable] (their sample paths can still be
        checked with [`check_samples()`][rompicapo.paths.count_results.CountResult.check_samples],
        which is evidence, not a verification). An incomplete count (time limit) raises
        NotVerifiable too.
        """
        from rompicapo.paths.verify import RECOUNT_MAX_CELLS, recount_paths

        if not self.complete:
            raise NotVerifiable("the count was stopped by the time limit: nothing to check")
        if self.rows * self.cols > RECOUNT_MAX_CELLS:
            raise NotVerifiable(
                f"{self.rows}x{self.cols} is too large for the independent recount (at most "
                f"{RECOUNT_MAX_CELLS} cells); check_samples() checks the sample paths"
            )
        moves = parse_moves(self.moves)
        if self.table is None:
            return (
                recount_paths(self.rows, self.cols, moves, self.start, closed=self.closed)
                == self.count
            )
        if self.table.shape != (self.rows, self.cols):
            return False
        for r in range(self.rows):
            for c in range(self.cols):
                want = recount_paths(self.rows, self.cols, moves, (r, c), closed=self.closed)
                if int(self.table[r, c]) != want:
                    return False
        return int(self.table.sum()) == self.count

    def check_samples(self) -> bool:
        """Check every sample path with the independent verifier, and the table's bookkeeping.

        True when each sample is a valid path (closed when asked) from its start, the count from
        that start is non-zero, every start with a non-zero count has a sample in its class of
        symmetric starts, and the table sums to ``count``. This is evidence, not a recount: see
        [`verify()`][rompicapo.paths.count_results.CountResult.verify]. Raises
        [`NotVerifiable`][rompicapo.common.NotVerifiable] for an incomplete count and for a count of
        zero (no path to check).
        """
        from rompicapo.paths.verify import verify_path

        if not self.complete:
            raise NotVerifiable("the count was stopped by the time limit: nothing to check")
        if self.count == 0:
            raise NotVerifiable(
                "a count of zero has no path to check; it rests on the exhaustive search alone"
            )
        moves = parse_moves(self.moves)
        for start, path in self.samples.items():
            check = verify_path(
                np.asarray(path), self.rows, self.cols, moves, start=start, closed=self.closed
            )
            if not check:
                return False
        if self.table is None:
            if self.start not in self.samples:
                raise NotVerifiable("the result keeps no sample path (samples=False)")
            return True
        if self.table.shape != (self.rows, self.cols) or int(self.table.sum()) != self.count:
            return False
        for rep, members in start_classes(self.rows, self.cols, moves).items():
            counts = {int(self.table[m]) for m in members}
            if len(counts) != 1 or (counts.pop() > 0) != (rep in self.samples):
                return False
        return True


def table_text(table) -> str:
    """A rows x cols table of counts as text, with row and column numbers."""
    rows, cols = table.shape
    width = max(len(f"{int(table.max()):,}"), len(str(cols - 1)))
    head = "    " + " ".join(f"{c:>{width}}" for c in range(cols))
    lines = [head]
    for r in range(rows):
        lines.append(f"{r:>3} " + " ".join(f"{int(v):>{width},}" for v in table[r]))
    return "\n".join(lines)


@dataclass
class ExhaustiveResult(SearchResult):
    """One path found by exhaustive search, or a proof that none exists.

    ``proven`` is True iff the search finished: either ``path`` holds a path, or ``path`` is
    None and no path exists (from ``start``, or from any start when ``start`` is None). With a
    ``node_limit`` the search may stop first: then ``path`` is None and ``proven`` is False.

    ```pycon
    >>> from rompicapo.paths import search_path
    >>> result = search_path(5, 5, (0, 0))
    >>> result.exists, result.nodes, result.verify()
    (True, 25, True)
    >>> none = search_path(4, 4, None)
    >>> none.proven, none.exists, none.path
    (True, False, None)

    ```"""

    rows: int = 0
    """Rows of the board."""
    cols: int = 0
    """Columns of the board."""
    moves: str = "caselle"
    """The move set's spec."""
    closed: bool = False
    """True when a closed tour was asked for."""
    start: Cell | None = None
    """The start searched from; None for any start."""
    path: np.ndarray | None = None
    """The path found (flat cells ``r * cols + c``), or None."""
    proven: bool = False
    """True when the search finished: ``path`` is a path, or None because none exists."""
    nodes: int = 0
    """Search states visited."""

    @property
    def exists(self) -> bool | None:
        """True / False when known, None when the node limit stopped the search first."""
        if self.path is not None:
            return True
        return False if self.proven else None

    def report(self) -> str:
        where = "any start" if self.start is None else f"{self.start}"
        kind = "closed tour" if self.closed else "path"
        head = f"{self.rows}x{self.cols} {self.moves} {kind} from {where}"
        if self.path is not None:
            return f"{head}: found ({self.nodes:,} nodes)"
        if self.proven:
            return f"{head}: none, proven by exhaustive search ({self.nodes:,} nodes)"
        return f"{head}: not settled within the node limit ({self.nodes:,} nodes)"

    def verify(self) -> bool:
        """A found path passes the independent verifier (True) or not (False). Without a path there
        is nothing to check: [`NotVerifiable`][rompicapo.common.NotVerifiable] (a proof of
        non-existence rests on the exhaustive search alone)."""
        if self.path is None:
            raise NotVerifiable(
                "no path to check" + (" (none exists, by exhaustive search)" if self.proven else "")
            )
        from rompicapo.paths.verify import verify_path

        first = (int(self.path[0]) // self.cols, int(self.path[0]) % self.cols)
        return bool(
            verify_path(
                self.path,
                self.rows,
                self.cols,
                parse_moves(self.moves),
                start=self.start if self.start is not None else first,
                closed=self.closed,
            )
        )


@dataclass
class EndCountResult(SearchResult):
    """The paths (or closed tours) counted by (start, end) pair: ``matrix[s, e]`` (flat cells
    ``r * cols + c``, int64) is the number of paths from ``s`` that end at ``e``.

    Read backwards, a path from s to e is a path from e to s, so the matrix must be symmetric; a
    symmetry of the board maps paths to paths, so ``matrix[g(s), g(e)] = matrix[s, e]``; the row
    sums are the per-start counts of [`count_paths()`][rompicapo.paths.count_paths]. `checks()`
    tests all three (the first two are real tests only where the rows were counted, not copied: with
    ``symmetry=True`` one start per class is counted and the other rows are its images).
    """

    rows: int = 0
    cols: int = 0
    moves: str = "caselle"
    closed: bool = False
    matrix: np.ndarray | None = None
    nodes: int = 0
    counted_starts: list[Cell] = field(default_factory=list)

    @property
    def table(self) -> np.ndarray:
        """The per-start counts (row sums) as a rows x cols array."""
        return self.matrix.sum(axis=1).reshape(self.rows, self.cols)

    def checks(self) -> dict[str, bool]:
        """``symmetric`` (reversal), ``invariant`` (every board symmetry that keeps the moves),
        each over the whole matrix."""
        m = self.matrix
        out = {"symmetric": bool(np.array_equal(m, m.T)), "invariant": True}
        rows, cols = self.rows, self.cols
        for sym in board_symmetries(rows, cols, self.moves):
            perm = np.array(
                [
                    apply_symmetry(sym, divmod(k, cols), rows, cols)[0] * cols
                    + apply_symmetry(sym, divmod(k, cols), rows, cols)[1]
                    for k in range(rows * cols)
                ]
            )
            image = np.empty_like(m)
            image[np.ix_(perm, perm)] = m
            out["invariant"] &= bool(np.array_equal(image, m))
        return out

    def verify(self) -> bool:
        """The per-start counts (row sums) against the independent plain recount of
        `rompicapo.paths.verify.recount_paths()` (boards of at most 20 cells), and the
        matrix's own checks; NotVerifiable above that size (`checks()` still applies)."""
        from rompicapo.paths.verify import RECOUNT_MAX_CELLS, recount_paths

        if self.matrix is None:
            raise NotVerifiable("no matrix to check")
        if self.rows * self.cols > RECOUNT_MAX_CELLS:
            raise NotVerifiable(
                f"{self.rows}x{self.cols} is too large for the independent recount; "
                "checks() tests the matrix's symmetry and invariance"
            )
        if not all(self.checks().values()):
            return False
        moves = parse_moves(self.moves)
        table = self.table
        return all(
            int(table[r, c]) == recount_paths(self.rows, self.cols, moves, (r, c),
                                              closed=self.closed)
            for r in range(self.rows)
            for c in range(self.cols)
        )  # fmt: skip

    def report(self) -> str:
        data = self.to_dict()
        checks = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in data["checks"].items())
        return (
            f"{self.rows}x{self.cols} {self.moves} by (start, end): total {data['total']:,}\n"
            f"{table_text(self.table)}\nchecks: {checks}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "moves": self.moves,
            "closed": self.closed,
            "total": int(self.matrix.sum()),
            "nodes": self.nodes,
            "counted_starts": [list(c) for c in self.counted_starts],
            "table": self.table.tolist(),
            "matrix": self.matrix.tolist(),
            "checks": self.checks(),
            "solve_seconds": round(self.solve_seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
        }
