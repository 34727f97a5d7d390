"""Issue 12's run contract for the edge-matching family: one test per promise."""

from __future__ import annotations

import ast
import contextlib
import inspect
import json
import textwrap
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rompicapo.edges.blackwood as B
from rompicapo.cli import build_parser, main
from rompicapo.common import InputError, NotVerifiable, ProgressEvent
from rompicapo.edges import improve_board, score_board, solve
from rompicapo.edges.generate import generate, parse_size
from rompicapo.edges.improve import ImproveResult
from rompicapo.edges.puzzle import (
    board_from_url,
    eternity2,
    format_board,
    format_pieces,
    parse_board,
    parse_pieces,
)
from rompicapo.edges.study import StudyRun

ROOT = Path(__file__).resolve().parents[2]
PUZZLE, SOLUTION = generate(5, 5, frame_colours=2, inner_colours=3, seed=3)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    pieces, board = tmp_path / "p.txt", tmp_path / "s.txt"
    pieces.write_text(format_pieces(PUZZLE))
    board.write_text(format_board(SOLUTION, PUZZLE))
    return pieces, board


# ---- a bad output path fails before anything is searched ---------------------------------


def _no_search(*args, **kwargs):
    raise AssertionError("the search ran although an output path was bad")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"out": "/nonexistent/b.txt"},
        {"out": "b.npy"},
        {"svg": "/nonexistent/x.svg"},
        {"png": "x.svg"},
        {"heat": "heat.txt"},
    ],
)
def test_bad_output_path_refused_before_the_search(kwargs, monkeypatch) -> None:
    monkeypatch.setattr(B, "solve", _no_search)
    with pytest.raises(InputError):
        solve("eternity2", time_limit=600, **kwargs)


def test_improve_bad_output_refused_before_the_search(tmp_path, monkeypatch) -> None:
    import rompicapo.edges.improve as I

    pieces, board = _files(tmp_path)
    monkeypatch.setattr(I, "improve", _no_search)
    with pytest.raises(InputError, match="does not exist"):
        improve_board(board, pieces, time_limit=600, out="/nonexistent/x.txt")


def test_bad_scheduler_refused_before_any_worker(monkeypatch) -> None:
    import rompicapo.edges.blackwood_solve as BW

    monkeypatch.setattr(BW, "run_jobs", _no_search)
    with pytest.raises(InputError, match="Dask scheduler"):
        B.solve(PUZZLE, time_limit=600, scheduler="tcp://no-such-host.invalid:8786")


def test_heuristic_colours_must_be_the_puzzles() -> None:
    with pytest.raises(InputError, match="heuristic"):
        B.make_plan(eternity2(), settings=B.Settings(heuristic=(99, 100, 101)))


# ---- verify(): True, False, or NotVerifiable --------------------------------------------


def test_verify_raises_not_verifiable_without_a_board() -> None:
    for result in (B.EdgeSearchResult(), ImproveResult(), StudyRun()):
        with pytest.raises(NotVerifiable):
            result.verify()
    assert B.EdgeSearchResult().to_dict()["verified"] is None


def test_verify_false_for_a_wrong_score() -> None:
    res = B.search(PUZZLE, time_limit=None, node_limit=5000, seed=0)
    assert res.verify() is True
    res.score += 1
    assert res.verify() is False


def test_score_verify_catches_a_swapped_piece(tmp_path) -> None:
    # the verifier recounts on its own: a board changed after scoring (two inner pieces
    # swapped, still a valid board) no longer has the score the result reports
    result = score_board(SOLUTION, PUZZLE)
    assert result.score == PUZZLE.n_joints and result.valid and result.verify() is True
    board = result.board
    (r1, c1), (r2, c2) = (1, 1), (2, 3)
    board.piece[r1, c1], board.piece[r2, c2] = board.piece[r2, c2], board.piece[r1, c1]
    board.rotation[r1, c1], board.rotation[r2, c2] = (
        board.rotation[r2, c2], board.rotation[r1, c1]
    )  # fmt: skip
    assert score_board(board.copy(), PUZZLE).score < PUZZLE.n_joints  # really corrupted
    assert result.verify() is False


def test_score_verify_does_not_share_the_scorer() -> None:
    # score_board counts with the model; verify() with rompicapo.edges.verify only
    import rompicapo.edges.api as A

    scorer = ast.parse(inspect.getsource(A.score_board))
    checker = ast.parse(textwrap.dedent(inspect.getsource(A.ScoreResult.verify)))

    def calls(tree: ast.AST) -> set[str]:
        return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name)}  # fmt: skip

    shared = calls(scorer) & calls(checker) - {"len", "not"}
    assert not shared, shared
    assert "count_matched_joints" in calls(checker) and "score" in calls(scorer)


# ---- --json is to_dict() -------------------------------------------------------------------


def _json(argv, capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_score_json_is_to_dict(tmp_path, capsys) -> None:
    pieces, board = _files(tmp_path)
    got = _json(["edges", "score", str(board), str(pieces), "--json"], capsys)
    assert got == json.loads(json.dumps(score_board(board, pieces).to_dict()))
    # the keys earlier issues named
    assert {"score", "max_score", "mismatched", "placed", "cells", "valid", "problems"} <= set(got)


_TIMING = {"solve_seconds", "compile_seconds", "wall_seconds", "cpu_seconds", "peak_bytes",
           "placements_per_second", "placements_per_cpu_second", "history", "url"}  # fmt: skip


def _stable(d: dict) -> dict:
    return {k: (_stable(v) if isinstance(v, dict) else v) for k, v in d.items()
            if k not in _TIMING}  # fmt: skip


def test_solve_json_is_to_dict(tmp_path, capsys) -> None:
    pieces, _ = _files(tmp_path)
    argv = ["edges", "solve", str(pieces), "--nodes", "3000", "--jobs", "1", "--seed", "4",
            "--order", "rows", "--json"]  # fmt: skip
    got = _json(argv, capsys)
    api = solve(str(pieces), node_limit=3000, jobs=1, seed=4,
                settings=B.Settings(order="rows")).to_dict()  # fmt: skip
    assert set(got) == set(api)
    assert _stable(got) == _stable(json.loads(json.dumps(api)))
    assert {"score", "max_score", "search_score", "search_depth", "deepest", "solved",
            "exhausted", "interrupted", "counts", "placements_per_second", "settings",
            "verified", "url", "out", "polish", "puzzle", "size"} <= set(got)  # fmt: skip
    assert {"nodes", "placements", "restarts"} <= set(got["counts"])


def test_improve_json_is_to_dict(tmp_path, capsys) -> None:
    pieces, _ = _files(tmp_path)
    start = SOLUTION.copy()
    start.piece[1:3, 1:3] = -1
    holes = tmp_path / "h.txt"
    holes.write_text(format_board(start, PUZZLE))
    argv = ["edges", "improve", str(holes), str(pieces), "--nodes", "50", "--seed", "2",
            "--json"]  # fmt: skip
    got = _json(argv, capsys)
    api = improve_board(holes, pieces, node_limit=50, seed=2, time_limit=None).to_dict()
    assert set(got) == set(api)
    assert _stable(got) == _stable(json.loads(json.dumps(api)))
    assert got["verified"] is True and {"iterations", "nodes"} <= set(got["counts"])


# ---- old spellings still parse ------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        [
            "edges",
            "solve",
            "eternity2",
            "--time",
            "5",
            "--nodes",
            "9",
            "--jobs",
            "1",
            "--seed",
            "-1",
            "--node-cap",
            "5",
            "--quota-scale",
            "0.9",
            "--heuristic",
            "13,16,10",
            "--breaks",
            "201,206",
            "--order",
            "rows",
            "--quota",
            "none",
            "--polish",
            "1",
            "--out",
            "b.txt",
            "--svg",
            "b.svg",
            "--png",
            "b.png",
            "--heat",
            "h.svg",
            "--scheduler",
            "tcp://h:1",
            "--clues",
            "all",
            "--allow-duplicates",
            "--json",
            "--quiet",
        ],
        ["edges", "solve", "eternity2", "--time-limit", "5", "--max-nodes", "9"],
        [
            "edges",
            "improve",
            "b.txt",
            "eternity2",
            "--time",
            "3",
            "--out",
            "x.txt",
            "--seed",
            "1",
            "--clues",
            "none",
            "--node-cap",
            "9",
            "--json",
            "--allow-duplicates",
            "--quiet",
        ],
        [
            "edges",
            "generate",
            "5x5",
            "--frame-colors",
            "2",
            "--inner-colors",
            "3",
            "--seed",
            "1",
            "--out",
            "p.txt",
            "--solution",
            "s.txt",
        ],
        [
            "edges",
            "study",
            "eternity2",
            "--db",
            "s.sqlite",
            "--time",
            "1",
            "--nodes",
            "9",
            "--jobs",
            "1",
            "--seeds",
            "1",
            "--baseline-seeds",
            "1",
            "--color-sets",
            "none",
            "--curves",
            "0",
            "--break-variants",
            "0",
            "--amplitude",
            "0.1",
            "--level-spread",
            "0",
            "--break-shift",
            "2",
            "--design-seed",
            "1",
            "--max-jobs",
            "1",
            "--json",
            "--quiet",
            "--scheduler",
            "tcp://h:1",
            "--clues",
            "centre",
            "--allow-duplicates",
        ],
        ["edges", "study-report", "s.sqlite", "--out", "rep", "--json"],
        [
            "edges",
            "render",
            "b.txt",
            "eternity2",
            "--svg",
            "x.svg",
            "--png",
            "x.png",
            "--numbers",
            "--allow-duplicates",
        ],
        ["edges", "url", "b.txt", "eternity2", "--name", "x", "--allow-duplicates"],
        ["edges", "score", "b.txt", "eternity2", "--json", "--allow-duplicates"],
    ],
)
def test_earlier_flags_still_parse(argv) -> None:
    args = build_parser().parse_args(argv)
    assert callable(args.handler)


def test_every_option_has_help() -> None:
    parser = build_parser()
    edges = parser._subparsers._group_actions[0].choices["edges"]
    for name, sub in edges._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            if action.option_strings and action.dest != "help":
                assert action.help, f"edges {name} {action.option_strings[0]} lacks help"


def test_old_keyword_names_keep_working() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = B.search(PUZZLE, seconds=None, max_nodes=2000, seed=1)
    new = B.search(PUZZLE, time_limit=None, node_limit=2000, seed=1)
    assert old.counts == new.counts and old.search_score == new.search_score
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


# ---- run contract details -------------------------------------------------------------------


def test_progress_events_and_negative_seeds() -> None:
    events: list[ProgressEvent] = []
    res = B.search(PUZZLE, time_limit=None, node_limit=20_000, seed=-7, progress=events.append)
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and "best" in kinds
    best = [e for e in events if e.kind == "best"][-1]
    assert best.best == res.search_score and best.counts["max_score"] == PUZZLE.n_joints


def test_jobs_beyond_the_cores_are_capped_with_a_note() -> None:
    res = B.solve(PUZZLE, time_limit=1, node_limit=2000, jobs=4096, seed=0)
    assert res.note and "4096" in res.note and res.settings["jobs"] < 4096


def test_settings_take_a_quota_curve() -> None:
    curve = tuple(range(25))
    plan = B.make_plan(PUZZLE, settings=B.Settings(quota=curve, breaks="none", quota_scale=1.0))
    assert plan.pos_quota.tolist() == list(curve) and not plan.exact
    with pytest.raises(InputError, match="25 values"):
        B.make_plan(PUZZLE, settings=B.Settings(quota=(1, 2, 3)))


# ---- structure: no cycles, no private names across modules, an independent verifier -------


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def _top_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_no_import_cycles_in_the_study_and_its_cli() -> None:
    assert not any("study_report" in m for m in _imports(ROOT / "rompicapo/edges/study.py"))
    assert "rompicapo.cli.edges" not in _imports(ROOT / "rompicapo/cli/edges_study.py")
    study = _imports(ROOT / "rompicapo/edges/study.py")
    assert not any(m.rsplit(".", 1)[-1].startswith("_") and "rompicapo" in m for m in study)


def test_the_verifier_shares_no_code_with_the_solver() -> None:
    assert not any("rompicapo.edges" in m for m in _imports(ROOT / "rompicapo/edges/verify.py"))
    for name in ("puzzle", "blackwood", "improve", "study"):
        top = _top_imports(ROOT / f"rompicapo/edges/{name}.py")
        assert "rompicapo.edges.verify" not in top, name


# ---- parsers: random text is an InputError or a value, never anything else --------------


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200))
def test_parsers_raise_only_input_errors(text) -> None:
    for parse in (
        lambda t: parse_pieces(t),
        lambda t: parse_board(t, PUZZLE),
        lambda t: board_from_url(t, PUZZLE),
        lambda t: parse_size(t),
    ):
        with contextlib.suppress(InputError):
            parse(text)


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.lists(st.integers(min_value=-5, max_value=10**25), min_size=0, max_size=6),
        max_size=30,
    )
)
def test_number_files_raise_only_input_errors(lines) -> None:
    text = "\n".join(" ".join(map(str, row)) for row in lines)
    for parse in (lambda t: parse_pieces(t), lambda t: parse_board(t, PUZZLE)):
        with contextlib.suppress(InputError):
            parse(text)


# ---- the study file: checked rows; --json of study and study-report ----------------------


def _small_study(tmp_path: Path) -> Path:
    from rompicapo.edges.study import Budget, Design, run_study

    db = tmp_path / "s.sqlite"
    design = Design(colour_sets="none", curves=1, break_variants=0, seeds=1, baseline_seeds=1)
    run_study(db, eternity2(), design, Budget(node_limit=2000), jobs=1)
    return db


def test_an_edited_study_file_is_refused(tmp_path) -> None:
    import sqlite3

    from rompicapo.edges.study import StudyError, load_results

    db = _small_study(tmp_path)
    assert len(load_results(db)) == 2
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE results SET score = score + 100 WHERE rowid = 1")
    conn.close()
    with pytest.raises(StudyError, match="edited or damaged"):
        load_results(db)


def test_study_and_report_json_are_to_dict(tmp_path, capsys) -> None:
    from rompicapo.edges.study import Design, study
    from rompicapo.edges.study_report import study_report

    argv = ["edges", "study", "eternity2", "--db", str(tmp_path / "c.sqlite"), "--jobs", "1",
            "--nodes", "2000", "--colour-sets", "none", "--curves", "1", "--break-variants",
            "0", "--seeds", "1", "--baseline-seeds", "1", "--json"]  # fmt: skip
    got = _json(argv, capsys)
    design = Design(colour_sets="none", curves=1, break_variants=0, seeds=1, baseline_seeds=1)
    api = study("eternity2", tmp_path / "d.sqlite", node_limit=2000, jobs=1, design=design)
    assert set(got) == set(api.to_dict())
    assert {
        "planned",
        "already_done",
        "ran",
        "remaining",
        "interrupted",
        "seconds",
        "placements",
        "placements_per_second",
        "cpu_seconds",
        "workers",
        "db",
    } <= set(got)
    assert (got["planned"], got["ran"]) == (api.planned, api.ran) == (2, 2)
    db = tmp_path / "c.sqlite"
    report = _json(["edges", "study-report", str(db), "--out", str(tmp_path / "r"), "--json"],
                   capsys)  # fmt: skip
    assert report == json.loads(json.dumps(study_report(db, tmp_path / "r").to_dict()))


def test_a_failed_final_write_prints_the_board(tmp_path, capsys, monkeypatch) -> None:
    import rompicapo.edges.api as api

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    pieces, _ = _files(tmp_path)
    monkeypatch.setattr(api, "save_board", full_disk)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "b.txt"
    code = main(["edges", "solve", str(pieces), "--nodes", "3000", "--jobs", "1", "--quiet",
                 "--out", str(out)])  # fmt: skip
    printed, err = capsys.readouterr()
    # a write that fails after the work is not an input error: exit 1, one line
    # saying what failed and that no other folder took the board either (every write fails)
    assert code == 1 and not out.exists()
    assert "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert "no other folder" in err
    # the board is on stdout: 25 placement lines after the report
    board_lines = [line for line in printed.splitlines() if line[:1].isdigit()]
    assert len(board_lines) == 25
