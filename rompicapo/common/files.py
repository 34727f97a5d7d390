"""Files in and out: read text safely, check output paths before the work, never lose a result.

- :func:`read_text` refuses a missing file, a directory, a binary file (NUL bytes, bytes that
  are not UTF-8) and an oversized one in one line; it drops a UTF-8 byte-order mark and reads
  CRLF and CR line ends as LF, so every parser sees the same text.
- :func:`check_output_path` is called by an entry point *before* its search: the folder exists
  and is writable, the path is not a folder, and its extension is one the writer knows. A bad
  ``out=`` costs a second, not the search.
- :func:`write_text_atomic` writes through a temporary file in the same folder and renames it,
  so a reader never sees half a file and a failed write leaves nothing behind.
- :func:`write_checked_json` / :func:`read_checked_json`: checkpoints and result files carry a
  SHA-256 of their content; an edited or damaged file is refused, not trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rompicapo.common.errors import InputError

__all__ = [
    "MAX_TEXT_BYTES",
    "atomic_path",
    "check_input_path",
    "check_output_path",
    "read_checked_json",
    "read_text",
    "write_checked_json",
    "write_text_atomic",
]

# Text inputs (puzzle files, .dlx problems, piece lists) larger than this are refused before
# reading: the largest published set the families read is tens of MB.
MAX_TEXT_BYTES = 512 * 1024 * 1024


def check_input_path(path: object, what: str = "file") -> Path:
    """``path`` as a Path to an existing regular file, or InputError in one line."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"{what}: expected a file name, got {path!r}")
    p = Path(path)
    try:
        if not p.exists():
            raise InputError(f"{what} {str(p)!r} does not exist")
        if p.is_dir():
            raise InputError(f"{what} {str(p)!r} is a folder, not a file")
        if not os.access(p, os.R_OK):
            raise InputError(f"{what} {str(p)!r} cannot be read (permission denied)")
    except OSError as exc:  # a name too long, a loop of links, ...
        raise InputError(f"{what} {str(p)[:200]!r}: {exc.strerror or exc}") from None
    return p


def decode_text(data: bytes, source: str = "input") -> str:
    """UTF-8 text from ``data`` with the BOM dropped and line ends made LF, or InputError."""
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
    """The text of ``path`` (``"-"`` = standard input), checked as :func:`decode_text` says."""
    import sys

    if path == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        source = "<stdin>"
    else:
        p = check_input_path(path, what)
        size = p.stat().st_size
        if size > max_bytes:
            raise InputError(f"{what} {str(p)!r} is {size} bytes; the limit is {max_bytes}")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(f"{what} {str(p)!r} cannot be read: {exc.strerror}") from None
        source = str(p)
    if len(data) > max_bytes:
        raise InputError(f"{what} from {source} is larger than {max_bytes} bytes")
    return decode_text(data, source)


def check_output_path(
    path: object,
    what: str = "output",
    *,
    suffixes: Iterable[str] | None = None,
    overwrite: bool = True,
) -> Path:
    """``path`` as a Path that a writer can create, checked now, before any work.

    The folder must exist and be writable, the path must not be a folder, and its extension
    (case-insensitive) must be one of ``suffixes`` when they are given. A file already there is
    fine unless ``overwrite`` is False. Nothing is created.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"{what}: expected a file name, got {path!r}")
    p = Path(path)
    name = str(p)[:200]
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
            if not os.access(p, os.W_OK):
                raise InputError(f"{what} {name!r} exists and is not writable")
    except OSError as exc:
        raise InputError(f"{what} {name!r}: {exc.strerror or exc}") from None
    return p


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place."""
    path = Path(path)
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
    half-written ``p`` and a failed write leaves nothing behind."""
    path = Path(path)
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
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed into place."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_or_print(
    path: Path | str, write: Callable[[Path], None], fallback_text: Callable[[], str]
) -> str | None:
    """Call ``write(path)``; when it fails (a disk filled up, a folder removed during the run),
    print ``fallback_text()`` to stdout so the computed result is not lost, and return the
    one-line reason. Returns None when the write succeeded.
    """
    import sys

    try:
        write(Path(path))
        return None
    except OSError as exc:
        sys.stdout.write(fallback_text().rstrip("\n") + "\n")
        return f"could not write {str(path)!r} ({exc.strerror or exc}); the result is printed above"


# --------------------------------------------------------------------------------------------
# Checksummed JSON (checkpoints, result files)
# --------------------------------------------------------------------------------------------

_CHECK_KEY = "sha256"


def _digest(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def write_checked_json(path: Path | str, payload: dict[str, Any], *, kind: str) -> None:
    """Write ``payload`` with its kind and a SHA-256 of its canonical JSON, atomically."""
    from rompicapo.common.results import to_jsonable

    body = to_jsonable(payload)
    doc = {"kind": kind, "payload": body, _CHECK_KEY: _digest({"kind": kind, "payload": body})}
    write_text_atomic(path, json.dumps(doc, indent=1) + "\n")


def read_checked_json(path: Path | str, *, kind: str, what: str = "file") -> dict[str, Any]:
    """The payload written by :func:`write_checked_json`, or InputError when the file is not
    one, is of another kind, or its content does not match its checksum (edited or damaged)."""
    text = read_text(path, what)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})", path=path, line=exc.lineno) from None
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
