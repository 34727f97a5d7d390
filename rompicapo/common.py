"""The ground floor: what every family of rompicapo shares.

- errors a user can act on (:class:`RompicapoError` and its kinds); the CLI prints them as one
  line and exits with status 2;
- the result protocol (:class:`SearchResult`): answer, counts, timings, peak memory, ``verify()``;
- timing, with the first-call compilation of numba kernels accounted apart from solve time;
- memory: estimate before allocating, refuse with a clear message;
- parallel runs: processes on all cores by default, a Dask cluster when a scheduler address is
  given, with a progress bar on stderr;
- JSON that understands numpy scalars and arrays.

Families import from here and never from each other.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "InputError",
    "InsufficientMemoryError",
    "RompicapoError",
    "SearchResult",
    "Stopwatch",
    "available_memory",
    "check_memory",
    "connect_scheduler",
    "default_jobs",
    "dumps_json",
    "format_bytes",
    "jit_warmup",
    "peak_rss_bytes",
    "progress_bar",
    "run_jobs",
]


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class RompicapoError(Exception):
    """An error the user can act on. Its message is one line that says what was wrong."""


class InputError(RompicapoError, ValueError):
    """Malformed input: a size, a start cell, a move set, a file."""


class InsufficientMemoryError(RompicapoError, MemoryError):
    """The estimated memory need exceeds what this machine has available."""


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class SearchResult:
    """What every solver returns: the answer (in the subclass), counts, timings and memory.

    ``solve_seconds`` excludes the one-off compilation of numba kernels, which is reported in
    ``compile_seconds`` (zero when the kernels were already compiled in this process, a fraction
    of a second when they were loaded from numba's on-disk cache).
    ``counts`` holds machine-independent work measures (nodes, rotations, updates, ...).
    """

    solve_seconds: float = 0.0
    compile_seconds: float = 0.0
    peak_bytes: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def verify(self) -> bool:
        """Check the answer with code that shares nothing with the solver."""
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# Timing and compilation
# --------------------------------------------------------------------------------------------


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.seconds`` (wall clock, perf_counter)."""

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._t0


_warmed: dict[str, float] = {}


def jit_warmup(key: str, call: Callable[[], object]) -> float:
    """Run ``call`` (a kernel on a tiny input) once per process and return the seconds it took.

    numba compiles a kernel (or loads it from its cache) on the first call with a given
    signature. Running that first call on a tiny input, before the timed solve, lets results
    report compilation apart from search. Later calls with the same ``key`` return 0.0.
    """
    if key in _warmed:
        return 0.0
    t0 = time.perf_counter()
    call()
    seconds = time.perf_counter() - t0
    _warmed[key] = seconds
    return seconds


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (psutil's 'available')."""
    import psutil

    return int(psutil.virtual_memory().available)


def format_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1000
    raise AssertionError("unreachable")


def check_memory(need_bytes: int, what: str, *, headroom: float = 0.9) -> None:
    """Refuse, before allocating, a job whose arrays would not fit in available memory.

    ``headroom`` keeps a margin for the interpreter, numba and the OS page cache.
    Raises :class:`InsufficientMemoryError` with the estimate and what is available.
    """
    avail = available_memory()
    if need_bytes > headroom * avail:
        raise InsufficientMemoryError(
            f"{what} needs about {format_bytes(need_bytes)} of memory, "
            f"but only {format_bytes(avail)} is available on this machine"
        )


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(kib) * 1024


# --------------------------------------------------------------------------------------------
# Parallel runs
# --------------------------------------------------------------------------------------------

J = TypeVar("J")
R = TypeVar("R")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_jobs(
    func: Callable[[J], R],
    jobs: Iterable[J],
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    max_pending: int | None = None,
    threads: bool = False,
) -> Iterator[tuple[J, R]]:
    """Run ``func(job)`` for every job and yield ``(job, result)`` pairs as they finish.

    - ``scheduler=None``: local processes, ``n_jobs`` of them (default: all cores); with
      ``n_jobs=1`` the jobs run in this process, in order, which is easiest to debug.
      ``threads=True`` uses threads of this process instead, for work that releases the GIL
      (nogil kernels, file I/O, zlib): no worker start-up, no pickling of results.
    - ``scheduler="tcp://host:port"`` (or a ``distributed.Client``): the jobs go to that Dask
      distributed cluster; ``func`` must be importable by the workers.

    At most ``max_pending`` jobs are in flight (default 4 per worker), so a long job list is
    consumed lazily and a Ctrl-C loses at most the jobs in flight. On KeyboardInterrupt the
    pending jobs are cancelled and the interrupt propagates to the caller, who decides what to
    save.
    """
    if scheduler is not None:
        yield from _run_dask(func, jobs, scheduler, max_pending)
        return
    n = default_jobs() if n_jobs is None else int(n_jobs)
    if n < 1:
        raise InputError(f"--jobs must be at least 1, got {n}")
    if n == 1:
        for job in jobs:
            yield job, func(job)
        return
    limit = max_pending or 4 * n
    it = iter(jobs)
    # spawn, not fork: workers start clean (no inherited threads or numba state) and load the
    # compiled kernels from numba's on-disk cache.
    pool_type = (
        ThreadPoolExecutor(max_workers=n)
        if threads
        else ProcessPoolExecutor(max_workers=n, mp_context=get_context("spawn"))
    )
    with pool_type as pool:
        pending: dict[Future, J] = {}
        try:
            for job in it:
                pending[pool.submit(func, job)] = job
                if len(pending) >= limit:
                    break
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = pending.pop(fut)
                    yield job, fut.result()
                    for nxt in it:
                        pending[pool.submit(func, nxt)] = nxt
                        break
        except BaseException:
            for fut in pending:
                fut.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _run_dask(
    func: Callable[[J], R], jobs: Iterable[J], scheduler: Any, max_pending: int | None
) -> Iterator[tuple[J, R]]:
    from distributed import Client, as_completed

    own = not hasattr(scheduler, "submit")
    client = Client(scheduler) if own else scheduler
    try:
        workers = max(1, sum(client.nthreads().values()))
        limit = max_pending or 4 * workers
        it = iter(jobs)
        pending: dict[Any, J] = {}
        for job in it:
            pending[client.submit(func, job, pure=False)] = job
            if len(pending) >= limit:
                break
        ac = as_completed(list(pending))
        try:
            for fut in ac:
                job = pending.pop(fut)
                yield job, fut.result()
                for nxt in it:
                    f2 = client.submit(func, nxt, pure=False)
                    pending[f2] = nxt
                    ac.add(f2)
                    break
        except BaseException:
            client.cancel(list(pending))
            raise
    finally:
        if own:
            client.close()


# Seconds to reach a Dask scheduler before a wrong address is reported (Dask alone waits 30 s
# and then raises a traceback).
SCHEDULER_TIMEOUT = 10


def connect_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT):
    """A ``distributed.Client`` for ``address``, or :class:`InputError` with a one-line reason
    when it cannot be reached within ``timeout`` seconds (or the address is malformed)."""
    from distributed import Client

    try:
        return Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"cannot connect to the Dask scheduler {address!r}: {reason}") from None


# --------------------------------------------------------------------------------------------
# Progress and output
# --------------------------------------------------------------------------------------------


def progress_bar(*, disable: bool = False, transient: bool = False):
    """A rich progress bar on stderr with a rate, elapsed time and ETA."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        disable=disable,
        transient=transient,
    )


def _json_default(obj: object) -> object:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps_json(obj: object, **kw: Any) -> str:
    """``json.dumps`` that accepts numpy scalars and arrays."""
    return json.dumps(obj, default=_json_default, **kw)
