"""construct(): one path through every cell of an R x C board, for any start and leaper.

The search is Warnsdorff's rule with Pósa rotations (the kernel in ``_kernel.py``):

- **the end game**: a plain rotation walk has a heavy tail. On 1000x1000, 2 seeds in 300
  needed 10^5+ rotations and a minute or two: the run was one free cell short of done, and the
  end random-walked in search of that cell's neighbours. When few cells are left free, the
  kernel searches *sequences* of rotations best-first toward the nearest free cell, preferring
  short reversals. Seeds 0..299 then need at most ~20 rotations and no regrowth at all;
- **regrowth**: an attempt may spend a budget of rotation work (cells moved by reversals).
  When it is spent, the last ``m`` cells come off the path and are regrown with fresh
  randomness: a new move order, and a tie-break centre moved a few cells. ``m`` follows Luby's
  sequence (1, 1, 2, 1, 1, 2, 4, ...) times a base, so short regrowths are tried often and long
  ones (up to a full restart) now and then. Luby, Sinclair and Zuckerman (1993): within a log
  factor of the best fixed cutoff, without knowing the run-time distribution;
- **bands**: boards of 0.5M cells and more are cut into bands of rows that threads solve at once.
  Each band ends next to the next band's start. A reserved window at that hand-over makes the
  walk finish there (see ``_plan_pieces`` and ``_kernel.reserve_cells``), and the last cells
  are completed exactly by depth-first search.

Proofs: "impossible" is only said with one. The cheap ones are exact facts: the lattice the
moves generate, connectivity, cells with a single neighbour, and the colouring of bipartite
leapers (a knight's path alternates colours). On small boards (<= 42 cells) an exhaustive
search (``rompicapo.paths.count.search_path``) settles a failed search. Otherwise the answer is
"not found".

Narrow boards (open knight paths, a side of 3 or 4) are decided exactly instead: Pósa's
argument refuses the middle rows of 4 x n, and the column-profile programme of
:mod:`rompicapo.paths.narrow` gives a path or proves that none exists for every other start.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    Stopwatch,
    check_int,
    check_memory,
    check_seed,
    check_time_limit,
    jit_warmup,
    peak_rss_bytes,
    resolve_jobs,
    seed_sequence,
)
from rompicapo.paths import _kernel
from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = [
    "EXHAUSTIVE_CELLS",
    "TIE_BREAKS",
    "PathResult",
    "construct",
    "kernel_bytes_per_cell",
    "parse_cell",
    "parse_size",
]

TIE_BREAKS = {
    "centre": _kernel.TIE_CENTRE,
    "order": _kernel.TIE_ORDER,
    "random": _kernel.TIE_RANDOM,
}

# Boards up to this many cells get an exhaustive search when the greedy search gives up:
# the exhaustive kernel settles any such board in well under a second in the cases measured
# (5x7 from any start, 6x6, 4xN); above, a proof could take hours and is left to `count`.
EXHAUSTIVE_CELLS = 42

# Budget of rotation work per attempt, in cells moved by reversals: a fraction of the board
# (rotations at a dead end reverse suffixes, so the work, not the count, is what costs), and at
# least enough for the few hundred short rotations a typical board needs.
WORK_PER_CELL = 0.5
MIN_WORK = 1 << 16

# Regrowth length base: about sqrt(n) cells, so on 10^6 cells the first regrowths redo ~1000
# cells (~30 us) and the Luby schedule reaches a full restart after a few dozen attempts.
MIN_REGROW = 64

# Progress: the kernel is called in chunks of this many cells, so a progress bar can move and
# Ctrl-C can be honoured between chunks (a chunk takes well under a second).
CHUNK_CELLS = 1 << 22

INT32_CELLS = 2**31 - 1


def kernel_bytes_per_cell(cells: int) -> int:
    """Bytes per cell of the constructor's arrays: 9 with 32-bit indices, 17 with 64-bit."""
    return 1 + 2 * (4 if cells <= INT32_CELLS else 8)


def _luby(i: int) -> int:
    """The i-th term (i >= 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...

    t(i) = 2^(k-1) if i = 2^k - 1, else t(i - 2^(k-1) + 1) where 2^(k-1) <= i < 2^k - 1.
    """
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


# --------------------------------------------------------------------------------------------
# Parsing helpers shared by the CLI and the API
# --------------------------------------------------------------------------------------------


_SIZE = re.compile(r"\s*\+?(\d+)\s*(?:[xX×*]\s*\+?(\d+)\s*)?")
_CELL = re.compile(r"\s*(-?\d+)\s*[,:]\s*(-?\d+)\s*")


def parse_size(text: str | int | tuple[int, int]) -> tuple[int, int]:
    """``"10"`` -> (10, 10); ``"5x7"`` (also ``5X7``, ``5×7``, ``5*7``) -> (5, 7); an int or a
    pair is checked as it is. Both sides must be at least 1; :class:`InputError` otherwise."""
    if isinstance(text, tuple):
        rows, cols = text
    elif isinstance(text, int | np.integer):
        rows = cols = text
    else:
        m = _SIZE.fullmatch(str(text))
        if m is None:
            raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
        rows = check_int(m.group(1), "rows")  # a digit limit: no 5,000-digit conversion
        cols = check_int(m.group(2), "columns") if m.group(2) is not None else rows
    if not (isinstance(rows, int | np.integer) and isinstance(cols, int | np.integer)):
        raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
    if rows < 1 or cols < 1:
        raise InputError(f"bad board size {text!r}: rows and columns must be at least 1")
    return int(rows), int(cols)


def parse_cell(
    text: str | tuple[int, int] | int,
    rows: int | None = None,
    cols: int | None = None,
    what: str = "start",
) -> tuple[int, int]:
    """``"R,C"`` (0-based; ``R:C`` too), a pair, or a flat index -> (r, c).

    With ``rows`` and ``cols`` the cell must be on that board (:class:`InputError` otherwise,
    naming the cell ``what``).
    """
    if isinstance(text, str):
        m = _CELL.fullmatch(text)
        if m is None:
            raise InputError(f"bad cell {text!r}: write R,C (0-based row and column, e.g. 2,3)")
        r, c = check_int(m.group(1), f"{what} row"), check_int(m.group(2), f"{what} column")
    elif isinstance(text, int | np.integer):
        if rows is None or cols is None or not 0 <= text < rows * cols:
            raise InputError(f"cell index {text} is outside the board")
        r, c = divmod(int(text), cols)
    else:
        try:
            r, c = (int(v) for v in text)
        except (TypeError, ValueError):
            raise InputError(f"bad cell {text!r}: give (row, col)") from None
    if rows is not None and cols is not None and not (0 <= r < rows and 0 <= c < cols):
        raise InputError(
            f"{what} ({r}, {c}) is outside the {rows}x{cols} board "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r, c


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


@dataclass
class PathResult(SearchResult):
    """A path search's answer.

    ``status`` is ``"found"`` (``path`` holds every cell once, from ``start``), ``"impossible"``
    (no such path exists, and ``proof`` says how that was shown), ``"not found"`` (the search
    gave up without a proof) or ``"interrupted"`` (Ctrl-C; ``path`` holds the partial path).
    """

    rows: int = 0
    cols: int = 0
    start: tuple[int, int] = (0, 0)
    moves: MoveSet = field(default_factory=lambda: parse_moves("caselle"))
    closed: bool = False
    seed: int | None = None
    method: str = "greedy"
    status: str = "not found"
    path: np.ndarray | None = None
    proof: str = ""
    rotations: int = 0
    restarts: int = 0
    # the verifier's verdict once checked (None: not checked yet), what was written, and notes
    # for the user (a capped number of jobs, say)
    verified: bool | None = None
    written: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # a path streamed to an .rpath file and never held in memory (path is None then)
    out: str | None = None
    out_bytes: int = 0
    write_seconds: float = 0.0
    verify_seconds: float = 0.0
    reason: str = ""

    _dict_exclude = (
        "path", "moves", "verified", "written", "unwritten", "notes", "out", "out_bytes",
        "write_seconds", "verify_seconds", "reason", "solve_seconds", "compile_seconds",
    )  # fmt: skip

    @property
    def found(self) -> bool:
        return self.status == "found"

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def streamed(self) -> bool:
        """The path went straight to an ``.rpath`` file (``out``) and is not in memory."""
        return self.found and self.path is None and self.out is not None

    def grid(self) -> np.ndarray:
        """The R x C array of step numbers (1 = start), as written on paper."""
        from rompicapo.paths.render import step_grid

        if self.path is None or len(self.path) != self.cells:
            raise InputError("no complete path to show")
        return step_grid(self.path, self.rows, self.cols)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a found path as its SVG (boards up to 200x200)."""
        import tempfile
        from pathlib import Path

        from rompicapo.paths.render import SVG_MAX_CELLS, write_svg

        if self.path is None or self.status != "found" or self.rows * self.cols > SVG_MAX_CELLS:
            return None
        with tempfile.TemporaryDirectory() as folder:
            svg = Path(folder) / "path.svg"
            write_svg(self.path, self.rows, self.cols, svg)
            return svg.read_text()

    def verify(self) -> bool:
        """Check the path with the independent verifier: True when it is a valid path (closed
        when asked) from ``start``, False when it is not. A streamed path is checked in its
        ``.rpath`` file. Raises :class:`~rompicapo.common.NotVerifiable` when there is no
        complete path (not found, impossible, interrupted): there is nothing to check."""
        if not self.found:
            raise NotVerifiable(f"no path to check (the search ended {self.status!r})")
        if self.streamed:
            from rompicapo.paths.verify_stream import verify_rpath

            check = verify_rpath(self.out, start=self.start, moves=self.moves, closed=self.closed)
            self.verified = bool(check)
        else:
            self.verified = bool(self.check())
        return self.verified

    def check(self):
        """The verifier's full verdict (a PathCheck with the reason of a failure)."""
        from rompicapo.paths.verify import verify_path

        return verify_path(
            self.path if self.path is not None else np.empty(0, np.int64),
            self.rows,
            self.cols,
            self.moves,
            start=self.start,
            closed=self.closed,
        )

    def _dict_extra(self) -> dict[str, Any]:
        """The keys of ``rompicapo path --json`` (a streamed path has its file's keys)."""
        verified = self.verified
        if verified is None:
            verified = bool(self.check()) if self.found and self.path is not None else False
        out: dict[str, Any] = {
            "moves": self.moves.spec,
            "found": self.found,
            "verified": verified,
            "compile_seconds": round(self.compile_seconds, 6),
        }
        if self.streamed:
            out.update(
                reason=self.reason,
                out=self.out,
                bytes=self.out_bytes,
                write_seconds=round(self.write_seconds, 3),
                verify_seconds=round(self.verify_seconds, 3),
            )
        else:
            out["solve_seconds"] = round(self.solve_seconds, 6)
        if self.written:
            out["written"] = list(self.written)
        if self.unwritten:
            out["unwritten"] = list(self.unwritten)
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def report(self, *, grid: bool = True) -> str:
        """The lines ``rompicapo path`` prints: the outcome, the numbered grid of a small board
        (``grid``), and the files written."""
        from rompicapo.paths.render import grid_text

        rows, cols, (r0, c0) = self.rows, self.cols, self.start
        board = f"{rows}x{cols} {self.moves.name} from ({r0}, {c0})"
        if self.closed:
            board += ", closed tour"
        timing = f"solve {self.solve_seconds:.3f} s, compile {self.compile_seconds:.2f} s"
        verdict = {True: "verified", False: "NOT VERIFIED", None: "not checked"}[self.verified]
        lines = []
        if self.streamed:
            lines.append(
                f"{board}: {self.method}, written to {self.out} "
                f"({self.out_bytes / 1e9:.3g} GB in {self.write_seconds:.2f} s), "
                f"{verdict if self.verified else verdict + ': ' + self.reason} "
                f"in {self.verify_seconds:.2f} s (compile {self.compile_seconds:.2f} s)"
            )
        elif self.found:
            how = (
                f"{self.counts['bands']} bands of {self.counts['blocks_per_band']} blocks"
                if self.method == "blocks"
                else f"a window {self.counts['window_columns']} wide searched, closed tours "
                "beside it"
                if self.method == "window"
                else f"column profiles, {self.counts['profile_states']:,} states at most"
                if self.method == "profile"
                else f"{self.rotations} rotations, {self.restarts} restarts"
            )
            lines.append(f"{board}: found, {verdict} ({how}, {timing})")
            if grid and cols <= TEXT_GRID_COLS and rows * cols <= TEXT_GRID_CELLS:
                lines += ["", grid_text(self.path, rows, cols)]
        elif self.status == "impossible":
            lines.append(f"{board}: impossible: {self.proof}")
        elif self.status == "interrupted":
            done = self.counts.get("path_cells", 0)
            lines.append(f"{board}: interrupted after {done:,} of {rows * cols:,} cells ({timing})")
        else:
            within = " within the time limit" if self.counts.get("time_limit_reached") else ""
            if self.method == "profile":
                lines.append(f"{board}: not found{within} (column profiles, {timing})")
                return "\n".join(lines)
            lines.append(
                f"{board}: not found{within} ({self.rotations} rotations, {self.restarts} "
                f"restarts, {timing}); no proof that none exists"
            )
        lines += [f"wrote {name}" for name in self.written]
        return "\n".join(lines)


# Boards with at most this many columns and cells are printed as a numbered grid.
TEXT_GRID_COLS = 40
TEXT_GRID_CELLS = 2500


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------


def _warm_kernels(itype: type, mset: MoveSet) -> None:
    """Compile (or load from cache) the kernels with the signatures construct() uses for
    ``itype`` path arrays (int32 below 2^31 cells: the 64-bit variant is compiled only when a
    board needs it) and ``mset``'s number of moves (the scan is specialised on it)."""
    dr, dc = mset.arrays()
    _run_tiny(dr, dc, itype)
    dr, dc = parse_moves("caselle").arrays()
    _kernel.board_structure(3, 3, dr, dc, 0, np.empty(9, itype), np.zeros(9, np.uint8))


def _run_tiny(dr: np.ndarray, dc: np.ndarray, itype: type) -> None:
    rows = cols = 6
    n = rows * cols
    state = np.empty(n, np.uint8)
    path = np.empty(n, itype)
    pos = np.empty(n, itype)
    _kernel.init_state(rows, cols, dr, dc, state)
    _kernel.visit_cell(rows, cols, dr, dc, state, 0)
    path[0] = 0
    pos[0] = 0
    drt, dct, offt = _move_tuples(dr, dc, cols)
    plen, *_ = _kernel.extend_path(
        rows, cols, dr, dc, drt, dct, offt, state, path, pos, 1, n, 0, False, 0, 0, 1000,
        np.uint64(1), _kernel.TIE_CENTRE, rows - 1, cols - 1,
    )  # fmt: skip
    _kernel.truncate_path(rows, cols, dr, dc, state, path, pos, plen, 1)
    _kernel.complete_exact(
        rows, cols, dr, dc, state, path, pos, 1, n, True, 0, 0, 100,
        np.empty((len(dr), n), np.int64), np.empty(n, np.int64),
    )  # fmt: skip
    _kernel.reserve_cells(state, pos, np.array([1, 2], np.int64), True)
    _kernel.reserve_cells(state, pos, np.array([1, 2], np.int64), False)


def _move_tuples(dr: np.ndarray, dc: np.ndarray, cols: int) -> tuple[tuple, tuple, tuple]:
    """Moves as tuples: the kernel specialises on their length and unrolls the scan."""
    return (
        tuple(int(x) for x in dr),
        tuple(int(x) for x in dc),
        tuple(int(a) * cols + int(b) for a, b in zip(dr, dc, strict=True)),
    )


def _in_lattice(moves: list[tuple[int, int]], step: tuple[int, int]) -> bool:
    """Whether ``step`` is a sum of the moves (with signs): a member of the lattice they
    generate. The lattice's basis in echelon form is (a, b), (0, d): a is the gcd of the row
    steps, and d the gcd of the column steps left once (a, b) has taken each row step away."""
    a, b = 0, 0
    for r, c in moves:  # (a, b) <- a combination of (a, b) and (r, c) with row gcd(a, r)
        g, x, y = _extended_gcd(a, r)
        a, b = g, x * b + y * c
    d = 0
    for r, c in moves:
        d = math.gcd(d, c - (r // a) * b if a else c)
    p, q = step
    if a == 0:
        return p == 0 and (q % d == 0 if d else q == 0)
    if p % a:
        return False
    rest = q - (p // a) * b
    return rest % d == 0 if d else rest == 0


def _extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """(g, x, y) with g = gcd(a, b) >= 0 and a*x + b*y = g."""
    x0, y0, x1, y1 = 1, 0, 0, 1
    while b:
        q, a, b = a // b, b, a % b
        x0, x1 = x1, x0 - q * x1
        y0, y1 = y1, y0 - q * y1
    return (a, x0, y0) if a >= 0 else (-a, -x0, -y0)


def _lattice_obstruction(rows: int, cols: int, moves: MoveSet, fitting: bool = False) -> str:
    """The moves join only cells whose difference lies in the lattice they generate. The
    board's cells all lie in one class exactly when each of its unit steps, (0, 1) with 2+
    columns and (1, 0) with 2+ rows, is in the lattice; else (0, 0) and that neighbour are
    never joined (a 1 x n board needs only (0, 1), so (0, 1) alone serves it). With
    ``fitting`` only the moves that fit on the board count: on 1 x 10**9 the caselle moves that
    can be made are (0, +-3), and the proof takes no look at the 10**9 cells (the structure
    check would, for seconds past any time limit)."""
    usable = list(moves.moves)
    if fitting:
        usable = [(r, c) for r, c in usable if abs(r) < rows and abs(c) < cols]
    fits = "" if len(usable) == len(moves.moves) else f" that fit on a {rows}x{cols} board"
    for step, needed in (((0, 1), cols > 1), ((1, 0), rows > 1)):
        if needed and not _in_lattice(usable, step):
            return (
                f"no sum of the {moves.name} moves{fits} is {step}, so the cells (0, 0) and "
                f"{step} are never on one path (the lattice of the moves splits the board into "
                "classes)"
            )
    return ""


# The O(cells) connectivity and dead-end check costs about as much as the walk itself, so it
# runs before the search only where a disconnected board is plausible (small boards, and
# narrow ones: every caselle board with both sides >= 5 is connected); elsewhere it runs only
# if the search gives up, to turn "not found" into a proof when there is one.
STRUCTURE_CELLS = 1 << 16
NARROW_SIDE = 8


def _prove_by_structure(result, start_flat, dr, dc, queue, seen) -> bool:
    """Run the structure check (``queue`` and ``seen`` are scratch arrays of the board's size);
    on an obstruction, mark ``result`` impossible with it as the proof and return True."""
    seen[:] = 0
    why = _structure_obstruction(
        result.rows, result.cols, start_flat, dr, dc, queue, seen, result.closed
    )
    if why:
        result.status = "impossible"
        result.proof = why
    return bool(why)


def _structure_obstruction(rows, cols, start_flat, dr, dc, queue, seen, closed=False) -> str:
    reached, leaves, start_leaf = _kernel.board_structure(
        rows, cols, dr, dc, start_flat, queue, seen
    )
    n = rows * cols
    if reached < n:
        return (
            f"only {reached} of the {n} cells can be reached from the start "
            f"(the move graph is not connected)"
        )
    if closed and n > 2 and leaves:
        return (
            f"{leaves} cells have a single neighbour, and a closed tour enters and leaves each cell"
        )
    # A cell with one neighbour must be an end of the path; the start is one end already.
    free_ends = leaves - (1 if start_leaf else 0)
    if n > 2 and free_ends > 1:
        return (
            f"{leaves} cells have a single neighbour and each must be an end of the path, "
            f"but a path from the given start has only one more end"
        )
    return ""


def _colour_obstruction(rows: int, cols: int, start: tuple[int, int], moves: MoveSet, closed: bool):
    """For a move set whose moves all change r + c by an odd amount, a path alternates the two
    colours of the chessboard colouring: return why no path can exist, or ''."""
    if not all((dr + dc) % 2 for dr, dc in moves.moves):
        return ""
    n = rows * cols
    even = (n + 1) // 2  # cells with (r + c) even: the colour of (0, 0)
    odd = n // 2
    start_even = (start[0] + start[1]) % 2 == 0
    if closed and n > 1 and even != odd:
        return (
            f"every {moves.name} move changes the colour of the cell; a closed tour alternates "
            f"colours, but this board has {even} cells of one colour and {odd} of the other"
        )
    if even > odd and not start_even:
        return (
            f"every {moves.name} move changes the colour of the cell, so a path alternates "
            f"colours; this board has {even} cells of the colour of (0, 0) and {odd} of the "
            f"other, so a path must start on the colour of (0, 0), and ({start[0]}, {start[1]}) "
            f"is not"
        )
    return ""


def construct(
    rows: int,
    cols: int | None = None,
    start: tuple[int, int] | str | int = (0, 0),
    moves: str | MoveSet = "caselle",
    *,
    closed: bool = False,
    seed: int | None = None,
    tie_break: str = "centre",
    max_attempts: int | None = None,
    time_limit: float | None = None,
    prove: bool = True,
    progress: ProgressCallback | None = None,
    jobs: int | None = None,
    strips: int | None = None,
    method: str = "greedy",
) -> PathResult:
    """Find a path through every cell of a ``rows`` x ``cols`` board from ``start``.

    Args:
        rows, cols: the board (``cols`` defaults to ``rows``).
        start: the first cell, ``(r, c)`` 0-based, ``"r,c"`` or a flat index.
        moves: ``"caselle"`` (default), ``"knight"``, ``"DR,DC;..."`` or a :class:`MoveSet`.
        closed: ask for a closed tour (the last cell one move from the first).
        seed: makes the run reproducible (the same seed gives the same path); any integer,
            negative ones included; ``None`` = 0.
        tie_break: Warnsdorff's tie-break: ``"centre"`` (farthest from the centre, default),
            ``"order"`` (first in the seeded move order) or ``"random"``.
        max_attempts: give up after this many regrowths (default: 64 + 4 log2(cells)).
        time_limit: give up after this many seconds of wall clock for the whole call
            (compilation included).
        prove: on small boards (<= 42 cells), settle a failure by exhaustive search.
        progress: a callable receiving :class:`~rompicapo.common.ProgressEvent` (cells of the
            path done); the library draws nothing.
        jobs: threads solving bands of the board at once (default: all cores; more than the
            cores are capped, with a note in ``result.notes``).
        strips: bands of rows the board is cut into (default: 1 below 0.5M cells, then 2, then
            one per ~1M cells, at most 64, bands of at least 64 rows; 1 for closed tours). The
            bands, not the jobs, decide the
            path: a seed gives the same path whatever the number of cores.
        method: ``"greedy"`` (default: the search above, any board, start and move set),
            ``"blocks"`` (no search, no seed: the corner path of :mod:`rompicapo.paths.blocks`
            for caselle open paths from (0, 0), else the block cycle of
            :mod:`rompicapo.paths.cycles` read from ``start``, a closed tour, for leapers with
            a block table on boards from its minimum size (10 for caselle, an even side >= 12
            and the other >= 10 for the knight); a board below the minimum gets the direct
            search instead (closed tours and thin boards: depth-first search first), and an
            InputError says in one line when blocks cannot apply; open knight paths on
            boards with a side <= 9 first get
            :mod:`rompicapo.paths.window`, a search of a few columns around the start joined
            to closed tours of the two sides) or
            ``"auto"`` (blocks where they apply, else greedy). Greedy closed tours start the
            walk at the board's centre and read the cycle from ``start``. Open knight paths on
            boards with a side of 3 or 4 get, with any method but ``"greedy"``, the exact
            column-profile search of :mod:`rompicapo.paths.narrow` (``method`` "profile" in
            the result): a path (or closed tour), or "impossible" with its proof, or "not found"
            only when ``time_limit`` runs out.

    Returns a :class:`PathResult`; ``status`` says whether a path was found, shown impossible,
    not found, or interrupted. Raises :class:`~rompicapo.common.InputError` for a bad size,
    start or move set, and :class:`~rompicapo.common.InsufficientMemoryError` when the arrays
    would not fit in the memory available (checked before allocating).
    """
    deadline = Deadline(check_time_limit(time_limit))
    if cols is None:
        cols = rows
    rows, cols = parse_size((rows, cols))
    r0, c0 = parse_cell(start, rows, cols)
    mset = parse_moves(moves)
    if tie_break not in TIE_BREAKS:
        raise InputError(f"unknown tie-break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}")
    seed = check_seed(seed)
    seed = 0 if seed is None else seed
    jobs, jobs_note = resolve_jobs(jobs)
    progress = _progress_callback(progress)
    n = rows * cols
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    # knight boards with a side of 3 or 4 are below every block table's minimum: they go
    # straight to the proofs and the exact column-profile search below
    if method in ("blocks", "auto") and not _profile_applies(rows, cols, mset):
        kind, why_not = block_method(rows, cols, (r0, c0), mset, closed)
        if kind in ("blocks", "blocks-cycle"):
            if kind == "blocks":
                result = _construct_blocks(rows, cols, mset, jobs)
            else:
                result = _construct_cycle(rows, cols, mset, (r0, c0), closed, jobs)
            result.notes += [jobs_note] if jobs_note else []
            return result
        # a board below the blocks' minimum is small enough for a direct search; a bipartite
        # leaper's closed tour on odd x odd gets its impossibility proof from the search below
        small = why_not == "size" or (why_not == "colour" and closed)
        if method == "blocks" and not small:
            raise InputError(
                "the block construction does not apply: "
                f"{blocks_refusal(rows, cols, (r0, c0), mset, closed)} (use method='greedy')"
            )
    result = PathResult(rows=rows, cols=cols, start=(r0, c0), moves=mset, closed=closed, seed=seed)
    result.notes += [jobs_note] if jobs_note else []
    if len(mset) > 16:
        raise InputError(f"the constructor takes at most 16 moves, {mset.name!r} has {len(mset)}")
    obstruction = ""
    if n > 1:
        obstruction = (
            _lattice_obstruction(rows, cols, mset)
            or _colour_obstruction(rows, cols, (r0, c0), mset, closed)
            or _four_rows_obstruction(rows, cols, mset, closed, (r0, c0))
            or _lattice_obstruction(rows, cols, mset, fitting=True)
        )
    elif closed:
        obstruction = "a closed tour ends one move from its start, and a 1x1 board has no move"
    if obstruction:
        result.status = "impossible"
        result.proof = obstruction
        return result
    if method != "greedy" and _profile_applies(rows, cols, mset):
        # exact: a verified path or a proof, unless the time limit runs out first
        return _by_profile(result, mset, deadline)
    if not closed and method != "greedy" and _window_applies(rows, cols, mset):
        found = _by_window(result, mset, deadline)
        if found is not None:
            return found
    itype = np.int32 if n <= INT32_CELLS else np.int64
    need = n * kernel_bytes_per_cell(n)
    check_memory(
        need, f"a {rows}x{cols} board ({n:,} cells at {kernel_bytes_per_cell(n)} bytes each)"
    )
    result.compile_seconds = jit_warmup(
        f"paths.construct.{np.dtype(itype).name}.{len(mset)}", lambda: _warm_kernels(itype, mset)
    )

    if max_attempts is None:
        # small boards have the exhaustive search behind them; large ones get a generous
        # margin (the 1000x1000 tail run needs no regrowth at all)
        max_attempts = 16 if n <= EXHAUSTIVE_CELLS else 64 + 4 * max(1, int(math.log2(n + 1)))
    # the kernel sees the moves in sorted order: a move set and a seed decide the path,
    # however the set was spelled
    canonical = sorted(mset.moves)
    dr0 = np.array([m[0] for m in canonical], dtype=np.int64)
    dc0 = np.array([m[1] for m in canonical], dtype=np.int64)
    # seeds >= 0 keep the paths they always gave; negative ones get their own streams
    ss = np.random.SeedSequence(seed) if seed >= 0 else seed_sequence(seed)
    start_flat = r0 * cols + c0

    with Stopwatch() as sw:
        state = np.empty(n, np.uint8)
        path = np.empty(n, itype)
        pos = np.empty(n, itype)
        plausible = n <= STRUCTURE_CELLS or min(rows, cols) < NARROW_SIDE
        if n > 1 and plausible and _prove_by_structure(result, start_flat, dr0, dc0, path, state):
            return result
        # A closed tour is a cycle: any cell may be where the search starts, and the cycle is
        # then read from the asked start. The walk peels the board from the edges (ties go
        # farthest from the centre) and ends near the centre, so started at the centre it ends
        # next to its start: 3000x3000 caselle closes after 7 rotations in 1 CPU s, where from
        # the corner the end had to be brought back across the board (gave up after 300 s).
        search_start = (rows // 2, cols // 2) if closed else (r0, c0)
        pieces = _plan_pieces(rows, cols, search_start, closed, strips)
        run = _Run(
            dr0=dr0, dc0=dc0, tie=TIE_BREAKS[tie_break], max_attempts=max_attempts,
            deadline=None if time_limit is None else time.perf_counter() + deadline.remaining(),
        )  # fmt: skip
        status, done_cells = _solve_pieces(
            run, pieces, rows, cols, state, path, pos, ss, jobs, progress
        )
    result.solve_seconds += sw.seconds  # after a window or depth-first try, if one ran
    result.peak_bytes = peak_rss_bytes()
    result.rotations = run.rotations
    result.restarts = run.restarts
    if run.exact_nodes:
        result.counts["exact_nodes"] = run.exact_nodes
    if run.merges:
        result.counts["merged_bands"] = run.merges
    result.counts["path_cells"] = done_cells
    if len(pieces) > 1:
        result.counts["strips"] = len(pieces)
        result.method = f"greedy, {len(pieces)} strips"
    if status == "found":
        result.status = "found"
        if closed and search_start != (r0, c0):
            path = np.roll(path, -int(np.flatnonzero(path == start_flat)[0]))
        result.path = path
        return result
    if status == "interrupted":
        result.status = "interrupted"
        result.path = path[:done_cells].copy()
        del path
        return result
    result.status = "not found"
    if run.timed_out:  # keep the cells done, as an interrupted run does; no proof now
        result.counts["time_limit_reached"] = 1
        result.path = path[:done_cells].copy()
        return result
    if n > STRUCTURE_CELLS and min(rows, cols) >= NARROW_SIDE:
        _prove_by_structure(result, start_flat, dr0, dc0, path, state)
    del path, pos, state
    if result.status == "not found" and n <= DFS_CELLS and method != "greedy":
        # the walk can miss the open tours of thin boards (5 x 13 knight from (3, 11)) and a
        # closed one now and then (5 x 16 knight)
        found = _by_dfs(result, mset, deadline)
        if found is not None:
            return found
    if result.status == "not found" and prove and n <= EXHAUSTIVE_CELLS:
        _settle_by_exhaustive_search(result)
    return result


METHODS = ("greedy", "blocks", "auto")
_SHORT_SIDE = "it needs both sides >= 5"


def _progress_callback(progress: object) -> ProgressCallback | None:
    """``progress`` as a callback: earlier releases took a bool (True drew a bar on stderr);
    the library no longer draws, so a bool means no callback."""
    if isinstance(progress, bool) or progress is None:
        return None
    if not callable(progress):
        raise InputError(f"progress must be a callable or None, got {type(progress).__name__}")
    return progress


def blocks_refusal(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool
) -> str:
    """Why no block construction can make this path ("" when one can: the corner path of
    :mod:`~rompicapo.paths.blocks` or the cycle of :mod:`~rompicapo.paths.cycles`): the one
    rule :func:`construct`'s ``method="auto"`` and the CLI's streamed output both follow."""
    kind, _ = block_method(rows, cols, start, mset, closed)
    if kind:
        return ""
    from rompicapo.paths.cycles import cycle_refusal

    return cycle_refusal(rows, cols, mset)


def block_method(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool
) -> tuple[str, str]:
    """``("blocks", "")`` for the corner path (caselle, open, start (0, 0), sides >= 5),
    ``("blocks-cycle", "")`` for the block cycle cut at the start, else ``("", why)`` with
    ``why`` the cycle's :func:`~rompicapo.paths.cycles.refusal_kind`."""
    from rompicapo.paths.cycles import refusal_kind

    if not _path_refusal(rows, cols, start, mset, closed):
        return "blocks", ""
    kind = refusal_kind(rows, cols, mset)
    return ("blocks-cycle", "") if not kind else ("", kind)


def _path_refusal(rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool) -> str:
    """Why the corner path of :mod:`rompicapo.paths.blocks` cannot make this path."""
    from rompicapo.paths.blocks import MIN_SIDE

    if set(mset.moves) != set(parse_moves("caselle").moves):
        return f"it is made for caselle moves, not {mset.name}"
    if closed:
        return "it makes open paths, not closed tours"
    if min(rows, cols) < MIN_SIDE:
        return _SHORT_SIDE
    if start != (0, 0):
        return "its path starts at (0, 0)"
    return ""


def _construct_blocks(rows: int, cols: int, mset: MoveSet, jobs: int | None) -> PathResult:
    from rompicapo.paths.blocks import BlockPath, warm_up

    result = PathResult(rows=rows, cols=cols, start=(0, 0), moves=mset, method="blocks")
    bp = BlockPath(rows, cols)  # sizes checked (exact ints) before compiling anything
    n = rows * cols
    itemsize = 4 if n <= INT32_CELLS else 8
    # the path array, plus the verifier's byte per cell that every caller runs next
    check_memory(
        n * (itemsize + 1),
        f"a {rows}x{cols} block path ({n:,} cells at {itemsize + 1} bytes each with its check; "
        "write it to a .rpath file to stream it instead)",
    )
    result.compile_seconds = jit_warmup("paths.blocks.path", lambda: warm_up("path"))
    with Stopwatch() as sw:
        result.path = bp.fill_path(jobs=jobs)
    result.solve_seconds = sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.status = "found"
    result.counts["bands"] = len(bp.bands)
    result.counts["blocks_per_band"] = len(bp.block_widths)
    return result


def _construct_cycle(rows, cols, mset, start, closed, jobs) -> PathResult:
    """The block cycle read from ``start``: a closed tour, hence also an open path."""
    from rompicapo.paths.cycles import BlockCycle, warm_up

    result = PathResult(
        rows=rows, cols=cols, start=start, moves=mset, closed=closed, method="blocks-cycle"
    )
    result.compile_seconds = jit_warmup("paths.cycles.path", lambda: warm_up("path"))
    n = rows * cols
    itemsize = 4 if n <= INT32_CELLS else 8
    check_memory(
        n * (itemsize + 1),
        f"a {rows}x{cols} block cycle ({n:,} cells at {itemsize + 1} bytes each with its check; "
        "write it to a .rpath file to stream it instead)",
    )
    with Stopwatch() as sw:
        bc = BlockCycle(rows, cols, mset, start)
        result.path = bc.fill_path(jobs=jobs)
    result.solve_seconds = sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.status = "found"
    result.counts["bands"] = bc.bands
    result.counts["blocks_per_band"] = bc.block_columns
    if bc.transposed:
        result.counts["transposed"] = 1
    return result


# Paths on boards up to this many cells that the walk missed get the depth-first search of
# the block tables. Closed tours used to try it first, but the walk is the quicker of the two:
# on every board of 5..64 rows up to 4096 cells, from (rows // 2, cols // 3), it closed all 8,866
# caselle tours (4 ms at worst, 18 CPU s in all) and every knight tour Schwenk allows but
# 5 x 16 (0.5 s to give up), where a failed search costs the DFS up to 8 seeds x 8 ends x 200,000
# nodes (1-2 CPU s on 5 x 150 caselle before the walk closed it in milliseconds).
DFS_CELLS = 4096
DFS_NODES = 200_000
DFS_SEEDS = 8


def _by_dfs(result: PathResult, mset: MoveSet, deadline: Deadline) -> PathResult | None:
    """A path (closed: ending next to the start) by the block tables' depth-first search, or
    None when the node budgets or the time run out (no proof either way). One search of
    ``DFS_NODES`` takes ~0.1 s; the time is checked between searches."""
    from rompicapo.paths._block_search_kernel import block_path

    rows, cols = result.rows, result.cols
    r0, c0 = result.start
    dr, dc = mset.arrays()
    ends = [
        (r0 + a) * cols + c0 + b for a, b in mset.moves if 0 <= r0 + a < rows and 0 <= c0 + b < cols
    ]
    if not result.closed:
        ends = [-1]
    nodes = 0
    with Stopwatch() as sw:
        for seed in range(DFS_SEEDS):
            for end in ends:
                if deadline.expired():
                    break
                path, k = block_path(rows, cols, dr, dc, r0 * cols + c0, end, DFS_NODES, seed)
                nodes += int(k)
                if len(path):
                    result.path = path.astype(np.int32)
                    result.status = "found"
                    result.method = "dfs"
                    break
            if result.found:
                break
    result.solve_seconds += sw.seconds
    result.counts["dfs_nodes"] = nodes
    if not result.found and deadline.expired():
        result.counts["time_limit_reached"] = 1  # "not found within the time limit"
    return result if result.found else None


# Knight paths on boards with a side of 3 or 4: the column-profile programme of
# rompicapo.paths.narrow decides every start (a path or a proof) where the walk gave "not found"
# (4 x 30 from (0, 9)); on 4 x n at most ~38,000 states per cell, 4 x 2000 from any start in
# well under a second once the first columns are computed. Closed tours too (3 x n: Schwenk's
# even n >= 10; 4 x n is Pósa's, refused before).
PROFILE_SIDES = (3, 4)


def _profile_applies(rows: int, cols: int, mset: MoveSet) -> bool:
    return min(rows, cols) in PROFILE_SIDES and mset == parse_moves("knight")


def _by_profile(result: PathResult, mset: MoveSet, deadline: Deadline) -> PathResult:
    """The exact column-profile search: "found", "impossible" with its proof, or "not found"
    when the time limit ran out first."""
    from rompicapo.paths.narrow import check_plan_memory, narrow_path, warm_up

    # a board whose plan cannot fit is refused before anything compiles (a cold compile takes
    # 5-10 s: "3x99999999999" was one line, but after them)
    check_plan_memory(max(result.rows, result.cols))
    result.compile_seconds = jit_warmup("paths.narrow", warm_up)
    with Stopwatch() as sw:
        res = narrow_path(
            result.rows, result.cols, result.start, mset, closed=result.closed, deadline=deadline
        )
    result.solve_seconds += sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.method = "profile"
    result.status = res.status
    result.counts.update({f"profile_{k}": v for k, v in res.counts.items()})
    if res.status == "found":
        itype = np.int32 if result.rows * result.cols <= INT32_CELLS else np.int64
        result.path = res.path.astype(itype)
    elif res.status == "impossible":
        result.proof = res.proof
    else:
        result.counts["time_limit_reached"] = 1
    return result


def _window_applies(rows: int, cols: int, mset: MoveSet) -> bool:
    """Open knight paths on a narrow board: :func:`~rompicapo.paths.window.window_path` first
    (the walk misses paths from starts in the middle of 5 x n: it must cover one end and come
    back). Only the knight: Schwenk's theorem says at once which sides have the closed tours
    the window joins; for another leaper each side would be a search that may fail slowly."""
    from rompicapo.paths.window import WINDOW_CELLS, WINDOW_SIDE

    knight = mset == parse_moves("knight")
    return knight and 1 < rows * cols <= WINDOW_CELLS and min(rows, cols) <= WINDOW_SIDE


def _by_window(result: PathResult, mset: MoveSet, deadline: Deadline) -> PathResult | None:
    """The window search joined to closed tours of the sides, or None (no proof either way,
    or the time ran out)."""
    from rompicapo.paths.window import window_path

    info: dict = {}
    seconds = None if deadline.time_limit is None else max(1e-3, deadline.remaining())
    with Stopwatch() as sw:
        path = window_path(
            result.rows, result.cols, result.start, mset, info=info, time_limit=seconds
        )
    result.solve_seconds += sw.seconds
    result.counts["windows"] = info["windows"]
    if path is None:
        return None
    itype = np.int32 if result.rows * result.cols <= INT32_CELLS else np.int64
    result.path = path.astype(itype)
    result.status = "found"
    result.method = "window"
    result.counts["window_columns"] = info["window"][1] - info["window"][0]
    return result


def _outer_middle_axes(rows: int, cols: int, mset: MoveSet) -> list[str]:
    """``"row"`` and/or ``"column"``: the board has 4 of them, every move that fits across
    them goes from an outer one (first or last) to one of the two middle ones, and every move
    changes the colour of the cell (the knight; any leaper with |d| in {1, 2} across 4 and
    dr + dc odd). Pósa's argument below needs exactly this; 4 x 4 has both axes."""
    axes = []
    for axis, side in (("row", rows), ("column", cols)):
        if side != 4:
            continue
        across = [abs(m[0] if axis == "row" else m[1]) for m in mset.moves]
        fit = [(d, m) for d, m in zip(across, mset.moves, strict=True) if d <= 3]
        if fit and all(d in (1, 2) and (m[0] + m[1]) % 2 for d, m in fit):
            axes.append(axis)
    return axes


def _four_rows_obstruction(
    rows: int, cols: int, mset: MoveSet, closed: bool, start: tuple[int, int] = (0, 0)
) -> str:
    """Pósa's argument on 4 x n (and n x 4): no closed tour, and no open path from a cell of
    the two middle rows.

    Every move from an outer row lands in a middle row, so the 2n outer cells are pairwise
    non-adjacent. On a path of 4n cells that starts (or ends) in a middle row they are 2n
    non-consecutive places among the other 4n - 1, which forces every other place: all of one
    parity, hence (every move changes colour) all of one colour. But the two outer rows hold
    n cells of each colour (their colourings are opposite: they are 3 rows apart). On a closed
    tour the same holds for any cut of it. So a path ends in outer rows at both ends.
    """
    for axis in _outer_middle_axes(rows, cols, mset):
        if closed:
            return (
                f"Pósa: on a board with 4 {axis}s every {mset.name} move from an outer {axis} "
                f"(first or last) lands in the two middle {axis}s, which hold as many cells; so "
                "a closed tour alternates outer and middle cells, as it alternates colours, and "
                "all outer cells would have one colour, but they have both"
            )
        if (start[0] if axis == "row" else start[1]) not in (1, 2):
            continue
        n = cols if axis == "row" else rows
        return (
            f"Pósa: on a board with 4 {axis}s every {mset.name} move from an outer {axis} "
            f"(first or last) lands in one of the two middle {axis}s, so no two of the {2 * n} "
            f"outer cells are consecutive on a path; a path of {4 * n} cells that starts in a "
            f"middle {axis} must then put them at every other place of its last {4 * n - 1}, "
            "all at places of one parity, hence all of one colour (every move changes colour), "
            f"but the outer {axis}s hold {n} cells of each colour; so every open path starts "
            f"and ends in an outer {axis}, and ({start[0]}, {start[1]}) is in a middle {axis}"
        )
    return ""


def _settle_by_exhaustive_search(result: PathResult) -> None:
    from rompicapo.paths.count import search_path

    with Stopwatch() as sw:
        ex = search_path(result.rows, result.cols, result.start, result.moves, closed=result.closed)
    result.solve_seconds += sw.seconds
    result.counts["proof_nodes"] = int(ex.nodes)
    if ex.path is not None:
        result.status = "found"
        result.path = np.asarray(ex.path, dtype=np.int32)
        result.method = "greedy+exhaustive"
    elif ex.proven:
        result.status = "impossible"
        result.proof = f"proven by exhaustive search ({ex.nodes:,} nodes)"


@dataclass
class _Piece:
    """A band of whole rows [lo, hi) solved on its own: its path starts at ``start`` (local
    coordinates) and, unless it is the last piece, ends one move from ``target`` (the next
    piece's start, one row outside the band); it fills path[offset : offset + cells]."""

    lo: int
    hi: int
    start: tuple[int, int]
    target: tuple[int, int] | None
    offset: int
    centre2: tuple[int, int]
    handover: bool = False  # the target is the next band's start (not the start of a tour)

    @property
    def rows(self) -> int:
        return self.hi - self.lo


@dataclass
class _Run:
    dr0: np.ndarray
    dc0: np.ndarray
    tie: int
    max_attempts: int
    deadline: float | None
    rotations: int = 0
    restarts: int = 0
    exact_nodes: int = 0
    merges: int = 0
    stop: bool = False
    timed_out: bool = False  # the time limit stopped the walk (not a failure of the search)


# Boards from STRIP_CELLS cells up are cut into bands of whole rows, about BAND_CELLS each,
# solved at the same time (numba kernels release the GIL, so threads share the arrays).
# Measured on 2 cores, median of 3 seeds: 1000x1000 42 -> 79 M cells/s with 2 bands; 3000x3000
# 42 -> 88 with 8; 10000x10000 32 -> 90 with 2 (a band's state stays in cache). Below ~0.5M
# cells (~10 ms) the threads would cost more than they save.
STRIP_CELLS = 1 << 19
BAND_CELLS = 1 << 20
# Bands thinner than this make the hand-over between bands harder than it is worth.
STRIP_MIN_ROWS = 64
MAX_STRIPS = 64


def _plan_pieces(rows, cols, start, closed, strips) -> list[_Piece]:
    """Cut the board into bands of rows, visited from the start's side of the board.

    The number of bands depends on the board only (not on the cores), so a seed gives the same
    path on every machine; the cores decide how many bands are solved at once. Each band but the
    last ends next to the middle cell of the next band's first row; Warnsdorff's tie-break
    centre is put on that cell, so the walk peels the band from its far side and finishes close
    to the hand-over, where a few targeted rotations close it.
    """
    n = rows * cols
    if strips is None:
        strips = 1 if closed or n < STRIP_CELLS else min(MAX_STRIPS, max(2, round(n / BAND_CELLS)))
    strips = max(1, min(int(strips), rows // STRIP_MIN_ROWS if rows >= STRIP_MIN_ROWS else 1))
    if closed:
        strips = 1
    if strips == 1:
        # a closed tour is one piece whose end must come back next to its start
        return [_Piece(0, rows, start, start if closed else None, 0, (rows - 1, cols - 1))]
    r0, c0 = start
    downward = r0 < rows - r0  # visit the bands away from the start's edge
    edges = [round(i * rows / strips) for i in range(strips + 1)]
    if not downward:  # mirror: build the bands from the bottom edge up
        edges = [rows - e for e in reversed(edges)]
    bands = list(itertools.pairwise(edges))
    if not downward:
        bands.reverse()  # visiting order: bottom band first
    # the first band must hold the start: merge bands until it does
    while not (bands[0][0] <= r0 < bands[0][1]):
        (a0, b0), (a1, b1) = bands[0], bands[1]
        bands[0:2] = [(min(a0, a1), max(b0, b1))]
    mid = cols // 2
    pieces = []
    offset = 0
    for i, (lo, hi) in enumerate(bands):
        h = hi - lo
        if i == 0:
            st = (r0 - lo, c0)
        else:
            st = (0, mid) if downward else (h - 1, mid)
        if i + 1 < len(bands):
            target = (h, mid) if downward else (-1, mid)
            centre2 = (2 * target[0], 2 * mid)
        else:
            target = None
            centre2 = (h - 1, cols - 1)
        pieces.append(_Piece(lo, hi, st, target, offset, centre2, handover=target is not None))
        offset += h * cols
    return pieces


# The hand-over window: the rows of a band next to the next band, around the hand-over
# column. Big enough that the walk can finish inside it once it is opened, small enough to
# leave the rest of the band to the walk's usual order.
WINDOW_ROWS = 6
WINDOW_HALF_COLS = 6


def _handover_window(pc: _Piece, cols: int) -> np.ndarray:
    tr, tc = pc.target
    if tr >= pc.rows:  # the next band is below
        r_lo, r_hi = pc.rows - WINDOW_ROWS, pc.rows
    else:
        r_lo, r_hi = 0, WINDOW_ROWS
    c_lo, c_hi = max(0, tc - WINDOW_HALF_COLS), min(cols, tc + WINDOW_HALF_COLS + 1)
    rr, cc = np.meshgrid(np.arange(r_lo, r_hi), np.arange(c_lo, c_hi), indexing="ij")
    cells = (rr * cols + cc).ravel().astype(np.int64)
    start_flat = pc.start[0] * cols + pc.start[1]
    return cells[cells != start_flat]


# The end game by exact search: when a stuck path has at most EXACT_FREE free cells, its last
# cells are freed (EXACT_TAIL, then 4x more) and the rest is solved by depth-first search with
# up to EXACT_NODES nodes each time (a few ms).
WINDOW_SLACK = 64
# A band that has not handed over after this many regrowths is merged with the next band
# (cheaper than insisting: a failing hand-over usually fails every time).
HANDOVER_ATTEMPTS = 12
PHASE1_WORK = 1 << 16
EXACT_FREE = 64
EXACT_TAIL = 96
EXACT_NODES = 200_000


def _finish_exactly(run, rows, cols, state, path, pos, plen, closing, end_r, end_c):
    n = rows * cols
    for tail in (EXACT_TAIL, 4 * EXACT_TAIL):
        base = max(1, plen - tail)
        plen = int(
            _kernel.truncate_path(rows, cols, run.dr0, run.dc0, state, path, pos, plen, base)
        )
        free = n - plen
        cand = np.empty((len(run.dr0), free + 1), np.int64)
        nxt = np.empty(free + 1, np.int64)
        plen, nodes = _kernel.complete_exact(
            rows, cols, run.dr0, run.dc0, state, path, pos, plen, n, closing, end_r, end_c,
            EXACT_NODES, cand, nxt,
        )  # fmt: skip
        plen = int(plen)
        run.exact_nodes += int(nodes)
        if plen == n:
            return plen, True
    return plen, False


def _merge_pieces(a: _Piece, b: _Piece) -> _Piece:
    """One piece for band ``a`` and the next band ``b``: a's start, b's hand-over (if any)."""
    lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
    h = hi - lo
    start = (a.start[0] + (a.lo - lo), a.start[1])
    if b.target is None:
        return _Piece(lo, hi, start, None, a.offset, (h - 1, b.centre2[1]))  # board centre
    target = (b.target[0] + (b.lo - lo), b.target[1])
    centre2 = (2 * target[0], b.centre2[1])
    return _Piece(lo, hi, start, target, a.offset, centre2, handover=True)


def _solve_pieces(run, pieces, rows, cols, state, path, pos, ss, jobs, progress):
    """Solve every piece (in threads when there are several), then turn local cell numbers
    into board cell numbers. Returns (status, cells of the path done in order)."""
    n = rows * cols
    pieces = list(pieces)
    seeds = list(ss.spawn(len(pieces)))
    done = [0] * len(pieces)
    tracker = Progress(progress, unit="cells", total=n)

    def report(i: int, cells: int) -> None:
        done[i] = cells
        tracker.update(sum(done))

    def solve(i: int) -> str:
        pc = pieces[i]
        lo, hi = pc.lo * cols, pc.hi * cols
        seg = path[pc.offset : pc.offset + (hi - lo)]
        status = _search_piece(
            run, pc, cols, state[lo:hi], seg, pos[lo:hi], seeds[i], lambda c: report(i, c)
        )
        if status == "found" and pc.lo:
            seg += pc.lo * cols  # local cell numbers -> board cell numbers
        return status

    statuses: list[str] = []
    try:
        if len(pieces) == 1:
            statuses = [solve(0)]
        else:
            from concurrent.futures import ThreadPoolExecutor

            workers = max(1, int(jobs))
            with ThreadPoolExecutor(max_workers=min(workers, len(pieces))) as pool:
                futures = [pool.submit(solve, i) for i in range(len(pieces))]
                try:
                    statuses = [f.result() for f in futures]
                except KeyboardInterrupt:
                    run.stop = True
                    statuses = [f.result() for f in futures]
                    statuses.append("interrupted")
        # A band that could not hand over is merged with the next band and solved again: the
        # failed hand-over disappears, and a merge that reaches the last band has none at all.
        while "interrupted" not in statuses and "gave up" in statuses[:-1] and not run.timed_out:
            i = statuses.index("gave up")
            pieces[i : i + 2] = [_merge_pieces(pieces[i], pieces[i + 1])]
            seeds[i : i + 2] = [seeds[i].spawn(1)[0]]
            done[i : i + 2] = [0]
            statuses[i : i + 2] = [solve(i)]
            run.merges += 1
    except KeyboardInterrupt:
        statuses = ["interrupted"]
    tracker.finish()
    # the cells done in path order: whole pieces, then the prefix of the first unfinished one
    in_order = 0
    for i, pc in enumerate(pieces):
        in_order = pc.offset + done[i]
        if done[i] < pc.rows * cols:
            break
    if "interrupted" in statuses:
        return "interrupted", in_order
    if all(s == "found" for s in statuses):
        return "found", n
    return "gave up", in_order


def _search_piece(run, pc, cols, state, path, pos, ss, report) -> str:
    """The restart policy around the kernel for one piece; "found", "gave up" or "interrupted"."""
    rows = pc.rows
    n = rows * cols
    dr0, dc0 = run.dr0, run.dc0
    start_flat = pc.start[0] * cols + pc.start[1]
    _kernel.init_state(rows, cols, dr0, dc0, state)
    _kernel.visit_cell(rows, cols, dr0, dc0, state, start_flat)
    path[0] = start_flat
    pos[start_flat] = 0
    plen = 1
    closing = pc.target is not None
    end_r, end_c = pc.target if closing else (0, 0)
    window = _handover_window(pc, cols) if pc.handover else np.empty(0, np.int64)
    all_window = window.copy()
    _kernel.reserve_cells(state, pos, window, True)
    reserved = len(window)
    # small boards: a budget proportional to the board, so that hopeless boards reach their
    # exhaustive proof quickly
    work_budget = max(int(WORK_PER_CELL * n), min(MIN_WORK, 64 * n))
    regrow_base = max(MIN_REGROW, math.isqrt(n))
    gen = np.random.default_rng(ss)
    attempt = 0
    # the seed orders the moves, which decides exact ties of Warnsdorff's rule
    perm = gen.permutation(len(dr0))
    centre_r, centre_c = pc.centre2
    centre_r0, centre_c0 = pc.centre2
    # a restart moves the tie-break centre a little; a band that must end at a hand-over cell
    # keeps its centre near that cell, or its walk would no longer finish there
    jitter = 2 if closing else max(1, min(rows, cols) // 8)
    rng = np.uint64(gen.integers(1, 2**63))
    try:
        while True:
            dr = np.ascontiguousarray(dr0[perm])
            dc = np.ascontiguousarray(dc0[perm])
            drt, dct, offt = _move_tuples(dr, dc, cols)
            status = _kernel.PAUSED
            while status == _kernel.PAUSED:
                if run.stop:
                    return "interrupted"
                # the wall clock is looked at between chunks (a fraction of a second each), so
                # a run that would succeed without restarts still honours the time limit
                if run.deadline is not None and time.perf_counter() > run.deadline:
                    run.timed_out = True
                    return "gave up"
                # the window opens a little before the rest of the band is done: the cells the
                # walk deferred around it are often reachable only through it
                # with a time limit, shorter chunks: the clock is read between them
                chunk = CHUNK_CELLS if run.deadline is None else CHUNK_CELLS // 4
                target = min(n - reserved - WINDOW_SLACK * (reserved > 0), plen + chunk)
                # while the window is shut, a stuck walk should open it rather than search long
                budget = min(work_budget, PHASE1_WORK) if reserved else work_budget
                plen, rot, _work, rng, status = _kernel.extend_path(
                    rows, cols, dr, dc, drt, dct, offt, state, path, pos, plen, target,
                    reserved, closing, end_r, end_c, budget, rng, run.tie, centre_r, centre_c,
                )  # fmt: skip
                if reserved and plen >= n - reserved - WINDOW_SLACK:
                    # the band is covered but for the hand-over window: open it, finish there
                    _kernel.reserve_cells(state, pos, window, False)
                    reserved = 0
                    status = _kernel.PAUSED
                rng = np.uint64(rng)  # numba hands uint64 back as a Python int
                run.rotations += int(rot)
                report(int(plen))
            if status == _kernel.DONE:
                return "found"
            if reserved:  # stuck before the hand-over window opened: open it and go on
                _kernel.reserve_cells(state, pos, window, False)
                reserved = 0
                continue
            if n - plen <= EXACT_FREE:
                plen, solved = _finish_exactly(
                    run, rows, cols, state, path, pos, plen, closing, end_r, end_c
                )
                if solved:
                    return "found"
            attempt += 1
            run.restarts += 1
            if attempt > (
                min(run.max_attempts, HANDOVER_ATTEMPTS) if pc.handover else run.max_attempts
            ) or (run.deadline is not None and time.perf_counter() > run.deadline):
                return "gave up"
            # Regrow: take the last m cells off and go on with fresh randomness.
            m = regrow_base * _luby(attempt)
            new_len = max(1, plen - m)
            if pc.handover:
                # long reversals can carry the hand-over window deep into the path; cut back to
                # before its first cell, so that the regrowth plays the window's end game again
                on_path = pos[all_window][state[all_window] >= 128]
                on_path = on_path[on_path >= 0]
                if len(on_path):
                    new_len = max(1, min(new_len, int(on_path.min())))
            if reserved:
                _kernel.reserve_cells(state, pos, window, False)
                reserved = 0
            plen = int(_kernel.truncate_path(rows, cols, dr0, dc0, state, path, pos, plen, new_len))
            if pc.handover:
                # the regrown walk plays the same end game: reserve the window cells that are
                # free again, so that it finishes next to the hand-over once more
                window = all_window[state[all_window] < 128]
                _kernel.reserve_cells(state, pos, window, True)
                reserved = len(window)
            report(plen)
            perm = gen.permutation(len(dr0))
            centre_r = centre_r0 + int(gen.integers(-jitter, jitter + 1))
            centre_c = centre_c0 + int(gen.integers(-jitter, jitter + 1))
    except KeyboardInterrupt:
        run.stop = True
        return "interrupted"
