"""``rompicapo edges ...``: every command once, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import datafiles
import pytest

from rompicapo.cli import main
from rompicapo.edges.puzzle import eternity2, load_board, load_pieces, score

DATA = datafiles.DATA / "eternity2"


def _generate(tmp_path: Path, size: str = "5x5", seed: int = 4) -> tuple[Path, Path]:
    pieces, solution = tmp_path / "p.txt", tmp_path / "s.txt"
    rc = main(
        ["edges", "generate", size, "--frame-colors", "2", "--inner-colors", "3",
         "--seed", str(seed), "--out", str(pieces), "--solution", str(solution)]
    )  # fmt: skip
    assert rc == 0
    return pieces, solution


def test_generate_score_url_render(tmp_path: Path, capsys) -> None:
    pieces, solution = _generate(tmp_path)
    assert main(["edges", "score", str(solution), str(pieces), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["score"] == info["max_score"] == 40 and info["valid"]  # 5x5: 2*5*4 joints
    assert main(["edges", "url", str(solution), str(pieces)]) == 0
    url = capsys.readouterr().out.strip()
    assert "board_w=5&board_h=5&board_edges=" in url
    # score reads the URL back too
    assert main(["edges", "score", url, str(pieces)]) == 0
    assert capsys.readouterr().out.startswith("score 40/40")
    svg, png = tmp_path / "b.svg", tmp_path / "b.png"
    assert (
        main(["edges", "render", str(solution), str(pieces), "--svg", str(svg), "--png", str(png)])
        == 0
    )
    assert svg.read_text().startswith("<svg") and png.read_bytes()[:4] == b"\x89PNG"


def test_solve_writes_board_pictures_and_json(tmp_path: Path, capsys) -> None:
    pieces, _ = _generate(tmp_path, "6x6", seed=2)
    out, svg, heat = tmp_path / "best.txt", tmp_path / "best.svg", tmp_path / "heat.svg"
    rc = main(
        ["edges", "solve", str(pieces), "--time", "20", "--jobs", "1", "--json", "--out", str(out),
         "--svg", str(svg), "--heat", str(heat)]
    )  # fmt: skip
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert info["solved"] and info["verified"] and info["score"] == 60
    puzzle = load_pieces(pieces)
    assert score(load_board(out, puzzle), puzzle) == 60
    assert "<svg" in svg.read_text() and "<svg" in heat.read_text()


def test_score_record_board(capsys) -> None:
    board = DATA / "eternity2_board_blackwood_470.txt"
    assert main(["edges", "score", str(board), "eternity2"]) == 0
    # published score 470 (data README)
    assert capsys.readouterr().out.startswith("score 470/480 (10 mismatched joints)")


def test_solve_eternity2_few_nodes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "e2.txt"
    rc = main(
        [
            "edges",
            "solve",
            "eternity2",
            "--nodes",
            "200000",
            "--jobs",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "verified True" in text and "motifs_order=jblackwood" in text
    board = load_board(out, eternity2())
    assert board.n_placed == 256 and int(board.piece[8, 7]) == 138


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["edges", "generate", "5by5", "--frame-colors", "2", "--inner-colors", "3"], "RxC"),
        (
            ["edges", "generate", "1x5", "--frame-colors", "2", "--inner-colors", "3"],
            "out of range",
        ),
        (["edges", "generate", "5x5", "--frame-colors", "0", "--inner-colors", "3"], "at least 1"),
        (["edges", "score", "/nonexistent.txt", "eternity2"], "does not exist"),
        (["edges", "solve", "eternity2", "--jobs", "0"], "at least 1"),
        (["edges", "solve", "eternity2", "--breaks", "often"], "breaks must be"),
        (["edges", "solve", "eternity2", "--time", "-1"], "positive"),
        (["edges", "render", "x.txt", "eternity2"], "svg"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals (a flag's type)
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_named_clues_only_on_eternity2(tmp_path: Path, capsys) -> None:
    pieces, _ = _generate(tmp_path)
    assert main(["edges", "solve", str(pieces), "--clues", "all", "--jobs", "1"]) == 2
    assert "Eternity II" in capsys.readouterr().err


def test_the_edges_printer_logs_best_score_depth_and_rate(capsys) -> None:
    # stderr captured is not a terminal: plain lines, the first at once, then every 10 s
    from rompicapo.cli.edges import printer
    from rompicapo.common import ProgressEvent

    counts = {"placements": 3_000_000, "deepest": 30, "best_score": 55, "max_score": 60}
    with printer("edges solve", quiet=False) as progress:
        for elapsed in (1.0, 2.0, 11.5):
            progress(ProgressEvent("progress", done=9, unit="placements", elapsed=elapsed,
                                   counts=counts))  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert "best 55/60" in lines[0] and "deepest 30" in lines[0]
    assert "3.0 M placements/s" in lines[0]
    with printer("edges solve", quiet=True) as progress:
        progress(ProgressEvent("progress", elapsed=50.0, counts=counts))
    assert capsys.readouterr().err == ""


def _disk_full(monkeypatch, fails: int) -> None:
    """The board's writes fail ``fails`` times (ENOSPC), as a disk that filled up during the
    search would make them; later writes (the kept copy) succeed."""
    import errno

    import rompicapo.edges.api as A

    real, left = A.save_board, [fails]

    def save_board(path, *args, **kwargs):
        if left[0] > 0:
            left[0] -= 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(A, "save_board", save_board)


@pytest.mark.parametrize("json_out", [False, True])
def test_a_write_failing_after_the_search_keeps_the_board_elsewhere(
    tmp_path: Path, capsys, monkeypatch, json_out
) -> None:
    pieces, _ = _generate(tmp_path, "4x4", seed=1)
    monkeypatch.chdir(tmp_path)
    _disk_full(monkeypatch, fails=1)
    argv = ["edges", "solve", str(pieces), "--time", "2", "--jobs", "1", "--out", "b.txt"]
    rc = main(argv + (["--json"] if json_out else []))
    captured = capsys.readouterr()
    assert rc == 1  # not 0 (the file asked for is missing), not 2 (no mistake of the user)
    assert not (tmp_path / "b.txt").exists()
    (kept,) = tmp_path.glob("rompicapo-kept-*-b.txt")
    assert f"could not write 'b.txt' (No space left on device); the result is kept in '{kept}'" in (
        captured.err
    )
    puzzle = load_pieces(pieces)
    assert score(load_board(kept, puzzle), puzzle) == puzzle.n_joints
    if json_out:
        info = json.loads(captured.out)
        assert info["out"] == str(kept) and len(info["write_errors"]) == 1
    else:
        assert f"board written to {kept}" in captured.out


def test_a_board_no_folder_can_keep_is_printed(tmp_path: Path, capsys, monkeypatch) -> None:
    pieces, _ = _generate(tmp_path, "4x4", seed=1)
    monkeypatch.chdir(tmp_path)
    _disk_full(monkeypatch, fails=10)  # the file asked for and every folder for a copy
    argv = ["edges", "solve", str(pieces), "--time", "2", "--jobs", "1", "--out", "b.txt"]
    assert main([*argv, "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["out"] is None  # stdout stays one JSON object
    assert "no other folder could take it either" in captured.err
    assert "0 0 " in captured.err.split("which no file could keep:")[1]  # the board's rows
