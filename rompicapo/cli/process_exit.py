"""How the command line's process ends: the interpreter's own exit (threads joined, every exit
handler run), without tearing down every module afterwards, which took 0.1 to 0.6 s once
numba has compiled (`path 10`, `queens 8`, `count 5x5`, `sudoku generate`, the fastest of four
runs each, on a machine loaded 2x).

`end_last` is registered with `atexit` when this module is imported, before any other
module of rompicapo is (`rompicapo.cli` imports it first), so it runs after every other exit
handler (they run in the reverse order of their registration: ``multiprocessing``'s
finalizers, temporary folders, Dask's) and ends the process with the status `arm()` set.
Nothing happens at exit while it is not armed (a program that calls ``main([...])`` and goes
on).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys

__all__ = ["arm", "end_last", "run_exit_handlers_now"]

_STATUS: list[int] = []


def arm(status: int) -> None:
    """End the process with ``status`` once the exit handlers have run."""
    _STATUS[:] = [status]


def end_last() -> None:
    """The last exit handler: flush the streams and end the process with the armed status."""
    if not _STATUS:
        return
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            # the stream failed (closed, full): its buffer goes nowhere rather than into an
            # "Exception ignored" line
            with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)
    os._exit(_STATUS[0])


atexit.register(end_last)


def run_exit_handlers_now() -> None:
    """Run the exit handlers now, without first joining the threads that are not daemons (as
    the interpreter's exit would): a stopped run's kernel may still be running in one, for
    minutes, and what it computes is not wanted any more. Armed, this ends the process.

    Python offers no public way to run the exit handlers without that join, so this calls
    ``atexit._run_exitfuncs`` when it exists (CPython); elsewhere it does nothing and the
    interpreter's exit runs them after the join (a test of ``tests/test_cli_exit.py``, a
    stopped run that ends without waiting for its threads, shows the difference)."""
    run = getattr(atexit, "_run_exitfuncs", None)
    if run is not None:
        run()
