"""What the ``rompicapo edges`` commands do, as one call each (the CLI only parses and prints).

Each function takes what a user names (``"eternity2"`` or a pieces file, a board file or a
viewer URL, clue names), checks every argument and every output path *before* any search,
runs, writes what was asked for, and returns a result with ``to_dict()`` (what ``--json``
prints), ``report()`` (what the CLI prints otherwise) and ``verify()``:

- [`solve()`][rompicapo.edges.solve]: Blackwood's search on all cores, then optionally ``polish``
  seconds of large-neighbourhood search; the board, pictures and heat map written where asked;
- [`improve_board()`][rompicapo.edges.improve_board]: the large-neighbourhood search on a given
  board;
- [`score_board()`][rompicapo.edges.score_board], [`render_board()`][rompicapo.edges.render_board],
  [`viewer_url()`][rompicapo.edges.viewer_url]: a board's score and rule
  check, its pictures, its e2.bucas.name URL.

A result that was computed is never lost: when a write still fails at the end (the disk filled up,
the folder went away), the result is kept in another file
([`rompicapo.common.write_or_keep_where()`][rompicapo.common.write_or_keep_where]), ``write_errors``
says what failed and where the result went, ``out`` is where the board is (the kept copy) and, when
no folder took it, ``report()`` includes the board.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    check_time_limit,
    renamed_keywords,
    write_or_keep_where,
)
from rompicapo.edges.puzzle import (
    Board,
    Puzzle,
    board_url,
    check_board_path,
    eternity2_clues,
    load_clues,
    load_puzzle,
    mismatched_joints,
    read_board,
    rule_problems,
    save_board,
    score,
)
from rompicapo.edges.render import check_picture_path

__all__ = [
    "RenderResult",
    "ScoreResult",
    "UrlResult",
    "improve_board",
    "render_board",
    "score_board",
    "solve",
    "viewer_url",
]


def _puzzle(pieces: str | Path | Puzzle, allow_duplicates: bool) -> Puzzle:
    return (
        pieces
        if isinstance(pieces, Puzzle)
        else load_puzzle(pieces, allow_duplicates=allow_duplicates)
    )


def _write(path: str, write: Callable[[str], None], errors: list[str]) -> str | None:
    """Write; when that fails, keep the result elsewhere and add the line saying where to
    ``errors``. Returns where the result is (``path``, the kept copy) or None (lost)."""
    line, where = write_or_keep_where(path, lambda p: write(str(p)))
    if line is not None:
        errors.append(line)
    return where


def _viewer(board: Board, puzzle: Puzzle) -> str | None:
    # the viewer writes a colour as one letter a..z
    if puzzle.max_colour >= 26:
        return None
    return board_url(board, puzzle, name=puzzle.name or "rompicapo")


# --------------------------------------------------------------------------------------------
# solve
# --------------------------------------------------------------------------------------------


@renamed_keywords(seconds="time_limit", max_nodes="node_limit")
def solve(
    pieces: str | Path | Puzzle,
    clues: str | Path | Board | None = None,
    *,
    settings: Any = None,
    time_limit: float | None = 60.0,
    node_limit: int | None = None,
    jobs: int | None = None,
    seed: int | None = 0,
    scheduler: object | None = None,
    progress: ProgressCallback | None = None,
    polish: float | None = None,
    out: str | Path | None = None,
    svg: str | Path | None = None,
    png: str | Path | None = None,
    heat: str | Path | None = None,
    interrupted_out: str | None = None,
    allow_duplicates: bool = False,
):
    """Blackwood's search (`rompicapo.edges.blackwood.solve()`) for ``pieces`` (a
    [`Puzzle`][rompicapo.edges.Puzzle], ``"eternity2"`` or a pieces file) with ``clues`` (a Board, a
    clues file, ``"centre"``/``"all"``/``"none"``; None = Eternity II's centre clue on Eternity II),
    then, with ``polish``, that many more seconds of `rompicapo.edges.improve.improve()` on its best
    board. ``time_limit`` covers the search (workers' start-up included); ``polish`` is extra.

    Written when given (every path checked before the search): ``out`` (the board, .txt),
    ``svg``/``png`` (its picture), ``heat`` (placements per cell, .svg or .png). When Ctrl-C
    stops the run and no ``out`` was given, ``interrupted_out`` (a name with ``{score}``, e.g.
    ``"edges_best_{score}.txt"``) keeps the best board. Returns the search's
    [`EdgeSearchResult`][rompicapo.edges.EdgeSearchResult] with ``url``, ``out`` and ``polish``
    (the [`ImproveResult`][rompicapo.edges.ImproveResult]) filled in.
    """
    from rompicapo.edges.blackwood import Settings
    from rompicapo.edges.blackwood import solve as blackwood_solve

    deadline = Deadline(check_time_limit(time_limit))
    if polish is not None:
        polish = check_time_limit(polish, "polish")
    puzzle = _puzzle(pieces, allow_duplicates)
    clue_board = load_clues(clues, puzzle)
    if out is not None:
        check_board_path(out)
    if svg is not None:
        check_picture_path(svg, suffixes=(".svg",))
    if png is not None:
        check_picture_path(png, suffixes=(".png",))
    if heat is not None:
        check_picture_path(heat, "heat map")
    if interrupted_out is not None and out is None:
        check_board_path(interrupted_out.format(score=0), "board file for an interrupted run")
    result = blackwood_solve(
        puzzle,
        clue_board,
        settings=settings if settings is not None else Settings(),
        time_limit=None if deadline.time_limit is None else max(0.05, deadline.remaining()),
        node_limit=node_limit,
        jobs=jobs,
        seed=seed,
        scheduler=scheduler,
        progress=progress,
    )
    if polish is not None and not result.interrupted:
        from rompicapo.edges.improve import improve

        result.polish = improve(
            result.partial, puzzle, time_limit=polish, seed=seed, clues=clue_board,
            progress=progress,
        )  # fmt: skip
    board = result.final_board
    final_score = getattr(result.polish, "score_after", result.score)
    interrupted = result.interrupted or bool(getattr(result.polish, "interrupted", False))
    target = None if out is None else str(out)
    if target is None and interrupted and interrupted_out is not None and final_score > 0:
        # the fallback file only when there is a board to keep
        target = interrupted_out.format(score=final_score)
    errors: list[str] = []
    if target is not None:
        # where the board is: the file asked for, or the copy kept when that write failed
        result.out = _write(target, lambda p: save_board(
            p, board, puzzle, comment=f"rompicapo edges solve {puzzle.name}"
        ), errors)  # fmt: skip
    from rompicapo.edges.render import save_heat, save_picture

    for path in (svg, png):
        if path is not None:
            _write(str(path), lambda p: save_picture(p, board, puzzle), errors)
    if heat is not None and result.heat is not None:
        _write(str(heat), lambda p: save_heat(p, result.heat), errors)
    result.url = _viewer(board, puzzle)
    result.write_errors = errors
    return result


# --------------------------------------------------------------------------------------------
# improve
# --------------------------------------------------------------------------------------------


def _improve_clues(spec, puzzle: Puzzle, board: Board) -> Board:
    """Default clues of improve: Eternity II's centre clue when the board agrees with it
    (holds it, or leaves its cell empty and the piece unused), else none."""
    if spec is not None or not puzzle.is_eternity2:
        return load_clues(spec if spec is not None else "none", puzzle)
    centre = eternity2_clues("centre")
    ((r, c, k, rot),) = centre.placements()
    here = int(board.piece[r, c])
    if (here == k and int(board.rotation[r, c]) == rot) or (
        here < 0 and k not in set(board.piece.ravel().tolist())
    ):
        return centre
    return Board.empty(puzzle.rows, puzzle.cols)


@renamed_keywords(seconds="time_limit", max_iterations="node_limit", node_cap="repair_nodes")
def improve_board(
    board: str | Path | Board,
    pieces: str | Path | Puzzle,
    *,
    clues: str | Path | Board | None = None,
    time_limit: float | None = 30.0,
    node_limit: int | None = None,
    repair_nodes: int | None = None,
    acceptance: str | None = None,
    seed: int | None = 0,
    progress: ProgressCallback | None = None,
    out: str | Path | None = None,
    interrupted_out: str | None = None,
    allow_duplicates: bool = False,
):
    """`rompicapo.edges.improve.improve()` on ``board`` (a Board, a board file or a viewer URL) of
    ``pieces``; ``clues`` as in [`solve()`][rompicapo.edges.solve] (None: Eternity II's centre clue
    when the board agrees with it). ``repair_nodes`` (None: the default) and ``acceptance`` (None:
    the default) as in ``improve``. ``out`` (checked first) receives the board; after Ctrl-C without
    ``out``, ``interrupted_out`` (with ``{score}``) does. (Old keyword names: ``seconds``,
    ``max_iterations``, ``node_cap``.)"""
    from rompicapo.edges.improve import DEFAULT_ACCEPTANCE, REPAIR_NODES, improve

    check_time_limit(time_limit)
    puzzle = _puzzle(pieces, allow_duplicates)
    start = read_board(board, puzzle)
    if start.n_placed == 0:
        raise InputError("the board holds no pieces: there is nothing to improve (solve it)")
    clue_board = _improve_clues(clues, puzzle, start)
    if out is not None:
        check_board_path(out)
    if interrupted_out is not None and out is None:
        check_board_path(interrupted_out.format(score=0), "board file for an interrupted run")
    res = improve(
        start, puzzle, time_limit=time_limit, node_limit=node_limit, seed=seed,
        clues=clue_board, repair_nodes=REPAIR_NODES if repair_nodes is None else repair_nodes,
        acceptance=DEFAULT_ACCEPTANCE if acceptance is None else acceptance, progress=progress,
    )  # fmt: skip
    target = None if out is None else str(out)
    if target is None and res.interrupted and interrupted_out is not None:
        target = interrupted_out.format(score=res.score_after)
    errors: list[str] = []
    if target is not None:
        res.out = _write(target, lambda p: save_board(
            p, res.board, puzzle, comment=f"rompicapo edges improve {puzzle.name}"
        ), errors)  # fmt: skip
    res.write_errors = errors
    return res


# --------------------------------------------------------------------------------------------
# score, render, url
# --------------------------------------------------------------------------------------------


@dataclass
class ScoreResult(SearchResult):
    """A board's matched joints and its rule check (the independent verifier's)."""

    score: int = 0
    """Matched inner joints."""
    max_score: int = 0
    """Inner joints of a complete board: the perfect score."""
    mismatched: int = 0
    """Joints between two placed pieces whose colours differ."""
    placed: int = 0
    """Pieces on the board."""
    cells: int = 0
    """Cells of the board."""
    valid: bool = False
    """True when the board keeps every rule and is complete."""
    problems: list[str] = field(default_factory=list)
    """Every rule the board breaks, one line each."""
    puzzle: Puzzle | None = None
    """The pieces and the board's size."""
    board: Board | None = None
    """The board scored."""

    _dict_exclude = ("puzzle", "board", "solve_seconds", "compile_seconds", "peak_bytes",
                     "counts")  # fmt: skip

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the board, its mismatched joints marked by red bars."""
        from rompicapo.edges.render import board_picture

        return board_picture(self.board, self.puzzle, "board scored")

    def verify(self) -> bool:
        """Recount with `rompicapo.edges.verify` (its own joint counter and rule check,
        nothing shared with the model that scored the board): the matched joints are
        ``score``, the board is ``valid`` exactly when the verifier finds no broken rule, and
        ``placed`` pieces are on it. Raises [`NotVerifiable`][rompicapo.common.NotVerifiable]
        without a board."""
        from rompicapo.edges.verify import board_problems, count_matched_joints

        if self.puzzle is None or self.board is None:
            raise NotVerifiable("this result holds no board to check")
        p = self.puzzle
        pieces, placements = p.pieces.tolist(), self.board.placements()
        valid = not board_problems(p.rows, p.cols, pieces, placements)
        return (
            count_matched_joints(p.rows, p.cols, pieces, placements) == self.score
            and valid == self.valid
            and len(placements) == self.placed
        )

    def report(self) -> str:
        return (
            f"score {self.score}/{self.max_score} ({self.mismatched} mismatched joints), "
            f"{self.placed}/{self.cells} cells filled, "
            + ("valid" if self.valid else f"not complete: {self.problems[0]}")
            + "\n"
        )


def score_board(
    board: str | Path | Board, pieces: str | Path | Puzzle, *, allow_duplicates: bool = False
) -> ScoreResult:
    """Score ``board`` (a Board, a board file or a viewer URL): matched joints and every rule
    it breaks (an incomplete board breaks one), counted by the puzzle model; ``verify()``
    recounts both with the independent verifier.

    ```pycon
    >>> from rompicapo.edges import make_puzzle
    >>> made = make_puzzle("4x4", frame_colours=2, inner_colours=3, seed=1)
    >>> swapped = made.solution.copy()  # two inner pieces swapped: some joints break
    >>> swapped.piece[1, 1], swapped.piece[2, 2] = swapped.piece[2, 2], swapped.piece[1, 1]
    >>> perfect, broken = score_board(made.solution, made.puzzle), score_board(swapped, made.puzzle)
    >>> perfect.score, perfect.max_score, perfect.valid
    (24, 24, True)
    >>> broken.score < 24, broken.mismatched > 0, broken.verify()
    (True, True, True)

    ```"""
    puzzle = _puzzle(pieces, allow_duplicates)
    b = read_board(board, puzzle)
    problems = rule_problems(b, puzzle, complete=True)
    return ScoreResult(
        score=score(b, puzzle),
        max_score=puzzle.n_joints,
        mismatched=len(mismatched_joints(b, puzzle)),
        placed=b.n_placed,
        cells=puzzle.rows * puzzle.cols,
        valid=not problems,
        problems=problems,
        puzzle=puzzle,
        board=b,
    )


@dataclass
class RenderResult(SearchResult):
    """The pictures written."""

    files: list[str] = field(default_factory=list)
    """The pictures written."""
    score: int = 0
    """Matched joints of the board drawn."""
    _dict_exclude = ("solve_seconds", "compile_seconds", "peak_bytes", "counts")

    def verify(self) -> bool:
        raise NotVerifiable("a picture is not an answer to check")

    def report(self) -> str:
        return "".join(f"wrote {f}\n" for f in self.files)


def render_board(
    board: str | Path | Board,
    pieces: str | Path | Puzzle,
    *,
    svg: str | Path | None = None,
    png: str | Path | None = None,
    numbers: bool = False,
    allow_duplicates: bool = False,
) -> RenderResult:
    """Draw ``board`` as SVG (``numbers``: piece numbers on it) and/or PNG."""
    from rompicapo.edges.render import save_picture

    if svg is None and png is None:
        raise InputError("give an svg and/or a png file to draw")
    if svg is not None:
        check_picture_path(svg, suffixes=(".svg",))
    if png is not None:
        check_picture_path(png, suffixes=(".png",))
    puzzle = _puzzle(pieces, allow_duplicates)
    b = read_board(board, puzzle)
    files = []
    if svg is not None:
        save_picture(svg, b, puzzle, numbers=numbers)
        files.append(str(svg))
    if png is not None:
        save_picture(png, b, puzzle)
        files.append(str(png))
    return RenderResult(files=files, score=score(b, puzzle))


@dataclass
class UrlResult(SearchResult):
    """A board's e2.bucas.name viewer URL."""

    url: str = ""
    """The viewer URL."""
    _dict_exclude = ("solve_seconds", "compile_seconds", "peak_bytes", "counts")

    def verify(self) -> bool:
        raise NotVerifiable("a URL is not an answer to check")

    def report(self) -> str:
        return self.url + "\n"


def viewer_url(
    board: str | Path | Board,
    pieces: str | Path | Puzzle,
    *,
    name: str | None = None,
    allow_duplicates: bool = False,
) -> UrlResult:
    """The e2.bucas.name URL of ``board``; ``name`` (default: the board file's stem) is the
    puzzle name the viewer shows.

    ```pycon
    >>> from rompicapo.edges import make_puzzle
    >>> made = make_puzzle("4x4", frame_colours=2, inner_colours=3, seed=1)
    >>> viewer_url(made.solution, made.puzzle, name="mine").url.startswith("https://e2.bucas.name/")
    True

    ```"""
    puzzle = _puzzle(pieces, allow_duplicates)
    b = read_board(board, puzzle)
    if name is None:
        name = Path(board).stem if isinstance(board, (str, Path)) else "rompicapo"
    return UrlResult(url=board_url(b, puzzle, name=name))
