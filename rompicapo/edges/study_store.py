"""Parameter studies, part 2: the SQLite file (one row per finished job, resumable).

`open_study()` makes or checks a study file; a run claims its jobs one by one
(`begin_run()`, `claimed()`, `release_claims()`) so that two studies sharing a file
never run the same job, and writes each result in its own transaction (`store_result()`);
[`load_results()`][rompicapo.edges.load_results] reads them back, refusing rows whose checksum no
longer matches.
See `rompicapo.edges.study`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from rompicapo.common import RompicapoError, check_output_path, loads_json
from rompicapo.common.sqlite_files import check_writable, connect_sqlite
from rompicapo.edges.puzzle import Puzzle
from rompicapo.edges.study_design import Variant, base_variant, puzzle_hash

__all__ = [
    "SCHEMA_VERSION",
    "STUDY_ID",
    "STUDY_SUFFIXES",
    "StudyError",
    "begin_run",
    "check_study_path",
    "claimed",
    "load_results",
    "open_study",
    "release_claims",
    "store_result",
]

# The metadata table names the study kind and schema version: any other SQLite file (or an
# older layout) is refused with a one-line message instead of a traceback halfway through.
STUDY_ID = "rompicapo.edges.study"
SCHEMA_VERSION = 1
# Study files are SQLite; any other name is most likely a slip (a report folder, a board).
STUDY_SUFFIXES = (".sqlite", ".sqlite3", ".db")


class StudyError(RompicapoError):
    """The SQLite file is not a usable study (corrupted, foreign, other puzzle, other version)."""


# --------------------------------------------------------------------------------------------
# The SQLite file
# --------------------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    id TEXT PRIMARY KEY,          -- hash of puzzle, clues, parameters, seed and budget
    variant TEXT NOT NULL,        -- Variant.key
    params TEXT NOT NULL,         -- Variant.to_json()
    seed INTEGER NOT NULL,
    budget TEXT NOT NULL,         -- {"nodes": ..., "seconds": ...}
    depth INTEGER NOT NULL,       -- most pieces placed at once
    score INTEGER NOT NULL,       -- best partial board's matched joints (verified)
    score_depth INTEGER NOT NULL, -- pieces on that board
    placements INTEGER NOT NULL,  -- forward placements (Bucas's count)
    nodes INTEGER NOT NULL,       -- loop iterations (Blackwood's count)
    restarts INTEGER NOT NULL,
    solved INTEGER NOT NULL,
    seconds REAL NOT NULL,        -- wall seconds of search (tables built included)
    cpu_seconds REAL NOT NULL,    -- CPU seconds of the searching thread
    setup_seconds REAL NOT NULL,  -- set-up outside the search (0 since search() is used)
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    verified INTEGER NOT NULL,
    finished TEXT NOT NULL,       -- UTC time the result was written
    heat TEXT NOT NULL            -- JSON list: forward placements per cell
);
CREATE TABLE IF NOT EXISTS checks (id TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS claims (id TEXT PRIMARY KEY, owner TEXT NOT NULL);
"""
# claims: the jobs a running study has taken (owner "host:pid:start"), so that two studies on
# one file never run the same job; a run removes its own claims when it ends, and the claims of
# a process of this host that is gone are dropped by the next run.
_CLAIMS = "CREATE TABLE IF NOT EXISTS claims (id TEXT PRIMARY KEY, owner TEXT NOT NULL)"
# Seconds a study waits for another one holding the file's lock (a write takes milliseconds).
_BUSY_SECONDS = 60
# checks: a SHA-256 of each result row as written; a row edited by hand (or damaged) no longer
# matches and the file is refused when read. Files made before the checks existed get them
# the first time a study writes to them (their rows trusted once).
_CHECKS = "CREATE TABLE IF NOT EXISTS checks (id TEXT PRIMARY KEY, sha256 TEXT NOT NULL)"


def _row_digest(values: Sequence) -> str:
    text = json.dumps(list(values), separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _check_rows_missing(conn: sqlite3.Connection) -> None:
    """Add the checks table and a check for every row lacking one (an older file)."""
    with conn:
        conn.execute(_CHECKS)
        rows = conn.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE id NOT IN (SELECT id FROM checks)"
        ).fetchall()
        conn.executemany(
            "INSERT OR IGNORE INTO checks VALUES (?, ?)", [(r[0], _row_digest(r)) for r in rows]
        )


_COLUMNS = [
    "id",
    "variant",
    "params",
    "seed",
    "budget",
    "depth",
    "score",
    "score_depth",
    "placements",
    "nodes",
    "restarts",
    "solved",
    "seconds",
    "cpu_seconds",
    "setup_seconds",
    "host",
    "pid",
    "verified",
    "finished",
    "heat",
]


def _refuse(path: Path, why: str) -> StudyError:
    return StudyError(f"{path}: {why}")


def open_study(
    path: str | Path, puzzle: Puzzle | None = None, *, create: bool = False, readonly: bool = False
):
    """Open (or, with ``create``, make) a study file and check it is one; ``readonly``: only
    to read it (a file that may not be written is then opened so that nothing is made beside
    it).

    Raises `StudyError` with a one-line reason for a file that is not SQLite or is
    damaged, a SQLite file of something else, another schema version, or (when ``puzzle`` is
    given) a study of another puzzle. Returns a ``sqlite3.Connection``.
    """
    p = Path(path)
    exists = p.exists() and p.stat().st_size > 0
    if not exists and not create:
        raise StudyError(f"{p}: no such study file")
    if p.is_dir():
        raise _refuse(p, "is a directory, not a study file")
    try:
        conn = connect_sqlite(p, readonly=readonly and exists, timeout=_BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise _refuse(p, f"cannot open ({exc})") from None
    try:
        if not exists and puzzle is None:
            raise StudyError(f"{p}: a new study file needs its puzzle")
        if create and puzzle is not None:
            _create(conn, puzzle, fresh=not exists)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()
        except sqlite3.OperationalError as exc:  # the file is there but cannot be read
            if "disk" in str(exc):  # a limit of the system (a full disk, a size limit)
                raise
            raise _refuse(p, f"cannot read it ({exc})") from None
        except sqlite3.DatabaseError:
            raise _refuse(
                p, "not a SQLite file, or a damaged one (not a rompicapo study)"
            ) from None
        if check is None or check[0] != "ok":
            raise _refuse(p, f"damaged SQLite file ({check[0] if check else 'no answer'})")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables or "results" not in tables:
            raise _refuse(p, "a SQLite file, but not a rompicapo edges study (no study tables)")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("study") != STUDY_ID:
            raise _refuse(p, f"a SQLite file of another kind (study {meta.get('study')!r})")
        if meta.get("version") != str(SCHEMA_VERSION):
            raise _refuse(
                p, f"study schema version {meta.get('version')}, this rompicapo reads "
                f"{SCHEMA_VERSION}"
            )  # fmt: skip
        if puzzle is not None and meta.get("puzzle_hash") != puzzle_hash(puzzle):
            raise _refuse(p, f"a study of another puzzle ({meta.get('puzzle')!r})")
        if puzzle is not None and "checks" not in tables:  # files of the first runs
            _check_rows_missing(conn)
        if puzzle is not None and "pieces" not in meta:  # files of the first runs lacked them
            with conn:
                conn.executemany(
                    "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                    [("pieces", json.dumps(puzzle.pieces.tolist())),
                     ("base_variant", base_variant(puzzle).to_json())],
                )  # fmt: skip
        return conn
    except BaseException:
        conn.close()
        raise


def _create(conn: sqlite3.Connection, puzzle: Puzzle, *, fresh: bool) -> None:
    """Make the study's tables in a file that has none, in one transaction that holds the
    file's write lock: two studies started together on a new file make it once (the second
    waits, then finds it made and checks it as any existing file). A new file gets write-ahead
    logging, so studies read while another writes. A file that is not SQLite, or has tables
    already, is left as it is for the checks that follow."""
    if fresh:
        with contextlib.suppress(sqlite3.Error):  # a file system without shared memory
            conn.execute("PRAGMA journal_mode=WAL")
    statements = [s.strip() for s in _SCHEMA.split(";") if s.strip()]
    previous, conn.isolation_level = conn.isolation_level, None
    try:
        try:
            conn.execute("BEGIN IMMEDIATE")  # the write lock now: another study waits here
            empty = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        except sqlite3.DatabaseError:  # not a SQLite file: refused by the checks that follow
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return
        try:
            if empty:
                for statement in statements:
                    conn.execute(statement)
                conn.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)", _meta_rows(puzzle))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.isolation_level = previous


def _meta_rows(puzzle: Puzzle) -> list[tuple[str, str]]:
    return [
        ("study", STUDY_ID),
        ("version", str(SCHEMA_VERSION)),
        ("puzzle", puzzle.name),
        ("puzzle_hash", puzzle_hash(puzzle)),
        ("rows", str(puzzle.rows)),
        ("cols", str(puzzle.cols)),
        ("pieces", json.dumps(puzzle.pieces.tolist())),
        ("base_variant", base_variant(puzzle).to_json()),
        ("created", datetime.now(UTC).isoformat(timespec="seconds")),
    ]


def _owner() -> str:
    import psutil

    return f"{socket.gethostname()}:{os.getpid()}:{psutil.Process().create_time():.2f}"


def _drop_stale_claims(conn: sqlite3.Connection) -> None:
    """Claims of processes of this host that are gone (a run killed before it could remove
    them) no longer hold their jobs."""
    import psutil

    host = socket.gethostname()
    stale = []
    for job_id, owner in conn.execute("SELECT id, owner FROM claims"):
        name, _, rest = owner.partition(":")
        pid, _, start = rest.partition(":")
        if name != host:
            continue
        try:
            alive = abs(psutil.Process(int(pid)).create_time() - float(start)) < 0.05
        except (ValueError, psutil.Error):
            alive = False
        if not alive:
            stale.append((job_id,))
    with conn:
        conn.executemany("DELETE FROM claims WHERE id = ?", stale)


def claimed(conn: sqlite3.Connection, todo: Sequence[dict], owner: str, run) -> Iterator[dict]:
    """The jobs of ``todo`` this run may take, claimed one by one as the workers ask for them:
    a job finished or claimed by another study meanwhile is skipped (counted in
    ``run.elsewhere``)."""
    for job in todo:
        with conn:
            taken = conn.execute(
                "INSERT OR IGNORE INTO claims SELECT ?, ? WHERE NOT EXISTS "
                "(SELECT 1 FROM results WHERE id = ?)",
                (job["id"], owner, job["id"]),
            ).rowcount
        if taken == 1:
            yield job
        else:
            run.elsewhere += 1


def _finished_ids(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT id FROM results")}


def store_result(conn: sqlite3.Connection, job: dict, out: dict) -> None:
    """One result, one transaction: a crash after this line keeps it, before it loses only it.

    A result already there (two studies sharing a file ran the same job) is kept as it was."""
    variant = Variant.from_dict(job["variant"])
    row = {
        **{k: out[k] for k in _COLUMNS if k in out},
        "variant": variant.key,
        "params": variant.to_json(),
        "seed": job["seed"],
        "budget": json.dumps(job["budget"], sort_keys=True),
        "solved": int(out["solved"]),
        "verified": int(out["verified"]),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "heat": json.dumps(out["heat"]),
    }
    values = [row[c] for c in _COLUMNS]
    with conn:
        cur = conn.execute(
            f"INSERT OR IGNORE INTO results ({', '.join(_COLUMNS)}) VALUES "
            f"({', '.join('?' for _ in _COLUMNS)})",
            values,
        )
        if cur.rowcount == 1:
            # the digest of the values as SQLite stores them (read back: REAL and TEXT
            # round trips are exact, but read back all the same)
            stored = conn.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM results WHERE id = ?", (row["id"],)
            ).fetchone()
            conn.execute("INSERT OR REPLACE INTO checks VALUES (?, ?)",
                         (row["id"], _row_digest(stored)))  # fmt: skip


def check_study_path(path: object) -> Path:
    """A study file's name checked before any job: a writable folder, a SQLite suffix."""
    p = Path(path) if isinstance(path, (str, os.PathLike)) else path
    if isinstance(p, Path) and p.is_file():
        check_writable(
            p,
            "study file",
            "a study writes its results into it: run it on a copy in a folder of yours, or "
            "report on it with 'rompicapo edges study-report'",
        )
        return p  # an existing study is opened (and checked) by open_study
    return check_output_path(path, "study file", suffixes=STUDY_SUFFIXES)


# --------------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------------


def load_results(db: str | Path) -> list[dict]:
    """Every finished job of a study file as a dict (``params`` parsed into a Variant)."""
    conn = open_study(db, readonly=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        checks = (
            dict(conn.execute("SELECT id, sha256 FROM checks").fetchall())
            if "checks" in tables
            else None
        )
        raw = conn.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results ORDER BY finished, id"
        ).fetchall()
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()
    if checks is not None:
        for values in raw:
            if checks.get(values[0]) != _row_digest(values):
                raise StudyError(
                    f"{db}: result {values[0]} was edited or damaged (its checksum does not "
                    "match); refusing to trust the file"
                )
    rows = [dict(zip(_COLUMNS, values, strict=True)) for values in raw]
    for r in rows:
        r["variant_obj"] = Variant.from_json(r["params"])
        r["heat"] = loads_json(r["heat"], "a result's heat map", path=db)
        r["budget"] = loads_json(r["budget"], "a result's budget", path=db)
    for r in rows:
        r["meta"] = meta
    return rows


def begin_run(conn: sqlite3.Connection) -> tuple[str, set[str]]:
    """Before a run takes jobs: its owner name for the claims and the ids finished already
    (the claims of processes of this host that are gone are dropped first)."""
    owner = _owner()
    with conn:
        conn.execute(_CLAIMS)  # files made before claims existed
    _drop_stale_claims(conn)
    return owner, _finished_ids(conn)


def release_claims(conn: sqlite3.Connection, owner: str) -> None:
    """The run is over: its claims (jobs taken but not finished) go back to the pool."""
    with contextlib.suppress(sqlite3.Error), conn:
        conn.execute("DELETE FROM claims WHERE owner = ?", (owner,))
