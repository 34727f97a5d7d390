"""The walking machine's cache folder and generated modules: where they go, what happens when
the folder cannot be written or a module was damaged. (Its search is checked node for node in
test_edges_kernel_speedpath.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from rompicapo.edges import _kernel as K
from rompicapo.edges import _walk_machine as M
from rompicapo.edges import blackwood
from rompicapo.edges.blackwood import _walk_state, build_tables, make_plan, search
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import eternity2, eternity2_clues


def _small_plan():
    puzzle, _ = generate(3, 4, frame_colours=1, inner_colours=2, seed=3)
    plan = make_plan(puzzle)
    return plan, build_tables(plan, np.random.default_rng(3))


def _counters_after(walk, plan, tables, nodes: int) -> list[int]:
    state = K.new_state(len(plan.pos_cell), plan.copies)
    if walk is K.walk:
        walk(tables.walk, *_walk_state(state), nodes)
    else:
        walk(tables.walk, *_walk_state(state), nodes, 0, 0)
    return state[-1].tolist()


def test_cache_folder_follows_the_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path / "cache"))
    assert M.cache_folder() == tmp_path / "cache" / "walk-machines"
    monkeypatch.delenv("ROMPICAPO_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert M.cache_folder() == tmp_path / "xdg" / "rompicapo" / "walk-machines"


def test_an_unusable_cache_folder_falls_back(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(blocker))
    monkeypatch.setenv("HOME", str(blocker))  # ~/.cache cannot be made either
    folder = M.cache_folder()
    assert folder.is_dir() and blocker not in folder.parents
    assert folder.name.startswith("rompicapo-walk-machines-")


def test_a_damaged_module_is_written_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(M, "_loaded", {})
    plan, tables = _small_plan()
    n = len(plan.pos_cell)
    walk = M.walker(tables.walk, n)
    (module,) = (tmp_path / "walk-machines").glob("walk_*.py")
    expected = _counters_after(K.walk, plan, tables, 5_000)
    assert _counters_after(walk, plan, tables, 5_000) == expected
    assert expected[K.C_NODES] > 0
    # a truncated module (a full disk, an editor) is noticed and replaced, not imported
    module.write_text(module.read_text()[:200])
    monkeypatch.setattr(M, "_loaded", {})
    walk = M.walker(tables.walk, n)
    assert "CONSTANTS" in module.read_text()
    assert _counters_after(walk, plan, tables, 5_000) == expected
    # same plan, same process: the loaded machine is reused, no file is read
    module.unlink()
    assert M.walker(tables.walk, n) is walk


def test_machines_of_another_version_are_deleted(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(M, "_loaded", {})
    folder = tmp_path / "walk-machines"
    (folder / "__pycache__").mkdir(parents=True)
    stale = folder / "walk_0123456789abcdef_fedcba9876543210.py"
    stale.write_text("CONSTANTS = ()")
    stale_cache = folder / "__pycache__" / f"{stale.stem}.walk-14.py311.nbi"
    stale_cache.write_bytes(b"")
    other = folder / "notes.txt"  # not a machine: left alone
    other.write_text("mine")
    plan, tables = _small_plan()
    M.walker(tables.walk, len(plan.pos_cell))
    assert not stale.exists() and not stale_cache.exists() and other.exists()
    (current,) = folder.glob("walk_*_*.py")
    assert current.stem.split("_")[1] == M._version()


@pytest.mark.parametrize("nodes", [0, -3])
def test_no_nodes_changes_nothing(nodes) -> None:
    plan, tables = _small_plan()
    walk = M.walker(tables.walk, len(plan.pos_cell))
    assert _counters_after(walk, plan, tables, nodes) == _counters_after(
        K.walk, plan, tables, nodes
    )


def test_no_machine_means_the_plain_kernel_not_a_failure(monkeypatch) -> None:
    # a full disk or a read-only system: the search runs on K.walk, the same nodes and board
    puzzle, clues = eternity2(), eternity2_clues("centre")
    with_machine = search(puzzle, clues, time_limit=None, node_limit=300_000, seed=5)

    def no_room(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(blackwood, "walk_machine", no_room)
    without = search(puzzle, clues, time_limit=None, node_limit=300_000, seed=5)
    assert without.counts == with_machine.counts
    assert without.partial.placements() == with_machine.partial.placements()
    assert without.verify()
