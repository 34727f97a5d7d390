"""The hunt's tasks and the workers that run them (see `rompicapo.edges.hunt`).

A task is a plain dict (its kind, seed, seconds, the puzzle, the clues, and a board for the
improver) and so is its answer, so local processes and a Dask cluster carry both. The three
kinds of workers share one small interface: ``submit(spec)`` returns a future, ``wait(pending,
timeout)`` the futures done, ``interrupt()`` asks the running tasks to return their boards now,
``close()`` stops everything, ``workers`` counts the slots and ``replaced`` the pools made
again after a worker died.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import signal
import socket
import time

from rompicapo.common.parallel import reap
from rompicapo.common.workers import worker_context
from rompicapo.edges.blackwood import Settings, search
from rompicapo.edges.blackwood_walker import plans_of
from rompicapo.edges.hunt_db import OPERATOR_SUMS
from rompicapo.edges.improve import improve
from rompicapo.edges.puzzle import Board, placements_board

__all__ = [
    "DEPTH_TAIL",
    "OPERATOR_KEYS",
    "TASK_MARGIN",
    "DaskWorkers",
    "InlineWorkers",
    "ProcessWorkers",
    "plain",
    "run_task",
]

# Seconds a task keeps in hand before the hunt's end, to return its board and be recorded.
TASK_MARGIN = 0.3

# A restart reports its placements at each of the last DEPTH_TAIL positions of its fill order:
# how often the search reaches each depth near the end, the rate that a plan for a complete
# board (on Eternity II, one with at most 10 breaks: 470 or more) is reckoned from.
DEPTH_TAIL = 32

# What an improver run reports of each destroy operator (see `ImproveResult`): uses, accepted
# repairs that raised the score, new bests within the run, joints those won, final weight.
OPERATOR_KEYS = (*OPERATOR_SUMS, "weight")

# --------------------------------------------------------------------------------------------
# Tasks (run by the workers; plain dicts in and out, so Dask and processes carry them)
# --------------------------------------------------------------------------------------------


def plain(board: Board) -> list[list[int]]:
    return [[int(r), int(c), int(k), int(t)] for r, c, k, t in board.placements()]


def run_task(spec: dict) -> dict:
    """Run one hunt task in this thread: ``spec["kind"]`` is ``restart`` (Blackwood's search
    with ``seed`` for ``seconds``) or ``improve`` (the improver on ``spec["board"]``). Returns
    the board found (placements), its score as the task counted it, and the work done."""
    global _stopped
    _stopped = False  # a stop from now on interrupts this task (in a worker process)
    try:
        return _run(spec)
    finally:
        _stopped = True


def _run(spec: dict) -> dict:
    puzzle = spec["puzzle"]
    clues = placements_board(puzzle.rows, puzzle.cols, spec["clues"])
    started = time.perf_counter()
    cpu = time.process_time()
    seconds = spec["seconds"]
    if spec.get("until") is not None:  # the hunt's end (a worker may start late)
        seconds = max(0.1, min(seconds, spec["until"] - time.time() - TASK_MARGIN))
    out: dict = {
        "kind": spec["kind"],
        "seed": spec["seed"],
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }
    if spec["kind"] == "restart":
        res = search(
            puzzle,
            clues,
            settings=Settings(**spec["settings"]),
            time_limit=seconds,
            seed=spec["seed"],
        )
        board = res.board
        out.update(
            score=res.score,
            start=-1,
            placements_done=int(res.counts["placements"]),
            repairs=0,
            interrupted=res.interrupted,
            depth_placements=_depth_tail(puzzle, clues, spec["settings"], res.heat),
        )
    else:
        start = placements_board(puzzle.rows, puzzle.cols, spec["board"])
        clue_arg = clues if (clues.piece >= 0).any() else None
        res = improve(start, puzzle, time_limit=seconds, seed=spec["seed"], clues=clue_arg)
        board = res.board
        out.update(
            score=res.score_after,
            start=res.score_before,
            placements_done=0,
            repairs=int(res.iterations),
            interrupted=res.interrupted,
            operators={op: {k: st[k] for k in OPERATOR_KEYS} for op, st in res.operators.items()},
        )
    out["placements"] = plain(board) if board is not None else []
    out["seconds"] = time.perf_counter() - started
    out["cpu_seconds"] = time.process_time() - cpu
    return out


def _depth_tail(puzzle, clues, settings: dict, heat) -> list[int] | None:
    """Placements at each of the last `DEPTH_TAIL` fill positions (None for a portfolio of
    fill orders, whose cells have no single depth)."""
    plans = plans_of(puzzle, clues, Settings(**settings))
    if len(plans) != 1 or heat is None:
        return None
    cells = plans[0].pos_cell[-DEPTH_TAIL:]
    return [int(x) for x in heat.ravel()[cells]]


# --------------------------------------------------------------------------------------------
# Workers: local processes (replaced when one dies) or a Dask cluster
# --------------------------------------------------------------------------------------------


class InlineWorkers:
    """``jobs=1``: each task runs in this process when submitted (a Ctrl-C reaches it)."""

    workers = 1

    def submit(self, spec: dict) -> cf.Future:
        fut: cf.Future = cf.Future()
        fut.set_result(run_task(spec))
        return fut

    def wait(self, pending, timeout):
        return {f for f in pending if f.done()}

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


# In a worker process of ProcessWorkers: True once the running task was told to stop (and
# between tasks), so that a second signal (SIGTERM to the whole group, then the hunt's own
# SIGINT) cannot break the task while it hands its board back.
_stopped = True


def _stop_once(signum, frame) -> None:
    global _stopped
    if not _stopped:
        _stopped = True
        raise KeyboardInterrupt


def _worker_start() -> None:
    """A worker process takes SIGINT and SIGTERM as one Ctrl-C of its task: the search or
    the improver returns its best board (which the hunt records) instead of dying with it.
    ``timeout``, batch schedulers and systemd send SIGTERM to every process of the run,
    workers included; the hunt sends SIGINT to its workers when it stops."""
    signal.signal(signal.SIGINT, _stop_once)
    signal.signal(signal.SIGTERM, _stop_once)


class ProcessWorkers:
    """Spawned worker processes; when one dies the pool is made again and its lost tasks are
    reported as failed (the coordinator hands out new ones)."""

    def __init__(self, n: int) -> None:
        self.workers = n
        self.pool = self._new()
        self.replaced = 0

    def _new(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(
            max_workers=self.workers, mp_context=worker_context(), initializer=_worker_start
        )

    def submit(self, spec: dict):
        try:
            return self.pool.submit(run_task, spec)
        except cf.process.BrokenProcessPool:
            self._renew()
            return self.pool.submit(run_task, spec)

    def wait(self, pending, timeout):
        done, _ = cf.wait(list(pending), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        if any(isinstance(f.exception(), cf.process.BrokenProcessPool) for f in done):
            self._renew()
        return done

    def _renew(self) -> None:
        self._stop()
        self.pool = self._new()
        self.replaced += 1

    def _stop(self) -> None:
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        for proc in processes:
            with contextlib.suppress(OSError, ValueError):
                proc.terminate()
        reap(processes)
        self.pool.shutdown(wait=False, cancel_futures=True)

    def interrupt(self) -> None:
        """Ask every worker to end its task now and return its best board (a task's search
        and improver keep their board on Ctrl-C)."""
        for proc in (getattr(self.pool, "_processes", None) or {}).values():
            with contextlib.suppress(OSError, ValueError, TypeError):
                os.kill(proc.pid, signal.SIGINT)

    def close(self) -> None:
        self._stop()


class DaskWorkers:
    """Tasks on a Dask cluster (a worker that dies is replaced by the cluster's nanny; a task
    that keeps killing workers fails and a new one is handed out)."""

    def __init__(self, client, own: bool) -> None:
        self.client, self.own = client, own
        self.workers = max(1, sum(client.nthreads().values()))
        self.replaced = 0

    def submit(self, spec: dict):
        return self.client.submit(run_task, spec, pure=False)

    def wait(self, pending, timeout):
        from distributed import wait

        try:
            done, _ = wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return done

    def interrupt(self) -> None:
        pass  # a task on a cluster runs its slice to the end (or is cancelled)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.cancel(list(getattr(self, "_pending", [])))
        if self.own:
            with contextlib.suppress(Exception):
                self.client.close()
