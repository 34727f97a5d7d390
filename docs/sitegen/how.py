"""The how-it-works pictures: a Pósa rotation on a small board and the dancing-links memory
before and after covering one item, computed when the site is built.

- The rotation: Warnsdorff's rule (the move set from :func:`rompicapo.paths.parse_moves`) walks
  until it is stuck with cells left free; one Pósa rotation moves the end; the walk then goes
  on, and the finished path must pass :func:`rompicapo.paths.verify_path`, or the build fails.
- The links: the arrays the dancing-links engine lays out for a tiny problem
  (:class:`rompicapo.cover.Problem`, the engine's own :class:`~rompicapo.cover.engine.Search`).
  Covering an item is Knuth's three loops, done here on a copy; the build checks it against
  the engine by covering every item of one option both ways and comparing the arrays.
"""

from __future__ import annotations

from html import escape

import numpy as np

from sitegen import svg

BACKGROUND = '<rect width="100%" height="100%" fill="white"/>'
ADD, REMOVE, END, FREE, TURNED = "#2a9d3a", "#d62728", "#f4c20d", "#9ecae1", "#fde2d2"


# --------------------------------------------------------------------------------------------
# Paths: Warnsdorff's walk, stuck, and one Pósa rotation
# --------------------------------------------------------------------------------------------


class _Walk:
    """Warnsdorff's rule on a small board: the free neighbour with the fewest free
    neighbours, ties to the cell farthest from the centre (as the constructor does)."""

    def __init__(self, rows: int, cols: int, moves: str) -> None:
        from rompicapo.paths import parse_moves

        self.rows, self.cols = rows, cols
        self.moves = parse_moves(moves).moves

    def neighbours(self, cell: tuple[int, int]) -> list[tuple[int, int]]:
        r, c = cell
        return [
            (r + dr, c + dc)
            for dr, dc in self.moves
            if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols
        ]

    def extend(self, path: list[tuple[int, int]]) -> list[tuple[int, int]]:
        seen = set(path)
        cr, cc = (self.rows - 1) / 2, (self.cols - 1) / 2
        path = list(path)
        while True:
            free = [v for v in self.neighbours(path[-1]) if v not in seen]
            if not free:
                return path

            def rank(v: tuple[int, int]) -> tuple[int, float]:
                degree = sum(w not in seen for w in self.neighbours(v))
                return degree, -((v[0] - cr) ** 2 + (v[1] - cc) ** 2)

            step = min(free, key=rank)
            path.append(step)
            seen.add(step)

    def rotation(self, path: list[tuple[int, int]]) -> int | None:
        """The place i of a rotation (add end-path[i], drop path[i]-path[i+1]) whose new end,
        path[i+1], has a free neighbour; the shortest reversal first."""
        seen = set(path)
        at = {cell: k for k, cell in enumerate(path)}
        places = sorted(
            (at[v] for v in self.neighbours(path[-1]) if at[v] < len(path) - 2), reverse=True
        )
        for i in places:
            if any(w not in seen for w in self.neighbours(path[i + 1])):
                return i
        return None


def rotation_example(rows: int = 5, cols: int = 5, start: tuple[int, int] = (1, 2)) -> dict:
    """The stuck walk, the rotation and the finished path (checked by the verifier)."""
    from rompicapo.paths import verify_path

    walk = _Walk(rows, cols, "caselle")
    stuck = walk.extend([start])
    i = walk.rotation(stuck)
    if len(stuck) == rows * cols or i is None:
        raise RuntimeError(f"the walk on {rows}x{cols} from {start} needs no rotation")
    rotated = stuck[: i + 1] + stuck[i + 1 :][::-1]
    done = walk.extend(rotated)
    check = verify_path([r * cols + c for r, c in done], rows, cols, start=start)
    if not check:
        raise RuntimeError(f"the rotation picture's path does not verify: {check.reason}")
    return {
        "rows": rows,
        "cols": cols,
        "stuck": stuck,
        "rotated": rotated,
        "done": done,
        "added": (stuck[-1], stuck[i]),
        "removed": (stuck[i], stuck[i + 1]),
    }


def _board(ex: dict, path, x0: float, title: str, marks: dict, tint: dict, cell: int) -> list[str]:
    rows, cols = ex["rows"], ex["cols"]
    step = {c: k + 1 for k, c in enumerate(path)}

    def centre(c: tuple[int, int]) -> tuple[float, float]:
        return x0 + (c[1] + 0.5) * cell, 30 + (c[0] + 0.5) * cell

    body = [svg.text(x0 + cols * cell / 2, 12, title, 13, font_weight="bold")]
    for r in range(rows):
        for c in range(cols):
            fill = END if (r, c) == path[-1] else tint.get((r, c), "white")
            body.append(
                f'<rect x="{x0 + c * cell:g}" y="{30 + r * cell:g}" width="{cell}" '
                f'height="{cell}" fill="{fill}" stroke="#bbb"/>'
            )
    for (a, b), (colour, dash) in marks.items():
        (xa, ya), (xb, yb) = centre(a), centre(b)
        body.append(
            f'<line x1="{xa:g}" y1="{ya:g}" x2="{xb:g}" y2="{yb:g}" stroke="{colour}" '
            f'stroke-width="4"{dash} stroke-linecap="round" opacity="0.8"/>'
        )
    for c, k in step.items():
        x, y = centre(c)
        body.append(
            f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.27:g}" fill="white" opacity="0.9"/>'
        )
        body.append(svg.text(x, y, k, 13))
    return body


def rotation_svg(ex: dict, cell: int = 46) -> str:
    """Three boards: stuck (the edge to add, the edge to drop), rotated, finished."""
    width = ex["cols"] * cell
    gap = 30
    dashed = ' stroke-dasharray="7 5"'
    i = ex["stuck"].index(ex["removed"][0])
    moved = {c: TURNED for c in ex["stuck"][i + 1 :]}
    free = {
        (r, c): FREE
        for r in range(ex["rows"])
        for c in range(ex["cols"])
        if (r, c) not in set(ex["stuck"])
    }
    boards = [
        (ex["stuck"], f"stuck at step {len(ex['stuck'])}",
         {ex["added"]: (ADD, dashed), ex["removed"]: (REMOVE, "")}, {**moved, **free}),
        (ex["rotated"], "after the rotation",
         {ex["added"]: (ADD, ""), ex["removed"]: (REMOVE, dashed)}, {**moved, **free}),
        (ex["done"], "the walk goes on: done", {}, free),
    ]  # fmt: skip
    body = [BACKGROUND]  # readable in the site's dark scheme too
    for k, (path, title, marks, tint) in enumerate(boards):
        body += _board(ex, path, k * (width + gap), title, marks, tint, cell)
    total = 3 * width + 2 * gap
    height = 30 + ex["rows"] * cell
    legend = [
        (END, "the path's end"),
        (TURNED, "the reversed part"),
        (FREE, "cells left free"),
        (ADD, "edge added"),
        (REMOVE, "edge dropped"),
    ]
    x = 0.0
    for colour, label in legend:
        body.append(f'<rect x="{x:g}" y="{height + 10:g}" width="14" height="14" fill="{colour}"/>')
        body.append(
            f'<text x="{x + 20:g}" y="{height + 17:g}" font-size="12" '
            f'dominant-baseline="central">{escape(label)}</text>'
        )
        x += 34 + 6.4 * len(label)
    return svg.document(total, height + 32, body, "a Pósa rotation: the path before and after")


# --------------------------------------------------------------------------------------------
# Cover: the dancing-links memory before and after covering an item
# --------------------------------------------------------------------------------------------

ITEMS = ["a", "b", "c", "d", "e"]
OPTIONS = [["a", "c"], ["a", "d", "e"], ["b", "c", "e"], ["b", "d"], ["c", "e"]]


def links_example(cover: str = "a") -> dict:
    """The engine's dancing-links arrays for a tiny problem, before and after covering
    ``cover``."""
    from rompicapo.cover import Problem
    from rompicapo.cover.engine import Search

    problem = Problem(primary=list(ITEMS))
    for option in OPTIONS:
        problem.add_option(option)
    arrays = problem.arrays()
    names = ["llink", "rlink", "top", "ulink", "dlink", "color", "length"]
    before = dict(zip(names, Search(arrays, engine="links").links[:7], strict=True))
    after = {k: v.copy() for k, v in before.items()}
    _cover(after, problem.item_index(cover) + 1)
    # the check: cover every item of option 1 here and compare with the engine's own givens
    mine = {k: v.copy() for k, v in before.items()}
    for item in OPTIONS[1]:
        _cover(mine, problem.item_index(item) + 1)
    theirs = Search(arrays, engine="links", givens=[1]).links[:7]
    if not all(np.array_equal(mine[k], t) for k, t in zip(names, theirs, strict=True)):
        raise RuntimeError("the picture's cover differs from the engine's")
    return {"before": before, "after": after, "covered": problem.item_index(cover) + 1}


def _cover(m: dict, i: int) -> None:
    """Knuth's cover(i): hide every option of item i from its other items, then unlink i."""
    top, up, down, length = m["top"], m["ulink"], m["dlink"], m["length"]
    column = []
    p = down[i]
    while p != i:
        column.append(p)
        p = down[p]
    for p in column:
        first, last = p, p  # an option's nodes sit side by side between two spacers
        while top[first - 1] > 0:
            first -= 1
        while top[last + 1] > 0:
            last += 1
        for q in [*range(p + 1, last + 1), *range(first, p)]:
            down[up[q]], up[down[q]] = down[q], up[q]
            length[top[q]] -= 1
    left, right = m["llink"][i], m["rlink"][i]
    m["rlink"][left], m["llink"][right] = right, left


def _option_rows(top: np.ndarray, n_items: int) -> dict[int, int]:
    """The row of each option node (0 for the headers), by the spacers between options."""
    row, rows = 0, {}
    for p in range(n_items + 1, len(top)):
        if top[p] <= 0:
            row += 1
        else:
            rows[p] = row
    return rows


def _links_panel(m: dict, x0: float, title: str, covered: int | None) -> list[str]:
    n = len(ITEMS)
    dx, dy, y0 = 62, 44, 56
    top, dlink, rlink, length = m["top"], m["dlink"], m["rlink"], m["length"]
    rows = _option_rows(top, n)

    def at(p: int) -> tuple[float, float]:
        if p <= n:
            return x0 + 30 + p * dx, y0
        return x0 + 30 + top[p] * dx, y0 + rows[p] * dy

    linked = set(range(n + 1))
    body = [svg.text(x0 + 30 + (n + 1) * dx / 2, 14, title, 13, font_weight="bold")]
    for i in range(1, n + 1):  # each item's vertical list as the links now stand
        p = i
        while True:
            q = dlink[p]
            (xa, ya), (xb, yb) = at(p), at(q)
            if q == i:  # the wrap back to the header: a hook down the right of the column
                yb = y0 + (len(set(rows.values())) + 0.6) * dy
                xa2 = xa + 10
                body.append(
                    f'<path d="M{xa:g},{ya + 11:g} L{xa:g},{yb:g} L{xa2:g},{yb:g} '
                    f'L{xa2:g},{y0:g} L{xb + 16:g},{y0:g}" fill="none" stroke="#1f5fbf" '
                    'stroke-width="1" opacity="0.5"/>'
                )
                break
            body.append(
                f'<line x1="{xa:g}" y1="{ya + 11:g}" x2="{xb:g}" y2="{yb - 11:g}" '
                'stroke="#1f5fbf" stroke-width="1.6" marker-end="url(#arrow)"/>'
            )
            linked.add(q)
            p = q
    p = 0  # the item list: 0 -> ... -> 0
    while True:
        q = rlink[p]
        if q == 0:
            break
        (xa, ya), (xb, yb) = at(p), at(q)
        body.append(
            f'<line x1="{xa + 16:g}" y1="{ya:g}" x2="{xb - 17:g}" y2="{yb:g}" '
            'stroke="#555" stroke-width="1.6" marker-end="url(#arrow)"/>'
        )
        p = q
    for k, option in enumerate(OPTIONS):
        body.append(svg.text(x0 + 30, y0 + (k + 1) * dy, " ".join(option), 11, fill="#777"))
    for p in list(range(n + 1)) + sorted(rows):
        x, y = at(p)
        hidden = p not in linked or p == covered
        fill = "#eee" if hidden else "#dbe8f7" if p <= n else "white"
        dash = ' stroke-dasharray="3 2"' if hidden else ""
        colour = "#aaa" if hidden else "#222"
        body.append(
            f'<rect x="{x - 16:g}" y="{y - 11:g}" width="32" height="22" rx="3" fill="{fill}" '
            f'stroke="{colour}"{dash}/>'
        )
        label = "head" if p == 0 else ITEMS[p - 1] if p <= n else ITEMS[top[p] - 1]
        body.append(svg.text(x, y, label, 11, fill=colour))
        body.append(svg.text(x - 22, y - 12, p, 8, fill="#999"))
        if 0 < p <= n:
            body.append(svg.text(x, y - 19, f"len {length[p]}", 9, fill=colour))
    return body


def links_svg(ex: dict) -> str:
    """Two panels: the links as the engine lays them out, and after cover(a)."""
    width = 30 + (len(ITEMS) + 1) * 62
    n_rows = len(OPTIONS)
    height = 56 + (n_rows + 1) * 44
    covered = ex["covered"]
    body = [
        BACKGROUND,
        '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>',
    ]
    body += _links_panel(ex["before"], 0, "as laid out", None)
    body += _links_panel(ex["after"], width + 40, f"after cover({ITEMS[covered - 1]})", covered)
    return svg.document(
        2 * width + 40, height, body, "dancing links before and after covering an item"
    )
