"""Impartial games: both players have the same moves; under normal play whoever cannot move
loses (misère: whoever makes the last move loses).

- [`mex()`][rompicapo.games.mex] and [`grundy()`][rompicapo.games.grundy]: the Sprague-Grundy value
  of any position of any impartial game given by a move function, ``g(s) = mex {g(t) : s -> t}``; a
  position is lost for the player to move (a P-position) iff ``g(s) == 0``, and ``g(G + H) = g(G)
  XOR g(H)``;
- Nim ([`nim_outcome()`][rompicapo.games.nim_outcome],
  [`nim_winning_move()`][rompicapo.games.nim_winning_move]): Bouton's rule, normal and misère;
- subtraction games and octal games (Kayles is ``0.77``) with their Grundy sequences and the
  detection of their period;
- [`ImpartialGame`][rompicapo.games.ImpartialGame]: any impartial game as a two-player
  [`Game`][rompicapo.games.Game], so the search library can check these rules by minimax.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import combinations_with_replacement
from operator import xor
from typing import Any

from rompicapo.common import (
    MAX_DIGITS,
    Deadline,
    InputError,
    NotVerifiable,
    SearchResult,
    check_int,
    check_time_limit,
)
from rompicapo.games.game import MAX, Game

__all__ = [
    "GrundySequence",
    "ImpartialGame",
    "Nim",
    "NimAdvice",
    "count_configurations",
    "count_nim_games",
    "grundy",
    "grundy_sum",
    "grundy_values",
    "mex",
    "nim_advice",
    "nim_moves",
    "nim_outcome",
    "nim_winning_move",
    "octal_grundy",
    "parse_heaps",
    "parse_octal",
    "parse_subtraction_set",
    "subtraction_grundy",
]


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not in ``values``.

    ```pycon
    >>> mex([0, 1, 3])
    2

    ```"""
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def grundy(
    position: Hashable,
    moves: Callable[[Any], Iterable[Hashable]],
    memo: dict[Hashable, int] | None = None,
) -> int:
    """The Grundy value of ``position`` where ``moves(p)`` lists the positions reachable in one
    move (the game must be finite: no cycles). Iterative, so long games do not hit Python's
    recursion limit; ``memo`` may be shared between calls on the same game."""
    memo = {} if memo is None else memo
    stack: list[tuple[Hashable, list[Hashable] | None]] = [(position, None)]
    expanding: set[Hashable] = set()  # the positions on the current path, children pushed
    while stack:
        p, children = stack[-1]
        if p in memo:
            stack.pop()
            continue
        if children is None:
            children = list(moves(p))
            stack[-1] = (p, children)
            expanding.add(p)
            pending = [c for c in children if c not in memo]
            if pending:
                for c in pending:
                    if c in expanding:
                        raise InputError(f"the game has a cycle through {c!r}: no Grundy value")
                    stack.append((c, None))
                continue
        memo[p] = mex(memo[c] for c in children)
        stack.pop()
        expanding.discard(p)
    return memo[position]


def grundy_sum(values: Iterable[int]) -> int:
    """The Grundy value of a sum of games: the XOR of the parts' values.

    ```pycon
    >>> grundy_sum([3, 5, 8])  # 0011 xor 0101 xor 1000
    14

    ```"""
    return reduce(xor, values, 0)


# --------------------------------------------------------------------------------------------
# Nim
# --------------------------------------------------------------------------------------------


def parse_heaps(heaps: Sequence[int | str]) -> tuple[int, ...]:
    """Heap sizes as a tuple of non-negative integers, or an
    [`InputError`][rompicapo.common.InputError] naming the bad one.

    ```pycon
    >>> parse_heaps(["3", 5, "8"])
    (3, 5, 8)

    ```"""
    out = []
    for i, h in enumerate(heaps, 1):
        try:
            n = int(h)
        except (TypeError, ValueError):
            raise InputError(f"heap {i} is {h!r}, not an integer") from None
        if n < 0:
            raise InputError(f"heap {i} is {n}: heaps cannot be negative")
        if n > 10**18:
            raise InputError(f"heap {i} is {n}: too large (at most 10**18)")
        out.append(n)
    if not out:
        raise InputError("Nim needs at least one heap")
    return tuple(out)


def nim_outcome(heaps: Sequence[int], misere: bool = False) -> str:
    """``"P"`` if the player to move loses with perfect play, ``"N"`` if he wins.

    Normal play (Bouton, 1901): P iff the XOR of the heaps is 0. Misère: the same, except when
    every heap has at most one object, where P iff the number of heaps of one is odd.

    ```pycon
    >>> nim_outcome((3, 5, 8), False), nim_outcome((1, 2, 3), False)
    ('N', 'P')

    ```"""
    heaps = parse_heaps(heaps)
    if misere and all(h <= 1 for h in heaps):
        return "P" if sum(heaps) % 2 == 1 else "N"
    return "P" if grundy_sum(heaps) == 0 else "N"


def nim_winning_move(heaps: Sequence[int], misere: bool = False) -> tuple[int, int] | None:
    """A winning move ``(heap index, objects to take)``; None in a P-position, and in misère
    when every heap is empty (the player to move has already won: the opponent took the last).

    Normal play: with ``t`` the XOR of all heaps, some heap ``x_i`` has ``x_i XOR t < x_i``;
    reduce it to ``x_i XOR t``. Misère: play as in normal play unless that would leave only
    heaps of 0 and 1; then leave an odd number of heaps of one.

    ```pycon
    >>> nim_winning_move((3, 5, 8), False)  # from heap 2 (from 0), take 2
    (2, 2)

    ```"""
    heaps = parse_heaps(heaps)
    if nim_outcome(heaps, misere) == "P" or not any(heaps):
        return None
    big = [i for i, h in enumerate(heaps) if h > 1]
    if misere and len(big) <= 1:
        ones = sum(1 for h in heaps if h == 1)
        if not big:  # only heaps of one (an even number of them): take one
            return next(i for i, h in enumerate(heaps) if h == 1), 1
        i = big[0]  # one big heap: reduce it to 0 or 1 so that an odd number of ones remain
        keep = 1 if ones % 2 == 0 else 0
        return i, heaps[i] - keep
    t = grundy_sum(heaps)
    for i, h in enumerate(heaps):
        if h ^ t < h:
            return i, h - (h ^ t)
    raise AssertionError("an N-position always has a winning move")  # pragma: no cover


def nim_moves(heaps: tuple[int, ...]) -> list[tuple[int, int]]:
    """Every move ``(heap index, amount)`` in Nim."""
    return [(i, a) for i, h in enumerate(heaps) for a in range(1, h + 1)]


def count_nim_games(heaps: Sequence[int]) -> int:
    """The number of distinct complete games of Nim from ``heaps``: sequences of moves
    ``(heap, amount)`` to the empty position. The count from a position does not depend on the
    order of its heaps, so it is memoised on the sorted tuple. (3, 5, 8): 51,823,082."""
    memo: dict[tuple[int, ...], int] = {(): 1}

    def count(h: tuple[int, ...]) -> int:
        key = tuple(sorted(x for x in h if x))
        if key in memo:
            return memo[key]
        total = 0
        for i, x in enumerate(key):
            for a in range(1, x + 1):
                total += count((*key[:i], x - a, *key[i + 1 :]))
        memo[key] = total
        return total

    return count(parse_heaps(heaps))


def count_configurations(max_heap: int, heaps: int) -> tuple[int, int]:
    """Positions of ``heaps`` Nim heaps of 0..``max_heap`` objects: as ordered tuples and as
    multisets (what a table keyed on the sorted tuple stores). 12 and 10: 13**10 and 646,646."""
    ordered = (max_heap + 1) ** heaps
    unordered = math.comb(max_heap + heaps, heaps)
    return ordered, unordered


def count_multisets(max_heap: int, heaps: int) -> int:
    """The unordered count of [`count_configurations()`][rompicapo.games.count_configurations],
    by enumeration (a check)."""
    return sum(1 for _ in combinations_with_replacement(range(max_heap + 1), heaps))


# --------------------------------------------------------------------------------------------
# Subtraction and octal games: Grundy sequences and periods
# --------------------------------------------------------------------------------------------


@dataclass
class GrundySequence(SearchResult):
    """``values[n]`` is the Grundy value of a heap of ``n``; from ``preperiod`` on the values
    repeat with ``period`` (None when no period was found within the values computed).
    ``kind`` (``"subtract"`` or ``"octal"``) and ``spec`` name the game. ``stopped`` is
    ``"time"`` when the time limit cut the table short (``values`` then holds the heaps
    computed before it)."""

    name: str = ""
    """The game's name (``"subtract-{1,2,3}"``, ``"octal 0.77"``, ...)."""
    values: list[int] = field(default_factory=list)
    """``values[n]``: the Grundy value of a heap of ``n``."""
    preperiod: int | None = None
    """Where the periodic part begins; None when no period was found."""
    period: int | None = None
    """The period of the values from ``preperiod`` on; None when none was found."""
    kind: str = ""
    """``"subtract"`` or ``"octal"``."""
    spec: str = ""
    """The game's spec (``"1,2,3"``, ``"0.77"``)."""
    stopped: str | None = None
    """``"time"`` when the time limit cut the table short, else None."""

    def report(self) -> str:
        return self.describe()

    def verify(self) -> bool:
        """The values and the period against `rompicapo.games.verify`, which parses the
        game and computes the values afresh (and the period by the Guy-Smith test)."""
        from rompicapo.games.verify import grundy_sequence_holds

        if self.kind not in GRUNDY_KINDS:
            raise NotVerifiable("this sequence does not say which game it is")
        return grundy_sequence_holds(self.kind, self.spec, self.values, self.preperiod, self.period)

    def describe(self) -> str:
        head = " ".join(str(v) for v in self.values)
        if self.stopped == "time":
            tail = f"stopped by the time limit after {len(self.values)} heaps; no period found"
        elif self.period is None:
            tail = "no period found in this range"
        else:
            tail = f"periodic from n = {self.preperiod} with period {self.period}"
        return f"{self.name}: {head}\n{tail}"


def parse_subtraction_set(text: str | Iterable[int]) -> tuple[int, ...]:
    """``"1,2,3"`` -> (1, 2, 3): distinct positive integers."""
    if isinstance(text, str):
        parts = [p for p in text.replace(" ", "").split(",") if p]
        try:
            values = [int(p) for p in parts]
        except ValueError:
            raise InputError(
                f"subtraction set {text!r}: use positive integers like 1,2,3"
            ) from None
    else:
        values = list(text)
    if not values or any(v <= 0 for v in values):
        raise InputError(f"subtraction set {text!r}: needs positive integers, like 1,2,3")
    if max(values) > 10_000:
        raise InputError("subtraction set: amounts above 10,000 are not supported")
    return tuple(sorted(set(values)))


def subtraction_grundy(
    subtraction: Iterable[int] | str, upto: int, *, time_limit: float | None = None
) -> GrundySequence:
    """Grundy values of the subtraction game (take any amount in the set from one heap) for
    heaps 0..``upto``, and its period. g(n) depends only on the previous max(S) values, so the
    first repeat of a window of max(S) consecutive values starts the periodic part; the values
    are computed as far as needed to find it (at most (k+1)**k, k = max(S), steps; in practice a
    few times k). ``time_limit`` (seconds) cuts the table short (``stopped="time"``)."""
    deadline = Deadline(check_time_limit(time_limit))
    s = parse_subtraction_set(subtraction)
    if upto < 0:
        raise InputError(f"--upto must be >= 0, got {upto}")
    k = max(s)
    g: list[int] = []
    seen: dict[tuple[int, ...], int] = {}
    preperiod = period = None
    n = 0
    # stop once both the requested range and the period are known (or after a generous cap:
    # windows of k values each at most |S|, so a repeat comes within (|S|+1)**k + k steps)
    cap = max(upto + 1, min(200_000, (len(s) + 1) ** k + k + 1))
    while n < cap and (n <= upto or period is None):
        if n % 256 == 0 and deadline.expired():
            spec = ",".join(map(str, s))
            return GrundySequence(
                name="subtract-{" + spec + "}",
                values=g[: upto + 1],
                kind="subtract",
                spec=spec,
                stopped="time",
                counts={"values": len(g)},
            )
        g.append(mex(g[n - a] for a in s if a <= n))
        n += 1
        if n >= k and period is None:
            window = tuple(g[n - k : n])
            if window in seen:
                preperiod = seen[window]
                period = n - k - preperiod
            else:
                seen[window] = n - k
    spec = ",".join(map(str, s))
    return GrundySequence(
        name="subtract-{" + spec + "}",
        values=g[: upto + 1],
        preperiod=preperiod,
        period=period,
        kind="subtract",
        spec=spec,
        counts={"values": len(g)},
    )


def parse_octal(code: str) -> tuple[int, ...]:
    """An octal game code like ``"0.77"`` (Kayles) or ``"0.07"`` (Dawson's Kayles): digit
    d_k (k >= 1, after the point) says what taking k objects from a heap may leave: bit 1 no
    heap, bit 2 one heap, bit 4 two heaps. Returns (d_1, d_2, ...)."""
    code = code.strip()
    if not code.startswith(("0.", ".")) or len(code.split(".", 1)[1]) == 0:
        raise InputError(f"octal code {code!r}: write it like 0.77 (Kayles) or 0.137")
    digits = code.split(".", 1)[1]
    if any(ch not in "01234567" for ch in digits):
        raise InputError(f"octal code {code!r}: digits after the point must be 0..7")
    if len(digits) > MAX_DIGITS:
        raise InputError(f"octal code {code[:20]!r}...: at most {MAX_DIGITS} digits")
    return tuple(int(ch) for ch in digits)


def octal_grundy(code: str, upto: int, *, time_limit: float | None = None) -> GrundySequence:
    """Grundy values of the octal game ``code`` for heaps 0..``upto`` and its period, checked
    with the periodicity theorem of Guy and Smith (1956): if g(n + p) = g(n) for all n with
    n0 <= n < 2 n0 + p + t (t the largest amount one can take), the sequence is periodic from
    n0 on. Kayles (0.77): periodic from n = 71 with period 12. ``time_limit`` (seconds) cuts
    the table short (``stopped="time"``)."""
    deadline = Deadline(check_time_limit(time_limit))
    digits = parse_octal(code)
    if upto < 0:
        raise InputError(f"--upto must be >= 0, got {upto}")
    t = len(digits)
    g: list[int] = []

    def value(n: int) -> int:
        opts = set()
        for k, d in enumerate(digits, 1):
            if k > n:
                break
            rest = n - k
            if d & 1 and rest == 0:
                opts.add(0)
            if d & 2 and rest > 0:
                opts.add(g[rest])
            if d & 4 and rest >= 2:
                for a in range(1, rest // 2 + 1):
                    opts.add(g[a] ^ g[rest - a])
        return mex(opts)

    # The theorem needs values up to 2 n0 + 2 p + t: computing 3 * max(upto, 150) values finds
    # every period with n0 + p below about that bound (Kayles needs 168).
    limit = 3 * max(upto, 150) + t + 2
    for n in range(limit):
        if deadline.expired():  # a value costs O(n): look at the clock before each
            return _octal_stopped(code, g, upto)
        g.append(value(n))
    preperiod = period = None
    for p in range(1, limit // 3 + 1):
        if deadline.expired():
            return _octal_stopped(code, g, upto)
        n0 = _first_periodic_start(g, p, t)
        if n0 is not None:  # the smallest period is found first
            preperiod, period = n0, p
            break
    return GrundySequence(
        name=f"octal {code}",
        values=g[: upto + 1],
        preperiod=preperiod,
        period=period,
        kind="octal",
        spec=code,
        counts={"values": len(g)},
    )


def _octal_stopped(code: str, g: list[int], upto: int) -> GrundySequence:
    """The table of ``code`` cut short by the time limit after ``len(g)`` values."""
    return GrundySequence(
        name=f"octal {code}",
        values=g[: upto + 1],
        kind="octal",
        spec=code,
        stopped="time",
        counts={"values": len(g)},
    )


def _first_periodic_start(g: list[int], p: int, t: int) -> int | None:
    """The least n0 with g(n + p) = g(n) for n0 <= n < 2 n0 + p + t, within ``g``."""
    # walk back from the end while g(n + p) = g(n): every n in [start, len(g) - p) agrees
    start = len(g) - p
    while start > 0 and g[start - 1 + p] == g[start - 1]:
        start -= 1
    # the theorem needs agreement for n < 2 start + p + t, inside what was computed
    return start if 2 * start + p + t <= len(g) - p else None


# --------------------------------------------------------------------------------------------
# Impartial games as two-player games (for the search library)
# --------------------------------------------------------------------------------------------


class ImpartialGame(Game):
    """An impartial game as a [`Game`][rompicapo.games.Game]: a state is ``(position, player)``; the
    player who cannot move loses (or, with ``misere``, wins). ``moves(position)`` lists the
    positions one move away."""

    def __init__(
        self,
        start: Hashable,
        moves: Callable[[Any], Iterable[Hashable]],
        *,
        misere: bool = False,
        name: str = "impartial game",
    ) -> None:
        self.start, self.successors, self.misere, self.name = start, moves, misere, name

    def initial(self) -> tuple[Hashable, int]:
        return (self.start, MAX)

    def to_move(self, state: tuple[Hashable, int]) -> int:
        return state[1]

    def moves(self, state: tuple[Hashable, int]) -> list[Hashable]:
        return list(self.successors(state[0]))

    def apply(self, state: tuple[Hashable, int], move: Hashable) -> tuple[Hashable, int]:
        return (move, -state[1])

    def is_terminal(self, state: tuple[Hashable, int]) -> bool:
        return not any(True for _ in self.successors(state[0]))

    def utility(self, state: tuple[Hashable, int]) -> float:
        # the player to move has no move: he loses in normal play, wins in misère
        return state[1] if self.misere else -state[1]


class Nim(Game):
    """Nim as a [`Game`][rompicapo.games.Game]: a state is ``(heaps, player)``, a move ``(heap
    index, amount)``; normal play (the last to move wins) or misère (the last to move loses)."""

    def __init__(self, heaps: Sequence[int] = (3, 5, 8), *, misere: bool = False) -> None:
        self.heaps = parse_heaps(heaps)
        self.misere = misere
        self.name = "misère Nim" if misere else "Nim"

    def initial(self) -> tuple[tuple[int, ...], int]:
        return (self.heaps, MAX)

    def to_move(self, state: tuple[tuple[int, ...], int]) -> int:
        return state[1]

    def moves(self, state: tuple[tuple[int, ...], int]) -> list[tuple[int, int]]:
        return nim_moves(state[0])

    def apply(self, state, move: tuple[int, int]):
        heaps, player = state
        i, a = move
        return ((*heaps[:i], heaps[i] - a, *heaps[i + 1 :]), -player)

    def undo(self, state, move: tuple[int, int]):
        heaps, player = state
        i, a = move
        return ((*heaps[:i], heaps[i] + a, *heaps[i + 1 :]), -player)

    def is_terminal(self, state) -> bool:
        return not any(state[0])

    def utility(self, state) -> float:
        return state[1] if self.misere else -state[1]

    def play(self, state, move):
        heaps = state[0]
        i, a = move
        if not 0 <= i < len(heaps):
            raise InputError(f"heap {i + 1} does not exist (there are {len(heaps)})")
        if not 1 <= a <= heaps[i]:
            raise InputError(f"heap {i + 1} has {heaps[i]}: take 1..{heaps[i]}, not {a}")
        return self.apply(state, move)

    def render(self, state) -> str:
        return "\n".join(f"heap {i + 1}: {'|' * h} ({h})" for i, h in enumerate(state[0]))


# --------------------------------------------------------------------------------------------
# One call per question (what the CLI and the playground ask)
# --------------------------------------------------------------------------------------------

# The brute-force check of verify.py visits every sub-position: fine up to this many objects.
_VERIFY_OBJECTS = 24
# Counting the distinct games to the end explodes beyond this many objects.
COUNT_GAMES_OBJECTS = 40


@dataclass
class NimAdvice(SearchResult):
    """Who wins Nim ``heaps`` (``"P"``: the player to move loses; ``"N"``: he wins), the
    nim-sum, a winning move ``(heap number from 1, objects to take)`` when there is one, and
    optionally the number of distinct games to the end."""

    heaps: tuple[int, ...] = ()
    """The heap sizes."""
    misere: bool = False
    """True under the misère rule (who takes the last object loses)."""
    outcome: str = "P"
    """``"P"``: the player to move loses with best play; ``"N"``: he wins."""
    nim_sum: int = 0
    """The exclusive or of the heap sizes (Bouton)."""
    move: tuple[int, int] | None = None
    """A winning move, ``(heap from 1, objects to take)``, or None in a P-position."""
    games: int | None = None
    """Distinct games to the end, when counted (None otherwise)."""

    def report(self) -> str:
        rule = "misère" if self.misere else "normal play"
        if self.outcome == "P":
            text = f"P: the player to move loses ({rule}); every move loses against best play"
        elif self.move is None:
            text = f"N: the player to move has already won ({rule}: the opponent took the last)"
        else:
            heap, take = self.move
            size = self.heaps[heap - 1]
            text = (
                f"N: the player to move wins ({rule}): take {take} from heap {heap} "
                f"({size} -> {size - take})"
            )
        text += f"\nnim-sum {self.nim_sum}"
        if self.games is not None:
            text += f"\ndistinct games to the end: {self.games:,}"
        return text

    def _repr_svg_(self) -> str:
        """Jupyter shows the heaps, the winning move's counters hollow in red."""
        from rompicapo.games.render import nim_svg

        return nim_svg(self.heaps, self.move)

    def verify(self) -> bool:
        """The outcome and the move against the brute force of `rompicapo.games.verify`
        (up to 24 objects in all; NotVerifiable beyond)."""
        from rompicapo.games.verify import check_nim_move, nim_is_p_position

        if sum(self.heaps) > _VERIFY_OBJECTS:
            raise NotVerifiable(
                f"{sum(self.heaps)} objects: the brute-force check stops at {_VERIFY_OBJECTS}"
            )
        lost = nim_is_p_position(tuple(self.heaps), self.misere)
        if lost != (self.outcome == "P"):
            return False
        if self.move is None:
            return lost or not any(self.heaps)
        return check_nim_move(tuple(self.heaps), self.move[0] - 1, self.move[1], self.misere)


def nim_advice(
    heaps: Sequence[int | str], *, misere: bool = False, count_games: bool = False
) -> NimAdvice:
    """Bouton's answer for Nim ``heaps``: P or N, the nim-sum and a winning move.

    ```pycon
    >>> nim_advice([3, 5, 8]).move   # nim-sum 14: take 2 from the heap of 8
    (3, 2)

    ```"""
    heaps = parse_heaps(heaps)
    if count_games and sum(heaps) > COUNT_GAMES_OBJECTS:
        raise InputError(
            f"count_games: at most {COUNT_GAMES_OBJECTS} objects in all (the count explodes)"
        )
    move = nim_winning_move(heaps, misere)
    out = NimAdvice(
        heaps=heaps,
        misere=misere,
        outcome=nim_outcome(heaps, misere),
        nim_sum=grundy_sum(heaps),
        move=None if move is None else (move[0] + 1, move[1]),
        games=count_nim_games(heaps) if count_games else None,
    )
    out.counts = {"objects": sum(heaps)}
    return out


GRUNDY_KINDS = ("subtract", "octal")
GRUNDY_UPTO_MAX = 10_000


def grundy_values(
    kind: str, spec: str, upto: int = 30, *, time_limit: float | None = None
) -> GrundySequence:
    """Grundy values of heaps 0..``upto`` of a subtraction game (``spec`` like ``"1,2,3"``) or
    an octal game (``spec`` like ``"0.77"``, Kayles), with the period when one shows.
    ``time_limit`` (seconds) cuts the table short (``stopped="time"``)."""
    if kind not in GRUNDY_KINDS:
        raise InputError(f"kind must be one of {', '.join(GRUNDY_KINDS)}, got {kind!r}")
    upto = check_int(upto, "upto", minimum=0, maximum=GRUNDY_UPTO_MAX)
    if kind == "subtract":
        return subtraction_grundy(spec, upto, time_limit=time_limit)
    return octal_grundy(spec, upto, time_limit=time_limit)
