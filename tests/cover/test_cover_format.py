"""Knuth's DLX text format: reading, writing, and every error the issue lists."""

from __future__ import annotations

import datafiles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.cover import Problem, format_dlx, parse_dlx, read_dlx

DATA = datafiles.DATA / "exact-cover"


def test_reads_items_options_colours_and_bounds():
    p = parse_dlx("| comment\n\nA B 2:3|C | X Y\nA B X:0 Y:0\n  | another comment\nC X:1\n")
    assert p.primary == ["A", "B", "C"]
    assert p.secondary == ["X", "Y"]
    assert p.bounds == {"C": (2, 3)}
    assert p.options == [
        (("A", None), ("B", None), ("X", "0"), ("Y", "0")),
        (("C", None), ("X", "1")),
    ]


def test_exact_bound_form_and_round_trip():
    p = parse_dlx("3|A B\nA\nA B\n")
    assert p.bounds == {"A": (3, 3)}
    assert parse_dlx(format_dlx(p)).bounds == {"A": (3, 3)}


def test_option_without_primary_item_is_dropped_like_knuth_or_refused_when_strict():
    # color-example.dlx has 5 option lines (README: "3+2 / 5"), one of them "X:0 Y:1", which
    # DLX2 ignores ("Option ignored (no primary items)")
    p = read_dlx(DATA / "color-example.dlx")
    assert len(p.options) == 4
    assert p.dropped_lines == [5]
    with pytest.raises(InputError, match="no primary item"):
        read_dlx(DATA / "color-example.dlx", strict=True)
    with pytest.raises(InputError, match="no primary item"):
        Problem(primary=["a"], secondary=["x"], options=[["x"]])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty input"),
        ("| only a comment\n\n", "empty input"),
        ("A B\nA C\n", "unknown item 'C'"),
        ("A B\nA B A\n", "'A' twice"),
        ("A | X\nA:1\n", "primary item 'A' a colour"),
        ("A | X\nA X:\n", "empty colour"),
        ("A A\nA\n", "declared twice"),
        ("A | X | Y\nA\n", "'\\|' twice"),
        ("A | 2|X\nA\n", "cannot have bounds"),
        ("3:2|A\nA\n", "lo <= hi"),
        ("x:y|A\nA\n", "digits expected"),
        ("A | X\nA X:1 X:2\n", "twice"),
    ],
)
def test_bad_input_gives_one_line_error_naming_the_problem(text, message):
    with pytest.raises(InputError, match=message) as info:
        parse_dlx(text, strict=True)
    assert "\n" not in str(info.value)


def test_error_names_the_line():
    with pytest.raises(InputError, match=r"<text>:3: option uses unknown item 'Z'"):
        parse_dlx("A B\nA\nZ\n")


def test_missing_file_and_binary_file(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_dlx(tmp_path / "nope.dlx")
    bad = tmp_path / "bad.dlx"
    bad.write_bytes(b"A \xff\n")
    with pytest.raises(InputError, match=r"bad.dlx:1: not a UTF-8"):
        read_dlx(bad)
    bad.write_bytes(b"A\x00B\n")
    with pytest.raises(InputError, match="NUL"):
        read_dlx(bad)


def test_writer_refuses_names_the_format_cannot_hold():
    p = Problem(primary=["a b"], options=[["a b"]])
    with pytest.raises(InputError, match="cannot be written"):
        format_dlx(p)


def test_every_shared_file_round_trips():
    for path in sorted(DATA.glob("*.dlx")):
        p = read_dlx(path)
        q = parse_dlx(format_dlx(p))
        assert (q.primary, q.secondary, q.options, q.bounds) == (
            p.primary,
            p.secondary,
            p.options,
            p.bounds,
        ), path.name


NAME = st.text(alphabet="abcdefgh0123456789_#$", min_size=1, max_size=6)


@st.composite
def problems(draw):
    names = draw(st.lists(NAME, min_size=1, max_size=8, unique=True))
    n_primary = draw(st.integers(1, len(names)))
    primary, secondary = names[:n_primary], names[n_primary:]
    bounds = {}
    for name in primary:
        if draw(st.booleans()):
            lo = draw(st.integers(0, 3))
            bounds[name] = (lo, draw(st.integers(max(lo, 1), 4)))
    p = Problem(primary=primary, secondary=secondary, bounds=bounds)
    for _ in range(draw(st.integers(0, 6))):
        items = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
        if not any(i in primary for i in items):
            items.append(primary[0]) if primary[0] not in items else None
        colours = {
            i: draw(st.sampled_from("xyz")) for i in items if i in secondary and draw(st.booleans())
        }
        p.add_option(items, colours=colours)
    return p


@settings(max_examples=150, deadline=None)
@given(problems())
def test_format_then_parse_gives_the_same_problem(p):
    q = parse_dlx(format_dlx(p, comment="generated"))
    assert (q.primary, q.secondary, q.options, q.bounds) == (
        p.primary,
        p.secondary,
        p.options,
        p.bounds,
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="AB|:x 12\n", max_size=40))
def test_parser_never_crashes_on_garbage(text):
    try:
        p = parse_dlx(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert p.primary
