"""The package as users install it: one version in one place, and a wheel that holds every file
the package reads.

The wheel is built here from the checkout (``python -m build --wheel --no-isolation``), or taken
from ``ROMPICAPO_WHEEL`` when CI has built it already (.ci/run). What the package reads is
listed from its sources: the folders its modules anchor on their own file
(``Path(__file__).parent / "data"``, ``/ "static"``), every data file beside the modules, and
the files the playground's pages ask for (``/static/NAME``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import rompicapo

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rompicapo"
# what is not package data: Python sources and the caches numba and Python write beside them
# (the shipped kernels' index and code files are checked on their own)
NOT_DATA = {".py", ".pyc", ".nbi", ".nbc"}


def test_version_in_one_place(capsys):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "rompicapo.__version__"}
    from rompicapo.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"rompicapo {rompicapo.__version__}"
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(rompicapo.__version__)}\b", changelog, re.M)


def _anchored_paths() -> set[Path]:
    """Files and folders the modules reach from their own file: ``Path(__file__)`` followed by
    ``.parent`` (``.resolve()`` allowed) and ``/ "literal"`` parts."""
    found: set[Path] = set()
    for source in PACKAGE.rglob("*.py"):
        tree = ast.parse(source.read_text(), str(source))
        for node in ast.walk(tree):
            parts: list[str] = []
            while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, str)):
                    break
                parts.insert(0, node.right.value)
                node = node.left
            if not parts:
                continue
            text = ast.unparse(node)
            if re.fullmatch(r"Path\(__file__\)(\.resolve\(\))?\.parent", text):
                found.add(source.parent.joinpath(*parts))
    return found


def _package_reads() -> set[str]:
    """Paths (relative to the site-packages folder) of every data file the package reads."""
    files: set[Path] = set()
    for anchored in _anchored_paths():
        assert anchored.exists(), f"{anchored} is read by the package but missing"
        files |= {anchored} if anchored.is_file() else set(anchored.rglob("*"))
    for path in PACKAGE.rglob("*"):
        if path.is_file() and path.suffix not in NOT_DATA and "__pycache__" not in path.parts:
            files.add(path)
    static = PACKAGE / "web" / "static"
    for page in static.glob("*"):
        if page.suffix in (".html", ".js", ".css"):
            for name in re.findall(r"/static/([\w./-]+)", page.read_text()):
                files.add(static / name)
    return {
        p.relative_to(ROOT).as_posix()
        for p in files
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in NOT_DATA
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("ROMPICAPO_WHEEL")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("rompicapo-*.whl")
    return built


def test_the_wheel_holds_what_the_package_reads(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    reads = _package_reads()
    assert "rompicapo/edges/data/eternity2_pieces.txt" in reads  # the listing finds the data
    assert "rompicapo/web/static/index.html" in reads
    missing = sorted(reads - names)
    assert not missing, f"read by the package, missing from {wheel.name}: {missing}"
    # every module too, and no cache of numba or Python but the shipped kernels (compiled at
    # build time into rompicapo/compiled/, with their manifest: CI's wheel must have them)
    modules = {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")}
    assert not (modules - names), sorted(modules - names)
    cached = [n for n in names if n.endswith((".nbi", ".nbc", ".pyc"))]
    assert not [n for n in cached if not n.startswith("rompicapo/compiled/")], cached
    if cached or os.environ.get("ROMPICAPO_WHEEL"):
        assert "rompicapo/compiled/manifest.json" in names
        assert any(n.endswith(".nbi") for n in cached) and any(n.endswith(".nbc") for n in cached)


def test_the_wheel_is_named_and_described_for_an_index(wheel):
    assert wheel.name.startswith(f"rompicapo-{rompicapo.__version__}-py3-none-any")
    with zipfile.ZipFile(wheel) as zf:
        (meta_name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(zf.read(meta_name).decode())
    assert meta["Version"] == rompicapo.__version__
    assert meta["Requires-Python"] == ">=3.11"
    assert "puzzle" in meta["Keywords"]
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Topic :: Games/Entertainment :: Puzzle Games" in classifiers
    assert meta["Description-Content-Type"] == "text/markdown"
