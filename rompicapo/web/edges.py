"""The edge-matching page's routes (/api/edges/...): a board viewer for any pieces file and
board (Eternity II built in), a live solve (Blackwood's search in a job: score, depth and
placements per second, the best board refreshed from the search's reports; Stop keeps the best
board), polishing a board with the improver, and a study file's report.

Pieces and boards come in as the files' text (a page reads the file the user picks) and are
read by the family's text parsers (``parse_pieces``, ``parse_board``, ``board_from_url``):
no value a client sends is ever opened as a path. A study file (SQLite) is uploaded raw and
written to a temporary folder this server creates, then removed. Every search runs in the job
manager's workers (`rompicapo.web.jobs`): the viewer's board in the quick lane, solving,
polishing and study reports in a job worker.
"""

from __future__ import annotations

import base64
import contextlib
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rompicapo.common import InputError, ProgressEvent, StopRequested
from rompicapo.web.params import MAX_UPLOAD_BYTES, field, json_body, known, read_body
from rompicapo.web.run import heavy, quick, start_job

__all__ = ["ROUTES", "board_payload", "hunt_view"]


# Boards up to this side on the page (Eternity II is 16; published sets stop at 20).
MAX_SIDE = 20
# Text of a pieces file or a board (400 pieces of ~15 characters): well under this.
MAX_TEXT = 64_000
# Solve and improve jobs: at most this long in the playground.
MAX_SECONDS = 60.0
# A study file: at most this large; its report takes seconds (matplotlib), at most this long.
STUDY_MAX_BYTES = MAX_UPLOAD_BYTES
STUDY_SECONDS = 120.0


def _puzzle(spec: str):
    from rompicapo.edges.puzzle import eternity2, parse_pieces

    if spec.strip().lower() in ("eternity2", "e2", ""):
        return eternity2()
    puzzle = parse_pieces(spec, name="uploaded pieces")
    if max(puzzle.rows, puzzle.cols) > MAX_SIDE:
        raise InputError(f"the playground shows boards up to {MAX_SIDE}x{MAX_SIDE}")
    return puzzle


def _board(text: str | None, puzzle, name: str = "board", required: bool = True):
    from rompicapo.edges.puzzle import Board, board_from_url, is_url, parse_board

    if text is None or not text.strip():
        if required:
            raise InputError(f"{name} is required (a board file's text or a viewer URL)")
        return Board.empty(puzzle.rows, puzzle.cols)
    if is_url(text.strip()):
        return board_from_url(text.strip(), puzzle)
    return parse_board(text, puzzle, what=name, strict=False)


def _texts(body: dict[str, Any]) -> tuple[str, str | None]:
    pieces = field(body, "pieces", str, "eternity2", max_length=MAX_TEXT)
    return pieces, field(body, "board", str, None, max_length=MAX_TEXT)


def check_input(pieces: str, board: str | None, board_required: bool) -> None:
    """Parse the pieces and the board (a worker's task, before a job starts): InputError
    naming what is wrong."""
    _board(board, _puzzle(pieces), "board", board_required)


def board_payload(board, puzzle) -> dict[str, Any]:
    """What the page draws: each cell's piece, rotation and (top, right, bottom, left) colours
    as placed, the mismatched joints, the score and the viewer URL."""
    from rompicapo.edges.puzzle import mismatched_joints, score
    from rompicapo.edges.render import palette

    cells = []
    for r in range(puzzle.rows):
        row = []
        for c in range(puzzle.cols):
            k = int(board.piece[r, c])
            if k < 0:
                row.append(None)
            else:
                rot = int(board.rotation[r, c])
                row.append([k, rot, *map(int, puzzle.edges(k, rot))])
        cells.append(row)
    url = None
    if puzzle.max_colour < 26:
        from rompicapo.edges.puzzle import board_url

        url = board_url(board, puzzle, name=puzzle.name or "rompicapo")
    return {
        "rows": puzzle.rows,
        "cols": puzzle.cols,
        "cells": cells,
        "mismatched": [list(map(int, j)) for j in mismatched_joints(board, puzzle)],
        "score": int(score(board, puzzle)),
        "max_score": puzzle.n_joints,
        "placed": int(board.n_placed),
        "palette": ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in palette(puzzle.max_colour)],
        "url": url,
        "eternity2": bool(puzzle.is_eternity2),
    }


def view_board(pieces: str, board_text: str | None) -> dict[str, Any]:
    """What the viewer draws, with the independent verifier's score (a worker's task)."""
    from rompicapo.edges import score_board

    puzzle = _puzzle(pieces)
    board = _board(board_text, puzzle, "board", False)
    out = board_payload(board, puzzle)
    checked = score_board(board, puzzle)
    out["valid"] = checked.valid
    out["problems"] = checked.problems[:5]
    out["verified_score"] = checked.score  # the independent verifier's count
    return out


async def board_route(request: Request) -> JSONResponse:
    """A board checked and scored: its pieces, mismatched joints and broken rules."""
    pieces, board = _texts(known(await json_body(request), "pieces", "board"))
    return JSONResponse(await quick(request, view_board, pieces, board, time_limit=10.0))


def _stop_once(progress):
    """The job's progress callback, raising its stop only once: a search that stops reports
    once more as it finishes ("done"), and that report must not stop it again (the best board
    would be lost)."""
    stopped = False

    def relay(event: ProgressEvent) -> None:
        nonlocal stopped
        if stopped:
            return
        try:
            progress(event)
        except StopRequested:
            stopped = True
            raise

    return relay


def _seconds(body: dict[str, Any], default: float) -> float:
    return field(body, "time_limit", float, default, minimum=0.5, maximum=MAX_SECONDS)


def _with_boards(progress: Any, puzzle: Any) -> Any:
    """The search's ProgressEvents with their best board (the event's ``answer``, the
    placements) turned into the page's board payload, in ``best``."""
    from rompicapo.edges.puzzle import Board

    def relay(event: ProgressEvent) -> None:
        placements = event.answer
        best = None
        if placements is not None:
            b = Board.empty(puzzle.rows, puzzle.cols)
            for r, c, k, rot in placements:
                b.piece[r, c], b.rotation[r, c] = k, rot
            best = board_payload(b, puzzle)
            best["depth"] = len(placements)
        progress(
            ProgressEvent(
                kind=event.kind, done=event.done, total=event.total, unit=event.unit,
                elapsed=event.elapsed, rate=event.rate, best=best,
                counts=dict(event.counts), message=event.message,
            )
        )  # fmt: skip

    return relay


def solve_job(progress: Any, pieces: str, clues_name: str, seconds: float, seed: int) -> Any:
    """Blackwood's search for ``seconds`` (a job). Each progress event carries the score,
    depth, placements per second and the best board so far."""
    from rompicapo.edges.blackwood import search
    from rompicapo.edges.puzzle import load_clues

    progress = _stop_once(progress)
    puzzle = _puzzle(pieces)
    clues = load_clues(None if clues_name == "default" else clues_name, puzzle)
    # The first search of a worker compiles (or loads) the kernels, which takes seconds
    # under load; a tiny search first keeps that out of the user's time limit.
    progress(ProgressEvent(kind="start", message="loading the search kernels"))
    t0 = time.perf_counter()
    search(puzzle, clues, time_limit=None, node_limit=1000, seed=seed)
    warm = time.perf_counter() - t0
    res = search(puzzle, clues, time_limit=seconds, seed=seed,
                 progress=_with_boards(progress, puzzle))  # fmt: skip
    out = res.to_dict()
    out["warmup_seconds"] = warm
    out["board"] = board_payload(res.board, puzzle)
    out["partial_board"] = board_payload(res.partial, puzzle)
    return out


def improve_job(progress: Any, pieces: str, board_text: str, seconds: float, seed: int) -> Any:
    """The improver (large-neighbourhood search) on the board given (a job)."""
    from rompicapo.edges import improve_board

    puzzle = _puzzle(pieces)
    board = _board(board_text, puzzle, "board", True)
    # as for a solve: the kernels' first load stays out of the user's time limit
    progress(ProgressEvent(kind="start", message="loading the improver's kernels"))
    t0 = time.perf_counter()
    improve_board(board, puzzle, time_limit=None, node_limit=1, seed=seed)
    warm = time.perf_counter() - t0
    res = improve_board(board, puzzle, time_limit=seconds, seed=seed,
                        progress=_stop_once(progress))  # fmt: skip
    out = res.to_dict()
    out["warmup_seconds"] = warm
    out["board"] = board_payload(res.board, puzzle)
    return out


async def solve_route(request: Request) -> JSONResponse:
    """A job: Blackwood's search for ``time_limit`` seconds (see `solve_job()`)."""
    body = known(await json_body(request), "pieces", "clues", "time_limit", "seed")
    pieces, _ = _texts(body)
    seconds = _seconds(body, 10.0)
    seed = field(body, "seed", int, 0, minimum=0, maximum=2**31 - 1)
    clues_name = field(body, "clues", str, "default", choices=("default", "centre", "none"))
    await quick(request, check_input, pieces, None, False, time_limit=10.0)
    return start_job(request, "edges-solve", solve_job, pieces, clues_name, seconds, seed,
                     time_limit=seconds, family="edges")  # fmt: skip


async def improve_route(request: Request) -> JSONResponse:
    """A job: the improver on the board given (see `improve_job()`)."""
    body = known(await json_body(request), "pieces", "board", "time_limit", "seed")
    pieces, board = _texts(body)
    seconds = _seconds(body, 10.0)
    seed = field(body, "seed", int, 0, minimum=0, maximum=2**31 - 1)
    await quick(request, check_input, pieces, board, True, time_limit=10.0)
    return start_job(request, "edges-improve", improve_job, pieces, board, seconds, seed,
                     time_limit=seconds, family="edges")  # fmt: skip


def study(data: bytes) -> dict[str, Any]:
    """A study file's report made in a temporary folder, then removed (a job worker's task):
    the summary (markdown), the plots (PNG, base64) and the table (CSV)."""
    from rompicapo.edges.study_report import study_report

    t0 = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="rompicapo-web-study-"))
    try:
        db = folder / "study.sqlite"
        db.write_bytes(data)
        rep = study_report(db, folder / "report")
        out = rep.to_dict()
        files = []
        for name in rep.files:
            path = Path(name)
            if path.suffix == ".md":
                out["summary"] = path.read_text()[:200_000]
            elif path.suffix == ".png":
                files.append(
                    {"name": path.name, "png": base64.b64encode(path.read_bytes()).decode()}
                )
            elif path.suffix == ".csv":
                out["csv"] = path.read_text()[:200_000]
        out["files"] = [f["name"] for f in files]
        out["images"] = files
        out["seconds"] = time.monotonic() - t0
        return out
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(folder)


async def study_route(request: Request) -> JSONResponse:
    """A study file (SQLite, uploaded raw): its report (see `study()`)."""
    data = await read_body(request, STUDY_MAX_BYTES, "the upload")
    if not data.startswith(b"SQLite format 3\x00"):
        raise InputError("a study file is an SQLite database (rompicapo edges study)")
    return JSONResponse(await heavy(request, study, data, time_limit=STUDY_SECONDS))


def hunt_view(path: str | None) -> dict[str, Any]:
    """The hunt panel's state: the status of the hunt file named when the server started
    (``rompicapo serve --hunt-db``), and its best board as the page draws it; ``{"hunt":
    None}`` without one. The file is only read (read-only SQLite), never written."""
    from rompicapo.edges.hunt import hunt_status
    from rompicapo.edges.hunt_db import hunt_best

    if path is None:
        return {"hunt": None}
    name = Path(path).name
    if not Path(path).is_file():
        return {"hunt": {"file": name, "waiting": True}}
    status = hunt_status(path)
    best = status.pop("best")
    puzzle, board = hunt_best(path)
    status["score"] = None if best is None else best["score"]
    status["board"] = None if board is None else board_payload(board, puzzle)
    return {"hunt": {"file": name, "waiting": False, **status}}


async def hunt_route(request: Request) -> JSONResponse:
    """The hunt panel (GET, read-only): see `hunt_view()`. The file is the one given at
    start-up; a request names no path."""
    from starlette.concurrency import run_in_threadpool

    known(dict(request.query_params))  # it takes no parameter: one given is a mistake
    path = getattr(request.app.state, "hunt_db", None)
    return JSONResponse(await run_in_threadpool(hunt_view, path))


ROUTES = [
    Route("/hunt", hunt_route),
    Route("/board", board_route, methods=["POST"]),
    Route("/solve", solve_route, methods=["POST"]),
    Route("/improve", improve_route, methods=["POST"]),
    Route("/study", study_route, methods=["POST"]),
]
