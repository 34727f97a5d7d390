"""Two-player games solved by search: minimax to alpha-beta with tables, chance nodes,
impartial games (Nim, Grundy numbers), Pig, and a Connect Four solver.

Any game that follows the protocol of `game` plugs into the searches,
one module per job:

- `plain`: [`minimax()`][rompicapo.games.minimax], [`alphabeta()`][rompicapo.games.alphabeta],
  [`negamax()`][rompicapo.games.negamax] (the Knuth-Moore window contract is stated there) and
  [`solve()`][rompicapo.games.solve] (memoised);
- `engine`: the [`Engine`][rompicapo.games.Engine] (transposition table, killers,
  history, singular extensions, iterative deepening, MTD(f));
- `chance`: [`expectiminimax()`][rompicapo.games.expectiminimax],
  [`star1()`][rompicapo.games.star1], [`star2()`][rompicapo.games.star2];
- `retrograde`: `retrograde()` into a [`PositionTable`][rompicapo.games.PositionTable];
- `tree_trace`: [`alphabeta_tree()`][rompicapo.games.alphabeta_tree], the explored tree drawn;
- `play`: [`computer_move()`][rompicapo.games.computer_move], the engine's move in any of the games.

The games: [`TicTacToe`][rompicapo.games.TicTacToe] and [`MNKGame`][rompicapo.games.MNKGame],
[`Connect4`][rompicapo.games.Connect4] with its [`Connect4Solver`][rompicapo.games.Connect4Solver],
[`Nim`][rompicapo.games.Nim] and the Sprague-Grundy theory of `impartial`,
[`Pig`][rompicapo.games.Pig], and [`ExplicitTree`][rompicapo.games.ExplicitTree] for trees given by
hand. Every search takes the run contract's ``time_limit``, ``node_limit`` and ``progress``, and
returns a result with ``counts``, ``to_dict()``, ``report()`` and ``verify()``; `verify` holds the
independent checks.

```pycon
>>> from rompicapo.games import TicTacToe, alphabeta
>>> out = alphabeta(TicTacToe(), node_limit=500)
>>> out.complete, out.stopped, out.counts["nodes"]
(False, 'nodes', 500)

```"""

from rompicapo.games.chance import expectiminimax, star1, star2
from rompicapo.games.connect4 import (
    CONNECT4_SLICE_NODES,
    Connect4,
    Connect4Analysis,
    Connect4Bench,
    Connect4Result,
    Connect4Solver,
    Position,
    bench,
    explain_score,
    parse_position,
    read_test_set,
    solve_moves,
)
from rompicapo.games.connect4_book import (
    BOOK_DIR,
    BOOK_FORMAT_VERSION,
    BOOK_MAGIC,
    BookError,
    Connect4Book,
    book_answer,
    book_key,
    book_keys,
    column_scores,
    default_book,
    immediate_win_score,
    key_stones,
    mirror_key,
    read_book,
    resolve_book,
)
from rompicapo.games.connect4_book_build import (
    BookBuild,
    BookVerification,
    build_book,
    enumerate_layers,
    key_position,
    solve_chunk,
    verify_book,
)
from rompicapo.games.engine import EXACT, LOWER, UPPER, Engine
from rompicapo.games.game import CHANCE, MAX, MIN, Game, IllegalMoveError
from rompicapo.games.impartial import (
    GrundySequence,
    ImpartialGame,
    Nim,
    NimAdvice,
    count_configurations,
    count_nim_games,
    grundy,
    grundy_sum,
    grundy_values,
    mex,
    nim_advice,
    nim_moves,
    nim_outcome,
    nim_winning_move,
    octal_grundy,
    parse_heaps,
    parse_octal,
    parse_subtraction_set,
    subtraction_grundy,
)
from rompicapo.games.outcome import Order, SearchOutcome, SearchStats, static_order
from rompicapo.games.pig import Pig, PigSolution, check_pig_state, solve_pig
from rompicapo.games.plain import alphabeta, minimax, negamax, solve
from rompicapo.games.play import (
    CONNECT4_COLUMN_NODES,
    NIM_LOST_MOVE,
    MoveChoice,
    computer_move,
    describe_move,
    parse_move,
)
from rompicapo.games.render import connect4_svg, nim_svg
from rompicapo.games.retrograde import RETROGRADE_POSITIONS, PositionTable, retrograde
from rompicapo.games.tictactoe import (
    TICTACTOE_SEARCHES,
    MNKGame,
    TicTacToe,
    analyse_tictactoe,
    parse_cells,
)
from rompicapo.games.tree_trace import TREE_NODES, AlphaBetaTree, TraceNode, alphabeta_tree
from rompicapo.games.trees import ExplicitTree
from rompicapo.games.verify import (
    check_nim_move,
    connect4_connects_four,
    connect4_replay,
    connect4_score,
    connect4_test_set,
    exact_value,
    grundy_sequence_holds,
    nim_is_p_position,
    pig_residual,
)

__all__ = [
    "BOOK_DIR",
    "BOOK_FORMAT_VERSION",
    "BOOK_MAGIC",
    "CHANCE",
    "CONNECT4_COLUMN_NODES",
    "CONNECT4_SLICE_NODES",
    "EXACT",
    "LOWER",
    "MAX",
    "MIN",
    "NIM_LOST_MOVE",
    "RETROGRADE_POSITIONS",
    "TICTACTOE_SEARCHES",
    "TREE_NODES",
    "UPPER",
    "AlphaBetaTree",
    "BookBuild",
    "BookError",
    "BookVerification",
    "Connect4",
    "Connect4Analysis",
    "Connect4Bench",
    "Connect4Book",
    "Connect4Result",
    "Connect4Solver",
    "Engine",
    "ExplicitTree",
    "Game",
    "GrundySequence",
    "IllegalMoveError",
    "ImpartialGame",
    "MNKGame",
    "MoveChoice",
    "Nim",
    "NimAdvice",
    "Order",
    "Pig",
    "PigSolution",
    "Position",
    "PositionTable",
    "SearchOutcome",
    "SearchStats",
    "TicTacToe",
    "TraceNode",
    "alphabeta",
    "alphabeta_tree",
    "analyse_tictactoe",
    "bench",
    "book_answer",
    "book_key",
    "book_keys",
    "build_book",
    "check_nim_move",
    "check_pig_state",
    "column_scores",
    "computer_move",
    "connect4_connects_four",
    "connect4_replay",
    "connect4_score",
    "connect4_svg",
    "connect4_test_set",
    "count_configurations",
    "count_nim_games",
    "default_book",
    "describe_move",
    "enumerate_layers",
    "exact_value",
    "expectiminimax",
    "explain_score",
    "grundy",
    "grundy_sequence_holds",
    "grundy_sum",
    "grundy_values",
    "immediate_win_score",
    "key_position",
    "key_stones",
    "mex",
    "minimax",
    "mirror_key",
    "negamax",
    "nim_advice",
    "nim_is_p_position",
    "nim_moves",
    "nim_outcome",
    "nim_svg",
    "nim_winning_move",
    "octal_grundy",
    "parse_cells",
    "parse_heaps",
    "parse_move",
    "parse_octal",
    "parse_position",
    "parse_subtraction_set",
    "pig_residual",
    "read_book",
    "read_test_set",
    "resolve_book",
    "retrograde",
    "solve",
    "solve_chunk",
    "solve_moves",
    "solve_pig",
    "star1",
    "star2",
    "static_order",
    "subtraction_grundy",
    "verify_book",
]
