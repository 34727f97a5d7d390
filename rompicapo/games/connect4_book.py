"""An opening book of Connect Four: the exact score of every position up to a number of stones.

The score is the one [`Connect4Solver.solve()`][rompicapo.games.connect4.Connect4Solver.solve] gives
(Pons' convention, from the point of view of the player to move). A position is keyed by its
board, not by the order of its moves: ``pos + mask`` (the mover's stones plus every stone, the
kernel's 49-bit key, one 7-bit group per column) or the key of its mirror image, whichever is
smaller, so a position and its mirror share one entry.

A book holds the positions reachable from a root (the empty board, unless built for a later
position) with at most ``depth`` stones, games already won left out: the deepest layer is
solved by the search, the shallower ones by negamax over their children in the book
(`rompicapo.games.connect4_book_build`).

The file (``.bin``, little-endian; one table sorted by key, read by binary search)::

    offset  size      field
    ------  --------  -----------------------------------------------------------------
         0  8         magic b"RPC4BOOK"
         8  2         format version (1)
        10  1 + 1     board width 7, height 6
        12  1 + 1     root stones R, depth N (R <= N <= 42)
        14  2         reserved, 0
        16  8         the root's key (pos + mask; 0 for the empty board)
        24  8         entries E (the sum of the layer counts)
        32  4 (N-R+1) positions per layer, stones R .. N (uint32 each)
         H  32        SHA-256 of every byte before it and after it (header and table)
      H+32  8 E       keys, uint64, strictly increasing
    H+32+8E 1 E       scores, int8, in -21..21, in the order of the keys

    +----------+---------+---------------+----------+--------------+-----------------+
    | RPC4BOOK | version | R N root E    | counts[] | SHA-256      | keys[E] scores[E]|
    +----------+---------+---------------+----------+--------------+-----------------+

A file that is short, long, foreign (another magic), of another version or board, whose
checksum does not match, or whose keys and counts disagree is refused by `read_book()` in one
line ([`BookError`][rompicapo.games.BookError], an
[`InputError`][rompicapo.common.InputError]: the CLI exits with status 2).

```pycon
>>> from rompicapo.games.connect4 import parse_position
>>> a, b = parse_position("43"), parse_position("45")
>>> book_key(a.pos, a.mask) == book_key(b.pos, b.mask)  # mirror images
True

```
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import InputError, NotVerifiable, SearchResult, read_input
from rompicapo.games import _connect4_kernel as K

__all__ = [
    "BOOK_DIR",
    "BOOK_FORMAT_VERSION",
    "BOOK_MAGIC",
    "BookError",
    "Connect4Book",
    "book_answer",
    "book_key",
    "book_keys",
    "column_scores",
    "default_book",
    "immediate_win_score",
    "key_stones",
    "mirror_key",
    "read_book",
    "resolve_book",
]

BOOK_MAGIC = b"RPC4BOOK"
BOOK_FORMAT_VERSION = 1
_FIXED = struct.Struct("<8sHBBBBH QQ")  # magic, version, width, height, R, N, reserved, root, E
DIGEST_BYTES = 32
# the largest book file read (a book of every position of 12 stones would be ~40 MB)
MAX_BOOK_BYTES = 1 << 30
BOOK_DIR = Path(__file__).parent / "data"
SCORE_LIMIT = K.SIZE // 2  # |score| <= 21
COLUMN_BITS = K.H1  # 7 bits per column in a key


class BookError(InputError):
    """A book file that cannot be used: damaged, truncated, foreign or of another version."""


def immediate_win_score(stones: int) -> int:
    """The score of a position of ``stones`` stones whose mover connects four at once."""
    return (K.SIZE + 1 - stones) // 2


def mirror_key(key: int) -> int:
    """The key of the mirror image: the seven 7-bit column groups in reverse order (plain
    Python: a lookup needs no kernel loaded)."""
    out = 0
    for c in range(K.WIDTH):
        out |= ((key >> (COLUMN_BITS * c)) & 0x7F) << (COLUMN_BITS * (K.WIDTH - 1 - c))
    return out


def book_key(pos: int, mask: int) -> int:
    """The book's key of a position: the smaller of ``pos + mask`` and its mirror's key."""
    key = int(pos) + int(mask)
    return min(key, mirror_key(key))


def book_keys(pos: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`book_key()` of many positions at once (uint64)."""
    key = np.asarray(pos, dtype=np.uint64) + np.asarray(mask, dtype=np.uint64)
    mirrored = np.zeros_like(key)
    group = np.uint64((1 << COLUMN_BITS) - 1)
    for c in range(K.WIDTH):
        col = (key >> np.uint64(COLUMN_BITS * c)) & group
        mirrored |= col << np.uint64(COLUMN_BITS * (K.WIDTH - 1 - c))
    return np.minimum(key, mirrored)


def key_stones(keys: np.ndarray) -> np.ndarray:
    """The stones of each key's position, or -1 where a key is not a board. A column of
    ``h`` stones adds ``2**h - 1`` (its mask) plus the mover's stones in it to its 7-bit group:
    a value in ``2**h - 1 .. 2**(h+1) - 2``, so ``h`` is the bit length of value + 1, minus 1
    (the value 127 would be a seventh stone)."""
    keys = np.asarray(keys, dtype=np.uint64)
    stones = np.zeros(keys.shape, dtype=np.int64)
    bad = (keys >> np.uint64(COLUMN_BITS * K.WIDTH)) != 0
    group = np.uint64((1 << COLUMN_BITS) - 1)
    for c in range(K.WIDTH):
        col = ((keys >> np.uint64(COLUMN_BITS * c)) & group).astype(np.int64) + 1
        bad |= col >= 1 << COLUMN_BITS  # the value 127: no such column
        for h in range(1, COLUMN_BITS + 1):
            stones += col >= (1 << h)
    return np.where(bad, -1, stones)


def _header(root_stones: int, depth: int, root_key: int, counts: list[int]) -> bytes:
    fixed = _FIXED.pack(
        BOOK_MAGIC,
        BOOK_FORMAT_VERSION,
        K.WIDTH,
        K.HEIGHT,
        root_stones,
        depth,
        0,
        root_key,
        sum(counts),
    )
    return fixed + struct.pack(f"<{len(counts)}I", *counts)


@dataclass
class Connect4Book:
    """A book in memory: ``keys`` (uint64, sorted) and ``scores`` (int8) of every position from
    ``root_stones`` to ``depth`` stones reachable from the root (key ``root_key``), ``counts``
    the positions per layer. Look a position up with `score()`, or every column with
    `column_scores()`."""

    keys: np.ndarray
    scores: np.ndarray
    root_stones: int = 0
    depth: int = 0
    root_key: int = 0
    counts: list[int] = field(default_factory=list)
    path: str | None = None

    @property
    def entries(self) -> int:
        return int(self.keys.shape[0])

    def lookup(self, pos: int, mask: int) -> int | None:
        """The score of the position (``pos``, ``mask``), or None when the book lacks it."""
        key = np.uint64(book_key(pos, mask))
        i = int(np.searchsorted(self.keys, key))
        if i < self.entries and self.keys[i] == key:
            return int(self.scores[i])
        return None

    def score(self, moves: Any) -> int | None:
        """The score of the position after ``moves`` (a move string or a
        [`Position`][rompicapo.games.Position]), or None when the book lacks it."""
        from rompicapo.games.connect4 import parse_position

        p = moves if hasattr(moves, "mask") else parse_position(str(moves))
        if p.won or p.count > self.depth:
            return None
        return self.lookup(p.pos, p.mask)

    def to_bytes(self) -> bytes:
        """The file's bytes (module docstring)."""
        head = _header(self.root_stones, self.depth, self.root_key, list(self.counts))
        body = self.keys.astype("<u8").tobytes() + self.scores.astype(np.int8).tobytes()
        digest = hashlib.sha256(head + body).digest()
        return head + digest + body

    def write(self, path: Path | str) -> None:
        """Write the book atomically to ``path``."""
        from rompicapo.common import write_bytes_atomic

        write_bytes_atomic(path, self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "book") -> Connect4Book:
        """The book in ``data``; [`BookError`][rompicapo.games.BookError] naming
        ``source`` when the bytes are not a whole, undamaged book of this format."""

        def refuse(why: str) -> BookError:
            return BookError(f"{source!r} is not a usable Connect Four book: {why}")

        if len(data) < _FIXED.size or data[:8] != BOOK_MAGIC:
            raise refuse("it does not start like one (foreign or empty file)")
        _magic, version, width, height, root_stones, depth, reserved, root_key, entries = (
            _FIXED.unpack_from(data)
        )
        if version != BOOK_FORMAT_VERSION:
            raise refuse(f"format version {version}, this toolkit reads {BOOK_FORMAT_VERSION}")
        if (width, height) != (K.WIDTH, K.HEIGHT) or reserved != 0:
            raise refuse(f"a {width}x{height} board or a damaged header")
        if not root_stones <= depth <= K.SIZE:
            raise refuse(f"root stones {root_stones} and depth {depth} do not fit")
        layers = depth - root_stones + 1
        head_size = _FIXED.size + 4 * layers
        want = head_size + DIGEST_BYTES + 9 * entries
        if len(data) != want:
            raise refuse(f"{len(data):,} bytes where the header says {want:,} (truncated?)")
        counts = list(struct.unpack_from(f"<{layers}I", data, _FIXED.size))
        if sum(counts) != entries:
            raise refuse("its layer counts do not add up to its entries")
        digest = data[head_size : head_size + DIGEST_BYTES]
        body = data[head_size + DIGEST_BYTES :]
        if hashlib.sha256(data[:head_size] + body).digest() != digest:
            raise refuse("its checksum does not match (damaged or edited)")
        keys = np.frombuffer(body, dtype="<u8", count=entries).astype(np.uint64)
        scores = np.frombuffer(body, dtype=np.int8, offset=8 * entries).copy()
        if entries and np.any(keys[1:] <= keys[:-1]):
            raise refuse("its keys are not strictly increasing")
        if np.any(np.abs(scores.astype(np.int64)) > SCORE_LIMIT):
            raise refuse("a score lies outside -21..21")
        stones = key_stones(keys)
        if np.any(stones < 0) or np.any(book_keys(keys, np.zeros_like(keys)) != keys):
            raise refuse("a key is not the smaller key of a board")
        if np.any(stones < root_stones) or np.any(stones > depth):
            raise refuse("its keys and its layer counts disagree")
        per_layer = np.bincount(stones - root_stones, minlength=layers) if entries else []
        if list(map(int, per_layer)) != counts:
            raise refuse("its keys and its layer counts disagree")
        return cls(keys, scores, root_stones, depth, root_key, counts, source)

    def column_scores(self, moves: Any) -> list[int | None] | None:
        """See `column_scores()`."""
        return column_scores(self, moves)

    def info(self) -> BookInfo:
        """What the book holds (the ``book info`` command)."""
        from rompicapo.games.connect4 import explain_score

        root = self.score_of_key(self.root_key)
        return BookInfo(
            path=self.path or "",
            format_version=BOOK_FORMAT_VERSION,
            root_stones=self.root_stones,
            depth=self.depth,
            entries=self.entries,
            layers={self.root_stones + i: n for i, n in enumerate(self.counts)},
            root_score=root,
            root_explanation=explain_score(root),
            file_bytes=len(self.to_bytes()),
            sha256=hashlib.sha256(self.to_bytes()).hexdigest(),
            counts={"entries": self.entries},
        )

    def score_of_key(self, key: int) -> int | None:
        """The score stored under ``key`` (reduced to the smaller of it and its mirror)."""
        key = np.uint64(min(int(key), mirror_key(int(key))))
        i = int(np.searchsorted(self.keys, key))
        return int(self.scores[i]) if i < self.entries and self.keys[i] == key else None


@dataclass
class BookInfo(SearchResult):
    """A book's header and size: its depth, its positions per layer (mirror images counted
    once), the root's score."""

    path: str = ""
    format_version: int = BOOK_FORMAT_VERSION
    root_stones: int = 0
    depth: int = 0
    entries: int = 0
    layers: dict[int, int] = field(default_factory=dict)
    root_score: int | None = None
    root_explanation: str = ""
    file_bytes: int = 0
    sha256: str = ""

    def report(self) -> str:
        lines = [
            f"Connect Four book {self.path} (format {self.format_version}): every position of "
            f"{self.root_stones}..{self.depth} stones, {self.entries:,} entries, "
            f"{self.file_bytes:,} bytes",
            "stones  positions",
        ]
        lines += [f"{s:6d}  {n:9,}" for s, n in self.layers.items()]
        lines.append(f"root score {self.root_score} ({self.root_explanation})")
        lines.append(f"sha256 {self.sha256}")
        return "\n".join(lines)

    def verify(self) -> bool:
        raise NotVerifiable("a book's header is checked when it is read; run 'book verify'")


def read_book(path: object) -> Connect4Book:
    """The book in the file at ``path``: one line
    ([`BookError`][rompicapo.games.BookError]) when it is missing, damaged,
    truncated, foreign or of another version."""
    data, source = read_input(path, "book", max_bytes=MAX_BOOK_BYTES)
    return Connect4Book.from_bytes(data, source)


@lru_cache(maxsize=1)
def default_book() -> Connect4Book | None:
    """The book shipped with the package (the deepest in ``rompicapo/games/data``), or None
    when the package has none."""
    files = sorted(BOOK_DIR.glob("connect4-book-*.bin"))
    if not files:
        return None
    return read_book(max(files, key=lambda f: (len(f.name), f.name)))


def resolve_book(book: object) -> Connect4Book | None:
    """What a ``book=`` argument means: True or None the shipped book (None when there is
    none), False no book, a path that file, a [`Connect4Book`][rompicapo.games.Connect4Book]
    itself."""
    if book is None or book is True:
        return default_book()
    if book is False:
        return None
    if isinstance(book, Connect4Book):
        return book
    if isinstance(book, (str, Path)):
        return read_book(book)
    raise InputError(f"book must be True, False, a file name or a Connect4Book, got {book!r}")


def column_scores(book: Connect4Book, moves: Any) -> list[int | None] | None:
    """The score of playing each column after ``moves`` (None for a full column), from the
    book alone: a column that connects four wins at once, one that fills the board draws, the
    others are their child's score negated. None when a child the book lacks is needed."""
    from rompicapo.games.connect4 import parse_position

    p = moves if hasattr(moves, "mask") else parse_position(str(moves))
    if p.over or p.count + 1 > book.depth:
        return None
    out: list[int | None] = []
    for col in range(1, K.WIDTH + 1):
        if col not in p.playable_columns():
            out.append(None)
            continue
        child = p.play(col)
        if child.won:
            out.append(immediate_win_score(p.count))
        elif child.over:
            out.append(0)
        else:
            s = book.lookup(child.pos, child.mask)
            if s is None:
                return None
            out.append(-s)
    return out


def book_answer(p: Any, weak: bool, book: Connect4Book, analyse: bool) -> Any:
    """The [`Connect4Result`][rompicapo.games.Connect4Result] (with ``analyse``, the
    [`Connect4Analysis`][rompicapo.games.Connect4Analysis] of every column) that ``book`` alone
    gives for the position ``p``, ``from_book`` set and no node searched; None when the book
    lacks a position it needs."""
    import time

    from rompicapo.games.connect4 import Connect4Analysis, Connect4Result

    t0 = time.perf_counter()
    if analyse:
        scores = book.column_scores(p)
        if scores is None:
            return None
        cols = [c for c, s in enumerate(scores, 1) if s is not None and not p.play(c).over]
        if weak:
            scores = [None if s is None else (s > 0) - (s < 0) for s in scores]
        out: Any = Connect4Analysis(
            moves=p.moves, scores=scores, weak=weak, from_book=cols, counts={"nodes": 0}
        )
    else:
        known = book.score(p)
        if known is None:
            return None
        score = (known > 0) - (known < 0) if weak else known
        out = Connect4Result(
            moves=p.moves,
            score=score,
            weak=weak,
            from_book=True,
            counts={"nodes": 0, "tt_cuts": 0, "cutoffs": 0, "parity_cuts": 0},
        )
    out.solve_seconds = time.perf_counter() - t0
    return out
