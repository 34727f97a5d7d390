"""The error hierarchy: what went wrong, and whose move it is.

- :class:`InputError` (and every other :class:`RompicapoError` but :class:`InternalError`):
  something the user can fix: a size, a value, a file, an output path, a scheduler address.
  The message is one line that talks about parameters, not CLI flags, and names the file and
  line where there is one. The CLI prints it and exits with status 2.
- :class:`InternalError`: the solver itself failed (a bug). The CLI prints one line and "please
  report", exits with status 1, and shows the traceback only with ``--debug`` or
  ``ROMPICAPO_DEBUG=1``.
- :class:`NotVerifiable`: ``verify()`` was asked to check an answer it cannot check (no answer,
  a depth-limited search, a position too large to re-solve independently). It is never a
  silent True.
"""

from __future__ import annotations

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "InputError",
    "InsufficientMemoryError",
    "InternalError",
    "NotVerifiable",
    "RompicapoError",
    "StopRequested",
]

# Exit statuses of the CLI, one meaning each.
EXIT_INTERNAL = 1  # a bug in rompicapo: please report
EXIT_INPUT = 2  # the user's input: the message says what to change
EXIT_INTERRUPTED = 130  # Ctrl-C, after the best result so far was saved or printed


class RompicapoError(Exception):
    """An error the user can act on. Its message is one line that says what was wrong."""


class InputError(RompicapoError, ValueError):
    """Malformed or out-of-range input: a size, a value, a file, an output path, an address.

    ``InputError(message, path=..., line=...)`` prefixes the message with ``path:line:`` so the
    one line names the place to fix.
    """

    def __init__(self, message: str, *, path: object = None, line: int | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        # One line, always: the lines of a multi-line message (a library's error text) are
        # joined with "; ".
        text = "; ".join(s.strip() for s in str(message).splitlines() if s.strip())
        super().__init__(where + (text or "invalid input"))


class InsufficientMemoryError(InputError, MemoryError):
    """The estimated memory need exceeds what this machine has available (refused up front)."""


class NotVerifiable(RompicapoError):
    """``verify()`` cannot check this result (and will not pretend it did)."""


class InternalError(RompicapoError):
    """rompicapo itself failed: not the user's input. Exit status 1, please report."""


class StopRequested(KeyboardInterrupt):
    """Raised by a ``progress`` callback to stop a run the way Ctrl-C does: the run keeps its
    best result so far (a web page's Stop button, a closed tab)."""
