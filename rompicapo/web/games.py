"""The games page's routes (/api/games/...): Connect Four against the solver, tic-tac-toe's
search statistics and alpha-beta tree, Nim with Bouton's advice.

Connect Four positions early in the game can take the solver seconds to minutes, so a move's
analysis works under a time cap: every column is tried with a node budget that grows while time
remains; a column not solved in time is "unknown" (never a guessed score). The computer's move
is a proven best column when the known scores prove one, else the solver's safe heuristic
move. "Who wins from here" without a cap runs as a job (stoppable between node budgets).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rompicapo.common import InputError, ProgressEvent
from rompicapo.web.params import field, json_body

__all__ = ["ROUTES", "connect4_columns", "connect4_move"]

# The analysis of one move: at most this many seconds by default, 2 s at the most.
C4_TIME_CAP = 0.08
C4_TIME_CAP_MAX = 2.0
# The first node budget per column; it grows x4 while time remains.
C4_FIRST_BUDGET = 20_000
# A "who wins" job: at most this long, budgets up to this many nodes per column and try.
C4_JOB_SECONDS = 60.0
C4_JOB_MAX_BUDGET = 64_000_000
# Solved child positions kept (moves -> exact score of the player to move there).
C4_CACHE = 20_000

_solver: Any = None
_solver_lock = threading.Lock()
_c4_cache: OrderedDict[str, int] = OrderedDict()
_cache_lock = threading.Lock()
_init_lock = threading.Lock()


def _get_solver() -> Any:
    global _solver
    with _init_lock:
        if _solver is None:
            from rompicapo.games.connect4 import Connect4Solver

            _solver = Connect4Solver(table_log2=21)  # 32 MB: early positions are capped anyway
    return _solver


def _moves(body: dict[str, Any]) -> str:
    moves = field(body, "moves", str, "", max_length=42)
    from rompicapo.games.connect4 import parse_position

    parse_position(moves)  # InputError naming the bad move
    return moves.strip()


def _position_info(moves: str) -> dict[str, Any]:
    from rompicapo.games.connect4 import parse_position

    p = parse_position(moves)
    winner = None
    if p.won:
        winner = 1 if len(moves) % 2 == 1 else 2
    return {
        "moves": moves,
        "to_move": 1 + len(moves) % 2,
        "over": bool(p.over),
        "winner": winner,
        "draw": bool(p.over and not p.won),
        "playable": p.playable_columns(),
    }


def _cached(moves: str) -> int | None:
    with _cache_lock:
        score = _c4_cache.get(moves)
        if score is not None:
            _c4_cache.move_to_end(moves)
        return score


def connect4_columns(
    moves: str,
    time_cap: float,
    *,
    solver: Any = None,
    lock: Any = None,
    max_budget: int | None = None,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """The score of playing each column after ``moves`` (Pons' convention, the mover's view):
    ``{"column", "state": "full" | "solved" | "unknown", "score"}``; columns not solved within
    ``time_cap`` seconds are unknown. Solved children are cached."""
    from rompicapo.games.connect4 import CELLS, parse_position

    p = parse_position(moves)
    if p.over:
        raise InputError(f"the game is already over after {moves!r}")
    out: list[dict[str, Any]] = []
    todo = []
    for col in range(1, 8):
        if col not in p.playable_columns():
            out.append({"column": col, "state": "full", "score": None})
            continue
        child = p.play(col)
        if child.won:
            out.append({"column": col, "state": "solved", "score": (CELLS + 1 - p.count) // 2})
        elif child.over:
            out.append({"column": col, "state": "solved", "score": 0})
        elif (cached := _cached(child.moves)) is not None:
            out.append({"column": col, "state": "solved", "score": -cached})
        else:
            out.append({"column": col, "state": "unknown", "score": None})
            todo.append((col, child))
    t0 = time.perf_counter()
    budget = C4_FIRST_BUDGET
    rate = None  # nodes per second, measured on the tries that ran out
    solver = solver or _get_solver()
    lock = lock or _solver_lock
    while todo:
        left = []
        for col, child in todo:
            remaining = time_cap - (time.perf_counter() - t0)
            if remaining <= 0:
                left.append((col, child))
                continue
            limit = budget if rate is None else max(1000, min(budget, int(rate * remaining)))
            start = time.perf_counter()
            with lock:
                res = solver.try_solve(child, node_limit=limit)
            spent = time.perf_counter() - start
            if res is None:
                rate = limit / max(spent, 1e-6)
                left.append((col, child))
            else:
                with _cache_lock:
                    _c4_cache[child.moves] = res.score
                    if len(_c4_cache) > C4_CACHE:
                        _c4_cache.popitem(last=False)
                out[col - 1] = {"column": col, "state": "solved", "score": -res.score}
        todo = left
        if progress is not None:
            progress(
                ProgressEvent(
                    kind="progress",
                    done=7 - len(todo),
                    total=7,
                    unit="columns",
                    elapsed=time.perf_counter() - t0,
                    message=f"node budget {budget:,} per column",
                )
            )
        if time.perf_counter() - t0 >= time_cap or (max_budget and budget >= max_budget):
            break
        budget *= 4
        if max_budget:
            budget = min(budget, max_budget)
    return out


def _summary(moves: str, columns: list[dict[str, Any]]) -> dict[str, Any]:
    from rompicapo.games.connect4 import explain_score

    known = [c["score"] for c in columns if c["state"] == "solved"]
    unknown = any(c["state"] == "unknown" for c in columns)
    best = max(known) if known else None
    out: dict[str, Any] = {"columns": columns, "best_known": best}
    # the position's value is proven when every column is known, or a known one already wins
    # with the largest score any column could have
    if known and (not unknown or (best > 0 and _proves_best(moves, best))):
        out["score"] = best
        out["explanation"] = explain_score(best)
        out["best_columns"] = [c["column"] for c in columns if c["score"] == best]
    else:
        out["score"] = None
        out["explanation"] = (
            f"at least {explain_score(best)}" if best is not None and best > 0 else "unknown"
        )
        out["best_columns"] = []
    return out


def _proves_best(moves: str, best: int) -> bool:
    # a win with the next stone is the largest score there is
    return best == (42 + 1 - len(moves)) // 2


def connect4_move(moves: str, time_cap: float) -> dict[str, Any]:
    """The computer's column after ``moves``: a best column when the analysis proves one
    (all columns known, or a known win), else the solver's safe heuristic move, never a column
    known to be worse than another known one."""
    columns = connect4_columns(moves, time_cap)
    known = {c["column"]: c["score"] for c in columns if c["state"] == "solved"}
    unknown = [c["column"] for c in columns if c["state"] == "unknown"]
    best = max(known.values()) if known else None
    if known and (not unknown or best > 0):
        col = min((c for c, s in known.items() if s == best), key=lambda c: abs(c - 4))
        how = "proven best" if not unknown else "a proven win"
    else:
        with _solver_lock:
            col = _get_solver().best_move(moves, node_limit=1)  # its safe heuristic move
        if col in known and best is not None and known[col] < best:
            col = min((c for c, s in known.items() if s == best), key=lambda c: abs(c - 4))
        how = "heuristic (position too young to solve in time)"
    return {"column": col, "how": how, **_summary(moves, columns)}


async def c4_analyze(request: Request) -> JSONResponse:
    body = await json_body(request)
    moves = _moves(body)
    cap = field(body, "time_limit", float, C4_TIME_CAP, minimum=0.01, maximum=C4_TIME_CAP_MAX)
    info = _position_info(moves)
    if info["over"]:
        return JSONResponse({**info, "columns": [], "score": None, "best_columns": []})
    t0 = time.perf_counter()
    columns = await run_in_threadpool(connect4_columns, moves, cap)
    return JSONResponse(
        {**info, **_summary(moves, columns), "seconds": time.perf_counter() - t0}
    )


async def c4_move(request: Request) -> JSONResponse:
    body = await json_body(request)
    moves = _moves(body)
    cap = field(body, "time_limit", float, 0.5, minimum=0.01, maximum=C4_TIME_CAP_MAX)
    info = _position_info(moves)
    if info["over"]:
        raise InputError(f"the game is already over after {moves!r}")
    t0 = time.perf_counter()
    answer = await run_in_threadpool(connect4_move, moves, cap)
    return JSONResponse({**info, **answer, "seconds": time.perf_counter() - t0})


async def c4_solve(request: Request) -> JSONResponse:
    """Who wins from here, without the move's time cap: a job (stop works between budgets)."""
    body = await json_body(request)
    moves = _moves(body)
    tab = field(body, "tab", str, max_length=64)
    seconds = field(body, "time_limit", float, 30.0, minimum=0.1, maximum=C4_JOB_SECONDS)
    if _position_info(moves)["over"]:
        raise InputError(f"the game is already over after {moves!r}")

    def run(progress):
        from rompicapo.games.connect4 import Connect4Solver

        solver = Connect4Solver(table_log2=20)  # its own table: move answers stay fast
        columns = connect4_columns(
            moves,
            seconds,
            solver=solver,
            lock=threading.Lock(),
            max_budget=C4_JOB_MAX_BUDGET,
            progress=progress,
        )
        return {**_position_info(moves), **_summary(moves, columns)}

    job = request.app.state.jobs.start(tab, "connect4-solve", run)
    return JSONResponse(job.summary())


# ------------------------------------------------------------------ tic-tac-toe

ORDER = (4, 0, 2, 6, 8, 1, 3, 5, 7)  # centre, corners, edges: the textbook's good order


def _ttt_cells(body: dict[str, Any]) -> tuple[int, ...]:
    cells = field(body, "moves", list, [], max_length=9)
    from rompicapo.games import TicTacToe

    g = TicTacToe()
    s = g.initial()
    for i, c in enumerate(cells, 1):
        if isinstance(c, bool) or not isinstance(c, int):
            raise InputError(f"move {i} must be a cell number 0..8")
        if g.is_terminal(s):
            raise InputError(f"move {i} comes after the game is over")
        s = g.play(s, c)  # InputError for a bad or taken cell
    return tuple(cells)


@lru_cache(maxsize=2048)
def tictactoe_stats(cells: tuple[int, ...]) -> dict[str, Any]:
    """The position after ``cells``: its value, each free cell's value, and the work of
    minimax, alpha-beta in cell order and alpha-beta with the centre-corners-edges order."""
    from rompicapo.games import TicTacToe, alphabeta
    from rompicapo.games.tictactoe import analyse_tictactoe

    g = TicTacToe()
    s = g.initial()
    for c in cells:
        s = g.play(s, c)
    board = ["."] * 9
    for i, c in enumerate(cells):
        board[c] = "X" if i % 2 == 0 else "O"
    out: dict[str, Any] = {
        "moves": list(cells),
        "board": "".join(board),
        "to_move": "X" if len(cells) % 2 == 0 else "O",
        "over": g.is_terminal(s),
        "winner": {1: "X", -1: "O"}.get(int(g.utility(s))) if g.is_terminal(s) else None,
    }
    if out["over"]:
        return out
    searches = {
        "minimax": analyse_tictactoe(list(cells), search="minimax"),
        "alphabeta": analyse_tictactoe(list(cells), search="alphabeta"),
        "alphabeta_ordered": analyse_tictactoe(list(cells), search="alphabeta", order=ORDER),
    }
    out["value"] = int(searches["minimax"].value)
    out["stats"] = {
        name: {k: int(r.counts[k]) for k in ("nodes", "leaves", "cutoffs")}
        for name, r in searches.items()
    }
    out["cell_values"] = {
        str(c): int(alphabeta(g, g.apply(s, c), -2, 2).value) for c in g.moves(s)
    }
    return out


async def ttt_analyze(request: Request) -> JSONResponse:
    body = await json_body(request)
    cells = _ttt_cells(body)
    return JSONResponse(await run_in_threadpool(tictactoe_stats, cells))


TREE_MAX_NODES = 1500


async def ttt_tree(request: Request) -> JSONResponse:
    body = await json_body(request)
    cells = _ttt_cells(body)
    ordered = field(body, "ordered", bool, False)

    def run() -> dict[str, Any]:
        from rompicapo.games import TicTacToe
        from rompicapo.games.search import static_order
        from rompicapo.games.tree_trace import alphabeta_tree

        g = TicTacToe()
        s = g.initial()
        for c in cells:
            s = g.play(s, c)
        tree = alphabeta_tree(
            g,
            s,
            order=static_order(list(ORDER)) if ordered else None,
            max_nodes=TREE_MAX_NODES,
        )
        return {"moves": list(cells), "ordered": ordered, "counts": tree.counts(),
                "tree": tree.to_dict()}  # fmt: skip

    return JSONResponse(await run_in_threadpool(run))


# ------------------------------------------------------------------ Nim

NIM_MAX_HEAPS = 12
NIM_MAX_HEAP = 1_000_000


async def nim(request: Request) -> JSONResponse:
    from rompicapo.games.impartial import nim_advice

    body = await json_body(request)
    heaps = field(body, "heaps", list, max_length=NIM_MAX_HEAPS)
    for i, h in enumerate(heaps, 1):
        if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= NIM_MAX_HEAP:
            raise InputError(f"heap {i} must be an integer 0..{NIM_MAX_HEAP:,}")
    misere = field(body, "misere", bool, False)
    advice = nim_advice(heaps, misere=misere)
    width = max(1, max(heaps, default=0).bit_length())
    return JSONResponse(
        {
            **advice.to_dict(),
            "report": advice.report(),
            "binary": [format(h, f"0{width}b") for h in heaps],
            "nim_sum_binary": format(advice.nim_sum, f"0{width}b"),
        }
    )


ROUTES = [
    Route("/connect4/analyze", c4_analyze, methods=["POST"]),
    Route("/connect4/move", c4_move, methods=["POST"]),
    Route("/connect4/solve", c4_solve, methods=["POST"]),
    Route("/tictactoe/analyze", ttt_analyze, methods=["POST"]),
    Route("/tictactoe/tree", ttt_tree, methods=["POST"]),
    Route("/nim", nim, methods=["POST"]),
]
