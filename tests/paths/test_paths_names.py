"""One name per idea in the paths family: the run contract's names (jobs, seed, limit,
time_limit, node_limit, progress) in every public function and command, the earlier names kept
only as deprecated keywords and flags that say what replaces them."""

from __future__ import annotations

import argparse
import inspect

import numpy as np
import pytest

import rompicapo.paths as P
from rompicapo.cli import build_parser
from rompicapo.common import ProgressEvent
from rompicapo.paths.blocks import BlockPath, write_blocks_rpath
from rompicapo.paths.count import count_end_matrix
from rompicapo.paths.cycles import BlockCycle, write_cycle_rpath
from rompicapo.paths.narrow import narrow_path
from rompicapo.paths.prefix import complete_prefix
from rompicapo.paths.rpath import read_header, write_rpath
from rompicapo.paths.verify_stream import verify_rpath
from rompicapo.paths.window import window_path

# Other names for the contract's ideas (as in the games family's test of the same rule)
SECOND_NAMES = {
    "max_nodes", "max_solutions", "max_results", "max_time", "max_seconds", "max_jobs",
    "seconds", "timeout", "time", "deadline", "budget", "node_cap", "processes", "workers",
    "threads", "n_jobs", "cores", "random", "rng", "random_seed", "keep", "list",
    "count_limit", "on_progress", "on_chunk", "callback", "progress_callback",
}  # fmt: skip
SECOND_FLAGS = {
    "--max-nodes", "--max-solutions", "--max-jobs", "--seconds", "--timeout", "--time-limit",
    "--node-cap", "--budget", "--processes", "--workers", "--threads", "--random", "--list",
    "--keep",
}  # fmt: skip
EXTRA = [
    count_end_matrix, complete_prefix, narrow_path, window_path, verify_rpath, write_rpath,
    write_blocks_rpath, write_cycle_rpath, BlockPath.fill_path, BlockPath.fill_moves,
    BlockCycle.fill_path, BlockCycle.fill_moves,
]  # fmt: skip


def test_no_second_names_in_the_public_functions():
    functions = [getattr(P, n) for n in P.__all__ if inspect.isfunction(getattr(P, n))]
    assert len(functions) >= 12
    bad = [
        f"{fn.__qualname__}({p}=)"
        for fn in functions + EXTRA
        for p in inspect.signature(fn).parameters
        if p in SECOND_NAMES
    ]
    assert bad == []


def test_the_old_keywords_still_work_and_name_the_new_one(tmp_path):
    from rompicapo.common import Deadline

    with pytest.warns(DeprecationWarning, match=r"narrow_path\(\): deadline= is now time_limit="):
        assert narrow_path(3, 10, (0, 0), deadline=Deadline(60)).status == "found"
    told: list[int] = []
    name = tmp_path / "p.rpath"
    with pytest.warns(DeprecationWarning, match="on_chunk= is now progress="):
        write_blocks_rpath(name, 20, 20, chunk_moves=64, on_chunk=told.append)
    assert sum(told) == read_header(name).n_chunks == 7
    events: list[ProgressEvent] = []
    write_cycle_rpath(name, 20, 20, "knight", (3, 3), chunk_moves=64, progress=events.append)
    assert events[-1].kind == "done" and events[-1].done == events[-1].total == 7
    assert verify_rpath(name, moves="knight", start=(3, 3), closed=True)


def test_fill_moves_runs_on_all_cores_by_default_as_fill_path_does():
    for fn in (BlockPath.fill_moves, BlockCycle.fill_moves, BlockPath.fill_path):
        assert inspect.signature(fn).parameters["jobs"].default is None
    bp = BlockPath(40, 30)
    one = bp.fill_moves(np.empty(40 * 30 - 1, np.uint8), jobs=1)
    assert np.array_equal(bp.fill_moves(np.empty(40 * 30 - 1, np.uint8)), one)


def _commands():
    root = build_parser()
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("path", "verify-path", "path-at", "step-of", "count"):
        yield name, sub.choices[name]


NEEDED = {"path": ["10"], "verify-path": ["p.npy"], "path-at": ["10", "1"],
          "step-of": ["10", "0,0"], "count": ["5"]}  # fmt: skip


def test_one_name_per_idea_in_the_commands(capsys):
    checked = 0
    for name, parser in _commands():
        for action in parser._actions:
            flags = set(action.option_strings)
            checked += len(flags)
            for flag in flags & SECOND_FLAGS:
                if flags & {"--time", "--nodes", "--limit", "--seed", "--jobs"}:
                    continue  # an alias of the contract's flag, in its help
                # else an earlier release's flag, kept with a warning naming the new one
                value = [] if action.nargs == 0 else ["3"]
                parser.parse_args([*NEEDED[name], flag, *value])
                assert "is deprecated; use --" in capsys.readouterr().err, f"{name} {flag}"
    assert checked > 40
