"""The games page's API: Connect Four scores and moves, tic-tac-toe statistics and tree, Nim."""

from __future__ import annotations

import random

from waiting import wait_until

from rompicapo.games.connect4 import Connect4Analysis, parse_position
from rompicapo.games.impartial import grundy_sum


def _late_position(seed: int, played: int = 28) -> str:
    """A random legal game of ``played`` moves that is not over (small enough to solve)."""
    rng = random.Random(seed)
    while True:
        moves = ""
        p = parse_position("")
        while len(moves) < played and not p.over:
            col = rng.choice(p.playable_columns())
            nxt = p.play(col)
            if nxt.won:
                break
            moves, p = moves + str(col), nxt
        if len(moves) == played:
            return moves


def test_connect4_scores_are_checked_by_the_independent_search(client):
    for seed in range(3):
        moves = _late_position(seed, played=31)
        r = client.post("/api/games/connect4/analyze", json={"moves": moves, "time_limit": 2})
        assert r.status_code == 200, r.text
        d = r.json()
        assert all(c["state"] in ("solved", "full") for c in d["columns"])
        scores = [c["score"] for c in d["columns"]]
        assert Connect4Analysis(moves=moves, scores=scores).verify(max_empty=12)
        assert d["score"] == max(s for s in scores if s is not None)


def test_connect4_computer_keeps_a_won_position_won(client):
    """From positions the mover wins, the computer playing both sides ends with that side's
    win: it never throws a proven win away."""
    games = 0
    for seed in range(20):
        moves = _late_position(seed, played=24)
        body = {"moves": moves, "time_limit": 2}
        d = client.post("/api/games/connect4/analyze", json=body).json()
        if d["sign"] != 1:
            continue
        winner = 1 + len(moves) % 2
        while not parse_position(moves).over:
            r = client.post("/api/games/connect4/move", json={"moves": moves, "time_limit": 2})
            assert r.status_code == 200, r.text
            moves += str(r.json()["column"])
        p = parse_position(moves)
        assert p.won and 2 - len(moves) % 2 == winner, moves
        games += 1
        if games == 2:
            break
    assert games == 2


def test_connect4_early_positions_answer_within_the_cap(client):
    # the empty board is far too hard for the solver within the cap: every column's exact
    # score comes at once from the opening book shipped with the package
    d = client.post("/api/games/connect4/analyze", json={"moves": "", "time_limit": 0.05}).json()
    assert [c["state"] for c in d["columns"]] == ["solved"] * 7
    # connect4.gamesolver.org's scores of the first move (Pons' solver with its own book)
    assert [c["score"] for c in d["columns"]] == [-2, -1, 0, 1, 0, -1, -2]
    assert d["score"] == 1 and d["best_columns"] == [4]
    r = client.post("/api/games/connect4/move", json={"moves": "", "time_limit": 0.05})
    assert r.status_code == 200 and r.json()["column"] == 4
    # beyond the book the search and the shallow bound take over, never a guessed value
    deeper = "4" * 3 + "3" * 3 + "5" * 2
    d = client.post("/api/games/connect4/analyze", json={"moves": deeper, "time_limit": 0.05})
    for c in d.json()["columns"]:
        assert c["state"] in ("solved", "weak", "bound", "full")
        assert (c["score"] is None) == (c["state"] != "solved")


def test_connect4_bad_moves_are_400(client):
    for moves in ("8", "4444444", "x", 12, None, "1" * 50):
        r = client.post("/api/games/connect4/analyze", json={"moves": moves})
        assert r.status_code in (200, 400)
        if moves not in (None,):
            assert r.status_code == 400 and r.json()["error"]
    won = "1212121"
    r = client.post("/api/games/connect4/move", json={"moves": won})
    assert r.status_code == 400 and "over" in r.json()["error"]
    d = client.post("/api/games/connect4/analyze", json={"moves": won}).json()
    assert d["over"] and d["winner"] == 1


def test_tictactoe_textbook_figures_and_tree(client):
    d = client.post("/api/games/tictactoe/analyze", json={"moves": []}).json()
    assert d["value"] == 0
    assert d["stats"]["minimax"]["leaves"] == 255_168
    assert d["stats"]["alphabeta"]["leaves"] == 7_330
    assert d["stats"]["alphabeta_ordered"]["leaves"] == 2_893
    d = client.post("/api/games/tictactoe/analyze", json={"moves": [0, 4, 8]}).json()
    assert d["to_move"] == "O" and d["board"][0] == "X" and d["board"][4] == "O"
    t = client.post("/api/games/tictactoe/tree", json={"moves": [4, 0, 8]}).json()
    assert (
        t["counts"]["leaves"]
        == client.post("/api/games/tictactoe/analyze", json={"moves": [4, 0, 8]}).json()["stats"][
            "alphabeta"
        ]["leaves"]
    )
    assert t["counts"]["cut_moves"] > 0
    r = client.post("/api/games/tictactoe/tree", json={"moves": []})  # too big: a note, no error
    assert r.status_code == 200 and r.json()["tree"] is None and "too many" in r.json()["note"]
    for bad in ([9], [0, 0], ["a"], [True], "0,1", [0, 1, 3, 4, 6, 2]):
        r = client.post("/api/games/tictactoe/analyze", json={"moves": bad})
        assert r.status_code == 400, bad


def test_nim_advice(client):
    d = client.post("/api/games/nim", json={"heaps": [3, 5, 8]}).json()
    assert d["nim_sum"] == grundy_sum([3, 5, 8]) == 14
    heap, take = d["move"]
    after = [3, 5, 8]
    after[heap - 1] -= take
    assert grundy_sum(after) == 0
    assert d["nim_sum_binary"] == "1110"
    d = client.post("/api/games/nim", json={"heaps": [1, 2, 3]}).json()
    assert d["outcome"] == "P" and d["move"] is None
    for bad in ([], [-1], [10**7], ["3"], [1.5], "3,5"):
        r = client.post("/api/games/nim", json={"heaps": bad})
        assert r.status_code == 400, bad


def test_connect4_who_wins_job_and_its_stop(client):
    import time

    moves = _late_position(5, played=30)
    job = client.post("/api/games/connect4/solve", json={"moves": moves, "time_limit": 20}).json()
    deadline = time.monotonic() + 60
    while (s := client.get(f"/api/jobs/{job['id']}").json())["state"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert s["state"] == "done" and s["result"]["score"] is not None
    scores = [c["score"] for c in s["result"]["columns"]]
    assert Connect4Analysis(moves=moves, scores=scores).verify(max_empty=12)
    # five stones, one past the opening book: seconds of search per column; stop is honoured
    # between solver calls of ~1.2 s (the bound below is loose on purpose: it catches a job
    # that ignores stop, not a slow CPU)
    job = client.post("/api/games/connect4/solve", json={"moves": "44443"}).json()
    assert wait_until(lambda: client.get(f"/api/jobs/{job['id']}").json()["state"] == "running")
    t0 = time.monotonic()
    client.post(f"/api/jobs/{job['id']}/stop")
    while client.get(f"/api/jobs/{job['id']}").json()["state"] == "running":
        assert time.monotonic() - t0 < 10, "the job ignores stop"
        time.sleep(0.05)


def test_connect4_outcomes_agree_with_exact_scores(client):
    """The weak phase's W/D/L agree with the exact scores of the same columns."""
    from rompicapo.web.games import connect4_columns

    for seed in range(4):
        moves = _late_position(seed + 10, played=26)
        # a cap too short for exact scores on some columns, then a long one
        quick = connect4_columns(moves, 0.02)
        full = connect4_columns(moves, 2.0)
        for q, f in zip(quick, full, strict=True):
            assert f["state"] in ("solved", "full")
            if q["sign"] is not None:
                assert q["sign"] == (f["score"] > 0) - (f["score"] < 0)


def test_connect4_heuristic_move_meets_a_double_threat(client):
    """Too early to solve, but red (3 and 4 on the bottom row) threatens to open a three at
    both ends: yellow must take 2 or 5 (by hand: 1, 3, 4, 6 or 7 let red make two threats)."""
    r = client.post("/api/games/connect4/move", json={"moves": "44443", "time_limit": 0.05})
    assert r.status_code == 200
    assert r.json()["column"] in (2, 5)


def test_the_shipped_book_agrees_with_itself_and_with_theory():
    """Each entry of fewer stones than the book's depth is the negamax of its children's; the
    empty board is a first-player win (Allis 1988) with the centre its only winning first move,
    columns 3 and 5 draws (Allis; Tromp's 8-ply database)."""
    from rompicapo.games.connect4_book import default_book

    book = default_book()
    assert book is not None and book.depth >= 4
    assert book.score("") == 1
    assert [(s > 0) - (s < 0) for s in book.column_scores("")] == [-1, -1, 0, 1, 0, -1, -1]
    stack, checked = [""], 0
    while stack:
        moves = stack.pop()
        p = parse_position(moves)
        if p.count >= book.depth:
            continue
        assert book.score(moves) == max(s for s in book.column_scores(moves) if s is not None)
        checked += 1
        stack += [moves + str(c) for c in p.playable_columns() if not p.play(c).won]
    assert checked > 50


def test_quick_bound_proves_what_it_says():
    """The shallow search's verdicts: a forced four is found and agrees with the solver; a
    bound holds against the exact score."""
    import time

    from rompicapo.games.connect4 import Connect4Solver
    from rompicapo.web.games import quick_bound

    solver = Connect4Solver(table_log2=20)
    # red threatens both ends of a three after 4, 4, 3: yellow's 1 or 4 lose (by hand)
    assert quick_bound("443", 1, time.perf_counter() + 5) == ("sign", -1)
    for seed in range(3):
        moves = _late_position(seed + 20, played=22)
        p = parse_position(moves)
        for col in p.playable_columns():
            child = p.play(col)
            if child.over:
                continue
            kind, value = quick_bound(moves, col, time.perf_counter() + 5)
            exact = -solver.solve(child).score
            if kind == "sign":
                assert value == (exact > 0) - (exact < 0)
            else:
                assert abs(exact) <= value, (moves, col, exact, value)
