"""The paths and games pages in a real browser (Debian's chromium under Playwright): every page
opens without a script error, a full Connect Four game against the solver, the 10x10 paper game
played to the end with hints, the 10^6 x 10^6 map zoomed to a step. Screenshots of every page go
to the artifacts folder."""

from __future__ import annotations

import numpy as np
import pytest

from rompicapo.games.connect4 import parse_position
from rompicapo.paths import verify_path

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _watch(page):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


@pytest.mark.parametrize("path", ["/", "/static/paths.html", "/static/games.html"])
def test_pages_open_with_the_nav_header(page, artifacts, path):
    errors = _watch(page)
    page.goto(path)
    page.wait_for_selector("nav.site a")
    labels = page.locator("nav.site a").all_inner_texts()
    assert "Paths" in labels and "Games" in labels
    page.wait_for_timeout(1500)
    name = "index" if path == "/" else path.rsplit("/", 1)[-1].replace(".html", "")
    page.screenshot(path=str(artifacts / f"page-{name}.png"), full_page=True)
    assert errors == []


def test_connect_four_full_game_the_solver_never_loses_a_won_position(page, artifacts):
    errors = _watch(page)
    page.goto("/static/games.html")
    page.wait_for_function("document.body.dataset.c4Moves !== undefined", timeout=60_000)
    # the human (red, first) plays the leftmost free column: a weak player the solver beats
    for _ in range(30):
        page.wait_for_function("document.body.dataset.c4Busy !== '1'", timeout=60_000)
        if page.evaluate("document.body.dataset.c4Over") == "1":
            break
        moves = page.evaluate("document.body.dataset.c4Moves")
        heights = [moves.count(str(c)) for c in range(1, 8)]
        col = next(c for c in range(1, 8) if heights[c - 1] < 6)
        page.locator(f"#c4-board circle[data-col='{col}']").first.click()
        page.wait_for_function(
            f"document.body.dataset.c4Moves.length > {len(moves)} "
            "&& document.body.dataset.c4Busy !== '1'",
            timeout=60_000,
        )
    page.screenshot(path=str(artifacts / "games-connect4-end.png"), full_page=True)
    moves = page.evaluate("document.body.dataset.c4Moves")
    final = parse_position(moves)
    assert final.over, moves
    log = page.evaluate("window.c4Log")
    computer_had_a_win = any(
        e["to_move"] == 2 and e["sign"] is not None and e["sign"] > 0 for e in log
    )
    assert computer_had_a_win  # the weak human gives it away; the solver proves it
    # ... and from then on it never let go: yellow (the second player) won
    assert final.won and len(moves) % 2 == 0, moves
    assert "Yellow wins" in page.inner_text("#c4-status")
    assert errors == []


def test_tictactoe_and_nim_on_the_page(page, artifacts):
    page.goto("/static/games.html")
    page.wait_for_selector("#ttt-stats tr[data-search='minimax']", timeout=60_000)
    cells = page.locator("#ttt-stats tr[data-search='minimax'] td").all_inner_texts()
    assert cells[1] == "255,168"
    for cell in (4, 0):
        page.click(f"#ttt-board button[data-cell='{cell}']")
        page.wait_for_timeout(300)
    # the tree of the first move may still be on the page while the second one's loads (a
    # race seen at load 4): wait for the drawn tree itself, not only for a cut line
    page.wait_for_function(
        "document.querySelectorAll('#ttt-tree svg circle').length > 100"
        " && document.querySelector('#ttt-tree svg line.cut') !== null",
        timeout=30_000,
    )
    page.click("#nim-hint")
    page.wait_for_selector(".nim-heap button.hint")
    assert "take 2 from heap 3" in page.inner_text("#nim-status")
    assert "1110" in page.inner_text("#nim-sum")
    page.screenshot(path=str(artifacts / "games-ttt-nim.png"), full_page=True)


def test_paper_game_to_the_end_with_hints(page, artifacts):
    errors = _watch(page)
    page.goto("/static/paths.html")
    page.click("#g-board button[data-r='0'][data-c='0']")
    # an illegal jump is refused
    page.click("#g-board button[data-r='0'][data-c='1']")
    assert page.evaluate("document.body.dataset.written") == "1"
    assert "refused" in page.inner_text("#g-answer")
    # a few moves by hand (the first legal cell), then hints to the end
    for _ in range(4):
        page.locator("#g-board button.next").first.click()
    assert page.evaluate("document.body.dataset.written") == "5"
    page.click("#g-possible")
    page.wait_for_function("document.getElementById('g-answer').dataset.status", timeout=30_000)
    status = page.evaluate("document.getElementById('g-answer').dataset.status")
    while status == "impossible":  # the hand moves walked into a dead end: take one back
        page.click("#g-undo")
        page.evaluate("delete document.getElementById('g-answer').dataset.status")
        page.click("#g-possible")
        page.wait_for_function("document.getElementById('g-answer').dataset.status")
        status = page.evaluate("document.getElementById('g-answer').dataset.status")
    assert status == "found"
    written = int(page.evaluate("document.body.dataset.written"))
    for _ in range(20):  # hints one number at a time ...
        page.click("#g-hint")
        page.wait_for_function(f"Number(document.body.dataset.written) > {written}", timeout=30_000)
        written = int(page.evaluate("document.body.dataset.written"))
    page.click("#g-complete")  # ... then the hint that writes all the rest
    page.wait_for_function("document.body.dataset.written === '100'", timeout=30_000)
    assert "Done" in page.inner_text("#g-status")
    grid = np.zeros((10, 10), dtype=np.int64)
    for b in page.locator("#g-board button").all():
        grid[int(b.get_attribute("data-r")), int(b.get_attribute("data-c"))] = int(b.inner_text())
    path = np.argsort(grid.ravel())  # cell of step 1, 2, ...
    assert verify_path(path, 10, 10, start=(0, 0))
    page.screenshot(path=str(artifacts / "paths-paper-game-done.png"), full_page=True)
    assert errors == []


def test_map_of_a_million_by_a_million_goes_to_a_step(page, artifacts):
    from rompicapo.paths.blocks import BlockPath

    errors = _watch(page)
    page.goto("/static/paths.html")
    page.wait_for_function("document.body.dataset.mapReady === '1'", timeout=60_000)
    step = 123_456_789_012
    page.fill("#m-step", f"{step:,}")
    page.click("#m-goto")
    page.wait_for_function("document.getElementById('m-readout').dataset.cell", timeout=30_000)
    r, c = map(int, page.evaluate("document.getElementById('m-readout').dataset.cell").split(","))
    assert (r, c) == BlockPath(10**6, 10**6).cell_at(step)
    # the cell under the pointer at the centre of the map is that cell, and it says its step
    page.evaluate("delete document.getElementById('m-readout').dataset.step")
    page.locator("#m-canvas").scroll_into_view_if_needed()
    box = page.locator("#m-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2 + 2, box["y"] + box["height"] / 2 + 2)
    page.wait_for_function("document.getElementById('m-readout').dataset.step", timeout=30_000)
    assert int(page.evaluate("document.getElementById('m-readout').dataset.step")) == step
    page.wait_for_timeout(1500)  # tiles and the numbers of the window
    page.screenshot(path=str(artifacts / "paths-map-step.png"))
    z = int(page.evaluate("document.body.dataset.mapZ"))
    page.mouse.wheel(0, 300)
    page.wait_for_function(f"Number(document.body.dataset.mapZ) < {z}")
    # where is a cell: the step shown is the one at that cell
    page.fill("#m-r", "999999")
    page.fill("#m-c", "0")
    page.click("#m-where")
    page.wait_for_function("document.getElementById('m-readout').dataset.cell === '999999,0'")
    shown = int(page.evaluate("document.getElementById('m-readout').dataset.step"))
    assert BlockPath(10**6, 10**6).cell_at(shown) == (999_999, 0)
    assert errors == []


def test_counts_heat_map_live_and_shipped(page, artifacts):
    page.goto("/static/paths.html")
    page.wait_for_function("document.body.dataset.countTotal === '8642871600'", timeout=30_000)
    page.fill("#c-rows", "5")
    page.fill("#c-cols", "5")
    page.click("#c-count")
    page.wait_for_function("document.body.dataset.countTotal === '12400'", timeout=120_000)
    assert page.locator("#c-heat span").count() == 25
    page.locator("#counts").screenshot(path=str(artifacts / "paths-counts-5x5.png"))
