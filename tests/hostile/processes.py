"""The hostile-input harness for what only a real process shows: its streams (closed, full,
ASCII-only), signals, its tree of worker processes, the temporary folder, the wall clock.

:func:`check_process` runs one :class:`Run` as ``python -m rompicapo ...`` in its own working
folder and temporary folder (``TMPDIR``), and asserts what issue 28 promises for every case:

- the exit status, and at most ``stderr_lines`` lines on stderr (one, for an error);
- no traceback, no "please report", no Python "Exception ignored" line;
- done within ``seconds`` (the process is killed after that, so a hang fails instead of
  hanging the suite), and for a signal, stopped within ``stop_seconds`` of it;
- every process it started (polled while it runs) gone 2 s after the signal or the exit;
- the input files unchanged, no file left in the working folder but those of ``leaves``
  (glob patterns), and the temporary folder left empty.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from rompicapo.common.timing import is_compile_notice

__all__ = ["Outcome", "Run", "check_process", "load_factor", "run_process"]

# Seconds after a stop signal (or after the exit) by which no process of the run may be left.
REAPED_WITHIN = 2.0


def load_factor() -> float:
    """How much slower than idle this machine is now: the load average per core, 1 to 3.
    Time bounds (``stop_seconds``, ``REAPED_WITHIN``) are stretched by it: on a machine shared
    by six developers a process start alone takes 3 s. The bounds are stated for an idle
    machine; the figures measured are in the notes of the change."""
    try:
        per_core = os.getloadavg()[0] / max(1, len(os.sched_getaffinity(0)))
    except (OSError, AttributeError):
        return 1.0
    return min(3.0, max(1.0, per_core))


@dataclass
class Run:
    """One command line in its own process, and what it must do."""

    argv: list[str]
    status: int | tuple[int, ...]
    says: str | None = None  # a fragment of stderr (case-insensitive)
    files: dict[str, bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None  # "closed", else /dev/null
    stdout: str | None = None  # "closed" or "full" (/dev/full), else captured
    stderr: str | None = None  # "full" (/dev/full), else captured
    stderr_lines: int | None = 1  # at most this many non-empty lines (None: not checked)
    signal: int | None = None  # sent once ``signal_when`` exists (or after ``signal_after``)
    signal_after: float = 0.0  # seconds after the start (or after ``signal_when`` appeared)
    # a file (glob) of the working folder, or with "tmp:" of the temporary folder, that must
    # exist before the signal is sent (a search has started and reported, a file is written)
    signal_when: str | None = None
    second_signal: float | None = None  # the same signal again, this many seconds later
    seconds: float = 60.0
    stop_seconds: float | None = None  # from the signal to the exit
    leaves: tuple[str, ...] = ()
    cwd: str | None = None  # another working folder than the case's (its files stay there)

    @property
    def id(self) -> str:
        parts = [*self.argv]
        for key in ("stdin", "stdout", "stderr"):
            if getattr(self, key):
                parts.append(f"{key}={getattr(self, key)}")
        if self.env:
            parts.append(" ".join(f"{k}={v}" for k, v in self.env.items()))
        if self.signal:
            parts.append(signal.Signals(self.signal).name)
        return " ".join(parts)[:90]


@dataclass
class Outcome:
    status: int
    out: bytes
    err: str
    seconds: float
    stop_seconds: float | None
    children: set[int]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _exists(pattern: str, workdir: Path, tmp: Path) -> bool:
    folder = tmp if pattern.startswith("tmp:") else workdir
    return any(folder.glob(pattern.removeprefix("tmp:")))


def run_process(run: Run, workdir: Path) -> Outcome:
    """Start ``run`` in ``workdir`` and wait for it (or kill it after ``run.seconds``)."""
    tmp = workdir.parent / f"{workdir.name}-tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1", **run.env}
    env.pop("ROMPICAPO_DEBUG", None)
    redirect = {"closed": "<&-", None: ""}[run.stdin]
    redirect += {"closed": " >&-", "full": " >/dev/full", None: ""}[run.stdout]
    redirect += {"full": " 2>/dev/full", None: ""}[run.stderr]
    command = [sys.executable, "-m", "rompicapo", *run.argv]
    # the shell sets up the closed or full streams and then becomes the command (exec)
    script = f'exec "$@" {redirect}'
    out_path, err_path = (
        workdir.parent / f"{workdir.name}.out",
        workdir.parent / f"{workdir.name}.err",
    )
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(
            ["/bin/sh", "-c", script, "sh", *command],
            cwd=run.cwd or workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        children: set[int] = set()
        sent: float | None = None
        waited_from = t0
        try:
            me = psutil.Process(proc.pid)
        except psutil.Error:
            me = None
        while proc.poll() is None:
            now = time.monotonic()
            if now - t0 > run.seconds:
                proc.kill()
                proc.wait()
                raise AssertionError(f"{run.id}: still running after {run.seconds} s (killed)")
            if me is not None:
                with contextlib.suppress(psutil.Error):
                    children.update(c.pid for c in me.children(recursive=True))
            if run.signal is not None and sent is None:
                if run.signal_when is not None and not _exists(run.signal_when, workdir, tmp):
                    waited_from = now
                elif now - waited_from >= run.signal_after:
                    proc.send_signal(run.signal)
                    sent = time.monotonic()
                    if run.second_signal is not None:
                        time.sleep(run.second_signal)
                        if proc.poll() is None:
                            proc.send_signal(run.signal)
            time.sleep(0.02)
        seconds = time.monotonic() - t0
    stop = None if sent is None else time.monotonic() - sent
    return Outcome(
        status=proc.returncode,
        out=out_path.read_bytes(),
        err=err_path.read_text(errors="replace"),
        seconds=seconds,
        stop_seconds=stop,
        children=children,
    )


def check_process(run: Run, workdir: Path) -> Outcome:
    """Run ``run`` and assert everything the module docstring lists; return the outcome."""
    for name, data in run.files.items():
        (workdir / name).write_bytes(data)
    before = {p.name for p in workdir.iterdir()}
    digests = {name: _digest(workdir / name) for name in run.files}
    got = run_process(run, workdir)
    t_end = time.monotonic()
    label = f"{run.id}: exit {got.status}, {got.seconds:.1f} s\nstderr:\n{got.err}"
    wanted = run.status if isinstance(run.status, tuple) else (run.status,)
    assert got.status in wanted, label
    for bad in ("Traceback", "please report", "Exception ignored"):
        assert bad not in got.err, label
    # the compilation notice depends on the state of numba's cache, not on the case
    lines = [line for line in got.err.splitlines() if line.strip() and not is_compile_notice(line)]
    if run.stderr_lines is not None:
        assert len(lines) <= run.stderr_lines, label
    if run.says is not None:
        assert run.says.lower() in got.err.lower(), f"{label}\nlacks {run.says!r}"
    assert got.seconds < run.seconds, label
    if run.signal is not None:
        assert got.stop_seconds is not None, f"{run.id}: ended before the signal\n{label}"
        if run.stop_seconds is not None:
            bound = run.stop_seconds * load_factor()
            assert got.stop_seconds < bound, f"stopped in {got.stop_seconds:.2f} s; {label}"
    # no process of the run left: 2 s after the signal, or after the exit
    if got.children:
        start = t_end - (got.stop_seconds or 0.0)
        time.sleep(max(0.0, start + REAPED_WITHIN * load_factor() - time.monotonic()))
    alive = []
    for pid in got.children:
        try:
            p = psutil.Process(pid)
            if p.status() != psutil.STATUS_ZOMBIE:
                alive.append((pid, p.name(), " ".join(p.cmdline())[:80]))
        except psutil.Error:
            pass
    assert not alive, f"{run.id}: processes left behind {alive}"
    after = {p.name for p in workdir.iterdir()}
    extra = [n for n in after - before if not any(fnmatch.fnmatch(n, g) for g in run.leaves)]
    assert not extra, f"{run.id}: left {sorted(extra)} behind"
    changed = [n for n, d in digests.items() if _digest(workdir / n) != d]
    assert not changed, f"{run.id}: changed its inputs {changed}"
    tmp = workdir.parent / f"{workdir.name}-tmp"
    assert not list(tmp.iterdir()), f"{run.id}: left {sorted(os.listdir(tmp))} in TMPDIR"
    return got
