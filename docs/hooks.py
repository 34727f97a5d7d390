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

from sitegen import api, charts, http, pictures  # noqa: E402  (docs/ is on the path only from here on)

GENERATED = ROOT / "docs" / "generated"
RESULTS = ROOT / "benchmarks" / "results"


def on_pre_build(config, **kwargs) -> None:
    GENERATED.mkdir(exist_ok=True)
    _paths_pictures()
    _edges_pictures()
    pictures.draw_all(GENERATED)
    _charts["speed"] = charts.speed_chart(RESULTS, GENERATED / "speed-ratios.svg")


# what each chart drawn before the build shows (its alternative text), by name
_charts: dict[str, str] = {}


def _paths_pictures() -> None:
    from rompicapo.paths import construct
    from rompicapo.paths.render import write_png, write_svg

    res = construct(10, 10, method="auto")  # what `rompicapo path 10` prints
    write_svg(res.path, 10, 10, GENERATED / "path-10x10.svg")
    knight = construct(8, 8, moves="knight", closed=True, seed=1)
    write_svg(knight.path, 8, 8, GENERATED / "knight-8x8-closed.svg")
    big = construct(300, 300, seed=3)
    write_png(big.path, 300, 300, GENERATED / "path-300x300.png")


def _edges_pictures() -> None:
    from rompicapo.edges import render_board

    board = ROOT / "tests" / "data" / "eternity2" / "eternity2_board_blackwood_470.txt"
    render_board(board, "eternity2", svg=GENERATED / "eternity2-blackwood-470.svg")
    hunted = RESULTS / "eternity2_hunt_467.txt"
    render_board(hunted, "eternity2", svg=GENERATED / "eternity2-hunt-467.svg")


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
    return "\n".join(lines) + "\n\n" + _run_provenance(name, rows, keys[0])


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
    return provenance_note(
        f"Measured {'; '.join(parts)}. Source: `benchmarks/results/{name}.json`."
    )


def provenance_note(text: str) -> str:
    """Where and when a figure was measured, as a collapsed note under it: out of the reading
    path, one click away."""
    return f'??? note "Where and when this was measured"\n\n    {text}\n'


def _cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


_COUNTS = re.compile(r"^<!-- count-table: ([\w./-]+) -->$", re.M)
_BY_END = re.compile(r"^<!-- by-end-row: ([\w./-]+) (\d+),(\d+) -->$", re.M)
_SMALL = re.compile(r"^<!-- small-boards: ([\w./-]+) ([\w./-]+) -->$", re.M)


def _grid(table: list[list[int]], what: str = "paths from each start") -> list[str]:
    """A board of numbers as a heat map beside its table (rows r0.., columns c0..)."""
    cols = len(table[0])
    lines = ["| | " + " | ".join(f"c{c}" for c in range(cols)) + " |", "|---|" + "---:|" * cols]
    for r, row in enumerate(table):
        lines.append(f"| r{r} | " + " | ".join(f"{v:,}" for v in row) + " |")
    return [
        '<div class="board-row" markdown>',
        pictures.heat_map_svg(table, what),
        '<div class="board-grid" markdown>',
        "",
        *lines,
        "",
        "</div>",
        "</div>",
    ]


def _recorded(relative: str) -> str:
    """When a run's result file entered the repository (runs record no CPU model or load)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "--diff-filter=A", "--format=%h %ad",
             "--date=short", "--", relative],
            capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        out = []
    added = f"added in commit {out[-2]} on {out[-1]}" if len(out) >= 2 else "not yet committed"
    return f"`{relative}` ({added}; the run recorded no CPU model or load)"


def _count_table(relative: str) -> str:
    """The per-start table of a ``rompicapo count --json`` result file, with its totals."""
    data = json.loads((ROOT / relative).read_text())
    lines = _grid(data["table"])
    lines += [
        "",
        f"*Total {data['total']:,} paths from the {data['rows'] * data['cols']} starts "
        f"(min {data['min']:,}, max {data['max']:,}); {data['nodes']:,} nodes in "
        f"{data['jobs']:,} jobs, {data['solve_seconds']:,.0f} s of wall time. "
        f"Source: {_recorded(relative)}.*",
    ]
    return "\n".join(lines)


def _by_end_row(relative: str, r: int, c: int) -> str:
    """The paths from start (r, c) by the cell where they end, as a grid of end cells."""
    data = json.loads((ROOT / relative).read_text())
    cols = data["cols"]
    row = data["matrix"][r * cols + c]
    grid = [row[k : k + cols] for k in range(0, len(row), cols)]
    heat_title = f"paths from ({r}, {c}) ending at each cell"
    note = (
        f"*{sum(row):,} paths from ({r}, {c}) in all. The whole matrix: {data['total']:,} paths, "
        f"{data['nodes']:,} nodes, {data['solve_seconds']:,.0f} s of wall time in the last of "
        f"its runs from the checkpoint. Source: {_recorded(relative)}.*"
    )
    return "\n".join([*_grid(grid, heat_title), "", note])


def _first_load(row: dict) -> float | None:
    try:
        return float(str(row.get("load", row.get("load_start"))).split()[0])
    except (TypeError, ValueError, IndexError):
        return None


def _run_provenance(name: str, rows: list[dict], label: str) -> str:
    """Rows of one commit on one CPU (one run, or runs of one commit) in one line: the first
    and last date and the range of the 1-minute load average; otherwise row by row."""
    loads = [_first_load(r) for r in rows]
    if len(rows) < 2 or None in loads or len({(r.get("commit"), r.get("cpu")) for r in rows}) > 1:
        return _provenance(name, rows, label)
    dates = sorted({str(r.get("date")) for r in rows})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    low, high = f"{min(loads):.1f}", f"{max(loads):.1f}"
    load = low if low == high else f"{low}-{high}"
    return provenance_note(
        f"Measured {when}, commit {rows[0].get('commit')}, {rows[0].get('cpu')}, 1-minute "
        f"load {load}. Source: `benchmarks/results/{name}.json`."
    )


def _small_boards(name: str, relative: str) -> str:
    """Every board with a path from ``benchmarks/results/NAME.json``, then the 7x7 row read
    from the long run's result file and its closed-tour run's."""
    rows = json.loads((RESULTS / f"{name}.json").read_text())
    rows = [r for r in rows if r["total"] > 0 and r["board"] != "1x1"]
    head = ["board", "paths (all starts)", "min per start", "max per start", "closed per start"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for row in rows:
        cells = [row[k] for k in ("total", "min", "max", "closed_per_start")]
        lines.append(f"| {row['board']} | " + " | ".join(_cell(v) for v in cells) + " |")
    big = json.loads((ROOT / relative).read_text())
    closed_file = relative.replace("all-starts", "closed")
    closed = json.loads((ROOT / closed_file).read_text())
    cells = [big["total"], big["min"], big["max"], closed["count"]]
    lines.append(f"| {big['rows']}x{big['cols']} | " + " | ".join(_cell(v) for v in cells) + " |")
    return (
        "\n".join(lines)
        + "\n\n"
        + _run_provenance(name, rows, "board")
        + f"\n*{big['rows']}x{big['cols']}: {_recorded(relative)} and {_recorded(closed_file)}.*"
    )


_HUNT = re.compile(r"^<!-- hunt-table: ([\w-]+) -->$", re.M)
_FIRST_RUN = re.compile(r"^<!-- first-run-table: ([\w-]+) -->$", re.M)
_MINUTES = ("60", "120", "300", "600", "1800", "3600")


def _hunt_table(name: str) -> str:
    """One row per run and seed of ``benchmarks/edges_hunt.py``: the best score at 1, 2, 5,
    10, 30 and 60 minutes of hunt, the final one, and the boards of 463 or more per hour."""
    data = json.loads((RESULTS / f"{name}.json").read_text())
    marks = [m for m in _MINUTES if any(m in r.get("at", {}) for x in data["runs"]
                                         for r in x["rows"])]  # fmt: skip
    head = ["run", "seed", *(f"{int(m) // 60} min" for m in marks), "best", "hunt s",
            "restarts' boards by score", "463+ per hour (improver)", "verified"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|---|---:" + "|---:" * (len(head) - 2) + "|"]
    notes = []
    for run in data["runs"]:
        for row in run["rows"]:
            at = row.get("at", {})
            rate = (row.get("per_hour_this_run", {}).get("improve") or {}).get("463+")
            found = (row.get("parts", {}).get("restart") or {}).get("scores", {})
            top = sorted(found.items(), key=lambda kv: -int(kv[0]))[:3]
            boards = ", ".join(f"{n} of {sc}" for sc, n in top) or None
            cells = [run["label"], row["seed"], *(at.get(m) for m in marks), row["score"],
                     row["seconds"], boards, rate, row["verified"]]  # fmt: skip
            lines.append("| " + " | ".join("" if v is None else _cell(v) for v in cells) + " |")
        loads = [x for r in run["rows"] for x in (r["load_before"][0], r["load_after"][0])]
        notes.append(f"{run['label']}: {run['date']}, commit {run['commit']}, {run['cpu']}, "
                     f"1-minute load {min(loads):.1f}-{max(loads):.1f}"
                     + (f" ({run['note']})" if run.get("note") else ""))  # fmt: skip
    return (
        "\n".join(lines) + f"\n\n*Measured {'; '.join(notes)}. Source: "
        f"`benchmarks/results/{name}.json`.*"
    )


_PLAN = re.compile(r"^<!-- hunt-plan: ([\w-]+) -->$", re.M)


def _hunt_plan(name: str) -> str:
    """What a complete board (470 or more) would take, reckoned from the longest hunt's
    restarts: their placements per CPU hour at each of the last depths of the fill order."""
    data = json.loads((RESULTS / f"{name}.json").read_text())
    # runs whose restarts used Blackwood's breaks: the score hunt's end in complete boards
    rows = [(r, x) for r in data["runs"] for x in r["rows"] if x.get("depths_this_run")
            and x.get("settings", {}).get("search", {}).get("breaks") != "score"]  # fmt: skip
    if not rows:
        return "*No hunt in the results file recorded its depths yet.*"
    run, row = max(rows, key=lambda rx: rx[1]["seconds"])
    depths = row["depths_this_run"]
    rates = depths["per_cpu_hour"]
    last = depths["deepest_measured"]
    shown = [str(d) for d in range(last - 4, last + 2) if str(d) in rates]
    table = [
        "| pieces placed | " + " | ".join(shown) + " |",
        "|---" + "|---:" * len(shown) + "|",
        "| placements per CPU hour | " + " | ".join(_cell(rates[d]) for d in shown) + " |",
    ]
    hours = depths["cpu_hours_to_complete"]
    per_hour = row["per_hour_this_run"]["restart"]
    text = (
        f"The restarts of the longest run ({run['label']}, seed {row['seed']}) placed a piece "
        f"at these depths of Blackwood's fill order (256 pieces make a complete board, which "
        f"his at most 10 breaks make worth 470 or more):\n\n" + "\n".join(table) + "\n\n"
        f"Near the end each depth is reached about {_cell(depths['factor_per_depth'])} times "
        f"less often than the one before. Carried to the last depth, that is about "
        f"{_cell(hours)} CPU hours of restarts per complete board: some {_cell(hours / 64)} "
        f"hours on one 64-core machine, {_cell(hours / 6400)} on a hundred of them (the "
        f"restarts are independent; `--scheduler` spreads them over a Dask cluster). The "
        f"factor comes from the last depths counted often enough (up to {last}) and is "
        f"carried over {256 - last} more, so the figure may be off by a factor of ten either "
        f"way. In the same run the restarts found boards of 463 or more at "
        f"{_cell(per_hour['463+'])} and of 464 or more at {_cell(per_hour['464+'])} an hour "
        f"(on about one core: the other ran the improver), and the hunt's best was "
        f"{row['score']}: the improver adds a joint or two to such boards, while Blackwood's "
        f"470 was a complete board of this search."
    )
    return text + f"\n\n*Source: `benchmarks/results/{name}.json` ({run['date']}).*"


def _first_run_table(name: str) -> str:
    """Each family's first command from the wheel: median wall / CPU seconds, cold and warm."""
    data = json.loads((RESULTS / f"{name}.json").read_text())
    modes = list(next(iter(data["summary_median"].values())))
    shown = {"cold": "cold, kernels shipped", "compiled cold": "cold, nothing shipped"}
    head = ["command", *(f"{shown.get(m, m)} (wall / CPU s)" for m in modes)]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * len(modes) + "|"]
    for command, by_mode in data["summary_median"].items():
        cells = [f"{by_mode[m]['wall']:.1f} / {by_mode[m]['cpu']:.1f}" for m in modes]
        lines.append(f"| `{command}` | " + " | ".join(cells) + " |")
    loads = [r["load"] for r in data["runs"]]
    return (
        "\n".join(lines)
        + "\n\n"
        + provenance_note(
            f"Median of {data['rounds']} rounds; commit {data['commit']}, {data['cpu']}, "
            f"1-minute load {min(loads):.1f}-{max(loads):.1f}. Source: "
            f"`benchmarks/results/{name}.json`."
        )
    )


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = api.expand(markdown)
    markdown = http.expand(markdown)
    if "<!-- chart: speed -->" in markdown:
        markdown = markdown.replace("<!-- chart: speed -->", charts.speed_section(_charts["speed"]))
    markdown = _COUNTS.sub(lambda m: _count_table(m.group(1)), markdown)
    markdown = _BY_END.sub(
        lambda m: _by_end_row(m.group(1), int(m.group(2)), int(m.group(3))), markdown
    )
    markdown = _SMALL.sub(lambda m: _small_boards(m.group(1), m.group(2)), markdown)
    markdown = _HUNT.sub(lambda m: _hunt_table(m.group(1)), markdown)
    markdown = _FIRST_RUN.sub(lambda m: _first_run_table(m.group(1)), markdown)
    markdown = _PLAN.sub(lambda m: _hunt_plan(m.group(1)), markdown)
    return _MARK.sub(lambda m: _table(m.group(1), m.group(2).split() or None), markdown)


_DATA_IMAGE = re.compile(
    r'<img (?P<before>[^>]*?)src="data:image/(?P<kind>svg\+xml|png);base64,'
    r'(?P<data>[A-Za-z0-9+/=\s]+)"(?P<after>[^>]*)>'
)
_NO_ALT = re.compile(r'\s*alt="No description has been provided for this image"')


def _described(match: re.Match) -> str:
    """A picture the notebook shows gets the description it carries as alternative text (an
    SVG's ``<title>``, a PNG's ``Description`` chunk); nbconvert writes a placeholder."""
    import base64
    import html
    import io

    from PIL import Image

    before, after = _NO_ALT.sub("", match["before"]), _NO_ALT.sub("", match["after"])
    data = base64.b64decode(match["data"])
    if match["kind"] == "png":
        description = Image.open(io.BytesIO(data)).text.get("Description", "")
    else:
        title = re.search(r"<title>(.*?)</title>", data.decode("utf-8", "replace"), re.S)
        description = html.unescape(title[1]) if title else ""
    alt = html.escape(" ".join(description.split()), quote=True)
    src = f"data:image/{match['kind']};base64,{match['data']}"
    return f'<img {before}src="{src}" alt="{alt}"{after}>'


def on_page_content(html: str, page, config, files) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        html = _DATA_IMAGE.sub(_described, html)
    return html
