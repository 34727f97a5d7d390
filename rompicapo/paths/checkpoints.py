"""Checkpoints of counts: the prefix jobs finished so far, so that a count stopped (Ctrl-C, a
crash, the time limit) resumes and gives the same total.

A checkpoint is a JSON file with a checksum of its content
([`write_checked_json()`][rompicapo.common.write_checked_json]): an edited count or a damaged file
is refused, never added to a total. It records its problem (board, start, moves, closed, split
depth, and whether counts are by end cell), and a file of another problem is refused too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rompicapo.common import (
    InputError,
    check_int,
    check_output_path,
    read_checked_json,
    write_checked_json,
)
from rompicapo.paths.moves import MoveSet

__all__ = [
    "CHECKPOINT_EVERY",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "load_checkpoint",
    "open_checkpoint",
    "problem_of",
    "same_problem",
    "save_checkpoint",
]

# A checkpoint file is rewritten at most this often (seconds): rewriting it after every job
# would cost O(jobs^2) on a big run.
CHECKPOINT_EVERY = 5.0

CHECKPOINT_FORMAT = "rompicapo-count-checkpoint"
CHECKPOINT_VERSION = 1


def open_checkpoint(
    checkpoint, rows, cols, start, ms: MoveSet, closed, ends=False
) -> tuple[Path | None, dict[str, Any] | None]:
    """The checkpoint's path (checked as an output) and its content (None when there is no
    file yet); a file of another problem is refused here, before any work."""
    if checkpoint is None:
        return None, None
    path = check_output_path(checkpoint, "checkpoint", suffixes=(".json",))
    data = load_checkpoint(path)
    if data is not None:
        same_problem(path, data, rows, cols, start, ms, closed, ends)
    return path, data


def problem_of(rows, cols, start, moves: MoveSet, closed, split_depth, ends=False) -> dict:
    """What a checkpoint records of its problem: a file of another problem is refused."""
    problem = {
        "rows": rows,
        "cols": cols,
        "start": list(start) if start is not None else None,
        "moves": sorted([list(m) for m in moves.moves]),
        "closed": bool(closed),
        "split_depth": split_depth,
    }
    if ends:
        problem["ends"] = True  # counts by (start, end) pair: another problem's checkpoint
    return problem


def load_checkpoint(path: Path) -> dict[str, Any] | None:
    """The checkpoint at ``path`` (None if there is no file); InputError if it is unusable.

    Checkpoints carry a checksum of their content
    ([`write_checked_json()`][rompicapo.common.write_checked_json]):
    an edited count or a damaged file is refused, never added to a total.
    """
    if not path.exists():
        return None
    try:
        data = read_checked_json(path, kind=CHECKPOINT_FORMAT, what="checkpoint")
    except InputError as exc:
        raise InputError(
            f"checkpoint {str(path)!r} is corrupt or not a rompicapo count checkpoint ({exc})"
        ) from None
    try:
        if data.get("format") != CHECKPOINT_FORMAT or data.get("version") != CHECKPOINT_VERSION:
            raise ValueError
        problem = data["problem"]
        done = data["done"]
        if not isinstance(problem, dict) or not isinstance(done, dict):
            raise ValueError
        for key, value in done.items():
            [int(x) for x in key.split(".")]
            leaves, nodes = value[:2]
            for cell, paths in value[2] if len(value) > 2 else ():  # counts by end cell
                if type(cell) is not int or type(paths) is not int:
                    raise ValueError
            if not all(type(x) is int for x in (leaves, nodes)):
                raise ValueError
            if leaves < 0 or nodes < 0:
                raise ValueError
        samples = data.get("samples", {})
        if not isinstance(samples, dict):
            raise ValueError
        for key, value in samples.items():
            int(key)
            [int(x) for x in value]
    except (ValueError, TypeError, KeyError, AttributeError):
        raise InputError(
            f"checkpoint {str(path)!r} is corrupt or not a rompicapo count checkpoint"
        ) from None
    return data


def save_checkpoint(path: Path, problem, done, samples) -> None:
    """Write the checkpoint atomically, with a checksum of its content."""
    data = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "problem": problem,
        "done": done,
        "samples": {str(k): v for k, v in samples.items()},
    }
    write_checked_json(path, data, kind=CHECKPOINT_FORMAT)


def same_problem(ckpt, data, rows, cols, start, ms, closed, ends=False) -> int:
    """The split depth of a checkpoint of this very problem; InputError for another one."""
    want = problem_of(rows, cols, start, ms, closed, data["problem"].get("split_depth"), ends)
    if data["problem"] != want:
        raise InputError(
            f"checkpoint {str(ckpt)!r} is for a different problem "
            f"({_describe(data['problem'])}); use another file for {_describe(want)}"
        )
    return check_int(want["split_depth"], "the checkpoint's split depth", minimum=1)


def _describe(problem: dict[str, Any]) -> str:
    start = problem.get("start")
    where = "every start" if start is None else f"start {tuple(start)}"
    kind = "closed tours" if problem.get("closed") else "paths"
    return f"{kind} on {problem.get('rows')}x{problem.get('cols')} from {where}"
