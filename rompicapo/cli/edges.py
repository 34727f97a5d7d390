"""``rompicapo edges ...``: edge-matching puzzles (Eternity II and any R x C set).

Commands: ``solve`` (Blackwood's search on all cores, ``--polish S`` to improve its board),
``improve`` (large-neighbourhood search on a given board), ``score``, ``generate``,
``render``, ``url``. PIECES is a pieces file or ``eternity2`` (the shipped official set).
BOARD is a board file or an e2.bucas.name URL.
"""

from __future__ import annotations

import argparse
import re
import sys

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "edges",
        help="edge-matching puzzles: Eternity II, Blackwood's search",
        description="Edge-matching puzzles: Blackwood's search, scores, generator, pictures.",
    )
    sub = p.add_subparsers(dest="edges_command", metavar="COMMAND", parser_class=type(p))
    sub.required = True
    # The parameter study's commands (issue 8) live in their own module: it grows apart from
    # the solver's commands and is worked on separately.
    from rompicapo.cli._edges_study import register_study

    register_study(sub)

    s = sub.add_parser("solve", help="search for the best board (Blackwood's algorithm)")
    s.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    s.add_argument(
        "--clues",
        default=None,
        metavar="FILE|centre|all|none",
        help="pinned pieces: a clues file or Eternity II's centre/all (default: centre on "
        "Eternity II, none elsewhere)",
    )
    s.add_argument("--time", type=float, default=60.0, metavar="S", help="seconds (default 60)")
    s.add_argument(
        "--nodes", type=int, default=None, metavar="N", help="stop after N nodes per job"
    )
    s.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="processes (default: all cores)"
    )
    s.add_argument("--seed", type=int, default=0, metavar="N", help="seed of job 0 (job k: N+k)")
    s.add_argument("--out", metavar="BOARD", help="write the best board here")
    s.add_argument("--svg", metavar="F", help="picture of the best board (SVG)")
    s.add_argument("--png", metavar="F", help="picture of the best board (PNG)")
    s.add_argument("--heat", metavar="F", help="heat map of placements per cell (.svg or .png)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--scheduler", metavar="ADDRESS", help="run the jobs on this Dask cluster")
    s.add_argument(
        "--order",
        default="auto",
        choices=["auto", "blackwood", "rows", "frame", "diagonal", "portfolio"],
    )
    s.add_argument("--quota", default="auto", choices=["auto", "blackwood", "scaled", "none"])
    s.add_argument(
        "--breaks",
        default="auto",
        help="auto, blackwood, bucas, clues, scaled, none or indexes '201,206,...'",
    )
    s.add_argument(
        "--quota-scale",
        type=float,
        default=None,
        metavar="X",
        help="multiply the quota by X (default 1, 0.9 with all five clues)",
    )
    s.add_argument(
        "--heuristic", metavar="C,C,C", help="prioritised colours (default: Blackwood's)"
    )
    s.add_argument("--node-cap", type=int, default=None, metavar="N", help="restart every N nodes")
    s.add_argument("--allow-duplicates", action="store_true", help="accept sets that repeat pieces")
    s.add_argument(
        "--polish",
        type=float,
        default=None,
        metavar="S",
        help="then improve the best board for S seconds (large-neighbourhood search)",
    )
    s.add_argument("--quiet", action="store_true", help="no live line on stderr")
    s.set_defaults(handler=_solve)

    im = sub.add_parser(
        "improve", help="polish a board: large-neighbourhood search (never lowers the score)"
    )
    im.add_argument("board", metavar="BOARD", help="board file (complete or partial) or URL")
    im.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    im.add_argument("--time", type=float, default=30.0, metavar="S", help="seconds (default 30)")
    im.add_argument("--out", metavar="BOARD", help="write the improved board here")
    im.add_argument("--seed", type=int, default=0, metavar="N")
    im.add_argument(
        "--clues",
        default=None,
        metavar="FILE|centre|all|none",
        help="pieces never moved: a clues file or Eternity II's centre/all (default: the centre "
        "clue on Eternity II when the board has it, none elsewhere)",
    )
    im.add_argument(
        "--node-cap", type=int, default=None, metavar="N", help="nodes per repair (default 2000)"
    )
    im.add_argument("--json", action="store_true", help="print the result as JSON")
    im.add_argument("--allow-duplicates", action="store_true")
    im.add_argument("--quiet", action="store_true", help="no live line on stderr")
    im.set_defaults(handler=_improve)

    sc = sub.add_parser("score", help="matched joints of a board, and its rule check")
    sc.add_argument("board", metavar="BOARD", help="board file or e2.bucas.name URL")
    sc.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    sc.add_argument("--json", action="store_true")
    sc.add_argument("--allow-duplicates", action="store_true")
    sc.set_defaults(handler=_score)

    g = sub.add_parser("generate", help="a random solvable puzzle with its solution")
    g.add_argument("size", metavar="RxC", help="board size, e.g. 8x8")
    g.add_argument("--frame-colors", type=int, required=True, metavar="N")
    g.add_argument("--inner-colors", type=int, required=True, metavar="M")
    g.add_argument("--seed", type=int, default=0, metavar="S")
    g.add_argument("--out", metavar="PIECES", help="write the pieces here (default: stdout)")
    g.add_argument("--solution", metavar="BOARD", help="write the solution here")
    g.set_defaults(handler=_generate)

    r = sub.add_parser("render", help="draw a board as SVG or PNG, mismatches in red")
    r.add_argument("board", metavar="BOARD", help="board file or e2.bucas.name URL")
    r.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    r.add_argument("--svg", metavar="F")
    r.add_argument("--png", metavar="F")
    r.add_argument("--numbers", action="store_true", help="print piece numbers (SVG)")
    r.add_argument("--allow-duplicates", action="store_true")
    r.set_defaults(handler=_render)

    u = sub.add_parser("url", help="the board's e2.bucas.name viewer URL")
    u.add_argument("board", metavar="BOARD", help="board file")
    u.add_argument("pieces", metavar="PIECES", help="pieces file, or 'eternity2'")
    u.add_argument("--name", default=None, help="puzzle name shown by the viewer")
    u.add_argument("--allow-duplicates", action="store_true")
    u.set_defaults(handler=_url)


# --------------------------------------------------------------------------------------------


def _pieces(arg: str, allow_duplicates: bool = False):
    from rompicapo.edges.puzzle import eternity2, load_pieces

    if arg.lower() in ("eternity2", "e2", "eternity-ii"):
        return eternity2()
    return load_pieces(arg, allow_duplicates=allow_duplicates)


def _board(arg: str, puzzle):
    from rompicapo.edges.puzzle import board_from_url, load_board

    if arg.startswith(("http://", "https://")) or "board_edges=" in arg:
        return board_from_url(arg, puzzle)
    return load_board(arg, puzzle)


def _clues(arg: str | None, puzzle):
    from rompicapo.common import InputError
    from rompicapo.edges.puzzle import Board, eternity2_clues, load_board

    if arg is None:
        return (
            eternity2_clues("centre")
            if puzzle.is_eternity2
            else Board.empty(puzzle.rows, puzzle.cols)
        )
    if arg in ("centre", "center", "all", "none"):
        if arg == "none":
            return Board.empty(puzzle.rows, puzzle.cols)
        if not puzzle.is_eternity2:
            raise InputError(f"--clues {arg} names Eternity II's clues; give a clues file")
        return eternity2_clues(arg)
    return load_board(arg, puzzle)


def _settings(args):
    from rompicapo.common import InputError
    from rompicapo.edges.blackwood import BLACKWOOD_NODE_CAP, Settings

    breaks: str | tuple[int, ...] = args.breaks
    if re.fullmatch(r"[\d,\s]+", args.breaks):
        breaks = tuple(int(x) for x in args.breaks.replace(" ", "").split(",") if x)
    elif args.breaks not in ("auto", "blackwood", "bucas", "clues", "scaled", "none"):
        raise InputError(
            "--breaks must be auto, blackwood, bucas, clues, scaled, none or indexes, "
            f"got {args.breaks!r}"
        )
    heuristic = None
    if args.heuristic:
        try:
            heuristic = tuple(int(x) for x in args.heuristic.split(","))
        except ValueError:
            raise InputError(
                f"--heuristic must be colours like 13,16,10, got {args.heuristic!r}"
            ) from None
    cap = args.node_cap if args.node_cap is not None else BLACKWOOD_NODE_CAP
    if cap < 1:
        raise InputError("--node-cap must be positive")
    if args.quota_scale is not None and not 0 <= args.quota_scale <= 10:
        raise InputError(f"--quota-scale must be between 0 and 10, got {args.quota_scale}")
    return Settings(
        order=args.order,
        quota=args.quota,
        breaks=breaks,
        heuristic=heuristic,
        node_cap=cap,
        quota_scale=args.quota_scale,
    )


class _LiveLine:
    """One status line on stderr, rewritten in place on a terminal, every 10 s otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = -10.0
        self.shown = False

    def text(self, p: dict) -> str:
        return (
            f"{p['seconds']:6.1f} s  {p['placements_per_second'] / 1e6:6.2f} M placements/s  "
            f"deepest {p['deepest']}  best {p['best_score']}/{p['max_score']}"
        )

    def __call__(self, p: dict) -> None:
        if self.quiet or (not self.tty and p["seconds"] - self.last < 10):
            return
        self.last = p["seconds"]
        text = self.text(p)
        if self.tty:
            sys.stderr.write("\r" + text + "   ")
            self.shown = True
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _solve(args) -> int:
    from rompicapo.common import InputError, dumps_json
    from rompicapo.edges.blackwood import solve
    from rompicapo.edges.puzzle import board_url, save_board

    puzzle = _pieces(args.pieces, args.allow_duplicates)
    clues = _clues(args.clues, puzzle)
    settings = _settings(args)
    if args.time is not None and args.time <= 0:
        raise InputError("--time must be positive")
    live = _LiveLine(args.quiet or args.json)
    try:
        result = solve(
            puzzle,
            clues,
            settings=settings,
            seconds=args.time,
            max_nodes=args.nodes,
            jobs=args.jobs,
            seed=args.seed,
            scheduler=args.scheduler,
            on_progress=live,
        )
    finally:
        live.close()
    board = result.board
    polished = None
    if args.polish is not None and not result.interrupted:
        polished = _polish(result, puzzle, clues, args)
        if polished.score_after >= result.score:
            board = polished.board
    final_score = polished.score_after if polished is not None else result.score
    out = args.out
    if (result.interrupted or (polished is not None and polished.interrupted)) and not out:
        out = f"edges_best_{final_score}.txt"
    if out:
        save_board(out, board, puzzle, comment=f"rompicapo edges solve {args.pieces}")
    _pictures(board, puzzle, args.svg, args.png)
    if args.heat and result.heat is not None:
        _heat(args.heat, result.heat)
    summary = result.summary()
    summary["url"] = (
        board_url(board, puzzle, name=puzzle.name or "rompicapo")
        if puzzle.max_colour < 26
        else None
    )
    if out:
        summary["out"] = out
    if polished is not None:
        summary["polish"] = polished.summary()
    if args.json:
        print(dumps_json(summary, indent=2))
    else:
        state = "solved" if result.solved else ("interrupted" if result.interrupted else "best")
        print(
            f"{state}: score {result.score}/{puzzle.n_joints} (search: {result.search_score} with "
            f"{result.search_depth} pieces, deepest {result.deepest}); "
            f"{result.counts['placements']:,} placements, "
            f"{result.placements_per_second / 1e6:.2f} M/s over "
            f"{summary['settings'].get('jobs', 1)} jobs "
            f"in {result.solve_seconds:.1f} s; verified {summary['verified']}"
        )
        if polished is not None:
            print(_improve_line(polished, "polished"))
        if summary["url"]:
            print(summary["url"])
        if out:
            print(f"board written to {out}")
        elif not result.interrupted:
            from rompicapo.edges.puzzle import format_board

            sys.stdout.write(format_board(board, puzzle))
    if result.interrupted or (polished is not None and polished.interrupted):
        return 130
    return 0


def _polish(result, puzzle, clues, args):
    """``solve --polish S``: improve the search's best partial board (its holes are filled by
    exact search, then the large-neighbourhood search runs) for S seconds."""
    from rompicapo.common import InputError
    from rompicapo.edges.improve import improve

    if args.polish <= 0:
        raise InputError("--polish must be positive")
    live = _ImproveLine(args.quiet or args.json)
    try:
        return improve(
            result.partial, puzzle, seconds=args.polish, seed=args.seed, clues=clues,
            on_progress=live,
        )  # fmt: skip
    finally:
        live.close()


class _ImproveLine(_LiveLine):
    def text(self, p: dict) -> str:
        return (
            f"{p['seconds']:6.1f} s  {p['iterations']:,} repairs  "
            f"score {p['score']}/{p['max_score']}"
        )


def _improve_line(res, what: str = "improved") -> str:
    state = "interrupted" if res.interrupted else ("solved" if res.solved else what)
    filled = (
        f" (holes filled: {res.score_completed})" if res.score_completed != res.score_before else ""
    )
    return (
        f"{state}: score {res.score_before} -> {res.score_after}/{res.puzzle.n_joints} "
        f"({res.gain:+d}){filled}; {res.iterations:,} repairs, {res.counts['nodes']:,} nodes "
        f"in {res.solve_seconds:.1f} s; verified {res.verify()}"
    )


def _improve_clues(arg: str | None, puzzle, board):
    """--clues for improve: by default Eternity II's centre clue when the board agrees with it
    (holds it, or leaves its cell empty and the piece unused), else none."""
    from rompicapo.edges.puzzle import Board, eternity2_clues

    if arg is not None or not puzzle.is_eternity2:
        return _clues(arg if arg is not None else "none", puzzle)
    centre = eternity2_clues("centre")
    ((r, c, k, rot),) = centre.placements()
    here = int(board.piece[r, c])
    if (here == k and int(board.rotation[r, c]) == rot) or (
        here < 0 and k not in set(board.piece.ravel().tolist())
    ):
        return centre
    return Board.empty(puzzle.rows, puzzle.cols)


def _improve(args) -> int:
    from rompicapo.common import InputError, dumps_json
    from rompicapo.edges.improve import NODE_CAP, improve
    from rompicapo.edges.puzzle import format_board, save_board

    if args.time is None or args.time <= 0:
        raise InputError("--time must be positive")
    if args.node_cap is not None and args.node_cap < 1:
        raise InputError("--node-cap must be positive")
    puzzle = _pieces(args.pieces, args.allow_duplicates)
    board = _board(args.board, puzzle)
    clues = _improve_clues(args.clues, puzzle, board)
    live = _ImproveLine(args.quiet or args.json)
    try:
        res = improve(
            board, puzzle, seconds=args.time, seed=args.seed, clues=clues,
            node_cap=args.node_cap or NODE_CAP, on_progress=live,
        )  # fmt: skip
    finally:
        live.close()
    out = args.out
    if res.interrupted and not out:
        out = f"edges_improved_{res.score_after}.txt"
    if out:
        save_board(out, res.board, puzzle, comment=f"rompicapo edges improve {args.board}")
    if args.json:
        info = res.summary()
        if out:
            info["out"] = out
        print(dumps_json(info, indent=2))
    else:
        print(_improve_line(res))
        if out:
            print(f"board written to {out}")
        else:
            sys.stdout.write(format_board(res.board, puzzle))
    return 130 if res.interrupted else 0


def _pictures(board, puzzle, svg: str | None, png: str | None) -> None:
    from rompicapo.edges.render import save_picture

    if svg:
        save_picture(svg, board, puzzle)
    if png:
        save_picture(png, board, puzzle)


def _heat(path: str, heat) -> None:
    from pathlib import Path

    from rompicapo.common import InputError
    from rompicapo.edges.render import heat_png, heat_svg

    if path.lower().endswith(".svg"):
        Path(path).write_text(heat_svg(heat))
    elif path.lower().endswith(".png"):
        heat_png(heat).save(path)
    else:
        raise InputError(f"--heat must end in .svg or .png, got {path!r}")


def _score(args) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.edges.puzzle import mismatched_joints, score
    from rompicapo.edges.verify import board_problems

    puzzle = _pieces(args.pieces, args.allow_duplicates)
    board = _board(args.board, puzzle)
    s = score(board, puzzle)
    problems = board_problems(puzzle.rows, puzzle.cols, puzzle.pieces, board.placements())
    info = {
        "score": s,
        "max_score": puzzle.n_joints,
        "mismatched": len(mismatched_joints(board, puzzle)),
        "placed": board.n_placed,
        "cells": puzzle.rows * puzzle.cols,
        "valid": not problems,
        "problems": problems,
    }
    if args.json:
        print(dumps_json(info, indent=2))
    else:
        print(
            f"score {s}/{puzzle.n_joints} ({info['mismatched']} mismatched joints), "
            f"{board.n_placed}/{info['cells']} cells filled, "
            + ("valid" if not problems else f"not complete: {problems[0]}")
        )
    return 0


def _generate(args) -> int:
    from pathlib import Path

    from rompicapo.common import InputError
    from rompicapo.edges.generate import generate
    from rompicapo.edges.puzzle import format_board, format_pieces

    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", args.size)
    if not m:
        raise InputError(f"size must be RxC like 8x8, got {args.size!r}")
    puzzle, solution = generate(
        int(m.group(1)),
        int(m.group(2)),
        frame_colours=args.frame_colors,
        inner_colours=args.inner_colors,
        seed=args.seed,
    )
    cmd = (
        f"rompicapo edges generate {args.size} --frame-colors {args.frame_colors} "
        f"--inner-colors {args.inner_colors} --seed {args.seed}"
    )
    text = format_pieces(puzzle, comment=f"made by: {cmd}")
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    if args.solution:
        Path(args.solution).write_text(
            format_board(solution, puzzle, comment=f"solution of: {cmd}")
        )
    return 0


def _render(args) -> int:
    from rompicapo.common import InputError
    from rompicapo.edges.render import save_picture

    if not args.svg and not args.png:
        raise InputError("give --svg F and/or --png F")
    puzzle = _pieces(args.pieces, args.allow_duplicates)
    board = _board(args.board, puzzle)
    if args.svg:
        save_picture(args.svg, board, puzzle, numbers=args.numbers)
    if args.png:
        save_picture(args.png, board, puzzle)
    return 0


def _url(args) -> int:
    from pathlib import Path

    from rompicapo.edges.puzzle import board_url

    puzzle = _pieces(args.pieces, args.allow_duplicates)
    board = _board(args.board, puzzle)
    print(board_url(board, puzzle, name=args.name or Path(args.board).stem))
    return 0
