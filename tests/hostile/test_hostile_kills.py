"""Kills of the parent: a run with worker processes killed by SIGKILL (the OOM killer, a closed
terminal session) leaves no process behind; stop signals sent to the whole process group while
the workers are still starting print no traceback.

Each case starts ``python -m rompicapo`` in a session of its own, follows its descendants with
psutil until the condition of the case holds (the workers exist, or are searching), kills or
signals it, and then looks, for at most `REAPED_WITHIN` seconds (times the load of the machine),
whether any descendant seen is still there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

from rompicapo.common.workers import WorkerProcess, worker_context

from .processes import REAPED_WITHIN, load_factor

HUNT = ["edges", "hunt", "eternity2", "--db", "h.sqlite", "--time", "60", "--jobs", "2"]
COUNT = ["count", "7x7", "--jobs", "2"]
COVER = ["queens", "17", "--count", "--jobs", "2"]
START_SECONDS = 90.0  # a process start, the imports and the first compilation on a busy machine


def _workers(proc: psutil.Process) -> list[psutil.Process]:
    """The worker processes among ``proc``'s descendants (not the resource tracker)."""
    found = []
    for child in proc.children(recursive=True):
        try:
            line = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "spawn_main" in line:
            found.append(child)
    return found


def _start(argv: list[str], cwd) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rompicapo", *argv, "--quiet"],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's job
        env={**os.environ, "TMPDIR": str(cwd)},
    )


def _wait_until(proc: subprocess.Popen, ready, seen: set[int]) -> None:
    """Poll ``proc``'s descendants into ``seen`` until ``ready(psutil.Process)`` is true."""
    me = psutil.Process(proc.pid)
    end = time.monotonic() + START_SECONDS * load_factor()
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read().decode()
        try:
            seen.update(c.pid for c in me.children(recursive=True))
            if ready(me):
                seen.update(c.pid for c in me.children(recursive=True))
                return
        except psutil.Error:
            pass
        time.sleep(0.02)
    proc.kill()
    raise AssertionError("the run did not reach the state the case waits for")


def _left(seen: set[int]) -> list[tuple[int, str]]:
    alive = []
    for pid in seen:
        try:
            p = psutil.Process(pid)
            if p.status() != psutil.STATUS_ZOMBIE:
                alive.append((pid, " ".join(p.cmdline())[:90]))
        except psutil.Error:
            pass
    return alive


def _left_after(seen: set[int], seconds: float) -> list[tuple[int, str]]:
    """The processes of ``seen`` still alive once they all ended or ``seconds`` passed."""
    end = time.monotonic() + seconds
    while (alive := _left(seen)) and time.monotonic() < end:
        time.sleep(0.05)
    for pid, _ in alive:  # leave nothing running whatever the verdict
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return alive


def _searching(me: psutil.Process) -> bool:
    """Two workers that have used a second of processor each: imported and at work."""
    workers = _workers(me)
    return len(workers) >= 2 and all(w.cpu_times().user >= 1.0 for w in workers)


def _starting(me: psutil.Process) -> bool:
    """Two workers exist (they are still importing)."""
    return len(_workers(me)) >= 2


def _busy_threads(me: psutil.Process) -> bool:
    """The command counts on threads of its own: a few seconds of processor used."""
    return me.cpu_times().user >= 3.0


KILLS = [
    pytest.param(HUNT, _searching, id="edges hunt, searching"),
    pytest.param(HUNT, _starting, id="edges hunt, starting"),
    pytest.param(COUNT, _searching, id="count, searching"),
    pytest.param(COUNT, _starting, id="count, starting"),
    pytest.param(COVER, _busy_threads, id="queens --count, counting"),
]


@pytest.mark.parametrize(("argv", "ready"), KILLS)
def test_sigkill_of_the_parent_leaves_no_process(argv, ready, tmp_path):
    """Workers and the resource tracker of ``multiprocessing`` end with a parent killed by
    SIGKILL (it left three processes, the tracker and two workers, searching for nobody)."""
    proc = _start(argv, tmp_path)
    seen: set[int] = set()
    try:
        _wait_until(proc, ready, seen)
    finally:
        proc.kill()
        proc.wait()
    assert not _left_after(seen, REAPED_WITHIN * load_factor())


GROUP_SIGNALS = [
    pytest.param(HUNT, signal.SIGTERM, id="edges hunt, SIGTERM"),
    pytest.param(HUNT, signal.SIGINT, id="edges hunt, SIGINT"),
    pytest.param(COUNT, signal.SIGTERM, id="count, SIGTERM"),
]


@pytest.mark.parametrize(("argv", "signum"), GROUP_SIGNALS)
def test_a_stop_signal_to_the_group_while_workers_start_prints_no_traceback(argv, signum, tmp_path):
    """``timeout`` and a terminal's Ctrl-C signal every process of the job: workers still
    importing (a hunt's first second) printed ``Traceback ... KeyboardInterrupt``."""
    proc = _start(argv, tmp_path)
    seen: set[int] = set()
    try:
        _wait_until(proc, _starting, seen)
        os.killpg(proc.pid, signum)
        _, err = proc.communicate(timeout=30 * load_factor())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = err.decode(errors="replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert not _left_after(seen, REAPED_WITHIN * load_factor())


def _answer(conn) -> None:
    conn.send(os.getpid())
    conn.recv()  # until the test is done with it


def test_a_worker_started_by_a_thread_outlives_the_thread():
    """The kernel's death signal follows the thread that started a process: a worker started
    by a thread that then ends (the web server's respawns) must watch its parent otherwise,
    not die with the thread."""
    ctx = worker_context()
    here, there = ctx.Pipe()
    box: list[WorkerProcess] = []

    def start() -> None:
        box.append(ctx.Process(target=_answer, args=(there,), daemon=True))
        box[0].start()

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    worker = box[0]
    try:
        assert here.poll(START_SECONDS) and here.recv() == worker.pid  # it started, and
        assert worker.is_alive()  # after the thread that started it ended, it lives on
        assert worker.started_by_main_thread is False
    finally:
        here.send(None)
        worker.join(10)
        if worker.is_alive():
            worker.kill()
            worker.join()
    assert worker.exitcode == 0


def test_die_with_parent_ends_a_process_whose_parent_is_gone():
    """A worker whose parent died before it could ask to die with it ends at once."""
    code = (
        "import os, sys\n"
        "from rompicapo.common.workers import die_with_parent\n"
        "die_with_parent(os.getppid() + 1_000_000)\n"  # not its parent: taken as gone
        "sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert done.returncode == 0  # ended by die_with_parent, not by the sys.exit(3) after it
    alive = subprocess.run([sys.executable, "-c", code.replace(" + 1_000_000", "")], timeout=60)
    assert alive.returncode == 3  # its parent is there: it goes on
