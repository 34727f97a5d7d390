"""Long runs behind the web pages: one thread per job, progress streamed as server-sent events.

A page starts a job with a tab id (a random string the page makes once). The manager enforces
the playground's limits: at most one running job per tab, at most ``max_running`` in all (the
``jobs`` of ``rompicapo serve``). A job's ``progress`` callback records the latest
:class:`~rompicapo.common.ProgressEvent`; Stop (or the page going away: its event stream
closes) makes the next callback raise :class:`~rompicapo.common.StopRequested`, which every
family treats as Ctrl-C: the run stops and keeps its best result so far.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import (
    InputError,
    ProgressEvent,
    RompicapoError,
    StopRequested,
    dumps_json,
    to_jsonable,
)

__all__ = ["Busy", "Job", "JobManager"]

# Finished jobs are kept this long (seconds) so a page can read their result, then dropped.
KEEP_FINISHED = 600
# At most this many finished jobs are kept in all (oldest dropped first).
KEEP_MAX = 200
# How often an event stream looks for news (seconds): live enough for a score graph.
POLL = 0.2


class Busy(RompicapoError):
    """The playground is at its limit of running jobs (HTTP 429) or the tab runs one (409)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Job:
    id: str
    tab: str
    kind: str
    state: str = "running"  # running, done, stopped, failed
    event: dict[str, Any] | None = None
    events_seen: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    stop: threading.Event = field(default_factory=threading.Event)

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


class JobManager:
    """Runs jobs in threads within the limits above; see the module docstring."""

    def __init__(self, max_running: int) -> None:
        self.max_running = max(1, int(max_running))
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def running(self) -> list[Job]:
        return [j for j in self._jobs.values() if j.state == "running"]

    def start(
        self,
        tab: str,
        kind: str,
        run: Callable[[Callable[[ProgressEvent], None]], Any],
    ) -> Job:
        """Start ``run(progress)`` in a thread; its return value's ``to_dict()`` is the result."""
        if not isinstance(tab, str) or not 1 <= len(tab) <= 64 or not tab.isprintable():
            raise InputError("tab must be a string of 1 to 64 printable characters")
        with self._lock:
            self._forget_old()
            if any(j.tab == tab for j in self.running()):
                raise Busy("this tab already runs a job: stop it first", 409)
            if len(self.running()) >= self.max_running:
                raise Busy(f"the playground runs {self.max_running} jobs already", 429)
            job = Job(id=f"j{next(self._ids)}", tab=tab, kind=kind)
            self._jobs[job.id] = job

        def progress(event: ProgressEvent) -> None:
            if job.stop.is_set():
                raise StopRequested
            job.event = to_jsonable(event.to_dict())
            job.events_seen += 1

        def target() -> None:
            try:
                result = run(progress)
                job.result = to_jsonable(result.to_dict() if hasattr(result, "to_dict") else result)
                job.state = "stopped" if job.stop.is_set() else "done"
            except KeyboardInterrupt:  # StopRequested, or a family passing Ctrl-C on
                job.state = "stopped"
            except RompicapoError as exc:
                job.state, job.error = "failed", str(exc)
            except Exception as exc:  # a bug: the page gets one line, the server keeps serving
                job.state = "failed"
                job.error = f"internal error: {type(exc).__name__}: {exc}"[:300]
            finally:
                job.finished = time.monotonic()

        threading.Thread(target=target, name=f"rompicapo-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise InputError(f"no job {job_id[:20]!r}")
        return job

    def stop(self, job_id: str) -> Job:
        job = self.get(job_id)
        job.stop.set()
        return job

    def stop_all(self) -> None:
        for job in self.running():
            job.stop.set()

    async def stream(self, job: Job, is_disconnected: Callable[[], Any]) -> AsyncIterator[str]:
        """Server-sent events: ``progress`` while the job runs, then one ``end`` event with
        the job's summary. A page that goes away stops its job."""
        seen = -1
        try:
            while True:
                if await is_disconnected():
                    job.stop.set()
                    return
                if job.state != "running":
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
            if job.state == "running":
                job.stop.set()

    def _forget_old(self) -> None:
        now = time.monotonic()
        done = [j for j in self._jobs.values() if j.finished is not None]
        for job in done:
            if now - job.finished > KEEP_FINISHED:
                del self._jobs[job.id]
        done = sorted((j for j in self._jobs.values() if j.finished), key=lambda j: j.finished)
        for job in done[: max(0, len(done) - KEEP_MAX)]:
            del self._jobs[job.id]
