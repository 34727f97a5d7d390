"""Open paths on 3 x n and 4 x n: the column-profile programme of
:mod:`rompicapo.paths.narrow` decides existence exactly (checked against the exhaustive search
on every start of the small boards), every path it gives passes the independent verifier, and
Pósa's argument refuses exactly the starts in the middle rows of 4 x n."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.paths import construct, search_path, start_classes, verify_path
from rompicapo.paths.narrow import narrow_applies, narrow_path


@functools.cache
def _exists(rows: int, cols: int, moves: str) -> dict[tuple[int, int], bool]:
    """Start -> whether an open path exists, by exhaustive search (one start per symmetry
    class, copied to the class)."""
    out = {}
    for rep, members in start_classes(rows, cols, moves).items():
        ex = search_path(rows, cols, rep, moves)
        assert ex.path is not None or ex.proven
        for cell in members:
            out[cell] = ex.path is not None
    return out


def _check_board(rows: int, cols: int, moves: str = "knight") -> None:
    truth = _exists(rows, cols, moves)
    for (r, c), exists in truth.items():
        res = narrow_path(rows, cols, (r, c), moves)
        assert res.status == ("found" if exists else "impossible"), (rows, cols, r, c)
        if exists:
            check = verify_path(res.path, rows, cols, moves, start=(r, c))
            assert check, (rows, cols, r, c, check)
        else:
            assert "column profiles" in res.proof
        # the transposed board, swept along its rows
        tr = narrow_path(cols, rows, (c, r), moves)
        assert tr.status == res.status
        if exists:
            assert verify_path(tr.path, cols, rows, moves, start=(c, r))


@pytest.mark.parametrize("n", range(3, 11))
def test_three_by_n_matches_exhaustive_search(n):
    _check_board(3, n)


@pytest.mark.parametrize("n", range(3, 9))
def test_four_by_n_matches_exhaustive_search(n):
    _check_board(4, n)


@pytest.mark.slow
@pytest.mark.parametrize("n", (9, 10))
def test_four_by_n_matches_exhaustive_search_slow(n):
    _check_board(4, n)


LEAPER_13 = "1,3;-1,3;3,1;-3,1"
GIRAFFE = "1,4;-1,4;4,1;-4,1"


@pytest.mark.parametrize("n", range(4, 8))
def test_other_leapers_match_exhaustive_search(n):
    # the programme is not the knight's: caselle and the (1, 3) leaper on 3 rows
    _check_board(3, n, "caselle")
    _check_board(3, n, LEAPER_13)


@pytest.mark.parametrize("n", range(3, 10))
def test_posa_middle_rows_of_four_by_n(n):
    truth = _exists(4, n, "knight")
    for (r, c), exists in truth.items():
        for rows, cols, start in ((4, n, (r, c)), (n, 4, (c, r))):
            res = construct(rows, cols, start=start, moves="knight", method="auto")
            if r in (1, 2) or (n == 4 and c in (1, 2)):  # 4 x 4: both axes
                assert not exists
                assert res.status == "impossible" and "Pósa" in res.proof, (rows, cols, start)
            else:
                assert "Pósa" not in res.proof
                assert res.found == exists, (rows, cols, start)
                if exists:
                    assert verify_path(res.path, rows, cols, "knight", start=start)


def test_posa_holds_for_the_giraffe_on_four_rows():
    # (1, 4) fits 4 rows only as (+-1, +-4): outer <-> middle, and 1 + 4 is odd
    res = construct(4, 9, start=(1, 0), moves=GIRAFFE, method="auto")
    assert res.status == "impossible" and "Pósa" in res.proof
    assert search_path(4, 9, (1, 0), GIRAFFE).path is None
    # the closed-tour form too, and not for a leaper that stays in the outer rows
    assert "Pósa" in construct(4, 12, moves="knight", closed=True).proof
    assert "Pósa" not in construct(4, 9, start=(1, 0), moves="0,1;1,0").proof


ISSUE_STARTS = [(4, 30, s) for s in ((0, 9), (0, 13), (3, 9), (3, 11))] + [
    (4, 31, (3, c)) for c in range(7, 22, 2)
]


@pytest.mark.parametrize(("rows", "cols", "start"), [*ISSUE_STARTS, (3, 1000, (1, 500))])
def test_the_issue_starts_get_a_verified_path(rows, cols, start):
    for r, c, s in ((rows, cols, start), (cols, rows, start[::-1])):
        res = construct(r, c, start=s, moves="knight", method="auto")
        assert res.found and res.method == "profile", (r, c, s, res.status)
        assert res.verify()
        assert "column profiles" in res.report()


def test_a_long_board_repeats_its_columns():
    # past a few columns the sets of states repeat: a long board computes no more columns
    # than a short one, and its path is still read back cell by cell
    short = narrow_path(4, 80, (0, 41))
    long = narrow_path(4, 20_001, (3, 10_000))
    assert long.status == short.status == "found"
    assert long.counts["profiles"] < 80
    assert verify_path(long.path, 4, 20_001, "knight", start=(3, 10_000))
    res = narrow_path(30_000, 3, (12_345, 2))
    assert verify_path(res.path, 30_000, 3, "knight", start=(12_345, 2))


def test_impossible_starts_of_three_by_n_need_the_profile_proof():
    # 3 x 6 has no open path from (1, 1) (exhaustive search agrees); no colour or Pósa argument
    res = construct(3, 6, start=(1, 1), moves="knight", method="auto")
    assert res.status == "impossible" and "column profiles" in res.proof
    assert search_path(3, 6, (1, 1), "knight").path is None


def test_time_limit_and_scope():
    # a leaper no other test sweeps on 4 rows, so that its steps are not memoised yet
    res = narrow_path(4, 200, (0, 0), LEAPER_13, time_limit=1e-9)
    assert res.status == "not found" and res.path is None
    assert not narrow_applies(6, 100, "caselle")  # (0, 3) reaches 18 cells back
    with pytest.raises(InputError):
        narrow_path(6, 100, (0, 0), "caselle")
    with pytest.raises(InputError):
        narrow_path(4, 10, (4, 0))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.sampled_from([3, 4]),
    n=st.integers(3, 300),
    data=st.data(),
    transpose=st.booleans(),
)
def test_random_narrow_boards(rows, n, data, transpose):
    r = data.draw(st.integers(0, rows - 1))
    c = data.draw(st.integers(0, n - 1))
    R, C, start = (n, rows, (c, r)) if transpose else (rows, n, (r, c))
    res = construct(R, C, start=start, moves="knight", method="auto")
    assert res.status in ("found", "impossible")
    if res.found:
        assert verify_path(res.path, R, C, "knight", start=start)
        assert np.asarray(res.path)[0] == start[0] * C + start[1]
    else:
        assert res.proof
    if rows * n <= 24:
        assert res.found == _exists(rows, n, "knight")[(r, c)]


@pytest.mark.parametrize("n", range(3, 11))
def test_closed_tours_of_three_by_n_match_exhaustive_search(n):
    exists = search_path(3, n, (0, 0), "knight", closed=True).path is not None
    for r, c in ((0, 0), (1, n // 2), (2, n - 1)):
        for rows, cols, start in ((3, n, (r, c)), (n, 3, (c, r))):
            res = narrow_path(rows, cols, start, closed=True)
            assert res.status == ("found" if exists else "impossible")
            if exists:
                assert verify_path(res.path, rows, cols, "knight", start=start, closed=True)


def test_closed_tours_of_three_by_n_follow_schwenk():
    # Schwenk (1991): 3 x n has a closed knight's tour iff n is even and n >= 10
    for n in [*range(3, 41), 1000, 2001, 5000]:
        start = (1, n // 3)
        res = construct(3, n, start=start, moves="knight", closed=True, method="auto")
        assert res.found == (n % 2 == 0 and n >= 10), n
        assert res.found or res.proof
        if res.found:
            assert res.verify()
