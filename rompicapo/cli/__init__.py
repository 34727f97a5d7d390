"""The top floor: ``rompicapo`` parses arguments, calls the public API, prints. No search here.

Each family has its own module in this package (``paths.py``, ``cover.py``, ...) with a
``register(subparsers)`` function that adds its commands; this module finds them all, so a
family's commands live next to each other and families never touch one another's CLI code.
Handlers import the family's public API lazily, so ``rompicapo --help`` stays fast.

Errors a user can act on (:class:`rompicapo.common.RompicapoError`, bad arguments) print one
line on stderr and exit with status 2; Ctrl-C exits with 130 after the handler has saved what it
can.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from rompicapo.common import RompicapoError

__all__ = ["OneLineParser", "build_parser", "main"]


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``rompicapo path: error: ...``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="rompicapo",
        description="Puzzles and games solved by search, every answer checked.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except RompicapoError as exc:
        print(f"rompicapo {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rompicapo: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
