"""The one job manager: every search of the playground runs in a worker process, never in the
server's event loop.

Two lanes of workers (`rompicapo.web.worker`), each a process started with ``spawn``:

- ``"jobs"``: ``--jobs`` processes for the long runs. A *job* (a live solve, a count) is started by
  a page, streams its [`ProgressEvent`][rompicapo.common.ProgressEvent] objects back to the server,
  and is read, followed or stopped by its owner only; a *heavy call* (generating a Sudoku, a greedy
  board, a study report) is awaited by the request that made it. Both take a slot: at most one per
  page (409) and ``--jobs`` in all (429).
- ``"quick"``: one process for the answers a page waits for (a Connect Four move, a Sudoku,
  a tic-tac-toe tree), each under a time cap of a few seconds, queued in order: at most
  `QUICK_PER_OWNER` waiting per page and `QUICK_QUEUE` in all (429).

The server keeps the state: a job's latest event, its result or its one-line error. Stop sets the
worker's stop flag, and the run's next progress report raises
[`StopRequested`][rompicapo.common.StopRequested] in the worker (the family keeps its best result,
as on Ctrl-C). A worker that does not stop within `STOP_GRACE` seconds, that overruns its task's
time limit by `KILL_GRACE`, or that dies, is ended and started again; its task is reported stopped
or failed, never left running. `JobManager.close()` (the server stopping: Ctrl-C, SIGTERM) ends
every worker; a worker whose server is killed ends itself.

Job ids are 128 random bits (``secrets.token_urlsafe(16)``); owners are the server-issued
page tokens of `rompicapo.web.guard`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import RompicapoError, dumps_json, worker_context
from rompicapo.web import worker

__all__ = ["Busy", "Failed", "Forbidden", "Job", "JobManager", "NoSuchJob", "new_job_id"]

# Finished jobs are kept this long (seconds) so a page can read their result, then dropped.
KEEP_FINISHED = 600
# At most this many finished jobs are kept in all (oldest dropped first).
KEEP_MAX = 200
# How often an event stream looks for news (seconds): live enough for a score graph.
POLL = 0.2
# A stopped run that has not returned after this many seconds is ended (its worker killed).
STOP_GRACE = 3.0
# A task still running this long after its time limit is ended. Generous: the first call of a
# kernel on a cold cache compiles it (more than two minutes on a 2-core machine at load 12).
KILL_GRACE = 600.0
# The quick lane's queue: per page, and in all.
QUICK_PER_OWNER = 8
QUICK_QUEUE = 64
LANES = ("jobs", "quick", "warm")


def new_job_id() -> str:
    """A job's id: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


class Busy(RompicapoError):
    """The playground is at its limit of running jobs (HTTP 429) or the page runs one (409)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Forbidden(RompicapoError):
    """HTTP 403: a job of another page, a request without the page's tokens."""


class NoSuchJob(RompicapoError):
    """HTTP 404: no job of that id (never was, or finished long ago)."""


class Failed(RompicapoError):
    """A heavy or quick call failed in its worker: ``status`` (400, 422, 500) and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Job:
    id: str
    owner: str
    kind: str
    state: str = "queued"  # queued, running, done, stopped, failed
    event: dict[str, Any] | None = None
    events_seen: int = 0
    result: Any = None
    error: str | None = None
    status: int | None = None  # the HTTP-like status of a failure
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "event": self.event,
            "result": self.result,
            "error": self.error,
            "seconds": (self.finished or time.monotonic()) - self.started,
        }


@dataclass(eq=False)  # a task is itself: compared by identity in the queues
class _Task:
    id: str
    lane: str
    function: Callable[..., Any]
    args: tuple
    owner: str | None
    time_limit: float
    job: Job | None = None
    done: Callable[[str, Any], None] | None = None  # for calls: (kind, payload)
    deadline: float | None = None
    running_since: float | None = None
    stop_at: float | None = None
    family: str | None = None  # the solver it needs (see JobManager.warm_up)
    ended_by: str | None = None  # "stop" or "time" when the server ends its worker


class _Flag:
    """A worker's stop flag: one shared byte (no semaphore for the resource tracker to count
    as leaked when the server is ended by a signal), with the few methods of an Event."""

    def __init__(self, ctx: Any) -> None:
        self.value = ctx.RawValue("b", 0)

    def set(self) -> None:
        self.value.value = 1

    def clear(self) -> None:
        self.value.value = 0

    def is_set(self) -> bool:
        return bool(self.value.value)


class _Worker:
    """One worker process and the thread that reads its pipe."""

    def __init__(self, manager: JobManager, lane: str, index: int) -> None:
        self.manager, self.lane, self.index = manager, lane, index
        self.task: _Task | None = None
        self.retired = False
        self._spawn()

    def _spawn(self) -> None:
        ctx = worker_context()  # workers end with the server, however it ends
        here, there = ctx.Pipe()
        self.stop = _Flag(ctx)
        self.process = ctx.Process(
            target=worker.main,
            args=(there, self.stop),
            name=f"rompicapo-{self.lane}-{self.index}",
            daemon=True,
        )
        self.process.start()
        there.close()
        self.conn = here
        threading.Thread(
            target=self._read, args=(here, self.process), name=f"{self.process.name}-reader",
            daemon=True,
        ).start()  # fmt: skip

    def _read(self, conn: Any, process: Any) -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            except Exception as exc:  # an answer that does not unpickle: a bug
                message = ("error", self.task.id if self.task else "", worker.error_status(exc))
            self.manager._on_message(self, message)
        process.join(5)
        self.manager._on_exit(self, process)

    def send(self, task: _Task) -> None:
        self.task = task
        self.stop.clear()
        self.conn.send((task.id, task.function, task.args, task.job is not None))

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()

    def respawn(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        self.task = None
        self._spawn()


class JobManager:
    """Workers, queues, jobs and calls; see the module docstring."""

    def __init__(self, max_running: int, *, quick_workers: int = 1) -> None:
        self.max_running = max(1, int(max_running))
        self.quick_workers = max(1, int(quick_workers))
        self._jobs: dict[str, Job] = {}
        self._tasks: dict[str, _Task] = {}
        self._queues: dict[str, deque[_Task]] = {lane: deque() for lane in LANES}
        self._workers: dict[str, list[_Worker]] = {lane: [] for lane in LANES}
        self._lock = threading.RLock()
        self._closing = False
        self._started = False
        self.warming: dict[str, dict[str, Any]] = {}  # family -> {"task", "estimate"}
        self.warmed: dict[str, float] = {}  # family -> seconds its warm-up took

    # ---------------------------------------------------------------- life

    def start(self) -> None:
        """Start the quick lane's workers (the app does it when the server starts). The job
        workers start with the first job, or when the warm-up ends: at start-up their imports
        would slow the compilation a page may be waiting for."""
        with self._lock:
            if self._started:
                return
            self._started = True
            self._workers["quick"] = [_Worker(self, "quick", i) for i in range(self.quick_workers)]
        threading.Thread(target=self._watch, name="rompicapo-jobs-watch", daemon=True).start()

    def _start_job_workers(self) -> None:
        if not self._workers["jobs"] and not self._closing:
            self._workers["jobs"] = [_Worker(self, "jobs", i) for i in range(self.max_running)]

    def close(self) -> None:
        """Stop every run and end every worker (the server stopping)."""
        with self._lock:
            self._closing = True
            workers = [w for lane in LANES for w in self._workers[lane]]
            for task in list(self._tasks.values()):
                self._finish(task, "stopped", None)
        for w in workers:
            w.stop.set()
            with contextlib.suppress(Exception):
                w.conn.send(None)
        deadline = time.monotonic() + 2.0
        for w in workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.kill()
                w.process.join(2)

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for lane in LANES for w in self._workers[lane]]

    # ---------------------------------------------------------------- jobs

    def running(self) -> list[Job]:
        return [j for j in self._jobs.values() if j.active]

    def start_job(
        self, owner: str, kind: str, function: Callable[..., Any], *args: Any,
        time_limit: float = 60.0, family: str | None = None,
    ) -> Job:  # fmt: skip
        """Run ``function(progress, *args)`` in a job worker as a job of ``owner``."""
        with self._lock:
            self._forget_old()
            self._admit(owner)
            job = Job(id=new_job_id(), owner=owner, kind=kind)
            self._jobs[job.id] = job
            self._queue(_Task(job.id, "jobs", function, args, owner, time_limit, job=job,
                              family=family))  # fmt: skip
        return job

    def get(self, job_id: str, owner: str) -> Job:
        """The job ``job_id`` if ``owner`` started it (404 for no such job, 403 for another
        page's)."""
        job = self._jobs.get(job_id)
        if job is None:
            raise NoSuchJob(f"no job {job_id[:24]!r} (finished jobs are kept 10 minutes)")
        if not secrets.compare_digest(job.owner, owner):
            raise Forbidden("this job belongs to another page")
        return job

    def stop(self, job_id: str, owner: str) -> Job:
        job = self.get(job_id, owner)
        self._stop_task(job.id)
        return job

    def _stop_task(self, task_id: str) -> None:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None:
                return
            if task in self._queues[task.lane]:  # not started yet: nothing to keep
                self._queues[task.lane].remove(task)
                self._finish(task, "stopped", None)
                return
            for w in self._workers[task.lane]:
                if w.task is task:
                    w.stop.set()
                    task.stop_at = task.stop_at or time.monotonic()

    async def stream(self, job: Job, is_disconnected: Callable[[], Any]) -> AsyncIterator[str]:
        """Server-sent events: ``progress`` while the job runs, then one ``end`` event with
        the job's summary. A page that goes away stops its job."""
        seen = -1
        try:
            while True:
                if await is_disconnected():
                    self._stop_task(job.id)
                    return
                if not job.active:
                    yield f"event: end\ndata: {dumps_json(job.summary())}\n\n"
                    return
                if job.events_seen != seen and job.event is not None:
                    seen = job.events_seen
                    yield f"event: progress\ndata: {json.dumps(job.event)}\n\n"
                await asyncio.sleep(POLL)
        finally:
            # Under ASGI spec < 2.4 (uvicorn) Starlette cancels this stream when the client
            # goes away, so the check above never runs: a stream ending while its job still
            # runs means the page is gone.
            if job.active:
                self._stop_task(job.id)

    # ---------------------------------------------------------------- calls

    async def call(
        self, lane: str, owner: str, function: Callable[..., Any], *args: Any,
        time_limit: float = 10.0, family: str | None = None,
    ) -> Any:  # fmt: skip
        """``function(*args)`` in a worker of ``lane``; its result, or `Failed`.
        ``family``: the solver it needs (it waits for that solver's warm-up, if running)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()

        def done(kind: str, payload: Any) -> None:
            def settle() -> None:
                if future.done():
                    return
                if kind == "done":
                    future.set_result(payload)
                elif kind == "stopped":
                    future.set_exception(Failed(503, "the playground is stopping"))
                else:
                    future.set_exception(Failed(*payload))

            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(settle)

        with self._lock:
            if lane == "jobs":
                self._admit(owner)
            else:
                self._admit_quick(owner)
            task = _Task(secrets.token_urlsafe(16), lane, function, args, owner, time_limit,
                         family=family)  # fmt: skip
            task.done = done
            self._queue(task)
        return await future

    # ---------------------------------------------------------------- warm-up

    def warm_up(
        self, family: str, function: Callable[..., Any], estimate: float,
        reload_lane: str | None = None,
    ) -> None:  # fmt: skip
        """Run ``function(family)`` in the warm-up worker (a process of its own, ended when
        every warm-up is done, so that no page waits behind a compilation of another solver),
        and keep its state for `compiling()`. Then, with ``reload_lane``, run it again in
        that lane's workers, after the pages' requests: there it only loads the kernels from
        numba's cache."""
        with self._lock:
            if not self._started:
                self.start()
            if not self._workers["warm"]:
                self._workers["warm"] = [_Worker(self, "warm", 0)]
            task = _Task(secrets.token_urlsafe(16), "warm", function, (family,), None, 0.0)
            self.warming[family] = {"task": task, "estimate": estimate}

            def done(kind: str, payload: Any) -> None:
                self.warming.pop(family, None)
                for lane in ("quick", "jobs"):  # the requests that waited for it
                    self._dispatch(lane)
                if task.running_since is not None:
                    self.warmed[family] = time.monotonic() - task.running_since
                if reload_lane is not None:
                    for _ in self._workers[reload_lane]:
                        self._queue(_Task(secrets.token_urlsafe(16), reload_lane, function,
                                          (family,), None, 0.0))  # fmt: skip
                if not self._queues["warm"]:  # the last one: the warm-up worker ends
                    self._start_job_workers()
                    for w in self._workers["warm"]:
                        w.retired = True
                        with contextlib.suppress(Exception):
                            w.conn.send(None)
                    self._workers["warm"] = []

            task.done = done
            self._queue(task)

    def compiling(self) -> dict[str, float]:
        """The solvers being compiled now, and about how many seconds each still needs (at
        least 1)."""
        now = time.monotonic()
        out = {}
        for family, w in list(self.warming.items()):
            since = w["task"].running_since
            if since is not None:
                out[family] = max(1.0, round(w["estimate"] - (now - since)))
        return out

    # ---------------------------------------------------------------- inside

    def _admit(self, owner: str) -> None:
        busy = [t for t in self._tasks.values() if t.lane == "jobs" and t.owner is not None]
        if any(t.owner == owner for t in busy):
            raise Busy("this page already runs a job: stop it or wait for it first", 409)
        if len(busy) >= self.max_running:
            raise Busy(
                f"the playground runs {self.max_running} jobs already (its --jobs): "
                "try again when one ends",
                429,
            )

    def _admit_quick(self, owner: str) -> None:
        waiting = [t for t in self._tasks.values() if t.lane == "quick" and t.owner is not None]
        if sum(t.owner == owner for t in waiting) >= QUICK_PER_OWNER:
            raise Busy("this page has too many questions waiting: wait for the answers", 429)
        if len(waiting) >= QUICK_QUEUE:
            raise Busy("the playground is busy answering other pages: try again soon", 429)

    def _queue(self, task: _Task) -> None:
        self._tasks[task.id] = task
        queue = self._queues[task.lane]
        if task.owner is None:  # a warm-up: after everything a page asked
            queue.append(task)
        else:  # a page's request goes before the warm-ups still waiting
            waiting = [k for k, t in enumerate(queue) if t.owner is None]
            queue.insert(waiting[0] if waiting else len(queue), task)
        if not self._started:
            self.start()
        if task.lane == "jobs":
            self._start_job_workers()
        self._dispatch(task.lane)

    def _next(self, lane: str) -> _Task | None:
        """The first task of ``lane`` that may run now: not one needing a solver that the
        warm-up worker is compiling (it waits for it, then loads it from the cache, instead
        of compiling it a second time beside it); that warm-up goes first if still queued."""
        queue = self._queues[lane]
        for task in queue:
            warm = self.warming.get(task.family) if task.family else None
            if warm is None:
                queue.remove(task)
                return task
            if task.job is not None and task.job.event is None:  # what its page shows
                task.job.event = {"kind": "start", "done": 0, "total": None, "unit": "jobs",
                                  "elapsed": 0.0, "rate": None, "best": None, "counts": {},
                                  "message": "compiling the solver (once)"}  # fmt: skip
                task.job.events_seen += 1
            waiting = self._queues["warm"]
            if warm["task"] in waiting and waiting[0] is not warm["task"]:
                waiting.remove(warm["task"])
                waiting.appendleft(warm["task"])
        return None

    def _dispatch(self, lane: str) -> None:
        with self._lock:
            if self._closing:
                return
            for w in self._workers[lane]:
                if w.task is not None or not w.process.is_alive():
                    continue
                task = self._next(lane)
                if task is None:
                    return
                task.running_since = time.monotonic()
                task.deadline = task.running_since + task.time_limit + KILL_GRACE
                if task.job is not None:
                    task.job.state = "running"
                try:
                    w.send(task)
                except (OSError, ValueError):  # the worker just died: its reader respawns it
                    self._queues[lane].appendleft(task)
                    w.task = None

    def _on_message(self, w: _Worker, message: tuple) -> None:
        kind, task_id, payload = message
        with self._lock:
            task = self._tasks.get(task_id)
            if task is None or w.task is not task:
                return
            if kind == "progress":
                if task.job is not None:
                    task.job.event = payload
                    task.job.events_seen += 1
                return
            w.task = None
            if kind == "done" and task.stop_at is not None:
                kind = "stopped-with-result"
            self._finish(task, kind, payload)
            self._dispatch(w.lane)

    def _finish(self, task: _Task, kind: str, payload: Any) -> None:
        self._tasks.pop(task.id, None)
        job = task.job
        if job is not None and job.active:
            if kind in ("done", "stopped-with-result"):
                job.result = payload
                job.state = "done" if kind == "done" else "stopped"
            elif kind == "stopped":
                job.state = "stopped"
            else:
                job.state = "failed"
                job.status, job.error = payload
            job.finished = time.monotonic()
        if task.done is not None:
            task.done("done" if kind == "stopped-with-result" else kind, payload)

    def _on_exit(self, w: _Worker, process: Any) -> None:
        with self._lock:
            if self._closing or w.process is not process or w.retired:
                return
            task = w.task
            if task is not None:
                if task.ended_by == "stop":
                    self._finish(task, "stopped", None)
                else:
                    if task.ended_by == "time":
                        why = (f"the run went on {KILL_GRACE:g} s past its time limit "
                               f"({task.time_limit:g} s) and was ended")  # fmt: skip
                    else:
                        why = ("the worker process running it ended unexpectedly "
                               f"(exit code {process.exitcode})")  # fmt: skip
                    self._finish(task, "error", (500, worker.BUG.format(why)))
            w.respawn()
            self._dispatch(w.lane)

    def _watch(self) -> None:
        """End workers whose task overran its time limit or ignored a stop."""
        while not self._closing:
            time.sleep(0.25)
            now = time.monotonic()
            with self._lock:
                for lane in LANES:
                    for w in self._workers[lane]:
                        t = w.task
                        if t is None:
                            continue
                        if t.stop_at is not None and now - t.stop_at > STOP_GRACE:
                            t.ended_by = "stop"
                        elif t.deadline is not None and t.time_limit and now > t.deadline:
                            t.ended_by = "time"
                        else:
                            continue
                        w.kill()

    def _forget_old(self) -> None:
        now = time.monotonic()
        done = [j for j in self._jobs.values() if j.finished is not None]
        for job in done:
            if now - job.finished > KEEP_FINISHED:
                del self._jobs[job.id]
        done = sorted((j for j in self._jobs.values() if j.finished), key=lambda j: j.finished)
        for job in done[: max(0, len(done) - KEEP_MAX)]:
            del self._jobs[job.id]
