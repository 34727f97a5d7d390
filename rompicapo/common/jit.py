"""The compiled-code layer: every numba kernel of rompicapo goes through it.

```text
kernel module (_*kernel*.py)     rompicapo.common.jit                 where the code is kept
----------------------------     --------------------                 ----------------------
@njit(cache=True)   --------->   njit(): numba's dispatcher    +-->  1. numba's cache: beside
def search(...):                 with a KernelCache, keyed by  |        the sources, else
    popcount(x)                   numba's key (signature, CPU, |        ~/.cache/numba, or
    prefetch(t, i)                bytecode) + source_digest()  |        $NUMBA_CACHE_DIR
      ^                           (the kernel's file and every |     2. shipped kernels:
      |                           rompicapo module it imports) |        rompicapo/compiled/
common.intrinsics                first call: load 1, else 2,  -+        (the wheel)
(one LLVM idiom)                  else compile and save in 1
Eternity II machines  --------->  generated_folder(),          ---->  3. ~/.cache/rompicapo/
(edges._walk_machine)             numba_index_folder()                  ($ROMPICAPO_CACHE_DIR)
```

**When is what compiled.** numba compiles a kernel the first time it is called with a given
signature and saves the machine code in its on-disk cache (1). The wheel ships the kernels
of each family's first commands, compiled once at build time (`build_shipped()`, run by
``python -m rompicapo.common.jit build``) for a portable x86-64 CPU level (`SHIPPED_CPU`), in
``rompicapo/compiled/`` (2), so a newcomer's first command loads them instead of waiting (up
to a minute for the Sudoku solver on a busy 2-core machine). They are used only where they
were built for this numba, llvmlite and Python, this kind of machine and from these very
sources, and where this CPU has every feature of `SHIPPED_CPU`; ``ROMPICAPO_SHIPPED_KERNELS=0``
turns them off, and a ``NUMBA_CPU_NAME`` the user set compiles what was asked.

**What keys a kernel.** numba's own key (the signature, the CPU, the function's bytecode) misses
what a kernel inlines from other modules: a kernel that calls ``repair()`` from another file
would load its old machine code after that file changed. `KernelCache` adds `source_digest()`
of the kernel's file and of every rompicapo module it imports, transitively (its imports read as
text, without running them), to the key of every entry, in numba's cache and in the shipped one.

**Nothing here may break a command.** The cache reaches into numba's caching classes, which are
not a public API. Each failure falls back to plain numba compilation with one notice on
stderr (once a process, and not again in the processes it starts): names missing from numba
(`fast_path_problem()`), a shipped kernel or manifest that does not match or a damaged file in
either cache (compiled afresh), a cache folder that cannot be written (the kernel compiles
and is not kept), and no cache folder at all (numba's "no locator available": compiled
without a cache, every run).

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

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import config

__all__ = [
    "SHIPPED_CPU",
    "SHIPPED_FOLDER",
    "build_shipped",
    "fast_path_problem",
    "forget_generated",
    "generated_folder",
    "njit",
    "numba_index_folder",
    "shipped_manifest",
    "source_digest",
    "target_cpu_features",
]

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
# set in the environment once the notice of a fallback was written, so that the worker
# processes a command starts do not write it again
_SAID = "ROMPICAPO_JIT_NOTICE_SAID"


# --------------------------------------------------------------------------------------------
# notices


def _notice(message: str) -> None:
    """Write one line about a fallback to stderr, once per process tree."""
    if os.environ.get(_SAID):
        return
    os.environ[_SAID] = "1"
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no stderr: say nothing
        print(f"rompicapo: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# what keys a kernel: its source and every rompicapo module it imports

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+"
    r"(?:\((?P<group>[^)]*)\)|(?P<names>[\w \t,.*]+))"
    r"|import[ \t]+(?P<modules>[\w.]+(?:[ \t]+as[ \t]+\w+)?"
    r"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))",
    re.M,
)
# the layer itself shapes no machine code: a change to this file invalidates nothing
_NOT_A_SOURCE = {Path(__file__).resolve()}


def _module_file(dotted: str) -> Path | None:
    """The file of a rompicapo module (``rompicapo.edges._kernel``), or None."""
    if dotted != "rompicapo" and not dotted.startswith("rompicapo."):
        return None
    parts = dotted.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _package_of(path: Path) -> str | None:
    """The dotted package that holds ``path`` inside rompicapo, or None outside it."""
    try:
        rel = path.resolve().parent.relative_to(PACKAGE)
    except ValueError:
        return None
    return ".".join(("rompicapo", *rel.parts))


def _imported_files(path: Path) -> set[Path]:
    """The rompicapo modules that the Python file ``path`` imports (at any depth of its code),
    read from its text."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    here = _package_of(path)
    found: set[Path] = set()
    for m in _IMPORT.finditer(text):
        if m.group("modules"):
            names = [n.split()[0] for n in m.group("modules").split(",")]
        else:
            base = m.group("base")
            if base.startswith("."):
                if here is None:
                    continue
                up = len(base) - len(base.lstrip("."))
                parent = here.split(".")[: len(here.split(".")) - (up - 1)]
                base = ".".join([*parent, base.lstrip(".")]).rstrip(".")
            listed = m.group("group") if m.group("group") is not None else m.group("names")
            subs = [n.split()[0] for n in re.sub(r"#.*", "", listed).split(",") if n.strip()]
            # "from package import module" is that module, not the package's __init__ (which
            # would bring in the whole family); a name that is no module is the package's
            modules = [f"{base}.{n}" for n in subs if _module_file(f"{base}.{n}")]
            names = modules if len(modules) == len(subs) else [*modules, base]
        for name in names:
            file = _module_file(name)
            if file is not None:
                found.add(file)
    return found


@functools.cache
def source_digest(path: str | Path) -> str:
    """A digest of the Python file ``path`` and of every rompicapo module it imports,
    transitively (this layer excepted): what a kernel of that file is made of. Part of every
    cached kernel's key, and of the Eternity II machines' names.

    ```pycon
    >>> from rompicapo.edges import _alns_kernel
    >>> len(source_digest(_alns_kernel.__file__))
    16

    ```"""
    start = Path(path).resolve()
    seen: set[Path] = set()
    todo = [start]
    while todo:
        file = todo.pop()
        if file in seen or file in _NOT_A_SOURCE:
            continue
        seen.add(file)
        todo.extend(_imported_files(file))
    digest = hashlib.sha256()
    for file in sorted(seen):
        digest.update(str(file.relative_to(PACKAGE) if file.is_relative_to(PACKAGE) else file.name)
                      .encode())  # fmt: skip
        with contextlib.suppress(OSError):
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


# --------------------------------------------------------------------------------------------
# numba's caching classes, reached through one guard


@functools.cache
def fast_path_problem() -> str | None:
    """Why the cache with source keys and shipped kernels cannot work with this numba (a name it
    reaches into is missing), or None when it can. Then kernels use numba's plain cache."""
    try:
        from numba.core.caching import FunctionCache, IndexDataCacheFile  # noqa: F401
    except ImportError as exc:
        return f"numba {numba.__version__} lacks {exc.name or 'a caching class'}"
    for name in ("load_overload", "save_overload", "_index_key"):
        if not callable(getattr(FunctionCache, name, None)):
            return f"numba {numba.__version__}'s FunctionCache has no {name}"
    if not hasattr(numba.njit(lambda: None), "_cache"):
        return f"numba {numba.__version__}'s dispatcher keeps no _cache"
    return None


@functools.cache
def _kernel_cache_class() -> type:
    """The cache class (made on first use, so that importing this module needs nothing from
    numba's caching classes)."""
    from numba.core.caching import FunctionCache, IndexDataCacheFile

    class KernelCache(FunctionCache):
        """numba's cache of one kernel: keys that also hold `source_digest()`, the shipped
        kernels read when numba's own cache has nothing, and every failure a fallback."""

        def __init__(self, py_func: Callable) -> None:
            super().__init__(py_func)
            self._source = py_func.__code__.co_filename  # digested on the first load or save

        def _index_key(self, sig: Any, codegen: Any) -> Any:
            # numba's key, whatever its shape, and the digest beside it
            return (super()._index_key(sig, codegen), source_digest(self._source))

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            try:
                data = super().load_overload(sig, target_context)
            except Exception as exc:  # a damaged file in numba's cache: compile afresh
                _notice(f"a cached kernel could not be read ({_short(exc)}): compiling it again")
                data = None
            if data is not None or not getattr(self, "_enabled", True):
                return data
            return self._load_shipped(sig, target_context)

        def _load_shipped(self, sig: Any, target_context: Any) -> Any:
            manifest = shipped_manifest()
            if manifest is None:
                return None
            try:
                folder = SHIPPED_FOLDER / Path(self._source).resolve().parent.relative_to(PACKAGE)
            except ValueError:  # not a file of the package: nothing was shipped for it
                return None
            try:
                # numba checks an index against its source file's time stamp, which an install
                # does not keep: the shipped index is taken at its own stamp, the key's digest
                # of the sources (above) being the check that they are these very files
                index = folder / f"{self._impl.filename_base}.nbi"
                shipped = IndexDataCacheFile(
                    cache_path=str(folder),
                    filename_base=self._impl.filename_base,
                    source_stamp=_index_stamp(index),
                )
                # numba's key names this CPU; the shipped kernels were keyed to their CPU level
                (_, _, *code_hashes), digest = self._index_key(sig, target_context.codegen())
                magic = (manifest["triple"], manifest["cpu_name"], manifest["cpu_features"])
                data = shipped.load(((sig, magic, *code_hashes), digest))
                return None if data is None else self._impl.rebuild(target_context, data)
            except Exception as exc:  # truncated, corrupted or foreign: compile instead
                _notice(f"a shipped kernel could not be loaded ({_short(exc)}): compiling it")
                return None

        def save_overload(self, sig: Any, data: Any) -> None:
            try:
                super().save_overload(sig, data)
            except OSError as exc:  # a full disk, a folder made read-only, a quota
                self._not_kept(exc)
            except Exception:  # numba reads the index before adding to it: a damaged one
                try:
                    Path(self._cache_file._index_path).unlink()
                    super().save_overload(sig, data)
                except Exception as exc:
                    self._not_kept(exc)

        def _not_kept(self, exc: BaseException) -> None:
            _notice(
                f"compiled kernels cannot be kept in {getattr(self, '_cache_path', '')}"
                f" ({_short(exc)}): "
                "they are compiled again next time (NUMBA_CACHE_DIR names another folder)"
            )

    return KernelCache


def _index_stamp(path: Path) -> Any:
    """The source stamp a numba index file was written for (the file: a pickled version, then
    a pickled ``(stamp, overloads)``); None when there is no such file."""
    import pickle

    if not path.is_file():
        return None
    with open(path, "rb") as f:
        pickle.load(f)
        stamp, _ = pickle.loads(f.read())
    return stamp


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``, taking the same arguments; with ``cache=True`` the kernel's cache is a
    `KernelCache` (source keys, shipped kernels, fallbacks, see the module docstring)."""
    if args and callable(args[0]) and len(args) == 1:
        return _decorate(args[0], (), kwargs)
    return lambda func: _decorate(func, args, kwargs)


def _decorate(func: Callable, args: tuple, kwargs: dict) -> Any:
    if not kwargs.get("cache"):
        return numba.njit(*args, **kwargs)(func)
    plain = {**kwargs, "cache": False}
    problem = fast_path_problem()
    if problem is not None:
        _notice(f"{problem}: kernels compile with numba's plain cache")
        return _with_numba_cache(func, args, kwargs)
    dispatcher = numba.njit(*args, **plain)(func)
    try:
        dispatcher._cache = _kernel_cache_class()(dispatcher.py_func)
    except RuntimeError as exc:  # numba: "cannot cache function ...: no locator available"
        _notice(
            f"no folder can hold compiled kernels ({_short(exc)}): they compile on every run; "
            "set NUMBA_CACHE_DIR to a writable folder to keep them"
        )
    except Exception as exc:  # anything else numba changed: its plain cache
        _notice(f"the kernel cache cannot start ({_short(exc)}): using numba's plain cache")
        return _with_numba_cache(func, args, kwargs)
    return dispatcher


def _with_numba_cache(func: Callable, args: tuple, kwargs: dict) -> Any:
    """numba's own cache, or none where it cannot start (no folder for one, or its classes
    are not where they were)."""
    try:
        return numba.njit(*args, **kwargs)(func)
    except Exception:
        return numba.njit(*args, **{**kwargs, "cache": False})(func)


def target_cpu_features() -> str:
    """The CPU features numba compiles for (``+avx2,+bmi2,...``): ``NUMBA_CPU_FEATURES`` when
    set, else this CPU's, as llvmlite reads them ("" where it cannot)."""
    if config.CPU_FEATURES is not None:
        return config.CPU_FEATURES
    import llvmlite.binding as ll

    try:
        return ll.get_host_cpu_features().flatten()
    except RuntimeError:
        return ""


# --------------------------------------------------------------------------------------------
# the shipped kernels


def _python_tag() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


def _llvmlite_version() -> str:
    import llvmlite

    return llvmlite.__version__


@functools.cache
def shipped_manifest() -> dict | None:
    """What the shipped kernels were built for (``numba``, ``llvmlite``, ``python``,
    ``triple``, ``cpu_name``, ``cpu_features``), or None when there are none or they cannot
    run here."""
    if os.environ.get("ROMPICAPO_SHIPPED_KERNELS", "1") == "0":
        return None
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return None  # the user asked numba for code of a given CPU: that is what compiles
    try:
        manifest = json.loads((SHIPPED_FOLDER / _MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict):
        return None
    if (
        manifest.get("numba") != numba.__version__
        or manifest.get("llvmlite") != _llvmlite_version()
        or manifest.get("python") != _python_tag()
    ):
        return None
    import llvmlite.binding as ll

    if manifest.get("triple") != ll.get_process_triple():
        return None
    host = set(ll.get_host_cpu_features().flatten().split(","))
    needed = {f for f in str(manifest.get("cpu_features", "")).split(",") if f}
    if not needed or not needed <= host or not isinstance(manifest.get("cpu_name"), str):
        return None
    return manifest


def build_shipped(out: Path | None = None, *, jobs: int | None = None) -> dict:
    """Compile the kernels of every family's first commands (`rompicapo.warmup`) for
    `SHIPPED_CPU` into a fresh numba cache, in worker processes, and copy that cache into
    ``out`` (default `SHIPPED_FOLDER`), laid out by source folder, with its manifest.
    Returns the manifest. Run before the wheel is built (``.ci/run`` does)."""
    import subprocess

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
        folders = {p.parent for p in PACKAGE.rglob("*.py")}
        by_name = {_numba_subpath(f): f for f in folders}
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
        "llvmlite": _llvmlite_version(),
        "python": _python_tag(),
        "triple": ll.get_process_triple(),
        "cpu_name": SHIPPED_CPU[0],
        "cpu_features": SHIPPED_CPU[1],
        "files": copied,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / _MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


# --------------------------------------------------------------------------------------------
# kernels generated at run time (the Eternity II machines): their folder and numba's cache


def _numba_subpath(folder: Path) -> str:
    """The name numba gives the cache folder of the sources in ``folder`` under
    ``NUMBA_CACHE_DIR``: the folder's name and the SHA-1 of its absolute path (numba's
    ``_CacheLocator.get_suitable_cache_subpath``, the same since numba 0.47; written here so
    as not to depend on where numba keeps it, and checked against numba's by the tests)."""
    path = os.path.abspath(folder)
    return "_".join([os.path.basename(path), hashlib.sha1(path.encode()).hexdigest()])


def numba_index_folder(folder: Path) -> Path:
    """Where numba keeps its cache of the Python files in ``folder``: under
    ``NUMBA_CACHE_DIR`` when it is set (a folder named after ``folder``'s path), else
    ``folder/__pycache__``."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / _numba_subpath(Path(folder))
    return Path(folder) / "__pycache__"


_private_folders: dict[str, Path] = {}


def generated_folder(kind: str) -> Path:
    """The folder for kernels written at run time of one ``kind`` (``"walk-machines"``):
    ``$ROMPICAPO_CACHE_DIR/kind``, else ``$XDG_CACHE_HOME/rompicapo/kind`` or
    ``~/.cache/rompicapo/kind``; a private temporary folder (one per process, removed when it
    ends) when none of these can be written."""
    base = os.environ.get("ROMPICAPO_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    if base and not os.environ.get("ROMPICAPO_CACHE_DIR"):
        base = os.path.join(base, "rompicapo")
    candidates = [Path(base)] if base else []
    with contextlib.suppress(RuntimeError, KeyError):  # no home folder to be found
        candidates.append(Path.home() / ".cache" / "rompicapo")
    for root in candidates:
        folder = root / kind
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    private = _private_folders.get(kind)
    if private is None or not private.is_dir():
        private = Path(tempfile.mkdtemp(prefix=f"rompicapo-{kind}-"))
        _private_folders[kind] = private
        # removed when the process ends (a worker process too: multiprocessing runs its
        # finalizers where atexit does not)
        from multiprocessing.util import Finalize

        Finalize(None, shutil.rmtree, args=(str(private),), kwargs={"ignore_errors": True},
                 exitpriority=0)  # fmt: skip
    return private


def forget_generated(folder: Path, pattern: str, keep: Callable[[Path], bool]) -> int:
    """Delete the generated modules in ``folder`` matching ``pattern`` that ``keep`` refuses,
    with numba's cache of them (where numba keeps it now, and beside them, where it kept it
    without ``NUMBA_CACHE_DIR``); returns how many modules went."""
    indexes = {numba_index_folder(folder), Path(folder) / "__pycache__"}
    gone = 0
    for old in Path(folder).glob(pattern):
        if keep(old):
            continue
        for stale in [old, *(f for index in indexes for f in index.glob(f"{old.stem}.*"))]:
            with contextlib.suppress(OSError):
                stale.unlink()
        gone += 1
    return gone


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
