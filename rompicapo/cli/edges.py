"""``rompicapo edges ...``: edge-matching puzzles (Eternity II and any R x C set).

Commands: ``solve`` (Blackwood's search on all cores, ``--polish S`` to improve its board),
``improve`` (large-neighbourhood search on a given board), ``score``, ``generate``,
``render``, ``url``, and the parameter study's ``study`` and ``study-report`` (registered
from `rompicapo.cli.edges_study`). PIECES is a pieces file or ``eternity2`` (the shipped
official set); BOARD is a board file or an e2.bucas.name URL.

Each handler parses, makes one call of `rompicapo.edges` and prints ``report()`` (or
``to_dict()`` with ``--json``); progress on stderr is the common ProgressPrinter (best score,
deepest depth, placements per second).
"""

from __future__ import annotations

import argparse
import re
import sys

from rompicapo.cli.options import (
    add_deprecated_flag,
    add_run_options,
    int_arg,
    mark_paths,
    positive_int,
    seconds,
    time_left,
)
from rompicapo.cli.progress import LOG_SECONDS, ProgressPrinter
from rompicapo.common import (
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    InputError,
    check_int,
    dumps_json,
)

__all__ = ["LiveLine", "printer", "register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "edges",
        help="edge-matching puzzles: Eternity II, Blackwood's search",
        description="Edge-matching puzzles: Blackwood's search, scores, generator, pictures.",
    )
    sub = p.add_subparsers(dest="edges_command", metavar="COMMAND", parser_class=type(p))
    sub.required = True
    from rompicapo.cli.edges_hunt import register_hunt
    from rompicapo.cli.edges_study import register_study

    register_study(sub)
    register_hunt(sub)
    _add_solve(sub)
    _add_improve(sub)
    _add_small_commands(sub)


def _add_solve(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("solve", help="search for the best board (Blackwood's algorithm)")
    s.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    s.add_argument(
        "--clues",
        default=None,
        metavar="FILE|centre|all|none",
        help="pinned pieces: a clues file or Eternity II's centre/all (default: centre on "
        "Eternity II, none elsewhere)",
    )
    add_run_options(
        s, time=True, nodes=True, seed=True, jobs=True, scheduler=True, default_time=60.0,
        default_seed=0, time_aliases=("--time-limit",), node_aliases=("--max-nodes",),
        jobs_help="processes (default: all cores; more are capped to the cores; 1 = in this "
        "process)",
    )  # fmt: skip
    s.add_argument("--out", metavar="BOARD", help="write the best board here (.txt)")
    s.add_argument("--svg", metavar="F", help="picture of the best board (.svg)")
    s.add_argument("--png", metavar="F", help="picture of the best board (.png)")
    s.add_argument("--heat", metavar="F", help="heat map of placements per cell (.svg or .png)")
    s.add_argument(
        "--order",
        default="auto",
        choices=["auto", "blackwood", "rows", "frame", "diagonal", "portfolio"],
        help="fill order (default auto: Blackwood's on Eternity II, a portfolio elsewhere)",
    )
    s.add_argument(
        "--quota",
        default="auto",
        choices=["auto", "blackwood", "scaled", "none"],
        help="heuristic-side quota curve (default auto: Blackwood's on Eternity II)",
    )
    s.add_argument(
        "--breaks",
        default=None,
        help="break positions: auto (the default), blackwood, bucas, clues, score, scaled, none "
        "or indexes '201,206,...' (score: Blackwood's and eight more near the end, for the "
        "best score on Eternity II; use it with --no-stop-at-complete, or --best-score)",
    )
    s.add_argument(
        "--stop-at-complete",
        dest="stop_at_complete",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a complete board with breaks ends the search (the default, Blackwood's rule); "
        "--no-stop-at-complete searches on for complete boards with fewer breaks",
    )
    s.add_argument(
        "--best-score",
        dest="best_score",
        action="store_true",
        help="search for the best score rather than for a complete board with few breaks, as "
        "'edges hunt' does: the same as --breaks score --no-stop-at-complete",
    )
    s.add_argument(
        "--quota-scale",
        type=float,
        default=None,
        metavar="X",
        help="multiply the quota by X, 0..10 (default 1, 0.9 with all five clues)",
    )
    s.add_argument(
        "--heuristic", metavar="C,C,C", help="prioritised colours (default: Blackwood's)"
    )
    s.add_argument(
        "--restart-nodes",
        dest="restart_nodes",
        type=positive_int,
        default=None,
        metavar="N",
        help="restart with new tie-breaks every N nodes (default: Blackwood's 5e10; formerly "
        "--node-cap)",
    )
    add_deprecated_flag(s, "--node-cap", "--restart-nodes", dest="restart_nodes",
                        type=positive_int, metavar="N")  # fmt: skip
    from rompicapo.cli.edges_hunt import add_holdback_options

    add_holdback_options(s)
    s.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    s.add_argument(
        "--polish",
        type=seconds,
        default=None,
        metavar="S",
        help="then improve the best board for S seconds (large-neighbourhood search)",
    )
    s.set_defaults(handler=_solve, time_budget=lambda a: a.time_limit + (a.polish or 0.0))
    mark_paths(s, inputs=("pieces", "clues"), outputs=("out", "svg", "png", "heat"))


def _add_improve(sub: argparse._SubParsersAction) -> None:
    im = sub.add_parser(
        "improve", help="polish a board: large-neighbourhood search (never lowers the score)"
    )
    im.add_argument("board", metavar="BOARD", help="board file (complete or partial) or URL")
    im.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    add_run_options(
        im, time=True, nodes=True, seed=True, jobs=False, default_time=30.0, default_seed=0,
        time_aliases=("--time-limit",), node_aliases=("--max-iterations",),
    )  # fmt: skip
    im.add_argument("--out", metavar="BOARD", help="write the improved board here (.txt)")
    im.add_argument(
        "--clues",
        default=None,
        metavar="FILE|centre|all|none",
        help="pieces never moved: a clues file or Eternity II's centre/all (default: the centre "
        "clue on Eternity II when the board has it, none elsewhere)",
    )
    im.add_argument(
        "--repair-nodes",
        dest="repair_nodes",
        type=positive_int,
        default=None,
        metavar="N",
        help="nodes of exact search per repair (default 2000; formerly --node-cap)",
    )
    im.add_argument(
        "--acceptance",
        choices=("hill", "annealing", "lahc", "record"),
        default=None,
        help="which repaired boards the search moves to: only as good or better (hill, the "
        "default), simulated annealing, late acceptance or record-to-record travel; the best "
        "board is kept",
    )
    add_deprecated_flag(im, "--node-cap", "--repair-nodes", dest="repair_nodes",
                        type=positive_int, metavar="N")  # fmt: skip
    im.add_argument(
        "--allow-duplicates", action="store_true", help="accept sets that repeat pieces"
    )
    im.set_defaults(handler=_improve)
    mark_paths(im, inputs=("board", "pieces", "clues"), outputs=("out",))


def _add_small_commands(sub: argparse._SubParsersAction) -> None:
    sc = sub.add_parser("score", help="matched joints of a board, and its rule check")
    sc.add_argument("board", metavar="BOARD", help="board file or e2.bucas.name URL")
    sc.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    sc.add_argument("--json", action="store_true", help="print the result as one JSON object")
    sc.add_argument(
        "--allow-duplicates", action="store_true", help="accept sets that repeat pieces"
    )
    sc.set_defaults(handler=_score)
    mark_paths(sc, inputs=("board", "pieces"))

    g = sub.add_parser("generate", help="a random solvable puzzle with its solution")
    g.add_argument("size", metavar="RxC", help="board size, e.g. 8x8")
    g.add_argument(
        "--frame-colours", "--frame-colors", dest="frame_colours", type=int_arg, required=True,
        metavar="N", help="colours of the joints along the frame (at least 1)",
    )  # fmt: skip
    g.add_argument(
        "--inner-colours", "--inner-colors", dest="inner_colours", type=int_arg, required=True,
        metavar="M", help="colours of the other joints (at least 1)",
    )  # fmt: skip
    g.add_argument("--seed", type=int_arg, default=0, metavar="S", help="seed, any integer (0)")
    g.add_argument("--out", metavar="PIECES", help="write the pieces here (default: stdout)")
    g.add_argument("--solution", metavar="BOARD", help="write the solution here (.txt)")
    g.set_defaults(handler=_generate)
    mark_paths(g, outputs=("out", "solution"))

    r = sub.add_parser("render", help="draw a board as SVG or PNG, mismatches in red")
    r.add_argument("board", metavar="BOARD", help="board file or e2.bucas.name URL")
    r.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    r.add_argument("--svg", metavar="F", help="write an SVG picture here (.svg)")
    r.add_argument("--png", metavar="F", help="write a PNG picture here (.png)")
    r.add_argument("--numbers", action="store_true", help="print piece numbers (SVG)")
    r.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    r.set_defaults(handler=_render)
    mark_paths(r, inputs=("board", "pieces"), outputs=("svg", "png"))

    u = sub.add_parser("url", help="the board's e2.bucas.name viewer URL")
    u.add_argument("board", metavar="BOARD", help="board file")
    u.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    u.add_argument("--name", default=None, help="puzzle name shown by the viewer")
    u.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    u.set_defaults(handler=_url)
    mark_paths(u, inputs=("board", "pieces"))


# --------------------------------------------------------------------------------------------
# Progress on stderr
# --------------------------------------------------------------------------------------------


def printer(description: str, quiet: bool) -> ProgressPrinter:
    """The edges commands' progress on stderr (a ``progress`` callback and context manager):
    the common `ProgressPrinter`, which shows the best score,
    the deepest depth and placements per second; a plain line every ``LOG_SECONDS`` when
    stderr is not a terminal."""
    return ProgressPrinter(description, enabled=not quiet, log_every=LOG_SECONDS)


def LiveLine(quiet: bool) -> ProgressPrinter:
    """The edges progress printer under its name of earlier releases (`printer()`)."""
    return printer("edges", quiet)


# --------------------------------------------------------------------------------------------
# Handlers
# --------------------------------------------------------------------------------------------


_BREAK_NAMES = ("auto", "blackwood", "bucas", "clues", "score", "scaled", "none")


def _settings(args):
    from rompicapo.edges.blackwood import BLACKWOOD_NODE_CAP, Settings

    if args.best_score:
        # one name for the pair the hunt uses; a contradicting flag beside it is a mistake
        if args.breaks not in (None, "score") or args.stop_at_complete:
            given = "--stop-at-complete" if args.stop_at_complete else f"--breaks {args.breaks}"
            raise InputError(
                f"--best-score means --breaks score --no-stop-at-complete: drop {given[:60]}"
            )
        args.breaks, args.stop_at_complete = "score", False
    if args.breaks is None:
        args.breaks = "auto"
    if args.stop_at_complete is None:
        args.stop_at_complete = True
    breaks: str | tuple[int, ...] = args.breaks
    if re.fullmatch(r"[\d,\s]+", args.breaks):
        parts = args.breaks.replace(" ", "").split(",")
        breaks = tuple(check_int(x, "a break index") for x in parts if x)
    elif args.breaks not in _BREAK_NAMES:
        raise InputError(
            "breaks must be auto, blackwood, bucas, clues, score, scaled, none or indexes, "
            f"got {args.breaks[:40]!r}"
        )
    heuristic = None
    if args.heuristic:
        try:
            heuristic = tuple(int(x) for x in args.heuristic.split(","))
        except ValueError:
            raise InputError(
                f"heuristic must be colours like 13,16,10, got {args.heuristic[:40]!r}"
            ) from None
    return Settings(
        order=args.order,
        quota=args.quota,
        breaks=breaks,
        heuristic=heuristic,
        restart_nodes=args.restart_nodes if args.restart_nodes is not None else BLACKWOOD_NODE_CAP,
        quota_scale=args.quota_scale,
        holdback=args.holdback,
        holdback_release=args.holdback_release,
        stop_at_complete=args.stop_at_complete,
    )


def _finish(result, args, interrupted: bool) -> int:
    """Print the result (JSON or report) and the lines of writes that failed: each says
    where its result was kept instead. A failed write exits with EXIT_OUTPUT (1), after
    Ctrl-C with EXIT_INTERRUPTED (130): never 0, never the user-mistake status 2."""
    if args.json:
        print(dumps_json(result.to_dict(), indent=2))
    else:
        sys.stdout.write(result.report())
    errors = getattr(result, "write_errors", [])
    for line in errors:  # a write that failed after the work: the line says where it went
        print(f"rompicapo edges: error: {line}", file=sys.stderr)
    # the board was to be written (--out, or the file of a stopped run) and no file kept it
    wanted = getattr(args, "out", None) is not None or interrupted
    kept = getattr(result, "out", "") is not None or getattr(result, "board", None) is None
    if errors and wanted and not kept and args.json:
        # no folder kept the board and the JSON does not hold it: the report (with the
        # board) goes to stderr, so that stdout stays one JSON object
        print("rompicapo edges: the board, which no file could keep:", file=sys.stderr)
        sys.stderr.write(result.report())
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OUTPUT if errors else 0


def _fallback(name: str, args) -> str | None:
    """Where a run stopped early keeps its board when no --out was given: the working folder,
    else the temporary folder; None (the run goes on, saying so) when neither can be written."""
    import os
    import tempfile

    from rompicapo.common import check_output_path

    if args.out is not None:
        return name
    for where in (name, os.path.join(tempfile.gettempdir(), name)):
        try:
            check_output_path(where.format(score=0), "board file")
        except InputError:
            continue
        if where != name:
            shown = where.replace("{score}", "SCORE")
            _say(
                args,
                f"the working folder cannot be written: a stopped run keeps its board in {shown}",
            )
        return where
    _say(args, "no folder can be written: a stopped run will print its board only")
    return None


def _say(args, line: str) -> None:
    if not args.quiet:
        print(f"note: {line}", file=sys.stderr)


def _solve(args) -> int:
    from rompicapo.edges import solve

    with printer("edges solve", args.quiet or args.json) as live:
        result = solve(
            args.pieces,
            args.clues,
            settings=_settings(args),
            time_limit=time_left(args),
            node_limit=args.node_limit,
            jobs=args.jobs,
            seed=args.seed,
            scheduler=args.scheduler,
            progress=live,
            polish=args.polish,
            out=args.out,
            svg=args.svg,
            png=args.png,
            heat=args.heat,
            interrupted_out=_fallback("edges_best_{score}.txt", args),
            allow_duplicates=args.allow_duplicates,
        )
    interrupted = result.interrupted or bool(getattr(result.polish, "interrupted", False))
    return _finish(result, args, interrupted)


def _improve(args) -> int:
    from rompicapo.edges import improve_board

    with printer("edges improve", args.quiet or args.json) as live:
        result = improve_board(
            args.board,
            args.pieces,
            clues=args.clues,
            time_limit=time_left(args),
            node_limit=args.node_limit,
            repair_nodes=args.repair_nodes,
            acceptance=args.acceptance,
            seed=args.seed,
            progress=live,
            out=args.out,
            interrupted_out=_fallback("edges_improved_{score}.txt", args),
            allow_duplicates=args.allow_duplicates,
        )
    return _finish(result, args, result.interrupted)


def _score(args) -> int:
    from rompicapo.edges import score_board

    result = score_board(args.board, args.pieces, allow_duplicates=args.allow_duplicates)
    return _finish(result, args, False)


def _generate(args) -> int:
    from rompicapo.edges import make_puzzle

    result = make_puzzle(
        args.size,
        frame_colours=args.frame_colours,
        inner_colours=args.inner_colours,
        seed=args.seed,
        out=args.out,
        solution_out=args.solution,
    )
    # without --out the pieces go to stdout (as they always did); with it, nothing is printed
    if args.out is None:
        sys.stdout.write(result.pieces_text())
    return 0


def _render(args) -> int:
    from rompicapo.edges import render_board

    render_board(
        args.board, args.pieces, svg=args.svg, png=args.png, numbers=args.numbers,
        allow_duplicates=args.allow_duplicates,
    )  # fmt: skip
    return 0


def _url(args) -> int:
    from rompicapo.edges import viewer_url

    result = viewer_url(
        args.board, args.pieces, name=args.name, allow_duplicates=args.allow_duplicates
    )
    sys.stdout.write(result.report())
    return 0
