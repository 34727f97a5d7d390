"""The Connect Four opening book of the games page: win, draw or loss of the first positions.

The positions of the first moves are the hardest for the solver (the empty board takes it
about 600 M nodes, a minute of CPU), so the page could not say anything about them within a
move's time. This book holds the outcome (+1 the player to move wins, 0 draw, -1 loses) of
every position of at most `BOOK_STONES` stones, mirror images shared: those of exactly
`BOOK_STONES` solved once by [`Connect4Solver`][rompicapo.games.Connect4Solver]'s weak
search (the public API), the shallower ones derived from them, written to
``data/connect4-book.json`` by `build_book()` (``python -m rompicapo.web.c4_book``).

A position is keyed by its board, not by its move order: the columns bottom to top, ``1`` the
first player's stone and ``2`` the second's, ``/`` between columns, and the smaller of the
board and its mirror image (a mirrored position has the same value).

```pycon
>>> board_key("4")
'///1///'
>>> board_key("43") == board_key("45"), board_key("1") == board_key("7")
(True, True)

```"""

from __future__ import annotations

import json
import sys
import time
from functools import lru_cache
from pathlib import Path

__all__ = ["BOOK", "BOOK_STONES", "board_key", "book_outcome", "book_table", "build_book", "derive"]

BOOK = Path(__file__).parent / "data" / "connect4-book.json"
# Positions of up to this many stones are in the book: the column outcomes of the first
# BOOK_STONES moves come from it (a position's columns are its children, one stone more).
BOOK_STONES = 3


def board_key(moves: str) -> str:
    """The board after ``moves`` (assumed legal), as the smaller of it and its mirror."""
    cols: list[list[str]] = [[] for _ in range(7)]
    for i, ch in enumerate(moves):
        cols[int(ch) - 1].append("1" if i % 2 == 0 else "2")
    key = "/".join("".join(c) for c in cols)
    mirror = "/".join("".join(c) for c in reversed(cols))
    return min(key, mirror)


@lru_cache(maxsize=1)
def book_table() -> dict[str, int]:
    """The whole book: board key -> outcome for the player to move."""
    if not BOOK.is_file():
        return {}
    return {k: int(v) for k, v in json.loads(BOOK.read_text())["outcomes"].items()}


def book_outcome(moves: str) -> int | None:
    """The outcome for the player to move after ``moves`` (+1, 0, -1), or None when the
    position is not in the book."""
    if len(moves) > BOOK_STONES:
        return None
    return book_table().get(board_key(moves))


def _positions(max_stones: int) -> list[str]:
    """One move string per distinct board (mirrors shared) of 1..max_stones stones, none won,
    deepest first (a deep position solves fastest)."""
    from rompicapo.games.connect4 import parse_position

    seen: dict[str, str] = {}
    level = [parse_position("")]
    for _ in range(max_stones):
        nxt = []
        for p in level:
            for col in p.playable_columns():
                child = p.play(col)
                key = board_key(child.moves)
                if child.won or key in seen:
                    continue
                seen[key] = child.moves
                nxt.append(child)
        level = nxt
    return sorted(seen.values(), key=len, reverse=True)


def _save(book: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(book, indent=0, sort_keys=True))
    tmp.replace(out)


def derive(book: dict[str, int], moves: str) -> int | None:
    """The outcome of the position after ``moves`` from its children's (negamax: the best of
    the children's outcomes for the opponent, negated; a move that connects four wins), or None
    when a child is missing."""
    from rompicapo.games.connect4 import parse_position

    p = parse_position(moves)
    best = -1
    for col in p.playable_columns():
        child = p.play(col)
        if child.won:
            return 1
        value = 0 if child.over else book.get(board_key(child.moves))
        if value is None:
            return None
        best = max(best, -value)
    return best


def build_book(max_stones: int = BOOK_STONES, out: Path = BOOK, table_log2: int = 24) -> dict:
    """Solve (weak) every position of exactly ``max_stones`` stones not yet in ``out``,
    writing the book after each one (a stopped build resumes), then derive the shallower
    positions from them by `derive()` (the empty board included). The book's test
    checks the derivation and the empty board's value: a first-player win (Allis 1988)."""
    from rompicapo.games.connect4 import Connect4Solver

    book = json.loads(out.read_text()) if out.is_file() else {"outcomes": {}, "seconds": {}}
    solver = Connect4Solver(table_log2=table_log2)
    for moves in _positions(max_stones):
        key = board_key(moves)
        if key in book["outcomes"] or len(moves) < max_stones:
            continue
        t0 = time.process_time()
        res = solver.solve(moves, weak=True)
        book["outcomes"][key] = int(res.score)
        book["seconds"][key] = round(time.process_time() - t0, 2)
        print(f"{moves:>4}  {res.score:+d}  {book['seconds'][key]:.1f} s CPU", flush=True)
        _save(book, out)
    for moves in sorted([*_positions(max_stones - 1), ""], key=len, reverse=True):
        value = derive(book["outcomes"], moves)
        if value is not None:
            book["outcomes"][board_key(moves)] = value
    _save(book, out)
    return book


if __name__ == "__main__":
    build_book(int(sys.argv[1]) if len(sys.argv) > 1 else BOOK_STONES)
