"""Progress from worker processes: a folder of small JSON files, and a thread that reads them.

A search spread over processes cannot call the parent's progress callback, and a worker stopped by
Ctrl-C cannot send its result back. So each worker writes its latest report (counts and its best
answer so far) to its own file in a [`ProgressFolder`][rompicapo.common.ProgressFolder] every so
often ([`JobChannel`][rompicapo.common.JobChannel]), atomically; the parent reads them all
([`ProgressFolder.read()`][rompicapo.common.progress_files.ProgressFolder.read]) to draw progress
while the run goes on and to keep the best answer of a run that was stopped. A stop file in the same
folder tells every worker to return its best now.

[`Overseer`][rompicapo.common.Overseer] is the parent's thread: it reads the reports about every
second, leaves the stop file when the time limit has passed, and ends the run's own worker processes
that still have not answered a grace period later (a worker still starting, or stuck).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rompicapo.common.timing import Deadline

__all__ = ["JobChannel", "Overseer", "ProgressFolder"]


class ProgressFolder:
    """A temporary folder for the reports of one run's jobs (``job<k>.json``) and its stop
    file. `remove()` deletes it with everything in it.

    ```pycon
    >>> folder = ProgressFolder()
    >>> JobChannel(folder.path, job=0).write({"job": 0, "nodes": 120, "best": 7})
    >>> JobChannel(folder.path, job=1).write({"job": 1, "nodes": 80, "best": 9})
    >>> sorted(report["best"] for report in folder.read())
    [7, 9]
    >>> folder.stop()  # every job finds the stop file
    >>> JobChannel(folder.path, job=0).stop_requested()
    True
    >>> folder.remove()
    >>> folder.path.exists()
    False

    ```"""

    def __init__(self, prefix: str = "rompicapo-") -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix))

    def read(self) -> list[dict]:
        """The latest report of every job that wrote one (files half gone are skipped)."""
        out = []
        for f in self.path.glob("job*.json"):
            with contextlib.suppress(OSError, ValueError):
                out.append(json.loads(f.read_text()))
        return out

    def stop(self) -> None:
        """Ask every job to stop (they look at the stop file between pieces of work)."""
        with contextlib.suppress(OSError):
            (self.path / "stop").touch()

    def remove(self) -> None:
        for f in self.path.iterdir():
            with contextlib.suppress(OSError):
                f.unlink()
        with contextlib.suppress(OSError):
            self.path.rmdir()


class JobChannel:
    """A worker's side of a [`ProgressFolder`][rompicapo.common.ProgressFolder] (given as its path,
    which pickles):
    `write()` its report, `stop_requested()` to look for the stop file. A folder
    that is gone (or None) makes both no-ops.

    ```pycon
    >>> folder = ProgressFolder()
    >>> channel = JobChannel(str(folder.path), job=3)  # what a worker is given
    >>> channel.write({"nodes": 500})
    >>> folder.read(), channel.stop_requested()
    ([{'nodes': 500}], False)
    >>> folder.remove()
    >>> JobChannel(None, job=3).write({"nodes": 1})  # no folder: nothing to do

    ```"""

    def __init__(self, folder: str | Path | None, job: int) -> None:
        path = Path(folder) if folder else None
        self.active = path is not None and path.is_dir()
        self.own = path / f"job{job}.json" if path is not None else None
        self.stop_file = path / "stop" if path is not None else None

    def write(self, report: dict) -> None:
        if not self.active or self.own is None:
            return
        tmp = self.own.with_suffix(".tmp")
        with contextlib.suppress(OSError):
            tmp.write_text(json.dumps(report))
            os.replace(tmp, self.own)

    def stop_requested(self) -> bool:
        return self.active and self.stop_file is not None and self.stop_file.exists()


class Overseer:
    """The parent's watch over a run's jobs, on a daemon thread (`start()`, `close()`).

    About every second (every 0.2 s in the last second before the limit) it calls
    ``on_reports(reports)`` with the jobs' latest reports; once ``deadline`` has passed it
    leaves the stop file (which also reaches jobs still compiling when the time ran out);
    with ``local`` jobs, ``grace`` seconds past the limit it terminates the worker processes
    started since it was made (their reported answers are kept: read them from the folder),
    sets `overran` and ends.

    ```pycon
    >>> from rompicapo.common import Deadline
    >>> folder = ProgressFolder()
    >>> watch = Overseer(folder, Deadline(0.0), print, grace=0.0).start()  # no time at all
    >>> watch.overran.wait(5)  # the limit and its grace are past: the workers are ended
    True
    >>> watch.close()
    >>> JobChannel(folder.path, job=0).stop_requested()  # and the stop file is left for them
    True
    >>> folder.remove()

    ```"""

    def __init__(
        self,
        folder: ProgressFolder,
        deadline: Deadline,
        on_reports: Callable[[list[dict]], None],
        *,
        local: bool = True,
        grace: float = 1.0,
    ) -> None:
        self.folder, self.deadline, self.on_reports = folder, deadline, on_reports
        self.local, self.grace = local, grace
        self.overran = threading.Event()
        self._done = threading.Event()
        self._before = {p.pid for p in multiprocessing.active_children()}
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> Overseer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._done.set()
        self._thread.join(timeout=2)

    def _watch(self) -> None:
        deadline = self.deadline
        while not self._done.wait(1.0 if deadline.remaining() > 1.0 else 0.2):
            if deadline.expired():
                self.folder.stop()
            if self.local and deadline.end + self.grace < time.monotonic():
                self.overran.set()
                for child in multiprocessing.active_children():
                    if child.pid not in self._before:
                        child.terminate()
                return
            reports = self.folder.read()
            if reports:
                self.on_reports(reports)
