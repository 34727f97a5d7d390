"""The error hierarchy: what went wrong, and whose move it is.

- [`InputError`][rompicapo.common.InputError] (and every other
  [`RompicapoError`][rompicapo.common.RompicapoError] but
  [`InternalError`][rompicapo.common.InternalError]):
  something the user can fix: a size, a value, a file, an output path, a scheduler address.
  The message is one line that talks about parameters, not CLI flags, and names the file and
  line where there is one. The CLI prints it and exits with status 2.
- [`InternalError`][rompicapo.common.InternalError]: the solver itself failed (a bug). The CLI
  prints one line and "please report", exits with status 1, and shows the traceback only with
  ``--debug`` or ``ROMPICAPO_DEBUG=1``.
- [`NotVerifiable`][rompicapo.common.NotVerifiable]: ``verify()`` was asked to check an answer it
  cannot check (no answer, a depth-limited search, a position too large to re-solve independently).
  It is never a silent True.

Every message is one line, and it quotes at most `QUOTE_CHARS` characters of what the user gave
([`one_line()`][rompicapo.common.one_line]): a 50 MB line or a number of 120,000 digits is shown by
its start and its length, never whole.
"""

from __future__ import annotations

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OUTPUT",
    "QUOTE_CHARS",
    "InputError",
    "InsufficientMemoryError",
    "InternalError",
    "NotVerifiable",
    "RompicapoError",
    "StopRequested",
    "one_line",
]

# Exit statuses of the CLI, one meaning each.
EXIT_INTERNAL = 1  # a bug in rompicapo: please report
EXIT_INPUT = 2  # the user's input: the message says what to change
# An output could not be written (standard output or error closed or full, a file that failed
# after the work): one line that says where the result was kept; never "please report".
EXIT_OUTPUT = 1
EXIT_INTERRUPTED = 130  # Ctrl-C, after the best result so far was saved or printed


# The most characters of one word of a message (a number, a quoted line) that are shown, and of
# a whole message; a file name (a word with a "/") may be longer.
QUOTE_CHARS = 60
_NAME_CHARS = 200
_MESSAGE_CHARS = 500


def _clip_word(word: str) -> str:
    limit = _NAME_CHARS if "/" in word[:_NAME_CHARS] else QUOTE_CHARS
    if len(word) <= limit:
        return word
    # the cut word is exactly ``limit`` long, so cutting the message again changes nothing
    return f"{word[: limit - 3]}... ({len(word):,} characters)"


def one_line(text: object) -> str:
    """``text`` as one line: lines joined with "; ", runs of white space made one space, each
    word cut to `QUOTE_CHARS` characters (file names to 200) and the whole to 500.

    ```pycon
    >>> one_line("bad size\\n  " + "9" * 5000)
    'bad size; 999999999999999999999999999999999999999999999999999999999... (5,000 characters)'

    ```"""
    lines = [" ".join(_clip_word(w) for w in s.split()) for s in str(text).splitlines()]
    joined = "; ".join(s for s in lines if s)
    if len(joined) > _MESSAGE_CHARS:
        joined = joined[:_MESSAGE_CHARS] + "..."
    return joined


class RompicapoError(Exception):
    """An error the user can act on. Its message is one line that says what was wrong.

    ```pycon
    >>> try:
    ...     raise InputError("the size must be at least 1, got 0")
    ... except RompicapoError as exc:
    ...     print(exc)
    the size must be at least 1, got 0

    ```"""


class InputError(RompicapoError, ValueError):
    """Malformed or out-of-range input: a size, a value, a file, an output path, an address.

    ``InputError(message, path=..., line=...)`` prefixes the message with ``path:line:`` so the
    one line names the place to fix.

    ```pycon
    >>> exc = InputError("a row has 3 cells, not 4", path="board.txt", line=2)
    >>> str(exc), exc.path, exc.line, isinstance(exc, ValueError)
    ('board.txt:2: a row has 3 cells, not 4', 'board.txt', 2, True)

    ```"""

    def __init__(self, message: str, *, path: object = None, line: int | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        # One line, always: the lines of a multi-line message (a library's error text) are
        # joined with "; ", and what the user gave is quoted by its start only.
        super().__init__(one_line(where + (one_line(message) or "invalid input")))


class InsufficientMemoryError(InputError, MemoryError):
    """The estimated memory need exceeds what this machine has available (refused up front).

    ```pycon
    >>> from rompicapo.common import check_memory
    >>> try:
    ...     check_memory(1e18, "a table of every position")
    ... except InsufficientMemoryError as exc:
    ...     print(isinstance(exc, InputError), isinstance(exc, MemoryError))
    ...     print(exc)
    True True
    a table of every position needs about 1000.0 PB of memory, but only ... is available ...

    ```"""


class NotVerifiable(RompicapoError):
    """``verify()`` cannot check this result (and will not pretend it did).

    ```pycon
    >>> from rompicapo.paths import construct
    >>> result = construct(3, 3)  # the 3x3 board has no path
    >>> try:
    ...     result.verify()
    ... except NotVerifiable as exc:
    ...     print(exc)
    no path to check (the search ended 'impossible')

    ```"""


class InternalError(RompicapoError):
    """rompicapo itself failed: not the user's input. Exit status 1, please report.

    ```pycon
    >>> from rompicapo.common import EXIT_INTERNAL
    >>> exc = InternalError("the kernel returned a path of 9 cells for a board of 10")
    >>> isinstance(exc, InputError), EXIT_INTERNAL
    (False, 1)

    ```"""


class StopRequested(KeyboardInterrupt):
    """Raised by a ``progress`` callback to stop a run the way Ctrl-C does: the run keeps its
    best result so far (a web page's Stop button, a closed tab).

    ```pycon
    >>> from rompicapo.common import Progress
    >>> def stop(event):
    ...     print("stop asked at the", event.kind, "event")
    ...     raise StopRequested
    >>> try:
    ...     Progress(stop, unit="cells")  # a run's progress, as a family starts it
    ... except KeyboardInterrupt as exc:  # what a family catches to keep its result so far
    ...     print(repr(exc))
    stop asked at the start event
    StopRequested()

    ```"""
