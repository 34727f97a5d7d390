"""The vector 9x9 kernel (rompicapo.cover._sudoku_simd) behind sudoku.solve and solve_batch:
answer for answer against the band bit-set kernel it replaced, on every shipped Sudoku set and
at limits 1-3; every solution through the independent verifier; both code paths (the host
CPU's, with x86 SSSE3's byte shuffle where there is one, and the portable IR compiled for a
baseline x86-64) and the IR lowered for aarch64."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import datafiles
import numpy as np
import pytest

from rompicapo.cover import _sudoku_bits_kernel as BK
from rompicapo.cover import _sudoku_simd as VK
from rompicapo.cover import sudoku
from rompicapo.cover.verify import sudoku_ok

SETS = [
    datafiles.DATA / "sudoku" / "puzzles2_17_clue_every24th.txt",
    datafiles.DATA / "sudoku" / "puzzles7_serg_benchmark_every10th.txt",
    datafiles.DATA / "sudoku" / "puzzles6_forum_hardest_1106_first15.txt",
    datafiles.DATA / "sudoku" / "puzzles3_magictour_top1465.txt",
    *sorted((datafiles.DATA / "sudoku-speed").glob("*.txt")),
]


def _old_kernel(puzzles: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    solutions = np.zeros_like(puzzles)
    counts = np.zeros(len(puzzles), np.int32)
    BK.solve_batch(puzzles, limit, solutions, counts, np.zeros(len(puzzles), np.int64))
    return counts, solutions


def _verified(puzzle: np.ndarray, solution: np.ndarray) -> bool:
    return sudoku_ok(puzzle.reshape(9, 9).tolist(), solution.reshape(9, 9).tolist(), (3, 3))


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_answer_for_answer_with_the_bit_set_kernel_at_limits_1_to_3(path):
    puzzles = sudoku.read_puzzles(path)
    for limit in (1, 2, 3):
        counts, solutions, stats = VK.solve(puzzles, limit)
        old_counts, old_solutions = _old_kernel(puzzles, limit)
        assert np.array_equal(counts, old_counts)
        assert (counts >= 1).all() and (counts <= limit).all()
        for p, sol, old, n in zip(puzzles, solutions, old_solutions, counts, strict=True):
            assert _verified(p, sol) and _verified(p, old)
            if n == 1 and limit > 1:  # the only solution there is
                assert np.array_equal(sol, old)
        assert (stats[:, 1] >= 1).all()  # the givens' propagation at least
        assert (stats[:, 0] >= 0).all()


def test_counts_on_grids_with_few_givens_and_no_solution():
    rows = [
        "." * 81,  # 6,670,903,752,021,072,936,960 solutions
        "123456789" + "." * 72,
        "1" + "." * 39 + "5" + "." * 39 + "9",
        "11" + "." * 79,  # two givens clash in a row
        "1........" + ".1......." + "." * 63,  # ... in a box
        "1" + "." * 8 + "1" + "." * 71,  # ... in a column
        "12345678." + "." * 8 + "9" + "." * 63,  # r1c9 must be 9, given lower in its column
    ]
    puzzles = np.array(
        [[0 if ch == "." else int(ch) for ch in row] for row in rows], dtype=np.uint8
    )
    for limit in (1, 2, 3, 40):
        counts, solutions, _ = VK.solve(puzzles, limit)
        assert counts.tolist() == [limit, limit, limit, 0, 0, 0, 0]
        for p, sol in zip(puzzles[:3], solutions[:3], strict=True):
            assert _verified(p, sol)
    # a limit above any count an int32 holds: counting stops at the solutions there are
    full = sudoku.read_puzzles(SETS[2])[:3]
    counts, _, _ = VK.solve(full, 2**40)
    assert counts.tolist() == [1, 1, 1]


def test_read_only_and_strided_input_is_copied_not_compiled_again():
    puzzles = sudoku.read_puzzles(SETS[2])
    expected = VK.solve(puzzles, 2)[0]
    frozen = puzzles.copy()
    frozen.setflags(write=False)
    wide = np.zeros((len(puzzles), 162), np.uint8)
    wide[:, ::2] = puzzles
    assert np.array_equal(VK.solve(frozen, 2)[0], expected)
    assert np.array_equal(VK.solve(wide[:, ::2], 2)[0], expected)
    assert len(VK.solve_batch.signatures) == 1


def test_the_verifier_rejects_corrupted_answers():
    puzzle = sudoku.read_puzzles(SETS[2])[0]
    _, solutions, _ = VK.solve(puzzle.reshape(1, 81), 2)
    good = solutions[0].reshape(9, 9)
    assert _verified(puzzle, good)
    swapped = good.copy()
    swapped[0, [0, 1]] = swapped[0, [1, 0]]  # rows stay whole, two columns break
    changed = good.copy()
    changed[4, 4] = changed[4, 4] % 9 + 1  # one digit wrong
    given = int(np.flatnonzero(puzzle)[0])
    other = np.roll(good, 1, axis=1)  # another grid: the puzzle's solution is unique
    assert not _verified(puzzle, swapped)
    assert not _verified(puzzle, changed)
    assert not _verified(puzzle, other)
    # a complete valid grid that does not keep a given: digits relabelled
    relabelled = good % 9 + 1
    assert sudoku_ok(np.zeros((9, 9), int).tolist(), relabelled.tolist(), (3, 3))
    assert puzzle[given] != relabelled.reshape(81)[given]
    assert not _verified(puzzle, relabelled)


def test_the_portable_ir_on_a_baseline_x86_64_gives_the_same_answers(tmp_path):
    # NUMBA_CPU_NAME=generic: numba compiles for the architecture's baseline (SSE2 on x86-64,
    # no SSSE3), so the kernel takes its portable path (lane selects instead of pshufb)
    names = [str(SETS[1]), str(SETS[2])]
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        from rompicapo.cover import _sudoku_simd as VK, sudoku
        out = {"pshufb": VK._has_ssse3()}
        for name in sys.argv[1:]:
            counts, solutions, _ = VK.solve(sudoku.read_puzzles(name), 2)
            out[name] = [counts.tolist(), solutions.tolist()]
        print(json.dumps(out))
        """
    )
    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_CPU_FEATURES", None)
    run = subprocess.run(
        [sys.executable, "-c", script, *names], env=env, capture_output=True, text=True, check=True
    )
    portable = json.loads(run.stdout)
    assert portable["pshufb"] is False
    for name in names:
        counts, solutions, _ = VK.solve(sudoku.read_puzzles(name), 2)
        assert portable[name] == [counts.tolist(), solutions.tolist()]


def test_the_ir_lowers_for_aarch64_and_baseline_x86_64():
    import llvmlite.binding as llvm
    from llvmlite import ir

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    for triple, cpu in (
        ("aarch64-unknown-linux-gnu", "generic"),
        ("x86_64-unknown-linux-gnu", "x86-64"),
    ):
        module = ir.Module()
        module.triple = triple
        VK.Emitter(module, pshufb=False).emit_all()
        parsed = llvm.parse_assembly(str(module))
        parsed.verify()
        machine = llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, opt=2)
        assert len(machine.emit_object(parsed)) > 10_000
