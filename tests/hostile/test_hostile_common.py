"""Hostile input common to every command: the root parser and its shared flags."""

from __future__ import annotations

import pytest

from .harness import Case, check_refused

CASES = [
    Case(["no-such-command"]),
    Case(["path"]),  # a required argument missing
    Case(["--nonsense"]),
    Case(["path", "10", "--debug-nope"]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)
