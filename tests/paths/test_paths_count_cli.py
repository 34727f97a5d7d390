"""``rompicapo count``: output, JSON, lists, proofs, and one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.paths import parse_cell as _parse_cell
from rompicapo.paths import parse_size as _parse_size


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["count", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_count_from_the_centre(capsys):
    code, out, _ = run(capsys, "5x7", "--start", "2,3")
    assert code == 0
    assert "13,272" in out  # the C program's count from the centre of 5x7
    assert "nodes" in out


def test_all_starts_table_and_json(capsys):
    code, out, _ = run(capsys, "4x5", "--all-starts", "--quiet")
    assert code == 0
    # the 4x5 table of test_paths_count.py (subset DP): corners 6, centre columns 4 and 12
    assert "total 144  min 4  max 12" in out
    assert "nodes" not in out  # --quiet drops the statistics line
    code, out, _ = run(capsys, "4x5", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["table"][1][2] == 12 and data["count"] == 144 and data["start"] is None
    for key in ("rows", "cols", "moves", "closed", "nodes", "solve_seconds", "compile_seconds"):
        assert key in data


def test_closed_json_from_a_start(capsys):
    code, out, _ = run(capsys, "5", "--start", "2,2", "--closed", "--json")
    data = json.loads(out)
    # 96 closed tours from each cell of 5x5 (test_paths_count.py, plain DFS)
    assert code == 0 and data["count"] == 96 and data["closed"] is True
    assert data["start"] == [2, 2]


def test_no_path_is_proven(capsys):
    code, out, _ = run(capsys, "4x4", "--all-starts")
    assert code == 0
    assert "no path from any start: proven by exhaustive search (" in out
    code, out, _ = run(capsys, "3x7", "--start", "1,1")
    assert "no path from (1, 1): proven by exhaustive search" in out


def test_list_grids_and_json_lines(capsys):
    code, out, _ = run(capsys, "5", "--start", "0,0", "--limit", "3")
    assert code == 0
    blocks = [b for b in out.strip().split("\n\n") if b]
    assert [b.splitlines()[0] for b in blocks] == ["#1", "#2", "#3"]
    grid = [[int(x) for x in line.split()] for line in blocks[0].splitlines()[1:]]
    assert grid[0][0] == 1 and sorted(v for row in grid for v in row) == list(range(1, 26))
    code, out, _ = run(capsys, "5", "--start", "0,0", "--limit", "3", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3 and all(p[0] == 0 and sorted(p) == list(range(25)) for p in lines)
    code, out, _ = run(capsys, "5x7", "--start", "2,3", "--seed", "5", "--json")
    assert code == 0 and json.loads(out)[0] == 17


def test_the_old_list_and_random_flags_still_work_with_a_warning(capsys):
    code, out, err = run(capsys, "5", "--start", "0,0", "--list", "2", "--json")
    assert code == 0 and len(out.splitlines()) == 2
    assert "--list is deprecated; use --limit" in err
    code, out, err = run(capsys, "5x7", "--start", "2,3", "--random", "5", "--json")
    assert code == 0 and json.loads(out)[0] == 17
    assert "--random is deprecated; use --seed" in err
    with pytest.raises(SystemExit):
        main(["count", "--help"])
    shown = capsys.readouterr().out
    assert "[--limit N]" in shown and "[--list" not in shown and "[--random" not in shown


def test_knight_moves(capsys):
    code, out, _ = run(capsys, "5", "--moves", "knight", "--start", "0,0", "--json")
    assert code == 0
    assert json.loads(out)["count"] == 304  # 5x5 knight's tours from a corner (OEIS A165134)


def test_checkpoint_from_the_cli(capsys, tmp_path):
    ckpt = tmp_path / "c.json"
    code, out, _ = run(capsys, "4x5", "--jobs", "1", "--checkpoint", str(ckpt), "--json")
    assert code == 0 and json.loads(out)["count"] == 144
    saved = json.loads(ckpt.read_text())
    assert saved["kind"] == saved["payload"]["format"] == "rompicapo-count-checkpoint"
    code, _, err = run(capsys, "5x4", "--checkpoint", str(ckpt))
    assert code == 2 and "different problem" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["0"], "must be at least 1"),
        (["5x0"], "must be at least 1"),
        (["5y7"], "write N or RxC"),
        (["5x7", "--start", "5,0"], "outside the 5x7 board"),
        (["5x7", "--start", "2"], "write R,C"),
        (["5x7", "--moves", "queen"], "unknown move set"),
        (["5x7", "--jobs", "0"], "--jobs: must be at least 1"),
        (["5x7", "--limit", "3"], "need --start"),
        (["5x7", "--start", "0,0", "--limit", "-1"], "--limit: must be at least 1"),
        (["5", "--start", "0,0", "--limit", "0"], "--limit: must be at least 1"),
        (["5x7", "--start", "1,1", "--all-starts"], "not allowed with"),
        (["4x5", "--scheduler", "nonsense"], "cannot connect to the Dask scheduler"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    try:
        code = main(["count", *argv])
    except SystemExit as exc:  # argparse's own errors (OneLineParser) exit directly
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2
    assert message in err
    assert err.count("\n") == 1


def test_corrupt_checkpoint_exits_2(capsys, tmp_path):
    ckpt = tmp_path / "c.json"
    ckpt.write_text('{"format": "rompicapo-count-checkpoint"')
    code, _, err = run(capsys, "4x5", "--checkpoint", str(ckpt))
    assert code == 2 and "corrupt" in err and err.count("\n") == 1


@given(st.integers(1, 10_000), st.integers(1, 10_000), st.sampled_from(["x", "X", " x ", "×"]))
def test_parse_size_round_trip(rows, cols, sep):
    assert _parse_size(f"{rows}{sep}{cols}") == (rows, cols)
    assert _parse_size(str(rows)) == (rows, rows)


@given(st.text(max_size=12))
def test_parse_size_never_crashes(text):
    try:
        rows, cols = _parse_size(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert rows >= 1 and cols >= 1


@given(st.integers(-5, 10_000), st.integers(-5, 10_000))
def test_parse_cell_round_trip(r, c):
    assert _parse_cell(f"{r},{c}") == (r, c)
    assert _parse_cell(f" {r} , {c} ") == (r, c)


@given(st.text(max_size=12))
def test_parse_cell_never_crashes(text):
    try:
        r, c = _parse_cell(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(r, int) and isinstance(c, int)
