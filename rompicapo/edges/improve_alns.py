"""The improver's search: the adaptive large-neighbourhood search state that the numba
kernel (`rompicapo.edges._alns_kernel`) reads and writes, its settings and their reasons.

`rompicapo.edges.improve.improve()` fills a partial board's holes, then hands the board to
an `AlnsSearch`, which runs the kernel in chunks of about ``CHUNK_SECONDS`` (the clock,
the progress reports and Ctrl-C stay in Python between chunks) and keeps the best board met.
"""

from __future__ import annotations

import time

import numpy as np

from rompicapo.common import Progress
from rompicapo.edges import _alns_kernel as AK

__all__ = ["ACCEPTANCE", "OPERATORS", "REPAIRS", "REPAIRS_ON", "AlnsSearch"]

OPERATORS = ("rectangle", "cells", "mismatches", "line", "border", "misfits")  # ids 0..5
REPAIRS = ("branch-and-bound", "target", "deep")  # kernel ids 0..2
ACCEPTANCE = ("hill", "lahc", "annealing", "record")  # kernel ids 0..3
# The repair methods drawn. "deep" stays off: at 20 times the nodes it halved the repairs per
# second (benchmarks/results/edges_improve.json, d01f1ee: 9-14 k repairs in 30 s, main's
# plain search 21 k) for no better score.
REPAIRS_ON = ("branch-and-bound", "target")
# Region sizes in cells: MIN_REGION keeps a repair able to move something (two cells can
# swap); MAX_REGION bounds the per-node candidate scan (4 x cells options). Start sizes are
# where repairs on Eternity II are still proven within REPAIR_NODES (measured; sizes adapt).
MIN_REGION = 2
MAX_REGION = 40
START_SIZE = {"rectangle": 9.0, "cells": 10.0, "mismatches": 8.0, "line": 8.0, "border": 8.0,
              "misfits": 10.0}  # fmt: skip
SIZE_STEP = 0.5  # +0.5 after a proven repair, -0.5 after a capped one: ~half are proven
# ALNS (Ropke and Pisinger's rewards: 33 for a new best, 9 for a better current solution, 13
# for an accepted other one; here an accepted move is rewarded below a better one, as equal
# moves are cheap to find).
REWARD_BEST = 33.0
REWARD_BETTER = 9.0
REWARD_ACCEPTED = 3.0
SEGMENT = 100  # iterations between weight updates: enough uses per operator to average
REACTION = 0.2  # how far a weight moves to the segment's mean reward
MIN_WEIGHT = 0.05  # below the mean reward per use of an operator that moves the board at all
# Acceptance settings (chosen by measurement on Eternity II, benchmarks/edges_improve.py).
LAHC_LENGTH = 2_000  # late acceptance: iterations between a score and its comparison
T_START = 0.6  # annealing: a 1-joint loss accepted with probability exp(-1/0.6) = 19 %
T_END = 0.2  # ... down to exp(-1/0.2) = 0.7 % at the end
T_UNTIMED = 0.4  # a run with neither limit keeps this temperature
DEVIATION = 1  # record-to-record travel: boards down to the best score - 1 are accepted
RETURN_AFTER = 20_000  # iterations without a new best before going back to the best board
CHUNK_SECONDS = 0.05  # kernel calls between clock checks and progress reports


def _cell_kinds(rows: int, cols: int) -> np.ndarray:
    """0 inner, 1 edge, 2 corner, per cell."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    sides = (r == 0).astype(np.int64) + (r == rows - 1) + (c == 0) + (c == cols - 1)
    return np.minimum(sides, 2)


def _rim_cycle(rows: int, cols: int) -> np.ndarray:
    """The rim's cells in order round the frame (clockwise from the top-left corner)."""
    top = [(0, c) for c in range(cols)]
    right = [(r, cols - 1) for r in range(1, rows)]
    bottom = [(rows - 1, c) for c in range(cols - 2, -1, -1)] if rows > 1 else []
    left = [(r, 0) for r in range(rows - 2, 0, -1)] if cols > 1 else []
    return np.array([r * cols + c for r, c in top + right + bottom + left], dtype=np.int64)


class AlnsSearch:
    """The search's state, as the kernel (``_alns_kernel.run``) reads and writes it."""

    def __init__(self, puzzle, tables, movable, operators, acceptance, repair_nodes, rng,
                 repairs=REPAIRS_ON) -> None:  # fmt: skip
        """``tables``: ``(rot_edges, grey_mask, ptype)`` as the repair kernel takes them."""
        rows, cols, n = puzzle.rows, puzzle.cols, puzzle.rows * puzzle.cols
        self.rows, self.cols, self.perfect = rows, cols, puzzle.n_joints
        self.rot_edges, self.grey_mask, self.ptype = tables
        self.movable = movable
        self.kind = _cell_kinds(rows, cols)
        cycle = _rim_cycle(rows, cols)
        self.rim_cycle = cycle[movable[cycle]]
        self.rim_pos = np.full(n, -1, dtype=np.int64)
        self.rim_pos[self.rim_cycle] = np.arange(len(self.rim_cycle))
        self.op_on = np.array([op in operators for op in OPERATORS])
        self.op_weight = np.ones(AK.N_OPS)
        self.op_size = np.array([START_SIZE[op] for op in OPERATORS])
        self.op_stats = np.zeros(AK.N_OPS * AK.N_STATS, dtype=np.int64)
        self.op_seg = np.zeros(AK.N_OPS * 2)
        self.rep_on = np.array([rp in repairs for rp in REPAIRS])
        self.rep_weight = np.ones(AK.N_REPS)
        self.rep_stats = np.zeros(AK.N_REPS * AK.N_STATS, dtype=np.int64)
        self.rep_seg = np.zeros(AK.N_REPS * 2)
        self.ints = np.zeros(AK.N_INTS, dtype=np.int64)
        self.floats = np.zeros(AK.N_FLOATS)
        i, f = self.ints, self.floats
        i[AK.I_PERFECT] = puzzle.n_joints
        i[AK.I_ACCEPT] = ACCEPTANCE.index(acceptance)
        i[AK.I_RETURN] = 0 if acceptance == "hill" else RETURN_AFTER  # hill never loses
        i[AK.I_DEVIATION] = DEVIATION
        i[AK.I_SEGMENT] = SEGMENT
        i[AK.I_REPAIR_NODES] = repair_nodes
        f[AK.F_T0], f[AK.F_T1] = T_START, T_END
        f[AK.F_REACTION], f[AK.F_MIN_WEIGHT], f[AK.F_SIZE_STEP] = REACTION, MIN_WEIGHT, SIZE_STEP
        f[AK.F_MIN_SIZE] = MIN_REGION
        f[AK.F_MAX_SIZE] = max(MIN_REGION, min(MAX_REGION, int(movable.sum())))
        f[AK.F_REWARD_BEST], f[AK.F_REWARD_BETTER] = REWARD_BEST, REWARD_BETTER
        f[AK.F_REWARD_ACCEPTED] = REWARD_ACCEPTED
        self.lahc = np.zeros(LAHC_LENGTH, dtype=np.int64)
        self.rng = np.array([rng.integers(1, 2**63)], dtype=np.uint64)
        self.events = np.zeros(2 * 4096, dtype=np.int64)
        i[AK.I_MAX_EVENTS] = len(self.events) // 2
        self.piece = self.rot = self.best_piece = self.best_rot = None
        self.nodes_before = 0

    @property
    def iterations(self) -> int:
        return int(self.ints[AK.I_ITER])

    @property
    def nodes(self) -> int:
        return self.nodes_before + int(self.ints[AK.I_NODES])

    def start(self, piece: np.ndarray, rot: np.ndarray, score: int) -> None:
        """Start from this complete board (flat arrays) scoring ``score``."""
        self.piece, self.rot = piece.copy(), rot.copy()
        self.best_piece, self.best_rot = piece.copy(), rot.copy()
        self.ints[AK.I_SCORE] = self.ints[AK.I_BEST] = score
        self.lahc[:] = score

    def best(self) -> tuple[np.ndarray, np.ndarray, int] | None:
        """The best board met (copies) and its score; None before `start()`."""
        if self.best_piece is None:
            return None
        return self.best_piece.copy(), self.best_rot.copy(), int(self.ints[AK.I_BEST])

    def run(self, iterations: int) -> int:
        return AK.run(
            self.rows, self.cols, self.piece, self.rot, self.best_piece, self.best_rot,
            self.rot_edges, self.grey_mask, self.ptype, self.movable, self.kind,
            self.rim_cycle, self.rim_pos, self.ints, self.floats, self.op_on, self.op_weight,
            self.op_size, self.op_stats, self.op_seg, self.rep_on, self.rep_weight,
            self.rep_stats, self.rep_seg, self.lahc, self.rng, self.events, iterations,
        )  # fmt: skip

    def search(self, time_limit, node_limit, t0, history, events: Progress) -> None:
        """Chunks of kernel iterations until the time limit, ``node_limit`` iterations or a
        perfect board; a new best goes to ``history`` with the time of its chunk's end."""
        i, f = self.ints, self.floats
        if node_limit is not None and time_limit is None:
            f[AK.F_PER_ITER] = 1.0 / max(1, node_limit)  # a schedule by iterations
        elif time_limit is None:
            f[AK.F_T0] = f[AK.F_T1] = T_UNTIMED
        chunk = 16
        movable_cells = int(self.movable.sum())
        while i[AK.I_BEST] < self.perfect and movable_cells >= MIN_REGION:
            now = time.perf_counter()
            if time_limit is not None:
                if now - t0 >= time_limit:
                    break
                f[AK.F_PROGRESS] = (now - t0) / time_limit
            want = chunk
            if node_limit is not None:
                want = min(want, node_limit - self.iterations)
                if want <= 0:
                    break
            i[AK.I_EVENTS] = 0
            self.run(want)
            took = time.perf_counter() - now
            for k in range(int(i[AK.I_EVENTS])):
                history.append((time.perf_counter() - t0, int(self.events[2 * k + 1])))
            chunk = int(min(max(1, chunk * 2), max(1, chunk * CHUNK_SECONDS / max(took, 1e-6))))
            self.report(events)

    def report(self, events: Progress) -> None:
        counts = {
            "iterations": self.iterations, "nodes": self.nodes, "score": int(self.ints[AK.I_BEST]),
            "current": int(self.ints[AK.I_SCORE]), "max_score": self.perfect,
        }  # fmt: skip
        weights = "  ".join(
            f"{op} {self.op_weight[k]:.1f}" for k, op in enumerate(OPERATORS) if self.op_on[k]
        )
        events.update(self.iterations, counts=counts, message=weights)
        if events.best_value is None or counts["score"] > events.best_value:
            events.best(counts["score"], counts=counts)

    def _stats(self, stats: np.ndarray, weight: np.ndarray, names, on) -> dict[str, dict]:
        keys = ("uses", "improved", "moved", "worse", "gain", "nodes", "proven", "capped", "best")
        out = {}
        for k, name in enumerate(names):
            if on[k]:
                row = stats[k * AK.N_STATS : (k + 1) * AK.N_STATS]
                out[name] = {key: int(row[j]) for j, key in enumerate(keys)}
                out[name]["weight"] = round(float(weight[k]), 3)
        return out

    def operator_stats(self) -> dict[str, dict]:
        out = self._stats(self.op_stats, self.op_weight, OPERATORS, self.op_on)
        for k, op in enumerate(OPERATORS):
            if op in out:
                out[op]["size"] = round(float(self.op_size[k]), 1)
        return out

    def repair_stats(self) -> dict[str, dict]:
        return self._stats(self.rep_stats, self.rep_weight, REPAIRS, self.rep_on)
