"""The games page's routes (/api/games/...): Connect Four against the solver, tic-tac-toe's
search statistics and alpha-beta tree, Nim with Bouton's advice.

Every search runs in the job manager's workers (`rompicapo.web.jobs`): the analysis of a
Connect Four position, the computer's move and tic-tac-toe's searches in the quick lane, "who
wins from here" as a job. A worker keeps its solver (and the cache below) between requests.

A Connect Four position early in the game takes the solver a minute, so a move's analysis
works under a time cap, each column in this order of cost until it is settled:

1. the opening book of the games family (`rompicapo.games.connect4_book`, shipped with the
   package): the exact score of every position of its first stones, so every column of those
   positions is exact at once;
2. the solver with a node budget that grows while time remains, first for the outcome
   (win/draw/loss, the cheaper weak search), then for the exact score; results are cached per
   child position;
3. a shallow search of the next plies (`quick_bound()`), which proves a bound: nobody can
   force four before a certain stone, so the score lies within +/- that.

Nothing is guessed: a column says its exact score, its outcome, or the bound it has. The
computer's move is a proven best column when the known values prove one, else the solver's
safe heuristic move, never a column known to be worse than another.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rompicapo.common import InputError, ProgressEvent
from rompicapo.web.params import field, json_body, known
from rompicapo.web.run import quick, start_job

__all__ = ["ROUTES", "connect4_columns", "connect4_move", "quick_bound"]

# The analysis of one move: the page asks for this cap; 2 s at the most.
C4_TIME_CAP = 0.3
C4_TIME_CAP_MAX = 2.0
# The first node budget per column; it grows x4 while time remains.
C4_FIRST_BUDGET = 20_000
# A "who wins" job: at most this long, budgets up to this many nodes per column and try.
C4_JOB_SECONDS = 60.0
C4_JOB_MAX_BUDGET = 64_000_000
# ... and one solver call of a job at most about this long: Stop (or a closed tab) is honoured
# between calls, within 2 s.
C4_JOB_TRY_SECONDS = 1.2
# Solved child positions kept (moves -> exact score of the player to move there).
C4_CACHE = 20_000
# The shallow search of the bound looks this many plies ahead at most (7^4 positions per
# column at worst: a few hundredths of a second each in Python).
BOUND_MAX_PLIES = 4

_solver: Any = None  # this worker's solver
_c4_cache: OrderedDict[str, int] = OrderedDict()  # child moves -> exact score (its mover)
_c4_weak: OrderedDict[str, int] = OrderedDict()  # child moves -> +1/0/-1 (its mover)


def _get_solver() -> Any:
    global _solver
    if _solver is None:
        from rompicapo.games.connect4 import Connect4Solver

        _solver = Connect4Solver(table_log2=21)  # 16 MB: early positions are capped anyway
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


def _cached(cache: OrderedDict[str, int], moves: str) -> int | None:
    score = cache.get(moves)
    if score is not None:
        cache.move_to_end(moves)
    return score


def _remember(cache: OrderedDict[str, int], moves: str, score: int) -> None:
    cache[moves] = score
    if len(cache) > C4_CACHE:
        cache.popitem(last=False)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _wins_within(p: Any, plies: int) -> bool:
    """Can the player to move in ``p`` force four within ``plies`` plies (his moves counted
    with the opponent's)? A plain search of the public Position."""
    if plies <= 0 or p.over:
        return False
    moves = p.playable_columns()
    if any(p.play(c).won for c in moves):
        return True
    if plies < 3:
        return False
    for c in moves:
        after = p.play(c)
        if after.over:
            continue
        # every reply of the opponent must leave us a forced win (and not win for him)
        if all(
            not after.play(r).won and _wins_within(after.play(r), plies - 2)
            for r in after.playable_columns()
        ):
            return True
    return False


def _loses_within(p: Any, plies: int) -> bool:
    """Whatever the player to move in ``p`` plays, can the opponent force four within
    ``plies`` plies?"""
    moves = p.playable_columns()
    if plies < 2 or p.over or not moves:
        return False
    for c in moves:
        after = p.play(c)
        if after.won or after.over or not _wins_within(after, plies - 1):
            return False
    return True


def quick_bound(moves: str, col: int, deadline: float) -> tuple[str, int]:
    """What a shallow search proves about playing ``col`` after ``moves``, from the mover's
    point of view: ``("sign", +1 or -1)`` when a side forces four within the plies searched,
    else ``("bound", b)``: neither side can, so the winning stone, if any, comes later and
    the score lies within ``[-b, b]``. Deepens to `BOUND_MAX_PLIES` plies while
    ``deadline`` (a ``time.perf_counter()`` value) allows."""
    from rompicapo.games.connect4 import CELLS, parse_position

    child = parse_position(moves).play(col)  # the opponent to move
    proven = 0
    for plies in range(1, BOUND_MAX_PLIES + 1):
        if plies > 1 and time.perf_counter() > deadline:
            break
        if _wins_within(child, plies):
            return "sign", -1
        if _loses_within(child, plies):
            return "sign", 1
        proven = plies
    # no four before stone (ply) child.count + proven + 1: a win then scores at most
    # 22 - ceil(stone / 2) for the winner (Pons' convention)
    stone = child.count + proven + 1
    return "bound", max(0, CELLS // 2 + 1 - (stone + 1) // 2)


def _known_columns(p: Any) -> tuple[list[dict[str, Any]], list[tuple[int, Any]]]:
    """Each column's entry as far as it is known without a search (full, a win or a draw at
    once, the opening book, the exact-score cache or the weak cache), and the columns whose
    positions a search must still value."""
    from rompicapo.games.connect4 import CELLS
    from rompicapo.games.connect4_book import default_book

    book = default_book()

    out: list[dict[str, Any]] = []
    children = []
    for col in range(1, 8):
        entry: dict[str, Any] = {"column": col, "state": "unknown", "score": None,
                                 "sign": None, "bound": None}  # fmt: skip
        out.append(entry)
        if col not in p.playable_columns():
            entry["state"] = "full"
            continue
        child = p.play(col)
        if child.won:
            entry.update(state="solved", score=(CELLS + 1 - p.count) // 2, sign=1)
        elif child.over:
            entry.update(state="solved", score=0, sign=0)
        elif book is not None and (booked := book.score(child)) is not None:
            entry.update(state="solved", score=-booked, sign=-_sign(booked))
        elif (exact := _cached(_c4_cache, child.moves)) is not None:
            entry.update(state="solved", score=-exact, sign=-_sign(exact))
        else:
            weak = _cached(_c4_weak, child.moves)
            if weak is not None:
                entry.update(state="weak", sign=-weak)
            children.append((col, child))
    return out, children


def connect4_columns(
    moves: str,
    time_cap: float,
    *,
    solver: Any = None,
    max_budget: int | None = None,
    max_try_seconds: float | None = None,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """The value of playing each column after ``moves``, from the mover's point of view:
    ``{"column", "state", "score", "sign", "bound"}`` with state ``"full"``, ``"solved"``
    (``score`` is Pons' exact score, from the opening book or the search), ``"weak"`` (only
    ``sign`` is known: +1 win, 0 draw, -1 loss; from the weak search), ``"bound"`` (the score
    lies within ``[-bound, bound]``) or ``"unknown"`` (none of these within ``time_cap`` seconds).

    The weak search (win/draw/loss) is several times cheaper, so the first half of the time goes
    to it, the rest to exact scores; a shallow search bounds what remains. ``max_try_seconds``
    bounds one solver call (the kernel cannot be interrupted, and a job must stop within 2 s): a
    column that fails a try of that length is not tried again in that phase. ``progress``
    receives a [`ProgressEvent`][rompicapo.common.ProgressEvent] after every try (and may raise
    StopRequested)."""
    from rompicapo.games.connect4 import parse_position

    p = parse_position(moves)
    if p.over:
        raise InputError(f"the game is already over after {moves!r}")
    out, children = _known_columns(p)
    solver = solver or _get_solver()  # made (and its kernel loaded) before the clock starts
    t0 = time.perf_counter()

    def phase(todo: list, weak: bool, deadline: float) -> None:
        budget = C4_FIRST_BUDGET
        rate = None  # nodes per second, measured on the tries that ran out
        while todo:
            left = []
            for col, child in todo:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return
                limit = budget if rate is None else max(1000, min(budget, int(rate * remaining)))
                last_try = False
                if max_try_seconds is not None and rate is not None:
                    last_try = limit >= int(rate * max_try_seconds)
                    limit = min(limit, int(rate * max_try_seconds))
                start = time.perf_counter()
                res = solver.try_solve(child, weak=weak, node_limit=limit)
                spent = time.perf_counter() - start
                if res is None:
                    rate = limit / max(spent, 1e-6)
                    if not last_try:
                        left.append((col, child))
                elif weak:
                    _remember(_c4_weak, child.moves, _sign(res.score))
                    out[col - 1].update(state="weak", sign=-_sign(res.score))
                else:
                    _remember(_c4_cache, child.moves, res.score)
                    out[col - 1].update(state="solved", score=-res.score, sign=-_sign(res.score))
                if progress is not None:
                    progress(
                        ProgressEvent(
                            kind="progress",
                            done=sum(c["state"] in ("solved", "full") for c in out),
                            total=7,
                            unit="columns",
                            elapsed=time.perf_counter() - t0,
                            counts={"weak": sum(c["state"] == "weak" for c in out)},
                            message=f"{'weak' if weak else 'exact'} search, budget {limit:,}",
                        )
                    )
            todo = left
            if max_budget and budget >= max_budget:
                return
            budget *= 4
            if max_budget:
                budget = min(budget, max_budget)

    # the bound's shallow search keeps a fifth of the time (it takes a few hundredths)
    search_end = t0 + time_cap * 0.8
    phase([(c, ch) for c, ch in children if out[c - 1]["state"] == "unknown"], True,
          t0 + time_cap * 0.4)  # fmt: skip
    phase([(c, ch) for c, ch in children if out[c - 1]["state"] != "solved"], False,
          search_end)  # fmt: skip
    for col, _child in children:
        entry = out[col - 1]
        if entry["state"] == "unknown":
            kind, value = quick_bound(moves, col, t0 + time_cap)
            if kind == "sign":
                entry.update(state="weak", sign=value)
            else:
                entry.update(state="bound", bound=value)
    return out


def _summary(moves: str, columns: list[dict[str, Any]]) -> dict[str, Any]:
    """The position's value from its columns: ``score`` when every column is exact (or a win
    with the next stone is known), ``sign`` (+1/0/-1) when the outcome is proven, and the best
    columns that are known."""
    from rompicapo.games.connect4 import explain_score

    playable = [c for c in columns if c["state"] != "full"]
    exact = [c["score"] for c in playable if c["state"] == "solved"]
    signs = [c["sign"] for c in playable if c["sign"] is not None]
    all_exact = len(exact) == len(playable)
    best = max(exact) if exact else None
    out: dict[str, Any] = {"columns": columns, "best_known": best}
    out["score"] = None
    out["sign"] = None
    if exact and (all_exact or best == (42 + 1 - len(moves)) // 2):
        out["score"] = best
        out["sign"] = _sign(best)
        out["explanation"] = explain_score(best)
        out["best_columns"] = [c["column"] for c in playable if c["score"] == best]
        return out
    if signs and (max(signs) == 1 or len(signs) == len(playable)):
        out["sign"] = max(signs)
        out["explanation"] = {1: "the player to move wins", 0: "draw with best play",
                              -1: "the opponent wins"}[out["sign"]]  # fmt: skip
        out["best_columns"] = [c["column"] for c in playable if c["sign"] == out["sign"]]
        return out
    out["explanation"] = "not settled within the time cap"
    out["best_columns"] = []
    return out


def _loses_in_two(moves: str, col: int) -> bool:
    """After the mover plays ``col``, can the opponent win at once, or make a move after which
    he has two winning moves (the mover can block only one)? Plain play-outs of the public
    Position; no search."""
    from rompicapo.games.connect4 import parse_position

    after = parse_position(moves).play(col)
    if after.won:
        return False
    if after.over:
        return False
    replies = after.playable_columns()
    if any(after.play(r).won for r in replies):
        return True
    for r in replies:
        them = after.play(r)
        if them.over:
            continue
        ours = them.playable_columns()
        if any(them.play(x).won for x in ours):
            continue  # we win first: this reply does not refute col
        threats = 0
        for x in ours:
            # the opponent's winning moves after we pass: let us play x and see if he still
            # wins somewhere (a threat we cannot meet with x)
            mine = them.play(x)
            if not mine.over and any(mine.play(y).won for y in mine.playable_columns()):
                threats += 1
        if threats == len(ours):  # every answer of ours leaves him a win
            return True
    return False


def connect4_move(moves: str, time_cap: float) -> dict[str, Any]:
    """The computer's column after ``moves``: a best column when the analysis proves one (every
    column exact: the best score; a proven win: a winning column, the fastest known; every
    outcome known: a column keeping the best outcome), else the solver's safe heuristic move,
    never a column known to be worse than another known one."""
    columns = connect4_columns(moves, time_cap)
    summary = _summary(moves, columns)
    playable = [c for c in columns if c["state"] != "full"]

    def centre(cands: list[dict[str, Any]]) -> int:
        exact = [c for c in cands if c["state"] == "solved"]
        if exact:
            top = max(c["score"] for c in exact)
            cands = [c for c in exact if c["score"] == top]
        return min(cands, key=lambda c: abs(c["column"] - 4))["column"]

    if summary["sign"] is not None:
        col = centre([c for c in playable if c["sign"] == summary["sign"]])
        how = "proven best" if summary["score"] is not None else "keeps the proven outcome"
    else:
        col = _get_solver().best_move(moves, node_limit=1)  # its safe heuristic move
        signs = {c["column"]: c["sign"] for c in playable if c["sign"] is not None}
        top = max(signs.values()) if signs else None
        allowed = [c["column"] for c in playable if c["sign"] is None or c["sign"] == top]
        # two plies of tactics the heuristic does not see: a reply that leaves the opponent
        # two winning moves at once (or one we did not block) loses
        safe = [c for c in allowed if not _loses_in_two(moves, c)]
        pool = safe or allowed
        if col not in pool:
            col = min(pool, key=lambda c: abs(c - 4))
        how = "heuristic (position too young to solve in time)"
    return {"column": col, "how": how, **summary}


def analyze(moves: str, time_cap: float) -> dict[str, Any]:
    """The position after ``moves`` and, unless the game is over, its columns' values and
    their summary (a worker's task)."""
    info = _position_info(moves)
    if info["over"]:
        return {**info, "columns": [], "score": None, "sign": None, "best_columns": []}
    t0 = time.perf_counter()
    columns = connect4_columns(moves, time_cap)
    return {**info, **_summary(moves, columns), "seconds": time.perf_counter() - t0}


def computer_move(moves: str, time_cap: float) -> dict[str, Any]:
    """The computer's column after ``moves`` (a worker's task)."""
    t0 = time.perf_counter()
    answer = connect4_move(moves, time_cap)
    return {**_position_info(moves), **answer, "seconds": time.perf_counter() - t0}


def who_wins(progress: Any, moves: str, seconds: float) -> dict[str, Any]:
    """The "who wins from here" job: every column with budgets up to
    `C4_JOB_MAX_BUDGET` for ``seconds``, with its own solver and table."""
    from rompicapo.games.connect4 import Connect4Solver

    columns = connect4_columns(
        moves,
        seconds,
        solver=Connect4Solver(table_log2=20),
        max_budget=C4_JOB_MAX_BUDGET,
        max_try_seconds=C4_JOB_TRY_SECONDS,
        progress=progress,
    )
    return {**_position_info(moves), **_summary(moves, columns)}


async def c4_analyze(request: Request) -> JSONResponse:
    body = known(await json_body(request), "moves", "time_limit")
    moves = _moves(body)
    cap = field(body, "time_limit", float, C4_TIME_CAP, minimum=0.01, maximum=C4_TIME_CAP_MAX)
    answer = await quick(request, analyze, moves, cap, time_limit=cap, family="connect4")
    return JSONResponse(answer)


async def c4_move(request: Request) -> JSONResponse:
    body = known(await json_body(request), "moves", "time_limit")
    moves = _moves(body)
    cap = field(body, "time_limit", float, 0.5, minimum=0.01, maximum=C4_TIME_CAP_MAX)
    if _position_info(moves)["over"]:
        raise InputError(f"the game is already over after {moves!r}")
    answer = await quick(request, computer_move, moves, cap, time_limit=cap, family="connect4")
    return JSONResponse(answer)


async def c4_solve(request: Request) -> JSONResponse:
    """Who wins from here, without the move's time cap: a job (stop works between budgets)."""
    body = known(await json_body(request), "moves", "time_limit")
    moves = _moves(body)
    seconds = field(body, "time_limit", float, 30.0, minimum=0.1, maximum=C4_JOB_SECONDS)
    if _position_info(moves)["over"]:
        raise InputError(f"the game is already over after {moves!r}")
    return start_job(
        request, "connect4-solve", who_wins, moves, seconds, time_limit=seconds, family="connect4"
    )


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
    out["cell_values"] = {str(c): int(alphabeta(g, g.apply(s, c), -2, 2).value) for c in g.moves(s)}
    return out


TREE_MAX_NODES = 1500
# tic-tac-toe's searches: minimax from the empty board walks 549,946 nodes (about a second)
TTT_SECONDS = 10.0


def tictactoe_tree(cells: tuple[int, ...], ordered: bool) -> dict[str, Any]:
    """The alpha-beta tree after ``cells``; with more than `TREE_MAX_NODES` nodes, no
    tree (``"tree": None``) and a ``"note"`` that says why."""
    from rompicapo.games import TicTacToe
    from rompicapo.games.search import static_order
    from rompicapo.games.tree_trace import alphabeta_tree

    g = TicTacToe()
    s = g.initial()
    for c in cells:
        s = g.play(s, c)
    tree = alphabeta_tree(
        g, s, order=static_order(list(ORDER)) if ordered else None, node_limit=TREE_MAX_NODES
    )
    answer = {"moves": list(cells), "ordered": ordered, "counts": dict(tree.counts)}
    if not tree.complete:  # not a mistake: the page says why there is no picture yet
        return answer | {
            "tree": None,
            "note": f"the tree has more than {TREE_MAX_NODES:,} nodes, too many to draw: "
            "play a move or two and it appears",
        }
    return answer | {"tree": tree.to_dict()}


async def ttt_analyze(request: Request) -> JSONResponse:
    """Tic-tac-toe: the value of every move and the search's statistics."""
    cells = _ttt_cells(known(await json_body(request), "moves"))
    return JSONResponse(await quick(request, tictactoe_stats, cells, time_limit=TTT_SECONDS))


async def ttt_tree(request: Request) -> JSONResponse:
    """Tic-tac-toe: the alpha-beta tree of the position, for the picture."""
    body = known(await json_body(request), "moves", "ordered")
    cells = _ttt_cells(body)
    ordered = field(body, "ordered", bool, False)
    return JSONResponse(
        await quick(request, tictactoe_tree, cells, ordered, time_limit=TTT_SECONDS)
    )


# ------------------------------------------------------------------ Nim

NIM_MAX_HEAPS = 12
NIM_MAX_HEAP = 1_000_000


async def nim(request: Request) -> JSONResponse:
    """Nim: Bouton's advice (who wins, the nim-sum, a winning move)."""
    from rompicapo.games.impartial import nim_advice

    body = known(await json_body(request), "heaps", "misere")
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
