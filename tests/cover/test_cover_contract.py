"""The run contract in the exact-cover family: one test per promise, each of which
fails without the change it pins down."""

from __future__ import annotations

import importlib
import json
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import (
    EXIT_INTERRUPTED,
    InputError,
    InsufficientMemoryError,
    NotVerifiable,
    ProgressEvent,
    StopRequested,
    default_jobs,
)
from rompicapo.cover import count, counting, engine, pack, parse_dlx, queens, solve, sudoku
from rompicapo.cover.polyomino import load_pieces, load_region
from rompicapo.cover.queens import queens_problem

# the module, not the function rompicapo.cover.solve that the package exports under its name
solve_module = importlib.import_module("rompicapo.cover.solve")
PUZZLE = "...8.1..........435............7.8........1...2..3....6......75..34........2..6.."
QUEENS6 = "\n".join(
    [" ".join(f"r{i}" for i in range(6)) + " " + " ".join(f"c{j}" for j in range(6))]
    + [f"r{i} c{j}" for i in range(6) for j in range(6)]
)  # rooks on 6x6: 720 solutions
# Timings and what depends on the load differ between two runs of the same command.
VOLATILE = {"solve_seconds", "compile_seconds", "peak_bytes", "puzzles_per_second"}


def _stable(d):
    if isinstance(d, dict):
        return {
            k: _stable(v)
            for k, v in d.items()
            if k not in VOLATILE and not k.startswith("worker_cpu")
        }
    if isinstance(d, list):
        return [_stable(v) for v in d]
    return d


def _json(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


# --- --json is to_dict() ------------------------------------------------------------------


def test_json_of_every_command_equals_to_dict_of_the_api_result(capsys, tmp_path):
    f = tmp_path / "rooks.dlx"
    f.write_text(QUEENS6)
    cli = _json(capsys, "cover", str(f), "--json", "--jobs", "1")
    api = count(str(f), jobs=1).to_dict()
    assert _stable(cli) == _stable(api) and cli["solutions"] == 720
    # the keys the earlier issue's --json printed are all still there
    assert {"algorithm", "items", "options", "solutions", "complete", "stopped", "nodes",
            "updates", "cleansings", "jobs", "kept", "file"} <= cli.keys()  # fmt: skip
    cli = _json(capsys, "cover", str(f), "--limit", "2", "--json")
    assert _stable(cli) == _stable(solve(str(f), limit=2).to_dict())
    assert len(cli["kept"]) == 2 and all(isinstance(o, str) for o in cli["kept"][0])

    cli = _json(capsys, "queens", "6", "--json", "--jobs", "1")
    assert _stable(cli) == _stable(queens(6, jobs=1).to_dict())
    assert {"n", "solutions", "placements", "nodes", "solve_seconds"} <= cli.keys()

    cli = _json(capsys, "polyomino", "--region", "3x20", "--json", "--jobs", "1")
    assert _stable(cli) == _stable(pack("pentominoes", "3x20", jobs=1).to_dict())
    assert cli["total"] == 8 and cli["solutions"] == 2
    cli = _json(capsys, "polyomino", "--region", "3x20", "--limit", "1", "--json")
    assert cli["total"] is None and len(cli["drawings"]) == 1

    cli = _json(capsys, "sudoku", "solve", PUZZLE, "--json")
    assert _stable(cli) == _stable(sudoku.solve_file(PUZZLE).to_dict())
    assert {"puzzle", "solutions", "unique", "solution", "engine", "counts"} <= cli.keys()
    batch = tmp_path / "two.txt"
    batch.write_text(PUZZLE + "\n" + "." * 81 + "\n")
    cli = _json(capsys, "sudoku", "solve", str(batch), "--json")
    assert _stable(cli) == _stable(sudoku.solve_file(str(batch)).to_dict())
    assert cli["solutions"] == [1, 2] and cli["puzzles"] == 2

    cli = _json(capsys, "sudoku", "generate", "--seed", "-4", "--json")
    assert _stable(cli) == _stable(sudoku.generate(seed=-4).to_dict())
    cli = _json(capsys, "sudoku", "rate", PUZZLE, "--json")
    assert _stable(cli) == _stable(sudoku.rate_file(PUZZLE).to_dict())
    assert {"label", "guesses", "nodes", "solutions"} <= cli.keys()


def test_limit_is_the_solution_limit_in_queens_and_polyomino_too(capsys):
    # cover and sudoku call it --limit; queens and polyomino's --list is its deprecated alias
    for cmd, shown in (
        (["queens", "8"], "placements"),
        (["polyomino", "--region", "3x20"], "drawings"),
    ):
        assert main([*cmd, "--list", "2", "--json"]) == 0
        out, err = capsys.readouterr()
        listed = json.loads(out)
        assert "--list is deprecated; use --limit" in err
        limited = _json(capsys, *cmd, "--limit", "2", "--json")
        assert listed["solutions"] == limited["solutions"] == 2 and limited["stopped"] == "limit"
        assert listed[shown] == limited[shown] and len(limited[shown]) == 2


# --- old spellings ------------------------------------------------------------------------


def test_earlier_flags_still_parse(capsys, tmp_path):
    f = tmp_path / "rooks.dlx"
    f.write_text(QUEENS6)
    assert _json(capsys, "cover", str(f), "--time-limit", "30", "--json")["solutions"] == 720
    assert _json(capsys, "cover", str(f), "--time", "30", "--json")["solutions"] == 720
    assert _json(capsys, "cover", str(f), "--random", "-7", "--json")["solutions"] == 1
    assert _json(capsys, "cover", str(f), "--processes", "--jobs", "1", "--json")["jobs"] == 1
    seeded = _json(capsys, "cover", str(f), "--seed", "-7", "--json")
    assert seeded["solutions"] == 1
    assert main(["cover", str(f), "--random", "-7", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["kept"] == seeded["kept"] and "--random is deprecated" in err
    assert main(["cover", str(f), "--seed", "3", "--limit", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == 2
    assert main(["cover", str(f), "--count", "--seed", "3"]) == 2
    assert "--seed orders a listing" in capsys.readouterr().err
    r = _json(capsys, "sudoku", "solve", "." * 81, "--max-solutions", "3", "--json")
    assert r["solutions"] == 3 and r["limit"] == 3
    assert main(["queens", "5", "--count", "--jobs", "1"]) == 0
    assert main(["polyomino", "--region", "3x20", "--no-symmetry", "--jobs", "1"]) == 0
    capsys.readouterr()


def test_old_keyword_names_work_with_a_warning():
    with pytest.warns(DeprecationWarning):
        r = sudoku.solve("." * 81, max_solutions=3)
    assert r.count == 3 and r.limit == 3
    with pytest.warns(DeprecationWarning):
        b = sudoku.solve_batch(np.zeros((1, 81), np.uint8), max_solutions=1)
    assert b.counts_per_puzzle.tolist() == [1]
    p = parse_dlx("A | X\n")
    with pytest.warns(DeprecationWarning):
        p.add_option(["A", "X"], colors={"X": "red"})
    assert p.options == [(("A", None), ("X", "red"))]
    assert p.arrays().has_colours and p.arrays().has_colors  # the old spelling stays
    # keep= was a second name beside limit=; keep_solutions= says what it bounds
    with pytest.warns(DeprecationWarning, match="keep= is now keep_solutions="):
        r = solve(parse_dlx(QUEENS6), limit=3, keep=1)
    assert r.count == 3 and len(r.solutions) == 1
    with pytest.warns(DeprecationWarning, match="keep= is now keep_solutions="):
        assert len(queens(6, limit=None, keep=2).placements) == 2
    with pytest.warns(DeprecationWarning, match="keep= is now keep_solutions="):
        assert len(pack("pentominoes", "3x20", limit=2, keep=1).drawings) == 1


# --- validation before work ----------------------------------------------------------------


def _no_kernels(monkeypatch):
    """Make any compilation or kernel call fail the test."""

    def boom(*a, **k):
        raise AssertionError("a kernel was reached")

    monkeypatch.setattr(solve_module, "warm_engine", boom)
    monkeypatch.setattr(counting, "warm_engine", boom)
    monkeypatch.setattr(engine.CK, "build_cells", boom)
    monkeypatch.setattr(engine.BK, "build_bits", boom)
    monkeypatch.setattr(engine.K, "build_links", boom)
    monkeypatch.setattr(counting, "split", boom)


def test_memory_is_estimated_before_any_array_or_kernel(monkeypatch):
    wide = parse_dlx((" ".join(f"i{k}" for k in range(100_000)) + "\n") * 2)
    # dancing cells would save 2 x 100,001 x 100,000 uint32 set sizes: refused up front
    assert solve_module.search_bytes(wide.arrays(), "cells") > 8 * 10**10
    _no_kernels(monkeypatch)
    with pytest.raises(InsufficientMemoryError, match="cells engine"):
        solve(wide, engine="cells")
    with pytest.raises(InsufficientMemoryError):
        count(wide, engine="cells", jobs=1)


def test_auto_leaves_dancing_cells_when_they_would_not_fit():
    wide = parse_dlx((" ".join(f"i{k}" for k in range(20_000)) + "\n") * 2)
    assert solve_module.plan_engine(wide.arrays()) in ("bits", "links")
    r = solve(wide)
    assert r.count == 1 and r.verify()


def test_a_wrong_scheduler_is_reported_before_the_tree_is_split(monkeypatch, addresses):
    _no_kernels(monkeypatch)
    with pytest.raises(InputError, match="Dask scheduler"):
        count(parse_dlx(QUEENS6), scheduler=addresses["closed"])
    with pytest.raises(InputError, match="Dask scheduler"):
        pack("pentominoes", "3x20", scheduler="not an address")


@pytest.fixture
def addresses():
    import socket

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return {"closed": f"tcp://127.0.0.1:{port}"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: solve(parse_dlx(QUEENS6), time_limit=-5), "time_limit"),
        (lambda: solve(parse_dlx(QUEENS6), limit=0), "limit"),
        (lambda: solve(parse_dlx(QUEENS6), node_limit=10**30), "node_limit"),
        (lambda: solve(parse_dlx(QUEENS6), seed="x"), "seed"),
        (lambda: solve(parse_dlx(QUEENS6), progress=3), "progress"),
        (lambda: count(parse_dlx(QUEENS6), jobs=0), "jobs"),
        (lambda: queens(10**6), "at most"),
        (lambda: pack("foo"), "unknown piece set"),
        (lambda: pack("pentominoes", "99999x99999"), "at most"),
        (lambda: sudoku.generate(box="0x3"), "box"),
        (lambda: sudoku.generate(clues=10**25), "clues"),
        (lambda: sudoku.solve_batch(np.full((1, 81), 10, np.uint8)), "0 \\(empty\\) to 9"),
    ],
)
def test_run_contract_arguments_are_checked_at_the_entry_point(monkeypatch, call, message):
    _no_kernels(monkeypatch)
    with pytest.raises(InputError, match=message):
        call()


# --- results: verify(), counts, seeds, jobs ---------------------------------------------------


def test_verify_means_checked_or_not_verifiable():
    p = parse_dlx(QUEENS6)
    with pytest.raises(NotVerifiable):
        count(p, jobs=1).verify()  # a count keeps no solution
    r = solve(p, limit=3)
    assert r.verify() is True
    r.solutions[0] = r.solutions[0][:-1]  # an option removed: a row and column uncovered
    assert r.verify() is False
    with pytest.raises(NotVerifiable):
        sudoku.solve("11" + "." * 79).verify()  # no solution to check
    with pytest.raises(NotVerifiable):
        queens(6, jobs=1).verify()
    with pytest.raises(NotVerifiable):
        pack("pentominoes", "3x20", jobs=1).verify()
    assert queens(6, limit=2).verify() is True


def test_any_integer_seed_and_reproducible():
    p = parse_dlx(QUEENS6)
    assert solve(p, seed=-1).solution == solve(p, seed=-1).solution
    assert solve(p, seed=2**80).solution == solve(p, seed=2**80).solution
    a, b = sudoku.generate(seed=-1), sudoku.generate(seed=-1)
    assert a.puzzle == b.puzzle and a.verify() and a.seed == -1


def test_jobs_default_to_all_cores_and_too_many_are_capped_with_a_note():
    p = parse_dlx(QUEENS6)
    r = count(p)
    assert r.count == 720 and r.jobs == default_jobs()
    r = count(p, jobs=4096)
    assert r.jobs == default_jobs() and any("capped" in n for n in r.notes)
    # what cannot be split runs in one process with jobs=None, and says so
    bounded = parse_dlx("2|A B\nA\nA B\nB\n")
    r = count(bounded)
    assert r.count == 1 and r.jobs == 1


def test_a_parallel_count_stops_at_its_time_limit_with_a_lower_bound():
    # 17 queens have 95,815,104 solutions, minutes of work; 0.3 s covers only part of it
    r = count(queens_problem(17), jobs=2, time_limit=0.3)
    assert r.stopped == "time" and not r.complete and r.count < 95_815_104
    with pytest.raises(InputError, match="node limit"):
        count(queens_problem(6), jobs=2, node_limit=10)


def test_progress_is_one_callback_of_progress_events():
    seen: list[ProgressEvent] = []
    r = pack("pentominoes", "3x20", jobs=1, progress=seen.append)
    assert r.total == 8 and all(isinstance(e, ProgressEvent) for e in seen)
    assert seen[0].kind == "start" and seen[-1].kind == "done"
    seen.clear()
    queens(6, limit=1, progress=seen.append)
    assert seen[-1].counts["solutions"] == 1


def test_ctrl_c_keeps_the_solutions_found_so_far(monkeypatch, capsys, tmp_path):
    solve(parse_dlx(QUEENS6))  # compile first: the warm-up runs the search on a tiny problem
    real_run = engine.Search.run
    calls = {"n": 0}

    def run_then_interrupt(self, **kw):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        kw["stop_after"] = 5  # find a few solutions, then the "user" presses Ctrl-C
        kw["max_store"] = min(kw["max_store"], 5)
        return real_run(self, **kw)

    monkeypatch.setattr(engine.Search, "run", run_then_interrupt)
    r = solve(parse_dlx(QUEENS6), limit=None)
    assert r.stopped == "interrupted" and not r.complete and r.count == 5
    assert len(r.solutions) == 5 and r.verify()
    f = tmp_path / "rooks.dlx"
    f.write_text(QUEENS6)
    calls["n"] = 0
    code = main(["cover", str(f), "--all"])
    out, err = capsys.readouterr()
    assert code == EXIT_INTERRUPTED and out.count("solution ") == 5 and "interrupted" in err


def test_a_stop_from_the_progress_callback_keeps_the_solutions_found_so_far():
    # The playground's Stop button makes every later callback raise StopRequested, the
    # closing "done" report's included: that one must not lose what was found.
    def stop_once_some_are_found():
        calls = []

        def callback(event: ProgressEvent) -> None:
            if calls or event.counts.get("solutions", 0) > 0:
                calls.append(event.kind)
                raise StopRequested

        return callback, calls

    # 15 queens: seconds of work, longer than the 0.2 s between two progress reports
    callback, calls = stop_once_some_are_found()
    r = solve(queens_problem(15), limit=None, progress=callback)
    assert calls == ["progress"] and r.stopped == "interrupted" and not r.complete
    assert 0 < r.count < 2_279_184 and len(r.solutions) == r.count and r.verify()
    callback, calls = stop_once_some_are_found()
    c = count(queens_problem(15), jobs=1, progress=callback)
    assert calls == ["progress"] and c.stopped == "interrupted" and 0 < c.count < 2_279_184
    # a stop asked for by the closing report finds nothing left to stop: the result is whole
    done = count(queens_problem(6), jobs=1, progress=lambda e: _stop_at_done(e))
    assert done.complete and done.count == 4 and done.stopped is None


def _stop_at_done(event: ProgressEvent) -> None:
    if event.kind == "done":
        raise StopRequested


# --- Sudoku files: the layout is decided in the API ---------------------------------------


def test_solve_file_reads_each_layout(tmp_path):
    grid = tmp_path / "grid.txt"
    grid.write_text(sudoku.Sudoku.parse(PUZZLE).pretty() + "\n")
    assert isinstance(sudoku.solve_file(grid), sudoku.SudokuResult)
    lines = tmp_path / "lines.txt"
    lines.write_text("# two puzzles\n" + PUZZLE + "\n\n" + PUZZLE + "\n")
    batch = sudoku.solve_file(str(lines))
    assert isinstance(batch, sudoku.BatchResult) and batch.counts_per_puzzle.tolist() == [1, 1]
    sixteen = tmp_path / "sixteen.txt"
    sixteen.write_text("." * 256 + "\n" + "." * 256 + "\n")
    many = sudoku.solve_file(sixteen, limit=1)
    assert isinstance(many, sudoku.SudokuResults) and many.to_dict()["puzzles"] == 2
    assert many.verify()
    lines.write_text(PUZZLE + "\n" + PUZZLE + "\n" + "." * 80 + "q\n")
    with pytest.raises(InputError, match=r"lines\.txt:3"):
        sudoku.solve_file(lines)
    with pytest.raises(InputError, match="does not exist"):
        sudoku.solve_file("no/such/puzzles.txt")


# --- parsers: random input raises InputError and nothing else --------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AB.x/#\n |-1", max_size=60))
def test_piece_and_region_loaders_raise_only_input_errors(text):
    for load in (load_pieces, load_region):
        try:
            load(text)
        except InputError as exc:
            assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_puzzle_reader_raises_only_input_errors(data):
    try:
        arr = sudoku.read_puzzles(data)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert arr.shape[1] == 81 and arr.max() <= 9


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.sampled_from([None, "3x3", "2x2", "0x1", "x", "36x1"]))
def test_sudoku_text_loader_raises_only_input_errors(text, box):
    text = text.replace("/", "")
    assume(text != "-")  # "-" names standard input (documented), which the test run captures
    try:
        sudoku.load_puzzles(text, box=box)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.integers(max_value=12),
        st.integers(min_value=1001),
        st.text(alphabet="ab -x", max_size=8),
        st.floats().filter(lambda f: not 12 < f < 1001),
        st.none(),
    )
)
def test_queens_size_is_an_int_in_range_or_refused(n):
    try:
        p = queens_problem(n)
    except InputError:
        return
    assert len(p.options) == int(n) ** 2


def test_deprecation_warnings_are_not_raised_by_the_new_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sudoku.solve(PUZZLE, limit=2)
        parse_dlx("A | X\n").add_option(["A", "X"], colours={"X": 1})
