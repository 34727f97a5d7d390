"""SQLite files that rompicapo keeps (hunts, studies): opened for reading without leaving
anything beside them, refused for writing in one line when they cannot be written, and held by
one writer at a time.

- `connect_sqlite()`: a file that may be written is opened as usual (a reader that closes
  folds the write-ahead log back, so no ``FILE-wal`` / ``FILE-shm`` stay); one that may not (a
  read-only file, another user's, a read-only folder) is opened read-only and, when no
  write-ahead log lies beside it, *immutable* (``file:...?mode=ro&immutable=1``): SQLite then
  takes no lock and makes no ``-shm`` file, which a read-only folder would refuse;
- `check_writable()`: a file that cannot be written (or whose folder cannot take the log files)
  is refused before any work, in one line saying what can be done instead;
- `hold_exclusively()`: an advisory lock (``flock``) on the file itself, held for as long as a
  writer runs; a second writer is refused in one line.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from rompicapo.common.errors import InputError

__all__ = ["FileInUse", "check_writable", "connect_sqlite", "hold_exclusively", "may_write"]


class FileInUse(InputError):
    """Another process holds the file (a second writer on one file)."""


def may_write(path: Path) -> bool:
    """Can this process write ``path`` and make its ``-wal`` and ``-shm`` files beside it?"""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def connect_sqlite(path: Path, *, readonly: bool, timeout: float) -> sqlite3.Connection:
    """A connection to the existing SQLite file ``path`` (see the module docstring)."""
    if not readonly or may_write(path):
        return sqlite3.connect(path, timeout=timeout)
    wal = path.with_name(path.name + "-wal")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if not (wal.exists() and wal.stat().st_size > 0):
        # nothing but the file to read: no lock, no -shm, nothing written anywhere
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout)


def check_writable(path: Path, what: str, instead: str) -> None:
    """Refuse, in one line, to write the existing file ``path`` (a ``what``) that this process
    may not write; ``instead`` says what the user can do."""
    if not path.exists() or may_write(path):
        return
    if os.access(path, os.W_OK):
        why = "no permission to write its folder, where SQLite writes its log files"
    else:
        why = "no permission to write it"
    raise InputError(f"{path}: this {what} is read-only ({why}); {instead}")


@contextlib.contextmanager
def hold_exclusively(path: Path, *, holder: Callable[[], str]) -> Iterator[None]:
    """``with hold_exclusively(path, holder=...):`` the one writer of ``path``. A second
    process is refused with `FileInUse`: ``holder()`` returns the words naming the running
    one (its process and start). The lock is ``flock`` on a descriptor of its own, which
    SQLite's POSIX locks on the file do not see; it is released when the block ends, or when
    the process dies, however it dies."""
    import fcntl

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileInUse(f"{path}: {holder()}; wait for it to end or stop it") from None
        yield
    finally:
        # closed after the caller's SQLite connection (the block ends first): closing a
        # descriptor of the file would otherwise drop SQLite's own locks on it
        os.close(fd)
