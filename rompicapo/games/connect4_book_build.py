"""Building and verifying a Connect Four book (`rompicapo.games.connect4_book`).

The build enumerates every position reachable from the root with at most ``depth`` stones
(games already won left out, mirror images once), solves the deepest layer by the search, and
derives each shallower layer by negamax over its children in the book: a child that connects
four scores `immediate_win_score()`, a child that fills the board 0, the others their book
score negated.

The deepest layer is cut into chunks of neighbouring positions (siblings are enumerated
together); a worker solves a chunk with one transposition table for all of it, and keeps the
table from chunk to chunk: its entries are proven bounds on the true scores, valid whatever
search stored them, so what one position proved serves its siblings (measured on 34 positions
of 8 stones, the children of 5 random positions: 1.19 M nodes each instead of 1.55 M, 0.12-0.14
s of CPU instead of 0.17-0.19 s). Finished chunks go to a checkpoint (checksummed JSON), every
few seconds and when the build is stopped (Ctrl-C, SIGTERM, the time limit): the same command
resumes where it stopped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import (
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    check_int,
    check_output_path,
    check_seed,
    check_time_limit,
    parse_scheduler_address,
    read_checked_json,
    run_jobs,
    write_checked_json,
)
from rompicapo.common.timing import Deadline
from rompicapo.games import _connect4_kernel as K
from rompicapo.games.connect4_book import (
    BookError,
    Connect4Book,
    book_keys,
    immediate_win_score,
    read_book,
)

__all__ = [
    "BookBuild",
    "BookVerification",
    "build_book",
    "enumerate_layers",
    "key_position",
    "solve_chunk",
    "verify_book",
]

# depth - root stones: 12 layers from the empty board are ~3.6 M positions (~200 MB here)
MAX_LAYERS = 12
CHECKPOINT_KIND = "rompicapo-connect4-book-checkpoint"
CHECKPOINT_VERSION = 1
CHECKPOINT_EVERY = 5.0  # seconds between rewrites of the checkpoint
_U = np.uint64


def _has_four(stones: np.ndarray) -> np.ndarray:
    out = np.zeros(stones.shape, dtype=bool)
    for d in (1, K.H1, K.HEIGHT, K.HEIGHT + 2):
        m = stones & (stones >> _U(d))
        out |= (m & (m >> _U(2 * d))) != 0
    return out


def _children(pos: np.ndarray, mask: np.ndarray, col: int):
    """For column ``col``: which positions can play it, whether the move connects four, and
    the child (pos, mask) of each."""
    move = (mask + _U(K.BOTTOM)) & _U(int(K.COLUMN_MASK[col]))
    legal = move != 0
    mover = pos | move
    won = legal & _has_four(mover)
    cmask = mask | move
    return legal, won, cmask ^ mover, cmask


def enumerate_layers(root: Any, depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(pos, mask)`` arrays (uint64) of every position of ``root.count`` .. ``depth`` stones
    reachable from ``root`` (a [`Position`][rompicapo.games.Position]), none won, one per
    mirror pair, each layer in the order its positions are first reached from the layer above
    (siblings together, centre columns first: the lines people play most come first)."""
    pos = np.array([root.pos], dtype=_U)
    mask = np.array([root.mask], dtype=_U)
    layers = [(pos, mask)]
    for _ in range(depth - root.count):
        cp, cm, parent = [], [], []
        for col in K.CENTRE_ORDER.tolist():
            legal, won, p2, m2 = _children(pos, mask, col)
            keep = legal & ~won
            cp.append(p2[keep])
            cm.append(m2[keep])
            parent.append(np.nonzero(keep)[0])
        # parent-major order: parent i's children before parent i+1's
        order = np.argsort(np.concatenate(parent), kind="stable")
        p2, m2 = np.concatenate(cp)[order], np.concatenate(cm)[order]
        _, first = np.unique(book_keys(p2, m2), return_index=True)
        first.sort()
        pos, mask = p2[first], m2[first]
        layers.append((pos, mask))
    return layers


def key_position(key: int) -> tuple[int, int]:
    """``(pos, mask)`` of a key (``pos + mask``): a column of ``h`` stones holds ``2**h - 1``
    plus the mover's stones in it."""
    mask = 0
    for c in range(K.WIDTH):
        group = (int(key) >> (K.H1 * c)) & 0x7F
        height = (group + 1).bit_length() - 1
        mask |= ((1 << height) - 1) << (K.H1 * c)
    return int(key) - mask, mask


def derive_scores(
    pos: np.ndarray, mask: np.ndarray, stones: int, keys: np.ndarray, scores: np.ndarray
) -> np.ndarray:
    """The scores of positions of ``stones`` stones by negamax over their children, looked
    up in the sorted ``keys`` / ``scores`` (every child must be there)."""
    best = np.full(pos.shape, -K.NO_BOUND, dtype=np.int64)
    for col in range(K.WIDTH):
        legal, won, p2, m2 = _children(pos, mask, col)
        value = np.full(pos.shape, -K.NO_BOUND, dtype=np.int64)
        if stones + 1 == K.SIZE:
            value[legal] = 0
        else:
            ck = book_keys(p2, m2)
            i = np.minimum(np.searchsorted(keys, ck), max(len(keys) - 1, 0))
            present = keys[i] == ck if len(keys) else np.zeros(ck.shape, dtype=bool)
            if np.any(legal & ~won & ~present):
                raise BookError("a child position is missing from the book being derived")
            value[legal & present] = -scores[i][legal & present].astype(np.int64)
        value[won] = immediate_win_score(stones)
        best = np.maximum(best, value)
    return best


# ---- the search of the deepest layer ---------------------------------------------------------

_workers: dict[int, Any] = {}  # table_log2 -> this process's solver (its table kept)


def solve_chunk(
    job: tuple[int, list[int], list[int], int, int],
) -> tuple[int, list[int], float, int]:
    """A worker's job: ``(index, pos list, mask list, stones, table_log2)`` -> ``(index,
    scores, CPU seconds, nodes)``; one table for every position this process solves."""
    from rompicapo.games.connect4 import Connect4Solver

    index, pos, mask, stones, log2 = job
    solver = _workers.get(log2)
    if solver is None:
        solver = _workers[log2] = Connect4Solver(table_log2=log2)
        solver.epoch = 1  # one epoch for the life of the worker: entries stay visible
    c0 = time.process_time()
    scores, nodes = [], 0
    for p, m in zip(pos, mask, strict=True):
        if stones == K.SIZE:
            scores.append(0)
            continue
        solver.stats[:] = 0
        s = K.solve(
            p, m, stones, False, solver.table, 1, solver.stats, solver.scratch, solver.features
        )
        scores.append(int(s))
        nodes += int(solver.stats[0])
    return index, scores, time.process_time() - c0, nodes


def _chunk_size(n: int) -> int:
    return max(1, min(64, n // 256))


@dataclass
class BookBuild(SearchResult):
    """A build: the book (None until the deepest layer is complete), the positions, CPU and
    wall seconds of each layer, and where it was written. The deepest layer's CPU seconds add
    up every run of a resumed build (the checkpoint keeps them); its wall seconds and the
    ``nodes`` count are this run's."""

    depth: int = 0
    root: str = ""
    out: str | None = None
    complete: bool = False
    stopped: str | None = None
    layers: dict[int, dict[str, float]] = field(default_factory=dict)
    file_bytes: int = 0
    checkpoint: str | None = None
    book: Connect4Book | None = None

    _dict_exclude = ("book",)

    def report(self) -> str:
        lines = [f"Connect Four book of depth {self.depth} from {self.root or 'the empty board'}"]
        lines.append("stones  positions  CPU s  wall s  how")
        for s, row in self.layers.items():
            lines.append(
                f"{s:6d}  {int(row['positions']):9,}  {row['cpu_seconds']:6.1f}  "
                f"{row['wall_seconds']:6.1f}  {row['how']}"
            )
        if self.complete:
            lines.append(
                f"written to {self.out} ({self.file_bytes:,} bytes)"
                if self.out
                else "not written (no output file)"
            )
        else:
            done = self.counts.get("solved", 0)
            lines.append(
                f"stopped ({self.stopped}): {done:,} positions of the deepest layer "
                f"solved"
                + (
                    f", kept in {self.checkpoint}"
                    if self.checkpoint
                    else " (nothing kept: no checkpoint)"
                )
            )
        return "\n".join(lines)

    def verify(self) -> bool:
        if self.book is None:
            raise NotVerifiable("the build was stopped before its book was complete")
        return verify_book(self.book, sample=20, seed=0).verify()


def _load_checkpoint(path: Path | None, problem: dict) -> tuple[dict, dict]:
    if path is None or not path.exists():
        return {}, {}
    data = read_checked_json(path, kind=CHECKPOINT_KIND, what="checkpoint")
    if data.get("version") != CHECKPOINT_VERSION or not isinstance(data.get("done"), dict):
        raise InputError(f"checkpoint {str(path)!r} is not a Connect Four book checkpoint")
    if data.get("problem") != problem:
        raise InputError(
            f"checkpoint {str(path)!r} is for another book ({data.get('problem')}); "
            "use another file"
        )
    done, cpu = {}, data.get("cpu", {})
    try:
        for k, v in data["done"].items():
            scores = [int(x) for x in v]
            if any(abs(x) > K.SIZE // 2 for x in scores):
                raise ValueError
            done[int(k)] = scores
        cpu = {int(k): float(v) for k, v in cpu.items()}
    except (TypeError, ValueError, AttributeError):
        raise InputError(f"checkpoint {str(path)!r} is corrupt") from None
    return done, cpu


def _save_checkpoint(path: Path | None, problem: dict, done: dict, cpu: dict) -> None:
    if path is not None:
        write_checked_json(
            path,
            {
                "version": CHECKPOINT_VERSION,
                "problem": problem,
                "done": {str(k): v for k, v in done.items()},
                "cpu": {str(k): v for k, v in cpu.items()},
            },
            kind=CHECKPOINT_KIND,
        )


def build_book(
    depth: int,
    *,
    root: str = "",
    out: str | Path | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    checkpoint: str | Path | None = None,
    time_limit: float | None = None,
    progress: ProgressCallback | None = None,
    table_log2: int = 24,
) -> BookBuild:
    """Build the book of every position reachable from ``root`` (moves; the empty board by
    default) with at most ``depth`` stones, written to ``out`` when given.

    ``jobs`` worker processes (default: all cores) or a Dask ``scheduler`` solve the deepest
    layer; ``checkpoint`` (a ``.json`` file) keeps the finished chunks, and a build given the
    same file resumes. A ``time_limit`` or a stop (Ctrl-C, SIGTERM) saves the checkpoint: the
    result then has ``complete=False`` (a stop re-raises the KeyboardInterrupt after saving).
    Everything is checked before any work: the root, the depth, the output and checkpoint
    paths (distinct), the checkpoint's content."""
    from rompicapo.common import check_distinct_paths
    from rompicapo.games.connect4 import parse_position

    p = parse_position(root)
    if p.over:
        raise InputError(f"the game is already over after {root!r}")
    depth = check_int(depth, "depth", minimum=p.count, maximum=min(K.SIZE, p.count + MAX_LAYERS))
    time_limit = check_time_limit(time_limit)
    if jobs is not None:
        check_int(jobs, "jobs", minimum=1, maximum=4096)
    if isinstance(scheduler, str):
        parse_scheduler_address(scheduler)  # a malformed address: one line, before any work
    out_path = None if out is None else check_output_path(out, "book", suffixes=(".bin",))
    ckpt = (
        None
        if checkpoint is None
        else check_output_path(checkpoint, "checkpoint", suffixes=(".json",))
    )
    if out_path is not None and ckpt is not None:
        check_distinct_paths([], [("book", out_path), ("checkpoint", ckpt)])
    deadline = Deadline(time_limit)
    t_enum = time.perf_counter()
    layers = enumerate_layers(p, depth)
    pos, mask = layers[-1]
    keys = book_keys(pos, mask)
    import hashlib

    problem = {
        "root": p.moves,
        "depth": depth,
        "positions": len(pos),
        "keys_sha256": hashlib.sha256(keys.astype("<u8").tobytes()).hexdigest(),
    }
    done, cpu = _load_checkpoint(ckpt, problem)
    size = _chunk_size(len(pos))
    chunks = [
        (i, pos[a : a + size].tolist(), mask[a : a + size].tolist(), depth, table_log2)
        for i, a in enumerate(range(0, len(pos), size))
    ]
    tracker = Progress(progress, unit="positions", total=len(pos))
    result = BookBuild(
        depth=depth,
        root=p.moves,
        out=None if out_path is None else str(out_path),
        checkpoint=None if ckpt is None else str(ckpt),
    )
    solved = sum(len(v) for v in done.values())
    nodes = 0
    t0 = time.perf_counter()
    last_save = time.monotonic()
    todo = [c for c in chunks if c[0] not in done]
    try:
        for _job, (index, scores, seconds, n) in run_jobs(
            solve_chunk, todo, n_jobs=jobs, scheduler=scheduler, deadline=deadline
        ):
            done[index], cpu[index] = scores, seconds
            solved += len(scores)
            nodes += n
            tracker.update(solved, counts={"nodes": nodes})
            if time.monotonic() - last_save >= CHECKPOINT_EVERY:
                _save_checkpoint(ckpt, problem, done, cpu)
                last_save = time.monotonic()
    except KeyboardInterrupt:
        _save_checkpoint(ckpt, problem, done, cpu)
        raise
    _save_checkpoint(ckpt, problem, done, cpu)
    wall = time.perf_counter() - t0
    result.counts = {"solved": solved, "nodes": nodes, "positions": len(pos)}
    result.layers[depth] = {
        "positions": len(pos),
        "cpu_seconds": round(sum(cpu.values()), 3),
        "wall_seconds": round(wall, 3),
        "how": "search",
    }
    if len(done) < len(chunks):
        result.stopped = "time"
        result.solve_seconds = time.perf_counter() - t_enum
        tracker.finish()
        return result
    deep = np.array([s for i in range(len(chunks)) for s in done[i]], dtype=np.int64)
    book = _derive_book(layers, p, keys, deep, result)
    result.book, result.complete = book, True
    if out_path is not None:
        book.path = str(out_path)
        book.write(out_path)
        result.file_bytes = out_path.stat().st_size
    result.solve_seconds = time.perf_counter() - t_enum
    tracker.finish()
    return result


def _derive_book(layers, root, keys, deep, result: BookBuild) -> Connect4Book:
    """The shallower layers from the deepest by negamax, then the sorted table."""
    all_keys, all_scores = [keys], [deep]
    order = np.argsort(keys)
    k_sorted, s_sorted = keys[order], deep[order]
    counts = [len(keys)]
    for stones in range(result.depth - 1, root.count - 1, -1):
        c0, t0 = time.process_time(), time.perf_counter()
        pos, mask = layers[stones - root.count]
        scores = derive_scores(pos, mask, stones, k_sorted, s_sorted)
        lk = book_keys(pos, mask)
        all_keys.append(lk)
        all_scores.append(scores)
        k_sorted = np.concatenate([k_sorted, lk])
        s_sorted = np.concatenate([s_sorted, scores])
        o = np.argsort(k_sorted)
        k_sorted, s_sorted = k_sorted[o], s_sorted[o]
        counts.append(len(lk))
        result.layers[stones] = {
            "positions": len(lk),
            "cpu_seconds": round(time.process_time() - c0, 3),
            "wall_seconds": round(time.perf_counter() - t0, 3),
            "how": "negamax over the children",
        }
    result.layers = dict(sorted(result.layers.items()))
    return Connect4Book(
        k_sorted,
        s_sorted.astype(np.int8),
        root.count,
        result.depth,
        int(root.pos + root.mask),
        counts[::-1],
    )


# ---- verification ------------------------------------------------------------------------------


@dataclass
class BookVerification(SearchResult):
    """A sample of a book's entries re-solved by the search: how many, and the mismatches
    ``(key, stones, book score, search score)``."""

    path: str = ""
    checked: int = 0
    mismatches: list[tuple[int, int, int, int]] = field(default_factory=list)
    by_stones: dict[int, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0

    def report(self) -> str:
        lines = [
            f"{self.checked} entries of {self.path or 'the book'} re-solved by the search "
            f"({', '.join(f'{n} of {s} stones' for s, n in self.by_stones.items())}), "
            f"{len(self.mismatches)} mismatches, {self.cpu_seconds:.1f} s CPU"
        ]
        for key, stones, want, got in self.mismatches[:10]:
            lines.append(f"  key {key:#x} ({stones} stones): book {want}, search {got}")
        return "\n".join(lines)

    def verify(self) -> bool:
        if self.checked == 0:
            raise NotVerifiable("no entry was re-solved")
        return not self.mismatches


def verify_book(
    book: Connect4Book | str | Path,
    *,
    sample: int | None = 20,
    seed: int | None = 0,
    progress: ProgressCallback | None = None,
    table_log2: int = 22,
) -> BookVerification:
    """Re-solve ``sample`` entries of ``book`` drawn at random (``seed``; every entry when
    ``sample`` is None) with a fresh search each, and compare with the book's scores. The
    entries of few stones take the search the longest (a position of 4 stones a few seconds,
    the empty board tens of seconds)."""
    from rompicapo.games.connect4 import Connect4Solver

    if not isinstance(book, Connect4Book):
        book = read_book(book)
    n = (
        book.entries
        if sample is None
        else check_int(sample, "sample", minimum=1, maximum=book.entries)
    )
    rng = np.random.default_rng(check_seed(seed))
    picks = (
        np.arange(book.entries) if n == book.entries else rng.choice(book.entries, n, replace=False)
    )
    solver = Connect4Solver(table_log2=table_log2)
    tracker = Progress(progress, unit="entries", total=n)
    out = BookVerification(path=book.path or "")
    c0, t0 = time.process_time(), time.perf_counter()
    for i, idx in enumerate(np.sort(picks), 1):
        key = int(book.keys[idx])
        p, m = key_position(key)
        stones = bin(m).count("1")
        solver.stats[:] = 0
        if stones == K.SIZE:
            got = 0
        else:
            got = int(
                K.solve(
                    p,
                    m,
                    stones,
                    False,
                    solver.table,
                    solver.next_epoch(),
                    solver.stats,
                    solver.scratch,
                    solver.features,
                )
            )
        want = int(book.scores[idx])
        out.by_stones[stones] = out.by_stones.get(stones, 0) + 1
        if got != want:
            out.mismatches.append((key, stones, want, got))
        out.checked = i
        tracker.update(i)
    out.by_stones = dict(sorted(out.by_stones.items()))
    out.cpu_seconds = time.process_time() - c0
    out.solve_seconds = time.perf_counter() - t0
    out.counts = {"checked": out.checked, "mismatches": len(out.mismatches)}
    tracker.finish()
    return out
