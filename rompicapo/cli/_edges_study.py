"""``rompicapo edges study`` and ``rompicapo edges study-report`` (issue 8): the parameter study.

Registered from ``rompicapo/cli/edges.py``; this module has no top-level ``register`` so the CLI's
module discovery does not add it twice.
"""

from __future__ import annotations

import argparse

__all__ = ["register_study"]


def register_study(edges_subparsers: argparse._SubParsersAction) -> None:
    """Add the study commands to ``rompicapo edges`` (none yet: issue 8 is in progress)."""
