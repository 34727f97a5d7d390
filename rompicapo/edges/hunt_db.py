"""The hunt's SQLite file: every new best board, the elite pool, the runs and a score trace.

One process writes (the hunt's coordinator); readers (``hunt-report``, the playground's hunt panel,
[`hunt_status()`][rompicapo.edges.hunt_status]) open it read-only while it runs. The file uses
write-ahead logging (readers never block the writer) and a busy timeout (a reader holding the lock a
moment makes the writer wait, not fail). Each board is written in its own transaction as soon as it
is verified, so a kill loses nothing that was recorded.

Tables:

- ``meta``: the file's kind and schema version, the puzzle (name, size, pieces, hash) and the
  clues; a file of another kind, version or puzzle is refused in one line;
- ``runs``: one row per ``hunt`` call: when it started, ``offset`` (hunt seconds before it:
  a resumed hunt's clock goes on where the last one stopped), its settings, jobs and seed, and
  when it ends, its seconds and task counts;
- ``boards``: the boards kept: ``kind`` is ``best`` (a new best score of the hunt when found)
  or ``elite`` (a member of the diverse pool that resumed hunts start from); each with its
  score, the hunt seconds and UTC time it was found, ``source`` (``restart`` or ``improve``),
  the task's seed and settings, and its placements (JSON ``[[row, col, piece, rotation],
  ...]``, 0-based piece numbers). Only boards the independent verifier accepted are written;
- ``samples``: about every ten seconds, the best score and the task counters (the report's
  score-over-time curve and the live status).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rompicapo.common import InputError, check_output_path, loads_json
from rompicapo.common.sqlite_files import check_writable, connect_sqlite, hold_exclusively
from rompicapo.edges.puzzle import Board, Puzzle

__all__ = [
    "HUNT_ID",
    "HUNT_SUFFIXES",
    "OPERATOR_SUMS",
    "SCHEMA_VERSION",
    "HuntDbError",
    "add_operators",
    "add_scores",
    "best_board",
    "check_hunt_path",
    "hunt_best",
    "hunt_status",
    "one_hunt",
    "open_hunt",
    "puzzle_hash",
]

HUNT_ID = "rompicapo.edges.hunt"
SCHEMA_VERSION = 1
# Hunt files are SQLite; any other name is most likely a slip (a board, a picture, a folder).
HUNT_SUFFIXES = (".sqlite", ".sqlite3", ".db")
# Seconds the writer waits for a reader holding the lock (a read takes milliseconds).
BUSY_SECONDS = 30

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,        -- UTC
    offset REAL NOT NULL,         -- hunt seconds before this run
    seconds REAL NOT NULL,        -- this run's seconds so far
    jobs INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    settings TEXT NOT NULL,       -- HuntSettings as JSON
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    restarts INTEGER NOT NULL,    -- Blackwood restarts finished
    improves INTEGER NOT NULL,    -- improver runs finished
    stopped TEXT                  -- why it ended (time, SIGTERM, SIGINT, ...), NULL while running
);
CREATE TABLE IF NOT EXISTS boards (
    id INTEGER PRIMARY KEY,
    run INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- best | elite
    score INTEGER NOT NULL,       -- matched joints, recounted by the verifier
    elapsed REAL NOT NULL,        -- hunt seconds when found (all runs)
    found TEXT NOT NULL,          -- UTC
    source TEXT NOT NULL,         -- restart | improve
    seed INTEGER NOT NULL,        -- the task's seed
    settings TEXT NOT NULL,       -- the task's settings as JSON
    placements TEXT NOT NULL,     -- [[row, col, piece, rotation], ...]
    verified INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS boards_score ON boards (score);
CREATE TABLE IF NOT EXISTS samples (
    run INTEGER NOT NULL,
    elapsed REAL NOT NULL,        -- hunt seconds (all runs)
    best INTEGER NOT NULL,
    restarts INTEGER NOT NULL,
    improves INTEGER NOT NULL,
    placements INTEGER NOT NULL,
    repairs INTEGER NOT NULL
);
"""


class HuntDbError(InputError):
    """A hunt file that cannot be used: not SQLite, damaged, another kind or puzzle."""


def puzzle_hash(puzzle: Puzzle) -> str:
    h = hashlib.sha256(f"{puzzle.rows}x{puzzle.cols}:".encode())
    h.update(np.ascontiguousarray(puzzle.pieces, dtype=np.int64).tobytes())
    return h.hexdigest()[:32]


def check_hunt_path(path: object) -> Path:
    """A hunt file's name checked before any work: an existing file (checked when opened), or
    a new name in a writable folder with a SQLite suffix."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"hunt file must be a file name, got {path!r}")
    p = Path(path)
    if p.is_dir():
        raise HuntDbError(f"{p}: is a directory, not a hunt file")
    if p.is_file():
        check_writable(
            p,
            "hunt file",
            "a hunt writes every new best into it: hunt on a copy in a folder of yours, or "
            "report on it with 'rompicapo edges hunt-report'",
        )
        return p
    return check_output_path(path, "hunt file", suffixes=HUNT_SUFFIXES)


def one_hunt(path: Path):
    """``with one_hunt(path):`` this process is the one hunt on the hunt file ``path`` (made
    empty if new); a second is refused in one line naming the running one."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return hold_exclusively(path, holder=lambda: _running_hunt(path))


# Seconds a refused hunt waits for the running one to have recorded its run (it takes the
# file, then records the run a moment later): long enough to name it in the message.
_NAME_WAIT = 2.0


def _running_hunt(path: Path) -> str:
    """Words naming the hunt that holds ``path``: its process, host and start."""
    import time

    import psutil

    end = time.monotonic() + _NAME_WAIT
    while True:
        try:
            conn = connect_sqlite(path, readonly=True, timeout=1.0)
            try:
                rows = conn.execute(
                    "SELECT pid, host, started FROM runs WHERE stopped IS NULL ORDER BY id DESC"
                ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            rows = []
        here = socket.gethostname()
        for pid, host, started in rows:  # runs never ended: the live one, not a killed one
            if host != here or psutil.pid_exists(int(pid)):
                return (
                    f"a hunt is already running on this file (process {pid} on {host}, "
                    f"started {started})"
                )
        if time.monotonic() > end:
            return "a hunt is already running on this file (it is starting)"
        time.sleep(0.1)


def _refuse(path: Path, why: str) -> HuntDbError:
    return HuntDbError(f"{path}: {why}")


def _connect(p: Path, readonly: bool) -> sqlite3.Connection:
    # A read-only connection cannot fold the write-ahead log back into the file when it closes,
    # so it would leave FILE-wal and FILE-shm behind: where the file may be written, a reader
    # opens it as any connection does (and only reads).
    # A file that may not be written is opened read-only, immutable when no log lies beside it:
    # nothing is then made beside it (see rompicapo.common.sqlite_files).
    try:
        return connect_sqlite(p, readonly=readonly, timeout=5 if readonly else BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise _refuse(p, f"cannot open ({exc})") from None


def open_hunt(
    path: str | Path,
    puzzle: Puzzle | None = None,
    clues: Board | None = None,
    *,
    create: bool = False,
    readonly: bool = False,
) -> sqlite3.Connection:
    """Open (with ``create``, make) a hunt file and check it is one: SQLite, undamaged, of
    this kind and schema version, and (``puzzle`` given) of this puzzle. Raises
    `HuntDbError` with a one-line reason otherwise."""
    p = Path(path)
    if p.is_dir():
        raise _refuse(p, "is a directory, not a hunt file")
    if p.exists() and not p.is_file():  # never opened: a FIFO would block, a device read
        raise _refuse(p, "is not a regular file (a FIFO, device or socket), not a hunt file")
    exists = p.exists() and p.stat().st_size > 0
    if not exists and not create:
        raise _refuse(p, "no such hunt file")
    if not exists and puzzle is None:
        raise _refuse(p, "a new hunt file needs its puzzle")
    conn = _connect(p, readonly and exists)
    try:
        if create and not exists:
            _create(conn, puzzle, clues)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()
        except sqlite3.OperationalError as exc:  # the file is there but cannot be read
            if "disk" in str(exc):  # a limit of the system (a full disk, a size limit)
                raise
            raise _refuse(p, f"cannot read it ({exc})") from None
        except sqlite3.DatabaseError:
            raise _refuse(p, "not a SQLite file, or a damaged one (not a rompicapo hunt)") from None
        if check is None or check[0] != "ok":
            raise _refuse(p, f"damaged SQLite file ({check[0] if check else 'no answer'})")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "boards", "runs", "samples"} <= tables:
            raise _refuse(p, "a SQLite file, but not a rompicapo edges hunt (no hunt tables)")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("kind") != HUNT_ID:
            raise _refuse(p, f"a SQLite file of another kind ({meta.get('kind')!r})")
        if meta.get("version") != str(SCHEMA_VERSION):
            raise _refuse(
                p,
                f"hunt schema version {meta.get('version')}, this rompicapo reads {SCHEMA_VERSION}",
            )
        if puzzle is not None and meta.get("puzzle_hash") != puzzle_hash(puzzle):
            raise _refuse(p, f"a hunt of another puzzle ({meta.get('puzzle')!r})")
        if clues is not None and meta.get("clues") != json.dumps(clues.placements()):
            raise _refuse(p, "a hunt with other clues (give the clues it was started with)")
        if not readonly:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA journal_mode=WAL")
        return conn
    except BaseException:
        conn.close()
        raise


def _create(conn: sqlite3.Connection, puzzle: Puzzle, clues: Board | None) -> None:
    with contextlib.suppress(sqlite3.Error):  # a file system without shared memory
        conn.execute("PRAGMA journal_mode=WAL")
    clue_list = (clues if clues is not None else Board.empty(puzzle.rows, puzzle.cols)).placements()
    meta = [
        ("kind", HUNT_ID),
        ("version", str(SCHEMA_VERSION)),
        ("puzzle", puzzle.name),
        ("puzzle_hash", puzzle_hash(puzzle)),
        ("rows", str(puzzle.rows)),
        ("cols", str(puzzle.cols)),
        ("max_score", str(puzzle.n_joints)),
        ("pieces", json.dumps(puzzle.pieces.tolist())),
        ("clues", json.dumps(clue_list)),
        ("created", _now()),
    ]
    previous, conn.isolation_level = conn.isolation_level, None
    try:
        try:
            conn.execute("BEGIN IMMEDIATE")
            empty = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        except sqlite3.DatabaseError:  # not SQLite: refused by the checks that follow
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return
        try:
            if empty:
                for statement in (s.strip() for s in _SCHEMA.split(";")):
                    if statement:
                        conn.execute(statement)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", meta)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.isolation_level = previous


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------
# Writing (the coordinator only)
# --------------------------------------------------------------------------------------------


def start_run(conn: sqlite3.Connection, jobs: int, seed: int, settings: dict) -> tuple[int, float]:
    """Add this call's run; return its id and the hunt seconds before it."""
    with conn:
        offset = conn.execute("SELECT coalesce(sum(seconds), 0) FROM runs").fetchone()[0]
        cur = conn.execute(
            "INSERT INTO runs (started, offset, seconds, jobs, seed, settings, host, pid, "
            "restarts, improves) VALUES (?, ?, 0, ?, ?, ?, ?, ?, 0, 0)",
            (
                _now(),
                offset,
                jobs,
                seed,
                json.dumps(settings, sort_keys=True),
                socket.gethostname(),
                os.getpid(),
            ),
        )
    return int(cur.lastrowid), float(offset)


def end_run(
    conn: sqlite3.Connection, run: int, seconds: float, counts: dict, stopped: str | None
) -> None:
    with conn:
        conn.execute(
            "UPDATE runs SET seconds = ?, restarts = ?, improves = ?, stopped = ? WHERE id = ?",
            (seconds, counts.get("restarts", 0), counts.get("improves", 0), stopped or "end", run),
        )


def add_board(conn: sqlite3.Connection, run: int, kind: str, row: dict) -> int:
    """One verified board, one transaction."""
    with conn:
        cur = conn.execute(
            "INSERT INTO boards (run, kind, score, elapsed, found, source, seed, settings, "
            "placements, verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
            (
                run,
                kind,
                int(row["score"]),
                float(row["elapsed"]),
                _now(),
                row["source"],
                int(row["seed"]),
                json.dumps(row.get("settings", {}), sort_keys=True),
                json.dumps(row["placements"]),
            ),
        )
    return int(cur.lastrowid)


def replace_elites(conn: sqlite3.Connection, run: int, elites: list[dict]) -> None:
    """The pool as it is now (best boards are kept apart and never removed)."""
    with conn:
        conn.execute("DELETE FROM boards WHERE kind = 'elite'")
        conn.executemany(
            "INSERT INTO boards (run, kind, score, elapsed, found, source, seed, settings, "
            "placements, verified) VALUES (?, 'elite', ?, ?, ?, ?, ?, ?, ?, 1)",
            [
                (
                    run,
                    int(e["score"]),
                    float(e["elapsed"]),
                    _now(),
                    e["source"],
                    int(e["seed"]),
                    json.dumps(e.get("settings", {}), sort_keys=True),
                    json.dumps(e["placements"]),
                )
                for e in elites
            ],
        )


def add_sample(conn: sqlite3.Connection, run: int, elapsed: float, best: int, c: dict) -> None:
    with conn:
        conn.execute(
            "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                run,
                elapsed,
                best,
                c.get("restarts", 0),
                c.get("improves", 0),
                c.get("placements", 0),
                c.get("repairs", 0),
            ),
        )
        conn.execute(
            "UPDATE runs SET seconds = ?, restarts = ?, improves = ? WHERE id = ?",
            (elapsed - _offset(conn, run), c.get("restarts", 0), c.get("improves", 0), run),
        )


def save_parts(conn: sqlite3.Connection, run: int, parts: dict) -> None:
    """What each part of run ``run`` did so far (`HuntResult.parts`), kept in the file's
    ``meta`` table under ``parts/<run>`` (a file from an earlier release simply has none)."""
    with conn:
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            (f"parts/{run}", json.dumps(parts, sort_keys=True)),
        )


def read_parts(conn: sqlite3.Connection) -> list[dict]:
    """Each run's parts, as `save_parts` kept them, in the order of the runs."""
    rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE 'parts/%'").fetchall()
    by_run = sorted((int(k.split("/", 1)[1]), v) for k, v in rows if k.split("/", 1)[1].isdigit())
    return [loads_json(v, "a run's parts") for _, v in by_run]


def _offset(conn: sqlite3.Connection, run: int) -> float:
    return float(conn.execute("SELECT offset FROM runs WHERE id = ?", (run,)).fetchone()[0])


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def read_meta(conn: sqlite3.Connection) -> dict:
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def puzzle_of(meta: dict) -> Puzzle:
    pieces = np.array(loads_json(meta["pieces"], "the hunt's pieces"), dtype=np.int16)
    return Puzzle(int(meta["rows"]), int(meta["cols"]), pieces, meta.get("puzzle") or "hunt")


_BOARD_COLUMNS = (
    "id",
    "run",
    "kind",
    "score",
    "elapsed",
    "found",
    "source",
    "seed",
    "settings",
    "placements",
)


def read_boards(conn: sqlite3.Connection, kind: str | None = None) -> list[dict]:
    """Boards in the order found (``kind`` None: all)."""
    sql = f"SELECT {', '.join(_BOARD_COLUMNS)} FROM boards"
    args: tuple = ()
    if kind is not None:
        sql, args = sql + " WHERE kind = ?", (kind,)
    rows = [
        dict(zip(_BOARD_COLUMNS, r, strict=True)) for r in conn.execute(sql + " ORDER BY id", args)
    ]
    for r in rows:
        r["placements"] = loads_json(r["placements"], "a board of the hunt")
        r["settings"] = loads_json(r["settings"], "a board's settings")
    return rows


def read_runs(conn: sqlite3.Connection) -> list[dict]:
    cols = ("id", "started", "offset", "seconds", "jobs", "seed", "restarts", "improves", "stopped")
    return [
        dict(zip(cols, r, strict=True))
        for r in conn.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY id")
    ]


def read_samples(conn: sqlite3.Connection) -> list[dict]:
    cols = ("run", "elapsed", "best", "restarts", "improves", "placements", "repairs")
    return [
        dict(zip(cols, r, strict=True))
        for r in conn.execute(f"SELECT {', '.join(cols)} FROM samples ORDER BY elapsed")
    ]


def hunt_status(path: str | Path) -> dict:
    """A hunt file's state for a poller (the playground's panel, a script): read-only, never
    writes. ``best`` (score, hunt seconds, source, placements), ``max_score``, ``seconds``
    (hunt seconds over all runs), ``running`` (the last run has not ended), ``runs``,
    ``boards``, ``bests`` (``[seconds, score, source]`` of each new best), ``last``
    (the latest sample: restarts, improves, placements, repairs) and ``operators`` (the
    improver's destroy operators in the latest run that ran it: uses, improved, best, gain,
    weight)."""
    conn = open_hunt(path, readonly=True)
    try:
        meta = read_meta(conn)
        runs = read_runs(conn)
        bests = read_boards(conn, "best")
        samples = conn.execute(
            "SELECT elapsed, best, restarts, improves, placements, repairs FROM samples "
            "ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        n_boards = conn.execute("SELECT count(*) FROM boards").fetchone()[0]
        run_parts = read_parts(conn)
    finally:
        conn.close()
    best = max(bests, key=lambda b: (b["score"], -b["id"]), default=None)
    last_run = runs[-1] if runs else None
    seconds = sum(r["seconds"] for r in runs)
    return {
        "puzzle": meta.get("puzzle"),
        "size": [int(meta["rows"]), int(meta["cols"])],
        "max_score": int(meta["max_score"]),
        "best": None
        if best is None
        else {k: best[k] for k in ("score", "elapsed", "found", "source", "seed", "placements")},
        "seconds": round(seconds, 3),
        "running": bool(last_run and last_run["stopped"] is None),
        "runs": len(runs),
        "boards": int(n_boards),
        "bests": [[round(b["elapsed"], 3), b["score"], b["source"]] for b in bests],
        "operators": _latest_operators(run_parts),
        "last": None
        if samples is None
        else dict(
            zip(
                ("seconds", "best", "restarts", "improves", "placements", "repairs"),
                samples,
                strict=True,
            )
        ),
    }


# What is summed of a destroy operator over the improver's runs; its weight is the latest run's.
OPERATOR_SUMS = ("uses", "improved", "best", "gain")


def add_operators(total: dict, operators: dict) -> None:
    """Add one improver run's (or one hunt run's) destroy ``operators`` into ``total``:
    `OPERATOR_SUMS` summed, the weight replaced by the later one."""
    for op, st in operators.items():
        mine = total.setdefault(op, dict.fromkeys(OPERATOR_SUMS, 0))
        for key in OPERATOR_SUMS:
            mine[key] += int(st.get(key, 0))
        mine["weight"] = round(float(st.get("weight", 0.0)), 3)


def add_scores(total: dict, scores: dict) -> None:
    """Add boards counted by score (``{"464": 2, ...}``, one task's or one run's) into
    ``total``, kept with the highest score first."""
    merged = dict(total)
    for score, n in scores.items():
        merged[str(score)] = merged.get(str(score), 0) + int(n)
    total.clear()
    total.update(sorted(merged.items(), key=lambda kv: -int(kv[0])))


def _latest_operators(run_parts: list[dict]) -> dict:
    """The improver's destroy operators in the latest run that ran the improver."""
    for parts in reversed(run_parts):
        ops = (parts.get("improve") or {}).get("operators")
        if ops:
            return ops
    return {}


def best_board(conn: sqlite3.Connection) -> tuple[int, list] | None:
    """The hunt file's best board as committed: ``(score, placements)``, None before one."""
    row = conn.execute(
        "SELECT score, placements FROM boards WHERE kind = 'best' ORDER BY score DESC, id LIMIT 1"
    ).fetchone()
    return None if row is None else (int(row[0]), loads_json(row[1], "a board of the hunt"))


def hunt_best(path: str | Path) -> tuple[Puzzle, Board | None]:
    """A hunt file's puzzle and best board (None before the first), read-only."""
    from rompicapo.edges.puzzle import placements_board

    conn = open_hunt(path, readonly=True)
    try:
        puzzle = puzzle_of(read_meta(conn))
        row = conn.execute(
            "SELECT placements FROM boards WHERE kind = 'best' ORDER BY score DESC, id LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    if row is None:
        return puzzle, None
    placements = loads_json(row[0], "a board of the hunt")
    return puzzle, placements_board(puzzle.rows, puzzle.cols, placements)
