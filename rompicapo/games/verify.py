"""Independent checks of the games family's answers. Imports nothing from the solvers.

- [`exact_value()`][rompicapo.games.exact_value]: the value of a small game by a memoised minimax
  written afresh here (iterative, so deep games do not hit Python's recursion limit);
- `nim_is_p_position()` and [`check_nim_move()`][rompicapo.games.check_nim_move]: Nim by brute force
  over the game graph, not by Bouton's XOR rule;
- [`connect4_replay()`][rompicapo.games.connect4_replay] and
  [`connect4_score()`][rompicapo.games.connect4_score]: Connect Four from a move string with a
  plain 2-D list board, and a small exact solver in pure Python for positions near the end;
- [`grundy_sequence_holds()`][rompicapo.games.grundy_sequence_holds]: the Grundy values of a
  subtraction or octal game computed afresh from the game's text, and a claimed period tested by Guy
  and Smith's theorem;
- [`pig_residual()`][rompicapo.games.pig_residual]: how far a table of Pig's win probabilities is
  from optimal.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache, lru_cache
from typing import Any

__all__ = [
    "check_nim_move",
    "connect4_connects_four",
    "connect4_replay",
    "connect4_score",
    "connect4_test_set",
    "exact_value",
    "grundy_sequence_holds",
    "nim_is_p_position",
    "pig_residual",
]


def exact_value(game: Any, state: Any) -> float:
    """The expectiminimax value of ``state`` (first player's point of view), every position
    once: max and min over moves, the probability-weighted mean at chance nodes. Iterative, so
    deep games do not hit Python's recursion limit; a game with cycles is refused."""
    memo: dict[Hashable, float] = {}
    expanding: set[Hashable] = set()
    stack: list[tuple[Any, list[Any] | None]] = [(state, None)]
    while stack:
        s, children = stack[-1]
        k = game.key(s)
        if k in memo:
            stack.pop()
            continue
        if game.is_terminal(s):
            memo[k] = game.utility(s)
            stack.pop()
            continue
        chance = game.to_move(s) == 0
        if children is None:
            if chance:
                children = [(game.apply(s, m), p) for m, p in game.outcomes(s)]
            else:
                children = [(game.apply(s, m), 1.0) for m in game.moves(s)]
            stack[-1] = (s, children)
            expanding.add(k)
            pending = [c for c, _ in children if game.key(c) not in memo]
            if pending:
                for c in pending:
                    if game.key(c) in expanding:
                        raise ValueError("the game has cycles: no exact value by this method")
                    stack.append((c, None))
                continue
        values = [(memo[game.key(c)], p) for c, p in children]
        if chance:
            memo[k] = sum(v * p for v, p in values)
        elif game.to_move(s) > 0:
            memo[k] = max(v for v, _ in values)
        else:
            memo[k] = min(v for v, _ in values)
        expanding.discard(k)
        stack.pop()
    return memo[game.key(state)]


@cache
def nim_is_p_position(heaps: tuple[int, ...], misere: bool = False) -> bool:
    """True when the player to move loses Nim ``heaps`` with perfect play (brute force).

    Normal play: whoever cannot move loses. Misère: whoever takes the last object loses."""
    heaps = tuple(sorted(h for h in heaps if h > 0))
    if not heaps:
        return not misere  # no move: loses in normal play, has won in misère
    for i, h in enumerate(heaps):
        for take in range(1, h + 1):
            child = (*heaps[:i], h - take, *heaps[i + 1 :])
            if nim_is_p_position(child, misere):
                return False
    return True


def check_nim_move(heaps: tuple[int, ...], heap: int, take: int, misere: bool = False) -> bool:
    """True when taking ``take`` from heap number ``heap`` is legal and leaves a lost position
    for the opponent."""
    if not (0 <= heap < len(heaps)) or not (1 <= take <= heaps[heap]):
        return False
    child = list(heaps)
    child[heap] -= take
    return nim_is_p_position(tuple(child), misere)


def connect4_replay(moves: str, width: int = 7, height: int = 6) -> list[list[int]] | None:
    """Play a string of columns (1-based digits) on an empty board; ``board[col]`` lists the
    stones of the column bottom up (1 first player, 2 second). None if a move is illegal (bad
    digit, full column, or a move after someone has already connected four)."""
    board: list[list[int]] = [[] for _ in range(width)]
    for i, ch in enumerate(moves):
        if not ch.isdigit() or not 1 <= int(ch) <= width:
            return None
        col = board[int(ch) - 1]
        if len(col) >= height or _four(board, width, height):
            return None
        col.append(1 + i % 2)
    return board


def _four(board: list[list[int]], width: int, height: int) -> bool:
    def at(c: int, r: int) -> int:
        if 0 <= c < width and 0 <= r < len(board[c]):
            return board[c][r]
        return 0

    for c in range(width):
        for r in range(len(board[c])):
            p = board[c][r]
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                if all(at(c + dc * i, r + dr * i) == p for i in range(1, 4)):
                    return True
    return False


def connect4_connects_four(moves: str, width: int = 7, height: int = 6) -> bool:
    """True when ``moves`` is a legal game whose last move connected four."""
    board = connect4_replay(moves, width, height)
    return board is not None and _four(board, width, height)


def connect4_test_set(path: Any) -> list[tuple[str, int]]:
    """The ``MOVES SCORE`` lines of one of Pons' test files, as written (blank lines skipped;
    no other check: a malformed line raises ValueError)."""
    with open(path, encoding="utf-8") as f:
        rows = [line.split() for line in f if line.strip()]
    return [(moves, int(score)) for moves, score in rows]


def connect4_score(moves: str, width: int = 7, height: int = 6) -> int:
    """The exact score of a position in Pons' convention, by plain memoised negamax over
    2-D boards: slow, for positions with few empty cells (the tests keep it under ~14)."""
    board = connect4_replay(moves, width, height)
    if board is None:
        raise ValueError(f"illegal move string {moves!r}")
    size = width * height

    def solve(cols: tuple[tuple[int, ...], ...]) -> int:
        return _c4_memo(cols, width, height, size)

    return solve(tuple(tuple(c) for c in board))


@lru_cache(maxsize=1_000_000)
def _c4_memo(cols: tuple[tuple[int, ...], ...], width: int, height: int, size: int) -> int:
    played = sum(len(c) for c in cols)
    if played == size:
        return 0
    me = 1 + played % 2
    best = -size
    for c in range(width):
        if len(cols[c]) >= height:
            continue
        new = [list(x) for x in cols]
        new[c].append(me)
        if _four(new, width, height):
            return (size + 1 - played) // 2  # win now with stone number played//2 + 1
        best = max(best, -_c4_memo(tuple(tuple(x) for x in new), width, height, size))
    return best


def pig_residual(goal: int, win: Any, roll: Any) -> float:
    """The largest violation of Pig's optimality equations by a table of win probabilities
    (written afresh here; vectorised over the turn total with numpy)."""
    import numpy as np

    worst = 0.0
    for i in range(goal):
        for j in range(goal):
            ks = np.arange(goal - i)
            p_roll = (1.0 - win[j, i, 0]) / 6.0 + np.zeros(len(ks))
            for r in range(2, 7):
                nxt = ks + r
                inside = i + nxt < goal
                vals = np.ones(len(ks))
                vals[inside] = win[i, j, nxt[inside]]
                p_roll += vals / 6.0
            p_hold = np.array([1.0 - win[j, i + k, 0] if k > 0 else -1.0 for k in ks])
            best = np.maximum(p_roll, p_hold)
            worst = max(worst, float(np.max(np.abs(best - win[i, j, : goal - i]))))
            chosen = np.where(roll[i, j, : goal - i], p_roll, p_hold)
            worst = max(worst, float(np.max(best - chosen)))
    return worst


def _grundy_moves(kind: str, spec: str) -> tuple[list[tuple[int, int]], int] | None:
    """The moves of the game as (amount, digit) pairs, digit's bits 1/2/4 = leave no heap /
    one heap / two heaps (a subtraction game leaves one heap or none: digit 3), and the
    largest amount; None for a text this reader cannot read."""
    text = spec.strip()
    if kind == "subtract":
        try:
            amounts = sorted({int(x) for x in text.replace(" ", "").split(",") if x})
        except ValueError:
            return None
        if not amounts or amounts[0] < 1:
            return None
        return [(a, 3) for a in amounts], amounts[-1]
    if kind == "octal":
        head, _, digits = text.partition(".")
        if head not in ("", "0") or not digits or any(d not in "01234567" for d in digits):
            return None
        return [(k, int(d)) for k, d in enumerate(digits, 1)], len(digits)
    return None


def grundy_sequence_holds(
    kind: str, spec: str, values: list[int], preperiod: int | None, period: int | None
) -> bool:
    """True when ``values`` are the Grundy values of heaps 0, 1, ... of the game (``kind``
    ``"subtract"`` with ``spec`` like ``"1,2,3"``, or ``"octal"`` with ``spec`` like
    ``"0.77"``), and, when ``period`` is given, the values are periodic from ``preperiod`` with
    that period: g(n + p) = g(n) for every n with n0 <= n < 2 n0 + p + t (t the largest
    amount), which proves it for all n (Guy and Smith, 1956)."""
    game = _grundy_moves(kind, spec)
    if game is None:
        return False
    moves, t = game
    n = len(values)
    if period is not None:
        if preperiod is None or period < 1 or preperiod < 0:
            return False
        n = max(n, 2 * preperiod + 2 * period + t)
    g: list[int] = []
    for heap in range(n):
        options = set()
        for amount, digit in moves:
            rest = heap - amount
            if rest < 0:
                continue
            if digit & 1 and rest == 0:
                options.add(0)
            if digit & 2 and rest > 0:
                options.add(g[rest])
            if digit & 4:
                options.update(g[a] ^ g[rest - a] for a in range(1, rest // 2 + 1))
        m = 0
        while m in options:
            m += 1
        g.append(m)
    if list(values) != g[: len(values)]:
        return False
    if period is None:
        return True
    return all(g[k + period] == g[k] for k in range(preperiod, 2 * preperiod + period + t))
