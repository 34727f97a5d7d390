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
