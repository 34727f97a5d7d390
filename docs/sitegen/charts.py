"""Charts of the results pages, drawn with matplotlib when the site is built, from the rows of
``benchmarks/results`` (the same rows as the tables beside them).

`speed_chart()` puts every side-by-side measurement on one axis: how many times faster
rompicapo ran than the peer on the same input in the same run (above 1: faster), on a log
scale, one bar per row, grouped by peer.
"""

from __future__ import annotations

import json
from pathlib import Path

# (results file, label field, peer's figure, ours, "rate" when higher is faster else "time",
# the group's name on the chart)
SPEED_ROWS = (
    ("cover_dlx", "file", "peer_s", "ours_s", "time",
     "exact cover vs Knuth's DLX, CPU s per count"),
    ("cover_sudoku", "set", "peer_rate", "ours_rate", "rate",
     "Sudoku vs tdoku, puzzles per CPU s"),
    ("connect4_vs_pons", "set", "peer_us", "ours_us", "time",
     "Connect Four vs Pons, CPU µs per position"),
    ("edges_speed", "job", "peer_rate", "ours_rate", "rate",
     "Eternity II vs libblackwood, placements per CPU s"),
    ("paths_cycles", "method", "peer_rate", "ours_rate", "rate",
     "paths vs caselle_v2, cells per CPU s"),
)  # fmt: skip


def speedups(results: Path) -> list[tuple[str, list[tuple[str, float]]]]:
    """``(group, [(row label, times faster), ...])`` for every side-by-side results file."""
    out = []
    for name, label, peer, ours, kind, group in SPEED_ROWS:
        path = results / f"{name}.json"
        if not path.exists():
            continue
        rows = []
        for row in json.loads(path.read_text()):
            if not row.get(peer) or not row.get(ours):
                continue
            times = row[ours] / row[peer] if kind == "rate" else row[peer] / row[ours]
            rows.append((str(row[label]).removeprefix("Eternity II, "), times))
        if name == "paths_cycles":
            rows = [(m, t) for m, t in rows if m != "caselle_v2"]  # the peer against itself
        out.append((group, rows))
    return out


def speed_section(alt: str) -> str:
    """The Markdown that shows the chart (drawn before the build by `speed_chart()` into
    ``generated/speed-ratios.svg``), with its caption; ``alt`` says what it shows."""
    return (
        f"![{alt}](../generated/speed-ratios.svg)\n\n"
        "*Every side-by-side measurement of the tables below on one axis: how many times faster "
        "rompicapo ran than the peer, on the same input in the same run (the peer's CPU time "
        "over ours, or our rate over the peer's). Drawn from `benchmarks/results` when this "
        "page was built.*\n"
    )


def speed_chart(results: Path, out: Path) -> str:
    """Draw the chart as SVG into ``out``; return what it shows, for its alternative text."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = speedups(results)
    labels, values, colours, ticks = [], [], [], []
    palette = ("#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1")
    y = 0
    heads = []
    for k, (group, rows) in enumerate(groups):
        heads.append((y, group))
        y += 1
        for label, times in rows:
            labels.append(label if len(label) <= 40 else label[:39] + "…")
            values.append(times)
            colours.append(palette[k % len(palette)])
            ticks.append(y)
            y += 1
        y += 0.6
    fig, ax = plt.subplots(figsize=(8.6, 0.26 * y + 1.0), dpi=100)
    # bars grow from 1 (as fast as the peer): right when faster, left when slower
    ax.barh(ticks, [v - 1 for v in values], left=1, color=colours, height=0.75)
    ax.set_xscale("log")
    ax.axvline(1, color="#333", linewidth=1)
    ax.set_yticks(ticks, labels, fontsize=9)
    for y0, group in heads:
        ax.text(0.0, y0, group, transform=ax.get_yaxis_transform(), fontsize=10,
                fontweight="bold", va="center", ha="left")  # fmt: skip
    for t, v in zip(ticks, values, strict=True):
        ax.text(v * 1.06, t, f"{v:.2g}×", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("times faster than the peer, same input, same run (log scale; 1 = as fast)",
                  fontsize=10)  # fmt: skip
    ax.set_xlim(min(0.5, min(values) / 1.5), max(values) * 2.5)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)
    slower = sum(v < 1 for v in values)
    return (
        f"a bar chart of {len(values)} side-by-side measurements against {len(groups)} peers: "
        f"rompicapo faster in {len(values) - slower}, slower in {slower}"
    )
