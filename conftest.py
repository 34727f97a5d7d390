"""Every example in the README and the documentation runs in the test suite (Sybil).

- ```` ```python ```` blocks run as code, ``>>>`` examples (```` ```pycon ````, or inside
  python blocks) as doctests, with ELLIPSIS and NORMALIZE_WHITESPACE;
- ```` ```console ```` blocks are command-line examples, run by
  :func:`rompicapo.cli.examples.check_console_block` (``$ rompicapo ...`` then its output);
- ``<!-- skip: next "reason" -->`` before a block skips it, with the reason in the report
  (for runs too long for the suite);
- a ``DeprecationWarning`` raised by rompicapo fails the example: the docs show today's names
  (``time_limit``, not ``seconds``).

Examples run in a fresh folder per page that shows the repository's top-level entries (links to
them), so they name files as ``tests/data/...`` and what they write (``h.sqlite``, ``out.svg``)
lands in that folder, removed after the page, never in the checkout.
Docstring examples in the package run through pytest's ``--doctest-modules``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from doctest import ELLIPSIS, NORMALIZE_WHITESPACE
from pathlib import Path

from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).parent


class PyconBlockParser(PythonCodeBlockParser):
    """```` ```pycon ```` blocks: an interactive session, run as a doctest."""

    def __init__(self) -> None:
        super().__init__(doctest_optionflags=ELLIPSIS | NORMALIZE_WHITESPACE)
        self.codeblock_parser = CodeBlockParser("pycon", self.codeblock_parser._evaluator)


class ConsoleBlockParser(CodeBlockParser):
    """```` ```console ```` blocks: ``$ rompicapo ...`` lines and what they print."""

    language = "console"

    def evaluate(self, example) -> None:
        from rompicapo.cli.examples import check_console_block

        check_console_block(example.parsed)


def _at_root(namespace: dict) -> None:
    namespace["_cwd"] = os.getcwd()
    folder = Path(tempfile.mkdtemp(prefix="rompicapo-examples-"))
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (folder / entry.name).symlink_to(entry)
    namespace["_folder"] = folder
    os.chdir(folder)
    namespace["_warnings"] = warnings.catch_warnings()
    namespace["_warnings"].__enter__()
    # the old keyword names warn through rompicapo.common.run.renamed_keywords
    warnings.filterwarnings("error", category=DeprecationWarning, message=r".*: \w+= is now \w+=")
    warnings.filterwarnings("error", category=DeprecationWarning, module="rompicapo")


def _back(namespace: dict) -> None:
    namespace.pop("_warnings").__exit__(None, None, None)
    os.chdir(namespace.pop("_cwd"))
    shutil.rmtree(namespace.pop("_folder"), ignore_errors=True)


# The test tiers. Each test is "quick" unless it is of a kind below, which starts a browser, a
# documentation build, a package build, many processes or a long search: `python -m pytest -m
# quick` runs the unit tests of every family in about a minute, for a change to one family;
# `python -m pytest` runs every tier (CI runs that). A kind is given by where the test lives
# (a path below, from the repository's root, or a test's node id) or by its own marker of that
# name.
TIERS = {
    "browser": ("tests/web/test_web_browser_",),
    "docs": ("README.md", "docs/", "tests/test_docs.py", "tests/test_notebook.py"),
    "packaging": ("tests/test_packaging.py", "tests/test_first_run.py", "tests/test_common_jit.py"),
    "processes": (
        "tests/hostile/",
        "tests/web/",  # the playground's job manager runs every job in worker processes
        "rompicapo/web/app.py::rompicapo.web.app.create_app",
        "rompicapo/common/workers.py::rompicapo.common.workers.die_with_parent",
        "tests/test_extras.py",
        "tests/test_cli_exit.py",
        "tests/test_common_robust.py::test_worker_processes_are_reaped_when_a_run_stops",
        "tests/test_common_robust.py::test_the_watchdog_stops_a_loop_that_forgot_the_clock",
        "tests/test_common_robust.py::test_the_resource_tracker_says_nothing",
        "tests/cover/test_cover_solve.py::test_counting_on_a_dask_cluster_api_and_cli",
    ),
    "long": (
        "tests/edges/test_hunt.py",
        "tests/edges/test_hunt_web.py",
        "tests/edges/test_edges_study.py",
        "tests/edges/test_edges_improve.py",
        "tests/edges/test_holdback.py",
        "tests/edges/test_edges_score_breaks.py",
        "tests/games/test_games_connect4_speed.py",
        "tests/paths/test_paths_count_parallel.py",
        "tests/test_time_limits.py",
        # single tests of 7 s or more in the quick tier (measured on the 2-core machine, loaded),
        # then of 1.4 s or more that kept the tier above 90 s on it
        "tests/games/test_games_run_contract.py::test_unreached_limits_change_nothing",
        "tests/paths/test_paths_cycles.py::test_shipped_table_is_what_the_builder_regenerates",
        "tests/paths/test_narrow.py::test_posa_middle_rows_of_four_by_n",
        "tests/cover/test_cover_contract.py::test_a_stop_from_the_progress_callback_keeps",
        "tests/paths/test_paths_count.py::test_pruned_equals_plain_dfs",
        "tests/paths/test_paths_cycles.py::test_cycles_on_transposed_boards_do_not_change",
        "rompicapo/games/tictactoe.py::rompicapo.games.tictactoe.analyse_tictactoe",
        "tests/cover/test_cover_apps.py::test_cli_sudoku_solve_generate_rate",
        "tests/cover/test_cover_solve.py::test_algorithm_c_finds_exactly_the_brute_force_solutions",
        "tests/cover/test_cover_solve.py::test_algorithm_m_finds_exactly_the_brute_force_solutions",
        "tests/cover/test_cover_solve.py::test_dancing_cells_finds_exactly_the_brute_force_solutions",
        "tests/cover/test_cover_solve.py::test_engines_with_a_seed_and_a_given_match_brute_force",
        "tests/cover/test_cover_sudoku.py::test_a_time_limit_keeps_what_was_reached",
        "tests/cover/test_cover_sudoku.py::test_verifier_catches_any_changed_cell",
        "tests/cover/test_cover_sudoku_bits.py::test_counts_agree_with_dlx_on_random_puzzles",
        "tests/cover/test_cover_sudoku_hint.py::test_steps_agree_with_the_unique_solution",
        "tests/cover/test_cover_sudoku_simd.py::test_the_ir_lowers_for_aarch64_and_baseline_x86_64",
        "tests/cover/test_cover_sudoku_simd.py::test_the_portable_ir_on_a_baseline_x86_64_gives_the_same_answers",
        "tests/edges/test_edges_contract.py::test_study_and_report_json_are_to_dict",
        "tests/edges/test_edges_search.py::test_solve_in_two_processes_collects_the_best",
        "tests/edges/test_edges_walk_machine.py::test_auto_compiles_a_machine_only_for_a_long_search",
        "tests/games/test_games_connect4.py::test_every_feature_combination_gives_the_same_scores",
        "tests/games/test_games_connect4.py::test_pons_test_sets",
        "tests/games/test_games_search.py::test_engine_agrees_on_game_positions",
        "tests/games/test_games_search.py::test_fail_hard_stays_in_window",
        "tests/games/test_games_search.py::test_knuth_moore_contract_fail_soft",
        "tests/games/test_games_search.py::test_knuth_moore_contract_with_the_limits_watching",
        "tests/games/test_games_search.py::test_tictactoe_positions_by_retrograde_analysis",
        "tests/paths/test_narrow.py::test_four_by_n_matches_exhaustive_search",
        "tests/paths/test_narrow.py::test_posa_holds_for_the_giraffe_on_four_rows",
        "tests/paths/test_narrow.py::test_three_by_n_matches_exhaustive_search",
        "tests/paths/test_paths_blocks.py::test_auto_method_uses_blocks_only_where_they_apply",
        "tests/paths/test_paths_blocks.py::test_cell_at_and_step_of_agree_with_the_built_path",
        "tests/paths/test_paths_blocks.py::test_dask_local_cluster_writes_the_same_file",
        "tests/paths/test_paths_construct.py::test_64_bit_indices_are_used_above_the_32_bit_limit",
        "tests/paths/test_paths_construct.py::test_a_lattice_proof_means_the_board_falls_apart",
        "tests/paths/test_paths_construct.py::test_a_line_board_needs_only_the_moves_along_it",
        "tests/paths/test_paths_cycles.py::test_cell_at_and_step_of_are_inverse",
        "tests/paths/test_paths_cycles.py::test_large_path_arrays_written_with_streaming_stores_are_the_same_path",
        "tests/paths/test_paths_cycles.py::test_streamed_cycle_is_verified",
        "tests/test_common_robust.py::test_big_json_files_read_as_json_loads_reads_them",
    ),
}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        where = item.nodeid  # "tests/paths/test_narrow.py::test_...", from the root
        kinds = {kind for kind, places in TIERS.items() if where.startswith(places)}
        kinds |= {mark.name for mark in item.iter_markers() if mark.name in TIERS}
        for kind in kinds:
            item.add_marker(kind)
        if not kinds and item.get_closest_marker("slow") is None:
            item.add_marker("quick")


pytest_collect_file = Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=ELLIPSIS | NORMALIZE_WHITESPACE),
        PyconBlockParser(),
        ConsoleBlockParser(),
        SkipParser(),
    ],
    patterns=["README.md", "docs/*.md", "docs/**/*.md"],
    setup=_at_root,
    teardown=_back,
).pytest()
