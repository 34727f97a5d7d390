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
# (a path below, from the repository's root) or by its own marker of that name.
TIERS = {
    "browser": ("tests/web/test_web_browser_",),
    "docs": ("README.md", "docs/", "tests/test_docs.py", "tests/test_notebook.py"),
    "packaging": ("tests/test_packaging.py", "tests/test_first_run.py", "tests/test_common_jit.py"),
    "processes": (
        "tests/hostile/",
        "tests/web/test_web_core.py",
        "tests/test_extras.py",
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
    ),
}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        try:
            where = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            where = ""
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
