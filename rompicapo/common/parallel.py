"""Parallel runs: local processes or threads on all cores by default, or a Dask cluster.

Every command that takes a scheduler address reaches it through :func:`connect_scheduler`, so a
wrong address is one line within :data:`SCHEDULER_TIMEOUT` seconds wherever it is given.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from multiprocessing import get_context
from typing import Any, TypeVar

from rompicapo.common.errors import InputError
from rompicapo.common.run import check_int
from rompicapo.common.timing import Deadline

__all__ = ["SCHEDULER_TIMEOUT", "connect_scheduler", "default_jobs", "run_jobs"]

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
    """
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
                timeout = None if deadline is None else deadline.remaining()
                done, _ = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                if not done:  # the deadline passed while every job in flight still ran
                    _stop(pool, pending)
                    return
                for fut in done:
                    job = pending.pop(fut)
                    yield job, fut.result()
                    for nxt in it:
                        pending[pool.submit(func, nxt)] = nxt
                        break
        except BaseException:
            _stop(pool, pending)
            raise


def _stop(pool, pending) -> None:
    """Cancel what has not started and stop local worker processes now (Ctrl-C, a deadline):
    otherwise leaving the pool would wait for every running job to finish."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if processes:
        # the pool sees its workers die and fails every pending future itself; cancelling
        # them first would make its manager thread raise InvalidStateError (Python 3.11)
        for proc in processes:
            proc.terminate()
        pool.shutdown(wait=False)
        return
    for fut in pending:
        fut.cancel()
    pool.shutdown(wait=False, cancel_futures=True)


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
    """``(protocol, host, port)`` of ``tcp://host:port`` (or ``host:port``), or InputError."""
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
    """A ``distributed.Client`` for ``address``, or :class:`InputError` with a one-line reason
    within about ``timeout`` seconds: a malformed address, a host that does not resolve, a
    closed port, or a port where no Dask scheduler answers. Nothing is left running on failure.
    """
    label = f"cannot connect to the Dask scheduler {address!r}"
    if isinstance(address, str) and _INPROC.match(address):
        # A scheduler in this very process (LocalCluster(processes=False)): nothing to probe.
        return _client(address, timeout, label)
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
    return _client(f"{protocol}://{host}:{port}", max(1.0, deadline.remaining()), label)


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
