"""The compiled-code layer (rompicapo.common.jit): keys that cover every module a kernel is made
of, shipped kernels, and a fallback for every failure of the fast path.

Each case runs a small kernel in a fresh interpreter, in a copy of the package's ``common``
layer under ``tmp_path`` (the kernel and its helper are written there, so nothing is written
beside the real sources), and reads numba's own count of cache hits and misses.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rompicapo
from rompicapo.common import jit

PACKAGE = Path(rompicapo.__file__).resolve().parent

HELPER = """\
from rompicapo.common.jit import njit

STEP = {step}


@njit(cache=True, inline="always")
def add(x):
    return x + STEP
"""

KERNEL = """\
from rompicapo.common.jit import njit
from rompicapo.probe_helper import add


@njit(cache=True)
def f(x):
    return add(x)
"""

# prints: f(1), cache hits, cache misses (numba's own counts)
CALL = (
    "from rompicapo.probe_kernel import f; r = f(1); "
    "print(r, sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))"
)


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    """A copy of rompicapo's package root and common layer, with a probe kernel that inlines a
    helper of another module."""
    root = tmp_path / "src"
    pkg = root / "rompicapo"
    pkg.mkdir(parents=True)
    shutil.copy(PACKAGE / "__init__.py", pkg / "__init__.py")
    shutil.copytree(PACKAGE / "common", pkg / "common",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (pkg / "probe_helper.py").write_text(HELPER.format(step=3))
    (pkg / "probe_kernel.py").write_text(KERNEL)
    return root


def run(root: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "ROMPICAPO_"))}
    environ.update(PYTHONPATH=str(root), **env)
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, cwd=root,
                          text=True, timeout=120)  # fmt: skip


def answer(result: subprocess.CompletedProcess) -> tuple[int, int, int]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    value, hits, misses = result.stdout.split()
    return int(value), int(hits), int(misses)


def test_a_helper_changed_rebuilds_the_kernel_that_inlines_it(probe: Path) -> None:
    assert answer(run(probe, CALL)) == (4, 0, 1)  # compiled
    assert answer(run(probe, CALL)) == (4, 1, 0)  # loaded from numba's cache
    (probe / "rompicapo" / "probe_helper.py").write_text(HELPER.format(step=5))
    # numba alone keys the kernel by its own file and would load the machine code adding 3
    assert answer(run(probe, CALL)) == (6, 0, 1)
    assert answer(run(probe, CALL)) == (6, 1, 0)


def test_source_digest_follows_imports_transitively(probe: Path) -> None:
    code = (
        "from rompicapo.common import jit; import rompicapo.probe_kernel as k; "
        "print(jit.source_digest(k.__file__))"
    )
    before = run(probe, code).stdout
    (probe / "rompicapo" / "probe_helper.py").write_text(HELPER.format(step=4))
    assert run(probe, code).stdout != before
    # the layer itself makes no machine code: editing it keeps every key
    with open(probe / "rompicapo" / "common" / "jit.py", "a") as f:
        f.write("\n# a comment\n")
    assert run(probe, code).stdout == run(probe, code).stdout


def test_the_real_kernels_digest_their_helpers() -> None:
    from rompicapo.edges import _alns_kernel, _repair_kernel

    files = jit._imported_files(Path(_alns_kernel.__file__).resolve())
    assert Path(_repair_kernel.__file__).resolve() in files
    intrinsics = PACKAGE / "common" / "intrinsics.py"
    from rompicapo.paths import _cycles_kernel

    assert intrinsics in jit._imported_files(Path(_cycles_kernel.__file__).resolve())


def test_numba_cache_subpath_is_numbas() -> None:
    from numba.core import caching

    folder = PACKAGE / "edges"
    ours = jit._numba_subpath(folder)
    assert ours == caching._CacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))


@pytest.mark.parametrize(
    "break_numba",
    [
        # a numba whose cache class no longer has the method the keys are made by (numba's
        # dispatcher keeps its own reference to its class, as it imported it)
        "import numba.core.caching as c\n"
        "c.FunctionCache = type('FunctionCache', (), {'load_overload': print, "
        "'save_overload': print})",
        # a numba without the class that reads an index file (its own cache breaks too)
        "import numba.core.caching as c; del c.IndexDataCacheFile",
        # a numba whose cache class is another altogether
        "import numba.core.caching as c; c.FunctionCache = type('FunctionCache', (), {})",
    ],
    ids=["no _index_key", "no IndexDataCacheFile", "another cache class"],
)
def test_a_numba_without_the_private_names_falls_back(probe: Path, break_numba: str) -> None:
    result = run(probe, f"{break_numba}\n{CALL}")
    value, _, _ = answer(result)
    assert value == 4
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "plain cache" in lines[0], result.stderr


def patched_caching(*lines: str) -> str:
    """The probe's call after ``lines`` that patch numba's ``caching`` module."""
    return "from numba.core import caching\n" + "".join(f"{x}\n" for x in lines) + CALL


def test_no_folder_for_a_cache_compiles_without_one(probe: Path) -> None:
    # numba's own failure when no locator finds a writable folder (a read-only HOME and
    # package): every locator refuses
    result = run(probe, patched_caching(
        "impl = getattr(caching, 'CacheImpl', None) or caching._CacheImpl",
        "impl._locator_classes = []",
    ))  # fmt: skip
    value, hits, _ = answer(result)
    assert (value, hits) == (4, 0)
    assert result.stderr.count("\n") == 1 and "NUMBA_CACHE_DIR" in result.stderr


def test_a_cache_that_cannot_be_written_is_one_notice(probe: Path) -> None:
    result = run(probe, patched_caching(
        "import errno",
        "def full(*a, **k): raise OSError(errno.ENOSPC, 'No space left on device')",
        "caching.IndexDataCacheFile.save = full",
    ))  # fmt: skip
    assert answer(result)[0] == 4
    assert result.stderr.count("\n") == 1 and "cannot be kept" in result.stderr


def test_a_damaged_numba_cache_compiles_again(probe: Path) -> None:
    assert answer(run(probe, CALL)) == (4, 0, 1)
    for f in (probe / "rompicapo" / "__pycache__").glob("probe_kernel.*.nb*"):
        f.write_bytes(b"\x80garbage")
    assert answer(run(probe, CALL))[0] == 4


def ship(probe: Path, tmp_path: Path) -> Path:
    """Compile the probe into a fresh numba cache, then lay it out as shipped kernels with a
    manifest for this machine (the host's CPU, as `build_shipped()` does for its CPU level)."""
    built = tmp_path / "built"
    assert answer(run(probe, CALL, NUMBA_CACHE_DIR=str(built))) == (4, 0, 1)
    shipped = probe / "rompicapo" / "compiled"
    shipped.mkdir()
    for f in next(built.iterdir()).iterdir():
        shutil.copy(f, shipped / f.name)
    import llvmlite
    import llvmlite.binding as ll
    import numba

    manifest = {
        "numba": numba.__version__, "llvmlite": llvmlite.__version__,
        "python": jit._python_tag(), "triple": ll.get_process_triple(),
        "cpu_name": ll.get_host_cpu_name(),
        "cpu_features": ll.get_host_cpu_features().flatten(), "files": 2,
    }  # fmt: skip
    (shipped / "manifest.json").write_text(json.dumps(manifest))
    return shipped


def test_shipped_kernels_load_and_any_damage_compiles(probe: Path, tmp_path: Path) -> None:
    shipped = ship(probe, tmp_path)
    # an install writes the sources anew: their time stamps are not the build's
    kernel = probe / "rompicapo" / "probe_kernel.py"
    stat = kernel.stat()
    os.utime(kernel, (stat.st_atime + 3600, stat.st_mtime + 3600))
    fresh = iter(range(100))

    def call() -> subprocess.CompletedProcess:
        return run(probe, CALL, NUMBA_CACHE_DIR=str(tmp_path / f"empty{next(fresh)}"))

    assert answer(call()) == (4, 1, 0)  # loaded from the shipped kernels
    # a manifest for another numba: not used, compiled, nothing said
    manifest = json.loads((shipped / "manifest.json").read_text())
    (shipped / "manifest.json").write_text(json.dumps({**manifest, "numba": "0.1"}))
    result = call()
    assert answer(result) == (4, 0, 1) and result.stderr == ""
    (shipped / "manifest.json").write_text("{not json")
    assert answer(call()) == (4, 0, 1)
    (shipped / "manifest.json").write_text(json.dumps(manifest))
    assert answer(call()) == (4, 1, 0)
    # truncated data, then a corrupted index: compiled, one notice at most, no traceback
    for pattern, damage in (("*.nbc", lambda b: b[: len(b) // 2]),
                            ("*.nbi", lambda b: hashlib.sha256(b).digest() + b[40:])):  # fmt: skip
        for f in shipped.glob(pattern):
            f.write_bytes(damage(f.read_bytes()))
        result = call()
        assert answer(result) == (4, 0, 1)
        assert result.stderr.count("\n") <= 1


def test_the_notice_is_said_once_per_process_tree(probe: Path) -> None:
    code = textwrap.dedent(
        """
        import subprocess, sys
        import numba.core.caching as c
        c.FunctionCache = type("FunctionCache", (), {})
        from rompicapo.probe_kernel import f
        f(1)
        subprocess.run([sys.executable, "-c", "from rompicapo.common import jit; "
                        "jit._notice('again')"], check=True)
        print(f(1), 0, 0)
        """
    )
    result = run(probe, code)
    assert answer(result)[0] == 4
    assert result.stderr.count("rompicapo:") == 1, result.stderr


def test_a_command_without_any_cache_folder_answers(tmp_path: Path) -> None:
    # as for a user whose HOME and package folder are read-only: numba finds no folder, every
    # kernel compiles in memory, and the command says so once
    code = (
        "import sys\nfrom numba.core import caching\n"
        "impl = getattr(caching, 'CacheImpl', None) or caching._CacheImpl\n"
        "impl._locator_classes = []\n"
        "from rompicapo.cli import main\nsys.exit(main(['queens', '6', '--quiet']))"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "ROMPICAPO_"))}
    result = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True,
                            text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "4 solutions" in result.stdout
    notices = [line for line in result.stderr.splitlines() if line.startswith("rompicapo:")]
    assert len(notices) == 1 and "compile on every run" in notices[0], result.stderr
    assert "Traceback" not in result.stderr
