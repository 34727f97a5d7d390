"""Running the documentation's console examples: ``$ rompicapo ...`` and what it prints.

A fenced ``console`` block in the README or a docs page is an example: each line starting with
``$ rompicapo`` is run in this process (the CLI's own ``main``) from the repository's root, and
the lines after it, up to the next ``$``, must match what it printed (stdout, then stderr).
In the expected text ``...`` matches anything (as doctest's ELLIPSIS does), and runs of spaces
compare equal, so timings and long tables can be elided. The exit status must be 0 unless the
command line ends with ``# exit N``.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass

__all__ = ["ConsoleCommand", "check_console_block", "parse_console_block"]


@dataclass
class ConsoleCommand:
    argv: list[str]
    expected: str
    exit_status: int = 0


def parse_console_block(text: str) -> list[ConsoleCommand]:
    """The ``$ rompicapo`` commands of a console block with their expected output."""
    commands: list[ConsoleCommand] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            command = line[2:]
            status = 0
            m = re.search(r"#\s*exit\s+(\d+)\s*$", command)
            if m:
                status = int(m.group(1))
                command = command[: m.start()]
            words = shlex.split(command, comments=True)
            if not words or words[0] != "rompicapo":
                raise ValueError(f"a console example runs rompicapo only, not {command!r}")
            commands.append(ConsoleCommand(words[1:], "", status))
        elif commands:
            commands[-1].expected += line + "\n"
    return commands


def _pattern(expected: str) -> re.Pattern[str]:
    # white space is folded to one space on both sides; "..." matches anything, spaces included
    parts = [re.escape(" ".join(chunk.split())) for chunk in expected.split("...")]
    return re.compile(r" ?(?:.*?) ?".join(parts) + r"\Z", re.S)


def _normalise(text: str) -> str:
    return " ".join(text.split())


def check_console_block(text: str) -> None:
    """Run every command of ``text`` and raise AssertionError on the first mismatch."""
    from rompicapo.cli import main
    from rompicapo.common import is_compile_notice

    for command in parse_console_block(text):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(command.argv)
            except SystemExit as exc:
                status = int(exc.code or 0)
        # the one-off compilation notices depend on the cache, not on the example
        err_text = "".join(
            line for line in err.getvalue().splitlines(True) if not is_compile_notice(line)
        )
        printed = out.getvalue() + err_text
        label = "rompicapo " + " ".join(command.argv)
        if status != command.exit_status:
            raise AssertionError(
                f"{label}: exit {status}, expected {command.exit_status}\n{printed}"
            )
        if not _pattern(command.expected).match(_normalise(printed)):
            raise AssertionError(f"{label} printed:\n{printed}\nexpected:\n{command.expected}")
