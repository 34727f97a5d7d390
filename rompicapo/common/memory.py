"""Memory: estimate before allocating, refuse with a clear message, report the peak."""

from __future__ import annotations

import resource

from rompicapo.common.errors import InsufficientMemoryError

__all__ = ["available_memory", "check_memory", "format_bytes", "peak_rss_bytes"]


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (psutil's 'available').

    ```pycon
    >>> available_memory() > 1024**2  # more than a megabyte free
    True

    ```"""
    import psutil

    return int(psutil.virtual_memory().available)


def format_bytes(n: float) -> str:
    """``1.5 GB`` style, decimal units.

    ```pycon
    >>> format_bytes(1536), format_bytes(3 * 1024**3)
    ('1.5 KB', '3.2 GB')

    ```"""
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1000
    raise AssertionError("unreachable")


def check_memory(need_bytes: float, what: str, *, headroom: float = 0.9) -> None:
    """Refuse, before allocating, a job whose arrays would not fit in available memory.

    ``need_bytes`` may be a float (a product of huge sizes need not fit in 64 bits).
    ``headroom`` keeps a margin for the interpreter, numba and the OS page cache.
    Raises [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] with the estimate
    and what is available.

    ```pycon
    >>> check_memory(1024, "a 5x5 count")  # fits: nothing happens
    >>> check_memory(1e18, "a count of every path")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InsufficientMemoryError: a count of every path needs about 1000.0 PB
    of memory, but only ... is available on this machine

    ```"""
    avail = available_memory()
    if need_bytes > headroom * avail:
        raise InsufficientMemoryError(
            f"{what} needs about {format_bytes(need_bytes)} of memory, "
            f"but only {format_bytes(avail)} is available on this machine"
        )


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (Linux reports KiB).

    ```pycon
    >>> import numpy as np
    >>> before = peak_rss_bytes()
    >>> block = np.ones(8 * 1024**2, np.uint8)  # 8 MiB, written
    >>> peak_rss_bytes() >= before > 0
    True

    ```"""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(kib) * 1024
