"""Every command of the CLI, for the tests that look at all of them (help texts, flag names)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator


def commands(
    parser: argparse.ArgumentParser, name: str = "rompicapo"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``(command line, parser)`` for ``parser`` and every subcommand below it, depth first."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child_name, child in action.choices.items():
                yield from commands(child, f"{name} {child_name}")
