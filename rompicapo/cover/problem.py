"""The exact-cover model: items, options, and Knuth's DLX1/DLX2/DLX3 text format.

An exact-cover problem has

- *primary* items, each to be covered exactly once, or, with multiplicity bounds ``(lo, hi)``
  (Knuth's Algorithm M, DLX3), between ``lo`` and ``hi`` times;
- *secondary* items, covered at most once, unless every option that uses one gives it the same
  *colour* (Knuth's Algorithm C, DLX2): options agreeing on the colour may share the item;
- *options*: sets of items (a secondary item possibly with a colour). A solution is a set of
  options that covers every primary item within its bounds and every secondary item at most
  once or consistently coloured.

[`Problem`][rompicapo.cover.Problem] is built from Python values (any hashable item names and
colours), read from Knuth's text format with [`read_dlx()`][rompicapo.cover.read_dlx] /
[`parse_dlx()`][rompicapo.cover.parse_dlx], written back with
[`format_dlx()`][rompicapo.cover.format_dlx], and turned into flat integer arrays with
[`Problem.arrays()`][rompicapo.cover.problem.Problem.arrays] for the kernels.

Knuth's text format (as DLX1-DLX3 read it): ``|`` starts a comment line; the first other line
names the items, primary first, then ``|``, then secondary; a primary item may carry bounds
``lo:hi|name`` or ``hi|name``; every later line is an option, its items separated by spaces,
a secondary item optionally written ``name:colour``. Unlike Knuth's programs, names are not cut
to 8 characters and colours may be longer than one character. An option without a primary item
is dropped, as Knuth does (he warns "Option ignored (no primary items)"); its line number is
recorded in `Problem.dropped_lines`; with ``strict=True`` it is an error instead.

```pycon
>>> p = parse_dlx("A B C | X\\nA B\\nC X\\nA X\\nB C\\n")
>>> (len(p.primary), len(p.secondary), len(p.options))
(3, 1, 4)

```"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from rompicapo.common import InputError, check_memory, read_text, renamed_keywords

__all__ = ["Problem", "ProblemArrays", "format_dlx", "parse_dlx", "read_dlx"]

#: An option as stored: a tuple of ``(item, colour)`` pairs, colour ``None`` when absent.
Option = tuple[tuple[Hashable, Hashable | None], ...]


def _show(name: object) -> str:
    """An item name for a one-line message (a 100,000-character token is cut)."""
    text = repr(name)
    return text if len(text) <= 42 else text[:40] + "..."


@dataclass
class ProblemArrays:
    """A problem as flat integer arrays (what the kernels and the worker processes receive).

    Items are numbered ``0 .. n_primary-1`` (primary) then ``n_primary .. n_items-1``
    (secondary). Option ``k`` has the items ``option_items[option_start[k]:option_start[k+1]]``
    with colours ``option_colours[...]`` (0 = no colour, ``c >= 1`` = colour number ``c``).
    ``lower[i] <= upper[i]`` bound how often primary item ``i`` is covered.

    ```pycon
    >>> a = parse_dlx("a b | x\\na x\\nb x:red\\nb\\n").arrays()
    >>> a.n_primary, a.n_secondary, a.n_options
    (2, 1, 3)
    >>> a.option_start.tolist(), a.option_items.tolist(), a.option_colours.tolist()
    ([0, 2, 4, 5], [0, 2, 1, 2, 1], [0, 0, 0, 1, 0])
    >>> a.has_colours, a.has_multiplicities
    (True, False)

    ```"""

    n_primary: int
    n_secondary: int
    option_start: np.ndarray
    option_items: np.ndarray
    option_colours: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def n_items(self) -> int:
        return self.n_primary + self.n_secondary

    @property
    def n_options(self) -> int:
        return len(self.option_start) - 1

    # cached: the arrays are never changed once built (a changed Problem builds new ones),
    # and recomputing these came to half the time of counting a 5-option problem
    @cached_property
    def has_colours(self) -> bool:
        return bool(np.any(self.option_colours))

    # the American spellings of earlier releases (benchmarks and scripts use them)
    @property
    def has_colors(self) -> bool:
        return self.has_colours

    @property
    def option_colors(self) -> np.ndarray:
        return self.option_colours

    @cached_property
    def has_multiplicities(self) -> bool:
        return bool(np.any(self.lower != 1) or np.any(self.upper != 1))


@dataclass
class Problem:
    """An exact-cover problem with secondary items, colours and multiplicities.

    Build it in one call or step by step::

        p = Problem(primary=["a", "b"], secondary=["x"])
        p.add_option(["a", "x"])
        p.add_option(["b", "x"], colours={"x": "red"})

    Item names and colours are any hashable values. ``options`` given to the constructor are
    iterables of item names (use [`add_option()`][rompicapo.cover.problem.Problem.add_option] for
    colours); they are stored as tuples of ``(item, colour or None)`` pairs. ``bounds`` maps a
    primary item to ``(lo, hi)``, how many options must cover it (default ``(1, 1)``).

    ```pycon
    >>> p = Problem(primary=["a", "b"], secondary=["x"])
    >>> p.add_option(["a", "x"]), p.add_option(["b", "x"], colours={"x": "red"})  # their numbers
    (0, 1)
    >>> p.add_option(["b"])
    2
    >>> len(p), p.options[1]
    (3, (('b', None), ('x', 'red')))
    >>> from rompicapo.cover import solve
    >>> solve(p, limit=None).solutions  # options 0 and 1 would both take x
    [[0, 2]]

    ```"""

    primary: list[Hashable] = field(default_factory=list)
    secondary: list[Hashable] = field(default_factory=list)
    options: list = field(default_factory=list)
    bounds: dict[Hashable, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.primary = list(self.primary)
        self.secondary = list(self.secondary)
        self._index: dict[Hashable, int] = {}
        for name in [*self.primary, *self.secondary]:
            if name in self._index:
                raise InputError(f"item {name!r} is declared twice")
            self._index[name] = len(self._index)
        for name, (lo, hi) in self.bounds.items():
            self._check_bounds(name, lo, hi)
        self.bounds = {k: tuple(v) for k, v in self.bounds.items() if tuple(v) != (1, 1)}
        given, self.options = list(self.options), []
        for opt in given:
            self.add_option(opt)
        self._arrays: ProblemArrays | None = None
        #: line numbers of options without a primary item that :func:`parse_dlx` dropped
        self.dropped_lines: list[int] = []
        #: where the problem was read from (a file name, ``<stdin>``), or None
        self.source: str | None = None

    # ---------------------------------------------------------------- building

    def add_primary(self, name: Hashable, lower: int = 1, upper: int | None = None) -> None:
        """Declare a primary item covered between ``lower`` and ``upper`` times (default once).

        Primary items must all be declared before options use them; ``upper`` defaults to
        ``max(lower, 1)``.
        """
        self._declare(name, primary=True)
        self.primary.append(name)
        hi = max(lower, 1) if upper is None else upper
        self._check_bounds(name, lower, hi)
        if (lower, hi) != (1, 1):
            self.bounds[name] = (lower, hi)

    def add_secondary(self, name: Hashable) -> None:
        """Declare a secondary item (covered at most once, or shared with one colour)."""
        self._declare(name, primary=False)
        self.secondary.append(name)

    @renamed_keywords(colors="colours")
    def add_option(
        self, items: Iterable[Hashable], colours: Mapping[Hashable, Hashable] | None = None
    ) -> int:
        """Add an option (a set of item names) and return its index.

        ``colours`` (formerly ``colors``) gives some secondary items of the option a colour. Raises
        [`InputError`][rompicapo.common.InputError] for an unknown item, an item twice, an option
        without a primary item, or a colour on a primary item.
        """
        return self._add_option(items, colours, f"option {len(self.options) + 1}")

    def _add_option(
        self, items: Iterable[Hashable], colours: Mapping[Hashable, Hashable] | None, label: str
    ) -> int:
        colours = dict(colours or {})
        seen: set[Hashable] = set()
        option = []
        has_primary = False
        n_primary = len(self.primary)
        for name in items:
            idx = self._index.get(name)
            if idx is None:
                raise InputError(f"{label} uses unknown item {_show(name)}")
            if name in seen:
                raise InputError(f"{label} has item {_show(name)} twice")
            seen.add(name)
            colour = colours.pop(name, None)
            if idx < n_primary:
                has_primary = True
                if colour is not None:
                    raise InputError(f"{label} gives primary item {_show(name)} a colour")
            option.append((name, colour))
        if colours:
            extra = _show(next(iter(colours)))
            raise InputError(f"{label} colours {extra}, which it does not contain")
        if not has_primary:
            raise InputError(f"{label} has no primary item")
        self.options.append(tuple(option))
        self._arrays = None
        return len(self.options) - 1

    def _declare(self, name: Hashable, *, primary: bool) -> None:
        if self.options:
            raise InputError("declare every item before adding options")
        if name in self._index:
            raise InputError(f"item {name!r} is declared twice")
        if primary and self.secondary:
            # primary items are numbered before secondary ones
            raise InputError("declare primary items before secondary items")
        self._index[name] = len(self._index)
        self._arrays = None

    def _check_bounds(self, name: Hashable, lo: int, hi: int) -> None:
        if name not in self._index or self._index[name] >= len(self.primary):
            raise InputError(f"bounds given for {name!r}, which is not a primary item")
        if not (0 <= lo <= hi) or hi < 1:
            raise InputError(f"bounds of {name!r} must satisfy 0 <= lo <= hi, hi >= 1")

    # ---------------------------------------------------------------- views

    def item_index(self, name: Hashable) -> int:
        """The number of an item: primary ones first, then secondary."""
        try:
            return self._index[name]
        except KeyError:
            raise InputError(f"unknown item {name!r}") from None

    def arrays(self) -> ProblemArrays:
        """The flat-array form (cached until the problem changes)."""
        if self._arrays is None:
            colour_codes: dict[Hashable, int] = {}
            start = np.zeros(len(self.options) + 1, dtype=np.int32)
            items: list[int] = []
            colours: list[int] = []
            for k, opt in enumerate(self.options):
                for name, colour in opt:
                    items.append(self._index[name])
                    colours.append(
                        0
                        if colour is None
                        else colour_codes.setdefault(colour, len(colour_codes) + 1)
                    )
                start[k + 1] = len(items)
            lower = np.ones(len(self.primary), dtype=np.int32)
            upper = np.ones(len(self.primary), dtype=np.int32)
            for name, (lo, hi) in self.bounds.items():
                lower[self._index[name]] = lo
                upper[self._index[name]] = hi
            self._arrays = ProblemArrays(
                n_primary=len(self.primary),
                n_secondary=len(self.secondary),
                option_start=start,
                option_items=np.asarray(items, dtype=np.int32),
                option_colours=np.asarray(colours, dtype=np.int32),
                lower=lower,
                upper=upper,
            )
        return self._arrays

    def describe(self, option: int) -> str:
        """An option as Knuth writes it: ``a b x:c``."""
        return " ".join(
            str(name) if colour is None else f"{name}:{colour}"
            for name, colour in self.options[option]
        )

    def __len__(self) -> int:
        return len(self.options)


# ------------------------------------------------------------------------------------------
# Knuth's text format
# ------------------------------------------------------------------------------------------


#: Bounds larger than this cannot be stored in the kernels' int32 arrays (and no problem has
#: that many options to cover an item with).
_MAX_BOUND = 2**31 - 1
#: Python objects per token of a parsed problem (a str, a tuple slot, a pair, list and dict
#: slots): measured about 150 bytes on CPython 3.12; the estimate errs high.
_BYTES_PER_TOKEN = 200
#: Texts up to this many characters (at most 128 K tokens, about 25 MB parsed) are parsed
#: without first asking for the free memory (0.1 ms, a fifth of parsing 8 queens).
_CHECKED_TEXT = 256 * 1024


def read_dlx(path: str | Path, *, strict: bool = False) -> Problem:
    """Read a problem in Knuth's DLX1/DLX2/DLX3 text format from a file (``"-"`` = stdin).

    The file is read with [`rompicapo.common.read_text()`][rompicapo.common.read_text]: a missing
    file, a folder, a binary or non-UTF-8 file is an [`InputError`][rompicapo.common.InputError] in
    one line.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> knuth = "a b c d e f g\\nc e\\na d g\\nb c f\\na d f\\nb g\\nd e g\\n"  # his first example
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "knuth.dlx").write_text(knuth)
    ...     problem = read_dlx(Path(folder, "knuth.dlx"))
    >>> len(problem.primary), len(problem), problem.describe(3)
    (7, 6, 'a d f')
    >>> read_dlx("no-such-problem.dlx")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: .dlx file 'no-such-problem.dlx' does not exist

    ```"""
    text = read_text(path, ".dlx file")
    return parse_dlx(text, source="<stdin>" if path == "-" else str(path), strict=strict)


def _parse_item_token(token: str, source: str, line: int) -> tuple[str, int, int]:
    """``name`` or ``hi|name`` or ``lo:hi|name`` -> (name, lo, hi)."""
    if "|" not in token:
        return token, 1, 1
    spec, _, name = token.partition("|")
    if not name or "|" in name:
        raise InputError(
            f"bad item {token[:40]!r} (bounds are written lo:hi|name)", path=source, line=line
        )
    lo_text, colon, hi_text = spec.partition(":")
    if not colon:
        lo_text = hi_text = spec
    if not (lo_text.isascii() and lo_text.isdigit() and hi_text.isascii() and hi_text.isdigit()):
        raise InputError(
            f"bad bounds {spec[:40]!r} in {token[:40]!r} (digits expected)", path=source, line=line
        )
    if len(lo_text) > 10 or len(hi_text) > 10 or int(hi_text) > _MAX_BOUND:
        raise InputError(
            f"bounds {spec[:40]!r} of {name[:40]!r}: at most {_MAX_BOUND}", path=source, line=line
        )
    lo, hi = int(lo_text), int(hi_text)
    if hi == 0 or lo > hi:
        raise InputError(
            f"bounds {spec!r} of {name[:40]!r} need 0 <= lo <= hi, hi >= 1", path=source, line=line
        )
    return name, lo, hi


def parse_dlx(text: str, *, source: str = "<text>", strict: bool = False) -> Problem:
    """Parse Knuth's DLX1/DLX2/DLX3 text format (see the module docstring).

    Raises [`InputError`][rompicapo.common.InputError] naming the line for: an empty input, an
    item declared twice, a ``|`` twice on the item line, bounds on a secondary item, an unknown
    item, an item twice in one option, a colour on a primary item, an empty colour or name,
    and (with ``strict``) an option without a primary item. The memory the parsed problem will
    take is estimated from the text's size first and refused with
    [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] when it would not fit.

    ```pycon
    >>> p = parse_dlx("| Knuth's first example\\na b c d e f g\\nc e\\na d g\\nb c f\\n"
    ...               "a d f\\nb g\\nd e g\\n")
    >>> p.primary, len(p), p.describe(0)
    (['a', 'b', 'c', 'd', 'e', 'f', 'g'], 6, 'c e')
    >>> parse_dlx("a b\\na c\\n", source="mine.dlx")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: mine.dlx:2: option uses unknown item 'c'

    ```"""
    if not isinstance(text, str):
        raise InputError(f"parse_dlx takes text, got {type(text).__name__}")
    # Before building anything: Python objects for every token (the dense arrays are
    # estimated again, from the parsed sizes, when a search is built). A text under
    # _CHECKED_TEXT makes at most a few MB of them: asking the system for its free memory
    # would cost more than parsing it.
    if len(text) > _CHECKED_TEXT:
        tokens_estimate = (
            len(text.split()) if len(text) < 1 << 20 else text.count(" ") + len(text) // 8
        )
        check_memory(_BYTES_PER_TOKEN * tokens_estimate, f"parsing the problem {source}")
    lines = [
        (n, line.split())
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("|")
    ]
    if not lines:
        raise InputError("empty input, no item line", path=source)
    item_line_no, tokens = lines[0]
    primary: list[str] = []
    secondary: list[str] = []
    bounds: dict[str, tuple[int, int]] = {}
    in_secondary = False
    declared: set[str] = set()

    def fail(message: str, line: int) -> InputError:
        return InputError(message, path=source, line=line)

    for token in tokens:
        if token == "|":
            if in_secondary:
                raise fail("the item line has '|' twice", item_line_no)
            in_secondary = True
            continue
        name, lo, hi = _parse_item_token(token, source, item_line_no)
        if ":" in name:
            raise fail(f"item name {name[:40]!r} contains ':'", item_line_no)
        if name in declared:
            raise fail(f"item {name[:40]!r} is declared twice", item_line_no)
        declared.add(name)
        if in_secondary:
            if "|" in token:
                raise fail(f"secondary item {name[:40]!r} cannot have bounds", item_line_no)
            secondary.append(name)
        else:
            primary.append(name)
            if (lo, hi) != (1, 1):
                bounds[name] = (lo, hi)
    if not primary:
        raise fail("no primary items", item_line_no)
    problem = Problem(primary=primary, secondary=secondary, bounds=bounds)
    problem.source = source
    for line_no, tokens in lines[1:]:
        items: list[str] = []
        colours: dict[str, str] = {}
        for token in tokens:
            name, colon, colour = token.partition(":")
            if not name:
                raise fail(f"empty item name in {token[:40]!r}", line_no)
            if colon:
                if not colour:
                    raise fail(f"empty colour in {token[:40]!r}", line_no)
                if name in colours:
                    raise fail(f"item {name[:40]!r} appears twice in this option", line_no)
                colours[name] = colour
            items.append(name)
        if not strict and all(problem._index.get(i, -1) >= len(primary) for i in items):
            problem.dropped_lines.append(line_no)
            continue
        try:
            problem._add_option(items, colours, "option")
        except InputError as exc:
            raise fail(str(exc), line_no) from None
    return problem


def _dlx_name(value: Hashable, what: str) -> str:
    text = str(value)
    if not text or any(ch.isspace() for ch in text) or ":" in text or "|" in text:
        raise InputError(f"{what} {text!r} cannot be written in Knuth's format")
    return text


def format_dlx(problem: Problem, *, comment: str | None = None) -> str:
    """Write a problem in Knuth's text format (names and colours must print without blanks,
    ``:`` or ``|``). ``parse_dlx(format_dlx(p))`` gives back ``p`` with names as strings.

    ```pycon
    >>> p = Problem(primary=["a", "b"], secondary=["x"], bounds={"a": (1, 2)})
    >>> p.add_option(["a", "x"], colours={"x": "red"}), p.add_option(["a", "b"])  # their numbers
    (0, 1)
    >>> print(format_dlx(p, comment="a small problem"), end="")
    | a small problem
    1:2|a b | x
    a x:red
    a b
    >>> format_dlx(parse_dlx(format_dlx(p))) == format_dlx(p)
    True

    ```"""
    out: list[str] = []
    if comment:
        out.extend(f"| {line}" for line in comment.splitlines())
    head = []
    for name in problem.primary:
        text = _dlx_name(name, "item")
        lo, hi = problem.bounds.get(name, (1, 1))
        if (lo, hi) != (1, 1):
            text = f"{hi}|{text}" if lo == hi else f"{lo}:{hi}|{text}"
        head.append(text)
    if problem.secondary:
        head.append("|")
        head.extend(_dlx_name(name, "item") for name in problem.secondary)
    out.append(" ".join(head))
    for opt in problem.options:
        out.append(
            " ".join(
                _dlx_name(name, "item")
                if colour is None
                else f"{_dlx_name(name, 'item')}:{_dlx_name(colour, 'colour')}"
                for name, colour in opt
            )
        )
    return "\n".join(out) + "\n"


def options_of(problem: Problem, solution: Sequence[int]) -> list[str]:
    """The options of a solution as Knuth prints them, one string each."""
    return [problem.describe(k) for k in solution]
