"""The top floor: ``rompicapo`` parses arguments, calls the public API, prints. No search here.

Each family has its own module in this package (``paths.py``, ``cover.py``, ...) with a
``register(subparsers)`` function that adds its commands; this module finds them all, so a
family's commands live next to each other and families never touch one another's CLI code.
Handlers import the family's public API lazily, so ``rompicapo --help`` stays fast. The shared
options come from :mod:`rompicapo.cli.options`.

Exit statuses (one meaning each, see :mod:`rompicapo.common.errors`):

- 0: done (for searches with a limit, also when the limit stopped them: the output says so);
- 1: a "no" from a command that answers yes or no (``path``: no path; ``verify-path``: the
  file's path is not valid; ``count --ends`` and ``game connect4 bench``: a check failed), said
  on stdout; or an internal error of rompicapo: one line on stderr and "please report", the
  traceback only with ``--debug`` or ``ROMPICAPO_DEBUG=1``;
- 2: the user's input (a bad argument, file, path or address): one line that says what to fix;
- 130: interrupted by Ctrl-C, after the best result so far was printed or saved.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from collections.abc import Sequence

from rompicapo.common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    InternalError,
    RompicapoError,
    compile_budget_note,
    compiled_seconds,
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
        self.exit(EXIT_INPUT, f"{self.prog}: error: {' '.join(message.split())}\n")


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
    parser = build_parser()
    args = parser.parse_args(argv)
    name = f"rompicapo {args.command}"
    quiet = bool(getattr(args, "quiet", False))
    time_limit = getattr(args, "time_limit", None)
    # one line on stderr before the first compilation of a kernel ("compiling the Sudoku
    # solver, once: about 15 s"); --quiet keeps the count without the line
    watch_compilation(None if quiet else sys.stderr)
    compiled_before = compiled_seconds()
    if charge_start_up:
        _count_start_up(args)
    try:
        status = int(args.handler(args) or 0)
        note = compile_budget_note(time_limit, compiled_seconds() - compiled_before)
        if note is not None and not quiet:
            print(f"{name}: {note}", file=sys.stderr)
        return status
    except InternalError as exc:
        return _internal(name, exc, debug)
    except RompicapoError as exc:
        print(f"{name}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `rompicapo ... | head`: the reader left; nothing to say.
        sys.stderr.close()
        return 0
    except Exception as exc:  # a bug: one line, "please report", the traceback on request
        return _internal(name, exc, debug)


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
