"""numba's ``njit`` with a cache that also reads the kernels compiled when the wheel was built.

numba compiles a kernel on its first call and keeps the machine code in its on-disk cache
(``cache=True``): beside the sources when that folder is writable, else in the user's cache
folder, or ``NUMBA_CACHE_DIR``. A newcomer's first command would wait for that compilation
(up to a minute for the Sudoku solver on a busy 2-core machine). So the wheel ships the
kernels that the families' first commands run, compiled once at build time
(`build_shipped()`, run by ``python -m rompicapo.common.jit build``) for a portable x86-64
CPU level (`SHIPPED_CPU`), in ``rompicapo/compiled/``. `njit()` is numba's, with a
cache that looks in numba's own cache first and, when it has nothing for a kernel, in the
shipped one: used only when it was built for this numba, this Python, this kind of machine,
from these very sources (numba checks a hash of the source file and of the function's
bytecode), and when this CPU has every feature of `SHIPPED_CPU`. Anything else (another
CPU, a changed source, ``NUMBA_CPU_NAME`` set) compiles as numba always does, into its own
cache. ``ROMPICAPO_SHIPPED_KERNELS=0`` turns the shipped kernels off.

Why a CPU level and not this machine's own CPU: code built for the host runs only on CPUs with
the same features. x86-64-v3 (AVX2, BMI2, POPCNT, LZCNT; x86-64 CPUs since 2013-2015) measured
as fast as the host's own code, where plain x86-64 ("generic") is 1.5 times slower on exact
cover. CPU seconds of one workload per family after a warm call, compiled for the host (AMD
EPYC, znver4), for x86-64-v3 and for generic x86-64, mean of 3 rounds run alternately (load
9-12): path 2000x2001 x3 0.40 / 0.36 / 0.35; queens 14 0.63 / 0.63 / 0.98; Connect Four, 20
positions of Pons' set 0.43 / 0.46 / 0.41; Sudoku top1465 x5 0.47 / 0.53 / 0.48; Eternity II
search, node_limit 150 M 1.52 / 1.43 / 1.47.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import config
from numba.core.caching import FunctionCache, IndexDataCacheFile

__all__ = ["SHIPPED_CPU", "SHIPPED_FOLDER", "build_shipped", "njit", "shipped_manifest"]

PACKAGE = Path(__file__).resolve().parent.parent
SHIPPED_FOLDER = PACKAGE / "compiled"
# The CPU level the shipped kernels are compiled for: LLVM's name and its features (the
# x86-64-v3 micro-architecture level), given to numba as NUMBA_CPU_NAME / NUMBA_CPU_FEATURES.
SHIPPED_CPU = (
    "x86-64-v3",
    "+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,"
    "+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave",
)
_MANIFEST = "manifest.json"


def _python_tag() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


@functools.cache
def shipped_manifest() -> dict | None:
    """What the shipped kernels were built for (``numba``, ``python``, ``triple``, ``cpu_name``,
    ``cpu_features``), or None when there are none or they cannot run here."""
    if os.environ.get("ROMPICAPO_SHIPPED_KERNELS", "1") == "0":
        return None
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return None  # the user asked numba for code of a given CPU: that is what compiles
    try:
        manifest = json.loads((SHIPPED_FOLDER / _MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if manifest.get("numba") != numba.__version__ or manifest.get("python") != _python_tag():
        return None
    import llvmlite.binding as ll

    if manifest.get("triple") != ll.get_process_triple():
        return None
    host = set(ll.get_host_cpu_features().flatten().split(","))
    needed = {f for f in manifest.get("cpu_features", "").split(",") if f}
    return manifest if needed <= host else None


class _ShippedFunctionCache(FunctionCache):
    """numba's cache of one kernel, falling back on the shipped kernels when it has none."""

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        data = super()._load_overload(sig, target_context)
        if data is not None or not self._enabled:
            return data
        manifest = shipped_manifest()
        if manifest is None:
            return None
        source = Path(self._py_func.__code__.co_filename).resolve()
        try:
            folder = SHIPPED_FOLDER / source.parent.relative_to(PACKAGE)
        except ValueError:
            return None
        shipped = IndexDataCacheFile(
            cache_path=str(folder),
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )
        _, _, code_hashes = self._index_key(sig, target_context.codegen())
        magic = (manifest["triple"], manifest["cpu_name"], manifest["cpu_features"])
        data = shipped.load((sig, magic, code_hashes))
        return None if data is None else self._impl.rebuild(target_context, data)


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``; with ``cache=True`` its cache also reads the shipped kernels."""
    if args and callable(args[0]) and len(args) == 1:
        return _with_shipped(numba.njit(**kwargs)(args[0]), kwargs)

    def decorate(func: Callable) -> Any:
        return _with_shipped(numba.njit(*args, **kwargs)(func), kwargs)

    return decorate


def _with_shipped(dispatcher: Any, kwargs: dict) -> Any:
    if kwargs.get("cache"):
        dispatcher._cache = _ShippedFunctionCache(dispatcher.py_func)
    return dispatcher


def build_shipped(out: Path | None = None, *, jobs: int | None = None) -> dict:
    """Compile the kernels of every family's first commands (`rompicapo.warmup`) for
    `SHIPPED_CPU` into a fresh numba cache, in worker processes, and copy that cache into
    ``out`` (default `SHIPPED_FOLDER`), laid out by source folder, with its manifest.
    Returns the manifest. Run before the wheel is built (``.ci/run`` does)."""
    import shutil
    import subprocess
    import tempfile

    import llvmlite.binding as ll

    out = SHIPPED_FOLDER if out is None else Path(out)
    with tempfile.TemporaryDirectory(prefix="rompicapo-shipped-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp, ROMPICAPO_SHIPPED_KERNELS="0")
        env["NUMBA_CPU_NAME"], env["NUMBA_CPU_FEATURES"] = SHIPPED_CPU
        env["PYTHONPATH"] = os.pathsep.join(
            [str(PACKAGE.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        command = [sys.executable, "-m", "rompicapo", "warm-up"]
        if jobs is not None:
            command += ["--jobs", str(jobs)]
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
        # numba names a source folder's cache folder after the folder and a hash of its path
        from numba.core.caching import UserProvidedCacheLocator as Locator

        folders = {p.parent for p in PACKAGE.rglob("*.py")}
        by_name = {Locator.get_suitable_cache_subpath(str(f / "x.py")): f for f in folders}
        if out.exists():
            shutil.rmtree(out)
        copied = 0
        for sub in sorted(Path(tmp).iterdir()):
            source = by_name.get(sub.name)
            if source is None:  # kernels generated elsewhere (Eternity II machines)
                continue
            target = out / source.relative_to(PACKAGE)
            target.mkdir(parents=True, exist_ok=True)
            for f in sorted(sub.iterdir()):
                if f.suffix in (".nbi", ".nbc"):
                    shutil.copyfile(f, target / f.name)
                    copied += 1
    manifest = {
        "numba": numba.__version__,
        "python": _python_tag(),
        "triple": ll.get_process_triple(),
        "cpu_name": SHIPPED_CPU[0],
        "cpu_features": SHIPPED_CPU[1],
        "files": copied,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / _MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    """``python -m rompicapo.common.jit build [--out DIR] [--jobs N]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m rompicapo.common.jit")
    parser.add_argument("action", choices=["build"])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    manifest = build_shipped(args.out, jobs=args.jobs)
    print(f"shipped kernels: {manifest['files']} files for {manifest['cpu_name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
