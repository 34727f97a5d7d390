"""Damaged headers and sizes that cannot be: refused in one line before anything is allocated
or searched (a ``.npy`` header claiming 10^15 entries was a MemoryError, a 30-digit step
number an OverflowError, ``count 1000x1000`` searched for 25 s before saying anything)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from numpy.lib import format as npy_format

from rompicapo.common import InputError
from rompicapo.paths import load_path

from .harness import Case, check_refused, npy_bytes


def _npy_claiming(shape: tuple[int, ...], data: bytes = b"\0" * 64) -> bytes:
    """A .npy file whose header claims ``shape`` of int64, followed by ``data`` only."""
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {"descr": "<i8", "fortran_order": False, "shape": shape})
    return buf.getvalue() + data


HUGE_NPY = _npy_claiming((10**15,))
SHORT_NPY = _npy_claiming((37,), b"\0" * 8 * 36)  # one entry short of a 6x6 path
NPZ = io.BytesIO()
np.savez(NPZ, path=np.arange(36))
GRID_30_DIGITS = b" 1  2\n 4  123456789012345678901234567890\n"
GRID_20_DIGITS = b" 1  2\n 4  -99999999999999999999\n"

DAMAGED = [
    Case(["verify-path", "p.npy", "6"], files={"p.npy": HUGE_NPY}, says="header claims"),
    Case(["verify-path", "p.npy", "6"], files={"p.npy": SHORT_NPY}, says="header claims"),
    Case(["verify-path", "p.npy", "6"], files={"p.npy": NPZ.getvalue()}, says=".npz archive"),
    Case(["verify-path", "g.txt", "2"], files={"g.txt": GRID_30_DIGITS}, says="too large"),
    Case(["verify-path", "g.txt", "2"], files={"g.txt": GRID_20_DIGITS}, says="too large"),
]

NO_END = [
    Case(["count", "1000x1000"], says="cannot end"),
    Case(["count", "20x20", "--jobs", "2"], says="cannot end"),
    Case(["count", "12x12", "--start", "0,0", "--checkpoint", "c.json"], says="cannot end"),
    Case(["count", "12x12", "--ends"], says="cannot end"),
    Case(["count", "200x200", "--moves", "knight"], says="at least 10^"),
]


@pytest.mark.parametrize("case", DAMAGED + NO_END, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("p.npy", HUGE_NPY, "header claims"),
        ("p.npy", NPZ.getvalue(), ".npz archive"),
        ("g.txt", GRID_30_DIGITS, "too large"),
    ],
)
def test_load_path_refuses_the_same_files(name, data, says, tmp_path):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=says.replace(".", r"\.")):
        load_path(tmp_path / name)


def test_a_whole_npy_still_reads(tmp_path):
    (tmp_path / "p.npy").write_bytes(npy_bytes(np.arange(36)))
    assert load_path(tmp_path / "p.npy").tolist() == list(range(36))
