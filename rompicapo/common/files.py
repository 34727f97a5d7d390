"""Files in and out: read inputs safely, check output paths before the work, never lose a result.

- [`open_input()`][rompicapo.common.open_input] is the one door for every input file: a missing
  file, a folder, a FIFO, a device or a socket is refused in one line before anything is read (a
  FIFO swapped in after the check cannot hang it either: it is opened without blocking and checked
  again); [`read_input()`][rompicapo.common.read_input] reads at most ``max_bytes + 1`` bytes, so a
  limit holds on what is really read, not on what ``st_size`` claims; ``"-"`` is standard input (a
  closed one is an input error).
- [`read_text()`][rompicapo.common.read_text] refuses a binary file (NUL bytes, bytes that are not
  UTF-8) and an oversized one in one line; it drops a UTF-8 byte-order mark and reads CRLF and CR
  line ends as LF, so every parser sees the same text.
- [`loads_json()`][rompicapo.common.loads_json] parses JSON with a nesting limit (checked before the
  parser recurses) and refuses numbers of more than `MAX_DIGITS` digits, NaN and infinities.
- [`check_output_path()`][rompicapo.common.check_output_path] is called by an entry point *before*
  its search: it creates (and removes) the file, so a folder that does not exist, a read-only mount,
  ``/proc`` or a full disk costs a second, not the search; a device or a FIFO is refused as an
  output.
- [`check_distinct_paths()`][rompicapo.common.check_distinct_paths]: no output of a command is one
  of its inputs or another output (symbolic links followed, hard links recognised).
- [`write_text_atomic()`][rompicapo.common.write_text_atomic] and
  [`atomic_path()`][rompicapo.common.atomic_path] write through a temporary file in the same
  folder and rename it, so a reader (or a kill at any moment) sees the old file or the new one.
- [`write_or_keep()`][rompicapo.common.write_or_keep]: a write that still fails after the work keeps
  the result in another file and says where.
- [`write_checked_json()`][rompicapo.common.write_checked_json] /
  [`read_checked_json()`][rompicapo.common.read_checked_json]: checkpoints and result files carry a
  SHA-256 of their content; an edited or damaged file is refused, not trusted.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from rompicapo.common.errors import InputError
from rompicapo.common.run import MAX_DIGITS

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_TEXT_BYTES",
    "atomic_path",
    "check_distinct_paths",
    "check_input_path",
    "check_output_path",
    "keep_elsewhere",
    "loads_json",
    "open_input",
    "read_checked_json",
    "read_input",
    "read_text",
    "stdin_binary",
    "write_checked_json",
    "write_or_keep",
    "write_or_keep_where",
    "write_text_atomic",
]

# Text inputs (puzzle files, .dlx problems, piece lists) larger than this are refused: the
# largest published set the families read is tens of MB.
MAX_TEXT_BYTES = 512 * 1024 * 1024
# JSON files of rompicapo (checkpoints, .rpath headers, study rows) nest 4 deep at most; 64
# leaves room and stays far below Python's recursion limit.
MAX_JSON_DEPTH = 64
_READ_CHUNK = 1 << 20


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_input_path(path: object, what: str = "file") -> Path:
    """``path`` as a Path to an existing, readable regular file, or InputError in one line
    (a missing file, a folder, a FIFO, a device, a socket). Nothing is opened.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rompicapo.common import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     board = Path(folder, "board.txt")
    ...     _ = board.write_text("5x7\\n")
    ...     print(check_input_path(board) == board)
    ...     for bad in (Path(folder, "missing.txt"), Path(folder)):
    ...         try:
    ...             check_input_path(bad, "board")
    ...         except InputError as exc:
    ...             print(exc)
    True
    board '.../missing.txt' does not exist
    board '...' is a folder, not a file

    ```"""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"{what}: expected a file name, got {path!r}")
    p = Path(path)
    try:
        if not p.exists():
            raise InputError(f"{what} {str(p)!r} does not exist")
        kind = _kind(p.stat().st_mode)
        if kind is not None:
            raise InputError(f"{what} {str(p)!r} is {kind}, not a file")
        if not os.access(p, os.R_OK):
            raise InputError(f"{what} {str(p)!r} cannot be read (permission denied)")
    except OSError as exc:  # a name too long, a loop of links, ...
        raise InputError(f"{what} {str(p)!r}: {exc.strerror or exc}") from None
    return p


def open_input(path: object, what: str = "file") -> IO[bytes]:
    """The regular file ``path``, open for binary reading; InputError in one line otherwise.

    Checked before opening ([`check_input_path()`][rompicapo.common.check_input_path]), then opened
    without blocking and checked again on the open file: a FIFO or device put in its place between
    the two can neither hang the reader nor be read.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "moves.txt").write_bytes(b"1,2;2,1\\n")
    ...     with open_input(Path(folder, "moves.txt")) as fh:
    ...         print(fh.read())
    b'1,2;2,1\\n'
    >>> open_input("/dev/null", "moves")  # a device, refused before anything is read
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: moves '/dev/null' is a device, not a file

    ```"""
    p = check_input_path(path, what)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{what} {str(p)!r} cannot be read: {exc.strerror or exc}") from None
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise InputError(f"{what} {str(p)!r} is {kind}, not a file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def stdin_binary(what: str = "input", hint: str = "give a file name") -> IO[bytes]:
    """Standard input as a binary stream, or InputError when it is closed (``<&-``); the
    message ends with ``hint``.

    ```pycon
    >>> import io, sys
    >>> saved, sys.stdin = sys.stdin, io.TextIOWrapper(io.BytesIO(b"5x7\\n"))
    >>> stdin_binary().read()
    b'5x7\\n'
    >>> sys.stdin.close()
    >>> stdin_binary("the board", "give a board file")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: the board: standard input is closed; give a board file
    >>> sys.stdin = saved

    ```"""
    import io
    import sys

    stream = sys.stdin
    closed = stream is None or getattr(stream, "closed", False)
    if not closed:
        try:
            fd = stream.fileno()
        except (AttributeError, ValueError, io.UnsupportedOperation):
            fd = None  # not a file at all (a test's StringIO): nothing to check
        if fd is not None:
            try:
                os.fstat(fd)
            except OSError:
                closed = True
    if closed:
        raise InputError(f"{what}: standard input is closed; {hint}")
    return getattr(stream, "buffer", stream)


def _read_limited(fh: IO[bytes], max_bytes: int, stop_at_nul: bool) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``fh`` (one more tells the caller it is too long);
    with ``stop_at_nul`` the read stops at the first chunk holding a NUL byte (``/dev/zero``
    on standard input is refused after a megabyte, not after the limit)."""
    parts: list[bytes] = []
    size = 0
    while size <= max_bytes:
        part = fh.read(min(_READ_CHUNK, max_bytes + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
        if stop_at_nul and b"\0" in part:
            break
    return b"".join(parts)


def read_input(
    path: object, what: str = "file", *, max_bytes: int = MAX_TEXT_BYTES, text: bool = False
) -> tuple[bytes, str]:
    """The bytes of ``path`` (``"-"`` = standard input) and the name to quote in messages.

    Refuses what [`open_input()`][rompicapo.common.open_input] refuses and more than ``max_bytes``,
    counted on what is read. ``text``: stop early at a NUL byte (the caller refuses binary input
    anyway).

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rompicapo.common import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "pieces.txt").write_bytes(b"1 2 3 4\\n" * 100)
    ...     data, source = read_input(Path(folder, "pieces.txt"))
    ...     print(len(data), source.endswith("pieces.txt"))
    ...     try:
    ...         read_input(Path(folder, "pieces.txt"), "pieces", max_bytes=100)
    ...     except InputError as exc:
    ...         print(exc)
    800 True
    pieces '.../pieces.txt' is larger than the limit of 100 bytes

    ```"""
    if path == "-":
        fh, source, own = stdin_binary(what), "<stdin>", False
    else:
        fh, source, own = open_input(path, what), str(path), True
    try:
        data = _read_limited(fh, max_bytes, text)
    except OSError as exc:
        raise InputError(f"{what} {source!r} cannot be read: {exc.strerror or exc}") from None
    finally:
        if own:
            fh.close()
    if len(data) > max_bytes:
        raise InputError(f"{what} {source!r} is larger than the limit of {max_bytes:,} bytes")
    return data, source


def decode_text(data: bytes, source: str = "input") -> str:
    """UTF-8 text from ``data`` with the BOM dropped and line ends made LF, or InputError.

    ```pycon
    >>> decode_text(b"\\xef\\xbb\\xbf5x7\\r\\n3x3\\r")  # a byte-order mark and Windows line ends
    '5x7\\n3x3\\n'
    >>> decode_text(b"5x7\\n\\xff\\n", "board.txt")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: board.txt:2: not a UTF-8 text file (byte 4 is 0xff)

    ```"""
    if b"\0" in data:
        raise InputError(f"{source}: not a text file (it holds NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not a UTF-8 text file (byte {exc.start} is 0x{data[exc.start]:02x})",
            path=source,
            line=line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: object, what: str = "file", *, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The text of ``path`` (``"-"`` = standard input), read by
    [`read_input()`][rompicapo.common.read_input] and checked
    as [`decode_text()`][rompicapo.common.decode_text] says.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "board.txt").write_bytes(b"5x7\\r\\nstart 2,3\\r\\n")
    ...     print(repr(read_text(Path(folder, "board.txt"))))
    '5x7\\nstart 2,3\\n'

    ```"""
    data, source = read_input(path, what, max_bytes=max_bytes, text=True)
    return decode_text(data, source)


# --------------------------------------------------------------------------------------------
# JSON with limits
# --------------------------------------------------------------------------------------------

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _outside_strings(text: str) -> str:
    return _JSON_STRING.sub('""', text)


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON ``text`` (brackets inside strings do
    not count), found without recursion."""
    return _depth(_outside_strings(text))


def _depth(bare: str) -> int:
    import numpy as np

    b = np.frombuffer(bare.encode("utf-8", "replace"), np.uint8)
    if not len(b):
        return 0
    step = (b == 0x5B).astype(np.int64) + (b == 0x7B)
    step -= (b == 0x5D).astype(np.int64) + (b == 0x7D)
    return int(np.cumsum(step).max(initial=0))


_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
_EXPONENT = re.compile(r"[0-9][eE][+-]?[0-9]")


def _json_float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"a number out of range ({token[:30]})")
    return value


def _json_constant(token: str) -> float:
    raise ValueError(f"{token}, which JSON does not allow")


def loads_json(
    text: str | bytes,
    what: str = "JSON",
    *,
    path: object = None,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """``json.loads(text)`` with limits, or InputError in one line: nesting deeper than
    ``max_depth`` (refused before parsing), integers of more than `MAX_DIGITS` digits,
    numbers out of a float's range (``1e400``), NaN and Infinity.

    ```pycon
    >>> loads_json('{"rows": 5, "cols": 7}')
    {'rows': 5, 'cols': 7}
    >>> loads_json("[" * 100 + "]" * 100, "the checkpoint")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: the checkpoint nests 100 levels deep; the limit is 64
    >>> loads_json('{"score": NaN}')
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: JSON holds NaN, which JSON does not allow

    ```"""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{what} is not UTF-8 text", path=path) from None
    bare = _outside_strings(text)  # the numbers and brackets, at C speed (no hook per number)
    depth = _depth(bare)
    if depth > max_depth:
        raise InputError(f"{what} nests {depth} levels deep; the limit is {max_depth}", path=path)
    long = _LONG_NUMBER.search(bare)
    if long is not None:
        digits = len(long.group())
        raise InputError(
            f"{what} holds a number of {digits:,} digits (the limit is {MAX_DIGITS})", path=path
        )
    hooks: dict[str, Any] = {"parse_constant": _json_constant}
    if _EXPONENT.search(bare):  # a float that may be out of range (1e400): look at each
        hooks["parse_float"] = _json_float
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} is not valid JSON ({exc.msg})", path=path, line=exc.lineno
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{what} holds {exc}", path=path) from None


# --------------------------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------------------------

# Bytes the output check reserves (and frees) to learn whether the disk has room at all.
_PROBE_BYTES = 4096


def _reserve(fd: int) -> None:
    """Make the file ``fd`` hold `_PROBE_BYTES` real bytes: a full disk says so here."""
    try:
        os.posix_fallocate(fd, 0, _PROBE_BYTES)
        return
    except OSError as exc:
        if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
    except AttributeError:  # pragma: no cover - not POSIX
        pass
    os.write(fd, b"\0" * _PROBE_BYTES)
    os.fsync(fd)


def _probe_output(p: Path, folder: Path, what: str, name: str) -> None:
    """Create the output (or, when it exists, a temporary file beside it: the atomic write
    creates one there), give it a block, and remove it. Whatever refuses (a read-only mount,
    ``/proc``, a full disk, a name the file system does not take) is refused now."""
    created: str | None = None
    try:
        fd = -1
        if not os.path.lexists(p):
            try:
                fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                created = str(p)
            except FileExistsError:
                # another process made it since: two runs starting on one new file (a study
                # that both share, say); probe beside it as for any existing file
                pass
        if fd < 0:
            fd, created = tempfile.mkstemp(prefix=f".{p.name[:40]}.", suffix=".probe", dir=folder)
        try:
            _reserve(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOENT:
            reason = f"the folder {str(folder)!r} does not take new files"
        raise InputError(f"{what} {name!r} cannot be written: {reason}") from None
    finally:
        if created is not None:
            with contextlib.suppress(OSError):
                os.unlink(created)


def check_output_path(
    path: object,
    what: str = "output",
    *,
    suffixes: Iterable[str] | None = None,
    overwrite: bool = True,
) -> Path:
    """``path`` as a Path that a writer can create, checked now, before any work.

    The folder must exist and take a new file (the check creates the file, or a temporary one
    beside an existing file, and removes it: a read-only mount, ``/proc`` or a full disk is
    refused here), the path must not be a folder, a device or a FIFO, and its extension
    (case-insensitive) must be one of ``suffixes`` when they are given. A file already there is
    fine (and left as it is) unless ``overwrite`` is False.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rompicapo.common import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = check_output_path(Path(folder, "path.svg"), suffixes=(".svg",))
    ...     print(out.name, out.exists())  # checked by creating it, and removed again
    ...     for bad in (Path(folder, "path.png"), Path(folder, "no-such-folder", "path.svg")):
    ...         try:
    ...             check_output_path(bad, "svg", suffixes=(".svg",))
    ...         except InputError as exc:
    ...             print(exc)
    path.svg False
    svg '.../path.png' must end in .svg
    svg '.../no-such-folder/path.svg': the folder '.../no-such-folder' does not exist

    ```"""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"{what}: expected a file name, got {path!r}")
    p = Path(path)
    name = str(p)
    if suffixes is not None:
        allowed = tuple(s.lower() for s in suffixes)
        if not any(p.name.lower().endswith(s) for s in allowed) or p.name.lower() in allowed:
            raise InputError(f"{what} {name!r} must end in {' or '.join(allowed)}")
    try:
        if p.is_dir():
            raise InputError(f"{what} {name!r} is a folder; give a file name")
        folder = p.parent if str(p.parent) else Path(".")
        if not folder.exists():
            raise InputError(f"{what} {name!r}: the folder {str(folder)!r} does not exist")
        if not folder.is_dir():
            raise InputError(f"{what} {name!r}: {str(folder)!r} is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"{what} {name!r}: the folder {str(folder)!r} is not writable")
        if p.exists():
            if not overwrite:
                raise InputError(f"{what} {name!r} already exists")
            kind = _kind(p.stat().st_mode)
            if kind is not None:
                raise InputError(f"{what} {name!r} is {kind}; give a file name")
            if not os.access(p, os.W_OK):
                raise InputError(f"{what} {name!r} exists and is not writable")
        _probe_output(p, folder, what, name)
    except OSError as exc:
        raise InputError(f"{what} {name!r}: {exc.strerror or exc}") from None
    return p


def _identity(path: str) -> tuple[str, tuple[int, int] | None]:
    """The real path of ``path`` (symbolic links followed) and, when it exists, its device
    and inode (a hard link has another name and the same inode)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(path)
        return real, (st.st_dev, st.st_ino)
    except OSError:
        return real, None


def check_distinct_paths(
    inputs: Iterable[tuple[str, object]], outputs: Iterable[tuple[str, object]]
) -> None:
    """Refuse, in one line, an output that is one of the inputs or another output.

    ``inputs`` and ``outputs`` are ``(label, path)`` pairs (the label names the parameter or
    flag in the message). Paths are compared after following symbolic links, and by device and
    inode where both exist; an input that is not a file (a name such as ``eternity2``, a URL,
    ``-``) matches nothing.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rompicapo.common import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     board = Path(folder, "board.txt")
    ...     _ = board.write_text("5x7\\n")
    ...     check_distinct_paths([("board", board)], [("out", Path(folder, "path.svg"))])  # fine
    ...     try:
    ...         check_distinct_paths([("board", board)], [("out", board)])
    ...     except InputError as exc:
    ...         print(exc)
    out '.../board.txt' is the input board '.../board.txt': writing it would destroy the input; give
    another file name

    ```"""
    seen_in = [
        (label, str(path), *_identity(str(path)))
        for label, path in inputs
        if isinstance(path, (str, os.PathLike)) and str(path) not in ("", "-")
        and os.path.exists(path)
    ]  # fmt: skip
    seen_out: list[tuple[str, str, str, tuple[int, int] | None]] = []
    for label, path in outputs:
        if not isinstance(path, (str, os.PathLike)) or str(path) in ("", "-"):
            continue
        real, ident = _identity(str(path))
        for other_label, other, other_real, other_ident in seen_in:
            if real == other_real or (ident is not None and ident == other_ident):
                raise InputError(
                    f"{label} {str(path)!r} is the input {other_label} {other!r}: "
                    "writing it would destroy the input; give another file name"
                )
        for other_label, other, other_real, other_ident in seen_out:
            if real == other_real or (ident is not None and ident == other_ident):
                raise InputError(
                    f"{label} {str(path)!r} and {other_label} {other!r} are the same file: "
                    "one would overwrite the other; give two file names"
                )
        seen_out.append((label, str(path), real, ident))


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place (a stop signal
    that comes meanwhile waits for the file to be whole).

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_bytes_atomic(Path(folder, "path.npy"), b"\\x93NUMPY")
    ...     print([p.name for p in Path(folder).iterdir()], Path(folder, "path.npy").read_bytes())
    ['path.npy'] b'\\x93NUMPY'

    ```"""
    from rompicapo.common.parallel import holding_stops

    path = Path(path)
    with holding_stops():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
        _usual_mode(tmp)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _usual_mode(name: str) -> None:
    """mkstemp makes files only their owner can read (0600); a result file gets the mode any
    new file would get (0666 less the umask), as ``open(path, "w")`` gives."""
    os.chmod(name, 0o666 & ~_umask())


def _umask() -> int:
    # Linux reports it without changing it (os.umask would, for a moment, in every thread)
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


@contextlib.contextmanager
def atomic_path(path: Path | str):
    """``with atomic_path(p) as tmp:`` write ``tmp`` (a new name in ``p``'s folder) any way you
    like (a writer that needs a file name, ``np.save`` to an open handle, ``pwrite``...);
    on success it is renamed onto ``p``, on any failure it is removed: a reader never sees a
    half-written ``p`` and a failed write leaves nothing behind. A stop signal that comes
    meanwhile waits for the file to be whole.

    ```pycon
    >>> import tempfile
    >>> import numpy as np
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with atomic_path(Path(folder, "path.npy")) as tmp, open(tmp, "wb") as fh:
    ...         np.save(fh, np.arange(4))
    ...     print(np.load(Path(folder, "path.npy")).tolist())
    ...     try:
    ...         with atomic_path(Path(folder, "other.npy")) as tmp:
    ...             raise OSError("the disk is full")
    ...     except OSError:
    ...         pass
    ...     print(sorted(p.name for p in Path(folder).iterdir()))  # nothing half-written left
    [0, 1, 2, 3]
    ['path.npy']

    ```"""
    from rompicapo.common.parallel import holding_stops

    path = Path(path)
    with holding_stops():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
        os.close(fd)
        _usual_mode(tmp)
        try:
            yield Path(tmp)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def write_text_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed into place.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_text_atomic(Path(folder, "notes.txt"), "5x7: 13272 paths\\n")
    ...     print(Path(folder, "notes.txt").read_text(), end="")
    5x7: 13272 paths

    ```"""
    write_bytes_atomic(path, text.encode("utf-8"))


def keep_elsewhere(path: Path | str, write: Callable[[Path], None]) -> Path | None:
    """Write the result meant for ``path`` under a new name (``rompicapo-kept-TIME-PID-TAG-NAME``,
    unique: never over an existing file, however many a process keeps in a second) in the
    working folder, else the temporary folder, else the home folder; return where it went, or
    None when no place took it.

    ```pycon
    >>> import contextlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
    ...     kept = keep_elsewhere("/no/such/folder/path.svg", lambda p: p.write_text("<svg/>"))
    ...     print(kept.parent.samefile(folder), kept.name, kept.read_text())  # the working folder
    True rompicapo-kept-...-path.svg <svg/>

    ```"""
    import secrets
    import time

    base = Path(path).name or "result"
    for folder in (Path.cwd, lambda: Path(tempfile.gettempdir()), Path.home):
        try:
            where = folder()
        except (OSError, RuntimeError, KeyError):
            continue
        for _ in range(8):  # another name when one is taken; any other refusal: next folder
            stem = f"rompicapo-kept-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
            candidate = where / f"{stem}-{secrets.token_hex(3)}-{base}"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.close(fd)
                break
            except FileExistsError:
                continue
            except OSError:
                candidate = None
                break
        else:
            candidate = None
        if candidate is None:
            continue
        try:
            write(candidate)
            return candidate
        except (OSError, InputError):
            with contextlib.suppress(OSError):
                os.unlink(candidate)
    return None


def write_or_keep_where(
    path: Path | str, write: Callable[[Path], None]
) -> tuple[str | None, str | None]:
    """[`write_or_keep()`][rompicapo.common.write_or_keep], and where the result is now: ``(line,
    where)`` with ``line`` None and ``where`` = ``path`` when the write succeeded, ``where`` the
    kept copy when it was kept elsewhere, None when no folder took it.

    ```pycon
    >>> import contextlib, tempfile
    >>> def svg(path):
    ...     path.write_text("<svg/>")
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
    ...     print(write_or_keep_where("path.svg", svg))
    ...     print(write_or_keep_where("/no/such/folder/path.svg", svg))
    (None, 'path.svg')
    ("could not write '/no/such/folder/path.svg' (No such file or directory); the result is kept in
    '.../rompicapo-kept-...-path.svg'", '.../rompicapo-kept-...-path.svg')

    ```"""
    try:
        write(Path(path))
        return None, str(path)
    except OSError as exc:
        failure = f"could not write {str(path)!r} ({exc.strerror or exc})"
    except InputError as exc:  # the writer's own check of the path, now failing
        failure = f"could not write {str(path)!r} ({exc})"
    kept = keep_elsewhere(path, write)
    if kept is None:
        return f"{failure}; no other folder could take it either", None
    return f"{failure}; the result is kept in {str(kept)!r}", str(kept)


def write_or_keep(path: Path | str, write: Callable[[Path], None]) -> str | None:
    """Call ``write(path)``; when it fails (a disk that filled up during the work, a folder
    removed), keep the result with [`keep_elsewhere()`][rompicapo.common.keep_elsewhere] and return
    the one line that says what failed and where the result is. Returns None when the write
    succeeded.

    ```pycon
    >>> import contextlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
    ...     print(write_or_keep("path.txt", lambda p: p.write_text("13272")))  # written: None
    ...     print(write_or_keep("/no/such/folder/path.txt", lambda p: p.write_text("13272")))
    None
    could not write '/no/such/folder/path.txt' (No such file or directory); the result is kept in
    '.../rompicapo-kept-...-path.txt'

    ```"""
    return write_or_keep_where(path, write)[0]


def write_or_print(
    path: Path | str, write: Callable[[Path], None], fallback_text: Callable[[], str]
) -> str | None:
    """[`write_or_keep()`][rompicapo.common.write_or_keep], and when no folder takes the result,
    ``fallback_text()`` printed on stdout. Returns the one-line reason, or None when the write
    succeeded.

    ```pycon
    >>> import contextlib, tempfile
    >>> def refuse(path):  # a writer no folder takes (a full disk everywhere)
    ...     raise OSError(28, "No space left on device")
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
    ...     line = write_or_print("path.txt", refuse, lambda: "0 1 3 2")
    0 1 3 2
    >>> print(line)
    could not write 'path.txt' (No space left on device); no other folder could take it either; the
    result is printed above

    ```"""
    import sys

    line, where = write_or_keep_where(path, write)
    if where is None:
        sys.stdout.write(fallback_text().rstrip("\n") + "\n")
        line = f"{line}; the result is printed above"
    return line


# --------------------------------------------------------------------------------------------
# Checksummed JSON (checkpoints, result files)
# --------------------------------------------------------------------------------------------

_CHECK_KEY = "sha256"


def _digest(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def write_checked_json(path: Path | str, payload: dict[str, Any], *, kind: str) -> None:
    """Write ``payload`` with its kind and a SHA-256 of its canonical JSON, atomically.

    ```pycon
    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     checkpoint = Path(folder, "count.json")
    ...     write_checked_json(checkpoint, {"rows": 5, "done": [0, 1]}, kind="count")
    ...     doc = json.loads(checkpoint.read_text())
    >>> doc["kind"], doc["payload"], len(doc["sha256"])
    ('count', {'rows': 5, 'done': [0, 1]}, 64)

    ```"""
    from rompicapo.common.results import to_jsonable

    body = to_jsonable(payload)
    doc = {"kind": kind, "payload": body, _CHECK_KEY: _digest({"kind": kind, "payload": body})}
    write_text_atomic(path, json.dumps(doc, indent=1) + "\n")


def read_checked_json(path: Path | str, *, kind: str, what: str = "file") -> dict[str, Any]:
    """The payload written by [`write_checked_json()`][rompicapo.common.write_checked_json], or
    InputError when the file is not one, is of another kind, or its content does not match its
    checksum (edited or damaged).

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rompicapo.common import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     checkpoint = Path(folder, "count.json")
    ...     write_checked_json(checkpoint, {"rows": 5, "done": [0, 1]}, kind="count")
    ...     print(read_checked_json(checkpoint, kind="count"))
    ...     _ = checkpoint.write_text(checkpoint.read_text().replace('"rows": 5', '"rows": 6'))
    ...     try:
    ...         read_checked_json(checkpoint, kind="count", what="checkpoint")
    ...     except InputError as exc:
    ...         print(exc)
    {'rows': 5, 'done': [0, 1]}
    checkpoint '.../count.json' was edited or damaged (its checksum does not match); refusing to
    trust it

    ```"""
    doc = loads_json(read_text(path, what), what, path=path)
    if not isinstance(doc, dict) or not {"kind", "payload", _CHECK_KEY} <= doc.keys():
        raise InputError(f"{what} {str(path)!r} is not a rompicapo {kind} file")
    if doc["kind"] != kind:
        raise InputError(f"{what} {str(path)!r} is a {doc['kind']!r} file, not a {kind!r} file")
    if _digest({"kind": doc["kind"], "payload": doc["payload"]}) != doc[_CHECK_KEY]:
        raise InputError(
            f"{what} {str(path)!r} was edited or damaged (its checksum does not match); "
            "refusing to trust it"
        )
    if not isinstance(doc["payload"], dict):
        raise InputError(f"{what} {str(path)!r} is not a rompicapo {kind} file")
    return doc["payload"]
