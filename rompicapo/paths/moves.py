"""Leaper move sets: the jumps a path may make from one cell to the next.

A move is a pair ``(dr, dc)`` of row and column offsets. Paths are walks in an undirected
graph, so a move set is always closed under negation: giving ``(1, 2)`` also gives
``(-1, -2)``. Named sets:

- ``caselle``: "il gioco delle 100 caselle", 3 cells along a row or column or 2 along a
  diagonal: (±3, 0), (0, ±3), (±2, ±2);
- ``knight``: the chess knight, (±1, ±2), (±2, ±1).

A custom set is written ``"DR,DC;DR,DC;..."``; the negations are added, so
``"1,2;2,1;1,-2;2,-1"`` is the knight.

```pycon
>>> parse_moves("caselle").moves[:4]
((3, 0), (-3, 0), (0, 3), (0, -3))
>>> parse_moves("1,2;2,1;1,-2;2,-1") == parse_moves("knight")
True
>>> parse_moves("1,2;2,1;1,-2;2,-1").name
'knight'

```"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from rompicapo.common import InputError

__all__ = ["CASELLE", "KNIGHT", "NAMED_MOVES", "MoveSet", "parse_moves"]

# The largest |dr| or |dc| accepted: kernels frame the board with a border this wide.
MAX_REACH = 64

CASELLE: tuple[tuple[int, int], ...] = (
    (3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (2, -2), (-2, 2), (-2, -2),
)  # fmt: skip
KNIGHT: tuple[tuple[int, int], ...] = (
    (1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1),
)  # fmt: skip

NAMED_MOVES: dict[str, tuple[tuple[int, int], ...]] = {"caselle": CASELLE, "knight": KNIGHT}


@dataclass(frozen=True)
class MoveSet:
    """A symmetric set of leaper moves with a name (``caselle``, ``knight`` or the spec).

    ```pycon
    >>> leaper = parse_moves("1,3")  # the negation is added
    >>> leaper
    MoveSet(name='1,3;-1,-3', moves=((1, 3), (-1, -3)))
    >>> leaper.spec, leaper.reach, len(leaper), leaper.transposed().moves
    ('1,3;-1,-3', 3, 2, ((3, 1), (-3, -1)))
    >>> MoveSet("reversed", parse_moves("knight").moves[::-1]) == parse_moves("knight")  # as sets
    True

    ```"""

    name: str
    """``"caselle"``, ``"knight"``, or the spec the set was read from."""
    moves: tuple[tuple[int, int], ...]
    """The moves ``(dr, dc)``, each with its negation."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MoveSet):
            return NotImplemented
        return set(self.moves) == set(other.moves)

    def __hash__(self) -> int:
        return hash(frozenset(self.moves))

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def reach(self) -> int:
        """The farthest a move goes along one axis (the width of a framing border)."""
        return max(max(abs(dr), abs(dc)) for dr, dc in self.moves)

    @property
    def spec(self) -> str:
        """The string that [`parse_moves()`][rompicapo.paths.parse_moves] turns back into this
        set."""
        if self.name in NAMED_MOVES and set(NAMED_MOVES[self.name]) == set(self.moves):
            return self.name
        return ";".join(f"{dr},{dc}" for dr, dc in self.moves)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Row and column offsets as two int64 arrays, in this set's order."""
        dr = np.array([m[0] for m in self.moves], dtype=np.int64)
        dc = np.array([m[1] for m in self.moves], dtype=np.int64)
        return dr, dc

    def transposed(self) -> MoveSet:
        """The same leaper on the transposed board: (dr, dc) -> (dc, dr)."""
        moves = tuple((dc, dr) for dr, dc in self.moves)
        name = (
            self.name if set(moves) == set(self.moves) else ";".join(f"{a},{b}" for a, b in moves)
        )
        return MoveSet(name, moves)

    def is_transpose_symmetric(self) -> bool:
        return set(self.moves) == {(dc, dr) for dr, dc in self.moves}


def _close(moves: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Add the negation of every move, keep first-seen order, drop duplicates. A list that is
    already closed keeps its order exactly: a move set read back from an ``.rpath`` header
    must index its moves as the file does."""
    given = tuple(dict.fromkeys(moves))
    if all((-dr, -dc) in given for dr, dc in given):
        return given
    out: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for dr, dc in moves:
        for m in ((dr, dc), (-dr, -dc)):
            if m not in seen:
                seen.add(m)
                out.append(m)
    return tuple(out)


def parse_moves(spec: str | MoveSet | Iterable[tuple[int, int]] = "caselle") -> MoveSet:
    """Turn a name, a ``"DR,DC;DR,DC"`` string or a list of pairs into a
    [`MoveSet`][rompicapo.paths.MoveSet].

    Raises [`InputError`][rompicapo.common.InputError] for an unknown name, a malformed pair, the
    null move (0, 0), or a move longer than 64 cells along an axis.

    ```pycon
    >>> knight = parse_moves("knight")
    >>> knight.name, len(knight), knight.reach
    ('knight', 8, 2)

    ```
    """
    if isinstance(spec, MoveSet):
        return spec
    if isinstance(spec, str):
        text = spec.strip()
        if text.lower() in NAMED_MOVES:
            return MoveSet(text.lower(), NAMED_MOVES[text.lower()])
        pairs: list[tuple[int, int]] = []
        for part in text.split(";"):
            part = part.strip()
            if not part:
                continue
            fields = part.split(",")
            if len(fields) != 2:
                raise InputError(
                    f"unknown move set {spec!r}: use caselle, knight or 'DR,DC;DR,DC;...'"
                )
            try:
                pairs.append((int(fields[0]), int(fields[1])))
            except ValueError:
                raise InputError(
                    f"unknown move set {spec!r}: use caselle, knight or 'DR,DC;DR,DC;...'"
                ) from None
        name = None
    else:
        try:
            pairs = [(int(a), int(b)) for a, b in spec]
        except (TypeError, ValueError):
            raise InputError(f"a move set is a list of (dr, dc) pairs, got {spec!r}") from None
        name = None
    if not pairs:
        raise InputError(f"empty move set {spec!r}")
    for dr, dc in pairs:
        if dr == 0 and dc == 0:
            raise InputError("the move (0, 0) does not go anywhere")
        if max(abs(dr), abs(dc)) > MAX_REACH:
            raise InputError(f"move ({dr}, {dc}) is longer than {MAX_REACH} cells along an axis")
    moves = _close(pairs)
    for known, table in NAMED_MOVES.items():
        if set(moves) == set(table):
            name = known
            break
    if name is None:
        name = ";".join(f"{dr},{dc}" for dr, dc in moves)
    return MoveSet(name, moves)


# The default move set of results and searches ("Il gioco delle 100 caselle").
CASELLE_MOVES: MoveSet = parse_moves("caselle")
