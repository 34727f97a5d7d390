"""The documentation cannot drift: the CLI reference is regenerated and compared, every option
of every command has help text, and the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from commands import commands

from rompicapo.cli import build_parser
from rompicapo.cli.reference import cli_reference

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_is_current():
    page = ROOT / "docs" / "reference" / "cli.md"
    assert page.read_text() == cli_reference(), (
        "docs/reference/cli.md is stale: python -m rompicapo.cli.reference > docs/reference/cli.md"
    )


def test_every_option_of_every_command_has_help():
    missing = []
    for name, parser in commands(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if action.help is argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without help text:\n" + "\n".join(missing)


@pytest.mark.skipif(
    shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists(),
    reason="mkdocs is not installed",
)
def test_the_site_builds_strict(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    command = [str(mkdocs) if mkdocs.exists() else "mkdocs", "build", "--strict"]
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [*command, "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists()
