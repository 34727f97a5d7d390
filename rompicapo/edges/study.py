"""Parameter studies of Blackwood's search: Jef Bucas's sweep, on Dask and SQLite.

Blackwood set three things by hand: the *prioritised colours* (one frame colour and two inner
colours whose sides the search must gather early), the *quota curve* (how many sides in those
colours the board must hold at each position of the fill order, up to position 160 of 256) and
the *break indexes* (the positions from which one more mismatched joint is allowed). Bucas
generated variants of these, ran each for a fixed time and plotted how deep each got. This
module does the same with real parts:

- a `Variant` is one setting of the three (plain tuples, JSON round trip, a stable key);
- `plan_jobs()` makes the sweep: Blackwood's own setting with many seeds (the reference
  band), then one factor moved at a time around it: every (or a sample of the) frame colour x
  inner-colour pair sets, random perturbations of the quota curve, random shifts of the break
  indexes, each with ``seeds`` seeds;
- `run_job()` runs one variant single-threaded for a node budget (reproducible: the same
  job gives the same counts on any machine and under any load) and/or a time budget;
- [`run_study()`][rompicapo.edges.run_study] runs the jobs on local processes or a Dask cluster and
  writes each result into a SQLite file in its own transaction as it arrives. A job's identity is a
  hash of the puzzle, parameters, seed and budget: finished jobs are never rerun, so an interrupted
  study (Ctrl-C, a killed machine, ``limit``) resumes where it stopped;
- `study()` is the ``rompicapo edges study`` command as one call (the budget, the
  design, the file checked before any job);
- `rompicapo.edges.study_report` turns the file into a summary table and plots (it
  imports this module; this module does not import it).

Three modules, all re-exported here (import from this module): `study_design` (variants,
design, budget, jobs), `study_store` (the SQLite file) and this one (running jobs).

Quota curves are stored in the units of Blackwood's curve (122 heuristic sides, his colours on
Eternity II) and rescaled when a job starts to the number of sides the job's colours cover, so
"Blackwood's curve" means the same demand, as a fraction of what is available, for every
colour set.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rompicapo.common import (
    Progress,
    ProgressCallback,
    SearchResult,
    check_int,
    check_node_limit,
    check_time_limit,
    connect_scheduler,
    renamed_keywords,
    run_jobs,
)
from rompicapo.edges.blackwood import (
    BLACKWOOD_HEURISTIC_SIDES,
    BLACKWOOD_NODE_CAP,
    Settings,
    search,
)
from rompicapo.edges.puzzle import Board, Puzzle, load_clues, load_puzzle
from rompicapo.edges.study_design import (  # noqa: F401 (the names of the single module)
    QUOTA_KNOTS,
    Budget,
    Design,
    Variant,
    base_variant,
    colour_sets,
    perturb_breaks,
    perturb_quota,
    plan_jobs,
)
from rompicapo.edges.study_store import (  # noqa: F401 (the names of the single module)
    SCHEMA_VERSION,
    STUDY_ID,
    STUDY_SUFFIXES,
    StudyError,
    begin_run,
    check_study_path,
    claimed,
    load_results,
    open_study,
    release_claims,
    store_result,
)

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
    """Run one study job (a dict from `plan_jobs()`) in this thread and return its row.

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
    budget = Budget.from_dict(spec["budget"])
    # The curve is in units of Blackwood's 122 sides: rescale to this colour set's sides.
    sides = int(np.isin(puzzle.pieces, np.array(variant.heuristic, dtype=np.int16)).sum())
    ratio = sides / BLACKWOOD_HEURISTIC_SIDES
    settings = Settings(
        order="blackwood",
        quota=tuple(int(q * ratio) for q in variant.quota),
        breaks=variant.breaks,
        heuristic=variant.heuristic,
        restart_nodes=BLACKWOOD_NODE_CAP,
        quota_scale=1.0,
        value_order="table",  # Blackwood's kernel, whatever the variant
    )
    # The public search: restarts with new tie-breaks at the node cap until the budget is
    # spent (tables built at each restart count as search time).
    res = search(
        puzzle,
        clues,
        settings=settings,
        time_limit=budget.time_limit,
        node_limit=budget.node_limit,
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


@dataclass
class StudyRun(SearchResult):
    """What one call of [`run_study()`][rompicapo.edges.run_study] did."""

    planned: int = 0  # jobs in the design
    already_done: int = 0  # found finished in the file
    ran: int = 0  # finished and written by this call
    elsewhere: int = 0  # taken by another study running on the same file
    interrupted: bool = False  # Ctrl-C (or limit) stopped it before the end
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


@renamed_keywords(max_results="limit")
def run_study(
    db: str | Path,
    puzzle: Puzzle,
    design: Design | None = None,
    budget: Budget | None = None,
    *,
    clues: Board | None = None,
    jobs: int | None = None,
    scheduler: object | None = None,
    limit: int | None = None,
    on_result: Callable[[dict, dict], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    job_func: Callable[[dict], dict] = run_job,
) -> StudyRun:
    """Run the study's unfinished jobs and write each result to ``db`` as it arrives.

    ``jobs``: local processes (default all cores; 1 = in this process); ``scheduler``: a Dask
    scheduler address (or ``distributed.Client``) instead. ``limit`` stops after that many
    new results (a job budget; the rest stays for the next call). Ctrl-C stops too; both keep
    every finished result and report ``interrupted``. ``on_start(n)`` hears how many jobs were
    found finished, ``on_result(job, row)`` sees each new result after it is stored. (Old
    keyword name: ``max_results``.)
    """
    global _interrupted
    _interrupted = False
    design = design or Design()
    budget = budget or Budget(time_limit=10.0)
    if limit is not None:
        limit = check_int(limit, "limit", minimum=1, maximum=10**18)
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
    owner, done = begin_run(conn)
    try:
        todo = [j for j in planned if j["id"] not in done]
        run = StudyRun(planned=len(planned), already_done=len(planned) - len(todo), db=str(db))
        if on_start is not None:
            on_start(run.already_done)
        if todo:
            mine = claimed(conn, todo, owner, run)
            _run_into(conn, run, mine, job_func, jobs, scheduler, limit, on_result)
    finally:
        release_claims(conn, owner)
        conn.close()
        if client is not None:
            client.close()
    run.seconds = time.perf_counter() - t0
    return run


def _run_into(conn, run, todo, job_func, jobs, scheduler, limit, on_result) -> None:
    it = run_jobs(job_func, todo, n_jobs=jobs, scheduler=scheduler)
    try:
        for job, out in it:
            store_result(conn, job, out)
            run.ran += 1
            run.placements += int(out["placements"])
            run.cpu_seconds += float(out["cpu_seconds"])
            run.workers.add((out["host"], out["pid"]))
            if on_result is not None:
                on_result(job, out)
            if limit is not None and run.ran >= limit:
                run.interrupted = run.remaining > 0
                break
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        it.close()  # cancels the jobs in flight (their results would be rerun, never lost)


@renamed_keywords(max_results="limit")
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
    limit: int | None = None,
    progress: ProgressCallback | None = None,
    allow_duplicates: bool = False,
) -> StudyRun:
    """``rompicapo edges study`` as one call: the study of ``design`` on ``pieces`` (a Puzzle,
    ``"eternity2"`` or a pieces file) into the SQLite file ``db``, resumable.

    ``time_limit`` and ``node_limit`` are each job's budget (a node budget is reproducible on
    any machine; neither: 10 s per job). ``progress`` receives a
    [`ProgressEvent`][rompicapo.common.ProgressEvent] per finished job (``done``/``total`` in jobs,
    ``best``: the best score so far); ``limit`` stops after that many new results. Everything
    (the design, the budget, the study file, the scheduler address) is checked before the
    first job. (Old keyword name: ``max_results``.)
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
    budget = Budget(node_limit=nodes, time_limit=seconds)
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
        limit=limit, on_result=on_result, on_start=on_start,
    )  # fmt: skip
    run.best_score = None if best["score"] < 0 else best["score"]
    events.finish()
    return run
