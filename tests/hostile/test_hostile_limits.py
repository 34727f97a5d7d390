"""Limits of the system met while a command works: too many open files (``ulimit -n``), the
file size limit (``ulimit -f``, as a full quota gives), a full disk, SQLite's I/O errors. Each is
one line naming the file and the limit, exit 1 (2 when it is met before any work, by the check
of the output), saying what was kept; never "internal error".

The limits are set in the command's own process (``resource.setrlimit`` before it starts).
"""

from __future__ import annotations

import errno
import resource
import subprocess
import sys

import pytest

from rompicapo.cli.resource_limits import limit_line
from rompicapo.common.timing import is_compile_notice
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import format_pieces

PIECES_8, _ = generate(8, 8, frame_colours=3, inner_colours=5, seed=1)


def _limited(kind: int, value: int):
    def apply() -> None:
        resource.setrlimit(kind, (value, value))

    return apply


LIMITS = [
    # (argv, limit, value, exit statuses, fragments of the line)
    pytest.param(["count", "6x6", "--jobs", "2"], resource.RLIMIT_NOFILE, 16, (1,),
                 ("too many open files", "16", "ulimit -n"), id="count --jobs 2, 16 files"),
    pytest.param(["path", "1000", "--out", "x.rpath"], resource.RLIMIT_FSIZE, 8192, (1,),
                 ("x.rpath", "file too large", "8192", "x.rpath.part"), id="path --out, 8 KB"),
    pytest.param(["edges", "hunt", "p.txt", "--db", "h.sqlite", "--time", "5"],
                 resource.RLIMIT_FSIZE, 20480, (1,),
                 ("h.sqlite", "file too large", "20480"), id="edges hunt, 20 KB"),
    pytest.param(["count", "6x6", "--checkpoint", "c.json"], resource.RLIMIT_FSIZE, 1024, (1, 2),
                 ("c.json", "file too large"), id="count --checkpoint, 1 KB"),
    pytest.param(["edges", "generate", "16x16", "--frame-colours", "5", "--inner-colours", "17",
                  "--out", "g.txt"], resource.RLIMIT_FSIZE, 1024, (1, 2),
                 ("g.txt", "file too large"), id="edges generate --out, 1 KB"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "kind", "value", "statuses", "says"), LIMITS)
def test_a_limit_of_the_system_is_one_line(argv, kind, value, statuses, says, tmp_path):
    (tmp_path / "p.txt").write_text(format_pieces(PIECES_8))
    done = subprocess.run(
        [sys.executable, "-m", "rompicapo", *argv, "--quiet"]
        if argv[0] in ("count", "path") or argv[:2] == ["edges", "hunt"]
        else [sys.executable, "-m", "rompicapo", *argv],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        preexec_fn=_limited(kind, value),
    )
    err = done.stderr.decode(errors="replace")
    lines = [line for line in err.splitlines() if line.strip() and not is_compile_notice(line)]
    assert done.returncode in statuses, err
    assert len(lines) == 1, err
    for bad in ("Traceback", "internal error", "please report"):
        assert bad not in err, err
    for fragment in says:
        assert fragment.lower() in lines[0].lower(), f"{lines[0]!r} lacks {fragment!r}"


def test_a_full_disk_names_the_file_the_room_and_what_was_kept(tmp_path):
    kept = tmp_path / "c.json"
    kept.write_text("{}")
    exc = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / ".c.json.tmp"))
    line = limit_line(exc, [str(kept)])
    assert line is not None
    assert ".c.json.tmp" in line and "no space left" in line and "bytes free there" in line
    assert line.endswith(f"kept as it was before the failure: {kept}")
    assert limit_line(OSError(errno.ENOENT, "No such file or directory"), []) is None


@pytest.fixture
def silent_address():
    """A port that takes connections and never says a word (a firewall's black hole)."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


@pytest.mark.parametrize(
    "argv",
    [["edges", "solve", "eternity2", "--time", "2"], ["count", "6x6", "--time", "2"]],
    ids=["edges solve --time 2", "count --time 2"],
)
def test_a_scheduler_that_does_not_answer_is_one_line_in_every_command(argv, silent_address):
    """``edges solve --time 2 --scheduler ADDRESS`` said "stopped by the time limit" (exit 130)
    where ``count`` said "cannot connect to the Dask scheduler" (exit 2)."""
    done = subprocess.run(
        [sys.executable, "-m", "rompicapo", *argv, "--scheduler", silent_address],
        capture_output=True,
        timeout=120,
    )
    err = done.stderr.decode(errors="replace")
    lines = [line for line in err.splitlines() if line.strip() and not is_compile_notice(line)]
    assert done.returncode == 2, err
    assert len(lines) == 1 and "cannot connect to the Dask scheduler" in lines[0], err
