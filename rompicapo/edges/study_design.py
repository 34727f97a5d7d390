"""Parameter studies, part 1: the design (what a study runs).

A `Variant` is one setting of Blackwood's three hand-set things (prioritised colours, quota curve,
break indexes); `base_variant()` is his, `colour_sets()`, `perturb_quota()` and `perturb_breaks()`
move one of them; a [`Design`][rompicapo.edges.Design] says how many of each, a
[`Budget`][rompicapo.edges.Budget] how long each job runs, and `plan_jobs()` makes the jobs. See
`rompicapo.edges.study`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rompicapo.common import (
    InputError,
    check_int,
    check_node_limit,
    check_time_limit,
    loads_json,
    renamed_keywords,
)
from rompicapo.edges.blackwood import (
    BLACKWOOD_BREAK_INDEXES,
    BLACKWOOD_HEURISTIC_COLOURS,
    BLACKWOOD_HEURISTIC_SIDES,
    BLACKWOOD_MAX_QUOTA_INDEX,
    BUCAS_BREAK_INDEXES,
    heuristic_colours,
    quota_schedule,
)
from rompicapo.edges.puzzle import Board, Puzzle, eternity2_clues

__all__ = [
    "QUOTA_KNOTS",
    "Budget",
    "Design",
    "Variant",
    "base_variant",
    "colour_sets",
    "perturb_breaks",
    "perturb_quota",
    "plan_jobs",
    "puzzle_hash",
]

# Knots of Blackwood's piecewise-linear quota curve (positions of 256, reference §4): a curve
# perturbation multiplies the curve by a factor drawn at each knot, linear in between, so the
# variants keep his shape class (piecewise linear, rising) and move each segment.
QUOTA_KNOTS = (16, 26, 56, 76, 102, BLACKWOOD_MAX_QUOTA_INDEX)


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
    ``amplitude``, ``level_spread`` (see `perturb_quota()`) and ``break_shift`` size the
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
    """How long each job runs: ``node_limit`` (reproducible) and/or ``time_limit`` seconds
    (the first one hit). ``Budget(nodes=..., seconds=...)`` of earlier releases still works,
    with a DeprecationWarning."""

    node_limit: int | None = None
    """Nodes each job may search (reproducible), or None."""
    time_limit: float | None = None
    """Seconds each job may run, or None; with both, the first one hit ends the job."""

    def __post_init__(self) -> None:
        if self.node_limit is None and self.time_limit is None:
            raise InputError("a study job needs a node or a time budget")
        object.__setattr__(self, "node_limit", check_node_limit(self.node_limit, "node budget"))
        object.__setattr__(self, "time_limit", check_time_limit(self.time_limit, "time budget"))

    def to_dict(self) -> dict:
        """The budget as study files and job ids hold it, under its first names (``nodes``,
        ``seconds``): the ids of jobs planned before the renaming stay the same, so a study
        made then resumes."""
        return {"nodes": self.node_limit, "seconds": self.time_limit}

    @classmethod
    def from_dict(cls, data: dict) -> Budget:
        return cls(node_limit=data.get("nodes"), time_limit=data.get("seconds"))


Budget.__init__ = renamed_keywords(nodes="node_limit", seconds="time_limit")(  # type: ignore[method-assign]
    Budget.__init__
)


def puzzle_hash(puzzle: Puzzle) -> str:
    text = json.dumps([puzzle.rows, puzzle.cols, puzzle.pieces.tolist()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _job_id(p_hash: str, clues: list, variant: Variant, seed: int, budget: Budget) -> str:
    ident = json.dumps(
        [p_hash, clues, variant.to_dict(), seed, budget.to_dict()],
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
    ph = puzzle_hash(puzzle)
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
                    "budget": budget.to_dict(),
                },
            )  # fmt: skip
    out = list(jobs.values())
    order = np.random.default_rng(design.design_seed + 1).permutation(len(out))
    return [out[i] for i in order.tolist()]
