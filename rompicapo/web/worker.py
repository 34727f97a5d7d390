"""The worker processes' side of the job manager (`rompicapo.web.jobs`).

A worker is a process started with ``spawn`` that waits on its pipe for a task
``(task_id, function, args, streamed)``, runs it and sends back one of::

    ("progress", task_id, event_dict)   # streamed tasks: at most every PROGRESS_EVERY s
    ("done", task_id, result)           # the function's return value, to_dict() if it has one
    ("stopped", task_id, None)          # Stop raised StopRequested out of the function
    ("error", task_id, (status, line))  # 400/422/500 and a one-line message

A streamed task's function is called as ``function(progress, *args)``; ``progress`` takes a
[`ProgressEvent`][rompicapo.common.ProgressEvent] and raises
[`StopRequested`][rompicapo.common.StopRequested] once the server has set the worker's stop flag
(Stop, a closed page), which every family treats as Ctrl-C: the run stops and returns its best
result so far. Any other task is called as ``function(*args)``.

A worker ignores Ctrl-C (the terminal sends it to the whole process group; the server stops
its workers itself) and ends with the server process, however that ends.
"""

from __future__ import annotations

import signal
import sys
import time
import traceback
from typing import Any

from rompicapo.common import (
    InternalError,
    NotVerifiable,
    ProgressEvent,
    RompicapoError,
    StopRequested,
    to_jsonable,
)

__all__ = ["error_status", "main"]

# A streamed task's progress reaches the page at most this often (the page redraws a chart
# and a board per report; 10 a second look live).
PROGRESS_EVERY = 0.1
BUG = "internal error: {}; please report it (the server's log has the details)"


def error_status(exc: BaseException) -> tuple[int, str]:
    """The HTTP status and one-line message of an exception raised by a task: the user's
    mistake 400, an answer that cannot be checked 422, a failure of rompicapo itself 500."""
    line = " ".join(str(exc).split())[:400]
    if isinstance(exc, NotVerifiable):
        return 422, line or "the answer cannot be checked"
    if isinstance(exc, InternalError):
        return 500, BUG.format(line or type(exc).__name__)
    if isinstance(exc, RompicapoError):
        return 400, line or "invalid input"
    return 500, BUG.format(f"{type(exc).__name__}: {line}" if line else type(exc).__name__)


class _Progress:
    """The ``progress`` callback of a streamed task (see the module docstring)."""

    def __init__(self, conn: Any, stop: Any, task_id: str) -> None:
        self.conn, self.stop, self.task_id = conn, stop, task_id
        self.last = 0.0

    def __call__(self, event: ProgressEvent) -> None:
        if self.stop.is_set():
            raise StopRequested
        now = time.monotonic()
        if event.kind in ("start", "done") or now - self.last >= PROGRESS_EVERY:
            self.last = now
            self.conn.send(("progress", self.task_id, to_jsonable(event.to_dict())))


def _run(conn: Any, stop: Any, task: tuple) -> tuple[str, Any]:
    task_id, function, args, streamed = task
    try:
        if streamed:
            result = function(_Progress(conn, stop, task_id), *args)
        else:
            result = function(*args)
        if hasattr(result, "to_dict"):
            result = result.to_dict()
        return "done", to_jsonable(result)
    except StopRequested:
        return "stopped", None
    except KeyboardInterrupt:  # a family passing Ctrl-C on: a stop, as in the CLI
        return "stopped", None
    except Exception as exc:
        status, line = error_status(exc)
        if status == 500:  # a bug: the traceback goes to the server's log only
            print(f"rompicapo serve: task {function.__qualname__} failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
        return "error", (status, line)


def main(conn: Any, stop: Any) -> None:
    """The worker's loop: one task at a time until the pipe closes or says ``None``. The
    process is started from `rompicapo.common.worker_context()`: it ends with the server."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        kind, payload = _run(conn, stop, task)
        try:
            conn.send((kind, task[0], payload))
        except Exception as exc:  # the result could not be pickled: a bug, said as one
            status, line = error_status(exc)
            conn.send(("error", task[0], (status, line)))
