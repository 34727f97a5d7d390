"""The shared options, added the same way to every command, and their translation to the API.

``add_run_options(parser, time=True, nodes=True, ...)`` adds the run contract's flags:

- **``--time S``**: API keyword: ``time_limit``; meaning: wall-clock seconds for the whole command
- **``--nodes N``**: API keyword: ``node_limit``; meaning: the most nodes to search (the family's
  unit)
- **``--limit K``**: API keyword: ``limit``; meaning: the most solutions to find or list
- **``--seed N``**: API keyword: ``seed``; meaning: any integer, negative included
- **``--jobs N``**: API keyword: ``jobs``; meaning: workers (default: all cores; 1 = in this
  process)
- **``--scheduler``**: API keyword: ``scheduler``; meaning: a Dask scheduler address
- **``--json``**: meaning: print ``result.to_dict()`` as JSON
- **``--quiet``**: meaning: no progress, no report lines on stderr

Older spellings stay as aliases (``--time-limit``, ``--max-nodes``, ``--list``, ...): a flag
that an earlier release documented keeps working, as a `DeprecatedFlag` (hidden from
``--help``, parsed into the new flag's value, one line on stderr that names the new flag).

`mark_paths()` says which arguments of a command are files it reads and writes: before any
work the CLI compares every output a command line names with its inputs and its other outputs
(symbolic links followed) and refuses a clash in one line, whatever the command.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

__all__ = [
    "DeprecatedFlag",
    "add_deprecated_flag",
    "add_run_options",
    "int_arg",
    "mark_paths",
    "nonnegative_int",
    "positive_int",
    "run_kwargs",
    "seconds",
    "time_left",
]


def mark_paths(
    parser: argparse.ArgumentParser,
    inputs: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (),
) -> None:
    """Say which of ``parser``'s arguments (by ``dest``) name files the command reads
    (``inputs``) and files it writes (``outputs``, also a file both read and written, as a
    checkpoint or a study database). Before any work the CLI refuses an output that is one
    of the inputs or another output; a value that is no file (``eternity2``, a URL, ``-``,
    a drawing) matches nothing."""
    labels = {
        a.dest: (a.option_strings[0] if a.option_strings else a.dest) for a in parser._actions
    }
    unknown = [d for d in (*inputs, *outputs) if d not in labels]
    if unknown:
        raise ValueError(f"{parser.prog}: no argument {unknown}")
    parser.set_defaults(
        path_args=tuple((dest, labels[dest], "in") for dest in inputs)
        + tuple((dest, labels[dest], "out") for dest in outputs)
    )


def _int(text: str) -> int:
    from rompicapo.common import MAX_DIGITS

    digits = text.strip().replace("_", "")
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(
            f"not an integer of at most {MAX_DIGITS} digits: {text[:40]!r}...({len(text):,} "
            "characters)"
        )
    try:
        return int(digits, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text[:40]!r}") from None


def int_arg(text: str) -> int:
    """Any integer (negative ones included), e.g. a seed."""
    return _int(text)


def positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    if value > 10**18:
        raise argparse.ArgumentTypeError(f"must be at most 10**18, got {text[:30]}")
    return value


def nonnegative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    if value > 10**18:
        raise argparse.ArgumentTypeError(f"must be at most 10**18, got {text[:30]}")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def add_run_options(
    parser: argparse.ArgumentParser,
    *,
    time: bool = True,
    nodes: bool = False,
    limit: bool = False,
    seed: bool = False,
    jobs: bool = True,
    scheduler: bool = False,
    output: bool = True,
    time_aliases: tuple[str, ...] = (),
    node_aliases: tuple[str, ...] = (),
    limit_aliases: tuple[str, ...] = (),
    default_time: float | None = None,
    default_seed: int | None = None,
    default_limit: int | None = None,
    jobs_help: str = "workers (default: all cores; 1 = run in this process)",
) -> None:
    """Add the run contract's flags to ``parser`` (see the module's table).

    ``*_aliases`` are older spellings that keep working, each a `DeprecatedFlag` (hidden
    from --help's list of flags, named in the option's help, a note on stderr when used).
    """
    group = parser.add_argument_group("run options")
    if time:
        _with_aliases(
            group,
            "--time",
            time_aliases,
            dest="time_limit",
            type=seconds,
            default=default_time,
            metavar="S",
            help="stop after S seconds of wall clock for the whole command, keeping the best "
            + ("so far" if default_time is None else f"so far (default {default_time:g})"),
        )
    if nodes:
        _with_aliases(
            group,
            "--nodes",
            node_aliases,
            dest="node_limit",
            type=positive_int,
            default=None,
            metavar="N",
            help="stop after N nodes of search",
        )
    if limit:
        _with_aliases(
            group,
            "--limit",
            limit_aliases,
            dest="limit",
            type=positive_int,
            default=default_limit,
            metavar="K",
            help="stop after K solutions",
        )
    if seed:
        group.add_argument(
            "--seed",
            type=int_arg,
            default=default_seed,
            metavar="N",
            help="random seed, any integer"
            + ("" if default_seed is None else f" (default {default_seed})"),
        )
    if jobs:
        group.add_argument("--jobs", type=positive_int, default=None, metavar="N", help=jobs_help)
    if scheduler:
        group.add_argument(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="run the jobs on this Dask scheduler (tcp://host:port)",
        )
    if output:
        group.add_argument(
            "--json", action="store_true", help="print the result as one JSON object"
        )
        group.add_argument(
            "--quiet", action="store_true", help="no progress display and no report on stderr"
        )


def _with_aliases(group, name: str, aliases: tuple[str, ...], *, help: str, **kw) -> None:
    """One flag and its older spellings (each a `DeprecatedFlag`); the help names them."""
    extra = f" (formerly {', '.join(aliases)})" if aliases else ""
    group.add_argument(name, help=help + extra, **kw)
    for old in aliases:
        add_deprecated_flag(group, old, name, dest=kw["dest"], type=kw.get("type"),
                            metavar=kw.get("metavar"))  # fmt: skip


class DeprecatedFlag(argparse.Action):
    """A flag of an earlier release: parsed as before into ``dest`` (the new flag's), hidden from
    ``--help``, and one line on stderr says what to write instead. Made by
    `add_deprecated_flag()`; the test of one name per idea knows an old flag by this class.

    ``instead``: what the line says after "is deprecated; " (``"use --limit"``). ``nargs=0``
    flags store ``const``.
    """

    def __init__(self, option_strings, dest, *, instead: str, **kw) -> None:
        self.instead = instead
        kw.setdefault("default", argparse.SUPPRESS)  # the new flag's default stands
        super().__init__(option_strings, dest, **kw)

    @property
    def help(self) -> str:
        return argparse.SUPPRESS

    @help.setter
    def help(self, value: str | None) -> None:
        """Ignored: an old flag stays out of --help whatever a command sets for its dest."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(
            f"{parser.prog}: warning: {option_string} is deprecated; {self.instead}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def add_deprecated_flag(
    parser, old: str, new: str | None, *, dest: str, instead: str | None = None, **kw
) -> None:
    """Keep ``old`` working as a `DeprecatedFlag` that stores into ``dest`` (``new``'s
    destination); ``instead`` replaces the default advice "use NEW". ``kw`` as for
    ``add_argument`` (``type``, ``metavar``; ``nargs=0, const=True`` for a switch)."""
    kw = {k: v for k, v in kw.items() if v is not None}
    parser.add_argument(
        old, action=DeprecatedFlag, dest=dest, instead=instead or f"use {new}", **kw
    )


def time_left(args: argparse.Namespace) -> float | None:
    """What is left of the command's ``--time`` now, for the one API call: the seconds spent
    since the command started (Python's start-up, loading the family's modules) are not given
    twice. None without a limit."""
    import time

    limit = getattr(args, "time_limit", None)
    deadline = getattr(args, "time_deadline", None)
    if limit is None or deadline is None:
        return limit
    return max(0.01, deadline - time.monotonic())


def run_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The API keywords of the run contract that ``args`` carries (absent flags are left out)."""
    out: dict[str, Any] = {}
    for name in ("time_limit", "node_limit", "limit", "seed", "jobs", "scheduler"):
        if hasattr(args, name):
            out[name] = getattr(args, name)
    if "time_limit" in out:
        out["time_limit"] = time_left(args)
    return out
