"""``rompicapo edges study`` and ``rompicapo edges study-report`` (issue 8): the parameter study.

Registered from ``rompicapo/cli/edges.py``; this module has no top-level ``register`` so the CLI's
module discovery does not add it twice.
"""

from __future__ import annotations

import argparse
import sys

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
    s.add_argument("--db", required=True, metavar="FILE", help="study file (SQLite)")
    s.add_argument(
        "--clues", default=None, metavar="FILE|centre|none", help="pinned pieces (default: "
        "Eternity II's centre clue on Eternity II, none elsewhere)",
    )  # fmt: skip
    s.add_argument("--jobs", type=int, default=None, metavar="N", help="processes (default: all)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="run the jobs on this Dask cluster")
    s.add_argument("--time", type=float, default=None, metavar="S", help="seconds per job")
    s.add_argument(
        "--nodes", type=int, default=None, metavar="N",
        help="nodes per job (reproducible on any machine; default: 10 s per job if neither "
        "--time nor --nodes)",
    )  # fmt: skip
    s.add_argument("--seeds", type=int, default=2, metavar="K", help="seeds per variant (2)")
    s.add_argument(
        "--baseline-seeds", type=int, default=10, metavar="K",
        help="seeds for Blackwood's own setting, the reference band (10)",
    )  # fmt: skip
    s.add_argument(
        "--colour-sets", "--color-sets", default="sample:20", metavar="all|sample:N|list:..|none",
        help="prioritised colour sets: every frame colour x inner pair, N of them at random, "
        "the sets listed (list:13-10-16,5-3-8) or none (default sample:20)",
    )  # fmt: skip
    s.add_argument("--curves", type=int, default=20, metavar="N", help="random quota curves (20)")
    s.add_argument(
        "--break-variants", type=int, default=5, metavar="N", help="random break-index sets (5)"
    )
    s.add_argument(
        "--amplitude", type=float, default=0.2, metavar="X",
        help="quota perturbation: factor 1+-X at each knot of the curve (0.2)",
    )  # fmt: skip
    s.add_argument(
        "--level-spread", type=float, default=0.0, metavar="X",
        help="quota curves also scaled as a whole by 1+-X (0: only the knot factors)",
    )  # fmt: skip
    s.add_argument(
        "--break-shift", type=int, default=6, metavar="K", help="break index moves, +-K (6)"
    )
    s.add_argument("--design-seed", type=int, default=0, metavar="N", help="draws the variants (0)")
    s.add_argument(
        "--max-jobs", type=int, default=None, metavar="N", help="stop after N new results"
    )
    s.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    s.add_argument("--json", action="store_true", help="print the run summary as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    s.set_defaults(handler=_study)

    r = edges_subparsers.add_parser(
        "study-report",
        help="summary table and plots of a study file",
        description="Write summary.md, variants.csv and PNG plots (colour sets, quota curves, "
        "score distributions, heat map) of a study file.",
    )
    r.add_argument("db", metavar="DB", help="study file (SQLite)")
    r.add_argument("--out", required=True, metavar="DIR", help="folder for the report")
    r.add_argument("--json", action="store_true", help="print the headline numbers as JSON")
    r.set_defaults(handler=_report)


def _study(args) -> int:
    from rompicapo.cli.edges import _clues, _pieces
    from rompicapo.common import InputError, dumps_json, progress_bar
    from rompicapo.edges.study import Budget, Design, open_study, plan_jobs, run_study

    puzzle = _pieces(args.pieces, args.allow_duplicates)
    clues = _clues(args.clues, puzzle)
    seconds = args.time if (args.time is not None or args.nodes is not None) else 10.0
    budget = Budget(nodes=args.nodes, seconds=seconds)
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
    if args.break_shift < 0:
        raise InputError(f"--break-shift must be at least 0, got {args.break_shift}")
    if not 0 <= args.level_spread < 1:
        raise InputError(f"--level-spread must be in [0, 1), got {args.level_spread}")
    total = len(plan_jobs(puzzle, design, budget, clues))  # validates the design too
    open_study(args.db, puzzle, create=True).close()  # a bad file: one line, before the bar
    with progress_bar(disable=args.quiet or args.json) as bar:
        task = bar.add_task("study", total=total)
        best = {"score": -1}

        def on_result(job: dict, out: dict) -> None:
            best["score"] = max(best["score"], int(out["score"]))
            bar.update(task, advance=1, description=f"study (best score {best['score']})")

        def first(done: int) -> None:
            bar.update(task, completed=done)

        run = run_study(
            args.db,
            puzzle,
            design,
            budget,
            clues=clues,
            jobs=args.jobs,
            scheduler=args.scheduler,
            max_results=args.max_jobs,
            on_result=on_result,
            on_start=first,
        )
    summary = run.summary()
    summary["db"] = args.db
    if args.json:
        print(dumps_json(summary, indent=2))
    else:
        state = "interrupted" if run.interrupted else "done"
        print(
            f"{state}: {run.ran} jobs run now, {run.already_done} found finished, "
            f"{run.remaining} left of {run.planned}; {summary['placements_per_second'] / 1e6:.1f}"
            f" M placements/s over {summary['workers']} workers; results in {args.db}"
        )
        if run.remaining:
            print("rerun the same command to resume (finished jobs are not run again)")
    return 130 if run.interrupted and args.max_jobs is None else 0


def _report(args) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.edges.study import study_report

    out = study_report(args.db, args.out)
    if args.json:
        print(dumps_json(out, indent=2))
    else:
        print(f"{out['jobs']} jobs; report written to {args.out}:")
        for f in out["files"]:
            print(f"  {f}")
    sys.stdout.flush()
    return 0
