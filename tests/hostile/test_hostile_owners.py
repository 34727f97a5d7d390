"""Files shared with others: two hunts started at once on one hunt file; hunt and study files
that may not be written (read-only, another user's); a hunt's best-board file named like its
pieces file.

Each refusal is one line, exit 2, before any work, with nothing made beside the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rompicapo.cli import main
from rompicapo.edges import hunt, load_puzzle
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import format_pieces, load_board
from rompicapo.edges.verify import count_matched_joints

from .harness import Case, check_refused

SMALL, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=1)
PIECES = format_pieces(SMALL).encode()
E2_HUNT = ["edges", "hunt", "eternity2", "--db", "h.sqlite", "--jobs", "1", "--quiet"]


@contextlib.contextmanager
def read_only(path: Path):
    """``path`` may not be written by this process while the block runs: mode 0444, or, for
    root (whom modes do not stop), the immutable attribute."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)]).returncode != 0:
        pytest.skip("run as root on a file system without the immutable attribute")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


def _beside(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-")}


@pytest.fixture(scope="module")
def hunt_file(tmp_path_factory) -> Path:
    """A finished hunt of a small puzzle (solved), its log folded back into the file."""
    folder = tmp_path_factory.mktemp("hunt")
    result = hunt(SMALL, folder / "h.sqlite", time_limit=60, jobs=1, seed=1)
    assert result.solved
    assert not _beside(folder / "h.sqlite")
    (folder / "p.txt").write_bytes(PIECES)
    return folder / "h.sqlite"


def _run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_hunt_report_of_a_read_only_hunt_file_reads_it_and_leaves_nothing(hunt_file, capsys):
    """It said "not a SQLite file, or a damaged one" (it could not make ``-shm``), and left
    ``-wal`` / ``-shm`` files beside a file it may not write."""
    with read_only(hunt_file):
        status, out, err = _run_cli(["edges", "hunt-report", str(hunt_file), "--json"], capsys)
        assert status == 0, err
        summary = json.loads(out)
        assert summary["best_score"] == 40 and summary["runs"] == 1
        assert not _beside(hunt_file)


def test_hunting_on_a_read_only_hunt_file_is_refused_in_one_line(hunt_file, capsys):
    """It ended in "internal error: OperationalError: attempt to write a readonly database"
    with ``-wal`` and ``-shm`` left beside the file."""
    with read_only(hunt_file):
        status, _, err = _run_cli(
            ["edges", "hunt", str(hunt_file.parent / "p.txt"), "--db", str(hunt_file)], capsys
        )
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "read-only" in err and "hunt-report" in err
    assert not _beside(hunt_file)


def _small_study(folder: Path) -> Path:
    (folder / "p.txt").write_bytes(PIECES)
    argv = [sys.executable, "-m", "rompicapo", "edges", "study", "p.txt", "--db", "s.sqlite",
            "--nodes", "2000", "--seeds", "1", "--colour-sets", "sample:2", "--curves", "2",
            "--break-variants", "1", "--baseline-seeds", "1", "--jobs", "1", "--quiet"]  # fmt: skip
    done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return folder / "s.sqlite"


def test_a_read_only_study_is_reported_on_and_refused_for_more_jobs(tmp_path, capsys):
    study = _small_study(tmp_path)
    assert not _beside(study)
    with read_only(study):
        status, _, err = _run_cli(
            ["edges", "study", str(tmp_path / "p.txt"), "--db", str(study), "--nodes", "2000"],
            capsys,
        )
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert "read-only" in err and "study-report" in err
        out_dir = tmp_path / "report"
        status, _, err = _run_cli(
            ["edges", "study-report", str(study), "--out", str(out_dir)], capsys
        )
        assert status == 0, err
        assert (out_dir / "summary.md").is_file()
        assert not _beside(study)


def _best_in_file(db: Path) -> tuple[int, str]:
    """The best score and its placements, read with plain SQL (not the hunt's own reader)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        score, placements = conn.execute(
            "SELECT score, placements FROM boards WHERE kind = 'best' ORDER BY score DESC LIMIT 1"
        ).fetchone()
    return score, placements


def test_two_hunts_on_one_file_one_runs_the_other_is_refused_naming_it(tmp_path):
    """Both ran, and the best-board file ended with 463 while the file's best was 464."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "rompicapo", *E2_HUNT, "--time", "12", "--seed", str(seed)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for seed in (1, 2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    statuses = sorted(p.returncode for p in procs)
    texts = [err.decode() for _, err in outs]
    assert statuses == [0, 2], texts
    winner, loser = (0, 1) if procs[0].returncode == 0 else (1, 0)
    refusal = texts[loser].strip().splitlines()
    assert len(refusal) == 1, texts[loser]
    assert re.search(rf"already running on this file \(process {procs[winner].pid} on ", refusal[0])
    assert "started 20" in refusal[0]
    # the board file beside the hunt file is the file's best, whole
    score, placements = _best_in_file(tmp_path / "h.sqlite")
    puzzle = load_puzzle("eternity2")
    board = load_board(tmp_path / "h.best.txt", puzzle)
    assert count_matched_joints(16, 16, puzzle.pieces.tolist(), board.placements()) == score
    assert sorted(map(tuple, board.placements())) == sorted(map(tuple, json.loads(placements)))


def test_a_stale_best_board_file_is_rewritten_from_the_hunt_file(hunt_file, tmp_path):
    """The board file is written from the hunt file's best after its commit, also by a
    resumed hunt that finds nothing new: a file left stale (a kill between the two writes, an
    edit) is put right."""
    folder = tmp_path / "copy"
    folder.mkdir()
    db = folder / "h.sqlite"
    shutil.copy(hunt_file, db)
    (folder / "h.best.txt").write_text("stale\n")
    again = hunt(SMALL, db, time_limit=30, jobs=1, seed=2)
    assert again.solved and again.counts["restarts"] == 0
    board = load_board(folder / "h.best.txt", SMALL)
    assert count_matched_joints(5, 5, SMALL.pieces.tolist(), board.placements()) == 40


BOARD_OVER_PIECES = [
    # the best-board file is named after --db: h.sqlite -> h.best.txt, the pieces file
    Case(
        ["edges", "hunt", "h.best.txt", "--db", "h.sqlite", "--time", "5"],
        files={"h.best.txt": PIECES},
        says="destroy the input",
    ),
    Case(
        ["edges", "hunt", "p.txt", "--db", "h.sqlite", "--clues", "h.best.txt", "--time", "5"],
        files={"p.txt": PIECES, "h.best.txt": b"garbage"},
        says="destroy the input",
    ),
]


@pytest.mark.parametrize("case", BOARD_OVER_PIECES, ids=lambda c: c.id)
def test_a_hunts_board_file_never_lands_on_an_input(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)
