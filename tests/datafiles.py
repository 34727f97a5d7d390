"""Where the tests' data files live: ``tests/data/`` inside the repository, never outside it.

``DATA / "exact-cover"``, ``DATA / "sudoku"``, ``DATA / "connect4"``, ``DATA / "eternity2"``:
small copies and samples of the shared sets, each folder with a README naming the source,
the licence and the subset taken (see ``tests/data/README.md``).
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
