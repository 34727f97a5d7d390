"""``rompicapo game ...``: two-player games (tic-tac-toe, Nim, Grundy values, Connect Four,
Pig) and play against the engine in the terminal. A thin shell over rompicapo.games."""

from __future__ import annotations

import argparse
import time

from rompicapo.common import InputError

PLAYABLE = ("tictactoe", "connect4", "nim")


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
    )
    p.add_argument("--order", help="cell order to try, e.g. 4,0,2,6,8,1,3,5,7 (default 0..8)")
    p.add_argument("--window", default="-2,2", help="alpha,beta for alphabeta/negamax")
    p.add_argument("--fail-hard", action="store_true", help="fail-hard instead of fail-soft")
    p.add_argument("--stats", action="store_true", help="print the work counts and time")
    p.set_defaults(handler=_tictactoe)

    p = sub.add_parser("nim", help="Nim: P or N, and the winning move")
    p.add_argument("heaps", nargs="+", help="heap sizes, e.g. 3 5 8")
    p.add_argument("--misere", action="store_true", help="the last to move loses")
    p.add_argument(
        "--count-games", action="store_true", help="also count the distinct games to the end"
    )
    p.set_defaults(handler=_nim)

    p = sub.add_parser("grundy", help="Grundy values of a subtraction or octal game")
    p.add_argument("kind", choices=["subtract", "octal"])
    p.add_argument("spec", help="subtraction set like 1,2,3 or octal code like 0.77 (Kayles)")
    p.add_argument("--upto", type=int, default=30, help="heap sizes 0..N (default 30)")
    p.set_defaults(handler=_grundy)

    c4 = sub.add_parser("connect4", help="Connect Four: solve positions, run a test set")
    c4sub = c4.add_subparsers(dest="action", metavar="ACTION", parser_class=type(game))
    c4sub.required = True
    p = c4sub.add_parser("solve", help="score of the position after MOVES (Pons' convention)")
    p.add_argument("moves", nargs="?", default="", help="columns played, 1..7, e.g. 4455")
    p.add_argument("--analyze", action="store_true", help="the score of every column")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    p.set_defaults(handler=_connect4_solve)
    p = c4sub.add_parser("bench", help="solve a file of 'MOVES SCORE' lines (Pons' test sets)")
    p.add_argument("file")
    p.add_argument("--limit", type=int, default=0, help="only the first N positions")
    p.add_argument("--weak", action="store_true")
    p.set_defaults(handler=_connect4_bench)

    p = sub.add_parser("pig", help="Pig: optimal win probability and roll/hold by value iteration")
    p.add_argument("--goal", type=int, default=100)
    p.add_argument("--scores", help="my,opponent,turn-total: the advice in that state")
    p.set_defaults(handler=_pig)

    p = sub.add_parser("play", help="play against the engine in the terminal")
    p.add_argument("which", choices=PLAYABLE, metavar="{" + ",".join(PLAYABLE) + "}")
    p.add_argument("--engine-first", action="store_true", help="the engine moves first")
    p.add_argument("--heaps", default="3,5,8", help="Nim heaps (default 3,5,8)")
    p.add_argument("--misere", action="store_true", help="misère Nim")
    p.set_defaults(handler=_play)


# ---- tic-tac-toe -------------------------------------------------------------------------------


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise InputError(f"{what} must be integers separated by commas, got {text!r}") from None


def _tictactoe(args: argparse.Namespace) -> int:
    from rompicapo.games import (
        Engine,
        TicTacToe,
        alphabeta,
        minimax,
        negamax,
        retrograde,
        static_order,
    )

    game = TicTacToe()
    state = game.initial()
    for cell in _int_list(args.moves, "moves"):
        state = game.play(state, cell)
    order = None
    if args.order:
        cells = _int_list(args.order, "--order")
        if sorted(cells) != list(range(9)):
            raise InputError(f"--order must list the cells 0..8 once each, got {args.order}")
        order = static_order(cells)
    window = [float(x) for x in _int_list(args.window, "--window")]
    if len(window) != 2 or window[0] >= window[1]:
        raise InputError(f"--window must be alpha,beta with alpha < beta, got {args.window}")
    if args.search == "minimax":
        out = minimax(game, state, order=order)
    elif args.search == "alphabeta":
        out = alphabeta(game, state, *window, order=order, fail_soft=not args.fail_hard)
    elif args.search == "negamax":
        out = negamax(game, state, *window, order=order, fail_soft=not args.fail_hard)
    elif args.search == "engine":
        out = Engine(game, order=order).search(state)
    else:
        table = retrograde(game, state)
        v = table.max_value(state)
        print(f"value {v:+d} (X's view); best cell {table.best_move(state)}")
        if args.stats:
            print(f"positions {len(table):,}; {table.counts}; {table.solve_seconds:.3f} s")
        return 0
    value = out.value * (game.to_move(state) if out.perspective == "mover" else 1)
    print(game.render(state))
    print(f"value {value:+g} (X's view: +1 X wins, 0 draw, -1 O wins); best cell {out.move}")
    if args.stats:
        s = out.stats
        print(
            f"nodes {s.nodes:,}  terminal evaluations {s.leaves:,}  cutoffs {s.cutoffs:,}  "
            f"tt hits {s.tt_hits:,}  time {out.solve_seconds:.3f} s"
        )
    return 0


# ---- Nim and Grundy ------------------------------------------------------------------------------


def _nim(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import (
        count_nim_games,
        nim_outcome,
        nim_winning_move,
        parse_heaps,
    )

    heaps = parse_heaps(args.heaps)
    outcome = nim_outcome(heaps, args.misere)
    move = nim_winning_move(heaps, args.misere)
    rule = "misère" if args.misere else "normal play"
    if outcome == "P":
        print(f"P: the player to move loses ({rule}); every move loses against best play")
    elif move is None:
        print(f"N: the player to move has already won ({rule}: the opponent took the last)")
    else:
        i, take = move
        print(
            f"N: the player to move wins ({rule}): take {take} from heap {i + 1} "
            f"({heaps[i]} -> {heaps[i] - take})"
        )
    if args.count_games:
        if sum(heaps) > 40:
            raise InputError("--count-games: at most 40 objects in all (the count explodes)")
        print(f"distinct games to the end: {count_nim_games(heaps):,}")
    return 0


def _grundy(args: argparse.Namespace) -> int:
    from rompicapo.games.impartial import octal_grundy, subtraction_grundy

    if not 0 <= args.upto <= 10_000:
        raise InputError(f"--upto must be 0..10000, got {args.upto}")
    if args.kind == "subtract":
        seq = subtraction_grundy(args.spec, args.upto)
    else:
        seq = octal_grundy(args.spec, args.upto)
    print(seq.describe())
    return 0


# ---- Connect Four --------------------------------------------------------------------------------


def _connect4_solve(args: argparse.Namespace) -> int:
    from rompicapo.games.connect4 import Connect4, Connect4Solver, parse_position

    position = parse_position(args.moves)
    solver = Connect4Solver()
    print(Connect4().render(position))
    if args.analyze:
        out = solver.analyze(position, weak=args.weak)
        cells = ["  -" if s is None else f"{s:3d}" for s in out.scores]
        print("column:" + "".join(f"{c:>4}" for c in range(1, 8)))
        print("score: " + " ".join(cells))
        print(f"best column(s) {out.best_columns}; score {out.score}")
        print(f"nodes {out.counts['nodes']:,}  time {out.solve_seconds:.3f} s")
        return 0
    res = solver.solve(position, weak=args.weak)
    print(f"score {res.score} ({_explain(res.score, len(position.moves), args.weak)})")
    print(
        f"nodes {res.nodes:,}  time {res.solve_seconds:.4f} s  "
        f"(compile/load {res.compile_seconds:.2f} s)"
    )
    return 0


def _explain(score: int, played: int, weak: bool) -> str:
    if score == 0:
        return "draw with best play"
    who = "the player to move" if score > 0 else "the opponent"
    if weak:
        return f"{who} wins"
    stone = 22 - abs(score)
    return f"{who} wins with his stone number {stone}"


def _connect4_bench(args: argparse.Namespace) -> int:
    import statistics

    from rompicapo.games.connect4 import Connect4Solver

    try:
        with open(args.file) as fh:
            lines = [ln.split() for ln in fh if ln.strip()]
    except OSError as exc:
        raise InputError(f"cannot read {args.file}: {exc.strerror}") from None
    if args.limit:
        lines = lines[: args.limit]
    rows = []
    for n, parts in enumerate(lines, 1):
        if len(parts) != 2:
            raise InputError(f"{args.file} line {n}: expected 'MOVES SCORE'")
        try:
            rows.append((parts[0], int(parts[1])))
        except ValueError:
            raise InputError(
                f"{args.file} line {n}: score {parts[1]!r} is not an integer"
            ) from None
    solver = Connect4Solver()
    ok, times, nodes = 0, [], []
    t0 = time.perf_counter()
    for moves, expected in rows:
        r = solver.solve(moves, weak=args.weak)
        want = (expected > 0) - (expected < 0) if args.weak else expected
        ok += r.score == want
        times.append(r.solve_seconds)
        nodes.append(r.nodes)
    if not rows:
        raise InputError(f"{args.file} has no positions")
    print(
        f"{len(rows)} positions, {ok} correct; mean time {statistics.mean(times) * 1e6:,.1f} us; "
        f"mean nodes {statistics.mean(nodes):,.1f}; total {time.perf_counter() - t0:.2f} s"
    )
    return 0 if ok == len(rows) else 1


# ---- Pig -----------------------------------------------------------------------------------------


def _pig(args: argparse.Namespace) -> int:
    from rompicapo.games.pig import solve_pig

    sol = solve_pig(args.goal)
    print(
        f"Pig to {args.goal}: the first player wins with probability {sol.first_player_win:.6f} "
        f"under optimal play ({sol.counts['sweeps']} sweeps, {sol.solve_seconds:.2f} s)"
    )
    if args.scores:
        vals = _int_list(args.scores, "--scores")
        if len(vals) != 3:
            raise InputError("--scores needs my,opponent,turn-total")
        i, j, k = vals
        advice = "roll" if sol.should_roll(i, j, k) else "hold"
        p = 1.0 if i + k >= args.goal else float(sol.win[i, j, k])
        print(f"at {i}:{j} with turn total {k}: {advice} (win probability {p:.4f})")
        print(f"holds at turn totals {sol.hold_at(i, j)[:10]} ... for these scores")
    return 0


# ---- play ----------------------------------------------------------------------------------------


def _play(args: argparse.Namespace) -> int:
    from rompicapo.games.game import MAX

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
