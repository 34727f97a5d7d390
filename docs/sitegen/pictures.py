"""The guides' pictures, computed by the toolkit when the site is built and drawn as SVG.

Every picture comes from a call with fixed inputs and seeds (the same picture at every build):
the toolkit finds the answer, this module only draws it. Paths and edge-matching boards use
the families' own SVG writers; the other families print text, drawn here cell by cell.
"""

from __future__ import annotations

from pathlib import Path

from sitegen import how, svg

SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
CONNECT4_MOVES = "4455"
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#86bcb6",
    "#d4a6c8",
)


def sudoku_svg(puzzle: tuple[tuple[int, ...], ...], solution, cell: int = 34) -> str:
    """The grid: the givens in black, the digits the solver wrote in blue."""
    n = len(puzzle)
    body = [f'<rect width="{n * cell}" height="{n * cell}" fill="white"/>']
    for r in range(n):
        for c in range(n):
            given = puzzle[r][c]
            digit = given or solution[r][c]
            colour = "#111" if given else "#1f5fbf"
            weight = "bold" if given else "normal"
            body.append(
                svg.text(
                    (c + 0.5) * cell, (r + 0.5) * cell, digit, 18, fill=colour, font_weight=weight
                )
            )
    for k in range(n + 1):
        width = 2.5 if k % 3 == 0 else 0.8
        body.append(
            f'<line x1="0" y1="{k * cell}" x2="{n * cell}" y2="{k * cell}" '
            f'stroke="#333" stroke-width="{width}"/>'
        )
        body.append(
            f'<line x1="{k * cell}" y1="0" x2="{k * cell}" y2="{n * cell}" '
            f'stroke="#333" stroke-width="{width}"/>'
        )
    return svg.document(n * cell, n * cell, body, "a solved Sudoku grid")


def queens_svg(cols: list[int], cell: int = 36) -> str:
    """A chessboard with a queen (a crowned disc) on each row's column."""
    n = len(cols)
    body = []
    for r in range(n):
        for c in range(n):
            fill = "#eeeed2" if (r + c) % 2 == 0 else "#769656"
            body.append(
                f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" '
                f'fill="{fill}"/>'
            )
        x, y = (cols[r] + 0.5) * cell, (r + 0.5) * cell
        body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.32:g}" fill="#222"/>')
        body.append(svg.text(x, y, "Q", 16, fill="white", font_weight="bold"))
    return svg.document(n * cell, n * cell, body, f"{n} queens, none attacking another")


def packing_svg(drawing: str, cell: int = 30) -> str:
    """A packing drawn with letters: each piece in its colour, its letter in its cells."""
    rows = drawing.split("\n")
    letters = sorted({ch for row in rows for ch in row if ch not in " ."})
    colour = {ch: PALETTE[k % len(PALETTE)] for k, ch in enumerate(letters)}
    body = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in " .":
                continue
            body.append(
                f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" '
                f'fill="{colour[ch]}"/>'
            )
            body.append(svg.text((c + 0.5) * cell, (r + 0.5) * cell, ch, 13, fill="white"))

    def at(r: int, c: int) -> str:
        return rows[r][c] if 0 <= r < len(rows) and 0 <= c < len(rows[r]) else " "

    for r, row in enumerate(rows):  # a thick line where two pieces meet
        for c in range(len(row) + 1):
            if at(r, c) != at(r, c - 1):
                body.append(
                    f'<line x1="{c * cell}" y1="{r * cell}" x2="{c * cell}" '
                    f'y2="{(r + 1) * cell}" stroke="#222" stroke-width="2.5"/>'
                )
    for r in range(len(rows) + 1):
        for c in range(max(len(x) for x in rows)):
            if at(r, c) != at(r - 1, c):
                body.append(
                    f'<line x1="{c * cell}" y1="{r * cell}" x2="{(c + 1) * cell}" '
                    f'y2="{r * cell}" stroke="#222" stroke-width="2.5"/>'
                )
    width = max(len(x) for x in rows) * cell
    return svg.document(width, len(rows) * cell, body, "a pentomino packing")


def connect4_svg(board_text: str, scores: list[int | None], cell: int = 44) -> str:
    """The position (X red, O yellow) and, under each column, its score for the player to move."""
    rows = [line.split() for line in board_text.split("\n")[:6]]
    width, height = 7 * cell, 6 * cell
    body = [f'<rect width="{width}" height="{height}" rx="8" fill="#1f4fa8"/>']
    fills = {"X": "#d62728", "O": "#f4c20d", ".": "white"}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            body.append(
                f'<circle cx="{(c + 0.5) * cell:g}" cy="{(r + 0.5) * cell:g}" '
                f'r="{cell * 0.4:g}" fill="{fills[ch]}"/>'
            )
    best = max(s for s in scores if s is not None)
    for c, score in enumerate(scores):
        text = "full" if score is None else f"{score:+d}" if score else "0"
        weight = "bold" if score == best else "normal"
        colour = "#2a7d2a" if score is not None and score > 0 else "#b22" if score else "#555"
        body.append(
            svg.text((c + 0.5) * cell, height + 16, text, 14, fill=colour, font_weight=weight)
        )
        body.append(svg.text((c + 0.5) * cell, height + 36, c + 1, 12, fill="#777"))
    return svg.document(
        width, height + 46, body, "a Connect Four position with the score of each column"
    )


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


def fill_order_svg(order, rows: int, cols: int, cell: int = 22) -> str:
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
        body.append(svg.text((c + 0.5) * cell, (r + 0.5) * cell, step + 1, 7.5, fill=colour))
    return svg.document(
        cols * cell, rows * cell, body, "the order in which the search fills the cells"
    )


def draw_all(out: Path) -> list[str]:
    """Every picture of the guides and how-it-works pages, into ``out``; their names."""
    from rompicapo.cover import pack, queens, sudoku
    from rompicapo.edges.blackwood import fill_order
    from rompicapo.games import Connect4, Connect4Solver, TicTacToe, alphabeta_tree
    from rompicapo.paths import construct
    from rompicapo.paths.render import write_svg

    written = []

    def save(name: str, svg: str) -> None:
        (out / name).write_text(svg)
        written.append(name)

    solved = sudoku.solve(SUDOKU)
    save("sudoku.svg", sudoku_svg(solved.puzzle.grid, solved.solutions[0]))
    eight = queens(8, limit=1, jobs=1)
    save("queens-8.svg", queens_svg(list(eight.placements[0])))
    packed = pack("pentominoes", "6x10", limit=1, jobs=1)
    save("pentominoes-6x10.svg", packing_svg(packed.drawings[0]))

    game = Connect4()
    state = game.initial()
    for move in CONNECT4_MOVES:
        state = game.apply(state, int(move))
    scores = Connect4Solver().analyse(CONNECT4_MOVES).scores
    save("connect4-4455.svg", connect4_svg(game.render(state), scores))

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
