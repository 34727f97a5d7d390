"""Completing a path from a prefix: the paper game's "hint" and "still possible?".

`complete_prefix()` takes the cells a player has written so far (1, 2, 3, ... as a list of
``(row, col)``), keeps them pinned, and searches the rest of the board depth first, trying the
onward cells with the fewest free neighbours first (Warnsdorff's rule) and pruning a branch as
soon as a free cell can no longer be entered and left (a necessary condition: every free cell
but the last needs two links, the last one). Within the time limit the answer is one of:

- ``"found"``: ``path`` completes the prefix (checked by
  [`rompicapo.paths.verify_path()`][rompicapo.paths.verify_path]);
- ``"impossible"``: no completion exists; ``proof`` says why (a cell that cannot be reached,
  two cells that could only be the end, or the whole search exhausted);
- ``"unknown"``: the time (or node) limit ran out first.

```pycon
>>> res = complete_prefix(5, 5, [(0, 0)])
>>> res.status, res.verify(), len(res.path)
('found', True, 25)
>>> complete_prefix(5, 5, [(0, 0), (0, 3), (2, 1), (2, 4), (4, 2), (1, 2), (3, 4), (0, 4)]).status
'impossible'

```"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import InputError, NotVerifiable, SearchResult, check_int
from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = ["MAX_PREFIX_CELLS", "PrefixResult", "complete_prefix"]

# The search is plain Python: boards up to this many cells (30 x 30).
MAX_PREFIX_CELLS = 900

STATUSES = ("found", "impossible", "unknown")


@dataclass
class PrefixResult(SearchResult):
    """The answer of `complete_prefix()`: ``status`` (found / impossible / unknown), the
    completed ``path`` as ``(row, col)`` cells when found (the prefix first), a one-line
    ``proof`` when impossible or a ``reason`` when unknown."""

    rows: int = 0
    cols: int = 0
    moves: str = "caselle"
    prefix: list[tuple[int, int]] = field(default_factory=list)
    status: str = "unknown"
    path: list[tuple[int, int]] = field(default_factory=list)
    proof: str = ""

    def report(self) -> str:
        head = f"{self.rows}x{self.cols}, {len(self.prefix)} cells written: {self.status}"
        return head + (f" ({self.proof})" if self.proof else "")

    def verify(self) -> bool:
        """A found path: checked by the independent verifier, and the prefix kept. An
        impossible or unknown answer cannot be re-checked here (NotVerifiable)."""
        if self.status != "found":
            raise NotVerifiable(f"a {self.status} answer has no path to check")
        from rompicapo.paths.verify import verify_path

        if [tuple(c) for c in self.path[: len(self.prefix)]] != [tuple(c) for c in self.prefix]:
            return False
        flat = np.array([r * self.cols + c for r, c in self.path], dtype=np.int64)
        return bool(verify_path(flat, self.rows, self.cols, self.moves, start=self.prefix[0]))


def _neighbours(rows: int, cols: int, ms: MoveSet) -> list[tuple[int, ...]]:
    out = []
    for r in range(rows):
        for c in range(cols):
            out.append(
                tuple(
                    (r + dr) * cols + c + dc
                    for dr, dc in ms.moves
                    if 0 <= r + dr < rows and 0 <= c + dc < cols
                )
            )
    return out


def complete_prefix(
    rows: int,
    cols: int,
    prefix: Sequence[Sequence[int]],
    *,
    moves: str | MoveSet = "caselle",
    time_limit: float = 2.0,
    node_limit: int | None = None,
) -> PrefixResult:
    """Complete the path whose first cells are ``prefix`` (``(row, col)`` pairs, 0-based) on a
    ``rows`` x ``cols`` board (at most `MAX_PREFIX_CELLS` cells), or prove it cannot be completed,
    within ``time_limit`` seconds (and ``node_limit`` nodes). Raises
    [`InputError`][rompicapo.common.InputError] for a bad board, a cell off the board, a repeated
    cell or a step that is not a move."""
    rows = check_int(rows, "rows", minimum=1, maximum=MAX_PREFIX_CELLS)
    cols = check_int(cols, "cols", minimum=1, maximum=MAX_PREFIX_CELLS)
    if rows * cols > MAX_PREFIX_CELLS:
        raise InputError(f"a {rows}x{cols} board is too large here (at most {MAX_PREFIX_CELLS})")
    if not (isinstance(time_limit, (int, float)) and 0 < time_limit <= 3600):
        raise InputError(f"time_limit must be a number of seconds in (0, 3600], got {time_limit}")
    if node_limit is not None:
        node_limit = check_int(node_limit, "node_limit", minimum=1)
    ms = moves if isinstance(moves, MoveSet) else parse_moves(moves)
    cells = _read_prefix(prefix, rows, cols)
    search = _Completion(rows, cols, _neighbours(rows, cols, ms), cells)
    out = PrefixResult(rows=rows, cols=cols, moves=ms.spec, prefix=cells)
    status, proof = search.root()
    nodes = 0
    if not status:
        status, proof, nodes = search.run(time_limit, node_limit)
    out.status, out.proof = status, proof
    if status == "found":
        out.path = [divmod(x, cols) for x in search.path]
    out.counts = {"nodes": nodes}
    out.solve_seconds = time.perf_counter() - search.t0
    return out


def _read_prefix(prefix: Sequence[Sequence[int]], rows: int, cols: int) -> list[tuple[int, int]]:
    """The prefix's cells, each a (row, col) pair on the board; InputError otherwise."""
    cells: list[tuple[int, int]] = []
    for i, cell in enumerate(prefix, 1):
        if not isinstance(cell, (list, tuple)) or len(cell) != 2:
            raise InputError(f"cell {i} of the prefix must be a (row, col) pair")
        r = check_int(cell[0], f"row of cell {i}", minimum=0, maximum=rows - 1)
        c = check_int(cell[1], f"column of cell {i}", minimum=0, maximum=cols - 1)
        cells.append((r, c))
    if not cells:
        raise InputError("the prefix is empty: give at least the first cell")
    return cells


class _Completion:
    """The depth-first search for the rest of the path: the cells visited, the free degree of
    every cell (free neighbours), and the path, the prefix pinned at its start."""

    def __init__(self, rows: int, cols: int, nbr: list[tuple[int, ...]], cells) -> None:
        self.cols = cols
        self.n = n = rows * cols
        self.nbr = nbr
        self.visited = [False] * n
        flat = [r * cols + c for r, c in cells]
        for i, x in enumerate(flat):
            if self.visited[x]:
                raise InputError(f"cell {i + 1} of the prefix, {cells[i]}, is already written")
            if i and x not in nbr[flat[i - 1]]:
                raise InputError(
                    f"cell {i + 1} of the prefix, {cells[i]}, is not one move from {cells[i - 1]}"
                )
            self.visited[x] = True
        self.deg = [sum(not self.visited[y] for y in nbr[x]) for x in range(n)]
        self.path = list(flat)
        self.t0 = time.perf_counter()

    def root(self) -> tuple[str, str]:
        """("found", "") for a whole path, ("impossible", proof) for the readable proofs of the
        root (a cell nobody can reach, two would-be ends), else ("", "")."""
        n, cols, visited, path = self.n, self.cols, self.visited, self.path
        if len(path) == n:
            return "found", ""
        near = set(self.nbr[path[-1]])
        ends = []
        for x in range(n):
            if visited[x]:
                continue
            links = self.deg[x] + (x in near)
            if links == 0:
                r, c = divmod(x, cols)
                return "impossible", f"cell ({r}, {c}) can no longer be reached"
            if links == 1:
                ends.append(divmod(x, cols))
        if len(ends) >= 2 and n - len(path) > 1:
            (r1, c1), (r2, c2) = ends[:2]
            return "impossible", (
                f"cells ({r1}, {c1}) and ({r2}, {c2}) each have one free neighbour left: "
                "both would have to be the last cell"
            )
        return "", ""

    def _visit(self, x: int) -> None:
        self.visited[x] = True
        for y in self.nbr[x]:
            self.deg[y] -= 1
        self.path.append(x)

    def _unvisit(self, x: int) -> None:
        self.path.pop()
        self.visited[x] = False
        for y in self.nbr[x]:
            self.deg[y] += 1

    def _ok_after(self, u: int, v: int) -> bool:
        # cells whose links changed: free neighbours of u (no longer next to the end of the
        # path) and of v; a dead one, or two that could only be the end, prune the branch
        left = self.n - len(self.path)
        near_v = self.nbr[v]
        ones = 0
        for x in set(self.nbr[u]) | set(near_v):
            if self.visited[x]:
                continue
            links = self.deg[x] + (x in near_v)
            if links == 0:
                return False
            if links == 1:
                ones += 1
                if ones >= 2 and left > 1:
                    return False
        return True

    def _order(self, v: int) -> list[int]:
        return sorted((y for y in self.nbr[v] if not self.visited[y]), key=lambda y: self.deg[y])

    def run(self, time_limit: float, node_limit: int | None) -> tuple[str, str, int]:
        """Search: (status, proof or reason, nodes)."""
        path = self.path
        nodes = 0
        base = len(path)
        stack = [iter(self._order(path[-1]))]
        while stack:
            nodes += 1
            if nodes & 1023 == 0 and time.perf_counter() - self.t0 > time_limit:
                return "unknown", f"time limit {time_limit:g} s reached", nodes
            if node_limit is not None and nodes > node_limit:
                return "unknown", f"node limit {node_limit:,} reached", nodes
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                if len(path) > base:
                    self._unvisit(path[-1])
                continue
            u = path[-1]
            self._visit(nxt)
            if len(path) == self.n:
                return "found", "", nodes
            if not self._ok_after(u, nxt):
                self._unvisit(nxt)
                continue
            stack.append(iter(self._order(nxt)))
        return (
            "impossible",
            f"an exhaustive search of {nodes:,} nodes found no way to complete the path",
            nodes,
        )
