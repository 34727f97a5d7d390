"""Worker processes that die with the process that started them, however it dies.

Every worker process of rompicapo (the pools of [`run_jobs()`][rompicapo.common.run_jobs], the
hunt's workers, the web server's job workers) is started from `worker_context()`, a
``spawn`` context whose processes:

- end when their parent ends, even by SIGKILL (the OOM killer, a closed terminal session): on
  Linux the kernel sends them SIGKILL then (``prctl(PR_SET_PDEATHSIG)``, set as the first thing
  the worker does, then a look whether the parent is already gone); elsewhere, or for a worker
  started by a thread other than the main one (the kernel's signal follows the thread that
  started the process, which may end long before the process), a thread of the worker looks
  every `PARENT_POLL` seconds whether its parent is still the one that started it;
- start with SIGINT, SIGTERM and SIGHUP blocked (the parent blocks them while it starts one,
  and the block is inherited), so a signal that comes while the worker is still importing
  Python and numpy neither breaks an import with a traceback nor is lost: once the worker is
  ready, a SIGINT that came meanwhile is dropped (the parent saw it too and stops its workers
  itself) and a SIGTERM or SIGHUP ends it quietly, as it would have a moment later;
- never print a traceback for a Ctrl-C that reaches them between tasks.

The resource tracker of ``multiprocessing`` (a helper process that removes the semaphores of
the pools' queues) ends by itself when the last process holding its pipe ends: the parent and
its workers. Once the workers die with the parent, it goes with them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from multiprocessing.context import SpawnContext, SpawnProcess

__all__ = ["PARENT_POLL", "WorkerProcess", "die_with_parent", "worker_context"]

# How often a worker without the kernel's help looks whether its parent is gone (seconds):
# a dead parent's worker is gone within this.
PARENT_POLL = 0.2
# prctl(2): "send me this signal when my parent dies" (linux/prctl.h).
PR_SET_PDEATHSIG = 1
# Blocked while a worker starts (and so, in the worker, until it is ready).
BLOCKED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _kernel_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent ends; False where it
    cannot be asked (another system, no C library found)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL)
    os._exit(0)  # nobody reads this worker's answers any more


def die_with_parent(parent_pid: int, *, kernel: bool = True) -> str:
    """Make this process end when the process ``parent_pid`` (its parent) ends; end it now if
    the parent is already gone. ``kernel=False`` skips the kernel's signal (for a process
    started by a thread that may end before the parent does). Returns how it is watched:
    ``"kernel"`` or ``"thread"``.

    ```pycon
    >>> import subprocess, sys
    >>> child = '''
    ... import os
    ... from rompicapo.common import die_with_parent
    ... print(die_with_parent(os.getppid()), flush=True)  # its parent: the kernel watches (Linux)
    ... die_with_parent(1, kernel=False)  # a parent that is not its own, as if gone: it ends now
    ... print("never printed")
    ... '''
    >>> run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    >>> run.stdout, run.returncode
    ('kernel\\n', 0)

    ```"""
    if kernel and _kernel_death_signal(signal.SIGKILL):
        how = "kernel"
    else:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
        how = "thread"
    if os.getppid() != parent_pid:  # it died before the watch began
        os._exit(0)
    return how


@contextlib.contextmanager
def _blocked(signals: tuple[int, ...]):
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class WorkerProcess(SpawnProcess):
    """A spawned process that dies with its parent and takes no signal before it is ready (see
    the module docstring)."""

    def start(self) -> None:
        self.watched_parent = os.getpid()
        # the kernel's death signal follows the thread that starts the process
        self.started_by_main_thread = threading.current_thread() is threading.main_thread()
        with _blocked(BLOCKED):
            super().start()

    def run(self) -> None:
        die_with_parent(
            getattr(self, "watched_parent", os.getppid()),
            kernel=getattr(self, "started_by_main_thread", False),
        )
        _ready()
        try:
            super().run()
        except KeyboardInterrupt:
            # a Ctrl-C of the terminal between two tasks: the parent stops the run itself
            raise SystemExit(128 + signal.SIGINT) from None


def _ready() -> None:
    """Unblock the stop signals: a SIGINT that came while starting is dropped (the parent
    got it as well and stops its workers itself), a SIGTERM or SIGHUP ends the process
    quietly now; from then on Python's own handling (Ctrl-C is a KeyboardInterrupt)."""
    if not hasattr(signal, "pthread_sigmask"):
        return
    pending = signal.sigpending()
    if any(s in pending for s in BLOCKED if s != signal.SIGINT):
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # drops a pending SIGINT
    signal.pthread_sigmask(signal.SIG_UNBLOCK, BLOCKED)
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The resource tracker warns, as it ends, of the semaphores a stopped run's pools left it to
# remove (the command line ends a stopped run without tearing its objects down), then removes
# them: a UserWarning on stderr that tells the user nothing. The tracker and the workers start
# with this process's warning options, so the filter goes there, before either starts.
_TRACKER_QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"
if _TRACKER_QUIET not in sys.warnoptions:
    sys.warnoptions.append(_TRACKER_QUIET)


class _WorkerContext(SpawnContext):
    Process = WorkerProcess


_CONTEXT = _WorkerContext()


def worker_context() -> SpawnContext:
    """The ``multiprocessing`` context every worker process of rompicapo is started from:
    ``spawn`` (workers start clean, with no inherited threads or numba state), with processes
    that die with their parent (see the module docstring).

    >>> worker_context().get_start_method()
    'spawn'
    """
    return _CONTEXT
