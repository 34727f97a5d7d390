"""The score hunt: a portfolio of Blackwood restarts and the improver, for hours, resumable.

[`hunt()`][rompicapo.edges.hunt.hunt] runs until it is stopped (Ctrl-C, SIGTERM, ``time_limit``) or
finds a perfect board. Its workers (local processes, or a Dask cluster) run *tasks* of a few seconds
each, and the coordinating process hands out the next task as each one ends:

- a **restart**: Blackwood's search ([`rompicapo.edges.blackwood.search()`][rompicapo.edges.search])
  with a fresh seed for ``restart_seconds`` (on Eternity II with the centre clue, with the score
  hunt's breaks and on past complete boards: `HuntSettings.search_for()`); its best board (completed
  greedily if the search left cells empty) is offered to the pool;
- an **improvement**: `rompicapo.edges.improve.improve()` for ``improve_seconds`` on a
  board drawn from the *elite pool* (better boards more often).

Restarts and improvements take turns, the improver's share following what it earns: one task
in two at first, moving toward one in ten while its runs leave their boards as they were and
back toward one in two when they raise them (the share is kept in the hunt file and a resumed
hunt starts from it). ``HuntSettings(restarts=False)`` or ``improve=False`` leaves one part
out, to measure what each earns. The elite pool holds up to
``pool_size`` boards that differ from one another in at least ``min_distance`` cells: a board
close to a member replaces it only when it scores more, a board far from all of them takes
the place of the worst one when it scores more than it. So the improver works on several
different boards, not on copies of one.

Nothing is lost: every board a task returns is recounted by `rompicapo.edges.verify` (code that
shares nothing with the search) before it is used; each new best board goes into the SQLite file
(`rompicapo.edges.hunt_db`) at once, with its score, the hunt time, the task's seed and settings,
and is written as a board file beside it (``hunt.best.txt`` for ``hunt.sqlite``). Run
[`hunt()`][rompicapo.edges.hunt.hunt] again on the same file to resume: its best and elite boards
seed the pool, and the hunt's clock goes on. A worker process that dies is replaced (its task is
lost, the hunt goes on); a Dask cluster replaces its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rompicapo.common import (
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    check_distinct_paths,
    check_int,
    check_seed,
    check_time_limit,
    connect_scheduler,
    resolve_jobs,
    write_text_atomic,
)
from rompicapo.common.parallel import holding_stops, stop_reason, stopping
from rompicapo.edges import hunt_db as db_
from rompicapo.edges.blackwood import Settings
from rompicapo.edges.blackwood_walker import MACHINE_MIN_SECONDS
from rompicapo.edges.hunt_db import hunt_status
from rompicapo.edges.hunt_tasks import (
    DaskWorkers,
    InlineWorkers,
    ProcessWorkers,
    plain,
    run_task,
)
from rompicapo.edges.puzzle import (
    Board,
    Puzzle,
    board_url,
    format_board,
    load_clues,
    load_puzzle,
    placements_board,
)
from rompicapo.edges.verify import board_problems, count_matched_joints

__all__ = [
    "ElitePool",
    "HuntResult",
    "HuntSettings",
    "ImproverShare",
    "hunt",
    "hunt_status",
    "run_task",
]

# Seconds between two samples of the score trace in the hunt file (and the live status).
SAMPLE_SECONDS = 10.0
# How often the coordinator looks at the clock and the stop signals while tasks run.
POLL_SECONDS = 0.25
# A task is not started with less than this left of the time limit (a worker needs about a
# second to load the kernels and build its tables: a shorter task would find nothing).
MIN_TASK_SECONDS = 1.0
# Seconds past the time limit the coordinator still waits for tasks to report (the CLI's
# watchdog stops the command 1 s past it).
OVERRUN_SECONDS = 0.5
# Seconds the tasks running when the hunt stops get to return their boards (a search or an
# improver ends within a fraction of a second of its Ctrl-C).
DRAIN_SECONDS = 3.0
# Seconds before the time limit at which the tasks end (at most a fifth of the limit): the
# hunt drains and records within them.
FINISH_SECONDS = 2.0
# The improver's share of the tasks when restarts run too. It starts at one task in two and
# follows what the improver earns: each improver run moves the share a fifth of the way
# toward the most (it raised the board it was given) or the least (it did not). Measured on
# Eternity II: on the greedy ends of Blackwood's boards the improver added 1 to 3 joints in
# most runs, on the complete boards of the score breaks one run in 138 raised its board; the
# least keeps it trying on boards that may suit it better.
IMPROVE_SHARE_MOST = 0.5
IMPROVE_SHARE_LEAST = 0.1
IMPROVE_SHARE_STEP = 0.2


class ImproverShare:
    """The improver's share of a hunt's tasks, learnt from its runs.

    ``next_kind(can_improve)`` says which part runs the next task; the improver's turns come
    at its share, evenly spread (0.5: restarts and improver alternate, restart first; 0.1: one
    task in ten), and a turn it cannot take (no board to improve yet) goes to the restarts
    without piling up. ``learn(raised)`` moves the share `IMPROVE_SHARE_STEP` of the way
    toward `IMPROVE_SHARE_MOST` when an improver run raised the board it was given, toward
    `IMPROVE_SHARE_LEAST` when it did not; a run ``cut`` short (the hunt stopped) teaches
    only when it raised its board, since it did not have its time.

    >>> share = ImproverShare()
    >>> [share.next_kind(True) for _ in range(4)]
    ['restart', 'improve', 'restart', 'improve']
    >>> for _ in range(30):
    ...     share.learn(False)
    >>> round(share.share, 2), [share.next_kind(True) for _ in range(10)].count("improve")
    (0.1, 1)
    """

    def __init__(self, share: float = IMPROVE_SHARE_MOST) -> None:
        self.share = min(IMPROVE_SHARE_MOST, max(IMPROVE_SHARE_LEAST, float(share)))
        self.credit = 0.0  # the improver's turns owed at its share

    def next_kind(self, can_improve: bool) -> str:
        self.credit += self.share
        if self.credit >= 1.0 - 1e-9:
            if can_improve:
                self.credit -= 1.0
                return "improve"
            self.credit = 1.0 - self.share  # a missed turn is owed once, on the next task
        return "restart"

    def learn(self, raised: bool, cut: bool = False) -> None:
        if cut and not raised:
            return
        target = IMPROVE_SHARE_MOST if raised else IMPROVE_SHARE_LEAST
        self.share += IMPROVE_SHARE_STEP * (target - self.share)


@dataclass(frozen=True)
class HuntSettings:
    """What the portfolio runs. ``restart_seconds`` / ``improve_seconds``: the length of one
    task (None: 30 s on Eternity II-sized boards, less on small ones: a tenth of a second per
    cell, at least 2 s); ``pool_size``: elite boards kept; ``min_distance``: cells in which
    two elite boards differ at least (None: a tenth of the cells); ``search``: Blackwood's
    settings for the restarts (None: a score hunt's, `search_for()`)."""

    restarts: bool = True
    improve: bool = True
    restart_seconds: float | None = None
    improve_seconds: float | None = None
    pool_size: int = 8
    min_distance: int | None = None
    search: Settings | None = None

    def __post_init__(self) -> None:
        if not (self.restarts or self.improve):
            raise InputError("a hunt needs restarts, the improver or both")
        for name in ("restart_seconds", "improve_seconds"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, check_time_limit(value, name))
        object.__setattr__(
            self, "pool_size", check_int(self.pool_size, "pool_size", minimum=1, maximum=1000)
        )
        if self.min_distance is not None:
            object.__setattr__(
                self,
                "min_distance",
                check_int(self.min_distance, "min_distance", minimum=0, maximum=10**6),
            )
        if self.search is not None and not isinstance(self.search, Settings):
            raise InputError("search settings must be a blackwood.Settings")

    def slices(self, puzzle: Puzzle) -> tuple[float, float]:
        auto = min(30.0, max(2.0, 0.1 * puzzle.rows * puzzle.cols))
        return (self.restart_seconds or auto, self.improve_seconds or auto)

    def search_for(self, puzzle: Puzzle, n_clues: int) -> Settings:
        """The restarts' settings. By default a complete board with breaks does not end a
        restart (``stop_at_complete=False``: it searches on for fewer breaks), and on Eternity
        II with the centre clue alone the breaks are the score hunt's (``"score"``:
        Blackwood's ten and eight near the end), also when ``search`` leaves them ``"auto"``.
        Measured (benchmarks/edges_breaks.py: 10 searches of 30 s, the same seeds): Blackwood's
        breaks 458-461 (mean 459.5), the score hunt's 464-465 (mean 464.5)."""
        e2_centre = puzzle.is_eternity2 and n_clues <= 1
        search = self.search or Settings(stop_at_complete=False)
        if e2_centre and search.breaks == "auto":
            search = dataclasses.replace(search, breaks="score")
        return search

    def distance(self, puzzle: Puzzle) -> int:
        n = puzzle.rows * puzzle.cols
        return n // 10 if self.min_distance is None else self.min_distance

    def to_dict(self, puzzle: Puzzle | None = None, n_clues: int = 1) -> dict:
        """The settings as plain data; with ``puzzle``, the restarts' settings as run on it."""
        d = dataclasses.asdict(self)
        search = (
            self.search_for(puzzle, n_clues)
            if puzzle is not None
            else (self.search or Settings(stop_at_complete=False))
        )
        d["search"] = dataclasses.asdict(search)
        return json.loads(json.dumps(d))


# --------------------------------------------------------------------------------------------
# The elite pool
# --------------------------------------------------------------------------------------------


class ElitePool:
    """Up to ``size`` boards, pairwise at least ``min_distance`` cells apart (a cell differs
    when its piece or its turn does)."""

    def __init__(self, size: int, min_distance: int, rows: int, cols: int) -> None:
        self.size, self.min_distance, self.rows, self.cols = size, min_distance, rows, cols
        self.members: list[dict] = []

    def _key(self, placements: list) -> np.ndarray:
        grid = np.full(self.rows * self.cols, -1, dtype=np.int64)
        for r, c, k, t in placements:
            grid[r * self.cols + c] = k * 4 + t
        return grid

    def offer(self, entry: dict) -> bool:
        """Take ``entry`` (score, placements, ...) if it earns a place; True if it did."""
        key = self._key(entry["placements"])
        near = [
            i
            for i, m in enumerate(self.members)
            if int((m["_key"] != key).sum()) < self.min_distance
        ]
        if near:
            if all(entry["score"] > self.members[i]["score"] for i in near):
                for i in sorted(near, reverse=True):
                    del self.members[i]
            else:
                return False
        elif len(self.members) >= self.size:
            worst = min(range(len(self.members)), key=lambda i: self.members[i]["score"])
            if entry["score"] <= self.members[worst]["score"]:
                return False
            del self.members[worst]
        self.members.append({**entry, "_key": key})
        return True

    def draw(self, rng: np.random.Generator) -> dict:
        """A member, by rank: the best of ``n`` is drawn ``n`` times as often as the worst."""
        ranked = sorted(self.members, key=lambda m: m["score"])
        weights = np.arange(1, len(ranked) + 1, dtype=float)
        return ranked[int(rng.choice(len(ranked), p=weights / weights.sum()))]

    def plain(self) -> list[dict]:
        return [{k: v for k, v in m.items() if k != "_key"} for m in self.members]


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


@dataclass
class HuntResult(SearchResult):
    """What one call of [`hunt()`][rompicapo.edges.hunt.hunt] did, and the hunt file's best board.

    ``score``: the best score in the file (all runs); ``start_score``: the best when this call
    began (-1 for a new file); ``seconds``: hunt seconds over all runs; ``history``:
    ``[hunt seconds, score, source]`` of each new best of this call. ``counts``: ``restarts``,
    ``improves`` (tasks finished), ``placements`` (Blackwood's), ``repairs`` (the improver's),
    ``new_bests``, ``rejected`` (boards the verifier refused), ``workers_replaced``.
    ``parts``: per part (``restart``, ``improve``), tasks run, new bests and joints they won,
    ``scores``: how many boards of each score the part found (every restart's board; an
    improver run's board when it beat the board it was given), from which the rate of boards
    of a score or better per hour follows (Verhaard measured his solver by its 463s per hour),
    and ``cpu_seconds``; the restarts also sum ``depth_placements``, their placements at each
    of the last 32 positions of Blackwood's fill order (the last: complete boards), and the
    improver its destroy ``operators`` (uses, improved, best and gain summed over its runs,
    the weight of the latest). The parts are also kept in the hunt file for `hunt_report`.
    """

    puzzle: Puzzle | None = None
    """The pieces and the board's size."""
    board: Board | None = None
    """The best board of the hunt file (all runs)."""
    score: int = -1
    """Matched joints of ``board``; -1 when the file holds none."""
    start_score: int = -1
    """The best score when this call began (-1 for a new file)."""
    max_score: int = 0
    """The perfect score."""
    solved: bool = False
    """True when a perfect board was found."""
    interrupted: bool = False
    """True when Ctrl-C or SIGTERM stopped the hunt (everything found is in the file)."""
    stopped: str | None = None
    """What stopped the hunt early: a signal's name (``"SIGINT"``, ``"SIGTERM"``) or ``"time"``
    (the watchdog of the time limit); None when its time ran out or it solved the puzzle."""
    db: str | None = None
    """The hunt file."""
    board_file: str | None = None
    """Where the best board was written as text, if anywhere."""
    url: str | None = None
    """The best board's e2.bucas.name viewer URL."""
    run: int = 0
    """This call's run number in the hunt file."""
    jobs: int = 1
    """Worker processes of this call."""
    seed: int = 0
    """The seed of this call."""
    seconds: float = 0.0
    """Hunt seconds over all runs of the file."""
    history: list = field(default_factory=list)
    """``[hunt seconds, score, source]`` of each new best of this call."""
    parts: dict = field(default_factory=dict)
    """Per part (``restart``, ``improve``): tasks run, new bests, joints won, boards per score and
    CPU seconds (see the class text)."""
    settings: dict = field(default_factory=dict)
    """The hunt's settings, as a dict."""
    note: str | None = None
    """A remark for the user (jobs capped, say), or None."""

    _dict_exclude = ("puzzle", "board")

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the hunt's best board, mismatched joints marked in red."""
        from rompicapo.edges.render import board_picture

        return board_picture(self.board, self.puzzle, "best board of the hunt")

    def verify(self) -> bool:
        """Recount the best board and every board of the hunt file with
        `rompicapo.edges.verify`: each keeps the rules and has the score recorded."""
        if self.puzzle is None or self.board is None or self.db is None:
            raise NotVerifiable("this hunt holds no board to check")
        p = self.puzzle
        pieces = p.pieces.tolist()
        if _problems(p, pieces, plain(self.board), self.score):
            return False
        conn = db_.open_hunt(self.db, readonly=True)
        try:
            rows = db_.read_boards(conn)
        finally:
            conn.close()
        return all(not _problems(p, pieces, r["placements"], r["score"]) for r in rows)

    def _dict_extra(self) -> dict:
        try:
            verified: bool | None = self.verify()
        except NotVerifiable:
            verified = None
        return {"puzzle": None if self.puzzle is None else self.puzzle.name, "verified": verified}

    def report(self) -> str:
        state = "solved" if self.solved else ("interrupted" if self.interrupted else "done")
        c = self.counts
        gained = "" if self.start_score < 0 else f" (was {self.start_score})"
        lines = [
            f"{state}: best {self.score}/{self.max_score}{gained}; {c.get('restarts', 0)} "
            f"restarts, {c.get('improves', 0)} improver runs in {self.solve_seconds:.0f} s over "
            f"{self.jobs} worker{'' if self.jobs == 1 else 's'}; hunt time {self.seconds:.0f} s"
        ]
        for name, part in self.parts.items():
            top = sorted(part.get("scores", {}).items(), key=lambda kv: -int(kv[0]))[:3]
            found = ", ".join(f"{s} ({n})" for s, n in top)
            lines.append(
                f"  {name}: {part['tasks']} tasks, {part['bests']} new bests, "
                f"+{part['gain']} joints"
                + (f"; best scores found (boards): {found}" if found else "")
            )
        if self.note:
            lines.append(f"note: {self.note}")
        if self.board_file:
            lines.append(f"best board written to {self.board_file}")
        if self.url:
            lines.append(self.url)
        lines.append(f"hunt file {self.db} (rerun to resume)")
        return "\n".join(lines) + "\n"


def _problems(puzzle: Puzzle, pieces: list, placements: list, score: int, clues=()) -> str:
    """Why the verifier refuses a board (complete, score as claimed, clues in place), or ''."""
    problems = board_problems(puzzle.rows, puzzle.cols, pieces, placements, complete=True)
    if problems:
        return problems[0]
    counted = count_matched_joints(puzzle.rows, puzzle.cols, pieces, placements)
    if counted != score:
        return f"score {score} claimed, {counted} counted"
    have = {(r, c): (k, t) for r, c, k, t in placements}
    for r, c, k, t in clues:
        if have.get((r, c)) != (k, t):
            return f"clue at row {r}, column {c} moved"
    return ""


# --------------------------------------------------------------------------------------------
# The coordinator: hands out tasks, verifies, keeps the pool and writes the file
# --------------------------------------------------------------------------------------------


def _add_task(part: dict, out: dict) -> None:
    """Count a finished task in its part: its CPU seconds, an improver run's destroy operators
    (uses and gains summed, the latest weight), a restart's placements at the last depths."""
    part["tasks"] += 1
    part["cpu_seconds"] = round(part["cpu_seconds"] + out.get("cpu_seconds", 0.0), 3)
    if out.get("operators"):
        db_.add_operators(part.setdefault("operators", {}), out["operators"])
    if out.get("depth_placements"):
        new = out["depth_placements"]
        tail = part.get("depth_placements", [0] * len(new))
        part["depth_placements"] = [x + y for x, y in zip(tail, new, strict=True)]


class _Hunt:
    def __init__(self, puzzle, clues, settings, conn, db, seed, progress, offset, run) -> None:
        self.puzzle, self.clues, self.settings = puzzle, clues, settings
        self.conn, self.db, self.seed, self.run = conn, Path(db), seed, run
        self.pieces = puzzle.pieces.tolist()
        self.clue_list = [[int(x) for x in p] for p in clues.placements()]
        self.restart_s, self.improve_s = settings.slices(puzzle)
        self.pool = ElitePool(
            settings.pool_size, settings.distance(puzzle), puzzle.rows, puzzle.cols
        )
        self.rng = np.random.default_rng([seed % (1 << 63), run])  # draws from the pool
        self.offset, self.t0 = offset, time.perf_counter()
        self.events = Progress(progress, unit="tasks")
        self.counts = dict.fromkeys(
            (
                "restarts",
                "improves",
                "placements",
                "repairs",
                "new_bests",
                "rejected",
                "workers_replaced",
                "lost",
            ),
            0,
        )
        self.parts = {
            part: {"tasks": 0, "bests": 0, "gain": 0, "scores": {}, "cpu_seconds": 0.0}
            for part, on in (("restart", settings.restarts), ("improve", settings.improve))
            if on
        }
        self.best: dict | None = None
        self.start_score = -1
        self.history: list = []
        self.submitted = 0
        self.last_sample = -SAMPLE_SECONDS
        self.search_settings = dataclasses.asdict(settings.search_for(puzzle, len(self.clue_list)))
        self.board_file = self.db.with_suffix(".best.txt")
        self.pending: dict = {}  # future -> spec of the tasks running
        self.share = ImproverShare()

    def elapsed(self) -> float:
        return self.offset + time.perf_counter() - self.t0

    # ---- resume ------------------------------------------------------------------------
    def resume(self) -> None:
        for row in db_.read_boards(self.conn):
            why = _problems(
                self.puzzle, self.pieces, row["placements"], row["score"], self.clue_list
            )
            if why:
                raise db_.HuntDbError(f"{self.db}: board {row['id']} does not verify ({why})")
            entry = {
                k: row[k] for k in ("score", "placements", "source", "seed", "elapsed", "settings")
            }
            self.pool.offer(entry)
            if self.best is None or row["score"] > self.best["score"]:
                self.best = entry
        self.start_score = -1 if self.best is None else self.best["score"]
        earlier = (db_.read_parts(self.conn) or [{}])[-1].get("improve", {}).get("share")
        if isinstance(earlier, (int, float)):  # the share the last run had learnt
            self.share = ImproverShare(earlier)
        if len(self.parts) == 2:  # a share only when both parts run
            self.parts["improve"]["share"] = round(self.share.share, 3)
        if self.best is not None:
            self.events.best(self.best["score"], counts=self.status())

    # ---- tasks -------------------------------------------------------------------------
    def next_spec(self, seconds_left: float | None) -> dict | None:
        s = self.settings
        if not s.restarts:
            kind = "improve"
        elif not s.improve:
            kind = "restart"
        else:
            kind = self.share.next_kind(can_improve=bool(self.pool.members))
        seconds = self.restart_s if kind == "restart" else self.improve_s
        if seconds_left is not None:
            if seconds_left < MIN_TASK_SECONDS:
                return None
            seconds = min(seconds, seconds_left)
        task_seed = int((self.seed * 1_000_003 + self.run * 7_919 + self.submitted) % (1 << 62))
        spec = {
            "until": None if seconds_left is None else time.time() + seconds_left,
            "kind": kind,
            "seed": task_seed,
            "seconds": seconds,
            "puzzle": self.puzzle,
            "clues": self.clue_list,
        }
        if kind == "restart":
            spec["settings"] = self.search_settings
        else:
            spec["board"] = self.pool.draw(self.rng)["placements"] if self.pool.members else []
        self.submitted += 1
        return spec

    def take(self, spec: dict, out: dict) -> None:
        """A finished task: count it, verify its board, keep it."""
        kind = out["kind"]
        self.counts["restarts" if kind == "restart" else "improves"] += 1
        self.counts["placements"] += out["placements_done"]
        self.counts["repairs"] += out["repairs"]
        _add_task(self.parts[kind], out)
        if not out["placements"]:
            return
        why = _problems(self.puzzle, self.pieces, out["placements"], out["score"], self.clue_list)
        if why:
            self.counts["rejected"] += 1
            return
        if kind == "improve" and self.settings.restarts:
            raised = out["score"] > out["start"]
            self.share.learn(raised, cut=bool(out.get("interrupted")))
            self.parts["improve"]["share"] = round(self.share.share, 3)
        if kind == "restart" or out["score"] > out["start"]:  # a board found, not one given
            db_.add_scores(self.parts[kind]["scores"], {out["score"]: 1})
        entry = {
            "score": int(out["score"]),
            "placements": out["placements"],
            "source": kind,
            "seed": spec["seed"],
            "elapsed": self.elapsed(),
            "settings": {
                "seconds": spec["seconds"],
                **(spec.get("settings") or {"start_score": out["start"]}),
            },
        }
        if self.best is None or entry["score"] > self.best["score"]:
            self.record(entry, kind)
        if self.pool.offer(entry):
            db_.replace_elites(self.conn, self.run, self.pool.plain())

    def record(self, entry: dict, kind: str) -> None:
        before = -1 if self.best is None else self.best["score"]
        db_.add_board(self.conn, self.run, "best", entry)
        self.best = entry
        self.counts["new_bests"] += 1
        self.parts[kind]["bests"] += 1
        if before >= 0:
            self.parts[kind]["gain"] += entry["score"] - before
        self.history.append([round(entry["elapsed"], 3), entry["score"], kind])
        self.write_board_file()
        self.events.best(entry["score"], counts=self.status())

    def write_board_file(self) -> None:
        """The board file beside the hunt file, written whole (atomically) from the hunt
        file's best once it is committed: the file a person opens is the best recorded."""
        best = db_.best_board(self.conn)
        if best is None:
            return
        score, placements = best
        board = placements_board(self.puzzle.rows, self.puzzle.cols, placements)
        comment = f"hunt best {score}/{self.puzzle.n_joints}"
        write_text_atomic(self.board_file, format_board(board, self.puzzle, comment=comment))

    # ---- status ------------------------------------------------------------------------
    def status(self) -> dict:
        return {
            **self.counts,
            "best_score": -1 if self.best is None else self.best["score"],
            "max_score": self.puzzle.n_joints,
            "pool": len(self.pool.members),
        }

    def message(self) -> str:
        c, el = self.counts, max(1e-9, time.perf_counter() - self.t0)
        gain = self.parts.get("improve", {}).get("gain", 0)
        return (
            f"{c['restarts']} restarts, {c['improves']} improver runs (+{gain} joints), "
            f"{c['placements'] / el / 1e6:.1f} M placements/s, {c['repairs'] / el:.0f} "
            f"repairs/s, pool {len(self.pool.members)}"
            + (f", improver's share {self.share.share:.2f}" if len(self.parts) == 2 else "")
        ) + self.weights()

    def weights(self) -> str:
        """The improver's operators with their weights in its latest run, heaviest first."""
        ops = self.parts.get("improve", {}).get("operators")
        if not ops:
            return ""
        heavy = sorted(ops.items(), key=lambda kv: -kv[1]["weight"])
        return "; weights " + " ".join(f"{op} {st['weight']:.2f}" for op, st in heavy)

    def tick(self, force: bool = False) -> None:
        done = self.counts["restarts"] + self.counts["improves"]
        self.events.update(done, counts=self.status(), message=self.message())
        now = self.elapsed()
        if force or now - self.last_sample >= SAMPLE_SECONDS:
            self.last_sample = now
            db_.add_sample(self.conn, self.run, now, self.status()["best_score"], self.counts)
            db_.save_parts(self.conn, self.run, self.parts)

    @property
    def solved(self) -> bool:
        return self.best is not None and self.best["score"] == self.puzzle.n_joints


def _drive(h: _Hunt, workers, deadline: float | None) -> str | None:
    """Keep every worker busy until the deadline, a perfect board or a stop; return what
    stopped the hunt (None: it ran out of time or solved)."""
    pending = h.pending

    def fill() -> None:
        while len(pending) < workers.workers and not h.solved and not stopping():
            left = None if deadline is None else deadline - time.monotonic()
            spec = h.next_spec(left)
            if spec is None:
                return
            pending[workers.submit(spec)] = spec

    fill()
    while pending:
        timeout = POLL_SECONDS
        if deadline is not None:
            left = deadline - time.monotonic()
            if left < -OVERRUN_SECONDS:  # tasks overran their slice: they are not awaited
                return None
            timeout = max(0.01, min(timeout, left + OVERRUN_SECONDS))
        for fut in workers.wait(pending, timeout):
            spec = pending.pop(fut)
            try:
                out = fut.result()
            except KeyboardInterrupt:
                raise
            except Exception:  # the worker died (or the cluster lost the task): go on
                h.counts["lost"] += 1
                continue
            with holding_stops():  # a stop waits until the board is recorded
                h.take(spec, out)
            if out.get("interrupted") and isinstance(workers, InlineWorkers):
                return stop_reason() or "SIGINT"
        h.counts["workers_replaced"] = getattr(workers, "replaced", 0)
        h.tick()
        if stopping():
            return stop_reason()
        fill()
    return None


def _drain(h: _Hunt, workers, deadline: float | None) -> None:
    """The hunt is ending: the tasks still running are asked to stop and return their
    boards, which are recorded if they come within `DRAIN_SECONDS` (and before the
    time limit)."""
    workers.interrupt()
    end = time.monotonic() + DRAIN_SECONDS
    if deadline is not None:
        end = min(end, deadline - 0.2)
    while h.pending and (left := end - time.monotonic()) > 0:
        for fut in workers.wait(h.pending, min(left, POLL_SECONDS)):
            spec = h.pending.pop(fut)
            try:
                out = fut.result()
            except (Exception, KeyboardInterrupt):
                # lost, or told to stop while it was still setting up (a busy machine's late
                # task): it had no board to return
                continue
            with holding_stops():
                h.take(spec, out)


def hunt(
    pieces: str | Path | Puzzle,
    db: str | Path,
    *,
    clues: str | Path | Board | None = None,
    settings: HuntSettings | None = None,
    time_limit: float | None = None,
    seed: int | None = 0,
    jobs: int | None = None,
    scheduler: object | None = None,
    progress: ProgressCallback | None = None,
    allow_duplicates: bool = False,
) -> HuntResult:
    """Hunt for the best board of ``pieces`` (a Puzzle, ``"eternity2"`` or a pieces file)
    into the hunt file ``db`` (SQLite; made if new, resumed if it exists) until ``time_limit``
    seconds pass (None: until stopped), a perfect board is found, or Ctrl-C / SIGTERM.

    ``jobs``: worker processes (default: all cores; 1 = in this process); ``scheduler``: a
    Dask scheduler address (or ``distributed.Client``) instead. ``seed`` seeds every task
    (each task's seed is recorded with its board). ``progress`` receives
    [`ProgressEvent`][rompicapo.common.ProgressEvent] objects (``done``: tasks; ``best``: the best
    score; ``counts``: restarts, improves, placements, repairs, best_score, ...;
    ``message``: a status line). A stop keeps everything: the result says ``interrupted``.

    For example ``hunt("eternity2", "e2.sqlite", time_limit=3600, seed=1)``: an hour on all
    cores, resumed by the same call later.
    """
    settings = settings or HuntSettings()
    if not isinstance(settings, HuntSettings):
        raise InputError("settings must be a HuntSettings")
    time_limit = check_time_limit(time_limit)
    seed = check_seed(seed) or 0
    db_path = db_.check_hunt_path(db)
    # the best-board file is named after the hunt file: it must not be one of the inputs
    check_distinct_paths(
        [("pieces", pieces), ("clues", clues)],
        [("the hunt file", db_path), ("its best-board file", db_path.with_suffix(".best.txt"))],
    )
    puzzle = (
        pieces
        if isinstance(pieces, Puzzle)
        else load_puzzle(pieces, allow_duplicates=allow_duplicates)
    )
    clue_board = load_clues(clues, puzzle)
    n, note = (1, None) if scheduler is not None else resolve_jobs(jobs)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    # the tasks end FINISH_SECONDS before the limit: what is still running is drained and the
    # run recorded within them, before the CLI's watchdog stops the command
    work_end = None if deadline is None else deadline - min(FINISH_SECONDS, 0.2 * time_limit)
    client = None
    if isinstance(scheduler, str):  # reached (or refused) before the file is made
        scheduler = client = connect_scheduler(scheduler)
    # one hunt per file: the lock is taken first and let go last (after the connection closes)
    held = contextlib.ExitStack()
    try:
        held.enter_context(db_.one_hunt(db_path))
        conn = held.enter_context(
            contextlib.closing(db_.open_hunt(db_path, puzzle, clue_board, create=True))
        )
    except BaseException:
        held.close()
        if client is not None:
            client.close()
        raise
    with held:
        if scheduler is not None:
            workers = DaskWorkers(scheduler, own=client is not None)
        else:
            workers = InlineWorkers() if n == 1 else ProcessWorkers(n)
        run, offset = db_.start_run(
            conn, workers.workers, seed, settings.to_dict(puzzle, len(clue_board.placements()))
        )
        h = _Hunt(puzzle, clue_board, settings, conn, db_path, seed, progress, offset, run)
        if h.search_settings["kernel"] == "auto" and (
            time_limit is None or time_limit >= MACHINE_MIN_SECONDS
        ):
            # A restart alone is too short to repay compiling the plan's machine (about 13 s
            # once, then cached; 1.24 times the placements on Eternity II), a long hunt is not:
            # its first restarts compile it. Boards too small for a machine ignore this.
            h.search_settings["kernel"] = "machine"
        stopped: str | None = None
        try:
            h.resume()
            stopped = None if h.solved else _drive(h, workers, work_end)
        except KeyboardInterrupt:
            stopped = stop_reason() or "SIGINT"
        except BaseException:
            workers.close()
            raise
        result = None
        try:
            with holding_stops():  # a stop now (the watchdog, say) waits for the result
                try:
                    if h.pending:
                        _drain(h, workers, deadline)
                finally:
                    workers.close()
                result = _finish(h, workers, stopped, note, seed)
        except KeyboardInterrupt:
            if result is None:
                raise
        return result


def _finish(h: _Hunt, workers, stopped: str | None, note: str | None, seed: int) -> HuntResult:
    seconds = time.perf_counter() - h.t0
    h.counts["workers_replaced"] = getattr(workers, "replaced", 0)
    h.tick(force=True)
    db_.end_run(h.conn, h.run, seconds, h.counts, stopped or ("solved" if h.solved else "time"))
    h.events.finish(counts=h.status(), message=h.message())
    board = url = None
    if h.best is not None:
        board = placements_board(h.puzzle.rows, h.puzzle.cols, h.best["placements"])
        with contextlib.suppress(InputError):  # more colours than the viewer's letters
            url = board_url(board, h.puzzle, name=h.puzzle.name)
        h.write_board_file()  # also when the file was lost, or left behind by a kill
    return HuntResult(
        solve_seconds=seconds,
        counts=dict(h.counts),
        puzzle=h.puzzle,
        board=board,
        score=-1 if h.best is None else h.best["score"],
        start_score=h.start_score,
        max_score=h.puzzle.n_joints,
        solved=h.solved,
        interrupted=stopped not in (None, "time"),
        stopped=stopped,
        db=str(h.db),
        board_file=None if board is None else str(h.board_file),
        url=url,
        run=h.run,
        jobs=workers.workers,
        seed=seed,
        seconds=h.elapsed(),
        history=h.history,
        parts=h.parts,
        settings=h.settings.to_dict(h.puzzle, len(h.clue_list)),
        note=note,
    )
