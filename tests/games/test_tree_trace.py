"""The traced alpha-beta tree visits exactly what alphabeta() visits, and its cuts are real."""

from __future__ import annotations

import pytest

from rompicapo.common import InputError
from rompicapo.games import TicTacToe, alphabeta, alphabeta_tree, minimax, static_order

POSITIONS = [(4, 0), (4, 0, 8), (0, 4, 8, 2), (4, 0, 8, 2, 6), (1, 3, 5)]


def _state(cells):
    g = TicTacToe()
    s = g.initial()
    for c in cells:
        s = g.play(s, c)
    return g, s


@pytest.mark.parametrize("cells", POSITIONS)
@pytest.mark.parametrize("order", [None, [4, 0, 2, 6, 8, 1, 3, 5, 7]])
def test_same_counts_and_value_as_alphabeta(cells, order):
    g, s = _state(cells)
    hook = None if order is None else static_order(order)
    tree = alphabeta_tree(g, s, order=hook)
    ref = alphabeta(g, s, -2, 2, order=hook)
    c = tree.counts
    assert tree.value == ref.value
    assert (c["nodes"], c["leaves"], c["cutoffs"]) == (
        ref.counts["nodes"],
        ref.counts["leaves"],
        ref.counts["cutoffs"],
    )
    # the minimax value is the same (alpha-beta's root value is exact in this window)
    assert tree.value == minimax(g, s).value


def test_cuts_are_the_moves_not_searched_and_never_change_the_value():
    g, s = _state((4, 0))
    tree = alphabeta_tree(g, s)
    stack = [(tree.root, s)]
    checked = 0
    while stack:
        node, st = stack.pop()
        if node.terminal:
            continue
        legal = list(g.moves(st))
        seen = [ch.move for ch in node.children]
        assert seen + node.cut == legal  # searched moves then the cut ones, in order
        if node.cut:
            assert node.cutoff
            checked += 1
        for ch in node.children:
            stack.append((ch, g.apply(st, ch.move)))
    assert checked > 10
    d = tree.to_dict()
    assert d["player"] == "max" and len(d["children"]) >= 1


def test_too_big_and_bad_window_refused():
    g = TicTacToe()
    with pytest.warns(DeprecationWarning), pytest.raises(InputError, match="too big"):
        alphabeta_tree(g, None, max_nodes=100)  # the earlier keyword keeps its refusal
    cut = alphabeta_tree(g, None, node_limit=100)  # the contract's: the tree cut there
    assert (cut.complete, cut.counts["nodes"]) == (False, 100)
    with pytest.raises(InputError, match="alpha < beta"):
        alphabeta_tree(g, None, 1, 1)
