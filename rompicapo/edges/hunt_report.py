"""The report of a hunt file: `hunt_report()` (``rompicapo edges hunt-report``).

Reads the file read-only (a running hunt goes on undisturbed) and draws, with matplotlib, the
best score over hunt time (each new best marked by the part that found it), what each part
earned (the new bests found by Blackwood's restarts and by the improver, and the joints each
added to the best score) and, for the improver, what each destroy operator won within its runs
(hunt files of this release keep them). The hunt itself never imports this module (its workers
need no matplotlib).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from rompicapo.common import (
    check_distinct_paths,
    check_output_path,
    require_extra,
    write_bytes_atomic,
    write_text_atomic,
)
from rompicapo.edges.hunt_db import (
    add_operators,
    add_scores,
    hunt_status,
    open_hunt,
    read_boards,
    read_parts,
    read_runs,
    read_samples,
)
from rompicapo.edges.study_report import check_report_folder

__all__ = ["contributions", "hunt_report", "operator_totals"]

PARTS = ("restart", "improve")
COLOURS = {"restart": "tab:blue", "improve": "tab:orange"}
DPI = 90


def contributions(bests: list[dict]) -> dict[str, dict]:
    """Per part: new bests found and joints added (the first board's score counts as found,
    not as added: there was nothing to add to)."""
    out = {p: {"bests": 0, "gain": 0} for p in PARTS}
    previous = None
    for b in sorted(bests, key=lambda b: b["id"]):
        part = out.setdefault(b["source"], {"bests": 0, "gain": 0})
        part["bests"] += 1
        if previous is not None:
            part["gain"] += max(0, b["score"] - previous)
        previous = b["score"] if previous is None else max(previous, b["score"])
    return out


def operator_totals(run_parts: list[dict]) -> dict[str, dict]:
    """The improver's destroy operators over every run: uses, improved, best and gain summed,
    the weight of the latest run that used each."""
    out: dict[str, dict] = {}
    for parts in run_parts:
        add_operators(out, (parts.get("improve") or {}).get("operators", {}))
    return out


def _summary(db: str | Path) -> tuple[dict, list[dict], list[dict]]:
    conn = open_hunt(db, readonly=True)
    try:
        bests = read_boards(conn, "best")
        samples = read_samples(conn)
        runs = read_runs(conn)
        run_parts = read_parts(conn)
    finally:
        conn.close()
    status = hunt_status(db)
    status.pop("best", None)
    tasks = {"restart": sum(r["restarts"] for r in runs),
             "improve": sum(r["improves"] for r in runs)}  # fmt: skip
    parts = contributions(bests)
    for p, n in tasks.items():
        parts[p]["tasks"] = n
    best = max((b["score"] for b in bests), default=None)
    summary = {**status, "best_score": best, "parts": parts}
    summary["operators"] = operator_totals(run_parts)
    for part in PARTS:  # boards found by score, over the runs that counted them
        scores: dict[str, int] = {}
        for rp in run_parts:
            add_scores(scores, (rp.get(part) or {}).get("scores", {}))
        if part in parts:
            parts[part]["scores"] = scores
    shares = [rp["improve"]["share"] for rp in run_parts if "share" in (rp.get("improve") or {})]
    if shares and "improve" in parts:  # the improver's share of the tasks, as last learnt
        parts["improve"]["share"] = shares[-1]
    return summary, bests, samples


def _figure(summary: dict, bests: list[dict], samples: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    ops = summary.get("operators") or {}
    ratios = [2, 1, 1.4] if ops else [2, 1]
    fig, axes = plt.subplots(1, len(ratios), figsize=(4.5 * sum(ratios) / 1.3, 4),
                             gridspec_kw={"width_ratios": ratios})  # fmt: skip
    ax, bx = axes[0], axes[1]
    # a short hunt (a small puzzle solved at once) is drawn in seconds, a long one in minutes
    elapsed = [b["elapsed"] for b in bests] + [s["elapsed"] for s in samples]
    total = max([summary["seconds"], *elapsed])  # a running hunt: its latest sample
    unit, scale = ("seconds", 1.0) if total < 120 else ("minutes", 60.0)
    steps = [(s["elapsed"], s["best"]) for s in samples if s["best"] >= 0]
    steps += [(b["elapsed"], b["score"]) for b in bests]
    if steps:
        steps.sort()
        # the best so far at each moment, drawn on to the end of the hunt
        ts, ys, top = [], [], -1
        for t, y in steps:
            top = max(top, y)
            ts.append(t / scale)
            ys.append(top)
        ts.append(total / scale)
        ys.append(top)
        ax.step(ts, ys, where="post", color="grey", lw=1, label="best score")
    for part in PARTS:
        pts = [(b["elapsed"] / scale, b["score"]) for b in bests if b["source"] == part]
        if pts:
            ax.scatter(*zip(*pts, strict=True), s=18, color=COLOURS[part], zorder=3,
                       label=f"new best by {part}")  # fmt: skip
    ax.set_xlim(left=0, right=max(total / scale, 1e-3) * 1.02)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"hunt time ({unit})")
    ax.set_ylabel(f"matched joints (of {summary['max_score']})")
    ax.set_title(f"{summary['puzzle']}: best {summary['best_score']}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    parts = summary["parts"]
    names = [p for p in PARTS if p in parts]
    x = range(len(names))
    bx.bar([i - 0.2 for i in x], [parts[p]["bests"] for p in names], width=0.4,
           label="new bests", color=[COLOURS[p] for p in names])  # fmt: skip
    bx.bar([i + 0.2 for i in x], [parts[p]["gain"] for p in names], width=0.4, label="joints added",
           color=[COLOURS[p] for p in names], alpha=0.5, hatch="//")  # fmt: skip
    bx.set_xticks(list(x), [f"{p}\n{parts[p].get('tasks', 0)} tasks" for p in names])
    bx.yaxis.set_major_locator(MaxNLocator(integer=True))
    bx.set_title("what each part earned")
    bx.legend(fontsize=8)
    if ops:
        _operators_panel(axes[2], ops)
    fig.tight_layout()
    return fig


def _operators_panel(cx, ops: dict) -> None:
    """The improver's destroy operators: joints won within its runs, and their uses."""
    from matplotlib.ticker import MaxNLocator

    names = sorted(ops, key=lambda op: -ops[op]["gain"])
    cx.barh(range(len(names)), [ops[op]["gain"] for op in names], color="tab:orange")
    cx.set_yticks(range(len(names)), [f"{op}\n{ops[op]['uses']:,} uses" for op in names],
                  fontsize=8)  # fmt: skip
    cx.invert_yaxis()
    cx.xaxis.set_major_locator(MaxNLocator(integer=True))
    cx.set_xlabel("joints won in the improver's runs")
    cx.set_title("the improver's operators")


def _save(fig, path: Path, fmt: str) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=DPI)
    write_bytes_atomic(path, buf.getvalue())


# what hunt_report(out=FOLDER) writes into the folder
REPORT_FILES = ("hunt.svg", "hunt.png", "summary.json")


def hunt_report(
    db: str | Path,
    *,
    out: str | Path | None = None,
    svg: str | Path | None = None,
    png: str | Path | None = None,
) -> dict:
    """Summarise the hunt file ``db``; with ``out`` write ``hunt.svg``, ``hunt.png`` and
    ``summary.json`` into that folder (made if new), or the figure alone to ``svg`` / ``png``.
    Every output is checked before the file is read. Returns the summary (``text``: the lines
    the CLI prints, ``files``: what was written)."""
    if out is not None:
        check_report_folder(out)
    for path, suffix in ((svg, ".svg"), (png, ".png")):
        if path is not None:
            check_output_path(path, "figure", suffixes=(suffix,))
    outputs = [("--svg", svg), ("--png", png)]
    if out is not None:
        outputs += [(f"--out {name}", Path(out) / name) for name in REPORT_FILES]
    # a hunt file named like an output inside the folder would be overwritten
    check_distinct_paths([("hunt file", db)], [(k, p) for k, p in outputs if p is not None])
    if out is not None or svg is not None or png is not None:
        require_extra("plots", "the hunt report's figure")
    summary, bests, samples = _summary(db)
    files = []
    if out is not None or svg is not None or png is not None:
        import matplotlib.pyplot as plt

        fig = _figure(summary, bests, samples)
        try:
            targets = [(svg, "svg"), (png, "png")]
            if out is not None:
                folder = Path(out)
                folder.mkdir(exist_ok=True)
                targets = [(folder / "hunt.svg", "svg"), (folder / "hunt.png", "png")]
                write_text_atomic(folder / "summary.json", json.dumps(summary, indent=2) + "\n")
                files.append(str(folder / "summary.json"))
            for path, fmt in targets:
                if path is not None:
                    _save(fig, Path(path), fmt)
                    files.append(str(path))
        finally:
            plt.close(fig)
    lines = [
        f"{summary['puzzle']}: best {summary['best_score']}/{summary['max_score']} after "
        f"{summary['seconds'] / 60:.1f} min of hunt over {summary['runs']} "
        f"run{'' if summary['runs'] == 1 else 's'}" + (" (running)" if summary["running"] else "")
    ]
    for p, v in summary["parts"].items():
        top = ", ".join(f"{score} ({n})" for score, n in list(v.get("scores", {}).items())[:3])
        lines.append(
            f"  {p}: {v.get('tasks', 0)} tasks, {v['bests']} new bests, +{v['gain']} joints"
            + (f"; best scores found (boards): {top}" if top else "")
            + (f"; share of the tasks now {v['share']:.2f}" if "share" in v else "")
        )
    for op, st in sorted(summary["operators"].items(), key=lambda kv: -kv[1]["gain"]):
        lines.append(
            f"    {op}: {st['uses']:,} uses, {st['improved']:,} improving, +{st['gain']} joints "
            f"in the improver's runs, weight {st['weight']:.2f}"
        )
    lines += [f"written: {f}" for f in files]
    return {**summary, "files": files, "text": "\n".join(lines) + "\n"}
