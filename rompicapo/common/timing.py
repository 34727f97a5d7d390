"""Wall-clock timing, with the one-off compilation of numba kernels accounted apart."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["Deadline", "Stopwatch", "jit_warmup"]


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.seconds`` (wall clock, perf_counter)."""

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._t0


class Deadline:
    """A wall-clock budget that starts when it is made: ``time_limit`` seconds, or none.

    A run builds one at its entry point and passes it down (to workers, kernels' slices,
    restarts), so the limit covers the whole call: start-up, compilation and writing included.
    """

    def __init__(self, time_limit: float | None) -> None:
        self.time_limit = time_limit
        self.start = time.monotonic()
        self.end = math.inf if time_limit is None else self.start + float(time_limit)

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, never below 0)."""
        return max(0.0, self.end - time.monotonic())

    def time_left(self) -> float | None:
        """The ``time_limit`` to hand a nested call: the seconds left (at least a millisecond,
        so that a nested call past the deadline stops at once instead of refusing a limit of
        0), or None without a limit."""
        return None if self.time_limit is None else max(self.remaining(), 1e-3)

    def expired(self) -> bool:
        return time.monotonic() >= self.end

    def elapsed(self) -> float:
        return time.monotonic() - self.start


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
