"""PathResult: what `construct()` returns, for every way it finds a path.

Its ``verify()`` runs the independent verifiers (`rompicapo.paths.verify` for a path in
memory, `rompicapo.paths.verify_stream` for one streamed to an ``.rpath`` file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import InputError, NotVerifiable, SearchResult
from rompicapo.paths.moves import CASELLE_MOVES, MoveSet

__all__ = ["TEXT_GRID_CELLS", "TEXT_GRID_COLS", "PathResult"]

# Boards with at most this many columns and cells are printed as a numbered grid.
TEXT_GRID_COLS = 40
TEXT_GRID_CELLS = 2500
# The longest side of the PNG Jupyter shows for a board too big for SVG: the width of a
# notebook's output area, give or take.
JUPYTER_PNG_SIDE = 1024


@dataclass
class PathResult(SearchResult):
    """A path search's answer.

    ``status`` is ``"found"`` (``path`` holds every cell once, from ``start``), ``"impossible"``
    (no such path exists, and ``proof`` says how that was shown), ``"not found"`` (the search
    gave up without a proof) or ``"interrupted"`` (Ctrl-C; ``path`` holds the partial path).

    ```pycon
    >>> from rompicapo.paths import construct
    >>> result = construct(5, 5)
    >>> result.status, result.method, result.verify(), result.path[:5].tolist()
    ('found', 'greedy', True, [0, 3, 18, 15, 7])
    >>> impossible = construct(4, 4)
    >>> impossible.status, impossible.found
    ('impossible', False)
    >>> print(impossible.proof)
    only 8 of the 16 cells can be reached from the start (the move graph is not connected)

    ```"""

    rows: int = 0
    """Rows of the board."""
    cols: int = 0
    """Columns of the board."""
    start: tuple[int, int] = (0, 0)
    """The first cell, ``(row, col)`` from 0."""
    moves: MoveSet = CASELLE_MOVES
    """The leaper's moves (default: the caselle jumps, 3 along a row or column, 2 along a
    diagonal)."""
    closed: bool = False
    """Whether a closed tour was asked for (the last cell one move from the first)."""
    seed: int | None = None
    """The seed of the search (None for a method without one, such as the blocks)."""
    method: str = "greedy"
    """How the path was found: ``"greedy"``, ``"blocks"``, ``"blocks-cycle"``, ``"profile"``,
    ``"dfs"``, ``"greedy+exhaustive"``, ..."""
    status: str = "not found"
    """``"found"``, ``"impossible"`` (with a ``proof``), ``"not found"`` or ``"interrupted"``."""
    path: np.ndarray | None = None
    """The flat cells ``r * cols + c`` in visiting order (int32 or int64), or None when there is no
    path or it was streamed to a file."""
    proof: str = ""
    """How a path was shown impossible (empty otherwise)."""
    rotations: int = 0
    """Pósa rotations the greedy walk made."""
    restarts: int = 0
    """Times the greedy walk started again from scratch."""
    # the verifier's verdict once checked (None: not checked yet), what was written, and notes
    # for the user (a capped number of jobs, say)
    verified: bool | None = None
    """The independent verifier's verdict once checked; None until then."""
    written: list[str] = field(default_factory=list)
    """The files written (path, pictures), each a line for the user."""
    unwritten: list[str] = field(default_factory=list)
    """The writes that failed after the search, each saying where the result was kept instead."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user (a capped number of jobs, say)."""
    # a path streamed to an .rpath file and never held in memory (path is None then)
    out: str | None = None
    """The ``.rpath`` file a streamed path went to (``path`` is None then)."""
    out_bytes: int = 0
    """Bytes of the streamed file."""
    write_seconds: float = 0.0
    """Seconds spent writing the streamed file."""
    verify_seconds: float = 0.0
    """Seconds the verifier took."""
    reason: str = ""
    """Why the path was streamed rather than held in memory."""

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
        """Jupyter shows a found path as its SVG (boards up to 200x200; larger ones get the PNG
        of `_repr_png_`)."""
        import tempfile
        from pathlib import Path

        from rompicapo.paths.render import SVG_MAX_CELLS, write_svg

        if self.path is None or self.status != "found" or self.rows * self.cols > SVG_MAX_CELLS:
            return None
        with tempfile.TemporaryDirectory() as folder:
            svg = Path(folder) / "path.svg"
            write_svg(self.path, self.rows, self.cols, svg)
            return svg.read_text()

    def _repr_png_(self) -> tuple[bytes, dict[str, str]] | None:
        """Jupyter shows a found path too big for SVG as a PNG of its visit order (a colour
        ramp from dark purple at step 1 to yellow at the last step, at most 1024 pixels a
        side), with its alternative text."""
        from rompicapo.common import png_with_alt
        from rompicapo.paths.render import SVG_MAX_CELLS, png_image

        if self.path is None or self.status != "found" or self.rows * self.cols <= SVG_MAX_CELLS:
            return None
        image = png_image(self.path, self.rows, self.cols, max_side=JUPYTER_PNG_SIDE)
        alt = (
            f"the visit order of a path over the {self.rows}x{self.cols} board, coloured from "
            "dark purple at step 1 to yellow at the last step"
        )
        return png_with_alt(image, alt)

    def verify(self) -> bool:
        """Check the path with the independent verifier: True when it is a valid path (closed
        when asked) from ``start``, False when it is not. A streamed path is checked in its
        ``.rpath`` file. Raises [`NotVerifiable`][rompicapo.common.NotVerifiable] when there is no
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
