"""How the command line's process ends (`rompicapo.cli.process_exit`): the exit handlers of
other modules run, threads are joined unless the run was stopped, the status is the command's,
and a closed standard error is no error."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# A command line run by ``main()`` as the console script does, with an exit handler of
# multiprocessing's registered after rompicapo's (as the edges family's fallback folder is)
# and a thread that is not a daemon, which writes a file when it ends.
SCRIPT = textwrap.dedent(
    """
    import sys, threading, time
    import rompicapo.cli as cli  # first, as the console script and python -m rompicapo do
    from multiprocessing.util import Finalize

    def mark(name):
        open(name, "w").close()

    Finalize(None, mark, args=("handler-ran",), exitpriority=0)

    def late():
        time.sleep({thread_seconds})
        mark("thread-ended")

    threading.Thread(target=late).start()
    if {no_private}:
        cli.run_exit_handlers_now = lambda: None
    status = cli.main(None) if {command} else cli._end_process(0, stopped={stopped})
    sys.exit(status)
    """
)


def _run(tmp_path, *, stopped=False, command=False, no_private=False, thread_seconds=0.2):
    code = SCRIPT.format(
        stopped=stopped, command=command, no_private=no_private, thread_seconds=thread_seconds
    )
    argv = [sys.executable, "-c", code, "queens", "5"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, timeout=120)
    ran = {p.name for p in tmp_path.iterdir()}
    return done, ran


def test_a_command_runs_every_exit_handler_and_joins_its_threads(tmp_path):
    done, ran = _run(tmp_path, command=True)
    assert done.returncode == 0, done.stderr.decode()
    assert b"10 solutions" in done.stdout or b"solution" in done.stdout
    assert ran == {"handler-ran", "thread-ended"}  # the exit handler of another module too
    assert not done.stderr.strip(), done.stderr.decode()


def test_rompicapo_registers_its_exit_handler_before_any_other_module_can():
    """The last exit handler must be registered first (they run in reverse order): importing
    the package, as ``python -m rompicapo`` and the console script do before ``rompicapo.cli``,
    loads nothing that registers one."""
    code = (
        "import sys, rompicapo\n"
        "loaded = [m for m in ('multiprocessing.util', 'logging', 'numba', 'rompicapo.common')"
        " if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()


def test_a_stopped_run_ends_without_waiting_for_its_threads(tmp_path):
    """Why ``atexit._run_exitfuncs`` is called: Python's public exit joins every thread that is
    not a daemon before it runs the exit handlers; a stopped run's kernel may hold one for
    minutes. Called, the handlers run and the process ends before the thread does."""
    done, ran = _run(tmp_path, stopped=True, thread_seconds=3.0)
    assert done.returncode == 0, done.stderr.decode()
    assert ran == {"handler-ran"}  # the thread did not end: the process did not wait for it


def test_without_the_private_call_a_stopped_run_waits_for_its_threads(tmp_path):
    """The same run with ``run_exit_handlers_now`` doing nothing (a Python without
    ``atexit._run_exitfuncs``) waits for the thread: still correct, only slower."""
    done, ran = _run(tmp_path, stopped=True, no_private=True, thread_seconds=3.0)
    assert done.returncode == 0, done.stderr.decode()
    assert ran == {"handler-ran", "thread-ended"}


@pytest.mark.parametrize("argv", [["path", "10"], ["queens", "6", "--count"]])
def test_a_closed_standard_error_is_no_error(argv, tmp_path):
    """``rompicapo path 10 2>&-`` printed its path and exited 1 (an internal error that could
    not be said, since standard error is closed)."""
    command = [sys.executable, "-m", "rompicapo", *argv]
    done = subprocess.run(
        ["/bin/sh", "-c", 'exec "$@" 2>&-', "sh", *command],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        timeout=120,
    )
    assert done.returncode == 0
    assert done.stdout.strip()
    if argv[0] == "path":
        grid = [line.split() for line in done.stdout.decode().splitlines()[1:] if line.strip()]
        assert sorted(int(n) for row in grid for n in row) == list(range(1, 101))
