"""The guides' pictures, computed by the toolkit when the site is built and drawn as SVG.

Every picture comes from a call with fixed inputs and seeds (the same picture at every build):
the toolkit finds the answer and draws it with the families' own renderers (what a notebook
shows); this module draws only what no result does (a search tree, a fill order).
"""

from __future__ import annotations

from pathlib import Path

from sitegen import how, svg

SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
CONNECT4_MOVES = "4455"


def tree_svg(root, describe=str, dx: int = 26, dy: int = 62) -> str:
    """An alpha-beta tree: MAX nodes as triangles up, MIN down, values inside, the moves a
    cutoff skipped as dashed red stubs."""
    leaves: list[int] = [0]
    placed: list[tuple] = []

    def layout(node, depth: int) -> float:
        kids = [layout(child, depth + 1) for child in node.children]
        stubs = []
        for _ in node.cut:
            stubs.append(leaves[0] * dx + dx / 2)
            leaves[0] += 1
        if not kids and not stubs:
            x = leaves[0] * dx + dx / 2
            leaves[0] += 1
        else:
            xs = kids + stubs
            x = (min(xs) + max(xs)) / 2
        placed.append((node, depth, x, kids, stubs))
        return x

    layout(root, 0)
    depth = max(d for _, d, *_ in placed)
    width, height = leaves[0] * dx, (depth + 1) * dy + 10
    body = []
    for node, d, x, kids, stubs in placed:
        y = d * dy + 22
        for child, cx in zip(node.children, kids, strict=True):
            body.append(f'<line x1="{x:g}" y1="{y:g}" x2="{cx:g}" y2="{y + dy:g}" stroke="#999"/>')
            if child.move is not None:
                body.append(
                    svg.text((x + cx) / 2 - 6, y + dy / 2, describe(child.move), 9, fill="#777")
                )
        for sx in stubs:
            body.append(
                f'<line x1="{x:g}" y1="{y:g}" x2="{sx:g}" y2="{y + dy * 0.6:g}" '
                'stroke="#d62728" stroke-dasharray="4 3"/>'
            )
            body.append(svg.text(sx, y + dy * 0.6 + 8, "cut", 9, fill="#d62728"))
    for node, d, x, _, _ in placed:
        y = d * dy + 22
        if node.player is None:
            body.append(
                f'<rect x="{x - 9:g}" y="{y - 9:g}" width="18" height="18" fill="#eee" '
                'stroke="#555"/>'
            )
        else:
            up = node.player > 0
            pts = (
                f"{x:g},{y - 12:g} {x - 12:g},{y + 9:g} {x + 12:g},{y + 9:g}"
                if up
                else f"{x:g},{y + 12:g} {x - 12:g},{y - 9:g} {x + 12:g},{y - 9:g}"
            )
            body.append(
                f'<polygon points="{pts}" fill="{"#dbe8f7" if up else "#fde2d2"}" stroke="#555"/>'
            )
        value = "?" if node.value is None else f"{node.value:+g}" if node.value else "0"
        body.append(svg.text(x, y + (2 if node.player and node.player > 0 else -1), value, 10))
    return svg.document(width, height, body, "an alpha-beta search tree with its cut branches")


def fill_order_svg(order, rows: int, cols: int, cell: int = 30) -> str:
    """Each cell numbered by when a search fills it, shaded from early (dark) to late."""
    body = []
    n = len(order)
    for step, flat in enumerate(order):
        r, c = divmod(int(flat), cols)
        shade = int(40 + 200 * step / max(n - 1, 1))
        body.append(
            f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" '
            f'fill="rgb({255 - shade},{255 - shade // 2},255)" stroke="#fff"/>'
        )
        colour = "white" if shade > 140 else "#222"
        body.append(svg.text((c + 0.5) * cell, (r + 0.5) * cell, step + 1, 11, fill=colour))
    return svg.document(
        cols * cell, rows * cell, body, "the order in which the search fills the cells"
    )


def draw_all(out: Path) -> list[str]:
    """Every picture of the guides and how-it-works pages, into ``out``; their names."""
    from rompicapo.cover import pack, queens, sudoku
    from rompicapo.cover.render import packing_svg, queens_svg, sudoku_svg
    from rompicapo.edges.blackwood import fill_order
    from rompicapo.games import Connect4Solver, TicTacToe, alphabeta_tree
    from rompicapo.games.render import connect4_svg
    from rompicapo.paths import construct
    from rompicapo.paths.render import write_svg

    written = []

    def save(name: str, svg: str) -> None:
        (out / name).write_text(svg)
        written.append(name)

    solved = sudoku.solve(SUDOKU)
    p = solved.puzzle
    save("sudoku.svg", sudoku_svg(solved.solutions[0], p.box, givens=p.grid))
    save("queens-8.svg", queens_svg(8, queens(8, limit=1, jobs=1).placements[0]))
    packed = pack("pentominoes", "6x10", limit=1, jobs=1)
    save("pentominoes-6x10.svg", packing_svg(packed.drawings[0]))
    c4 = Connect4Solver().analyse(CONNECT4_MOVES)
    save("connect4-4455.svg", connect4_svg(c4.moves, c4.scores, best=c4.best_columns))

    ttt = TicTacToe()
    position = ttt.initial()
    for move in (4, 0, 8, 2, 6):  # X centre, O corner, ...: a few moves from the end
        position = ttt.apply(position, move)
    tree = alphabeta_tree(ttt, position)
    save("tictactoe-tree.svg", tree_svg(tree.root, describe=lambda m: f"{m}"))

    small = construct(5, 7, start=(2, 3), seed=1)
    write_svg(small.path, 5, 7, out / "path-5x7.svg")
    written.append("path-5x7.svg")

    save("blackwood-fill-order.svg", fill_order_svg(fill_order(16, 16, "blackwood"), 16, 16))
    save("posa-rotation.svg", how.rotation_svg(how.rotation_example()))
    save("dancing-links.svg", how.links_svg(how.links_example()))
    return written


def heat_map_svg(table: list[list[int]], what: str, cell: int = 34) -> str:
    """A board of counts as a heat map (inline SVG, one line): light for few, dark blue for
    many, zero white; each cell's count in its tooltip and, when it fits, written in it."""
    rows, cols = len(table), len(table[0])
    values = [v for row in table for v in row]
    top = max(values) or 1
    margin = 16
    width, height = cols * cell + margin, rows * cell + margin
    body = []
    for r, row in enumerate(table):
        for c, v in enumerate(row):
            share = v / top
            # white to a deep blue, lightness falling with the count
            red, green = int(247 - 200 * share), int(251 - 150 * share)
            fill = "#ffffff" if v == 0 else f"rgb({red},{green},{int(255 - 60 * share)})"
            x, y = margin + c * cell, margin + r * cell
            body.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" '
                f'stroke="#ccc"><title>({r}, {c}): {v:,}</title></rect>'
            )
    body += [svg.text(margin + (c + 0.5) * cell, 8, f"c{c}", 9, fill="#666") for c in range(cols)]
    body += [svg.text(7, margin + (r + 0.5) * cell, f"r{r}", 9, fill="#666") for r in range(rows)]
    label = f"a heat map of the {what} on the {rows}x{cols} board, darker for more"
    return svg.document(width, height, body, label).replace("\n", "")
