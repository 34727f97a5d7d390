"""The exact-cover and edge-matching pages in a real browser (Debian's chromium under
Playwright): a Sudoku solved and generated in the page (answers checked by the independent
verifier), a 5 s Eternity II solve whose score rises, Blackwood's 470 board in the viewer with
the piece under the pointer read. Screenshots go to the artifacts folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from rompicapo.cover.verify import sudoku_ok

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).resolve().parents[1] / "data" / "eternity2"


def _watch(page):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _grid(line):
    return [[0 if ch == "." else int(ch) for ch in line[r * 9 : r * 9 + 9]] for r in range(9)]


def _cells(page):
    return page.evaluate("[...document.querySelectorAll('#sd-grid input')].map(i => i.value)")


def test_sudoku_solve_and_generate_in_the_page(page, artifacts):
    errors = _watch(page)
    page.goto("/static/cover.html")
    page.wait_for_selector("#q-status:has-text('of 92')", timeout=60_000)
    page.wait_for_selector("#p-status:has-text('checked: yes')", timeout=60_000)
    puzzle = "".join(v or "." for v in _cells(page))
    page.click("#sd-solve")
    page.wait_for_selector("#sd-status:has-text('unique solution')", timeout=60_000)
    solved = _cells(page)
    assert all(solved)
    assert sudoku_ok(_grid(puzzle), _grid("".join(solved)), (3, 3))
    page.screenshot(path=str(artifacts / "page-cover.png"), full_page=True)
    # generate: a new symmetric puzzle, unique (solved again in the page, checked here)
    page.fill("#sd-seed", "11")
    page.click("#sd-generate")
    page.wait_for_selector("#sd-status:has-text('clues')", timeout=60_000)
    generated = "".join(v or "." for v in _cells(page))
    assert generated != puzzle and generated.count(".") > 30
    assert all((generated[k] == ".") == (generated[80 - k] == ".") for k in range(81))
    page.click("#sd-hint")
    page.wait_for_selector("#sd-explain:has-text('single')", timeout=30_000)
    page.click("#sd-solve")
    page.wait_for_selector("#sd-status:has-text('unique solution')", timeout=60_000)
    assert sudoku_ok(_grid(generated), _grid("".join(_cells(page))), (3, 3))
    page.screenshot(path=str(artifacts / "cover-generated.png"), full_page=True)
    # a .dlx upload listed in a job: Langford pairs for n = 7 (52 sequences, each twice)
    dlx = Path(__file__).resolve().parents[1] / "data" / "exact-cover" / "langford-7.dlx"
    page.set_input_files("#x-file", str(dlx))
    page.select_option("#x-mode", "list")
    page.fill("#x-limit", "200")
    page.click("#x-start")
    page.wait_for_selector("#x-status:has-text('exactly')", timeout=60_000)
    assert "exactly 52 solutions" in page.inner_text("#x-status")
    assert page.inner_text("#x-out").count("solution ") == 52
    page.screenshot(path=str(artifacts / "cover-dlx.png"), full_page=True)
    assert errors == []


def test_an_error_shows_next_to_the_control_that_caused_it(page):
    """A bad paste is refused under the Load button that was clicked, not at the page's top."""
    errors = _watch(page)
    page.goto("/static/cover.html")
    page.wait_for_selector("#q-status:has-text('of 92')", timeout=60_000)
    page.fill("#sd-paste", "12345")
    page.click("#sd-load")
    page.wait_for_selector("#error:has-text('got 5')")
    button = page.locator("#sd-load").bounding_box()
    error = page.locator("#error").bounding_box()
    assert 0 <= error["y"] - (button["y"] + button["height"]) < 60, (button, error)
    assert errors == []


def test_the_edges_page_opens_on_a_sample_board(page):
    """No grey empty board: Blackwood's published 470, its ten mismatches marked, unasked."""
    errors = _watch(page)
    page.goto("/static/edges.html")
    page.wait_for_selector("#e-score:has-text('score 470 / 480')", timeout=60_000)
    assert page.locator("#e-board line.bad").count() == 10
    assert errors == []


def test_eternity2_viewer_reads_the_piece_under_the_pointer(page, artifacts):
    errors = _watch(page)
    page.goto("/static/edges.html")
    page.wait_for_function("document.body.dataset.edgesReady === '1'", timeout=60_000)
    page.evaluate("document.body.dataset.edgesReady = ''")
    page.set_input_files("#e-board-file", str(DATA / "eternity2_board_blackwood_470.txt"))
    page.wait_for_selector("#e-score:has-text('score 470 / 480')", timeout=60_000)
    assert page.locator("#e-board line.bad").count() == 10  # 480 - 470 mismatched joints
    assert page.input_value("#e-url").startswith("https://e2.bucas.name/")
    # point at row 3, column 5 and read it from the file independently
    placed = {}
    for line in (DATA / "eternity2_board_blackwood_470.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and not line.startswith("#"):
            r, c, k, rot = map(int, parts)
            placed[(r, c)] = (k, rot)
    box = page.locator("#e-board").bounding_box()
    s = box["width"] / 16
    page.mouse.move(box["x"] + 5.5 * s, box["y"] + 3.5 * s)
    page.wait_for_selector("#e-hover:has-text('row 3, column 5')")
    k, rot = placed[(3, 5)]
    assert page.evaluate("document.getElementById('e-hover').dataset.piece") == str(k)
    assert page.evaluate("document.getElementById('e-hover').dataset.rotation") == str(rot)
    page.screenshot(path=str(artifacts / "page-edges.png"), full_page=True)
    assert errors == []


def test_eternity2_live_solve_score_rises(page, artifacts):
    errors = _watch(page)
    page.goto("/static/edges.html")
    page.wait_for_function("document.body.dataset.edgesReady === '1'", timeout=60_000)
    page.fill("#s-time", "5")
    page.click("#s-start")
    page.wait_for_function("document.body.dataset.edgesDone === '1'", timeout=120_000)
    history = page.evaluate("window.edgesHistory()")
    scores = [h["score"] for h in history if h["score"] is not None]
    assert len(scores) >= 2 and scores[-1] > scores[0], history
    assert page.locator("#s-chart polyline.score").count() == 1
    text = page.inner_text("#s-status")
    assert text.startswith("done") and "verified: true" in text
    page.screenshot(path=str(artifacts / "edges-solve.png"), full_page=True)
    assert errors == []


def test_hunt_panel_follows_a_hunt_file(browser, serve, tmp_path, artifacts):
    from rompicapo.edges import HuntSettings, hunt
    from rompicapo.edges.generate import generate

    # an improver-only hunt of a puzzle it cannot solve in 4 s: a best score and operators
    puzzle, _ = generate(8, 8, frame_colours=4, inner_colours=6, seed=2)
    db = tmp_path / "e.sqlite"
    hunt(puzzle, db, time_limit=4, jobs=1, seed=2,
         settings=HuntSettings(restarts=False, improve_seconds=2))  # fmt: skip
    with serve(jobs=1, warm_up=False, hunt_db=db) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page = context.new_page()
        errors = _watch(page)
        page.goto(f"{url}/static/edges.html")
        page.wait_for_function("document.querySelector('#h-ops').textContent.length > 0")
        status = page.locator("#h-status").text_content()
        assert status.startswith("e.sqlite: best ") and "/112" in status
        ops = page.locator("#h-ops").text_content()
        assert ops.startswith("improver's operators by weight") and "(+" in ops
        page.click("#h-show")
        page.locator("#hunt").screenshot(path=str(artifacts / "edges-hunt-panel.png"))
        context.close()
    assert errors == []
