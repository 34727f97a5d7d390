"""The shared mechanisms of issue 28 (and item 7 of issue 26), one by one: the checked reader,
JSON and numbers with limits, one-line messages, output paths tested by creating them, outputs
compared with inputs, results kept when a write fails after the work, atomic writes that a
signal cannot cut, stop signals, the watchdog of --time, workers reaped, and the CLI's guard
of its own streams."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from waiting import wait_until

from rompicapo.cli import main
from rompicapo.common import (
    MAX_DIGITS,
    InputError,
    atomic_path,
    check_distinct_paths,
    check_int,
    check_output_path,
    keep_elsewhere,
    loads_json,
    one_line,
    open_input,
    read_input,
    run_jobs,
    write_bytes_atomic,
    write_or_keep,
)
from rompicapo.common.parallel import holding_stops, output_begins, stop_signals
from rompicapo.common.timing import Deadline

# ---- one line, 60 characters of the input -------------------------------------------------


def test_one_line_quotes_the_start_of_long_input_and_is_stable():
    text = "bad size\n  " + "9" * 120_000 + " and more"
    once = one_line(text)
    assert "\n" not in once and len(once) < 120 and "(120,000 characters)" in once
    assert one_line(once) == once  # messages pass through several layers
    assert len(one_line("word " * 100_000)) <= 503
    # a file name may be longer than 60 characters, not a line of 50 MB
    name = "/home/someone/" + "projects/" * 8 + "puzzle.txt"
    assert name in one_line(f"{name}: not found")


def test_input_error_messages_are_clipped():
    assert len(str(InputError("x" * 1_000_000, path="f.txt", line=3))) < 120


# ---- numbers and JSON with limits ----------------------------------------------------------


def test_integers_have_a_digit_limit_and_a_range():
    assert check_int("9" * MAX_DIGITS, "n") == int("9" * MAX_DIGITS)
    with pytest.raises(InputError, match=f"at most {MAX_DIGITS} digits"):
        check_int("9" * 5000, "n")  # Python's own message would be "Exceeds the limit (4300"
    with pytest.raises(InputError, match="at most 10"):
        check_int("11", "n", maximum=10)


def test_json_with_limits():
    assert loads_json('{"a": [1, 2.5, "[[[["]}') == {"a": [1, 2.5, "[[[["]}
    with pytest.raises(InputError, match="nests 100000 levels"):
        loads_json("[" * 100_000 + "]" * 100_000)  # RecursionError without the check
    with pytest.raises(InputError, match="out of range"):
        loads_json('{"rows": 1e400}')
    with pytest.raises(InputError, match="5,000 digits"):
        loads_json("[" + "7" * 5000 + "]")
    with pytest.raises(InputError, match="NaN"):
        loads_json("[NaN]")
    with pytest.raises(InputError, match="not valid JSON"):
        loads_json("{")


# ---- the checked reader ----------------------------------------------------------------------


def _alarm(seconds: float):
    def ring(signum, frame):
        raise TimeoutError("a reader blocked")

    signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def test_a_fifo_swapped_in_after_the_check_cannot_hang_the_reader(tmp_path, monkeypatch):
    """The name is checked, then opened without blocking and checked again: a FIFO that
    replaced the file in between is refused at once (a plain open would wait for a writer)."""
    fifo = tmp_path / "p.txt"
    os.mkfifo(fifo)
    import rompicapo.common.files as files

    monkeypatch.setattr(files, "check_input_path", lambda path, what="file": Path(path))
    _alarm(5)
    try:
        with pytest.raises(InputError, match="FIFO"):
            open_input(fifo, "puzzle file")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_limits_hold_on_what_is_read_not_on_what_stat_says():
    """``/proc`` files say they are 0 bytes long and hold more."""
    assert Path("/proc/self/status").stat().st_size == 0
    with pytest.raises(InputError, match="larger than the limit of 10 bytes"):
        read_input("/proc/self/status", "status", max_bytes=10)
    data, _ = read_input("/proc/self/status", "status", max_bytes=1 << 20)
    assert b"Pid:" in data


def test_devices_and_folders_are_refused_before_reading(tmp_path):
    for name, kind in (("/dev/zero", "device"), (str(tmp_path), "folder")):
        with pytest.raises(InputError, match=kind):
            read_input(name, "input")


# ---- outputs --------------------------------------------------------------------------------


def test_the_output_check_creates_and_removes_the_file(tmp_path):
    target = tmp_path / "x.npy"
    assert check_output_path(target, "out", suffixes=(".npy",)) == target
    assert list(tmp_path.iterdir()) == []  # created, given a block, removed
    target.write_bytes(b"old")
    before = target.stat().st_mtime_ns
    check_output_path(target, "out", suffixes=(".npy",))
    assert target.read_bytes() == b"old" and target.stat().st_mtime_ns == before
    assert [p.name for p in tmp_path.iterdir()] == ["x.npy"]


def test_a_file_made_by_another_run_during_the_check_is_probed_beside(tmp_path, monkeypatch):
    """Two runs starting on one new file (two studies sharing it): the second checks while
    the first has just made it. It was refused ('File exists'); now it is probed beside and
    the other run's file is left as it was."""
    target = tmp_path / "s.sqlite"
    target.write_bytes(b"made by the other run")
    monkeypatch.setattr(os.path, "lexists", lambda _p: False)  # it did not exist a moment ago
    assert check_output_path(target, "study file", suffixes=(".sqlite",)) == target
    assert target.read_bytes() == b"made by the other run"
    assert [p.name for p in tmp_path.iterdir()] == ["s.sqlite"]


@pytest.mark.parametrize(
    ("path", "says"),
    [("/proc/x.png", "does not take new files"), ("/dev/null", "device"), ("/dev/full", "device")],
)
def test_outputs_that_cannot_be_written_are_refused_before_the_work(path, says):
    with pytest.raises(InputError, match=says):
        check_output_path(path, "picture")


def test_outputs_are_compared_with_inputs_and_each_other(tmp_path):
    src = tmp_path / "p.txt"
    src.write_text("pieces")
    (tmp_path / "soft.txt").symlink_to(src)
    os.link(src, tmp_path / "hard.txt")
    for out in (src, tmp_path / "soft.txt", tmp_path / "hard.txt", tmp_path / "x" / ".." / "p.txt"):
        with pytest.raises(InputError, match="destroy the input"):
            check_distinct_paths([("pieces", src)], [("--out", out)])
    with pytest.raises(InputError, match="same file"):
        check_distinct_paths([], [("--svg", tmp_path / "h.svg"), ("--heat", f"{tmp_path}/./h.svg")])
    # names that are no file (a set's name, a URL, standard input) match nothing
    check_distinct_paths([("pieces", "eternity2"), ("board", "-")], [("--out", tmp_path / "b.txt")])


def test_a_write_that_fails_after_the_work_keeps_the_result_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "full" / "board.txt"
    calls = []

    def write(path: Path) -> None:
        calls.append(path)
        if path == target:
            raise OSError(errno.ENOSPC, "No space left on device")
        path.write_text("the board")

    line = write_or_keep(target, write)
    kept = calls[-1]
    assert "No space left on device" in line and str(kept) in line
    assert kept.parent == tmp_path and kept.read_text() == "the board"
    # never over an existing file, and in the same folder for a second result of the same
    # second (a name made of the second and the process alone would send it to /tmp)
    again = keep_elsewhere(target, lambda p: p.write_text("second"))
    assert again != kept and kept.read_text() == "the board"
    assert again.parent == tmp_path and again.read_text() == "second"


def test_a_failed_path_output_exits_non_zero_and_says_where_the_path_went(tmp_path, monkeypatch):
    """``path 10 --out x.npy`` on a disk that fills up during the search: the path is kept in
    another file that the one line names, and the exit status is 1 (it was 0, with "the
    result is printed" and only the summary printed)."""
    import rompicapo.paths.api as api

    monkeypatch.chdir(tmp_path)
    real = api.write_path
    target = tmp_path / "x.npy"

    def failing(res, name, *a, **kw):
        if Path(name) == target:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(res, name, *a, **kw)

    monkeypatch.setattr(api, "write_path", failing)
    assert main(["path", "10", "--out", str(target)]) == 1
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("rompicapo-kept-")]
    assert len(kept) == 1 and sorted(np.load(kept[0]).tolist()) == list(range(100))
    assert not target.exists()


def test_atomic_writes_let_a_signal_wait_for_the_whole_file(tmp_path):
    """A SIGTERM while a result is being written: the file is written whole, then the run
    stops (the interrupt comes out of the write, not in the middle of it)."""
    target = tmp_path / "r.bin"
    target.write_bytes(b"old")
    with stop_signals(), pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # the handler runs here: the stop waits for the write
        tmp.write_bytes(b"new" * 1000)
    assert target.read_bytes() == b"new" * 1000
    with stop_signals(), pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
    write_bytes_atomic(target, b"after")  # outside a run: plain
    assert target.read_bytes() == b"after"


def test_a_second_signal_is_dropped_while_the_first_is_handled():
    with stop_signals() as state:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)
            raise AssertionError("no KeyboardInterrupt")
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGTERM)  # 50 ms later, while the result is saved
            time.sleep(0.05)
            saved = True  # not interrupted
    assert saved and state.reason == "SIGTERM" and state.dropped == 1


def test_the_watchdog_stops_a_loop_that_forgot_the_clock_but_not_the_output():
    t0 = time.monotonic()
    with stop_signals(deadline=time.monotonic() + 0.2) as state, pytest.raises(KeyboardInterrupt):
        while time.monotonic() - t0 < 10:
            sum(range(1000))
    assert state.reason == "time" and time.monotonic() - t0 < 3
    with stop_signals(deadline=time.monotonic() + 0.1) as state:
        output_begins()  # printing the result: never cut
        time.sleep(1.5)
    assert state.reason is None
    with stop_signals(deadline=time.monotonic() + 0.1) as state, holding_stops():
        pass
    assert state.reason is None


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_worker_processes_are_reaped_when_a_run_stops():
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    t0 = time.monotonic()
    done = list(run_jobs(_sleep, [30.0] * 4, n_jobs=2, deadline=Deadline(3.0)))
    assert done == [] and time.monotonic() - t0 < 10
    workers = [p for p in me.children(recursive=True) if p.pid not in before]

    def workers_alive() -> list[psutil.Process]:
        alive = [p for p in workers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        return [p for p in alive if "resource_tracker import main" not in " ".join(p.cmdline())]

    assert wait_until(lambda: not workers_alive(), timeout=10)


# ---- the CLI's own streams -----------------------------------------------------------------


class _Full(io.TextIOBase):
    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_standard_output_is_one_line_and_exit_1(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", _Full())
    assert main(["queens", "6"]) == 1
    err = capsys.readouterr().err
    assert err == "rompicapo queens: cannot write the output: No space left on device\n"


def test_ascii_terminals_get_ascii_look_alikes():
    import rompicapo.cli  # noqa: F401  (registers the error handler)

    text = "Pósa × 3 — 180° ± ü".encode("ascii", "rompicapo-ascii")
    assert text == b"Posa x 3 -- 180 deg +- u"


def test_time_left_gives_nested_calls_a_valid_limit():
    gone = Deadline(0.001)
    time.sleep(0.01)
    assert gone.time_left() > 0  # check_time_limit refuses 0: a nested call stops at once
    assert Deadline(None).time_left() is None


def test_big_json_files_read_as_json_loads_reads_them():
    """A checkpoint of 200,000 jobs: the limits are checked on the whole text at once, the
    numbers parsed by json itself (no hook per number)."""
    doc = {"done": {f"0.{k}": [k * 10**30, k, 0.5] for k in range(200_000)}, "s": "[[[{"}
    text = json.dumps(doc)
    assert loads_json(text) == json.loads(text) == doc


def test_the_resource_tracker_says_nothing_of_what_a_stopped_run_left_it(tmp_path):
    # a run stopped by a signal ends without tearing its pools down: the tracker removes their
    # semaphores, and used to warn of them on stderr ("leaked semaphore objects")
    code = (
        "import rompicapo.common.workers, os\n"
        "from multiprocessing import get_context\n"
        "lock = get_context('spawn').Lock()\n"
        "os._exit(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0
    # the tracker writes to the same stderr once the last holder of its pipe is gone
    assert "leaked" not in done.stderr, done.stderr
