"""``rompicapo game ...``: two-player games (tic-tac-toe, Nim, Grundy values, Connect Four,
Pig) and play against the engine in the terminal. A thin shell over rompicapo.games."""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli import connect4_book
from rompicapo.cli.options import (
    add_deprecated_flag,
    add_run_options,
    mark_paths,
    nonnegative_int,
    positive_int,
    time_left,
)
from rompicapo.common import EXIT_INTERRUPTED

PLAYABLE = ("tictactoe", "connect4", "nim")


def _print(args: argparse.Namespace, result, *extra: str) -> int:
    """``--json``: the result's to_dict(); otherwise its report (and any extra lines). The exit
    status: 130 when Ctrl-C stopped the search (the result so far is printed), else 0."""
    from rompicapo.common import dumps_json

    if getattr(args, "json", False):
        print(dumps_json(result.to_dict()))
    else:
        print(result.report())
        for line in extra:
            print(line)
    if getattr(result, "stopped", None) == "interrupted":
        print("rompicapo game: interrupted; the result so far is above", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _engine_options(p: argparse.ArgumentParser) -> None:
    """``--time`` and ``--nodes`` for the engine's moves: each move's budget, not the
    command's (a game lasts as long as the person takes), so the start-up is not charged."""
    add_run_options(p, time=True, nodes=True, jobs=False, output=False)
    for action in p._actions:
        if action.dest == "time_limit":
            action.dest = "move_time_limit"
            action.help = "the engine's seconds for each of its moves"
        elif action.dest == "node_limit":
            action.dest = "move_node_limit"
            action.help = "the engine's nodes for each of its moves"
    p.add_argument("--engine-first", action="store_true", help="the engine moves first")


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
    add_deprecated_flag(p, "--stats", None, dest="stats", instead="the counts are always shown",
                        nargs=0, const=True)  # fmt: skip
    add_run_options(p, time=True, nodes=True, jobs=False)
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

    c4 = sub.add_parser("connect4", help="Connect Four: solve, analyse, play, run a test set")
    c4sub = c4.add_subparsers(dest="action", metavar="ACTION", parser_class=type(game))
    c4sub.required = True
    p = c4sub.add_parser("solve", help="score of the position after MOVES (Pons' convention)")
    p.add_argument("moves", nargs="?", default="", help="columns played, 1..7, e.g. 4455")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    add_deprecated_flag(p, "--analyze", None, dest="analyze", nargs=0, const=True,
                        instead="use 'game connect4 analyse'")  # fmt: skip
    _book_options(p)
    add_run_options(p, time=True, nodes=True, jobs=False)
    p.set_defaults(handler=_connect4_solve, analyze=False)
    p = c4sub.add_parser(
        "analyse", aliases=["analyze"], help="the score of every column after MOVES"
    )
    p.add_argument("moves", nargs="?", default="", help="columns played, 1..7, e.g. 4455")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    _book_options(p)
    add_run_options(p, time=True, nodes=True, jobs=False)
    p.set_defaults(handler=_connect4_solve, analyze=True)
    p = c4sub.add_parser("play", help="play Connect Four against the solver in the terminal")
    _engine_options(p)
    p.set_defaults(handler=_play, which="connect4", heaps="3,5,8", misere=False)
    p = c4sub.add_parser("bench", help="solve a file of 'MOVES SCORE' lines (Pons' test sets)")
    p.add_argument("file", help="a test set: one 'MOVES SCORE' line per position")
    p.add_argument(
        "--weak", action="store_true", help="check only the sign of each score (win/draw/loss)"
    )
    _book_options(p)
    add_run_options(p, time=False, jobs=False, limit=True)
    p.set_defaults(handler=_connect4_bench)
    mark_paths(p, inputs=("file", "book"))
    connect4_book.register_book(c4sub, type(game))

    p = sub.add_parser("pig", help="Pig: optimal win probability and roll/hold by value iteration")
    p.add_argument(
        "--goal", type=positive_int, default=100, help="points to win (2..400, default 100)"
    )
    p.add_argument("--scores", help="my,opponent,turn-total: the advice in that state")
    add_run_options(p, jobs=False)
    p.set_defaults(handler=_pig)

    p = sub.add_parser("play", help="play against the engine in the terminal")
    p.add_argument(
        "which", choices=PLAYABLE, metavar="{" + ",".join(PLAYABLE) + "}", help="the game"
    )
    p.add_argument("--heaps", default="3,5,8", help="Nim heaps (default 3,5,8)")
    p.add_argument("--misere", action="store_true", help="misère Nim")
    _engine_options(p)
    p.set_defaults(handler=_play)


# ---- one API call per command ------------------------------------------------------------------


def _tictactoe(args: argparse.Namespace) -> int:
    from rompicapo.games.tictactoe import analyse_tictactoe

    out = analyse_tictactoe(
        args.moves,
        search=args.search,
        order=args.order,
        window=args.window,
        fail_soft=not args.fail_hard,
        time_limit=time_left(args),
        node_limit=args.node_limit,
    )
    return _print(args, out)


def _nim(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import nim_advice

    return _print(args, nim_advice(args.heaps, misere=args.misere, count_games=args.count_games))


def _grundy(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import grundy_values

    return _print(args, grundy_values(args.kind, args.spec, args.upto, time_limit=time_left(args)))


def _connect4_solve(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.games.connect4 import solve_moves

    with ProgressPrinter("nodes", enabled=not (args.quiet or args.json)) as progress:
        result = solve_moves(
            args.moves,
            analyse=args.analyze,
            weak=args.weak,
            time_limit=time_left(args),
            node_limit=args.node_limit,
            progress=progress,
            book=_book_choice(args),
        )
    return _print(args, result)


def _book_options(p: argparse.ArgumentParser) -> None:
    """``--book FILE`` and ``--no-book``: which opening book is read first."""
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--book", metavar="FILE", help="read this opening book (default: the one shipped)"
    )
    which.add_argument("--no-book", action="store_true", help="no opening book: the search alone")


def _book_choice(args: argparse.Namespace):
    return False if args.no_book else (args.book or True)


def _connect4_bench(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.games.connect4 import bench

    with ProgressPrinter("positions", enabled=not (args.quiet or args.json)) as progress:
        result = bench(
            args.file, limit=args.limit, weak=args.weak, progress=progress, book=_book_choice(args)
        )
    status = _print(args, result)
    return status or (0 if result.correct == result.positions else 1)


def _pig(args: argparse.Namespace) -> int:
    from rompicapo.games.pig import PigSolution, check_pig_state, solve_pig
    from rompicapo.games.tictactoe import parse_cells

    scores = None
    if args.scores:
        scores = parse_cells(args.scores, "--scores")
        if len(scores) != 3:
            from rompicapo.common import InputError

            raise InputError("--scores needs my,opponent,turn-total")
        check_pig_state(args.goal, *scores)
    from rompicapo.cli.progress import ProgressPrinter

    with ProgressPrinter("sweeps", enabled=not (args.quiet or args.json)) as progress:
        solution: PigSolution = solve_pig(args.goal, time_limit=time_left(args), progress=progress)
    # checked before printing anything: a bad state is one line, not half an answer
    advice = () if scores is None else (solution.advice(*scores),)
    return _print(args, solution, *advice)


# ---- play ----------------------------------------------------------------------------------------


def _play(args: argparse.Namespace) -> int:
    """The terminal's game loop: the person's moves are parsed by the games family, the
    engine's come from [`rompicapo.games.computer_move()`][rompicapo.games.computer_move]."""
    from rompicapo.common import InputError, stdin_binary
    from rompicapo.games.game import MAX
    from rompicapo.games.play import computer_move, describe_move, parse_move

    stdin_binary("play", "the moves are read from it")
    game = _new_game(args)
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
                state = game.play(state, parse_move(game, line, state))
            except InputError as exc:
                print(f"  {exc}")
        else:
            choice = computer_move(
                game, state, time_limit=args.move_time_limit, node_limit=args.move_node_limit
            )
            print(f"engine plays {describe_move(game, choice.move)}")
            state = game.apply(state, choice.move)
    print(game.render(state))
    u = game.utility(state)
    print("draw" if u == 0 else ("you win" if u * human > 0 else "the engine wins"))
    return 0


def _new_game(args: argparse.Namespace):
    from rompicapo.games import Connect4, Nim, TicTacToe
    from rompicapo.games.tictactoe import parse_cells

    if args.which == "tictactoe":
        return TicTacToe()
    if args.which == "connect4":
        return Connect4()
    return Nim(parse_cells(args.heaps, "--heaps"), misere=args.misere)
