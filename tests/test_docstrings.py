"""No docstring line is a broken fragment: a lone word inside a paragraph, a line indented
deeper than the rest of its paragraph, or a short line cut mid-sentence while its paragraph
goes on (what a rewrap around long cross-references leaves behind). The reference renders
these docstrings, and a reader reads them there.

The detector reads prose only: code fences, ``>>>`` sessions, literal blocks after ``::``,
tables, drawings (lines without letters) and underlined headings are left alone; list items
and the entries of ``Args:`` sections are paragraphs of their own, their continuation lines
indented under their text.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FENCE = re.compile(r"^\s*(```|~~~)")
ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns|Yields|Raises|Attributes|Examples?|Notes?|Keys|Fields):\s*$"
)
ENTRY = re.compile(r"^\s*[\w*, ]+( \([^)]*\))?:\s")
UNDERLINE = re.compile(r"^\s*[-=~^]{3,}\s*$")
END = re.compile(r"[.:;!?]$|[.:;!?][)\"'`*]+$|```$")


def docstring_nodes(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                yield body[0].value


def _indent(line):
    return len(line) - len(line.lstrip())


def paragraphs(text: str, first: int):
    """(paragraph lines [(lineno, line)], continuation indent) of a docstring's prose."""
    raw = text.split("\n")
    rest = [l for l in raw[1:] if l.strip()]
    dedent = min((_indent(l) for l in rest), default=0)
    lines = [(first, raw[0].strip())] + [(first + k, l[dedent:]) for k, l in enumerate(raw[1:], 1)]
    para, cont, fence, literal, section = [], 0, False, None, None
    for n, line in lines:
        if literal is not None:  # the indented block after a "::" line
            if not line.strip() or _indent(line) > literal:
                continue
            literal = None
        if FENCE.match(line):
            fence = not fence
            if para:
                yield para, cont
            para = []
            continue
        if fence or line.lstrip().startswith((">>>", "...", "|")):
            if para:
                yield para, cont
            para = []
            continue
        if not line.strip() or UNDERLINE.match(line) or SECTION.match(line):
            if para:
                yield para, cont
            para = []
            if SECTION.match(line):
                section = _indent(line)
            elif not line.strip():
                pass
            continue
        if section is not None and _indent(line) <= section:
            section = None
        item = ITEM.match(line)
        entry = section is not None and ENTRY.match(line) and _indent(line) == section + 4
        if item or entry or not para:
            if para:
                yield para, cont
            para = [(n, line)]
            cont = item.end() if item else (_indent(line) + 4 if entry else _indent(line))
        else:
            para.append((n, line))
        if line.rstrip().endswith("::"):
            literal = _indent(line)
            yield para, cont
            para = []
    if para:
        yield para, cont


def fragments(text: str, first: int):
    """``(lineno, why, line)`` of each docstring line that is a broken fragment: a line
    indented otherwise than the rest of its paragraph, a lone word inside a paragraph, or a
    short line that stops mid-sentence while the paragraph goes on."""
    out = []
    for para, cont in paragraphs(text, first):
        if len(para) < 2:
            continue
        widest = max(len(l.rstrip()) for _, l in para)
        for k, (n, line) in enumerate(para):
            if not re.search(r"[A-Za-z]", line):
                continue  # a drawing, not prose
            last = k == len(para) - 1
            words = line.split()
            if k > 0 and _indent(line) > cont:
                out.append((n, "indented otherwise than its paragraph", line))
            elif (
                len(words) == 1
                and not END.search(line.rstrip())
                and not (last and len(para[k - 1][1].rstrip()) >= 0.85 * widest)
            ):
                out.append((n, "a lone word", line))
            elif (
                last
                and k > 0
                and len(words) == 1
                # the paragraph's last word would have fitted on the line before it
                and len(para[k - 1][1].rstrip()) + 1 + len(line.strip()) <= widest
            ):
                out.append((n, "a lone last word that fitted above", line))
            elif (
                not last
                and widest >= 60
                and len(line.rstrip()) < 0.5 * widest
                and not END.search(line.rstrip())
                # the next word would not have fitted (a long link): a wrap, not a cut
                and len(line.rstrip()) + 1 + len(para[k + 1][1].split()[0]) <= widest
            ):
                out.append((n, "cut mid-sentence", line))
    return out


def scan(root: Path):
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in docstring_nodes(tree):
            for n, why, line in fragments(node.value, node.lineno):
                yield path, n, why, line


def test_no_docstring_line_is_a_broken_fragment():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {why}: {line.strip()[:70]}"
        for path, n, why, line in scan(ROOT / "rompicapo")
    ]
    assert not found, f"{len(found)} broken docstring lines:\n" + "\n".join(found)


BROKEN = [
    # a lone word between two full lines
    (
        "Every error a request can cause is an HTTP status: an answer that cannot be checked 422;\n"
        "a\n"
        "failure of rompicapo itself 500 with please report it, its traceback in the log only.",
        "a lone word",
    ),
    # a line cut short and the sentence going on below
    (
        "Returns a PathResult; the status says whether a path was found, shown impossible or not\n"
        "shown impossible,\n"
        "not found, or interrupted. Raises InputError for a bad size, start or move set, and more.",
        "cut mid-sentence",
    ),
    # an Args entry whose continuation drifts deeper
    (
        "Summary.\n\nArgs:\n    progress: a callable receiving a ProgressEvent (cells of the\n"
        "        path done, more words to make a line that is wide enough); the library\n"
        "            draws nothing.",
        "indented otherwise than its paragraph",
    ),
]

BROKEN.append(
    (
        "Heap sizes as a tuple of non-negative integers, or an InputError naming the bad and\n"
        "[`InputError`][rompicapo.common.InputError] naming the bad\n"
        "one.",
        "a lone last word that fitted above",
    )
)

WHOLE = [
    "A paragraph that wraps where the width ends, as every paragraph of the toolkit does, and\n"
    "ends with a short last line.",
    "Summary.\n\n- a list item that is long enough to wrap onto a second line of its own text\n"
    "  under its first word;\n- a short item\n\n```pycon\n>>> 1 +\n1\n```",
    "Summary.\n\nArgs:\n    rows, cols: the board, any two sides of at least one cell, checked\n"
    "        before the search.\n    start: the first cell.",
    "A wrap before a long link is no cut: see the reference of the function\n"
    "[`construct()`][rompicapo.paths.construct.construct] for the whole list of its options.",
]


@pytest.mark.parametrize(("text", "why"), BROKEN)
def test_the_detector_finds_a_broken_fragment(text, why):
    assert why in [w for _, w, _ in fragments(text, 1)]


@pytest.mark.parametrize("text", WHOLE)
def test_the_detector_leaves_whole_paragraphs_alone(text):
    assert fragments(text, 1) == []
