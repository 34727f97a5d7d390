"""The CLI reference, generated from the argparse parsers themselves so it cannot drift.

``python -m rompicapo.cli.reference > docs/reference/cli.md`` rewrites the page; a test fails
when the page in the repository differs from what this prints.
"""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli import COMMAND_GROUPS, build_parser

__all__ = ["cli_reference"]

HEADER = """# CLI reference

Generated from the command's own parsers by `python -m rompicapo.cli.reference`; a test fails
when this page is stale. Every command also answers `--help`.

Exit statuses: 0 done; 1 a "no" from a command that answers yes or no (no path found, a path
file or a check that fails: stdout says which) or an internal error (one line on stderr says
"please report"); 2 a mistake in the input (one line on stderr says what to change); 130
interrupted (the best result so far was printed or saved).
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _section(name: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    # A fixed width keeps the text identical on every terminal.
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=100)
    lines = [f"{'#' * level} `{name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for child_name, child in _subparsers(parser).items():
        lines += _section(f"{name} {child_name}", child, min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """The markdown page: commands in the order of ``rompicapo --help``'s groups."""
    root = build_parser()
    commands = _subparsers(root)
    lines = [HEADER]
    listed: set[str] = set()
    for title, names in COMMAND_GROUPS:
        present = [n for n in names if n in commands]
        if not present:
            continue
        lines += [f"## {title[0].upper()}{title[1:]}", ""]
        for name in present:
            lines += _section(f"rompicapo {name}", commands[name], 3)
            listed.add(name)
    others = [n for n in commands if n not in listed]
    if others:
        lines += ["## Other commands", ""]
        for name in others:
            lines += _section(f"rompicapo {name}", commands[name], 3)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(cli_reference())
