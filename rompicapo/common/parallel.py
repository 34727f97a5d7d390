"""Parallel runs: local processes or threads on all cores by default, or a Dask cluster; and
how a run is stopped.

Every command that takes a scheduler address reaches it through
[`connect_scheduler()`][rompicapo.common.connect_scheduler], so a
wrong address is one line within `SCHEDULER_TIMEOUT` seconds wherever it is given.

Stopping (`stop_signals()`): SIGTERM and SIGHUP (what ``kill``, ``timeout``, systemd, Docker and
batch schedulers send, and a closed terminal) stop a run as Ctrl-C does, with a KeyboardInterrupt in
the main thread, so every family's Ctrl-C path (keep the best result, flush the checkpoint) serves
them too. Only the first stop signal raises; the next ones are dropped while the run saves what it
keeps, so two signals 50 ms apart lose nothing. Worker processes of
[`run_jobs()`][rompicapo.common.run_jobs] are stopped and reaped (joined, killed if they linger)
before the interrupt reaches the caller. `stop_signals()` also takes a ``deadline``: a watchdog
thread stops the run the same way when a command overruns its time limit (a phase that forgot to
look at the clock loses the overrun, not the result). It never stops numba compiling a kernel (a
first run after installing or changing a kernel): what is compiled is cached for every later run,
which keeps the limit.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from typing import Any, TypeVar

from rompicapo.common.errors import InputError
from rompicapo.common.extras import require_extra
from rompicapo.common.run import check_int, default_jobs
from rompicapo.common.timing import Deadline
from rompicapo.common.workers import worker_context

__all__ = [
    "SCHEDULER_TIMEOUT",
    "StopState",
    "check_scheduler",
    "connect_scheduler",
    "default_jobs",
    "holding_stops",
    "output_begins",
    "reap",
    "run_jobs",
    "stop_reason",
    "stop_signals",
    "stopping",
]

J = TypeVar("J")
R = TypeVar("R")


def run_jobs(
    func: Callable[[J], R],
    jobs: Iterable[J],
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    max_pending: int | None = None,
    threads: bool = False,
    deadline: Deadline | None = None,
) -> Iterator[tuple[J, R]]:
    """Run ``func(job)`` for every job and yield ``(job, result)`` pairs as they finish.

    ``deadline``: when it passes, no more results are awaited: jobs not started are
    cancelled, local worker processes are stopped (a job in a process cannot be interrupted
    otherwise; with threads the running jobs are left to finish on their own), and the
    iteration ends. The caller's own clock tells it that the results are incomplete.

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

    ```pycon
    >>> list(run_jobs(abs, [-3, 1, -2], n_jobs=1))  # in this process, in order
    [(-3, 3), (1, 1), (-2, 2)]
    >>> sorted(run_jobs(abs, [-3, 1, -2], n_jobs=2, threads=True))  # as they finish
    [(-3, 3), (-2, 2), (1, 1)]
    >>> list(run_jobs(abs, [-3, 1, -2], n_jobs=1, deadline=Deadline(0.0)))  # no time: no result
    []

    ```"""
    if scheduler is not None:
        yield from _run_dask(func, jobs, scheduler, max_pending)
        return
    n = default_jobs() if n_jobs is None else check_int(n_jobs, "jobs", minimum=1, maximum=4096)
    if n == 1:
        for job in jobs:
            if deadline is not None and deadline.expired():
                return
            yield job, func(job)
        return
    limit = max_pending or 4 * n
    it = iter(jobs)
    # spawn, not fork: workers start clean (no inherited threads or numba state) and load the
    # compiled kernels from numba's on-disk cache; they die with this process however it ends.
    pool_type = (
        ThreadPoolExecutor(max_workers=n)
        if threads
        else ProcessPoolExecutor(max_workers=n, mp_context=worker_context())
    )
    pool = pool_type
    pending: dict[Future, J] = {}
    # leaving waits for the jobs still running (threads cannot be stopped), except when the
    # process is stopping: a stop signal must not wait for a kernel to end its slice of work
    wait_at_end = True
    try:
        for job in it:
            pending[pool.submit(func, job)] = job
            if len(pending) >= limit:
                break
        while pending:
            if _stop_overdue():
                # the process is stopping (a signal seen by the main thread while this runs
                # in another) and the jobs had their grace to report: stop them
                wait_at_end = False
                _stop(pool, pending)
                return
            timeout = None if deadline is None else deadline.remaining()
            if _ACTIVE is not None:  # a stop signal must be noticed here too
                timeout = STOP_POLL if timeout is None else min(timeout, STOP_POLL)
            done, _ = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            if not done:
                if deadline is not None and deadline.expired():
                    _stop(pool, pending)  # every job in flight still ran at the deadline
                    return
                continue
            for fut in done:
                job = pending.pop(fut)
                yield job, fut.result()
                if stopping():
                    continue  # a stopping run starts no new job
                for nxt in it:
                    pending[pool.submit(func, nxt)] = nxt
                    break
    except BaseException as exc:
        wait_at_end = not (isinstance(exc, KeyboardInterrupt) or stopping())
        _stop(pool, pending)
        raise
    finally:
        pool.shutdown(wait=wait_at_end)


# Seconds a stopped worker process gets to end after SIGTERM before it is killed.
REAP_SECONDS = 1.0
# Seconds the jobs of a stopping process get to finish on their own (a family's workers watch
# a stop file and return their best) before :func:`run_jobs` stops them; and how often it
# looks. With the reaping, every worker is gone within about two seconds of the signal.
STOP_GRACE = 0.5
STOP_POLL = 0.1


def _stop_overdue() -> bool:
    state = _ACTIVE
    return (
        state is not None
        and state.since is not None
        and time.monotonic() - state.since >= STOP_GRACE
    )


def _stop(pool, pending) -> None:
    """Cancel what has not started and stop local worker processes now (Ctrl-C, a deadline):
    otherwise leaving the pool would wait for every running job to finish. The processes are
    reaped before this returns: none outlives the run."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if processes:
        # the pool sees its workers die and fails every pending future itself; cancelling
        # them first would make its manager thread raise InvalidStateError (Python 3.11)
        for proc in processes:
            with contextlib.suppress(OSError, ValueError):
                proc.terminate()
        reap(processes)
        pool.shutdown(wait=False)
        return
    for fut in pending:
        fut.cancel()
    pool.shutdown(wait=False, cancel_futures=True)


def reap(processes: Iterable[Any], seconds: float = REAP_SECONDS) -> None:
    """Wait up to ``seconds`` for ``processes`` (``multiprocessing`` processes, already told
    to stop) to end, then kill the ones still there and collect them: no zombie, no orphan."""
    processes = list(processes)
    end = time.monotonic() + seconds
    for proc in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            proc.join(max(0.0, end - time.monotonic()))
    for proc in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            if proc.is_alive():
                proc.kill()
                proc.join(seconds)


# --------------------------------------------------------------------------------------------
# Stop signals and the watchdog of the time limit
# --------------------------------------------------------------------------------------------

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
# A stop signal this many seconds after the first, while the run is still stopping, ends the
# process at once: the way out of a stop that hangs (the first signal's saving had its chance).
STUCK_SECONDS = 10.0
# Seconds past the time limit after which the watchdog stops a run that has not stopped itself.
WATCHDOG_GRACE = 1.0


class StopState:
    """The stop of one run: ``reason`` is what stopped it (a signal's name, or ``"time"`` for
    the watchdog), None while it runs."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.since: float | None = None
        self.dropped = 0
        self.holds = 0
        self.pending = False
        self.output = False

    @property
    def stopping(self) -> bool:
        return self.reason is not None


_ACTIVE: StopState | None = None


@contextlib.contextmanager
def holding_stops():
    """Within, a stop (signal or watchdog) waits: it is raised when the block ends. Atomic
    writes hold stops, so a signal that comes while a result is being written lets the write
    finish (the file is whole) and stops the run just after."""
    state = _ACTIVE
    if state is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    state.holds += 1
    try:
        yield
    finally:
        state.holds -= 1
        if state.holds == 0 and state.pending:
            state.pending = False
            raise KeyboardInterrupt


def stopping() -> bool:
    """Has a stop signal (or the watchdog) come? Work running in threads of this process
    (which no KeyboardInterrupt reaches) looks here between its pieces and returns early."""
    return _ACTIVE is not None and _ACTIVE.since is not None


def stop_reason() -> str | None:
    """What is stopping the run: a signal's name (``"SIGTERM"``...), ``"time"`` (the watchdog
    of the time limit), or None."""
    return None if _ACTIVE is None else _ACTIVE.reason


def output_begins() -> None:
    """The command has started printing its result: the watchdog no longer stops it (it stops
    the work, never the output)."""
    if _ACTIVE is not None:
        _ACTIVE.output = True


def _inside_numba(frame) -> bool:
    name = getattr(frame, "f_globals", {}).get("__name__", "") if frame is not None else ""
    return name == "numba" or name.startswith(("numba.", "llvmlite."))


def _deliver_later(signum: int, seconds: float = 0.01) -> None:
    main_id = threading.main_thread().ident

    def again() -> None:
        time.sleep(seconds)
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_kill(main_id, signum)

    threading.Thread(target=again, daemon=True).start()


def _compiling() -> bool:
    """Is numba compiling a kernel right now (in any thread)? Its global compiler lock is
    held while it does."""
    import sys

    module = sys.modules.get("numba.core.compiler_lock")
    lock = getattr(getattr(module, "global_compiler_lock", None), "_lock", None)
    if lock is None or not hasattr(lock, "acquire"):
        return False
    if lock.acquire(blocking=False):
        lock.release()
        return False
    return True


@contextlib.contextmanager
def stop_signals(deadline: float | None = None, *, signals: tuple[int, ...] = STOP_SIGNALS):
    """``with stop_signals(deadline) as state:`` SIGINT, SIGTERM and SIGHUP stop the run with
    a KeyboardInterrupt in the main thread; the first one only (later ones are dropped while
    the run keeps its result; one `STUCK_SECONDS` after the first ends the process).
    With ``deadline`` (a ``time.monotonic()`` instant), a watchdog sends the main thread the
    same stop `WATCHDOG_GRACE` seconds after it, if the run is still working (not yet
    printing its result). ``state`` says what stopped the run. Outside the main thread this
    only yields a state. ``signals``: the signals taken over (a command whose work is one
    long kernel call, which no Python handler can interrupt, leaves SIGTERM and SIGHUP their
    default: the process ends at once, as it always did)."""
    global _ACTIVE
    state = StopState()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def handler(signum, frame):
        now = time.monotonic()
        if state.since is None and _inside_numba(frame):
            # numba's dispatcher is running Python code of its own between C calls: an
            # exception raised there comes out as SystemError and skips every family's Ctrl-C
            # path; the signal is delivered again 10 ms later, out of it
            _deliver_later(signum)
            return
        if state.since is None:
            state.since = now
            if state.reason is None:
                state.reason = signal.Signals(signum).name
            if state.holds:
                state.pending = True
                return
            raise KeyboardInterrupt
        state.dropped += 1
        if now - state.since > STUCK_SECONDS:
            os._exit(128 + signum)

    previous = {}
    for sig in signals:
        with contextlib.suppress(OSError, ValueError):
            previous[sig] = signal.signal(sig, handler)
    outer, _ACTIVE = _ACTIVE, state
    done = threading.Event()
    watchdog = None
    if deadline is not None and hasattr(signal, "pthread_kill"):
        main_id = threading.main_thread().ident

        def watch() -> None:
            while (left := deadline + WATCHDOG_GRACE - time.monotonic()) > 0:
                if done.wait(min(left, 3600.0)):  # a wait of years overflows some clocks
                    return
            # a kernel being compiled is let finish: stopped, it would be compiled again (and
            # stopped again) by every later run, since numba caches only what it finished
            while _compiling():
                if done.wait(0.1):
                    return
            if state.reason is None and not state.output:
                state.reason = "time"
                with contextlib.suppress(OSError, ValueError):
                    signal.pthread_kill(main_id, signal.SIGINT)

        watchdog = threading.Thread(target=watch, name="rompicapo-watchdog", daemon=True)
        watchdog.start()
    try:
        yield state
    finally:
        done.set()
        _ACTIVE = outer
        if watchdog is not None:
            watchdog.join(1.0)
        for sig, old in previous.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(sig, old)


def _run_dask(
    func: Callable[[J], R], jobs: Iterable[J], scheduler: Any, max_pending: int | None
) -> Iterator[tuple[J, R]]:
    from distributed import as_completed

    own = not hasattr(scheduler, "submit")
    client = connect_scheduler(scheduler) if own else scheduler
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
# and then raises a traceback; a port that is not a Dask scheduler can keep it waiting for
# ever). The promise is one line within 10 s; this leaves room for start-up.
SCHEDULER_TIMEOUT = 8.0

_INPROC = re.compile(r"^inproc://[0-9A-Za-z_.:/-]+$")
_ADDRESS = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})/?$")


def parse_scheduler_address(address: object) -> tuple[str, str, int]:
    """``(protocol, host, port)`` of ``tcp://host:port`` (or ``host:port``), or InputError.

    ```pycon
    >>> parse_scheduler_address("tcp://10.0.0.5:8786"), parse_scheduler_address("localhost:8786")
    (('tcp', '10.0.0.5', 8786), ('tcp', 'localhost', 8786))
    >>> parse_scheduler_address("tcp://host:70000")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: cannot connect to the Dask scheduler 'tcp://host:70000':
    port 70000 is not in 1..65535

    ```"""
    if not isinstance(address, str) or not address.strip():
        raise InputError(
            f"cannot connect to the Dask scheduler {address!r}: "
            "expected an address like tcp://host:8786"
        )
    m = _ADDRESS.match(address.strip())
    if m is None:
        raise InputError(
            f"cannot connect to the Dask scheduler {address[:80]!r}: "
            "expected an address like tcp://host:8786"
        )
    protocol, host, port = m.group(1) or "tcp", m.group(2).strip("[]"), int(m.group(3))
    if not 1 <= port <= 65535:
        raise InputError(
            f"cannot connect to the Dask scheduler {address!r}: port {port} is not in 1..65535"
        )
    return protocol, host, port


def connect_scheduler(address: object, timeout: float = SCHEDULER_TIMEOUT):
    """A ``distributed.Client`` for ``address``, or [`InputError`][rompicapo.common.InputError] with
    a one-line reason within about ``timeout`` seconds: a malformed address, a host that does not
    resolve, a closed port, or a port where no Dask scheduler answers. Nothing is left running on
    failure.

    ```pycon
    >>> connect_scheduler("tcp://127.0.0.1:1", timeout=1)  # nothing listens there
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: cannot connect to the Dask scheduler 'tcp://127.0.0.1:1':
    Connection refused

    ```"""
    label = f"cannot connect to the Dask scheduler {address!r}"
    require_extra("cluster", "--scheduler")
    if isinstance(address, str) and _INPROC.match(address):
        # A scheduler in this very process (LocalCluster(processes=False)): nothing to probe.
        return _client(address, timeout, label)
    deadline = Deadline(timeout)
    where = check_scheduler(address, timeout)
    return _client(where, max(1.0, deadline.remaining()), label)


def check_scheduler(address: object, timeout: float = SCHEDULER_TIMEOUT) -> str:
    """``tcp://host:port`` when a Dask scheduler answers at ``address``, else
    [`InputError`][rompicapo.common.InputError] with a one-line reason within about
    ``timeout`` seconds (see [`connect_scheduler()`][rompicapo.common.connect_scheduler]); no
    client is made. The CLI asks this before a command's clock starts, so an address that does
    not answer is the same one-line error in every command, whatever its ``--time``."""
    label = f"cannot connect to the Dask scheduler {address!r}"
    require_extra("cluster", "--scheduler")
    if isinstance(address, str) and _INPROC.match(address):
        return address
    protocol, host, port = parse_scheduler_address(address)
    deadline = Deadline(timeout)
    # Resolve and open a plain TCP connection first: a closed port or an unknown host is
    # then reported at once instead of after Dask's own retries.
    outcome: dict[str, Any] = {}

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=max(0.5, deadline.remaining())):
                outcome["ok"] = True
        except socket.gaierror:
            outcome["error"] = f"host {host!r} is unknown"
        except OSError as exc:
            outcome["error"] = exc.strerror or type(exc).__name__

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(deadline.remaining())
    if "ok" not in outcome:
        raise InputError(f"{label}: {outcome.get('error', 'no answer')}")

    # Then ask the server who it is, bounded by the same deadline even if it never answers;
    # only a Dask scheduler gets a Client (a Client built on a wrong port lingers and prints
    # its own errors at exit).
    kind = _identify(f"{protocol}://{host}:{port}", deadline)
    if kind != "Scheduler":
        raise InputError(f"{label}: {kind}"[:300])
    return f"{protocol}://{host}:{port}"


def _client(address: str, timeout: float, label: str):
    from distributed import Client

    try:
        return Client(address, timeout=timeout)
    except Exception as exc:  # any failure of the handshake is the address's fault
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{label}: {reason}"[:300]) from None


def _identify(address: str, deadline: Deadline) -> str:
    """``"Scheduler"`` when a Dask scheduler answers at ``address``, else a short reason."""
    import asyncio

    async def ask() -> str:
        from distributed.comm import connect

        comm = await connect(address, timeout=max(0.5, deadline.remaining()))
        try:
            await comm.write({"op": "identity", "reply": True})
            answer = await comm.read()
        finally:
            comm.abort()
        if isinstance(answer, dict) and answer.get("type") == "Scheduler":
            return "Scheduler"
        return "the server there is not a Dask scheduler"

    async def bounded() -> str:
        return await asyncio.wait_for(ask(), timeout=max(0.5, deadline.remaining()))

    result: dict[str, str] = {}

    def run() -> None:
        try:
            result["kind"] = asyncio.run(bounded())
        except TimeoutError:
            result["kind"] = "no Dask scheduler answered in time"
        except Exception:  # garbage back from a port that speaks another protocol
            result["kind"] = "the server there is not a Dask scheduler"

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(deadline.remaining() + 1.0)
    return result.get("kind", "no Dask scheduler answered in time")
