"""complete_prefix against an independent brute force: found iff a completion exists."""

from __future__ import annotations

import random

import pytest

from rompicapo.common import InputError, NotVerifiable
from rompicapo.paths.prefix import complete_prefix

# the caselle moves, written out here so that the brute force shares nothing with the module
JUMPS = [(3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (2, -2), (-2, 2), (-2, -2)]


def _completions(rows, cols, prefix, cap=1):
    """How many ways (up to ``cap``) the prefix extends to a full path: plain DFS."""
    seen = set(prefix)
    total = rows * cols
    found = 0

    def dfs(r, c):
        nonlocal found
        if len(seen) == total:
            found += 1
            return
        for dr, dc in JUMPS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and (nr, nc) not in seen:
                seen.add((nr, nc))
                dfs(nr, nc)
                seen.discard((nr, nc))
                if found >= cap:
                    return

    dfs(*prefix[-1])
    return found


def _random_prefix(rng, rows, cols, length):
    p = [(rng.randrange(rows), rng.randrange(cols))]
    while len(p) < length:
        r, c = p[-1]
        nxt = [
            (r + dr, c + dc)
            for dr, dc in JUMPS
            if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr, c + dc) not in p
        ]
        if not nxt:
            break
        p.append(rng.choice(nxt))
    return p


@pytest.mark.parametrize("rows,cols", [(5, 5), (4, 6)])
def test_agrees_with_brute_force(rows, cols):
    rng = random.Random(rows * 100 + cols)
    statuses = set()
    for _ in range(40):
        prefix = _random_prefix(rng, rows, cols, rng.randrange(1, 10))
        res = complete_prefix(rows, cols, prefix, time_limit=30)
        exists = _completions(rows, cols, prefix) > 0
        assert res.status == ("found" if exists else "impossible"), (prefix, res.proof)
        if res.status == "found":
            assert res.verify()
            assert res.path[: len(prefix)] == prefix
        else:
            assert res.proof
        statuses.add(res.status)
    assert statuses == {"found", "impossible"}


def test_big_board_and_unknown():
    res = complete_prefix(30, 30, [(0, 0), (0, 3)])
    assert res.status == "found" and res.verify() and len(res.path) == 900
    # a node limit too small for a proof: unknown, never a guess
    hard = [(0, 0), (0, 3), (2, 1), (2, 4), (4, 2), (1, 2), (3, 4), (0, 4)]
    res = complete_prefix(5, 5, hard, node_limit=5)
    assert res.status == "unknown"
    with pytest.raises(NotVerifiable):
        res.verify()


@pytest.mark.parametrize(
    "prefix,match",
    [
        ([], "empty"),
        ([(0, 0), (0, 1)], "not one move"),
        ([(0, 0), (0, 3), (0, 0)], "already written"),
        ([(0, 10)], "column"),
        ([(0,)], "pair"),
        (["a"], "pair"),
    ],
)
def test_bad_prefixes(prefix, match):
    with pytest.raises(InputError, match=match):
        complete_prefix(10, 10, prefix)


def test_bad_boards():
    with pytest.raises(InputError):
        complete_prefix(31, 30, [(0, 0)])
    with pytest.raises(InputError):
        complete_prefix(10, 10, [(0, 0)], time_limit=0)
