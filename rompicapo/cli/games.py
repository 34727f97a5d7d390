"""``rompicapo game ...``: two-player games (tic-tac-toe, Nim, Grundy values, Connect Four,
Pig) and play against the engine in the terminal. A thin shell over rompicapo.games."""

from __future__ import annotations

import argparse

from rompicapo.cli.options import (
    add_run_options,
    mark_paths,
    nonnegative_int,
    positive_int,
    time_left,
)
from rompicapo.common import InputError

PLAYABLE = ("tictactoe", "connect4", "nim")


def _print(args: argparse.Namespace, result, *extra: str) -> None:
    """``--json``: the result's to_dict(); otherwise its report (and any extra lines)."""
    from rompicapo.common import dumps_json

    if getattr(args, "json", False):
        print(dumps_json(result.to_dict()))
        return
    print(result.report())
    for line in extra:
        print(line)


def register(subparsers: argparse._SubParsersAction) -> None:
    game = subparsers.add_parser("game", help="two-player games: search, Nim, Connect Four, play")
    sub = game.add_subparsers(dest="game", metavar="GAME", parser_class=type(game))
    sub.required = True

    p = sub.add_parser("tictactoe", help="solve tic-tac-toe from the empty board (or MOVES)")
    p.add_argument("moves", nargs="?", default="", help="cells played so far, e.g. 4,0 (0..8)")
    p.add_argument(
        "--search",
        choices=["minimax", "alphabeta", "negamax", "engine", "retrograde"],
        default="alphabeta",
        help="the search to run (default alphabeta)",
    )
    p.add_argument("--order", help="cell order to try, e.g. 4,0,2,6,8,1,3,5,7 (default 0..8)")
    p.add_argument("--window", default="-2,2", help="alpha,beta for alphabeta/negamax")
    p.add_argument("--fail-hard", action="store_true", help="fail-hard instead of fail-soft")
    p.add_argument(
        "--stats", action="store_true", help="print the work counts and time (always shown now)"
    )
    add_run_options(p, time=False, jobs=False)
    p.set_defaults(handler=_tictactoe)

    p = sub.add_parser("nim", help="Nim: P or N, and the winning move")
    p.add_argument("heaps", nargs="+", help="heap sizes, e.g. 3 5 8")
    p.add_argument("--misere", action="store_true", help="the last to move loses")
    p.add_argument(
        "--count-games", action="store_true", help="also count the distinct games to the end"
    )
    add_run_options(p, time=False, jobs=False)
    p.set_defaults(handler=_nim)

    p = sub.add_parser("grundy", help="Grundy values of a subtraction or octal game")
    p.add_argument("kind", choices=["subtract", "octal"], help="subtract or octal")
    p.add_argument("spec", help="subtraction set like 1,2,3 or octal code like 0.77 (Kayles)")
    p.add_argument(
        "--upto", type=nonnegative_int, default=30, help="heap sizes 0..N (default 30, max 10000)"
    )
    add_run_options(p, jobs=False)
    p.set_defaults(handler=_grundy)

    c4 = sub.add_parser("connect4", help="Connect Four: solve positions, run a test set")
    c4sub = c4.add_subparsers(dest="action", metavar="ACTION", parser_class=type(game))
    c4sub.required = True
    p = c4sub.add_parser("solve", help="score of the position after MOVES (Pons' convention)")
    p.add_argument("moves", nargs="?", default="", help="columns played, 1..7, e.g. 4455")
    p.add_argument("--analyze", action="store_true", help="the score of every column")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    add_run_options(p, time=False, jobs=False)
    # one kernel call solves the position (minutes early in a game): SIGTERM ends it at once
    p.set_defaults(handler=_connect4_solve, stops_between_calls=False)
    p = c4sub.add_parser("bench", help="solve a file of 'MOVES SCORE' lines (Pons' test sets)")
    p.add_argument("file", help="a test set: one 'MOVES SCORE' line per position")
    p.add_argument(
        "--weak", action="store_true", help="check only the sign of each score (win/draw/loss)"
    )
    add_run_options(p, time=False, jobs=False, limit=True)
    p.set_defaults(handler=_connect4_bench)
    mark_paths(p, inputs=("file",))

    p = sub.add_parser("pig", help="Pig: optimal win probability and roll/hold by value iteration")
    p.add_argument(
        "--goal", type=positive_int, default=100, help="points to win (2..400, default 100)"
    )
    p.add_argument("--scores", help="my,opponent,turn-total: the advice in that state")
    add_run_options(p, time=False, jobs=False)
    p.set_defaults(handler=_pig, stops_between_calls=False)  # one value-iteration call

    p = sub.add_parser("play", help="play against the engine in the terminal")
    p.add_argument(
        "which", choices=PLAYABLE, metavar="{" + ",".join(PLAYABLE) + "}", help="the game"
    )
    p.add_argument("--engine-first", action="store_true", help="the engine moves first")
    p.add_argument("--heaps", default="3,5,8", help="Nim heaps (default 3,5,8)")
    p.add_argument("--misere", action="store_true", help="misère Nim")
    p.set_defaults(handler=_play)


# ---- one API call per command ------------------------------------------------------------------


def _int_list(text: str, what: str) -> list[int]:
    from rompicapo.games.tictactoe import parse_cells

    return parse_cells(text, what)


def _tictactoe(args: argparse.Namespace) -> int:
    from rompicapo.games.tictactoe import analyse_tictactoe

    out = analyse_tictactoe(
        args.moves,
        search=args.search,
        order=args.order,
        window=args.window,
        fail_soft=not args.fail_hard,
    )
    _print(args, out)
    return 0


def _nim(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import nim_advice

    _print(args, nim_advice(args.heaps, misere=args.misere, count_games=args.count_games))
    return 0


def _grundy(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import grundy_values

    _print(args, grundy_values(args.kind, args.spec, args.upto, time_limit=time_left(args)))
    return 0


def _connect4_solve(args: argparse.Namespace) -> int:
    from rompicapo.games.connect4 import solve_moves

    _print(args, solve_moves(args.moves, analyze=args.analyze, weak=args.weak))
    return 0


def _connect4_bench(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.games.connect4 import bench

    with ProgressPrinter("positions", enabled=not (args.quiet or args.json)) as progress:
        result = bench(args.file, limit=args.limit, weak=args.weak, progress=progress)
    _print(args, result)
    return 0 if result.correct == result.positions else 1


def _pig(args: argparse.Namespace) -> int:
    from rompicapo.games.pig import check_pig_state, solve_pig

    scores = None
    if args.scores:
        scores = _int_list(args.scores, "--scores")
        if len(scores) != 3:
            raise InputError("--scores needs my,opponent,turn-total")
        check_pig_state(args.goal, *scores)
    solution = solve_pig(args.goal)
    if scores is not None:
        # checked before printing anything: a bad state is one line, not half an answer
        advice = solution.advice(*scores)
        _print(args, solution, advice)
    else:
        _print(args, solution)
    return 0


# ---- play ----------------------------------------------------------------------------------------


def _play(args: argparse.Namespace) -> int:
    from rompicapo.common import stdin_binary
    from rompicapo.games.game import MAX

    stdin_binary("play", "the moves are read from it")

    game, engine_move, parse = _player_for(args)
    state = game.initial()
    human = -MAX if args.engine_first else MAX
    print(f"{game.name}: you are {'first' if human == MAX else 'second'}. 'q' quits.")
    while not game.is_terminal(state):
        print(game.render(state))
        if game.to_move(state) == human:
            try:
                line = input("your move> ").strip()
            except EOFError:
                print()
                return 0
            if line in ("q", "quit", "exit"):
                return 0
            try:
                state = game.play(state, parse(line))
            except InputError as exc:
                print(f"  {exc}")
        else:
            move = engine_move(state)
            print(f"engine plays {_show_move(game, move)}")
            state = game.apply(state, move)
    print(game.render(state))
    u = game.utility(state)
    print("draw" if u == 0 else ("you win" if u * human > 0 else "the engine wins"))
    return 0


def _show_move(game, move) -> str:
    if isinstance(move, tuple):
        return f"take {move[1]} from heap {move[0] + 1}"
    return str(move)


def _player_for(args: argparse.Namespace):
    if args.which == "tictactoe":
        from rompicapo.games import TicTacToe, retrograde

        game = TicTacToe()
        table = retrograde(game)

        def parse(text: str) -> int:
            try:
                return int(text)
            except ValueError:
                raise InputError(f"type a cell number 0..8, not {text!r}") from None

        return game, table.best_move, parse
    if args.which == "connect4":
        from rompicapo.games.connect4 import Connect4, Connect4Solver

        game = Connect4()
        solver = Connect4Solver()

        def parse(text: str) -> int:
            if text not in list("1234567"):
                raise InputError(f"type a column 1..7, not {text!r}")
            return int(text)

        # the solver answers at once late in the game; early on it falls back to a safe
        # heuristic when a column needs more than this many nodes (about a second)
        return game, lambda s: solver.best_move(s, node_limit=3_000_000), parse

    from rompicapo.games.impartial import Nim, nim_winning_move

    game = Nim(_int_list(args.heaps, "--heaps"), misere=args.misere)

    def engine(state):
        move = nim_winning_move(state[0], args.misere)
        if move is None:  # lost anyway: take one from the largest heap and hope
            heaps = state[0]
            move = (max(range(len(heaps)), key=lambda i: heaps[i]), 1)
        return move

    def parse(text: str) -> tuple[int, int]:
        parts = text.replace(",", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise InputError("type HEAP AMOUNT, e.g. '3 2' takes 2 from heap 3")
        return int(parts[0]) - 1, int(parts[1])

    return game, engine, parse
