"""``rompicapo edges hunt`` and ``rompicapo edges hunt-report``: the long score hunt.

Registered from `rompicapo.cli.edges` (this module has no ``register``, so the CLI's
module discovery does not add it twice); it imports nothing from that module.
"""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli.options import (
    add_run_options,
    mark_paths,
    nonnegative_int,
    positive_int,
    seconds,
    time_left,
)

__all__ = ["add_holdback_options", "register_hunt"]


def add_holdback_options(parser: argparse.ArgumentParser) -> None:
    """``--holdback N`` and ``--holdback-release I`` (`Settings.holdback`, Verhaard's end
    game), for ``edges solve`` and ``edges hunt``."""
    parser.add_argument(
        "--holdback",
        type=nonnegative_int,
        default=0,
        metavar="N",
        help="keep the N inner pieces that fit together most easily for the end of the fill "
        "(Verhaard's end game; default 0: off; with Blackwood's settings on Eternity II it "
        "lowered every score measured, 8 pieces by 21 joints on average)",
    )
    parser.add_argument(
        "--holdback-release",
        type=nonnegative_int,
        default=None,
        metavar="I",
        help="with --holdback: the position of the fill order from which those pieces may be "
        "placed (default: the last three rows' worth of positions)",
    )


def register_hunt(edges_subparsers: argparse._SubParsersAction) -> None:
    """Add ``hunt`` and ``hunt-report`` to ``rompicapo edges``."""
    h = edges_subparsers.add_parser(
        "hunt",
        help="hunt for the best board for hours (restarts + improver, resumable, SQLite)",
        description="Run Blackwood restarts and the improver side by side on all cores (or a "
        "Dask cluster) until stopped or --time, keeping every new best board, verified, in a "
        "SQLite file, with a board file beside it. Rerun on the same file to resume.",
    )
    h.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    h.add_argument(
        "--db",
        default="hunt.sqlite",
        metavar="FILE",
        help="hunt file (SQLite; default hunt.sqlite); the best board goes beside it "
        "(hunt.best.txt)",
    )
    h.add_argument(
        "--clues",
        default=None,
        metavar="FILE|centre|all|none",
        help="pinned pieces (default: centre on Eternity II, none elsewhere)",
    )
    add_run_options(h, time=True, seed=True, jobs=True, scheduler=True, default_seed=0)
    part = h.add_argument_group("portfolio")
    part.add_argument(
        "--no-improve", action="store_true", help="restarts only (to measure what each part earns)"
    )
    part.add_argument("--no-restarts", action="store_true", help="the improver only")
    part.add_argument(
        "--restart-seconds", type=seconds, default=None, metavar="S", help="one restart's length"
    )
    part.add_argument(
        "--improve-seconds", type=seconds, default=None, metavar="S", help="one improver run's"
    )
    part.add_argument(
        "--pool", type=positive_int, default=8, metavar="K", help="elite boards kept (8)"
    )
    add_holdback_options(h)
    h.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    h.set_defaults(handler=_hunt)
    mark_paths(h, inputs=("pieces", "clues"), outputs=("db",))

    r = edges_subparsers.add_parser(
        "hunt-report",
        help="score over time and what each part earned, from a hunt file",
        description="Draw a hunt file's best score over time and the contributions of the "
        "restarts and the improver (matplotlib).",
    )
    r.add_argument("db", metavar="DB", help="hunt file (SQLite)")
    out = r.add_mutually_exclusive_group()
    out.add_argument("--out", metavar="DIR", help="folder for hunt.svg, hunt.png, summary.json")
    out.add_argument("--svg", metavar="FILE", help="write the figure as SVG")
    out.add_argument("--png", metavar="FILE", help="write the figure as PNG")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.set_defaults(handler=_report)
    mark_paths(r, inputs=("db",), outputs=("out", "svg", "png"))


class _LogLines:
    """Where stderr is no terminal (a log file, a batch job), the live line as plain lines:
    one at each new best and one every `LOG_SECONDS` (a terminal gets the progress
    bar, rewritten in place)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = 0.0

    def __call__(self, event) -> None:
        if not self.enabled or event.kind not in ("best", "progress"):
            return
        if event.kind == "progress" and event.elapsed - self.last < LOG_SECONDS:
            return
        self.last = event.elapsed
        c = event.counts
        line = f"{event.elapsed:8.0f} s  best {c.get('best_score', '?')}/{c.get('max_score', '?')}"
        print(f"{line}  {event.message}".rstrip(), file=sys.stderr, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        pass


# Seconds between two plain status lines in a log.
LOG_SECONDS = 60.0


def _hunt(args) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.edges import HuntSettings, hunt
    from rompicapo.edges.blackwood import Settings

    search = None
    if args.holdback or args.holdback_release is not None:
        search = Settings(
            holdback=args.holdback, holdback_release=args.holdback_release, stop_at_complete=False
        )
    settings = HuntSettings(
        restarts=not args.no_restarts,
        improve=not args.no_improve,
        restart_seconds=args.restart_seconds,
        improve_seconds=args.improve_seconds,
        pool_size=args.pool,
        search=search,
    )
    shown = not (args.quiet or args.json)
    printer = ProgressPrinter("hunt", enabled=shown) if sys.stderr.isatty() else _LogLines(shown)
    with printer as progress:
        result = hunt(
            args.pieces,
            args.db,
            clues=args.clues,
            settings=settings,
            time_limit=time_left(args),
            seed=args.seed,
            jobs=args.jobs,
            scheduler=args.scheduler,
            progress=progress,
            allow_duplicates=args.allow_duplicates,
        )
    if args.json:
        print(dumps_json(result.to_dict(), indent=2))
    else:
        sys.stdout.write(result.report())
    return 130 if result.interrupted else 0


def _report(args) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.edges.hunt_report import hunt_report

    result = hunt_report(args.db, out=args.out, svg=args.svg, png=args.png)
    if args.json:
        print(dumps_json(result, indent=2))
    else:
        sys.stdout.write(result["text"])
    return 0
