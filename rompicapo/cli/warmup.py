"""``rompicapo warm-up``: compile every numba kernel ahead (see `rompicapo.warmup`)."""

from __future__ import annotations

import argparse

from rompicapo.cli.options import positive_int
from rompicapo.warmup import FAMILIES


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "warm-up",
        help="compile every kernel ahead (once per installation), on all cores",
        description="Compile the numba kernels of every family (or of --family NAME) into "
        "numba's on-disk cache, one group of kernels per process, and print what was compiled "
        "and how long it took. Later commands then start in about a second.",
    )
    p.add_argument(
        "--family",
        action="append",
        choices=FAMILIES,
        metavar="NAME",
        help=f"only this family ({', '.join(FAMILIES)}); may be repeated",
    )
    p.add_argument("--jobs", type=positive_int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(handler=_warm_up)


def _warm_up(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.warmup import warm_up

    result = warm_up(args.family, jobs=args.jobs)
    print(dumps_json(result.to_dict()) if args.json else result.report())
    return 0
