"""The report of a parameter study: [`study_report()`][rompicapo.edges.study_report.study_report]
(``rompicapo edges study-report``).

This module reads study files through `rompicapo.edges.study`; the study itself never
imports it (the report needs matplotlib, the study's workers do not).

Every job is classified by which of Blackwood's three hand-set parameters it moved (none: the
*baseline*, his own setting; ``colours``; ``quota``; ``breaks``), so each factor is compared
with the same reference band. Confidence intervals are 95 % percentile bootstraps of the mean
(2000 resamples, fixed seed: the same file gives the same report).

Files written: ``summary.md`` and ``variants.csv`` (one line per variant), ``colour_sets.png``
(mean depth per frame colour x inner pair), ``quota_curves.png`` (the curves coloured by depth,
Blackwood's on top, and depth against the curve's height), ``scores.png`` (score distributions
per group with confidence intervals), ``heat.png`` (where the search spends its placements).
"""

from __future__ import annotations

import csv
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rompicapo.common import (
    InputError,
    NotVerifiable,
    SearchResult,
    atomic_path,
    check_distinct_paths,
    loads_json,
    require_extra,
    write_text_atomic,
)
from rompicapo.edges.puzzle import Puzzle
from rompicapo.edges.study import Variant, load_results

__all__ = ["StudyReport", "check_report_folder", "classify", "mean_ci", "study_report", "wilson"]

# Bootstrap resamples: the 2.5/97.5 percentiles of 2000 means move by well under a tenth of
# the interval's width between seeds, and 2000 x (a few hundred jobs) is instant.
BOOTSTRAP = 2000
GROUPS = ("baseline", "colours", "quota", "breaks", "mixed")
# Bins of a quota curve's peak (its largest ratio to Blackwood's curve over the positions where
# a quota applies): a curve only a few per cent above his at one place already starves the
# search (measured in the replication), so the bins are narrow around 1.
PEAK_BINS = (0.0, 0.98, 0.995, 1.005, 1.02, 1.05, 1.1, 10.0)
DPI = 90  # small PNGs (tens of KB) that still read well in a markdown page
# The figures are 11 inches wide and shown at a page's width (about 8 inches): text set at
# matplotlib's usual sizes came out at 5-7 px. Every size is scaled up by this much, and the
# defaults (axis labels, tick labels, colour bars) with it (see `write_report`).
FONT_SCALE = 1.3


# A job is *deep* when it placed more than this share of the cells (200 of 256): depths are
# bimodal (measured on Eternity II: runs stall below ~200 or reach 240-248), so the share of
# deep jobs, with a Wilson interval, says more than a mean of the two modes.
DEEP_FRACTION = 200 / 256


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """Share ``k/n`` and its 95 % Wilson score interval (right at 0 and n, unlike +-2 sigma)."""
    if n == 0:
        return (float("nan"),) * 3
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def _deep(rows: list[dict]) -> str:
    n_cells = int(rows[0]["meta"].get("rows", 16)) * int(rows[0]["meta"].get("cols", 16))
    k = sum(r["depth"] > DEEP_FRACTION * n_cells for r in rows)
    _, lo, hi = wilson(k, len(rows))
    return f"{k}/{len(rows)} [{lo:.2f}, {hi:.2f}]"


def mean_ci(values, *, seed: int = 0) -> tuple[float, float, float]:
    """Mean and 95 % bootstrap percentile interval (NaN interval below two values)."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) == 0:
        return (float("nan"),) * 3
    if len(x) < 2 or np.all(x == x[0]):
        m = float(x.mean())
        return m, (m if len(x) > 1 else float("nan")), (m if len(x) > 1 else float("nan"))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(BOOTSTRAP, len(x)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(x.mean()), float(lo), float(hi)


def _fmt_ci(m: float, lo: float, hi: float) -> str:
    if np.isnan(lo):
        return f"{m:.1f}"
    return f"{m:.1f} [{lo:.1f}, {hi:.1f}]"


def classify(variant: Variant, base: Variant) -> str:
    """Which factor a variant moves away from Blackwood's setting."""
    moved = [
        name
        for name, a, b in (
            ("colours", variant.heuristic, base.heuristic),
            ("quota", variant.quota, base.quota),
            ("breaks", variant.breaks, base.breaks),
        )
        if a != b
    ]
    return "baseline" if not moved else (moved[0] if len(moved) == 1 else "mixed")


def quota_level(variant: Variant, base: Variant) -> float:
    """Height of a curve relative to Blackwood's (ratio of the sums over the positions)."""
    total = sum(base.quota)
    return sum(variant.quota) / total if total else 1.0


def quota_peak(variant: Variant, base: Variant) -> float:
    """Largest ratio of a curve to Blackwood's where his requires something (1: nowhere
    above his; 1.05: 5 % more sides than he asks for somewhere)."""
    q = np.asarray(variant.quota, dtype=np.float64)
    b = np.asarray(base.quota, dtype=np.float64)
    if q.shape != b.shape or not (b > 0).any():
        return 1.0
    return float((q[b > 0] / b[b > 0]).max())


def _facts(rows: list[dict]) -> tuple[Puzzle | None, Variant | None]:
    meta = rows[0]["meta"] if rows else {}
    if "pieces" not in meta or "base_variant" not in meta:
        return None, None
    puzzle = Puzzle(
        int(meta["rows"]),
        int(meta["cols"]),
        np.array(loads_json(meta["pieces"], "the study's pieces"), dtype=np.int16),
        meta.get("puzzle", ""),
    )
    return puzzle, Variant.from_json(meta["base_variant"])


def _variants(rows: list[dict], base: Variant) -> list[dict]:
    by_key: dict[str, dict] = {}
    for r in rows:
        v = r["variant_obj"]
        d = by_key.setdefault(
            r["variant"],
            {"key": r["variant"], "variant": v, "group": classify(v, base), "rows": []},
        )
        d["rows"].append(r)
    out = []
    for d in by_key.values():
        depth = [r["depth"] for r in d["rows"]]
        score = [r["score"] for r in d["rows"]]
        d["n"] = len(depth)
        d["depth"] = mean_ci(depth)
        d["score"] = mean_ci(score)
        d["best_score"] = max(score)
        d["level"] = quota_level(d["variant"], base)
        d["peak"] = quota_peak(d["variant"], base)
        out.append(d)
    out.sort(key=lambda d: (GROUPS.index(d["group"]), -d["score"][0], -d["depth"][0]))
    return out


@dataclass
class StudyReport(SearchResult):
    """What [`study_report()`][rompicapo.edges.study_report.study_report] wrote: ``files``, and the
    headline numbers in ``headline`` (``to_dict()`` puts them at the top level, as ``--json`` always
    printed them)."""

    jobs: int = 0
    files: list[str] = field(default_factory=list)
    headline: dict = field(default_factory=dict)
    out: str = ""

    _dict_exclude = ("headline", "out", "solve_seconds", "compile_seconds", "peak_bytes",
                     "counts")  # fmt: skip

    def verify(self) -> bool:
        raise NotVerifiable("a report summarises results each checked by its job")

    def _dict_extra(self) -> dict:
        return dict(self.headline)

    def report(self) -> str:
        return f"{self.jobs} jobs; report written to {self.out}:\n" + "".join(
            f"  {f}\n" for f in self.files
        )


def check_report_folder(path: object) -> Path:
    """The report's folder checked before anything is read or drawn: an existing writable
    folder, or a new one whose parent folder exists and is writable."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InputError(f"report folder: expected a folder name, got {path!r}")
    p = Path(path)
    name = str(p)[:200]
    if p.exists():
        if not p.is_dir():
            raise InputError(f"report folder {name!r} is a file, not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError(f"report folder {name!r} is not writable")
        return p
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"report folder {name!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"report folder {name!r}: the folder {str(parent)!r} is not writable")
    return p


# what study_report() writes into its folder
REPORT_FILES = (
    "summary.md", "variants.csv", "colour_sets.png", "quota_curves.png", "scores.png", "heat.png",
)  # fmt: skip


def study_report(db: str | Path, out_dir: str | Path) -> StudyReport:
    """Write the summary and plots of the study file ``db`` into ``out_dir`` (checked first;
    created if new); return the paths written and the headline numbers."""
    check_report_folder(out_dir)
    # a study file named like an output inside the folder would be overwritten
    check_distinct_paths(
        [("study file", db)], [(f"--out {name}", Path(out_dir) / name) for name in REPORT_FILES]
    )
    require_extra("plots", "the study report")
    rows = load_results(db)  # a bad study file is refused before the folder is made
    out = Path(out_dir)
    out.mkdir(exist_ok=True)
    found = write_report(rows, out)
    return StudyReport(
        jobs=found["jobs"],
        files=found["files"],
        headline={k: v for k, v in found.items() if k not in ("jobs", "files")},
        out=str(out_dir),
    )


def write_report(rows: list[dict], out: Path) -> dict:
    """Write the summary and plots of a study's ``rows``
    ([`load_results()`][rompicapo.edges.load_results]) into the
    folder ``out``; return the paths written and the headline numbers."""
    import matplotlib

    matplotlib.use("Agg")
    with matplotlib.rc_context({"font.size": 10 * FONT_SCALE}):
        return _write_report(rows, out)


def _write_report(rows: list[dict], out: Path) -> dict:
    if not rows:
        write_text_atomic(out / "summary.md", "# Study report\n\nNo finished jobs yet.\n")
        return {"jobs": 0, "files": [str(out / "summary.md")]}
    puzzle, base = _facts(rows)
    if base is None:
        base = rows[0]["variant_obj"]  # a file of the first runs without its base: best guess
    variants = _variants(rows, base)
    files = [
        _write_csv(out / "variants.csv", variants),
        _plot_colour_sets(out / "colour_sets.png", variants, base, puzzle),
        _plot_quota(out / "quota_curves.png", variants, base),
        _plot_scores(out / "scores.png", rows, variants, base),
        _plot_heat(out / "heat.png", rows, puzzle, base),
    ]
    headline = _headline(rows, variants, base)
    summary = _write_summary(out / "summary.md", rows, variants, base, headline, puzzle)
    return {"jobs": len(rows), "variants": len(variants), **headline,
            "files": [str(f) for f in [summary, *files] if f is not None]}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def _write_csv(path: Path, variants: list[dict]) -> Path:
    with atomic_path(path) as tmp, tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "group", "heuristic", "breaks", "quota_level", "quota_peak", "jobs",
                    "depth_mean", "depth_lo", "depth_hi", "score_mean", "score_lo", "score_hi",
                    "best_score"])  # fmt: skip
        for d in variants:
            v = d["variant"]
            w.writerow(
                [d["key"], d["group"], " ".join(map(str, v.heuristic)),
                 " ".join(map(str, v.breaks)), f"{d['level']:.4f}", f"{d['peak']:.4f}", d["n"],
                 *(f"{x:.2f}" for x in d["depth"]), *(f"{x:.2f}" for x in d["score"]),
                 d["best_score"]]
            )  # fmt: skip
    return path


def _group_stats(rows: list[dict], base: Variant) -> dict[str, dict]:
    stats: dict[str, dict] = {}
    for g in GROUPS:
        sel = [r for r in rows if classify(r["variant_obj"], base) == g]
        if not sel:
            continue
        stats[g] = {
            "jobs": len(sel),
            "variants": len({r["variant"] for r in sel}),
            "depth": mean_ci([r["depth"] for r in sel]),
            "score": mean_ci([r["score"] for r in sel]),
            "best": max(r["score"] for r in sel),
            "deep": _deep(sel),
        }
    return stats


def _level_bins(variants: list[dict]) -> list[dict]:
    """Quota variants (and the baseline) pooled by the curve's peak ratio to Blackwood's."""
    out = []
    for lo, hi in itertools.pairwise(PEAK_BINS):
        sel = [
            r
            for d in variants
            if d["group"] in ("quota", "baseline") and lo <= d["peak"] < hi
            for r in d["rows"]
        ]
        if sel:
            out.append({"lo": lo, "hi": hi, "jobs": len(sel),
                        "variants": len({r["variant"] for r in sel}), "deep": _deep(sel),
                        "depth": mean_ci([r["depth"] for r in sel]),
                        "score": mean_ci([r["score"] for r in sel])})  # fmt: skip
    return out


def _headline(rows: list[dict], variants: list[dict], base: Variant) -> dict:
    stats = _group_stats(rows, base)
    baseline = stats.get("baseline")
    colour_vs = [d for d in variants if d["group"] in ("colours", "baseline")]
    rank = None
    if baseline is not None and len(colour_vs) > 1:
        order = sorted(colour_vs, key=lambda d: -d["score"][0])
        rank = 1 + next(i for i, d in enumerate(order) if d["group"] == "baseline")
    quota_vs = [d for d in variants if d["group"] == "quota"]
    better = None
    if baseline is not None and quota_vs:
        better = sum(1 for d in quota_vs if d["depth"][0] > baseline["depth"][0]) / len(quota_vs)
    return {
        "baseline_depth": baseline["depth"] if baseline else None,
        "baseline_score": baseline["score"] if baseline else None,
        "baseline_colour_rank": rank,
        "colour_sets_compared": len(colour_vs),
        "quota_share_deeper_than_baseline": better,
    }


def _colour_marginals(colour: list[dict], puzzle: Puzzle | None) -> list[str]:
    """Mean depth of the jobs whose set holds each colour (every job of a set counts)."""
    if puzzle is None:
        return []
    frame = set(puzzle.frame_colours)
    lines = ["", "Mean depth of the colour-set jobs holding each colour (Blackwood's own set left "
             "out; frame colours first):",
             "", "| colour | kind | jobs | depth | jobs deeper than 200 |",
             "|---:|---|---:|---|---:|"]  # fmt: skip
    colours = sorted({c for d in colour for c in d["variant"].heuristic},
                     key=lambda c: (c not in frame, c))  # fmt: skip
    for c in colours:
        sel = [r for d in colour if c in d["variant"].heuristic for r in d["rows"]]
        deep = sum(r["depth"] > 200 for r in sel)
        kind = "frame" if c in frame else "inner"
        lines.append(
            f"| {c} | {kind} | {len(sel)} | {_fmt_ci(*mean_ci([r['depth'] for r in sel]))} | "
            f"{deep} |"
        )
    return lines


def multi_sided_pieces(puzzle: Puzzle, colours) -> int:
    """Pieces with two or more sides in the given colours: the pieces that can pay a quota
    rising by more than one side per position (Blackwood's rises ~2.8 per piece at 17-26)."""
    return int((np.isin(puzzle.pieces, list(colours)).sum(axis=1) >= 2).sum())


def _colour_structure(colour: list[dict], puzzle: Puzzle | None) -> list[str]:
    """Share of deep jobs against the number of multi-sided pieces of the set."""
    if puzzle is None or not colour:
        return []
    pooled: dict[int, list] = {}
    for d in colour:
        k = multi_sided_pieces(puzzle, d["variant"].heuristic)
        pooled.setdefault(k, []).extend(d["rows"])
    lines = ["", "Colour-set jobs (Blackwood's set left out) by the number of pieces with two or "
             "more sides in the set's colours:", "",
             "| pieces with 2+ sides | jobs | depth | deep jobs |",
             "|---:|---:|---|---|"]  # fmt: skip
    for k in sorted(pooled):
        sel = pooled[k]
        lines.append(
            f"| {k} | {len(sel)} | {_fmt_ci(*mean_ci([r['depth'] for r in sel]))} | {_deep(sel)} |"
        )
    return lines


def _write_summary(
    path: Path, rows, variants, base: Variant, headline: dict, puzzle: Puzzle | None
) -> Path:
    meta = rows[0]["meta"]
    budgets = sorted({json.dumps(r["budget"], sort_keys=True) for r in rows})
    seconds = np.array([r["seconds"] for r in rows])
    cpu = np.array([r["cpu_seconds"] for r in rows])
    placements = np.array([r["placements"] for r in rows], dtype=np.float64)
    lines = [
        f"# Study report: {meta.get('puzzle') or 'puzzle'} ({meta.get('rows')}x{meta.get('cols')})",
        "",
        f"- jobs: {len(rows)} finished, {len(variants)} variants; budget per job: "
        + ", ".join(budgets),
        f"- Blackwood's setting: colours {list(base.heuristic)}, breaks {list(base.breaks)}",
        f"- search time: {seconds.sum() / 3600:.2f} h wall, {cpu.sum() / 3600:.2f} h CPU; "
        f"median {np.median(placements / np.maximum(cpu, 1e-9)) / 1e6:.1f} M placements per "
        f"CPU second",
        f"- verified boards: {sum(int(r['verified']) for r in rows)} of {len(rows)}",
        "",
        "Means with 95 % bootstrap intervals. Depth: most pieces placed at once; score: matched",
        "joints of the best partial board.",
        "",
        "## By factor moved",
        "",
        "| group | variants | jobs | depth | score | best score | deep jobs |",
        "|---|---:|---:|---|---|---:|---|",
    ]
    for g, s in _group_stats(rows, base).items():
        lines.append(
            f"| {g} | {s['variants']} | {s['jobs']} | {_fmt_ci(*s['depth'])} | "
            f"{_fmt_ci(*s['score'])} | {s['best']} | {s['deep']} |"
        )
    colour = sorted(
        (d for d in variants if d["group"] in ("colours", "baseline")),
        key=lambda d: (-d["score"][0], -d["depth"][0]),
    )
    if len(colour) > 1:
        lines += ["", "## Colour sets, best 15 by mean score", "",
                  "| rank | colours | jobs | depth | score | deep jobs |",
                  "|---:|---|---:|---|---|---|"]  # fmt: skip
        for i, d in enumerate(colour[:15], 1):
            mark = " (Blackwood)" if d["group"] == "baseline" else ""
            lines.append(
                f"| {i} | {list(d['variant'].heuristic)}{mark} | {d['n']} | "
                f"{_fmt_ci(*d['depth'])} | {_fmt_ci(*d['score'])} | {_deep(d['rows'])} |"
            )
        if headline["baseline_colour_rank"]:
            lines += ["", f"Blackwood's colours rank {headline['baseline_colour_rank']} of "
                      f"{len(colour)} by mean score."]  # fmt: skip
        lines += _colour_marginals([d for d in colour if d["group"] == "colours"], puzzle)
        lines += _colour_structure([d for d in colour if d["group"] == "colours"], puzzle)
    bins = _level_bins(variants)
    if bins:
        lines += ["", "## Quota curves by peak (largest ratio to Blackwood's curve)", "",
                  "| peak | variants | jobs | depth | score | deep jobs |",
                  "|---|---:|---:|---|---|---|"]  # fmt: skip
        for b in bins:
            hi = "" if b["hi"] >= 10 else f"{b['hi']:.3f}"
            lines.append(
                f"| {b['lo']:.3f}-{hi} | {b['variants']} | {b['jobs']} | "
                f"{_fmt_ci(*b['depth'])} | {_fmt_ci(*b['score'])} | {b['deep']} |"
            )
    brk = [d for d in variants if d["group"] in ("breaks", "baseline")]
    if len(brk) > 1:
        lines += ["", "## Break indexes, best 10 by mean score", "",
                  "| breaks | jobs | depth | score |", "|---|---:|---|---|"]  # fmt: skip
        for d in sorted(brk, key=lambda d: -d["score"][0])[:10]:
            mark = " (Blackwood)" if d["group"] == "baseline" else ""
            lines.append(
                f"| {list(d['variant'].breaks)}{mark} | {d['n']} | {_fmt_ci(*d['depth'])} | "
                f"{_fmt_ci(*d['score'])} |"
            )
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------


def _plot_colour_sets(path: Path, variants, base: Variant, puzzle: Puzzle | None):
    """One panel per frame colour: mean depth for each inner pair (blank: not run)."""
    import matplotlib.pyplot as plt

    colour = [d for d in variants if d["group"] in ("colours", "baseline")]
    if not colour or puzzle is None:
        return None
    frame = sorted(puzzle.frame_colours)
    used = set(np.unique(puzzle.pieces).tolist()) - {0}
    inner = sorted(used - set(frame))
    at = {c: i for i, c in enumerate(inner)}
    grids = {f: np.full((len(inner), len(inner)), np.nan) for f in frame}
    for d in colour:
        h = d["variant"].heuristic
        fs = [c for c in h if c in grids]
        ins = [c for c in h if c in at]
        if len(fs) != 1 or len(ins) != 2:
            continue
        a, b = sorted(at[c] for c in ins)
        grids[fs[0]][b, a] = d["depth"][0]  # lower triangle: row = larger colour
    values = np.concatenate([g[~np.isnan(g)] for g in grids.values()])
    if len(values) == 0:
        return None
    vmin, vmax = float(values.min()), float(values.max())
    fig, axes = plt.subplots(
        1, len(frame), figsize=(2.5 * len(frame) + 1.5, 3.1), squeeze=False,
        layout="constrained",
    )  # fmt: skip
    im = None
    for ax, f in zip(axes[0], frame, strict=True):
        im = ax.imshow(grids[f], cmap="viridis", vmin=vmin, vmax=vmax, origin="upper")
        ax.set_title(f"frame colour {f}", fontsize=9 * FONT_SCALE)
        ax.set_xticks(
            range(len(inner)), [str(c) for c in inner], fontsize=5 * FONT_SCALE, rotation=90
        )
        ax.set_yticks(range(len(inner)), [str(c) for c in inner], fontsize=5 * FONT_SCALE)
        bh = base.heuristic
        if f in bh:
            ins = sorted(at[c] for c in bh if c in at)
            if len(ins) == 2:
                ax.add_patch(plt.Rectangle((ins[0] - 0.5, ins[1] - 0.5), 1, 1, fill=False,
                                           edgecolor="red", linewidth=1.5))  # fmt: skip
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="mean depth reached")
    fig.suptitle(f"Mean depth per prioritised colour set: frame colour (panel) x inner pair "
                 f"(red: Blackwood's {'+'.join(map(str, base.heuristic))})",
                 fontsize=10 * FONT_SCALE)  # fmt: skip
    with atomic_path(path) as tmp:  # a stop or a full disk never leaves half a picture
        fig.savefig(tmp, dpi=DPI, format="png")
    plt.close(fig)
    return path


def _plot_quota(path: Path, variants, base: Variant):
    import matplotlib.pyplot as plt
    from matplotlib import cm, colors

    quota = [d for d in variants if d["group"] == "quota"]
    baseline = [d for d in variants if d["group"] == "baseline"]
    if not quota:
        return None
    depths = [d["depth"][0] for d in quota + baseline]
    norm = colors.Normalize(min(depths), max(depths))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    active = [i for i, q in enumerate(base.quota) if q > 0]
    end = (active[-1] + 8) if active else len(base.quota)
    xs = np.arange(end)
    for d in sorted(quota, key=lambda d: d["depth"][0]):
        ax.plot(xs, d["variant"].quota[:end], color=cm.viridis(norm(d["depth"][0])), lw=0.7,
                alpha=0.8)  # fmt: skip
    ax.plot(xs, base.quota[:end], color="black", lw=2, label="Blackwood's curve")
    ax.set_xlabel("position in the fill order")
    ax.set_ylabel("heuristic sides required")
    ax.set_title("Quota curves coloured by depth reached", fontsize=10 * FONT_SCALE)
    ax.legend(loc="upper left", fontsize=8 * FONT_SCALE)
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap="viridis"), ax=ax, label="depth reached")
    lv = np.array([d["peak"] for d in quota])
    dp = np.array([d["depth"][0] for d in quota])
    ax2.scatter(lv, dp, s=10, c=dp, cmap="viridis", norm=norm)
    if baseline:
        m, lo, hi = baseline[0]["depth"]
        label = f"Blackwood's curve, {baseline[0]['n']} seeds (95 % CI)"
        ax2.axhspan(lo if not np.isnan(lo) else m, hi if not np.isnan(hi) else m, color="red",
                    alpha=0.2, label=label)  # fmt: skip
        ax2.axhline(m, color="red", lw=1)
        ax2.axvline(1.0, color="red", lw=0.5, ls="--")
        ax2.legend(loc="lower left", fontsize=8 * FONT_SCALE)
    ax2.set_xlabel("curve peak: largest ratio to Blackwood's curve")
    ax2.set_ylabel("depth reached")
    ax2.set_title("Depth against how far the curve\nrises above his", fontsize=10 * FONT_SCALE)
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a stop or a full disk never leaves half a picture
        fig.savefig(tmp, dpi=DPI, format="png")
    plt.close(fig)
    return path


def _plot_scores(path: Path, rows, variants, base: Variant):
    import matplotlib.pyplot as plt

    groups = [g for g in GROUPS if any(classify(r["variant_obj"], base) == g for r in rows)]
    colour = [d for d in variants if d["group"] == "colours"]
    # a set seen once ranks by luck as much as by merit: show the repeated ones when there are
    repeated = [d for d in colour if d["n"] >= 3]
    colour = sorted(repeated if len(repeated) >= 3 else colour, key=lambda d: -d["score"][0])[:8]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), width_ratios=[1, 1.4])
    rng = np.random.default_rng(0)
    for i, g in enumerate(groups):
        s = np.array([r["score"] for r in rows if classify(r["variant_obj"], base) == g])
        ax.scatter(i + rng.uniform(-0.25, 0.25, len(s)), s, s=4, alpha=0.35, color="grey")
        m, lo, hi = mean_ci(s)
        if not np.isnan(lo):
            ax.errorbar(i, m, yerr=[[m - lo], [hi - m]], fmt="o", color="red", capsize=5)
        else:
            ax.plot(i, m, "o", color="red")
    sizes = [sum(classify(r["variant_obj"], base) == g for r in rows) for g in groups]
    ax.set_xticks(range(len(groups)), [f"{g}\n(n={k})" for g, k in zip(groups, sizes, strict=True)],
                  fontsize=8 * FONT_SCALE)  # fmt: skip
    ax.set_ylabel("score (matched joints)")
    ax.set_title("Scores by factor moved\n(red: mean, 95 % CI)", fontsize=10 * FONT_SCALE)
    show = [d for d in variants if d["group"] == "baseline"] + colour
    for i, d in enumerate(show):
        m, lo, hi = d["score"]
        colr = "red" if d["group"] == "baseline" else "C0"
        if np.isnan(lo):
            ax2.plot(i, m, "o", color=colr)
        else:
            ax2.errorbar(i, m, yerr=[[m - lo], [hi - m]], fmt="o", color=colr, capsize=4)
    ax2.set_xticks(
        range(len(show)),
        [f"{'-'.join(map(str, d['variant'].heuristic))}\nn={d['n']}" for d in show],
        fontsize=7 * FONT_SCALE * 0.85,
    )
    more = " run 3+ times" if len(repeated) >= 3 else ""
    ax2.set_title(
        f"Blackwood's colours (red) and\nthe best colour sets{more}", fontsize=10 * FONT_SCALE
    )
    ax2.set_ylabel("mean score")
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a stop or a full disk never leaves half a picture
        fig.savefig(tmp, dpi=DPI, format="png")
    plt.close(fig)
    return path


def _plot_heat(path: Path, rows, puzzle: Puzzle | None, base: Variant):
    """Placements per cell, summed: Blackwood's setting beside every other variant."""
    import matplotlib.pyplot as plt

    meta = rows[0]["meta"]
    nr, nc = int(meta.get("rows", 0)), int(meta.get("cols", 0))
    panels = [
        (
            "Blackwood's setting",
            [r for r in rows if classify(r["variant_obj"], base) == "baseline"],
        ),
        (
            "every other variant",
            [r for r in rows if classify(r["variant_obj"], base) != "baseline"],
        ),
    ]
    panels = [(t, sel) for t, sel in panels if sel]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False)
    for ax, (title, sel) in zip(axes[0], panels, strict=True):
        heat = np.sum([np.asarray(r["heat"], dtype=np.float64) for r in sel], axis=0)
        if nr * nc != len(heat):
            plt.close(fig)
            return None
        im = ax.imshow(np.log10(heat.reshape(nr, nc) + 1), cmap="magma")
        fig.colorbar(im, ax=ax, shrink=0.85, label="log10 placements")
        ax.set_title(f"{title} ({len(sel)} jobs)", fontsize=10 * FONT_SCALE)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle("Where the search spends its placements (board as printed, top row first)",
                 fontsize=10 * FONT_SCALE)  # fmt: skip
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a stop or a full disk never leaves half a picture
        fig.savefig(tmp, dpi=DPI, format="png")
    plt.close(fig)
    return path
