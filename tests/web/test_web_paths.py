"""The paths page's API: paper-game hints, board maps and tiles, counts."""

from __future__ import annotations

import io
import json
import time

import numpy as np
from PIL import Image

from rompicapo.paths import verify_path
from rompicapo.web.app import STATIC

BIG = {"rows": 1_000_000, "cols": 1_000_000}


def test_hint_completes_the_prefix_and_the_path_verifies(client):
    prefix = [[0, 0], [0, 3], [0, 6]]
    d = client.post("/api/paths/prefix", json={"rows": 10, "cols": 10, "prefix": prefix}).json()
    assert d["status"] == "found" and d["verified"] is True
    assert d["path"][:3] == prefix
    flat = np.array([r * 10 + c for r, c in d["path"]])
    assert verify_path(flat, 10, 10, start=(0, 0))
    dead = [[0, 0], [0, 3], [2, 1], [2, 4], [4, 2], [1, 2], [3, 4], [0, 4]]
    d = client.post("/api/paths/prefix", json={"rows": 5, "cols": 5, "prefix": dead}).json()
    assert d["status"] == "impossible" and d["proof"]


def test_prefix_refusals(client):
    for body in (
        {"rows": 10, "cols": 10, "prefix": [[0, 0], [0, 1]]},  # not a jump
        {"rows": 10, "cols": 10, "prefix": [[0, 0], [0, 3], [0, 0]]},
        {"rows": 31, "cols": 10, "prefix": [[0, 0]]},
        {"rows": 10, "cols": 10, "prefix": []},
        {"rows": 10, "cols": 10, "prefix": [[0, 99]]},
        {"rows": 10, "cols": 10, "prefix": [[0, 0]], "time_limit": 1e9},
        {"rows": 10, "cols": 10, "prefix": "0,0"},
    ):
        r = client.post("/api/paths/prefix", json=body)
        assert r.status_code == 400, body
        assert "\n" not in r.json()["error"]


def _board(client, **spec):
    r = client.post("/api/paths/board", json=spec)
    assert r.status_code == 200, r.text
    return r.json()


def test_map_of_a_huge_board_lookups_agree(client):
    b = _board(client, **BIG)
    assert b["method"] == "blocks" and b["cells"] == 10**12 and b["start"] == [0, 0]
    assert "grid" not in b
    h = {"board": b["board"]}
    for step in (1, 2, 123_456_789_012, 10**12):
        cell = client.post("/api/paths/cell", json={**h, "step": step}).json()["cell"]
        back = client.post("/api/paths/step", json={**h, "r": cell[0], "c": cell[1]}).json()
        assert back["step"] == step
    assert client.post("/api/paths/cell", json={**h, "step": 10**12}).json()["cell"] == b["end"]
    # consecutive steps are one jump apart (the path is a path)
    w = client.post("/api/paths/window", json={**h, "r0": 500_000, "c0": 500_000, "h": 20,
                                               "w": 20}).json()  # fmt: skip
    steps = np.array(w["steps"])
    assert len(np.unique(steps)) == 400
    for s in steps.ravel()[:50].tolist():
        a = client.post("/api/paths/cell", json={**h, "step": s}).json()["cell"]
        nxt = client.post("/api/paths/cell", json={**h, "step": s + 1}).json()["cell"]
        d = (abs(a[0] - nxt[0]), abs(a[1] - nxt[1]))
        assert d in ((3, 0), (0, 3), (2, 2))


def test_tiles_are_pngs_at_every_zoom(client):
    b = {"b": _board(client, **BIG)["board"]}
    for z, x, y in ((-12, 0, 0), (-6, 3, 5), (0, 100, 7), (3, 0, 0), (6, 99, 42)):
        r = client.get("/api/paths/tile", params={**b, "z": z, "x": x, "y": y})
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        img = Image.open(io.BytesIO(r.content))
        assert img.size == (256, 256)
    # the colour follows the step: at z=-12 the whole board is one tile (244 pixels), blue at
    # the start (top rows), red at the end (bottom rows), background beyond the board
    whole = client.get("/api/paths/tile", params={**b, "z": -12, "x": 0, "y": 0})
    img = np.asarray(Image.open(io.BytesIO(whole.content)), dtype=int)
    top, bottom = img[0, 0], img[240, 0]
    assert top[2] > top[0] + 40 and bottom[0] > bottom[2] + 40
    assert tuple(img[250, 250]) == (238, 240, 244)
    off = client.get("/api/paths/tile", params={**b, "z": -12, "x": 50, "y": 50})
    assert off.status_code == 200  # off the board: background
    # a tile reads only a board shown before: an unknown handle builds nothing
    r = client.get("/api/paths/tile", params={"b": "nothing", "z": 0, "x": 0, "y": 0})
    assert r.status_code == 404


def test_small_boards_and_other_starts(client):
    b = _board(client, rows=10, cols=10)
    grid = np.array(b["grid"])
    assert sorted(grid.ravel().tolist()) == list(range(1, 101)) and grid[0, 0] == 1
    b = _board(client, rows=12, cols=9, sr=4, sc=5)
    grid = np.array(b["grid"])
    assert b["method"] == "greedy" and grid[4, 5] == 1
    order = np.argsort(grid.ravel())
    assert verify_path(order, 12, 9, start=(4, 5))
    # another start on a big board: the block cycle read from there, checked on a window
    b = _board(client, rows=1000, cols=1000, sr=3, sc=4)
    assert b["method"] == "blocks-cycle" and b["start"] == [3, 4]
    first = client.post("/api/paths/cell", json={"board": b["board"], "step": 1}).json()
    assert first["cell"] == [3, 4]
    # 9 rows (no block construction) and 1.8 M cells (too many for the greedy path here)
    r = client.post("/api/paths/board", json={"rows": 9, "cols": 200_000, "sr": 1, "sc": 1})
    assert r.status_code == 400 and "too large" in r.json()["error"]


def test_count_job_matches_the_shipped_counts(client):
    shipped = json.loads((STATIC / "paths-counts.json").read_text())["boards"]
    assert sum(map(sum, shipped["7x7"]["table"])) == shipped["7x7"]["total"] == 8_642_871_600
    r = client.post("/api/paths/count", json={"rows": 5, "cols": 5})
    assert r.status_code == 200, r.text
    job = r.json()["id"]
    deadline = time.monotonic() + 120
    while (s := client.get(f"/api/jobs/{job}").json())["state"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert s["state"] == "done", s
    assert s["result"]["table"] == shipped["5x5"]["table"]
    assert s["result"]["total"] == 12_400
    r = client.post("/api/paths/count", json={"rows": 7, "cols": 7})
    assert r.status_code == 400


def test_count_job_reports_progress_and_stops(client):
    """A 6x6 count (8,250,272 paths) streams progress; stopped at once, it says so."""
    r = client.post("/api/paths/count", json={"rows": 6, "cols": 6})
    job = r.json()["id"]
    client.post(f"/api/jobs/{job}/stop")
    deadline = time.monotonic() + 120
    while (s := client.get(f"/api/jobs/{job}").json())["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the count ignores stop"
        time.sleep(0.05)
    assert s["state"] == "stopped", s
    r = client.post("/api/paths/count", json={"rows": 6, "cols": 6})
    job = r.json()["id"]
    while (s := client.get(f"/api/jobs/{job}").json())["state"] in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert s["state"] == "done" and s["event"]["unit"] == "jobs", s
    assert s["result"]["total"] == 8_250_272  # the shipped 6x6 table's total
