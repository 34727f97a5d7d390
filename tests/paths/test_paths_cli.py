"""``rompicapo path`` and ``rompicapo verify-path`` as a user runs them (issue 2's contract)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from rompicapo.cli import main
from rompicapo.paths import render, verify_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_grid_is_a_valid_path(capsys):
    code, out, _ = run(capsys, "path", "10")
    assert code == 0
    lines = out.strip().splitlines()
    assert "found, verified" in lines[0]
    grid = np.array([[int(v) for v in line.split()] for line in lines[2:12]])
    assert grid.shape == (10, 10)
    # read the path back off the grid and check it independently
    path = np.argsort(grid.ravel(), kind="stable")
    assert sorted(grid.ravel().tolist()) == list(range(1, 101))
    assert verify_path(path, 10, 10, start=(0, 0))


def test_json_fields(capsys):
    code, out, _ = run(capsys, "path", "5x7", "--start", "2,3", "--seed", "4", "--json")
    assert code == 0
    data = json.loads(out)
    for key in (
        "rows", "cols", "start", "moves", "found", "verified", "rotations", "restarts",
        "solve_seconds", "compile_seconds", "peak_bytes",
    ):  # fmt: skip
        assert key in data, key
    assert (data["rows"], data["cols"], data["start"]) == (5, 7, [2, 3])
    assert data["found"] is True and data["verified"] is True
    assert data["moves"] == "caselle"


def test_json_for_an_impossible_board(capsys):
    code, out, _ = run(capsys, "path", "4x4", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["found"] is False and data["status"] == "impossible" and data["proof"]


@pytest.mark.parametrize(
    "argv",
    [
        ["path", "0"],
        ["path", "-3"],
        ["path", "10x"],
        ["path", "abc"],
        ["path", "10", "--start", "10,0"],
        ["path", "10", "--start", "a,b"],
        ["path", "10", "--moves", "bishop"],
        ["path", "10", "--moves", "0,0"],
        ["verify-path", "missing.npy", "10"],
    ],
)
def test_errors_are_one_line_with_status_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1
    assert "error" in err


def test_knight_and_closed(capsys):
    code, out, _ = run(capsys, "path", "8", "--moves", "knight", "--closed")
    assert code == 0 and "closed tour: found, verified" in out


def test_files_exist_open_and_have_the_expected_size(capsys, tmp_path):
    npy, pdf, png, svg = (tmp_path / f"p.{e}" for e in ("npy", "pdf", "png", "svg"))
    code, out, _ = run(
        capsys, "path", "12x9", "--out", str(npy), "--pdf", str(pdf), "--png", str(png),
        "--svg", str(svg), "--quiet",
    )  # fmt: skip
    assert code == 0
    path = np.load(npy)
    assert path.shape == (108,) and verify_path(path, 12, 9)
    assert pdf.read_bytes().startswith(b"%PDF")
    with Image.open(png) as im:
        assert im.size == render.png_size(12, 9)
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "wrote" in out


def test_big_board_png_is_downsampled(capsys, tmp_path):
    png = tmp_path / "big.png"
    code, _, _ = run(capsys, "path", "3000x2000", "--png", str(png), "--quiet")
    assert code == 0
    with Image.open(png) as im:
        assert max(im.size) <= 2048
        assert im.size == render.png_size(3000, 2000)


def test_verify_path_command(capsys, tmp_path):
    good = tmp_path / "good.npy"
    assert run(capsys, "path", "10", "--out", str(good), "--quiet")[0] == 0
    code, out, _ = run(capsys, "verify-path", str(good), "10")
    assert code == 0 and "a valid 10x10 caselle path" in out
    path = np.load(good)
    path[[10, 20]] = path[[20, 10]]
    bad = tmp_path / "bad.npy"
    np.save(bad, path)
    code, out, _ = run(capsys, "verify-path", str(bad), "10")
    assert code == 1 and "not a caselle move" in out
    code, out, _ = run(capsys, "verify-path", str(good), "10", "--json")
    assert json.loads(out)["valid"] is True
    floats = tmp_path / "floats.npy"
    np.save(floats, np.zeros(100))
    text = tmp_path / "text.npy"
    text.write_text("not numpy\n")
    for f in (floats, text):
        code, _, err = run(capsys, "verify-path", str(f), "10")
        assert code == 2 and "is not a path" in err and len(err.strip().splitlines()) == 1


def test_memory_refusal_is_a_clear_error(capsys, monkeypatch):
    import rompicapo.common as common

    monkeypatch.setattr(common, "available_memory", lambda: 24 * 10**9)
    code, _, err = run(capsys, "path", "50000", "--method", "greedy")
    assert code == 2
    assert "needs about 42.5 GB" in err and "available" in err
    # blocks need 9 bytes per cell for the path and its check: refused too, with the way out
    code, _, err = run(capsys, "path", "50000")
    assert code == 2
    assert "needs about 22.5 GB" in err and ".rpath" in err
