"""Impartial games: the chapter's Nim and subtraction-game numbers, Bouton's and the misère
rule against minimax, Grundy sums against direct search, periods of known games."""

from __future__ import annotations

import contextlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.games import solve
from rompicapo.games import verify as V
from rompicapo.games.impartial import (
    ImpartialGame,
    Nim,
    count_configurations,
    count_multisets,
    count_nim_games,
    grundy,
    grundy_sum,
    mex,
    nim_outcome,
    nim_winning_move,
    octal_grundy,
    parse_heaps,
    parse_octal,
    parse_subtraction_set,
    subtraction_grundy,
)

TRIPLES = list(itertools.combinations_with_replacement(range(8), 3))


def test_mex():
    assert mex([]) == 0
    assert mex([0, 1, 3]) == 2
    assert mex([1, 2]) == 0


def test_nim_358():
    # issue 6: from (3,5,8) there are 51,823,082 distinct games; Bouton's move takes 2 from 8
    assert count_nim_games((3, 5, 8)) == 51_823_082
    assert nim_outcome((3, 5, 8)) == "N"
    assert nim_winning_move((3, 5, 8)) == (2, 2)
    assert V.check_nim_move((3, 5, 8), 2, 2)


def test_there_are_120_sorted_triples():
    # issue 6: "the 120 sorted triples with heaps up to 7"
    assert len(TRIPLES) == 120


@pytest.mark.parametrize("misere", [False, True])
def test_bouton_and_misere_rules_agree_with_minimax(misere):
    # issue 6: on the 120 sorted triples with heaps up to 7 the XOR rule agrees with minimax
    for heaps in TRIPLES:
        value = solve(Nim(heaps, misere=misere)).value  # +1: the first player (to move) wins
        assert (nim_outcome(heaps, misere) == "N") == (value == 1), heaps
        move = nim_winning_move(heaps, misere)
        if value == 1 and any(heaps):
            assert V.check_nim_move(heaps, *move, misere=misere), heaps
        else:
            assert move is None


def test_subtract_123_grundy_numbers():
    # issue 6: Subtract-{1,2,3}: Grundy numbers n mod 4 for n = 0..12
    seq = subtraction_grundy("1,2,3", 12)
    assert seq.values == [n % 4 for n in range(13)]
    assert (seq.preperiod, seq.period) == (0, 4)


def test_subtraction_plus_nim_heap_agrees_with_minimax():
    # issue 6: the 169 pairs (n, m), n, m in 0..12, of a subtract-{1,2,3} heap and a Nim heap
    def moves(p):
        n, m = p
        yield from ((n - s, m) for s in (1, 2, 3) if s <= n)
        yield from ((n, m - a) for a in range(1, m + 1))

    pairs = [(n, m) for n in range(13) for m in range(13)]
    assert len(pairs) == 169
    memo: dict = {}
    for n, m in pairs:
        value = solve(ImpartialGame((n, m), moves)).value
        xor_rule = (n % 4) ^ m
        assert (value == 1) == (xor_rule != 0), (n, m)
        assert grundy((n, m), moves, memo) == xor_rule


def test_ten_heap_configurations():
    # issue 6: 13^10 = 137,858,491,849 configurations of ten heaps (0..12), 646,646 unordered
    assert count_configurations(12, 10) == (137_858_491_849, 646_646)
    assert count_multisets(12, 10) == 646_646


def test_kayles_period():
    # Kayles (0.77): 0 1 2 3 1 4 3 2 1 4 2 6 ... (OEIS A002186), periodic with period 12 from
    # n = 71 on, the last exceptional value being at n = 70 (Guy and Smith, 1956)
    seq = octal_grundy("0.77", 20)
    assert seq.values[:12] == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]
    assert (seq.preperiod, seq.period) == (71, 12)


def test_kayles_grundy_agrees_with_direct_search():
    # Kayles on a row of n pins: knock down one or two adjacent pins
    def moves(row):
        out = set()
        for i, n in enumerate(row):
            rest = row[:i] + row[i + 1 :]
            for k in (1, 2):
                for left in range(n - k + 1):
                    right = n - k - left
                    out.add(tuple(sorted([*rest, *(h for h in (left, right) if h)])))
        return out

    values = octal_grundy("0.77", 14).values
    memo: dict = {}
    for n in range(15):
        assert grundy((n,) if n else (), moves, memo) == values[n]
    # a sum of two rows is the XOR of their values
    for a, b in [(3, 5), (4, 7), (6, 6), (2, 9)]:
        assert grundy(tuple(sorted((a, b))), moves, memo) == values[a] ^ values[b]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=3),
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
)
def test_grundy_sum_against_direct_search(heaps, subtraction):
    # a sum of subtraction-game heaps: Grundy of the sum (by search) = XOR of the parts
    s = sorted(set(subtraction))

    def moves(p):
        for i, h in enumerate(p):
            for a in s:
                if a <= h:
                    yield tuple(sorted((*p[:i], h - a, *p[i + 1 :])))

    values = subtraction_grundy(s, 5).values
    assert grundy(tuple(sorted(heaps)), moves) == grundy_sum(values[h] for h in heaps)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=4), st.booleans())
def test_nim_rules_against_brute_force(heaps, misere):
    p = V.nim_is_p_position(tuple(heaps), misere)
    assert (nim_outcome(heaps, misere) == "P") == p
    move = nim_winning_move(heaps, misere)
    assert (move is None) == (p or not any(heaps))
    if move is not None:
        assert V.check_nim_move(tuple(heaps), *move, misere=misere)


@pytest.mark.parametrize("bad", [["3", "-1"], ["x"], [], ["1.5"]])
def test_bad_heaps(bad):
    with pytest.raises(InputError):
        parse_heaps(bad)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_parsers_raise_only_input_errors(text):
    for parse in (parse_subtraction_set, parse_octal, lambda t: parse_heaps(t.split())):
        with contextlib.suppress(InputError):
            parse(text)


def test_cycle_is_reported():
    with pytest.raises(InputError, match="cycle"):
        grundy(0, lambda p: [1 - p])
