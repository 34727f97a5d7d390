"""The exact-cover routes through Starlette's test client; every answer is checked by the
independent verifier (rompicapo.cover.verify), bad input is a 400 with one line."""

from __future__ import annotations

import time

import pytest
from waiting import wait_until

from rompicapo.cover import parse_dlx
from rompicapo.cover.verify import cover_violations, queens_ok, sudoku_ok, tiling_ok

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
# one row given: many solutions
LOOSE = "123456789" + "." * 72


def _grid(line, n=9):
    return [[0 if ch == "." else int(ch, 36) for ch in line[r * n : r * n + n]] for r in range(n)]


def _wait(client, job_id, seconds=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        s = client.get(f"/api/jobs/{job_id}").json()
        if s["state"] != "running":
            return s
        time.sleep(0.05)
    raise AssertionError("the job did not end")


def test_sudoku_solve_unique_and_not(client):
    r = client.post("/api/cover/sudoku/solve", json={"puzzle": EASY}).json()
    assert r["unique"] and r["solutions"] == 1 and r["verified"] is True
    assert sudoku_ok(_grid(EASY), _grid(r["solution"]), (3, 3))
    r = client.post("/api/cover/sudoku/solve", json={"puzzle": LOOSE}).json()
    assert r["solutions"] == 2 and not r["unique"]
    assert sudoku_ok(_grid(LOOSE), _grid(r["solution"]), (3, 3))


def test_sudoku_hint_agrees_with_the_solution_and_rate(client):
    solved = client.post("/api/cover/sudoku/solve", json={"puzzle": EASY}).json()
    solution = _grid(solved["solution"])
    line = EASY
    for _ in range(10):  # ten hints in a row, each applied
        h = client.post("/api/cover/sudoku/hint", json={"puzzle": line}).json()
        assert h["kind"] in ("naked single", "hidden single"), h
        r, c = h["cell"]
        assert line[r * 9 + c] == "." and solution[r][c] == h["digit"]
        line = line[: r * 9 + c] + str(h["digit"]) + line[r * 9 + c + 1 :]
    rate = client.post("/api/cover/sudoku/rate", json={"puzzle": EASY}).json()
    assert rate["label"] == "easy" and rate["solutions"] == 1


def test_sudoku_generate_symmetric_unique(client):
    g = client.post("/api/cover/sudoku/generate", json={"symmetric": True, "seed": 5}).json()
    p, s = g["puzzle"], g["solution"]
    assert g["verified"] and g["found"]
    assert all((p[k] == ".") == (p[80 - k] == ".") for k in range(81))
    assert sudoku_ok(_grid(p), _grid(s), (3, 3))
    again = client.post("/api/cover/sudoku/solve", json={"puzzle": p}).json()
    assert again["unique"] and again["solution"] == s
    # a 4x4 with a wanted difficulty
    g = client.post("/api/cover/sudoku/generate", json={"box": "2x2", "difficulty": "easy"}).json()
    assert g["size"] == 4 and g["rating"] == "easy"
    assert sudoku_ok(_grid(g["puzzle"], 4), _grid(g["solution"], 4), (2, 2))


def test_queens_and_packings(client):
    seen = set()
    for k in range(5):
        r = client.post("/api/cover/queens", json={"n": 8, "index": k}).json()
        assert r["count"] == 92 and queens_ok(8, r["columns"])
        seen.add(tuple(r["columns"]))
    assert len(seen) == 5
    r = client.post("/api/cover/queens", json={"n": 4, "index": 2})
    assert r.status_code == 400 and "only 2" in r.json()["error"]
    from rompicapo.cover.polyomino import parse_pieces, parse_region

    shapes, region = parse_pieces("pentominoes"), parse_region("6x10")
    drawings = set()
    for k in (0, 1):
        d = client.post("/api/cover/polyomino", json={"region": "6x10", "index": k}).json()
        assert tiling_ok(shapes, region, d["drawing"])
        drawings.add(d["drawing"])
    assert len(drawings) == 2
    c = client.post("/api/cover/polyomino/count", json={"pieces": "tetrominoes", "region": "4x5"})
    assert c.status_code == 200 and c.json()["complete"]


def _queens_dlx(n):
    from rompicapo.cover import format_dlx, queens_problem

    return format_dlx(queens_problem(n))


def test_dlx_upload_list_and_count(client):
    text = _queens_dlx(6)
    r = client.post("/api/cover/dlx?mode=list&limit=10", content=text)
    assert r.status_code == 200
    s = _wait(client, r.json()["id"])
    assert s["state"] == "done" and s["result"]["count"] == 4
    problem = parse_dlx(text)
    names = [problem.describe(k) for k in range(len(problem.options))]
    for sol in s["result"]["kept"]:
        assert not cover_violations(problem, [names.index(o) for o in sol])
    r = client.post("/api/cover/dlx?mode=count", content=_queens_dlx(8))
    s = _wait(client, r.json()["id"])
    assert s["state"] == "done" and s["result"]["count"] == 92 and s["result"]["complete"]


def test_dlx_stop_within_two_seconds(client):
    r = client.post("/api/cover/dlx?mode=count&time_limit=60", content=_queens_dlx(15))
    job = r.json()["id"]
    # stopped once it runs (counting 15 queens takes minutes)
    assert wait_until(lambda: client.get(f"/api/jobs/{job}").json()["state"] == "running")
    t0 = time.monotonic()
    client.post(f"/api/jobs/{job}/stop")
    s = _wait(client, job, 10)
    assert time.monotonic() - t0 < 2.0
    assert s["state"] == "stopped" and not s["result"]["complete"]


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/cover/sudoku/solve", {"puzzle": "12x"}),
        ("/api/cover/sudoku/solve", {"puzzle": 5}),
        ("/api/cover/sudoku/solve", {}),
        ("/api/cover/sudoku/solve", {"puzzle": "." * 625}),  # 25x25: over the cap
        ("/api/cover/sudoku/hint", {"puzzle": "/etc/passwd"}),
        ("/api/cover/sudoku/generate", {"box": "5x5"}),
        ("/api/cover/sudoku/generate", {"difficulty": "impossible"}),
        ("/api/cover/sudoku/generate", {"seed": 10**30}),
        ("/api/cover/queens", {"n": 10**9}),
        ("/api/cover/queens", {"n": True}),
        ("/api/cover/polyomino", {"region": "1000x1000"}),
        ("/api/cover/polyomino", {"pieces": "../../etc/passwd"}),
        ("/api/cover/polyomino", {"region": "../../etc/passwd"}),
    ],
)
def test_bad_input_is_one_line_4xx(client, url, body):
    r = client.post(url, json=body)
    assert 400 <= r.status_code < 500, r.text
    assert "\n" not in r.json()["error"]


def test_bad_dlx_uploads(client):
    for query, body in [
        ("mode=count", "a b\nc\n"),  # an unknown item
        ("mode=dance", "a\na\n"),
        ("limit=x", "a\na\n"),
        ("tab=t3", "a\na\n"),  # the page's owner comes from its token, not a field
        ("mode=list", b"\x00\x01binary"),
        ("time_limit=1e9", "a\na\n"),
    ]:
        r = client.post(f"/api/cover/dlx?{query}", content=body)
        assert 400 <= r.status_code < 500, (query, r.text)
        assert "\n" not in r.json()["error"]
    big = "a\n" + "a\n" * (1024 * 1024 + 10)
    r = client.post("/api/cover/dlx", content=big)
    assert r.status_code in (400, 413)


def test_generate_takes_a_difficulty():
    """``sudoku.generate(difficulty=...)`` (the page's wish, now the API's): the puzzle rates
    so, and its seed alone makes it again; a difficulty that is not a rating is refused."""
    from rompicapo.common import InputError
    from rompicapo.cover import sudoku

    for wanted in ("easy", "medium"):
        r = sudoku.generate(difficulty=wanted, seed=3, time_limit=30)
        assert r.rating == wanted and r.verify()
        again = sudoku.generate(seed=r.seed)
        assert again.puzzle.line() == r.puzzle.line()
    with pytest.raises(InputError, match="difficulty"):
        sudoku.generate(difficulty="impossible")
