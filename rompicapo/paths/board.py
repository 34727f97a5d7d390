"""Board sizes and cells as users write them: ``"10"``, ``"5x7"``, ``"2,3"``.

The CLI and every function of the family that takes a board or a cell parse them here, so one
spelling means the same everywhere.
"""

from __future__ import annotations

import re

import numpy as np

from rompicapo.common import InputError, check_int

__all__ = ["parse_cell", "parse_size"]

_SIZE = re.compile(r"\s*\+?(\d+)\s*(?:[xX×*]\s*\+?(\d+)\s*)?")
_CELL = re.compile(r"\s*(-?\d+)\s*[,:]\s*(-?\d+)\s*")


def parse_size(text: str | int | tuple[int, int]) -> tuple[int, int]:
    """``"10"`` -> (10, 10); ``"5x7"`` (also ``5X7``, ``5×7``, ``5*7``) -> (5, 7); an int or a
    pair is checked as it is. Both sides must be at least 1;
    [`InputError`][rompicapo.common.InputError] otherwise.

    ```pycon
    >>> parse_size("10"), parse_size("5x7")
    ((10, 10), (5, 7))

    ```"""
    if isinstance(text, tuple):
        rows, cols = text
    elif isinstance(text, int | np.integer):
        rows = cols = text
    else:
        m = _SIZE.fullmatch(str(text))
        if m is None:
            raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
        rows = check_int(m.group(1), "rows")  # a digit limit: no 5,000-digit conversion
        cols = check_int(m.group(2), "columns") if m.group(2) is not None else rows
    if not (isinstance(rows, int | np.integer) and isinstance(cols, int | np.integer)):
        raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
    if rows < 1 or cols < 1:
        raise InputError(f"bad board size {text!r}: rows and columns must be at least 1")
    return int(rows), int(cols)


def parse_cell(
    text: str | tuple[int, int] | int,
    rows: int | None = None,
    cols: int | None = None,
    what: str = "start",
) -> tuple[int, int]:
    """``"R,C"`` (0-based; ``R:C`` too), a pair, or a flat index -> (r, c).

    With ``rows`` and ``cols`` the cell must be on that board
    ([`InputError`][rompicapo.common.InputError] otherwise,
    naming the cell ``what``).

    ```pycon
    >>> parse_cell("2,3", 5, 7), parse_cell(17, 5, 7)
    ((2, 3), (2, 3))

    ```
    """
    if isinstance(text, str):
        m = _CELL.fullmatch(text)
        if m is None:
            raise InputError(f"bad cell {text!r}: write R,C (0-based row and column, e.g. 2,3)")
        r, c = check_int(m.group(1), f"{what} row"), check_int(m.group(2), f"{what} column")
    elif isinstance(text, int | np.integer):
        if rows is None or cols is None or not 0 <= text < rows * cols:
            raise InputError(f"cell index {text} is outside the board")
        r, c = divmod(int(text), cols)
    else:
        try:
            r, c = (int(v) for v in text)
        except (TypeError, ValueError):
            raise InputError(f"bad cell {text!r}: give (row, col)") from None
    if rows is not None and cols is not None and not (0 <= r < rows and 0 <= c < cols):
        raise InputError(
            f"{what} ({r}, {c}) is outside the {rows}x{cols} board "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r, c
