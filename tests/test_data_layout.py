"""The test data ships in the repository: every folder says where its files come from, no file
is large, and no test builds a path into the shared data folder outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import datafiles

TESTS = Path(__file__).resolve().parent
# a path built into ../shared: `/ "shared"`, `"../shared/...`, `parents[3]` (above the clone)
OUTSIDE = re.compile(r'/\s*"shared"|"\.\./shared|\.\./\.\./shared|parents\[[3-9]\]')


def test_every_data_folder_has_a_readme_with_source_and_licence():
    folders = [p for p in datafiles.DATA.iterdir() if p.is_dir()]
    assert {p.name for p in folders} >= {"exact-cover", "sudoku", "connect4", "eternity2"}
    for folder in folders:
        text = (folder / "README.md").read_text().lower()
        assert "source" in text and "licen" in text, folder.name


def test_data_files_are_small():
    for path in datafiles.DATA.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 200_000, path


def test_no_test_reads_outside_the_repository():
    offenders = [
        f"{path.relative_to(TESTS)}:{n}"
        for path in TESTS.rglob("*.py")
        if path.name != Path(__file__).name
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert offenders == []
