"""The limits of the system a command may run into while it works, said in one line: too many
open files (``ulimit -n``), a file larger than the file size limit (``ulimit -f``, a quota), a
full disk, and SQLite's I/O errors (which is how SQLite reports the same three).

`limit_line()` turns such an error into the line: the file, the limit (its value when the
process can read it) and what the user can do, and what was kept: the command's output files
that exist (rompicapo writes them whole or not at all: a checkpoint, a hunt or study file keep
what they held before the failure), and a ``.part`` file beside one (a partial ``.rpath``,
which ``--resume`` continues).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Sequence

__all__ = ["limit_line"]

_OPEN_FILES = (errno.EMFILE, errno.ENFILE)
_SPACE = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
# SQLite's words for a write the system refused (its error carries no errno)
_SQLITE_WORDS = ("disk i/o error", "database or disk is full", "too many open files")


def _rlimit(name: str) -> int | None:
    try:
        import resource

        soft = resource.getrlimit(getattr(resource, name))[0]
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    return None if soft == getattr(resource, "RLIM_INFINITY", -1) else int(soft)


def _free_bytes(path: str) -> int | None:
    folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def _kept(outputs: Sequence[str]) -> str:
    kept = []
    for out in outputs:
        for name in (out, f"{out}.part"):
            if os.path.isfile(name):
                kept.append(name)
    if not kept:
        return "no output file was written" if outputs else "the command writes no file"
    return "kept as it was before the failure: " + ", ".join(kept)


def _limit_of(code: int, filename: str) -> str:
    if code in _OPEN_FILES:
        n = _rlimit("RLIMIT_NOFILE")
        limit = f"this process may have {n} open files" if n is not None else "the open files"
        return f"too many open files ({limit}: raise 'ulimit -n', or give fewer --jobs)"
    if code == errno.EFBIG:
        n = _rlimit("RLIMIT_FSIZE")
        limit = f"files of this process may hold {n} bytes" if n is not None else "a size limit"
        return f"file too large ({limit}: raise 'ulimit -f', or write elsewhere)"
    free = _free_bytes(filename.split(", ")[0])
    room = f"{free} bytes free there" if free is not None else "no room"
    return f"no space left on the device or in the quota ({room}: free some, or write elsewhere)"


def limit_line(exc: BaseException, outputs: Sequence[str]) -> str | None:
    """The one line for ``exc`` if it is a limit of the system (see the module docstring),
    else None. ``outputs``: the command's output files."""
    if isinstance(exc, OSError) and exc.errno in (*_OPEN_FILES, errno.EFBIG, *_SPACE):
        filename = str(exc.filename) if exc.filename else ""
        if not filename and exc.errno not in _OPEN_FILES:
            filename = ", ".join(outputs)  # a write to an open file names none: the outputs
        where = f"{filename}: " if filename else ""
        return f"{where}{_limit_of(exc.errno, filename)}; {_kept(outputs)}"
    if isinstance(exc, sqlite3.OperationalError):
        words = str(exc).lower()
        if not any(w in words for w in _SQLITE_WORDS):
            return None
        files = [o for o in outputs if o.endswith((".sqlite", ".sqlite3", ".db"))] or outputs
        where = f"{', '.join(files)}: " if files else ""
        code = errno.EMFILE if "open files" in words else errno.EFBIG
        if code == errno.EFBIG and _rlimit("RLIMIT_FSIZE") is None:
            code = errno.ENOSPC  # no size limit: the disk or a quota is full
        return f"{where}SQLite: {exc}: {_limit_of(code, files[0] if files else '')}; " + _kept(
            outputs
        )
    return None
