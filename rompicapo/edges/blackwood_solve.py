"""Blackwood's search, part 6: restarts on every core or a Dask cluster (`solve()`).

Each job is a [`search()`][rompicapo.edges.search] with its own seed (``seed``, ``seed+1``, ...);
the best board wins. Local jobs leave their progress in a
[`ProgressFolder`][rompicapo.common.ProgressFolder], which the parent reads to draw
progress and to keep the best board of a run stopped by Ctrl-C or by the time limit.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    InternalError,
    JobChannel,
    Overseer,
    Progress,
    ProgressCallback,
    ProgressEvent,
    ProgressFolder,
    check_int,
    check_node_limit,
    check_seed,
    check_time_limit,
    connect_scheduler,
    renamed_keywords,
    resolve_jobs,
    run_jobs,
)
from rompicapo.edges.blackwood_plan import Plan, Settings, check_puzzle
from rompicapo.edges.blackwood_results import EdgeSearchResult, complete_board
from rompicapo.edges.blackwood_search import accepts_on_progress, search
from rompicapo.edges.blackwood_walker import plans_of, warm_plans
from rompicapo.edges.puzzle import Board, Puzzle
from rompicapo.edges.puzzle import score as model_score

__all__ = ["OVERRUN_GRACE", "PARALLEL_MIN_SECONDS", "run_job", "solve"]

# solve(): starting a worker process (Python, numpy, numba, the cached kernels) takes 1-2 s on
# an idle machine and measured 5-13 s here with the load at 7 on 2 cores. Below this time
# limit the search runs in this process (already started, kernels loaded) with a note.
PARALLEL_MIN_SECONDS = 5.0
# Seconds past the time limit after which workers that have not answered are terminated and
# the best board they reported is kept: the limit holds even when start-up ate it all.
OVERRUN_GRACE = 1.0


# --------------------------------------------------------------------------------------------
# One job (in a worker process, a Dask worker, or this process)
# --------------------------------------------------------------------------------------------


def _report_of(res: EdgeSearchResult) -> dict:
    """What a job's progress file says about a finished (interrupted) search."""
    assert res.partial is not None and res.puzzle is not None
    return {
        "seconds": res.solve_seconds,
        "nodes": res.counts["nodes"],
        "placements": res.counts["placements"],
        "deepest": res.deepest,
        "best_score": res.search_score,
        "max_score": res.puzzle.n_joints,
        "best": res.partial.placements(),
    }


def _writer(channel: JobChannel) -> ProgressCallback:
    """A job's progress callback: each report into its progress file, with its best board."""

    def write(event: ProgressEvent) -> None:
        if event.kind in ("progress", "best") and event.counts:
            channel.write({"seconds": event.elapsed, **event.counts, "best": event.answer or []})

    return write


def run_job(spec: dict) -> dict:
    """One worker's search (module level so processes and Dask workers can import it)."""
    puzzle = Puzzle(
        spec["rows"], spec["cols"], np.array(spec["pieces"], dtype=np.int16), spec["name"]
    )
    clues = Board.empty(puzzle.rows, puzzle.cols)
    for r, c, k, rot in spec["clues"]:
        clues.piece[r, c], clues.rotation[r, c] = k, rot
    channel = JobChannel(spec.get("progress_dir"), spec["job"])
    settings = Settings(
        **{k: (tuple(v) if isinstance(v, list) else v) for k, v in spec["settings"].items()}
    )
    # The parent's deadline, as wall-clock time: a worker that took long to start searches
    # only for what is left of the whole command's time limit.
    end = spec.get("end")
    time_limit = None if end is None else max(0.05, end - time.time())
    res = search(
        puzzle,
        clues,
        settings=settings,
        time_limit=time_limit,
        node_limit=spec.get("max_nodes"),
        seed=spec["seed"],
        progress=_writer(channel) if channel.active else None,
        should_stop=channel.stop_requested if channel.active else None,
    )
    if res.interrupted:
        channel.write(_report_of(res))  # the last word for the parent, read after Ctrl-C
        raise KeyboardInterrupt
    assert res.partial is not None
    return {
        "partial": res.partial.placements(),
        "search_score": res.search_score,
        "search_depth": res.search_depth,
        "deepest": res.deepest,
        "solved": res.solved,
        "exhausted": res.exhausted,
        "counts": res.counts,
        "solve_seconds": res.solve_seconds,
        "cpu_seconds": res.cpu_seconds,
        "compile_seconds": res.compile_seconds,
        "heat": res.heat.tolist() if res.heat is not None else None,
        "settings": res.settings,
    }


def _outcome_of(report: dict, puzzle: Puzzle) -> dict:
    """A job's outcome from its last progress report (a run stopped before it returned)."""
    return {
        "partial": report["best"],
        "search_score": report["best_score"],
        "search_depth": len(report["best"]),
        "deepest": report["deepest"],
        "solved": report["best_score"] == puzzle.n_joints,
        "exhausted": False,
        "counts": {
            "nodes": report["nodes"],
            "placements": report["placements"],
            "restarts": 0,
        },
        "solve_seconds": report["seconds"],
        "compile_seconds": 0.0,
        "heat": None,
        "settings": {},
    }


# --------------------------------------------------------------------------------------------
# The parent's side
# --------------------------------------------------------------------------------------------


def _n_jobs(jobs: object, scheduler: object, deadline: Deadline) -> tuple[int, str | None, Any]:
    """(jobs to run, the note of a change to them, the Dask client or None)."""
    if scheduler is not None:
        n_jobs = check_int(jobs, "jobs", minimum=1, maximum=4096) if jobs is not None else None
        # one line within seconds for a wrong address, before any folder or worker exists
        client = connect_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
        if n_jobs is None:
            n_jobs = max(1, sum(client.nthreads().values()))
        return n_jobs, None, client
    n_jobs, note = resolve_jobs(jobs)
    limit = deadline.time_limit
    if n_jobs > 1 and limit is not None and limit < PARALLEL_MIN_SECONDS:
        short = (
            f"jobs={n_jobs} run as 1 in this process: a time limit under "
            f"{PARALLEL_MIN_SECONDS:g} s is shorter than starting worker processes"
        )
        note = short if note is None else f"{note}; {short}"
        n_jobs = 1
    return n_jobs, note, None


class _Relay:
    """The jobs' reports as one progress (``done``: placements)."""

    def __init__(self, puzzle: Puzzle, progress: ProgressCallback | None) -> None:
        self.puzzle = puzzle
        self.events = Progress(progress, unit="placements")
        self.t0 = time.perf_counter()

    def __call__(self, reports: list[dict]) -> None:
        placements = sum(p["placements"] for p in reports)
        seconds = time.perf_counter() - self.t0
        info = {
            "seconds": seconds,
            "placements": placements,
            "placements_per_second": placements / max(seconds, 1e-9),
            "deepest": max(p["deepest"] for p in reports),
            "best_score": max(p["best_score"] for p in reports),
            "max_score": self.puzzle.n_joints,
            "jobs": len(reports),
        }
        counts = {k: int(v) for k, v in info.items() if k != "seconds"}
        events = self.events
        # the best first: the events after it carry its board (answer) with its score
        if info["best_score"] > (-1 if events.best_value is None else events.best_value):
            leader = max(reports, key=lambda p: p["best_score"])
            events.done = placements
            events.best(info["best_score"], counts=counts, answer=leader.get("best"))
        events.update(placements, counts=counts)


class _Jobs:
    """Runs the job specs: job 0 in this process while the workers start, the others in
    worker processes (or all on a Dask cluster); collects their outcomes."""

    def __init__(self, folder: ProgressFolder, client: Any) -> None:
        self.folder, self.client = folder, client
        self.results: list[dict] = []
        self.failures: list[BaseException] = []
        self.parent_compile = 0.0

    def collect(self, job_specs: list[dict], workers: int) -> None:
        try:
            for _, out in run_jobs(run_job, job_specs, n_jobs=workers, scheduler=self.client):
                self.results.append(out)
                if out["solved"] or out["exhausted"]:
                    self.folder.stop()
        except BaseException as exc:  # handed to the calling thread by run()
            self.failures.append(exc)

    def run(self, specs: list[dict], plans: list[Plan], overran: threading.Event) -> None:
        n_jobs = len(specs)
        if self.client is None and n_jobs > 1:
            # The kernels are compiled (or loaded) here before any worker starts: on a cold
            # cache the workers then load them from numba's cache instead of compiling them
            # side by side with job 0 (on 2 cores, twice the wait, past the time limit).
            self.parent_compile = warm_plans(plans)
            self._job0_here(specs)
        else:
            self.collect(specs, n_jobs)
        for exc in self.failures:
            if not (isinstance(exc, BrokenProcessPool) and overran.is_set()):
                raise exc

    def _job0_here(self, specs: list[dict]) -> None:
        # Job 0 runs here, in this process (started, kernels loaded), while the workers
        # start: the seconds a worker takes to start are not lost to the whole search.
        # run_jobs runs a lone job in this process; two slots make it a process pool,
        # which (spawn start method) starts workers on demand: one per job, never idle.
        background = threading.Thread(
            target=self.collect, args=(specs[1:], max(2, len(specs) - 1)), daemon=True
        )
        background.start()
        try:
            self.collect(specs[:1], 1)
            # collect() keeps job 0's Ctrl-C in failures: the workers must hear of it now
            # (a signal sent to this process alone does not reach them), not at their
            # time limit
            if any(isinstance(exc, KeyboardInterrupt) for exc in self.failures):
                raise KeyboardInterrupt
        except BaseException:
            self.folder.stop()
            raise
        finally:
            # the workers stop by their own clock, at the stop file, or the overseer ends
            # them past the grace period
            while background.is_alive():
                background.join(0.2)


def _specs(
    puzzle: Puzzle, clues: Board | None, st: Settings, n_jobs: int, seed: int, **common: Any
) -> list[dict]:
    """The jobs' specs (plain data, so that processes and Dask workers can take them)."""
    base = {
        "rows": puzzle.rows,
        "cols": puzzle.cols,
        "name": puzzle.name,
        "pieces": puzzle.pieces.tolist(),
        "clues": clues.placements() if clues is not None else [],
        "settings": {
            key: (list(v) if isinstance(v, tuple) else v) for key, v in asdict(st).items()
        },
        **common,
    }
    return [{"job": k, **base, "seed": seed + k} for k in range(n_jobs)]


def _merged(
    results: list[dict], puzzle: Puzzle, clues: Board | None, **extra: Any
) -> EdgeSearchResult:
    """The best of the jobs' outcomes, completed greedily, with the counts of them all."""
    best = max(results, key=lambda o: (o["search_score"], o["deepest"]))
    partial = Board.empty(puzzle.rows, puzzle.cols)
    for r, c, k, rot in best["partial"]:
        partial.piece[r, c], partial.rotation[r, c] = k, rot
    board = complete_board(partial, puzzle, clues)
    final = model_score(board, puzzle)
    counts = {
        key: sum(int(o["counts"].get(key, 0)) for o in results)
        for key in ("nodes", "placements", "restarts")
    }
    heats = [np.array(o["heat"]) for o in results if o["heat"] is not None]
    settings_out = dict(best["settings"] or results[0]["settings"])
    settings_out["jobs"] = extra.pop("n_jobs")
    parent_compile = extra.pop("parent_compile")
    return EdgeSearchResult(
        # the jobs search side by side: the longest one is the search time
        solve_seconds=max(float(o["solve_seconds"]) for o in results),
        cpu_seconds=sum(float(o.get("cpu_seconds", 0.0)) for o in results),
        compile_seconds=max(parent_compile, *(o["compile_seconds"] for o in results)),
        counts=counts,
        puzzle=puzzle,
        board=board,
        partial=partial,
        score=final,
        search_score=int(best["search_score"]),
        search_depth=int(best["search_depth"]),
        deepest=max(int(o["deepest"]) for o in results),
        solved=final == puzzle.n_joints,
        exhausted=any(o["exhausted"] for o in results),
        heat=sum(heats) if heats else None,
        settings=settings_out,
        **extra,
    )


@accepts_on_progress
@renamed_keywords(seconds="time_limit", max_nodes="node_limit")
def solve(
    puzzle: Puzzle,
    clues: Board | None = None,
    *,
    settings: Settings | None = None,
    time_limit: float | None = 60.0,
    node_limit: int | None = None,
    jobs: int | None = None,
    seed: int | None = 0,
    scheduler: object | None = None,
    progress: ProgressCallback | None = None,
) -> EdgeSearchResult:
    """Blackwood's search on ``jobs`` processes (default: all cores; more are capped to the
    cores with a ``note``) or a Dask cluster, each with its own seed (``seed``, ``seed+1``,
    ...); the best board wins.

    ``time_limit`` is wall clock for the whole call, worker start-up and compilation
    included: a worker searches only for what is left of it. ``node_limit`` caps each job's
    nodes. The first job to find a perfect board (or search the whole tree) stops the others.
    Ctrl-C stops every job and returns the best board reported so far (``interrupted``), read
    from the progress files the local jobs write every half second. ``progress`` receives
    [`ProgressEvent`][rompicapo.common.ProgressEvent] objects about every second (``done``:
    placements; ``best``: the best search score; ``counts``: placements, deepest, best_score,
    max_score, jobs; ``answer``: the best board's placements). A ``scheduler`` address is
    reached (or refused in one line) before anything starts.

    ``on_progress=``, the dict callback of earlier releases, still works for this release
    with a DeprecationWarning. (Old keyword names: ``seconds``, ``max_nodes``.)
    """
    deadline = Deadline(check_time_limit(time_limit))
    node_limit = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    check_puzzle(puzzle)
    st = settings or Settings()
    if not isinstance(st, Settings):
        raise InputError(f"settings must be a Settings, got {type(st).__name__}")
    plans = plans_of(puzzle, clues, st)  # fail early, in this process, on bad clues or settings
    n_jobs, note, client = _n_jobs(jobs, scheduler, deadline)
    end = None if deadline.time_limit is None else time.time() + deadline.remaining()
    folder = ProgressFolder(prefix="rompicapo-edges-")
    specs = _specs(
        puzzle, clues, st, n_jobs, seed, end=end, max_nodes=node_limit,
        progress_dir=str(folder.path) if client is None else None,
    )  # fmt: skip
    relay = _Relay(puzzle, progress)
    overseer = Overseer(folder, deadline, relay, local=client is None, grace=OVERRUN_GRACE)
    overseer.start()
    runner = _Jobs(folder, client)
    interrupted = False
    try:
        runner.run(specs, plans, overseer.overran)
    except KeyboardInterrupt:
        interrupted = True
        time.sleep(0.3)  # let interrupted local jobs finish writing their progress files
    except BrokenProcessPool:
        raise InternalError("a worker process of the search died") from None
    finally:
        overseer.close()
        if client is not None and isinstance(scheduler, str):
            client.close()
    wall = time.perf_counter() - relay.t0
    results = runner.results
    if interrupted or not results:
        results += [_outcome_of(p, puzzle) for p in folder.read()]
    folder.remove()
    if not results and overseer.overran.is_set():
        # no worker got to search before the limit: a short search here, said in the note
        res = search(puzzle, clues, settings=st, time_limit=0.2, node_limit=node_limit, seed=seed)
        res.note = "no worker process started searching within the time limit"
        res.settings["jobs"] = n_jobs
        return res
    if not results:
        raise KeyboardInterrupt
    result = _merged(
        results, puzzle, clues, n_jobs=n_jobs, parent_compile=runner.parent_compile,
        wall_seconds=wall, note=note, interrupted=interrupted,
    )  # fmt: skip
    relay.events.finish(counts=result.counts)
    return result
