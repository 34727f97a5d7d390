"""The top floor: ``rompicapo`` parses arguments, calls the public API, prints. No search here.

Each family has its own module in this package (``paths.py``, ``cover.py``, ...) with a
``register(subparsers)`` function that adds its commands; this module finds them all, so a
family's commands live next to each other and families never touch one another's CLI code.
Handlers import the family's public API lazily, so ``rompicapo --help`` stays fast. The shared
options come from `rompicapo.cli.options`.

Exit statuses (one meaning each, see `rompicapo.common.errors`):

- 0: done (for searches with a limit, also when the limit stopped them: the output says so);
- 1: a "no" from a command that answers yes or no (``path``: no path; ``verify-path``: the
  file's path is not valid; ``count --ends`` and ``game connect4 bench``: a check failed), said
  on stdout; an output that could not be written (standard output or error closed or full: one
  line "cannot write the output: ..."; a file that failed after the work: one line that says
  where the result was kept instead); or an internal error of rompicapo: one line on stderr and
  "please report", the traceback only with ``--debug`` or ``ROMPICAPO_DEBUG=1``;
- 2: the user's input (a bad argument, file, path or address, an output that would overwrite
  an input): one line that says what to fix, before any work;
- 130: interrupted by Ctrl-C, SIGTERM or SIGHUP (all three alike), after the best result so far
  was printed or saved; or stopped by the watchdog of ``--time`` before any result (one line
  says so).

What the process around a command may do to it is handled here, once for every command: a
closed standard input, output or error; a full or broken output stream; a terminal that cannot
show UTF-8 (the output is written in ASCII instead); stop signals (see
`rompicapo.common.parallel.stop_signals()`), and a watchdog that stops a run which
overruns its ``--time`` by more than a second.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import errno
import importlib
import io
import os
import pkgutil
import sys
import traceback
import unicodedata
from collections.abc import Sequence

# first of rompicapo's modules: its exit handler must be registered before any other's
from rompicapo.cli.process_exit import arm, run_exit_handlers_now
from rompicapo.cli.resource_limits import limit_line
from rompicapo.common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    InternalError,
    RompicapoError,
    compile_budget_note,
    compiled_seconds,
    one_line,
    watch_compilation,
)

__all__ = ["COMMAND_GROUPS", "OneLineParser", "build_parser", "main"]

# `rompicapo --help` lists the commands by family, in the order a newcomer meets them.
COMMAND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("jump-grid paths", ("path", "count", "verify-path", "path-at", "step-of")),
    ("exact cover", ("cover", "sudoku", "queens", "polyomino")),
    ("two-player games", ("game",)),
    ("edge matching", ("edges",)),
    ("playground", ("serve",)),
    ("set-up", ("warm-up",)),
)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``rompicapo path: error: ...``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_INPUT, f"{self.prog}: error: {one_line(message)}\n")


class _RootParser(OneLineParser):
    """The root parser: its help lists the commands grouped by family."""

    def format_help(self) -> str:
        helps: dict[str, str] = {}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    helps[choice.dest] = choice.help or ""
        lines = [self.format_usage().rstrip(), "", self.description or "", ""]
        width = max((len(name) for name in helps), default=8) + 2
        listed: set[str] = set()
        for title, names in COMMAND_GROUPS:
            present = [n for n in names if n in helps]
            if not present:
                continue
            lines.append(f"{title}:")
            lines += [f"  {n:<{width}}{helps[n]}" for n in present]
            lines.append("")
            listed.update(present)
        others = sorted(set(helps) - listed)
        if others:
            lines.append("other:")
            lines += [f"  {n:<{width}}{helps[n]}" for n in others]
            lines.append("")
        lines += [
            "options:",
            "  -h, --help  show this help message and exit",
            "  --version   print rompicapo's version and exit",
            "  --debug     show the traceback of an internal error (also ROMPICAPO_DEBUG=1)",
            "",
            "'rompicapo COMMAND --help' describes a command. Exit status: 0 done; 1 a 'no'",
            "from a command that answers yes or no (no path, a path file or check that fails;",
            "stdout says which) or an internal error (stderr says 'please report'); 2 a mistake",
            "in the input; 130 interrupted.",
        ]
        return "\n".join(lines) + "\n"


def _version() -> str:
    # one version in one place: the build reads the same attribute (pyproject's dynamic version)
    from rompicapo import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = _RootParser(
        prog="rompicapo",
        description="Puzzles and games solved by search, every answer checked.",
    )
    parser.add_argument("--version", action="version", version=f"rompicapo {_version()}")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def _debug_wanted(argv: Sequence[str]) -> bool:
    return "--debug" in argv or os.environ.get("ROMPICAPO_DEBUG", "") not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (see the module docstring)."""
    # the command line itself (not a call of main() from a long-lived process) pays its start-up
    charge_start_up = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = _debug_wanted(argv)
    # --debug is accepted anywhere on the line, not only before the command.
    argv = [a for a in argv if a != "--debug"]
    _occupy_closed_descriptors()
    if sys.stderr is None:  # started with standard error closed (2>&-): nothing to say there
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's)
    if sys.stdout is None:  # started with standard output closed (>&-): the answer would vanish
        _say("rompicapo: cannot write the output: standard output is closed")
        return EXIT_OUTPUT
    streams = (sys.stdout, sys.stderr)
    _ascii_fallback()
    sys.stdout, sys.stderr = _Guarded(sys.stdout, "stdout"), _Guarded(sys.stderr, "stderr")
    name = "rompicapo"
    try:
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
        except SystemExit:  # --help, --version, argparse's refusals: their text must get out
            _flush()
            raise
        name = f"rompicapo {args.command}"
        # one line on stderr before the first compilation of a kernel ("compiling the Sudoku
        # solver, once: about 2 s"); --quiet keeps the count without the line
        watch_compilation(None if getattr(args, "quiet", False) else sys.stderr)
        given = _time_budget(args)  # the limit as the user gave it, for the messages
        if charge_start_up:
            _count_start_up(args)
        status = _run(name, args, debug, given, stops := [])
    except OutputError as exc:
        status = _output_failed(name, exc)
        stops = []
    finally:
        watch_compilation(None)  # the guarded stream ends with this command
        _restore(streams)
    if charge_start_up:
        _end_process(status, stopped=bool(stops))
    return status


def _end_process(status: int, *, stopped: bool) -> None:
    """Make the command line's process end with ``status`` as soon as the interpreter has
    joined its threads and run its exit handlers, skipping the teardown of every module (see
    `rompicapo.cli.process_exit`). A run that was stopped does not wait for its threads: a
    kernel running in one would keep the process for as long as it runs (what it was doing is
    not wanted any more, and files it writes are written as FILE.part or a temporary name);
    its exit handlers run now and end the process."""
    arm(status)
    if stopped:
        run_exit_handlers_now()


def _run(
    name: str, args: argparse.Namespace, debug: bool, given: float | None, stops: list[str]
) -> int:
    """Run the command's handler under the stop signals; ``stops`` receives what stopped the
    run, if anything did."""
    import signal
    import time

    from rompicapo.common.parallel import STOP_SIGNALS, check_scheduler, stop_signals

    budget = _time_budget(args)
    now = time.monotonic()
    deadline = None if budget is None else now + budget
    if budget is not None and getattr(args, "time_limit", None) is not None:
        # the instant --time ends, for time_left(): what the handler spends loading the
        # family's modules comes off what its API call is given
        args.time_deadline = now + args.time_limit
    # a command whose work is one kernel call (it cannot stop between calls) keeps the default
    # of SIGTERM and SIGHUP: end at once; waiting for the call could take minutes
    signals = STOP_SIGNALS if getattr(args, "stops_between_calls", True) else (signal.SIGINT,)
    try:
        if isinstance(getattr(args, "scheduler", None), str):
            # asked before the clock of --time starts: an address where nothing answers is
            # one line, not "stopped by the time limit"
            check_scheduler(args.scheduler)
        with stop_signals(deadline, signals=signals) as stop:
            try:
                _check_paths(args)
                compiled_before = compiled_seconds()
                status = int(args.handler(args) or 0)
                note = compile_budget_note(
                    getattr(args, "time_limit", None), compiled_seconds() - compiled_before
                )
                if note is not None and not getattr(args, "quiet", False):
                    _say(f"{name}: {note}")
                _flush()
                if stop.reason is not None:  # stopped, and the handler kept what it had
                    stops.append(stop.reason)
                return status
            except KeyboardInterrupt:
                stops.append(stop.reason or "SIGINT")
                if stop.reason == "time":
                    _say(f"{name}: stopped by the time limit ({given:g} s) before a result")
                else:
                    _say(f"{name}: interrupted")
                return EXIT_INTERRUPTED
    except OutputError:
        raise
    except InternalError as exc:
        return _internal(name, exc, debug)
    except RompicapoError as exc:
        _say(f"{name}: error: {one_line(exc)}")
        return EXIT_INPUT
    except OSError as exc:
        if (line := limit_line(exc, _outputs(args))) is not None:
            _say(f"{name}: {one_line(line)}")
            return EXIT_OUTPUT
        if exc.errno not in _NAME_ERRORS:
            return _internal(name, exc, debug)
        # a name the system refuses (too long, a loop of links, a file used as a folder)
        # reached a call that did not expect it: still the user's name, not a bug
        _say(f"{name}: error: {one_line(f'{exc.filename!s}: {exc.strerror}')}")
        return EXIT_INPUT
    except Exception as exc:  # a bug: one line, "please report", the traceback on request
        if (line := limit_line(exc, _outputs(args))) is not None:  # SQLite's I/O errors
            _say(f"{name}: {one_line(line)}")
            return EXIT_OUTPUT
        if _interrupted_inside(exc):
            _say(f"{name}: interrupted")
            return EXIT_INTERRUPTED
        return _internal(name, exc, debug)


_NAME_ERRORS = (errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR)


def _interrupted_inside(exc: BaseException) -> bool:
    """A SystemError that a C extension raised because a Ctrl-C came while it ran Python code
    ("returned a result with an exception set"): an interruption, not a bug."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, KeyboardInterrupt):
            return isinstance(exc, SystemError)
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def _time_budget(args: argparse.Namespace) -> float | None:
    """Seconds the whole command may take by its ``--time`` (None: no limit, or a ``--time``
    that is not the whole command's, as ``edges study``'s per-job seconds)."""
    budget = getattr(args, "time_budget", None)
    if budget is not None:
        return budget(args)
    return getattr(args, "time_limit", None)


def _outputs(args: argparse.Namespace) -> list[str]:
    """The files the command writes (its ``--out``, ``--checkpoint``, ``--db``...)."""
    found = []
    for dest, _, role in getattr(args, "path_args", ()):
        value = getattr(args, dest, None)
        if role == "out":
            found += [str(v) for v in (value if isinstance(value, list) else [value]) if v]
    return found


def _check_paths(args: argparse.Namespace) -> None:
    """No output of the command is one of its inputs or another of its outputs."""
    from rompicapo.common import check_distinct_paths

    named: dict[str, list[tuple[str, object]]] = {"in": [], "out": []}
    for dest, label, role in getattr(args, "path_args", ()):
        value = getattr(args, dest, None)
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                named[role].append((label, one))
    check_distinct_paths(named["in"], named["out"])


# --------------------------------------------------------------------------------------------
# The process's streams
# --------------------------------------------------------------------------------------------


class OutputError(Exception):
    """Writing standard output or standard error failed (a full device, a closed stream)."""

    def __init__(self, stream: str, error: OSError) -> None:
        super().__init__(f"{stream}: {error.strerror or error}")
        self.stream = stream
        self.error = error


class _Guarded:
    """A text stream whose write and flush failures are `OutputError` (not an OSError
    a family could take for a file of its own); the first write to standard output tells the
    watchdog of ``--time`` that the command is printing its result."""

    def __init__(self, stream, name: str) -> None:
        self._stream = stream
        self._name = name

    def write(self, text: str) -> int:
        if self._name == "stdout":
            from rompicapo.common.parallel import output_begins

            output_begins()
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(self._name, exc) from None

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(self._name, exc) from None

    def __getattr__(self, attr: str):
        return getattr(self._stream, attr)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def _restore(streams) -> None:
    """Put back the streams main() found; any output still buffered is written or, when its
    stream fails, dropped into /dev/null (Python would print "Exception ignored" at exit)."""
    for stream in streams:
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            _to_devnull(stream)
    sys.stdout, sys.stderr = streams


def _to_devnull(stream) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def _say(line: str) -> None:
    """One line on standard error, if it can be written at all."""
    stream = sys.stderr
    if stream is None:
        return
    target = getattr(stream, "_stream", stream)
    try:
        target.write(line + "\n")
        target.flush()
    except (OSError, ValueError):
        _to_devnull(target)


def _output_failed(name: str, exc: OutputError) -> int:
    """One line for a failed standard output or error (none for a reader that left a pipe)."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "_name", None) == exc.stream:
            _to_devnull(getattr(stream, "_stream", stream))
    if exc.error.errno == errno.EPIPE:
        # `rompicapo ... | head`: the reader has seen enough; nothing to say
        return 0
    if exc.stream == "stdout":
        _say(f"{name}: cannot write the output: {exc.error.strerror or exc.error}")
    return EXIT_OUTPUT


def _occupy_closed_descriptors() -> None:
    """Descriptors 0, 1 and 2 that the process was started without get /dev/null, so that no
    file this command opens takes their number (and receives what a worker prints)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


# Characters of rompicapo's messages and of names with no ASCII letter of their own; others
# lose their accents (NFKD) or become "?".
_ASCII = {"×": "x", "±": "+-", "°": " deg", "§": "S.", "—": "--", "–": "-", "…": "...",
          "’": "'", "‘": "'", "“": '"', "”": '"', "→": "->", "≤": "<=", "≥": ">="}  # fmt: skip


def _to_ascii(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start : exc.end]:
        plain = _ASCII.get(ch)
        if plain is None:
            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"
        out.append(plain)
    return "".join(out), exc.end


codecs.register_error("rompicapo-ascii", _to_ascii)


def _ascii_fallback() -> None:
    """Standard output and error that cannot encode rompicapo's text (an ASCII terminal,
    ``PYTHONIOENCODING=ascii``, ``LANG=C`` on an old Python) write ASCII look-alikes
    instead of failing with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "é×±—".encode(encoding)
            continue
        except (UnicodeEncodeError, LookupError):
            pass
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            stream.reconfigure(errors="rompicapo-ascii")


def _count_start_up(args: argparse.Namespace) -> None:
    """``--time S`` is wall clock for the whole command: the seconds this process spent
    starting (Python, numpy, numba: about 1 s, several on a loaded machine) come off the
    limit the API is given."""
    limit = getattr(args, "time_limit", None)
    if limit is None:
        return
    import time

    import psutil

    age = max(0.0, time.time() - psutil.Process().create_time())
    args.time_limit = max(0.1, limit - age)


def _internal(name: str, exc: BaseException, debug: bool) -> int:
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    summary = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    hint = "" if debug else " (run with --debug for the traceback)"
    print(
        f"{name}: internal error: {summary}; please report it{hint}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
