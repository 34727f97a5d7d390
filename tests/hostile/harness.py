"""The hostile-input harness: run one command line in this process and check how it fails.

Each family's table (``test_hostile_<family>.py``) lists command lines that a user might type
by mistake or in malice. For every one, :func:`check_refused` asserts what the run contract
promises for a user's mistake:

- exit status 2 (never 1, which means a bug of ours, never 0);
- exactly one line on stderr, no traceback anywhere and no "please report";
- done within a few seconds (``SECONDS``; a hard alarm stops a hang, a FIFO opened for
  reading included);
- no file left behind in the working folder (only the inputs the case wrote are there), and
  every input the case wrote unchanged.

Placeholders in a case's argv: ``{tmp}`` is the case's working folder, ``{closed}`` a
``tcp://127.0.0.1:PORT`` where nothing listens, ``{http}`` a port that answers in HTTP, not
in Dask's protocol. Inputs are written into the working folder before the run: ``files``
(name -> bytes), ``fifos`` (named pipes nobody writes to) and ``links`` (name -> target, a
symbolic link; a target starting with ``+`` is a hard link to that file of the folder).
"""

from __future__ import annotations

import hashlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from rompicapo.cli import main
from rompicapo.common.timing import is_compile_notice

__all__ = ["SECONDS", "Case", "check_refused", "npy_bytes", "random_bytes", "rpath_bytes"]

# Validation happens before any work, so a refusal takes well under a second; a scheduler
# address that answers in the wrong protocol takes the longest (connect_scheduler's handshake).
SECONDS = 10.0


@dataclass
class Case:
    """One hostile command line: ``argv`` (placeholders allowed), files to write first, and
    optionally a fragment the one-line message must contain (case-insensitive)."""

    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    says: str | None = None
    fifos: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return " ".join(self.argv)[:80]


def random_bytes(n: int = 4096, seed: int = 7) -> bytes:
    """Reproducible random bytes (with NULs and invalid UTF-8, almost surely)."""
    import random

    return random.Random(seed).randbytes(n)


def npy_bytes(array) -> bytes:
    """``array`` as the bytes of a ``.npy`` file."""
    import io

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def rpath_bytes() -> bytes:
    """A valid .rpath file: the path 0, 1, 2, 3 of a 1x4 board with the moves (0, +-1)."""
    import tempfile

    import numpy as np

    from rompicapo.paths.rpath import write_path_array

    with tempfile.TemporaryDirectory() as folder:
        name = Path(folder) / "p.rpath"
        write_path_array(name, np.arange(4), 1, 4, [(0, 1), (0, -1)])
        return name.read_bytes()


class _Alarm(Exception):
    pass


def _on_alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Alarm(f"still running after {SECONDS} s")


def check_refused(case: Case, workdir: Path, capsys, addresses: dict[str, str]) -> str:
    """Run ``case`` in ``workdir`` and assert the contract; return the one stderr line."""
    for name, data in case.files.items():
        (workdir / name).write_bytes(data)
    for name in case.fifos:
        os.mkfifo(workdir / name)
    for name, target in case.links.items():
        if target.startswith("+"):
            os.link(workdir / target[1:], workdir / name)
        else:
            os.symlink(target, workdir / name)
    before = {p.name for p in workdir.iterdir()}
    digests = {name: _digest(workdir / name) for name in case.files}
    argv = [a.format(tmp=workdir, **addresses) for a in case.argv]
    old = os.getcwd()
    os.chdir(workdir)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, SECONDS + 5)
    t0 = time.monotonic()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(old)
    seconds = time.monotonic() - t0
    out, err = capsys.readouterr()
    # the compilation notice depends on the state of numba's cache, not on the case
    lines = [line for line in err.splitlines() if line.strip() and not is_compile_notice(line)]
    assert "Traceback" not in err + out, f"traceback for {argv}:\n{err}"
    assert "please report" not in err, f"{argv} was taken for a bug:\n{err}"
    assert code == 2, f"exit {code} for {argv}; stderr:\n{err}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr for {argv}:\n{err}"
    assert seconds < SECONDS, f"{argv} took {seconds:.1f} s"
    after = {p.name for p in workdir.iterdir()}
    assert after == before, f"{argv} left {sorted(after - before)} behind"
    changed = [name for name, d in digests.items() if _digest(workdir / name) != d]
    assert not changed, f"{argv} changed its inputs {changed}"
    if case.says is not None:
        assert case.says.lower() in lines[0].lower(), f"{lines[0]!r} lacks {case.says!r}"
    return lines[0]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
