"""Two-player games solved by search: minimax to alpha-beta with tables, chance nodes,
impartial games (Nim, Grundy numbers), Pig, and a Connect Four solver.

Any game that follows the protocol of :mod:`rompicapo.games.game` plugs into the searches of
:mod:`rompicapo.games.search`.
"""

from rompicapo.games.game import CHANCE, MAX, MIN, Game, IllegalMoveError
from rompicapo.games.search import (
    Engine,
    PositionTable,
    SearchOutcome,
    SearchStats,
    alphabeta,
    expectiminimax,
    minimax,
    negamax,
    retrograde,
    solve,
    star1,
    star2,
    static_order,
)
from rompicapo.games.tictactoe import MNKGame, TicTacToe
from rompicapo.games.trees import ExplicitTree

__all__ = [
    "CHANCE",
    "MAX",
    "MIN",
    "Engine",
    "ExplicitTree",
    "Game",
    "IllegalMoveError",
    "MNKGame",
    "PositionTable",
    "SearchOutcome",
    "SearchStats",
    "TicTacToe",
    "alphabeta",
    "expectiminimax",
    "minimax",
    "negamax",
    "retrograde",
    "solve",
    "star1",
    "star2",
    "static_order",
]
