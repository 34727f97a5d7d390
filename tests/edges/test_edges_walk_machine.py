"""The walking machine's cache folder and generated modules: where they go, what happens when
the folder cannot be written or a module was damaged. (Its search is checked node for node in
test_edges_kernel_speedpath.py.)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numba.core.errors import TypingError

from rompicapo.common import InputError
from rompicapo.common.jit import numba_index_folder
from rompicapo.edges import _kernel as K
from rompicapo.edges import _walk_machine as M
from rompicapo.edges import blackwood_walker
from rompicapo.edges.blackwood import Settings, build_tables, make_plan, search
from rompicapo.edges.blackwood_walker import walk_state
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import eternity2, eternity2_clues


def _small_plan():
    puzzle, _ = generate(3, 4, frame_colours=1, inner_colours=2, seed=3)
    plan = make_plan(puzzle)
    return plan, build_tables(plan, np.random.default_rng(3))


def _counters_after(walk, plan, tables, nodes: int) -> list[int]:
    state = K.new_state(len(plan.pos_cell), plan.copies)
    if walk is K.walk:
        walk(tables.walk, *walk_state(state), nodes)
    else:
        walk(tables.walk, *walk_state(state), nodes, 0, 0)
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
    # and where numba keeps its cache under NUMBA_CACHE_DIR (read by numba at its import)
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    elsewhere = numba_index_folder(folder)
    elsewhere.mkdir(parents=True)
    stale_elsewhere = elsewhere / f"{stale.stem}.walk-14.py311.nbc"
    stale_elsewhere.write_bytes(b"")
    plan, tables = _small_plan()
    M.walker(tables.walk, len(plan.pos_cell))
    assert not stale.exists() and not stale_cache.exists() and other.exists()
    assert not stale_elsewhere.exists()
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
    machine = Settings(kernel="machine")
    with_machine = search(puzzle, clues, settings=machine, time_limit=None, node_limit=300_000)

    def no_room(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(blackwood_walker, "walk_machine", no_room)
    without = search(puzzle, clues, settings=machine, time_limit=None, node_limit=300_000)
    assert without.counts == with_machine.counts
    assert without.partial.placements() == with_machine.partial.placements()
    assert without.verify()


def _blackwood_8x8():
    puzzle, _ = generate(8, 8, frame_colours=2, inner_colours=4, seed=11)
    scaled = Settings(order="blackwood", quota="scaled", breaks="scaled", quota_scale=0.5)
    return puzzle, scaled


def test_auto_compiles_a_machine_only_for_a_long_search(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path))  # nothing compiled yet
    monkeypatch.setattr(M, "_loaded", {})
    puzzle, settings = _blackwood_8x8()
    plan = make_plan(puzzle, settings=settings)  # 64 cells: the smallest board with machines
    assert plan.settings.kernel == "auto"
    # short searches do not pay a compilation
    for time_limit, node_limit in ((10.0, None), (None, 10**6), (59.0, 10**12)):
        assert blackwood_walker.prepare_machine(plan, time_limit, node_limit) == 0.0
        assert not plan.use_machine
    assert not list(tmp_path.glob("walk-machines/walk_*.py"))
    # a long one does, and from then on the compiled machine runs short searches too
    blackwood_walker.prepare_machine(plan, None, None)
    assert plan.use_machine
    tables = build_tables(plan, np.random.default_rng(0))
    assert M.compiled(tables.walk, len(plan.pos_cell))
    monkeypatch.setattr(M, "_loaded", {})  # as in a new process: found in the cache folder
    assert M.compiled(tables.walk, len(plan.pos_cell))
    blackwood_walker.prepare_machine(plan, 1.0, 1000)
    assert plan.use_machine
    # "plain" never uses one; "machine" always
    plain = make_plan(puzzle, settings=replace(settings, kernel="plain"))
    blackwood_walker.prepare_machine(plain, None, None)
    assert not plain.use_machine
    forced = make_plan(puzzle, settings=replace(settings, kernel="machine"))
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path / "other"))  # not compiled there
    monkeypatch.setattr(M, "_loaded", {})
    blackwood_walker.prepare_machine(forced, 1.0, 1000)
    assert forced.use_machine and list(tmp_path.glob("other/walk-machines/walk_*.py"))


def test_every_kernel_choice_sees_the_same_search() -> None:
    puzzle, settings = _blackwood_8x8()
    results = [
        search(puzzle, settings=replace(settings, kernel=k), time_limit=None, node_limit=200_000)
        for k in ("plain", "machine", "auto")
    ]
    assert results[0].counts["placements"] > 1000
    for r in results:
        assert r.counts == results[0].counts
        assert r.partial.placements() == results[0].partial.placements()
        assert r.verify()


def test_a_bad_kernel_name_is_one_line() -> None:
    with pytest.raises(InputError, match="kernel must be one of auto, machine, plain"):
        Settings(kernel="fast")


def test_arrays_of_other_types_are_refused_not_misread() -> None:
    plan, tables = _small_plan()
    walk = M.walker(tables.walk, len(plan.pos_cell))
    state = list(walk_state(K.new_state(len(plan.pos_cell), plan.copies)))
    state[0] = state[0].astype(np.int64)  # avail: the machine reads 16-bit counts
    with pytest.raises(TypingError):
        walk(tables.walk, *state, 100, 0, 0)
    state[0] = state[0].astype(np.int16)[::-1]  # a strided view: not flat data
    with pytest.raises(TypingError):
        walk(tables.walk, *state, 100, 0, 0)


@pytest.mark.parametrize("damaged", ["nbi", "nbc"])
def test_a_damaged_numba_cache_is_compiled_again(tmp_path, monkeypatch, damaged) -> None:
    monkeypatch.setenv("ROMPICAPO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(M, "_loaded", {})
    plan, tables = _small_plan()
    n = len(plan.pos_cell)
    M.compiled_walker(tables.walk, n)
    # numba's cache of the machines: beside them, or under NUMBA_CACHE_DIR when it is set
    files = list(numba_index_folder(tmp_path / "walk-machines").glob(f"*.{damaged}"))
    assert files
    for f in files:  # numba's index (a pickle) or its data, overwritten with noise
        f.write_bytes(np.random.default_rng(1).bytes(100))
    monkeypatch.setattr(M, "_loaded", {})  # a new process: reads the cache
    walk = M.compiled_walker(tables.walk, n)
    expected = _counters_after(K.walk, plan, tables, 5_000)
    assert _counters_after(walk, plan, tables, 5_000) == expected
