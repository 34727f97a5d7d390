"""Parameter studies of Blackwood's search (issue 8): Jef Bucas's sweep, on Dask and SQLite.

Blackwood set three things by hand: the *prioritised colours* (one frame colour and two inner
colours whose sides the search must gather early), the *quota curve* (how many sides in those
colours the board must hold at each position of the fill order, up to position 160 of 256) and
the *break indexes* (the positions from which one more mismatched joint is allowed). Bucas
generated variants of these, ran each for a fixed time and plotted how deep each got. This
module does the same with real parts:

- a :class:`Variant` is one setting of the three (plain tuples, JSON round trip, a stable key);
- :func:`plan_jobs` makes the sweep: Blackwood's own setting with many seeds (the reference
  band), then one factor moved at a time around it: every (or a sample of the) frame colour x
  inner-colour pair sets, random perturbations of the quota curve, random shifts of the break
  indexes, each with ``seeds`` seeds;
- :func:`run_job` runs one variant single-threaded for a node budget (reproducible: the same
  job gives the same counts on any machine and under any load) and/or a time budget;
- :func:`run_study` runs the jobs on local processes or a Dask cluster and writes each result
  into a SQLite file in its own transaction as it arrives. A job's identity is a hash of the
  puzzle, parameters, seed and budget: finished jobs are never rerun, so an interrupted study
  (Ctrl-C, a killed machine, ``max_results``) resumes where it stopped;
- :func:`study` is the ``rompicapo edges study`` command as one call (the budget, the
  design, the file checked before any job);
- :mod:`rompicapo.edges.study_report` turns the file into a summary table and plots (it
  imports this module; this module does not import it).

Quota curves are stored in the units of Blackwood's curve (122 heuristic sides, his colours on
Eternity II) and rescaled when a job starts to the number of sides the job's colours cover, so
"Blackwood's curve" means the same demand, as a fraction of what is available, for every
colour set.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rompicapo.common import (
    InputError,
    Progress,
    ProgressCallback,
    RompicapoError,
    SearchResult,
    check_int,
    check_node_limit,
    check_output_path,
    check_time_limit,
    connect_scheduler,
    loads_json,
    run_jobs,
)
from rompicapo.edges.blackwood import (
    BLACKWOOD_BREAK_INDEXES,
    BLACKWOOD_HEURISTIC_COLOURS,
    BLACKWOOD_HEURISTIC_SIDES,
    BLACKWOOD_MAX_QUOTA_INDEX,
    BLACKWOOD_NODE_CAP,
    BUCAS_BREAK_INDEXES,
    Settings,
    heuristic_colours,
    quota_schedule,
    search,
)
from rompicapo.edges.puzzle import Board, Puzzle, eternity2_clues, load_clues, load_puzzle

__all__ = [
    "SCHEMA_VERSION",
    "STUDY_ID",
    "Budget",
    "Design",
    "StudyError",
    "StudyRun",
    "Variant",
    "base_variant",
    "colour_sets",
    "load_results",
    "open_study",
    "perturb_breaks",
    "perturb_quota",
    "plan_jobs",
    "run_job",
    "run_study",
    "study",
]

# The metadata table names the study kind and schema version: any other SQLite file (or an
# older layout) is refused with a one-line message instead of a traceback halfway through.
STUDY_ID = "rompicapo.edges.study"
SCHEMA_VERSION = 1
# Knots of Blackwood's piecewise-linear quota curve (positions of 256, reference §4): a curve
# perturbation multiplies the curve by a factor drawn at each knot, linear in between, so the
# variants keep his shape class (piecewise linear, rising) and move each segment.
QUOTA_KNOTS = (16, 26, 56, 76, 102, BLACKWOOD_MAX_QUOTA_INDEX)
# Study files are SQLite; any other name is most likely a slip (a report folder, a board).
STUDY_SUFFIXES = (".sqlite", ".sqlite3", ".db")


class StudyError(RompicapoError):
    """The SQLite file is not a usable study (corrupted, foreign, other puzzle, other version)."""


# --------------------------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One setting of Blackwood's hand-set parameters.

    ``heuristic``: the prioritised colours (sorted); ``quota[i]``: heuristic sides required once
    position ``i`` is filled, in the units of Blackwood's curve (rescaled per colour set when a
    job starts, see the module docstring); ``breaks``: the break indexes (sorted).
    """

    heuristic: tuple[int, ...]
    quota: tuple[int, ...]
    breaks: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "heuristic", tuple(sorted(int(c) for c in self.heuristic)))
        object.__setattr__(self, "quota", tuple(int(q) for q in self.quota))
        object.__setattr__(self, "breaks", tuple(sorted(int(b) for b in self.breaks)))

    def to_dict(self) -> dict:
        return {"heuristic": list(self.heuristic), "quota": list(self.quota),
                "breaks": list(self.breaks)}  # fmt: skip

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no spaces): equal variants give equal text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> Variant:
        try:
            return cls(tuple(data["heuristic"]), tuple(data["quota"]), tuple(data["breaks"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"not a study variant: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> Variant:
        data = loads_json(text, "a study variant")
        if not isinstance(data, dict):
            raise InputError("not a study variant: expected a JSON object")
        return cls.from_dict(data)

    @property
    def key(self) -> str:
        """Short stable hash of the parameters (the same on every machine and run)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]


def _base_quota(n_cells: int) -> tuple[int, ...]:
    if n_cells == 256:
        return tuple(int(q) for q in quota_schedule(256, "blackwood", BLACKWOOD_HEURISTIC_SIDES))
    return tuple(int(q) for q in quota_schedule(n_cells, "scaled", BLACKWOOD_HEURISTIC_SIDES))


def _base_breaks(n_cells: int) -> tuple[int, ...]:
    if n_cells == 256:
        return BLACKWOOD_BREAK_INDEXES
    return tuple(round(p * n_cells / 256) for p in BLACKWOOD_BREAK_INDEXES)


def base_variant(puzzle: Puzzle) -> Variant:
    """Blackwood's setting for this puzzle: his colours, curve and breaks on Eternity II; on
    other sizes the same rules scaled (rarest frame colour and two rarest inner colours)."""
    n = puzzle.rows * puzzle.cols
    colours = BLACKWOOD_HEURISTIC_COLOURS if puzzle.is_eternity2 else heuristic_colours(puzzle)
    return Variant(colours, _base_quota(n), _base_breaks(n))


def colour_sets(puzzle: Puzzle) -> list[tuple[int, int, int]]:
    """Every (frame colour, inner colour a < inner colour b) set, sorted (680 on Eternity II:
    5 frame colours x C(17, 2) inner pairs)."""
    frame = sorted(puzzle.frame_colours)
    used = set(np.unique(puzzle.pieces).tolist()) - {0}
    inner = sorted(used - set(frame))
    return [(f, a, b) for f in frame for a, b in itertools.combinations(inner, 2)]


def perturb_quota(
    base: Sequence[int],
    rng: np.random.Generator,
    amplitude: float = 0.2,
    level_spread: float = 0.0,
) -> tuple[int, ...]:
    """A random variation of a quota curve: the curve times a factor drawn uniformly from
    ``1 +- amplitude`` at each of Blackwood's knots (scaled to the curve's length), linear in
    between, all times one level ``1 +- level_spread`` (so that whole curves below and above
    his are drawn, not only wiggles around it); truncated to integers, kept non-decreasing
    where the quota applies and at most the sides available (122 in the curve's units)."""
    base_arr = np.asarray(base, dtype=np.float64)
    n = len(base_arr)
    knots = np.array([0] + [round(k * n / 256) for k in QUOTA_KNOTS] + [n - 1], dtype=np.float64)
    factors = 1.0 + rng.uniform(-amplitude, amplitude, size=len(knots))
    if level_spread > 0:  # drawn only then: designs without it keep their curves
        factors *= 1.0 + rng.uniform(-level_spread, level_spread)
    f = np.interp(np.arange(n), knots, factors)
    out = np.floor(base_arr * f).astype(np.int64)
    active = base_arr > 0
    out[~active] = 0
    # never more sides than the set has (in these units Blackwood's 122): such a quota can
    # never be met and would only measure a dead search
    out[active] = np.minimum(np.maximum.accumulate(out[active]), BLACKWOOD_HEURISTIC_SIDES)
    return tuple(int(q) for q in out)


def perturb_breaks(
    base: Sequence[int], n_cells: int, rng: np.random.Generator, shift: int = 6
) -> tuple[int, ...]:
    """Blackwood's break indexes each moved by a uniform integer in ``-shift..shift`` (kept
    inside the board; two indexes may coincide: two breaks allowed from that position)."""
    moved = np.asarray(base, dtype=np.int64) + rng.integers(-shift, shift + 1, size=len(base))
    return tuple(sorted(int(x) for x in np.clip(moved, 1, n_cells - 1)))


@dataclass(frozen=True)
class Design:
    """The sweep: which variants, how many seeds each.

    ``colour_sets``: ``"all"`` (every frame colour x inner pair), ``"sample:N"`` (N of them at
    random), ``"list:13-10-16,5-3-8"`` (these sets, e.g. to confirm the best of a screen with
    more seeds) or ``"none"``; ``curves``: random quota curves;
    ``break_variants``: random break-index sets (plus Bucas's on 256 cells); ``seeds`` per
    variant and ``baseline_seeds`` for Blackwood's own setting (the reference band);
    ``amplitude``, ``level_spread`` (see :func:`perturb_quota`) and ``break_shift`` size the
    random perturbations; ``design_seed`` draws them (same design seed, same jobs: a rerun resumes).
    """

    colour_sets: str = "sample:20"
    curves: int = 20
    break_variants: int = 5
    seeds: int = 2
    baseline_seeds: int = 10
    amplitude: float = 0.2
    break_shift: int = 6
    design_seed: int = 0
    level_spread: float = 0.0

    def __post_init__(self) -> None:
        # Counts are bounded: a design of more than a million jobs is a typo, and an unbounded
        # count would plan jobs until memory ran out.
        for name in ("curves", "break_variants", "seeds", "baseline_seeds"):
            check_int(getattr(self, name), name.replace("_", " "), minimum=0, maximum=10_000)
        check_int(self.break_shift, "break shift", minimum=0, maximum=1024)
        check_int(self.design_seed, "design seed", minimum=0, maximum=2**63 - 1)
        for name, value in (("amplitude", self.amplitude), ("level spread", self.level_spread)):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (0 <= value < 1)
            ):
                raise InputError(f"{name} must be a number in [0, 1), got {value!r}")
        if not isinstance(self.colour_sets, str):
            raise InputError(f"colour sets must be text, got {self.colour_sets!r}")

    def chosen_colour_sets(
        self, available: list[tuple[int, ...]], rng: np.random.Generator
    ) -> list[tuple[int, ...]]:
        """The colour sets this design runs (draws from ``rng`` only for a sample)."""
        spec = self.colour_sets
        if spec == "all":
            return list(available)
        if spec == "none":
            return []
        kind, _, arg = spec.partition(":")
        if kind == "sample" and arg.isdigit():
            k = int(arg)
            if k >= len(available):
                return list(available)
            picks = rng.choice(len(available), size=k, replace=False)
            return [available[i] for i in sorted(picks.tolist())]
        if kind == "list" and arg:
            try:
                sets = [tuple(int(c) for c in part.split("-")) for part in arg.split(",")]
            except ValueError:
                sets = []
            if sets and all(len(cs) >= 1 for cs in sets):
                return sets
        raise InputError(
            f"colour sets must be 'all', 'sample:N', 'list:F-A-B,F-A-B...' or 'none', got {spec!r}"
        )


@dataclass(frozen=True)
class Budget:
    """How long each job runs: ``nodes`` (reproducible) and/or ``seconds`` (first one hit)."""

    nodes: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.nodes is None and self.seconds is None:
            raise InputError("a study job needs a node or a time budget")
        object.__setattr__(self, "nodes", check_node_limit(self.nodes, "node budget"))
        object.__setattr__(self, "seconds", check_time_limit(self.seconds, "time budget"))


def _puzzle_hash(puzzle: Puzzle) -> str:
    text = json.dumps([puzzle.rows, puzzle.cols, puzzle.pieces.tolist()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _job_id(puzzle_hash: str, clues: list, variant: Variant, seed: int, budget: Budget) -> str:
    ident = json.dumps(
        [puzzle_hash, clues, variant.to_dict(), seed, asdict(budget)],
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


def plan_jobs(
    puzzle: Puzzle,
    design: Design,
    budget: Budget,
    clues: Board | None = None,
) -> list[dict]:
    """The study's jobs (plain dicts, ready for a process or a Dask worker), in a shuffled but
    fixed order so that a study cut short holds a balanced sample of every factor.

    Duplicates (the same variant and seed scheduled by two factors) appear once.
    """
    n = puzzle.rows * puzzle.cols
    if clues is None:
        clues = (
            eternity2_clues("centre")
            if puzzle.is_eternity2
            else Board.empty(puzzle.rows, puzzle.cols)
        )
    rng = np.random.default_rng(design.design_seed)
    base = base_variant(puzzle)
    for name, value in (
        ("seeds", design.seeds),
        ("baseline seeds", design.baseline_seeds),
        ("curves", design.curves),
        ("break variants", design.break_variants),
    ):
        if value < 0:
            raise InputError(f"{name} must be at least 0, got {value}")  # fmt: skip
    if not 0 <= design.amplitude < 1:
        raise InputError(f"curve amplitude must be in [0, 1), got {design.amplitude}")
    variants: list[tuple[Variant, int]] = [(base, design.baseline_seeds)]
    chosen = design.chosen_colour_sets(colour_sets(puzzle), rng)
    present = set(np.unique(puzzle.pieces).tolist()) - {0}
    for cs in chosen:
        if not set(cs) <= present:
            raise InputError(
                f"colour set {'-'.join(map(str, cs))} names colours the puzzle does not have "
                f"(1..{puzzle.max_colour})"
            )
    variants += [(Variant(cs, base.quota, base.breaks), design.seeds) for cs in chosen]
    for _ in range(design.curves):
        curve = perturb_quota(base.quota, rng, design.amplitude, design.level_spread)
        variants.append((Variant(base.heuristic, curve, base.breaks), design.seeds))
    if design.break_variants and n == 256:
        variants.append((Variant(base.heuristic, base.quota, BUCAS_BREAK_INDEXES), design.seeds))
    variants += [
        (Variant(base.heuristic, base.quota,
                 perturb_breaks(base.breaks, n, rng, design.break_shift)), design.seeds)
        for _ in range(design.break_variants)
    ]  # fmt: skip
    ph = _puzzle_hash(puzzle)
    clue_list = [list(map(int, c)) for c in clues.placements()]
    jobs: dict[str, dict] = {}
    for variant, n_seeds in variants:
        for seed in range(n_seeds):
            jid = _job_id(ph, clue_list, variant, seed, budget)
            jobs.setdefault(
                jid,
                {
                    "id": jid,
                    "puzzle": {"rows": puzzle.rows, "cols": puzzle.cols, "name": puzzle.name,
                               "pieces": puzzle.pieces.tolist(), "hash": ph},
                    "clues": clue_list,
                    "variant": variant.to_dict(),
                    "seed": seed,
                    "budget": asdict(budget),
                },
            )  # fmt: skip
    out = list(jobs.values())
    order = np.random.default_rng(design.design_seed + 1).permutation(len(out))
    return [out[i] for i in order.tolist()]


# --------------------------------------------------------------------------------------------
# One job
# --------------------------------------------------------------------------------------------

_puzzles: dict[str, Puzzle] = {}


def _puzzle_of(spec: dict) -> Puzzle:
    """The job's puzzle, built once per worker process."""
    p = spec["puzzle"]
    if p["hash"] not in _puzzles:
        _puzzles[p["hash"]] = Puzzle(
            p["rows"], p["cols"], np.array(p["pieces"], dtype=np.int16), p["name"]
        )
    return _puzzles[p["hash"]]


# Set in a process that saw Ctrl-C during a job: a local worker process then refuses the jobs
# already queued to it (the parent is stopping and would wait for them); run_study clears it.
_interrupted = False


def run_job(spec: dict) -> dict:
    """Run one study job (a dict from :func:`plan_jobs`) in this thread and return its row.

    Restarts with new tie-breaks at Blackwood's node cap until the budget is spent (a node
    budget makes the run reproducible). ``depth`` is the most pieces placed at once, ``score``
    the best partial board's matched joints (checked by the independent verifier), ``heat``
    the forward placements per cell.
    """
    global _interrupted
    if _interrupted:
        raise KeyboardInterrupt
    try:
        return _run_job(spec)
    except KeyboardInterrupt:
        _interrupted = True
        raise


def _run_job(spec: dict) -> dict:
    puzzle = _puzzle_of(spec)
    clues = Board.empty(puzzle.rows, puzzle.cols)
    for r, c, k, rot in spec["clues"]:
        clues.piece[r, c], clues.rotation[r, c] = k, rot
    variant = Variant.from_dict(spec["variant"])
    budget = Budget(**spec["budget"])
    # The curve is in units of Blackwood's 122 sides: rescale to this colour set's sides.
    sides = int(np.isin(puzzle.pieces, np.array(variant.heuristic, dtype=np.int16)).sum())
    ratio = sides / BLACKWOOD_HEURISTIC_SIDES
    settings = Settings(
        order="blackwood",
        quota=tuple(int(q * ratio) for q in variant.quota),
        breaks=variant.breaks,
        heuristic=variant.heuristic,
        node_cap=BLACKWOOD_NODE_CAP,
        quota_scale=1.0,
        value_order="table",  # Blackwood's kernel, whatever the variant
    )
    # The public search: restarts with new tie-breaks at the node cap until the budget is
    # spent (tables built at each restart count as search time).
    res = search(
        puzzle,
        clues,
        settings=settings,
        time_limit=budget.seconds,
        node_limit=budget.nodes,
        seed=spec["seed"],
    )
    if res.interrupted:  # search keeps Ctrl-C to itself; a study job passes it on
        raise KeyboardInterrupt
    heat = res.heat if res.heat is not None else np.zeros((puzzle.rows, puzzle.cols), int)
    return {
        "id": spec["id"],
        "depth": res.deepest,
        "score": res.search_score,
        "score_depth": res.search_depth,
        "placements": int(res.counts["placements"]),
        "nodes": int(res.counts["nodes"]),
        "restarts": int(res.counts["restarts"]),
        "solved": bool(res.solved),
        "seconds": res.solve_seconds,
        "cpu_seconds": res.cpu_seconds,
        "setup_seconds": 0.0,
        "compile_seconds": res.compile_seconds,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "verified": bool(res.verify()),
        "heat": heat.ravel().tolist(),
    }


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


def open_study(path: str | Path, puzzle: Puzzle | None = None, *, create: bool = False):
    """Open (or, with ``create``, make) a study file and check it is one.

    Raises :class:`StudyError` with a one-line reason for a file that is not SQLite or is
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
        conn = sqlite3.connect(p, timeout=_BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise _refuse(p, f"cannot open ({exc})") from None
    try:
        if not exists and puzzle is None:
            raise StudyError(f"{p}: a new study file needs its puzzle")
        if create and puzzle is not None:
            _create(conn, puzzle, fresh=not exists)
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()
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
        if puzzle is not None and meta.get("puzzle_hash") != _puzzle_hash(puzzle):
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
        ("puzzle_hash", _puzzle_hash(puzzle)),
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


def _claimed(conn: sqlite3.Connection, todo: Sequence[dict], owner: str, run) -> Iterator[dict]:
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


def _store(conn: sqlite3.Connection, job: dict, out: dict) -> None:
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


@dataclass
class StudyRun(SearchResult):
    """What one call of :func:`run_study` did."""

    planned: int = 0  # jobs in the design
    already_done: int = 0  # found finished in the file
    ran: int = 0  # finished and written by this call
    elsewhere: int = 0  # taken by another study running on the same file
    interrupted: bool = False  # Ctrl-C (or max_results) stopped it before the end
    seconds: float = 0.0
    placements: int = 0
    cpu_seconds: float = 0.0
    workers: set = field(default_factory=set)
    db: str | None = None
    best_score: int | None = None  # best score among the jobs run now
    note: str | None = None

    _dict_exclude = ("workers", "solve_seconds", "compile_seconds", "peak_bytes", "counts",
                     "best_score", "note")  # fmt: skip

    @property
    def remaining(self) -> int:
        return self.planned - self.already_done - self.ran

    def verify(self) -> bool:
        """Every result this call wrote was verified by its job (the verifier's recount)."""
        from rompicapo.common import NotVerifiable

        raise NotVerifiable(
            "a study run is checked job by job (the 'verified' column of the study file)"
        )

    def _dict_extra(self) -> dict:
        return {
            "remaining": self.remaining,
            "seconds": round(self.seconds, 3),
            "placements_per_second": round(self.placements / self.seconds) if self.seconds else 0,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "workers": len(self.workers),
        }

    def report(self) -> str:
        d = self.to_dict()
        state = "interrupted" if self.interrupted else "done"
        text = (
            f"{state}: {self.ran} jobs run now, {self.already_done} found finished, "
            f"{self.remaining} left of {self.planned}; "
            f"{d['placements_per_second'] / 1e6:.1f} M placements/s over {d['workers']} "
            f"workers; results in {self.db}\n"
        )
        if self.elsewhere:
            text += (
                f"{self.elsewhere} of them taken by another study of the same file (a rerun "
                "picks up any it does not finish)\n"
            )
        if self.note:
            text += f"note: {self.note}\n"
        if self.remaining > self.elsewhere:
            text += "rerun the same command to resume (finished jobs are not run again)\n"
        return text


def check_study_path(path: object) -> Path:
    """A study file's name checked before any job: a writable folder, a SQLite suffix."""
    p = Path(path) if isinstance(path, (str, os.PathLike)) else path
    if isinstance(p, Path) and p.is_file():
        return p  # an existing study is opened (and checked) by open_study
    return check_output_path(path, "study file", suffixes=STUDY_SUFFIXES)


def run_study(
    db: str | Path,
    puzzle: Puzzle,
    design: Design | None = None,
    budget: Budget | None = None,
    *,
    clues: Board | None = None,
    jobs: int | None = None,
    scheduler: object | None = None,
    max_results: int | None = None,
    on_result: Callable[[dict, dict], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    job_func: Callable[[dict], dict] = run_job,
) -> StudyRun:
    """Run the study's unfinished jobs and write each result to ``db`` as it arrives.

    ``jobs``: local processes (default all cores; 1 = in this process); ``scheduler``: a Dask
    scheduler address (or ``distributed.Client``) instead. ``max_results`` stops after that many
    new results (a job budget; the rest stays for the next call). Ctrl-C stops too; both keep
    every finished result and report ``interrupted``. ``on_start(n)`` hears how many jobs were
    found finished, ``on_result(job, row)`` sees each new result after it is stored.
    """
    global _interrupted
    _interrupted = False
    design = design or Design()
    budget = budget or Budget(seconds=10.0)
    if max_results is not None:
        max_results = check_int(max_results, "max results", minimum=1, maximum=10**18)
    if jobs is not None:
        jobs = check_int(jobs, "jobs", minimum=1, maximum=4096)
    planned = plan_jobs(puzzle, design, budget, clues)
    check_study_path(db)
    t0 = time.perf_counter()
    client = None
    # The scheduler is reached (or refused in one line) before the study file is created, so
    # a wrong address leaves nothing behind.
    if isinstance(scheduler, str):
        scheduler = client = connect_scheduler(scheduler)
    try:
        conn = open_study(db, puzzle, create=True)
    except BaseException:
        if client is not None:
            client.close()
        raise
    owner = _owner()
    try:
        with conn:
            conn.execute(_CLAIMS)  # files made before claims existed
        _drop_stale_claims(conn)
        done = _finished_ids(conn)
        todo = [j for j in planned if j["id"] not in done]
        run = StudyRun(planned=len(planned), already_done=len(planned) - len(todo), db=str(db))
        if on_start is not None:
            on_start(run.already_done)
        if todo:
            mine = _claimed(conn, todo, owner, run)
            _run_into(conn, run, mine, job_func, jobs, scheduler, max_results, on_result)
    finally:
        with contextlib.suppress(sqlite3.Error), conn:
            conn.execute("DELETE FROM claims WHERE owner = ?", (owner,))
        conn.close()
        if client is not None:
            client.close()
    run.seconds = time.perf_counter() - t0
    return run


def _run_into(conn, run, todo, job_func, jobs, scheduler, max_results, on_result) -> None:
    it = run_jobs(job_func, todo, n_jobs=jobs, scheduler=scheduler)
    try:
        for job, out in it:
            _store(conn, job, out)
            run.ran += 1
            run.placements += int(out["placements"])
            run.cpu_seconds += float(out["cpu_seconds"])
            run.workers.add((out["host"], out["pid"]))
            if on_result is not None:
                on_result(job, out)
            if max_results is not None and run.ran >= max_results:
                run.interrupted = run.remaining > 0
                break
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        it.close()  # cancels the jobs in flight (their results would be rerun, never lost)


# --------------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------------


def load_results(db: str | Path) -> list[dict]:
    """Every finished job of a study file as a dict (``params`` parsed into a Variant)."""
    conn = open_study(db)
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


def study(
    pieces: str | Path | Puzzle,
    db: str | Path,
    *,
    clues: str | Path | Board | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    jobs: int | None = None,
    scheduler: object | None = None,
    design: Design | None = None,
    max_results: int | None = None,
    progress: ProgressCallback | None = None,
    allow_duplicates: bool = False,
) -> StudyRun:
    """``rompicapo edges study`` as one call: the study of ``design`` on ``pieces`` (a Puzzle,
    ``"eternity2"`` or a pieces file) into the SQLite file ``db``, resumable.

    ``time_limit`` and ``node_limit`` are each job's budget (a node budget is reproducible on
    any machine; neither: 10 s per job). ``progress`` receives a
    :class:`~rompicapo.common.ProgressEvent` per finished job (``done``/``total`` in jobs,
    ``best``: the best score so far). Everything (the design, the budget, the study file,
    the scheduler address) is checked before the first job.
    """
    puzzle = (
        pieces
        if isinstance(pieces, Puzzle)
        else load_puzzle(pieces, allow_duplicates=allow_duplicates)
    )
    clue_board = load_clues(clues, puzzle)
    seconds = check_time_limit(time_limit)
    nodes = check_node_limit(node_limit)
    if seconds is None and nodes is None:
        seconds = 10.0
    budget = Budget(nodes=nodes, seconds=seconds)
    design = design or Design()
    total = len(plan_jobs(puzzle, design, budget, clue_board))  # validates the design too
    events = Progress(progress, unit="jobs", total=total)
    best = {"score": -1}

    def on_start(done: int) -> None:
        events.update(done)

    def on_result(job: dict, out: dict) -> None:
        best["score"] = max(best["score"], int(out["score"]))
        events.done += 1
        events.update(events.done)
        if best["score"] > (-1 if events.best_value is None else events.best_value):
            events.best(best["score"])

    run = run_study(
        db, puzzle, design, budget, clues=clue_board, jobs=jobs, scheduler=scheduler,
        max_results=max_results, on_result=on_result, on_start=on_start,
    )  # fmt: skip
    run.best_score = None if best["score"] < 0 else best["score"]
    events.finish()
    return run
