"""MkDocs hooks: the pictures and the results tables are made during the build, not pasted.

- ``on_pre_build`` draws the pictures the guides show (``docs/generated/``, not in git) with
  the toolkit's own renderers, from small runs made on the spot;
- ``on_page_markdown`` replaces a line ``<!-- results: NAME -->`` with the table of
  ``benchmarks/results/NAME.json`` (rows written by the benchmark scripts with ``--json``),
  with the date, commit, CPU model and load each row was measured at.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

from sitegen import api, pictures  # noqa: E402  (docs/ is on the path only from here on)

GENERATED = ROOT / "docs" / "generated"
RESULTS = ROOT / "benchmarks" / "results"


def on_pre_build(config, **kwargs) -> None:
    GENERATED.mkdir(exist_ok=True)
    _paths_pictures()
    _edges_pictures()
    pictures.draw_all(GENERATED)


def _paths_pictures() -> None:
    from rompicapo.paths import construct
    from rompicapo.paths.render import write_png, write_svg

    res = construct(10, 10)
    write_svg(res.path, 10, 10, GENERATED / "path-10x10.svg")
    knight = construct(8, 8, moves="knight", closed=True, seed=1)
    write_svg(knight.path, 8, 8, GENERATED / "knight-8x8-closed.svg")
    big = construct(300, 300, seed=3)
    write_png(big.path, 300, 300, GENERATED / "path-300x300.png")


def _edges_pictures() -> None:
    from rompicapo.edges import render_board

    board = ROOT / "tests" / "data" / "eternity2" / "eternity2_board_blackwood_470.txt"
    render_board(board, "eternity2", svg=GENERATED / "eternity2-blackwood-470.svg")


_MARK = re.compile(r"^<!-- results: ([\w-]+)((?: [\w-]+)*) -->$", re.M)

# where and when a row was measured: shown apart, under the figures, so the table stays narrow
_PROVENANCE = ("date", "commit", "cpu", "load", "load_start", "load_end")


def _table(name: str, columns: list[str] | None = None) -> str:
    """The rows of ``benchmarks/results/NAME.json`` (only ``columns`` when given), then the
    date, commit, CPU and load they were measured at."""
    path = RESULTS / f"{name}.json"
    if not path.exists():
        return f"*No results file `benchmarks/results/{name}.json` yet.*"
    rows = json.loads(path.read_text())
    if isinstance(rows, dict):
        rows = rows.get("rows", [])
    if not rows:
        return "*The results file is empty.*"
    # per-run lists (the runs behind a median) stay in the file; the table shows the figures
    keys = columns or [
        k for k in rows[0] if not isinstance(rows[0][k], (list, dict)) and k not in _PROVENANCE
    ]
    lines = ["| " + " | ".join(keys) + " |", "|" + " --- |" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row.get(k)) for k in keys) + " |")
    return "\n".join(lines) + "\n\n" + _provenance(name, rows, keys[0])


def _provenance(name: str, rows: list[dict], label: str) -> str:
    measured: dict[tuple, list[str]] = {}
    for row in rows:
        load = row.get("load", row.get("load_start"))
        if "load_end" in row:
            load = f"{row.get('load_start')}-{row['load_end']}"
        key = (row.get("date"), row.get("commit"), row.get("cpu"), load)
        measured.setdefault(key, []).append(str(row.get(label, "")))
    parts = []
    for (date, commit, cpu, load), labels in measured.items():
        which = "" if len(measured) == 1 else f" ({', '.join(labels)})"
        parts.append(f"{date}, commit {commit}, {cpu}, load {_cell(load)}{which}")
    return f"*Measured {'; '.join(parts)}. Source: `benchmarks/results/{name}.json`.*"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


_COUNTS = re.compile(r"^<!-- count-table: ([\w./-]+) -->$", re.M)


def _count_table(relative: str) -> str:
    """The per-start table of a ``rompicapo count --json`` result file, with its totals."""
    data = json.loads((ROOT / relative).read_text())
    table = data["table"]
    cols = len(table[0])
    lines = [
        "| row \\ col | " + " | ".join(str(c) for c in range(cols)) + " |",
        "|---|" + "---:|" * cols,
    ]
    for r, row in enumerate(table):
        lines.append(f"| {r} | " + " | ".join(f"{v:,}" for v in row) + " |")
    lines += [
        "",
        f"Total {data['total']:,} paths from the {data['rows'] * data['cols']} starts "
        f"(min {data['min']:,}, max {data['max']:,}); {data['nodes']:,} nodes in "
        f"{data['jobs']:,} jobs. Source: `{relative}`.",
    ]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = api.expand(markdown)
    markdown = _COUNTS.sub(lambda m: _count_table(m.group(1)), markdown)
    return _MARK.sub(lambda m: _table(m.group(1), m.group(2).split() or None), markdown)
