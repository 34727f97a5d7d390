"""``rompicapo serve``: the local web playground (see `rompicapo.web`)."""

from __future__ import annotations

import argparse

from rompicapo.cli.options import positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve", help="a local web playground for every family (http://127.0.0.1:8765/)"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only); the playground "
        "answers only requests addressed to it",
    )
    p.add_argument("--port", type=positive_int, default=8765, help="port (default 8765)")
    p.add_argument("--open", action="store_true", help="open the playground in a browser")
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        help="worker processes for long runs, the most running at once (default: all cores); "
        "one more answers the pages' quick questions",
    )
    p.add_argument(
        "--hunt-db",
        default=None,
        metavar="FILE",
        help="a hunt file (rompicapo edges hunt --db) whose best score and board the edges "
        "page follows, read-only",
    )
    p.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from rompicapo.common import require_extra

    require_extra("web", "rompicapo serve")
    from rompicapo.web import serve

    serve(args.host, args.port, open_browser=args.open, jobs=args.jobs, hunt_db=args.hunt_db)
    return 0
