"""``rompicapo edges study`` and ``rompicapo edges study-report``: the parameter study.

Registered from `rompicapo.cli.edges` (this module has no ``register``, so the CLI's
module discovery does not add it twice); it imports nothing from that module.
"""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli.options import (
    DeprecatedFlag,
    add_run_options,
    int_arg,
    mark_paths,
    nonnegative_int,
)

__all__ = ["register_study"]


def register_study(edges_subparsers: argparse._SubParsersAction) -> None:
    """Add ``study`` and ``study-report`` to ``rompicapo edges``."""
    s = edges_subparsers.add_parser(
        "study",
        help="parameter study of Blackwood's search (resumable, SQLite results)",
        description="Run variants of Blackwood's prioritised colours, quota curve and break "
        "indexes, each job single-threaded for a fixed budget, and store every result in a "
        "SQLite file as it arrives. Rerun the same command to resume: finished jobs are "
        "never run again.",
    )
    s.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    s.add_argument(
        "--db", required=True, metavar="FILE", help="study file (SQLite: .sqlite, .sqlite3, .db)"
    )
    s.add_argument(
        "--clues", default=None, metavar="FILE|centre|none", help="pinned pieces (default: "
        "Eternity II's centre clue on Eternity II, none elsewhere)",
    )  # fmt: skip
    add_run_options(
        s, time=True, nodes=True, limit=True, jobs=True, scheduler=True,
        time_aliases=("--time-limit",), limit_aliases=("--max-jobs",),
        jobs_help="processes (default: all cores; 1 = in this process)",
    )  # fmt: skip
    # --time and --nodes are per job here (the run options' help says "for the whole command");
    # the new help keeps the note of the aliases
    per_job = {
        "time_limit": "seconds per job (default: 10 s per job if neither --time nor --nodes)",
        "node_limit": "nodes per job (reproducible on any machine)",
        "limit": "stop after K new results",
    }
    old_flags: dict[str, list[str]] = {}
    for action in s._actions:
        if isinstance(action, DeprecatedFlag):
            old_flags.setdefault(action.dest, []).extend(action.option_strings)
    for action in s._actions:
        if action.dest in per_job and not isinstance(action, DeprecatedFlag):
            aliases = old_flags.get(action.dest, [])
            note = f" (formerly {', '.join(aliases)})" if aliases else ""
            action.help = per_job[action.dest] + note
    s.add_argument(
        "--seeds", type=nonnegative_int, default=2, metavar="K", help="seeds per variant (2)"
    )
    s.add_argument(
        "--baseline-seeds", type=nonnegative_int, default=10, metavar="K",
        help="seeds for Blackwood's own setting, the reference band (10)",
    )  # fmt: skip
    s.add_argument(
        "--colour-sets", "--color-sets", default="sample:20", metavar="all|sample:N|list:..|none",
        help="prioritised colour sets: every frame colour x inner pair, N of them at random, "
        "the sets listed (list:13-10-16,5-3-8) or none (default sample:20)",
    )  # fmt: skip
    s.add_argument(
        "--curves", type=nonnegative_int, default=20, metavar="N", help="random quota curves (20)"
    )
    s.add_argument(
        "--break-variants", type=nonnegative_int, default=5, metavar="N",
        help="random break-index sets (5)",
    )  # fmt: skip
    s.add_argument(
        "--amplitude", type=float, default=0.2, metavar="X",
        help="quota perturbation: factor 1+-X at each knot of the curve, 0 <= X < 1 (0.2)",
    )  # fmt: skip
    s.add_argument(
        "--level-spread", type=float, default=0.0, metavar="X",
        help="quota curves also scaled as a whole by 1+-X (0: only the knot factors)",
    )  # fmt: skip
    s.add_argument(
        "--break-shift", type=int_arg, default=6, metavar="K",
        help="break index moves, +-K (6)",
    )  # fmt: skip
    s.add_argument(
        "--design-seed", type=int_arg, default=0, metavar="N", help="draws the variants (0)"
    )
    s.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    # --time is per job here, not the whole command's: no watchdog
    s.set_defaults(handler=_study, time_budget=lambda a: None)
    mark_paths(s, inputs=("pieces", "clues"), outputs=("db",))

    r = edges_subparsers.add_parser(
        "study-report",
        help="summary table and plots of a study file",
        description="Write summary.md, variants.csv and PNG plots (colour sets, quota curves, "
        "score distributions, heat map) of a study file.",
    )
    r.add_argument("db", metavar="DB", help="study file (SQLite)")
    r.add_argument(
        "--out", required=True, metavar="DIR", help="folder for the report (made if new)"
    )
    r.add_argument("--json", action="store_true", help="print the headline numbers as JSON")
    r.set_defaults(handler=_report)
    mark_paths(r, inputs=("db",))


def _study(args) -> int:
    from rompicapo.cli.progress import LOG_SECONDS, ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.edges.study import Design, study

    design = Design(
        colour_sets=args.colour_sets,
        curves=args.curves,
        break_variants=args.break_variants,
        seeds=args.seeds,
        baseline_seeds=args.baseline_seeds,
        amplitude=args.amplitude,
        break_shift=args.break_shift,
        design_seed=args.design_seed,
        level_spread=args.level_spread,
    )
    show = not (args.quiet or args.json)
    with ProgressPrinter("study", enabled=show, log_every=LOG_SECONDS) as progress:
        run = study(
            args.pieces,
            args.db,
            clues=args.clues,
            time_limit=args.time_limit,
            node_limit=args.node_limit,
            jobs=args.jobs,
            scheduler=args.scheduler,
            design=design,
            limit=args.limit,
            progress=progress,
            allow_duplicates=args.allow_duplicates,
        )
    if args.json:
        print(dumps_json(run.to_dict(), indent=2))
    else:
        sys.stdout.write(run.report())
    return 130 if run.interrupted and args.limit is None else 0


def _report(args) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.edges.study_report import study_report

    result = study_report(args.db, args.out)
    if args.json:
        print(dumps_json(result.to_dict(), indent=2))
    else:
        sys.stdout.write(result.report())
    sys.stdout.flush()
    return 0
