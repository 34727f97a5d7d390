"""The Connect Four opening book: its format, its reader's refusals, its scores against
independent searches, mirror sharing, the verifier, the builder's resumption and the CLI.

Books here are tiny: built from positions of 24 to 32 stones (Pons' test sets, and a
mirror-symmetric position), a few layers deep, in a second."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.games import verify as V
from rompicapo.games.connect4 import parse_position, solve_moves
from rompicapo.games.connect4_book import (
    BOOK_MAGIC,
    BookError,
    Connect4Book,
    book_keys,
    key_stones,
    read_book,
)
from rompicapo.games.connect4_book_build import build_book, enumerate_layers, verify_book

# Test_L3_R1 (Pons): 31 stones, score 5; Test_L2_R1: 24 stones, score -8
END_ROOT = "2762751722231276466633475674533"
MID_ROOT = "763452543756455357732314"
# mirror-symmetric (a column's stones and colours equal its mirror column's), 32 stones
SYM_ROOT = "52361672246432567711424677111276"


def _mirror(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def _positions(root: str, depth: int) -> list[str]:
    """Every move string from ``root`` to ``depth`` stones, none won (plain replay)."""
    out, stack = [], [root]
    while stack:
        m = stack.pop()
        out.append(m)
        p = parse_position(m)
        if p.count < depth:
            stack += [m + str(c) for c in p.playable_columns() if not p.play(c).won]
    return out


def _board(moves: str) -> tuple:
    cols = V.connect4_replay(moves)
    return tuple(tuple(c) for c in cols)


@pytest.fixture(scope="module")
def end_book(tmp_path_factory):
    path = tmp_path_factory.mktemp("book") / "end.bin"
    result = build_book(34, root=END_ROOT, out=path, jobs=1)
    assert result.complete
    return path, result


@pytest.fixture(scope="module")
def sym_book():
    return build_book(35, root=SYM_ROOT, jobs=1).book


def test_round_trip_and_header(end_book):
    path, result = end_book
    book = read_book(path)
    assert np.array_equal(book.keys, result.book.keys)
    assert np.array_equal(book.scores, result.book.scores)
    assert (book.root_stones, book.depth) == (31, 34)
    assert book.counts == [int(row["positions"]) for row in result.layers.values()]
    assert book.to_bytes() == path.read_bytes()
    info = book.info().to_dict()
    assert info["entries"] == book.entries and info["root_score"] == 5  # Pons' file says 5


def test_book_scores_equal_an_independent_search(end_book):
    """Every position of the book (by its moves, replayed afresh) against the pure-Python
    solver of `rompicapo.games.verify`, which shares nothing with the kernel or the book."""
    book = read_book(end_book[0])
    positions = _positions(END_ROOT, 34)
    for moves in positions:
        assert book.score(moves) == V.connect4_score(moves), moves
    assert len({_board(m) for m in positions}) >= book.entries > 50


def test_mirror_images_share_one_entry(sym_book):
    positions = _positions(SYM_ROOT, 35)
    boards = {_board(m) for m in positions}
    classes = {min(b, b[::-1]) for b in boards}
    assert sym_book.entries == len(classes) < len(boards)
    for moves in positions:
        assert sym_book.score(moves) == sym_book.score(_mirror(moves)) is not None
        assert sym_book.score(moves) == V.connect4_score(moves)
    assert np.array_equal(book_keys(sym_book.keys, np.zeros_like(sym_book.keys)), sym_book.keys)


def test_layers_match_the_published_position_counts():
    """Positions after n plies (OEIS A212693: 1, 7, 49, 238, 1120, 4263), counted here by
    their boards from plain replays; the layers hold one per mirror pair."""
    counts = [len(layer[0]) for layer in enumerate_layers(parse_position(""), 5)]
    level, published = [""], [1, 7, 49, 238, 1120, 4263]
    for n in range(6):
        boards = {_board(m) for m in level}
        assert len(boards) == published[n]
        assert counts[n] == len({min(b, b[::-1]) for b in boards})
        if n < 5:
            nxt = {}
            for m in level:
                p = parse_position(m)
                for c in p.playable_columns():
                    if not p.play(c).won:
                        nxt.setdefault(_board(m + str(c)), m + str(c))
            level = list(nxt.values())
    stones = key_stones(book_keys(*enumerate_layers(parse_position(""), 3)[3]))
    assert set(stones.tolist()) == {3}


def test_column_scores_from_the_book(end_book):
    book = read_book(end_book[0])
    for moves in _positions(END_ROOT, 33):
        scores = book.column_scores(moves)
        p = parse_position(moves)
        for c in range(1, 8):
            if c not in p.playable_columns():
                assert scores[c - 1] is None
            elif p.play(c).won:
                assert scores[c - 1] == (43 - p.count) // 2
            else:
                assert scores[c - 1] == -V.connect4_score(moves + str(c))
    deepest = [m for m in _positions(END_ROOT, 34) if len(m) == 34]
    assert deepest and all(book.column_scores(m) is None for m in deepest)  # beyond the book


def _damaged(data: bytes, where: int) -> bytes:
    b = bytearray(data)
    b[where] ^= 0x01
    return bytes(b)


def test_damaged_truncated_foreign_files_are_refused_in_one_line(end_book, tmp_path):
    data = end_book[0].read_bytes()
    version = bytearray(data)
    struct.pack_into("<H", version, 8, 99)
    cases = {
        "checksum": _damaged(data, len(data) - 1),  # a score
        "truncated": data[:-5],
        "does not start": b"MOVES SCORE\n4455 18\n",
        "version 99": bytes(version),
        "header says": data + b"\0",
    }
    for says, blob in cases.items():
        f = tmp_path / "x.bin"
        f.write_bytes(blob)
        with pytest.raises(BookError) as err:
            read_book(f)
        assert says in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError, match="does not exist"):
        read_book(tmp_path / "missing.bin")


def test_a_book_with_consistent_checksum_but_bad_keys_is_refused(end_book):
    book = read_book(end_book[0])
    keys = book.keys.copy()
    keys[[0, 1]] = keys[[1, 0]]  # out of order, checksum recomputed by to_bytes
    bad = Connect4Book(keys, book.scores, book.root_stones, book.depth, book.root_key, book.counts)
    with pytest.raises(BookError, match="increasing"):
        Connect4Book.from_bytes(bad.to_bytes())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.booleans())
def test_reader_on_random_bytes_refuses_with_a_book_error(blob, with_magic):
    data = (BOOK_MAGIC + struct.pack("<H", 1) + blob) if with_magic else blob
    with pytest.raises(BookError):
        Connect4Book.from_bytes(data, "random")


def test_verifier_agrees_and_catches_a_corrupted_entry(end_book):
    book = read_book(end_book[0])
    assert verify_book(book, sample=None).verify()
    scores = book.scores.copy()
    i = int(np.flatnonzero(key_stones(book.keys) == 34)[3])
    scores[i] = scores[i] + 2 if scores[i] < 19 else scores[i] - 2
    bad = Connect4Book(book.keys, scores, book.root_stones, book.depth, book.root_key, book.counts)
    out = verify_book(bad, sample=None)
    assert not out.verify()
    assert [m[0] for m in out.mismatches] == [int(book.keys[i])]


def test_build_resumes_after_an_interruption(tmp_path, monkeypatch):
    import rompicapo.games.connect4_book_build as B

    ckpt = tmp_path / "b.json"
    solve_chunk, calls = B.solve_chunk, []

    def stopped_after_20(job):  # Ctrl-C after 20 chunks (one position each here)
        calls.append(job[0])
        if len(calls) > 20:
            raise KeyboardInterrupt
        return solve_chunk(job)

    monkeypatch.setattr(B, "solve_chunk", stopped_after_20)
    with pytest.raises(KeyboardInterrupt):
        build_book(27, root=MID_ROOT, jobs=1, checkpoint=ckpt)
    monkeypatch.setattr(B, "solve_chunk", solve_chunk)
    kept = json.loads(ckpt.read_text())["payload"]["done"]
    assert sum(len(v) for v in kept.values()) == 20
    resumed = build_book(27, root=MID_ROOT, jobs=1, checkpoint=ckpt, out=tmp_path / "r.bin")
    fresh = build_book(27, root=MID_ROOT, jobs=1)
    assert resumed.complete and resumed.counts["solved"] == 111
    assert np.array_equal(resumed.book.scores, fresh.book.scores)
    assert resumed.book.score(MID_ROOT) == -8  # Pons' Test_L2_R1 says -8
    # a checkpoint of another book is refused before any work
    with pytest.raises(InputError, match="another book"):
        build_book(26, root=MID_ROOT, jobs=1, checkpoint=ckpt)


def test_api_takes_a_book(end_book):
    path = end_book[0]
    with_book = solve_moves(END_ROOT, book=path)
    alone = solve_moves(END_ROOT, book=False)
    assert with_book.from_book and not alone.from_book
    assert with_book.score == alone.score == 5 and with_book.nodes == 0 < alone.nodes
    analysis = solve_moves(END_ROOT, analyse=True, book=str(path))
    assert analysis.scores == solve_moves(END_ROOT, analyse=True, book=False).scores
    assert analysis.from_book and analysis.verify(max_empty=12)
    with pytest.raises(InputError, match="book must be"):
        solve_moves(END_ROOT, book=3)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    from rompicapo.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_build_info_verify_and_the_book_flags(tmp_path, capsys):
    out, ckpt = tmp_path / "b.bin", tmp_path / "b.json"
    code, text, _ = _run(
        capsys,
        "game",
        "connect4",
        "book",
        "build",
        "--depth",
        "34",
        "--root",
        END_ROOT,
        "--out",
        str(out),
        "--checkpoint",
        str(ckpt),
        "--jobs",
        "1",
        "--json",
    )
    built = json.loads(text)
    assert code == 0 and built["complete"] and built["layers"]["34"]["how"] == "search"
    code, text, _ = _run(capsys, "game", "connect4", "book", "info", str(out), "--json")
    info = json.loads(text)
    assert code == 0 and info["root_score"] == 5 and info["file_bytes"] == out.stat().st_size
    assert (
        sum(info["layers"].values())
        == info["entries"]
        == built["counts"]["positions"]
        + sum(row["positions"] for s, row in built["layers"].items() if s != "34")
    )
    code, text, _ = _run(
        capsys, "game", "connect4", "book", "verify", str(out), "--sample", "9", "--json"
    )
    checked = json.loads(text)
    assert code == 0 and checked["checked"] == 9 and checked["mismatches"] == []
    # the book answers at once; --no-book searches; both give Pons' score
    code, text, _ = _run(
        capsys, "game", "connect4", "analyze", END_ROOT, "--book", str(out), "--json"
    )
    booked = json.loads(text)
    code2, text, _ = _run(capsys, "game", "connect4", "analyze", END_ROOT, "--no-book", "--json")
    searched = json.loads(text)
    assert code == code2 == 0 and booked["scores"] == searched["scores"]
    assert booked["score"] == 5 and booked["counts"]["nodes"] == 0 < searched["counts"]["nodes"]
    assert len(booked["from_book"]) == len([s for s in booked["scores"] if s is not None]) - sum(
        parse_position(END_ROOT).play(c).won for c in parse_position(END_ROOT).playable_columns()
    )
    code, text, _ = _run(capsys, "game", "connect4", "solve", END_ROOT, "--book", str(out))
    assert code == 0 and "score 5" in text and "from the opening book" in text


def test_cli_refuses_a_damaged_book_in_one_line(tmp_path, capsys, end_book):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(_damaged(end_book[0].read_bytes(), 40))
    for argv in (
        ["book", "info", str(bad)],
        ["book", "verify", str(bad)],
        ["solve", END_ROOT, "--book", str(bad)],
    ):
        code, out, err = _run(capsys, "game", "connect4", *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "not a usable Connect Four book" in err
