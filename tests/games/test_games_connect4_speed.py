"""Connect Four: the fast kernel's internals checked against independent code.

The kernel searches iteratively on an explicit stack, keeps one 64-bit word per table entry
(a hashed key split into bucket and stored tag, an epoch, two bounds, a column and the work
of its search; two entries per bucket, the costlier first), prefetches
the children's entries and applies the enhanced transposition cutoff at nodes with many empty
cells. Each of these can give wrong scores without slowing down; these tests compare scores
with the independent pure-Python search of :mod:`rompicapo.games.verify` on random nearly full
boards, with Pons' published scores on Middle-Medium positions (every feature combination,
tables small enough to force replacements), and check the key arithmetic the table relies on.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from rompicapo.games import _connect4_kernel as K
from rompicapo.games import verify as V
from rompicapo.games.connect4 import Connect4Solver, parse_position

DATA = Path(__file__).resolve().parents[1] / "data" / "connect4-speed"


def random_position(rng: random.Random, moves: int) -> str | None:
    """A random legal move string of ``moves`` moves where nobody has connected four (None
    when the random game ended earlier)."""
    seq = ""
    for _ in range(moves):
        p = parse_position(seq)
        if p.over:
            return None
        seq += str(rng.choice(p.playable_columns()))
    return None if parse_position(seq).over else seq


def random_positions(seed: int, count: int, lo: int, hi: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        seq = random_position(rng, rng.randint(lo, hi))
        if seq is not None:
            out.append(seq)
    return out


def mirrored(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


@pytest.mark.parametrize(
    ("table_log2", "features"),
    [(24, K.DEFAULT_FEATURES), (10, K.DEFAULT_FEATURES), (10, 0), (12, K.TT_MOVE | K.ETC)],
)
def test_random_nearly_full_boards_against_plain_negamax(table_log2, features):
    # 31-34 stones played (8-11 empty cells): the independent memoised negamax of verify.py
    # solves these in well under a second each
    solver = Connect4Solver(table_log2, features=features)
    for moves in random_positions(seed=16 + table_log2 + features, count=10, lo=31, hi=34):
        result = solver.solve(moves)
        assert result.score == V.connect4_score(moves), moves
        weak = solver.solve(moves, weak=True).score
        assert weak == (result.score > 0) - (result.score < 0), moves


def read_subset() -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / "Test_L2_R2_every50").read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append((moves, int(score)))
    return rows


@pytest.mark.parametrize("table_log2", [12, 20])
def test_every_feature_combination_on_middle_medium(table_log2):
    # 17-27 empty cells: the enhanced transposition cutoff (16+ empty cells) takes part; a
    # 4,096-entry table is overwritten thousands of times per position, so stale and foreign
    # entries must never be taken for the position's own
    rows = read_subset()
    assert len(rows) == 20
    for features in range(K.ALL_FEATURES + 1):
        solver = Connect4Solver(table_log2, features=features)
        scores = [solver.solve(m).score for m, _ in rows]
        assert scores == [s for _, s in rows], features


def test_mirror_images_score_the_same():
    solver = Connect4Solver(16)
    for moves, expected in read_subset()[:8]:
        assert solver.solve(mirrored(moves)).score == expected, moves


def test_epochs_wrap_around_by_clearing_the_table():
    # a 1,024-entry table has epochs 1..1023; solving past the last one clears the table for
    # real, and the scores stay right on both sides of the wrap
    solver = Connect4Solver(10)
    rows = read_subset()[:4]
    solver.epoch = solver.max_epoch - 2
    for _ in range(2):
        for moves, expected in rows:
            assert solver.solve(moves).score == expected, moves
    assert solver.epoch < 10


def test_hashed_keys_give_back_the_key():
    # bucket (top bits) and stored tag (the rest) of the hashed key determine the key: the
    # multiplier is odd, so multiplying by its inverse modulo 2**49 undoes the hash
    rng = random.Random(7)
    modulus = 1 << K.KEY_BITS
    inverse = pow(K.HASH_MUL, -1, modulus)
    tag_bits = int(K.bucket_tag_bits(24))
    for _ in range(1000):
        key = rng.randrange(modulus)
        h = int(K._hash(key))
        slot, tag = h >> tag_bits, h & ((1 << tag_bits) - 1)
        assert ((slot << tag_bits | tag) * inverse) % modulus == key


def test_bucket_keeps_the_costliest_entry_first():
    # the two words of a bucket: the first holds the entry of the most work, the second the
    # latest other one; a displaced first entry moves to the second, an older epoch's entry
    # counts for nothing, and storing a position again tightens its bounds in place
    log2 = 10
    table = np.zeros(1 << log2, np.int64)
    tag_bits = int(K.bucket_tag_bits(log2))

    def store(epoch, tag, lo, hi, work):
        K._store(table, 6, (epoch << tag_bits) | tag, lo, hi, 2, False, work, tag_bits)

    def word(i):
        w = int(table[6 + i])
        ident = (w >> K.DATA_BITS) & K.ID_MASK
        return ident & ((1 << tag_bits) - 1), (w & 63) - K.OFFSET, ((w >> 6) & 63) - K.OFFSET

    store(1, 11, -3, 5, 1000)
    store(1, 12, 0, 0, 10)
    assert [word(0)[0], word(1)[0]] == [11, 12]
    store(1, 13, 1, 1, 100_000)
    assert [word(0)[0], word(1)[0]] == [13, 11]
    store(1, 14, 2, 2, 5)
    assert [word(0)[0], word(1)[0]] == [13, 14]
    store(1, 13, -1, 4, 1)  # the same position again: bounds tightened, still first
    assert word(0) == (13, 1, 1)
    store(2, 15, 3, 3, 1)  # a new epoch: the first word's costly entry is stale
    assert word(0) == (15, 3, 3)
    assert table[6 - 1] == 0 and table[6 + 2] == 0  # nothing written outside the bucket


def test_mirror_key_reverses_the_columns():
    rng = random.Random(8)
    for _ in range(1000):
        key = rng.randrange(1 << K.KEY_BITS)
        cols = [(key >> (7 * c)) & 0x7F for c in range(7)]
        expected = sum(g << (7 * (6 - c)) for c, g in enumerate(cols))
        assert int(K.mirror_key(key)) == expected


def test_node_limit_stops_the_iterative_search():
    solver = Connect4Solver(16)
    moves, expected = read_subset()[0]
    full = solver.solve(moves)
    assert full.score == expected
    assert solver.try_solve(moves, node_limit=max(1, full.nodes // 10)) is None
    # the aborted search leaves nothing behind that changes the next answer
    assert solver.solve(moves).score == expected


def test_parity_bound_never_exceeds_the_true_score():
    # the bound the parity strategies prove (claimeven and pairs for the second player, the
    # follow-up below an odd threat for the first) against the independent memoised negamax
    # of verify.py, on random boards of 8-10 empty cells, both players to move
    rng = random.Random(27)
    fired = {0: 0, -1: 0, -2: 0}
    boards = 0
    while boards < 1000:
        p = parse_position("")
        target = rng.randint(32, 34)
        while p.count < target and not p.over:
            p = p.play(rng.choice(p.playable_columns()))
        if p.over:
            continue
        boards += 1
        threats = K.winning_cells(p.pos ^ p.mask, p.mask)
        bound = int(K.parity_bound(p.pos, p.mask, p.count, threats))
        if bound == K.NO_BOUND:
            continue
        fired[bound] += 1
        assert V.connect4_score(p.moves) <= bound, (p.moves, bound)
    assert min(fired.values()) >= 5, fired  # the test reaches every kind of bound


def test_parity_strategies_change_no_score_on_random_middle_games():
    # 24-30 stones: every enhancement (the parity bounds, forced moves without an entry
    # included) against Pons' algorithm with a two-bound table (features 0)
    fast = Connect4Solver(18)
    plain = Connect4Solver(18, features=0)
    for moves in random_positions(seed=28, count=40, lo=24, hi=30):
        assert fast.solve(moves).score == plain.solve(moves).score, moves
