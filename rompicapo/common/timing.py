"""Wall-clock timing, with the one-off compilation of numba kernels accounted apart.

numba compiles a kernel the first time it is called with a given signature, then keeps the machine
code in its on-disk cache (``cache=True``), so the wait happens once per installation. This module
times that first call ([`jit_warmup()`][rompicapo.common.jit_warmup]), and watches numba's
compilations in the process ([`watch_compilation()`][rompicapo.common.watch_compilation]) so that
the command line can say, once and before the wait, what it is compiling and for about how long
("compiling the Sudoku solver, once: about 15 s"), and can tell when compilation ate most of a
``--time`` budget.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

__all__ = [
    "Deadline",
    "KernelStop",
    "Stopwatch",
    "compile_budget_note",
    "compile_estimate",
    "compiled_seconds",
    "is_compile_notice",
    "jit_warmup",
    "watch_compilation",
]


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.seconds`` (wall clock, perf_counter).

    ```pycon
    >>> import time
    >>> with Stopwatch() as sw:
    ...     time.sleep(0.01)
    >>> sw.seconds >= 0.01
    True

    ```"""

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

    ```pycon
    >>> Deadline(None).remaining(), Deadline(None).time_left(), Deadline(None).expired()
    (inf, None, False)
    >>> over = Deadline(0.0)  # no time at all: over as soon as it is made
    >>> over.expired(), over.remaining(), over.time_left()
    (True, 0.0, 0.001)
    >>> 0 < Deadline(60).remaining() <= 60
    True

    ```"""

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


class KernelStop:
    """A stop request that a kernel running for long inside one call reads every so many nodes.

    ``with KernelStop(time_limit) as stop: kernel(..., stop.flag)``. ``stop.flag`` is an
    ``int64[2]``: entry 0 is the request, set from another thread (1 when ``time_limit``
    seconds have passed, 2 on Ctrl-C or SIGTERM), entry 1 the kernel's answer (it sets it to 1
    when it gave up its search on the request). Afterwards ``stop.reason`` is ``"time"``,
    ``"interrupted"`` or None (the kernel finished first).

    The kernel must release the GIL (``nogil=True``) for the timer's thread to run during the
    call. A signal's Python handler runs only when the call returns, so in the main thread the
    request also listens to signals through `signal.set_wakeup_fd` (restored afterwards): the
    kernel stops within a few milliseconds of Ctrl-C, then the handler runs as usual
    (KeyboardInterrupt for Ctrl-C).

    ```pycon
    >>> with KernelStop(None) as stop:
    ...     stop.flag.tolist()
    [0, 0]
    >>> stop.reason is None
    True

    ```"""

    def __init__(self, time_limit: float | None) -> None:
        import numpy as np

        self.flag = np.zeros(2, np.int64)
        self.time_limit = time_limit
        self._done = threading.Event()
        self._threads: list[threading.Thread] = []
        self._wakeup: tuple | None = None

    def _request(self, why: int) -> None:
        if self.flag[0] == 0:
            self.flag[0] = why

    def __enter__(self) -> KernelStop:
        if self.time_limit is not None:
            timer = threading.Thread(
                target=lambda: self._done.wait(self.time_limit) or self._request(1), daemon=True
            )
            self._threads.append(timer)
        self._listen_to_signals()
        for thread in self._threads:
            thread.start()
        return self

    def _listen_to_signals(self) -> None:
        import signal
        import socket

        if threading.current_thread() is not threading.main_thread():
            return
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        try:
            previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError):  # not the main interpreter, or no such support here
            reader.close()
            writer.close()
            return
        self._wakeup = (reader, writer, previous)
        stopping = {int(signal.SIGINT), int(signal.SIGTERM), int(getattr(signal, "SIGHUP", 0))}

        def listen() -> None:
            import select

            while not self._done.is_set():
                ready, _, _ = select.select([reader], [], [], 0.05)
                if ready:
                    data = b""
                    with contextlib.suppress(OSError):
                        data = reader.recv(64)
                    # the bytes are the signals' numbers: only the stopping ones stop
                    if any(signum in stopping for signum in data):
                        self._request(2)
                    if previous >= 0:  # hand the signal on to whoever listened before
                        with contextlib.suppress(OSError):
                            os.write(previous, data)

        self._threads.append(threading.Thread(target=listen, daemon=True))

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        for thread in self._threads:
            thread.join()
        if self._wakeup is not None:
            import signal

            reader, writer, previous = self._wakeup
            signal.set_wakeup_fd(previous)
            reader.close()
            writer.close()

    @property
    def reason(self) -> str | None:
        """Why the kernel stopped early (``"time"``, ``"interrupted"``), or None."""
        if self.flag[1] == 0:
            return None
        return "interrupted" if self.flag[0] == 2 else "time"


_warmed: dict[str, float] = {}


def jit_warmup(key: str, call: Callable[[], object]) -> float:
    """Run ``call`` (a kernel on a tiny input) once per process and return the seconds it took.

    numba compiles a kernel (or loads it from its cache) on the first call with a given signature.
    Running that first call on a tiny input, before the timed solve, lets results report compilation
    apart from search. Later calls with the same ``key`` return 0.0. Compilations are watched from
    here on ([`watch_compilation()`][rompicapo.common.watch_compilation]).

    ```pycon
    >>> import numba
    >>> @numba.njit(cache=False)
    ... def add(a, b):
    ...     return a + b
    >>> jit_warmup("the adder", lambda: add(1, 2)) > 0  # compiled on this first call
    True
    >>> jit_warmup("the adder", lambda: add(1, 2))  # the same key again: nothing to do
    0.0

    ```"""
    if key in _warmed:
        return 0.0
    _watcher.install()
    t0 = time.perf_counter()
    call()
    seconds = time.perf_counter() - t0
    _warmed[key] = seconds
    return seconds


# --------------------------------------------------------------------------------------------
# What is compiling, and for about how long
# --------------------------------------------------------------------------------------------

# The kernels' modules (longest prefix first), the name a person is told, and the seconds their
# first command compiles on a cold cache: measured on a 2-core Intel Xeon, CPU seconds, with the
# command named beside each (the kernel's owner updates the figure when the kernel changes).
# The line says "about N s": an estimate, never a promise.
_SOLVERS: tuple[tuple[str, str, float], ...] = (
    ("rompicapo.cover._sudoku", "Sudoku solver", 29.0),  # sudoku solve (README's puzzle)
    ("rompicapo.cover.", "exact-cover solver", 17.0),  # queens 10
    ("rompicapo.paths._count", "path counter", 4.0),  # count 5x7 --start 2,3
    ("rompicapo.paths._verify", "path verifier", 1.0),  # verify-path
    ("rompicapo.paths.", "path solver", 2.0),  # path 10
    ("rompicapo.games._connect4", "Connect Four solver", 8.0),  # game connect4 solve 4455
    ("rompicapo.games._pig", "Pig solver", 1.0),  # game pig
    ("rompicapo.games.", "game solver", 1.0),
    ("rompicapo.edges._repair", "Eternity II improver", 3.0),  # edges improve
    ("rompicapo.edges.", "Eternity II search", 3.0),  # edges solve eternity2
)


def compile_estimate(module: str) -> tuple[str, float]:
    """What a person is told compiles when a kernel of ``module`` does, and for about how many
    seconds (the first command's compilation on a cold cache, measured).

    ```pycon
    >>> compile_estimate("rompicapo.cover._sudoku_bits_kernel")[0]
    'Sudoku solver'
    >>> compile_estimate("mypackage.kernels")
    ('numba kernels', 5.0)

    ```"""
    for prefix, name, seconds in _SOLVERS:
        if module.startswith(prefix):
            return name, seconds
    return "numba kernels", 5.0


# the lines this module has the command line print, which depend on the state of the cache
_NOTICE = re.compile(
    r"^(compiling the .+, once: about \d+ s"
    r"|rompicapo .+: compiling took .+ of the .+ time limit.*)$"
)


def is_compile_notice(line: str) -> bool:
    """Whether ``line`` is one of the compilation notices (the documentation's examples, which
    run on a cold cache or a warm one, leave them out of what they compare).

    ```pycon
    >>> is_compile_notice("compiling the Sudoku solver, once: about 15 s")
    True
    >>> is_compile_notice("unique solution")
    False

    ```"""
    return _NOTICE.match(line.strip()) is not None


def _notice(module: str) -> str:
    name, seconds = compile_estimate(module)
    return f"compiling the {name}, once: about {seconds:.0f} s"


class _CompileWatcher:
    """A listener of numba's compile events: it sums the seconds of the outermost compilations
    of this process and, when a stream is set, writes one line before the first of them."""

    def __init__(self) -> None:
        self.stream: TextIO | None = None
        self.announced = False
        self.seconds = 0.0
        self._installed = False
        self._lock = threading.Lock()
        self._depth = threading.local()

    def install(self) -> None:
        """Register with numba's event API (once per process; imports numba)."""
        with self._lock:
            if self._installed:
                return
            self._installed = True
        from numba.core import event

        watcher = self

        class _Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                watcher._start(ev)

            def on_end(self, ev: event.Event) -> None:
                watcher._end(ev)

        event.register("numba:compile", _Listener())

    def _start(self, ev: object) -> None:
        stack = getattr(self._depth, "stack", None)
        if stack is None:
            stack = self._depth.stack = []
        stack.append(time.perf_counter())
        if len(stack) > 1 or self.announced or self.stream is None:
            return
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None  # type: ignore[attr-defined]
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith("rompicapo."):
            return
        self.announced = True
        # a closed or broken stream: the notice is not worth a failure
        with contextlib.suppress(OSError, ValueError):
            print(_notice(module), file=self.stream, flush=True)

    def _end(self, ev: object) -> None:
        stack = getattr(self._depth, "stack", None)
        if not stack:
            return
        t0 = stack.pop()
        if not stack:
            with self._lock:
                self.seconds += time.perf_counter() - t0


_watcher = _CompileWatcher()


def watch_compilation(stream: TextIO | None = sys.stderr) -> None:
    """From now on, write one line to ``stream`` before the first numba compilation of a rompicapo
    kernel in this process ("compiling the Sudoku solver, once: about 15 s"), and count the seconds
    of every compilation ([`compiled_seconds()`][rompicapo.common.compiled_seconds]).
    ``stream=None`` counts without a word. A kernel loaded from numba's cache is no compilation and
    says nothing.

    The command line calls it (``--quiet`` passes None); the kernels' warm-up
    ([`jit_warmup()`][rompicapo.common.jit_warmup]) starts the count without the line. It imports
    numba only when numba is already imported; otherwise the first
    [`jit_warmup()`][rompicapo.common.jit_warmup] does.

    ```pycon
    >>> import numba
    >>> watch_compilation(None)  # count the compilations, without a word
    >>> before = compiled_seconds()
    >>> @numba.njit(cache=False)
    ... def twice(x):
    ...     return 2 * x
    >>> twice(21)  # the first call compiles
    42
    >>> compiled_seconds() > before
    True

    ```"""
    _watcher.stream = stream
    if "numba" in sys.modules:
        _watcher.install()


def compiled_seconds() -> float:
    """Seconds this process has spent compiling numba kernels since it started watching
    ([`watch_compilation()`][rompicapo.common.watch_compilation] or the first
    [`jit_warmup()`][rompicapo.common.jit_warmup]); loads from the cache are not
    counted.

    ```pycon
    >>> import numba
    >>> watch_compilation(None)  # count, without a word
    >>> before = compiled_seconds()
    >>> @numba.njit(cache=False)
    ... def half(x):
    ...     return x / 2
    >>> half(21)  # the first call compiles
    10.5
    >>> after = compiled_seconds()
    >>> after > before
    True
    >>> half(4)  # compiled already: no more seconds
    2.0
    >>> compiled_seconds() == after
    True

    ```"""
    return _watcher.seconds


def compile_budget_note(time_limit: float | None, compile_seconds: float) -> str | None:
    """The sentence that says compilation ate a time limit (a quarter of it or more), or None.

    ```pycon
    >>> print(compile_budget_note(5.0, 4.0))  # doctest: +ELLIPSIS
    compiling took 4.0 s of the 5 s time limit, so the search had about 1.0 s; the kernels ...
    >>> compile_budget_note(60.0, 4.0) is None
    True

    ```"""
    if time_limit is None or compile_seconds < 0.25 * time_limit:
        return None
    left = max(0.0, time_limit - compile_seconds)
    return (
        f"compiling took {compile_seconds:.1f} s of the {time_limit:g} s time limit, so the "
        f"search had about {left:.1f} s; the kernels are cached now: run it again for a full "
        "search (rompicapo warm-up compiles every kernel ahead)"
    )
