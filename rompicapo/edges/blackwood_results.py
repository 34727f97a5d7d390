"""Blackwood's search, part 5: its result, and the greedy completion of a partial board."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import NotVerifiable, SearchResult
from rompicapo.edges.blackwood_tables import all_rotations
from rompicapo.edges.puzzle import Board, Puzzle

__all__ = ["EdgeSearchResult", "complete_board"]


@dataclass
class EdgeSearchResult(SearchResult):
    """The best board found (``board``, completed greedily with the leftover pieces) and how.

    ``search_score``/``search_depth``: the best partial board of the search (Blackwood's and
    Bucas's figure: matched joints among the placed pieces), ``deepest``: most pieces placed at
    once; ``score``: the completed board's matched joints (>= ``search_score``). ``counts``:
    ``nodes`` (loop iterations), ``placements`` (forward placements, Bucas's count),
    ``restarts``. ``heat``: placements per cell (rows x cols).
    """

    puzzle: Puzzle | None = None
    """The pieces and the board's size."""
    board: Board | None = None
    """The best board, completed greedily with the leftover pieces."""
    partial: Board | None = None
    """The best partial board of the search, before completion."""
    score: int = -1
    """Matched joints of ``board`` (at least ``search_score``)."""
    search_score: int = -1
    """Matched joints of ``partial``, among the placed pieces (Blackwood's and Bucas's figure)."""
    search_depth: int = 0
    """Pieces placed on ``partial``."""
    deepest: int = 0
    """The most pieces placed at once during the search."""
    solved: bool = False
    """True when a perfect board was found (every joint matched)."""
    exhausted: bool = False
    """True when the search tree was explored to the end."""
    interrupted: bool = False
    """True when Ctrl-C or SIGTERM stopped the search (the best board is kept)."""
    heat: np.ndarray | None = None
    """Placements per cell, rows x cols: where the search spent its work."""
    settings: dict = field(default_factory=dict)
    """The search's settings, as a dict (fill order, colours, quota, breaks, ...)."""
    wall_seconds: float = 0.0  # solve(): including process start-up and compilation
    """Wall-clock seconds of the whole call, process start-up and compilation included."""
    # CPU time of the searching thread(s): on a shared machine the wall clock also counts the
    # time other processes held the core, this does not
    cpu_seconds: float = 0.0
    """CPU seconds of the searching thread(s): on a shared machine steadier than the wall clock."""

    # Set by the command-level solve (rompicapo.edges.solve): the viewer URL of the board,
    # where it was written, and the polish run's result.
    url: str | None = None
    """The board's e2.bucas.name viewer URL (set by [`solve()`][rompicapo.edges.solve])."""
    out: str | None = None
    """Where the board was written, if anywhere."""
    polish: SearchResult | None = None
    """The improver's result when the board was polished after the search."""
    # Set by solve(): why fewer jobs ran than were asked for (jobs capped to the cores).
    note: str | None = None
    """Why fewer jobs ran than were asked for, if so."""
    # Set by the command-level solve: the writes that failed after the work, each saying
    # where its result was kept instead (``out`` is then that copy, or None when lost).
    write_errors: list[str] = field(default_factory=list)
    """The writes that failed after the work, each saying where its result was kept instead."""

    _dict_exclude = ("puzzle", "board", "partial", "heat")

    @property
    def stopped(self) -> str | None:
        """Why the search ended before a perfect board or the end of its space (the name every
        family's result gives it): ``"interrupted"`` (Ctrl-C, SIGTERM), ``"limit"`` (its time
        or node limit; ``board`` is then the best found), or None."""
        if self.interrupted:
            return "interrupted"
        return None if self.solved or self.exhausted else "limit"

    @property
    def placements_per_second(self) -> float:
        """Forward placements per wall-clock second of search (all jobs together)."""
        return self.counts.get("placements", 0) / self.solve_seconds if self.solve_seconds else 0.0

    @property
    def placements_per_cpu_second(self) -> float:
        """Forward placements per second of CPU time actually given to the search."""
        return self.counts.get("placements", 0) / self.cpu_seconds if self.cpu_seconds else 0.0

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the best board, mismatched joints marked in red."""
        from rompicapo.edges.render import board_picture

        return board_picture(self.board, self.puzzle, "best board")

    def verify(self) -> bool:
        """Recount with `rompicapo.edges.verify` (code that shares nothing with the
        search): both boards keep the rules and their scores are the ones reported.

        Raises [`NotVerifiable`][rompicapo.common.NotVerifiable] when there is no board to check."""
        from rompicapo.edges.verify import board_problems, count_matched_joints

        p = self.puzzle
        if p is None or self.board is None or self.partial is None:
            raise NotVerifiable("this result holds no board to check")
        pieces = p.pieces.tolist()
        for board, expected in ((self.board, self.score), (self.partial, self.search_score)):
            placements = board.placements()
            if board_problems(p.rows, p.cols, pieces, placements, complete=False):
                return False
            if count_matched_joints(p.rows, p.cols, pieces, placements) != expected:
                return False
        return not self.solved or self.score == p.n_joints

    def _dict_extra(self) -> dict:
        p = self.puzzle
        try:
            verified: bool | None = self.verify()
        except NotVerifiable:
            verified = None
        return {
            "puzzle": None if p is None else p.name,
            "size": None if p is None else [p.rows, p.cols],
            "max_score": None if p is None else p.n_joints,
            "placements_per_second": round(self.placements_per_second),
            "placements_per_cpu_second": round(self.placements_per_cpu_second),
            "wall_seconds": round(self.wall_seconds or self.solve_seconds, 3),
            "verified": verified,
        }

    def report(self) -> str:
        """What ``rompicapo edges solve`` prints: the score line, the polish line, the viewer
        URL and the board (or where it was written)."""
        from rompicapo.edges.puzzle import format_board

        p = self.puzzle
        assert p is not None
        d = self.to_dict()
        state = "solved" if self.solved else ("interrupted" if self.interrupted else "best")
        lines = [
            f"{state}: score {self.score}/{p.n_joints} (search: {self.search_score} with "
            f"{self.search_depth} pieces, deepest {self.deepest}); "
            f"{self.counts.get('placements', 0):,} placements, "
            f"{self.placements_per_second / 1e6:.2f} M/s over "
            f"{self.settings.get('jobs', 1)} jobs "
            f"in {self.solve_seconds:.1f} s; verified {d['verified']}"
        ]
        if self.note:
            lines.append(f"note: {self.note}")
        if self.polish is not None:
            lines.append(self.polish.report().splitlines()[0])
        if self.url:
            lines.append(self.url)
        text = "\n".join(lines) + "\n"
        if self.out:
            text += f"board written to {self.out}\n"
        elif self.board is not None and (not self.interrupted or self.write_errors):
            # (an interrupted run's board is printed when no file could keep it)
            text += format_board(self.final_board, p)
        return text

    @property
    def final_board(self) -> Board | None:
        """The board to keep: the polished one when polishing did not lower the score."""
        polished = getattr(self.polish, "board", None)
        if polished is not None and getattr(self.polish, "score_after", -1) >= self.score:
            return polished
        return self.board


def complete_board(partial: Board, puzzle: Puzzle, clues: Board | None = None) -> Board:
    """Fill the empty cells greedily (fill order of rows) with the unused pieces, each time the
    piece and turn that matches most already-placed neighbours and keeps grey on the rim."""
    board = partial.copy()
    if clues is not None:
        for r, c, k, rot in clues.placements():
            if board.piece[r, c] < 0 and k not in set(board.piece.ravel().tolist()):
                board.piece[r, c], board.rotation[r, c] = k, rot
    rows, cols = board.rows, board.cols
    unused = np.array(
        sorted(set(range(puzzle.n_pieces)) - set(board.piece.ravel().tolist())), dtype=np.int64
    )
    rot = all_rotations(puzzle.pieces.astype(np.int64))
    # Vectorised over (unused piece, turn), in that order: argmax picks the first best one,
    # as a scan of pieces then turns with a strict ">" would.
    for r in range(rows - 1, -1, -1):
        for c in range(cols):
            if board.piece[r, c] >= 0 or not len(unused):
                continue
            cand = rot[unused]  # (u, 4 turns, 4 sides)
            rim = np.array((r == 0, c == cols - 1, r == rows - 1, c == 0))
            ok = ((cand == 0) == rim).all(axis=2)
            if not ok.any():
                continue
            m = np.zeros(ok.shape, dtype=np.int64)
            for s, (dr, dc, opp) in enumerate(((-1, 0, 2), (0, 1, 3), (1, 0, 0), (0, -1, 1))):
                rr2, cc2 = r + dr, c + dc
                if 0 <= rr2 < rows and 0 <= cc2 < cols and board.piece[rr2, cc2] >= 0:
                    o = rot[board.piece[rr2, cc2], board.rotation[rr2, cc2]]
                    m += cand[:, :, s] == o[opp]
            m[~ok] = -1
            best = int(np.argmax(m))
            i, turn = divmod(best, 4)
            board.piece[r, c], board.rotation[r, c] = int(unused[i]), turn
            unused = np.delete(unused, i)
    return board


# --------------------------------------------------------------------------------------------
# Search in this process
# --------------------------------------------------------------------------------------------
