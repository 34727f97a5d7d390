"""The result protocol: every solver returns a [`SearchResult`][rompicapo.common.SearchResult].

- ``counts``: every counter of the run (nodes, placements, rotations, restarts, updates, ...),
  machine-independent measures of work, as Knuth prints mems and updates;
- ``solve_seconds`` and ``compile_seconds``: search time, and the one-off compilation of numba
  kernels apart from it; ``peak_bytes``: peak memory;
- ``to_dict()``: a JSON-friendly dict derived from the fields (what ``--json`` prints);
- ``report()``: a few lines for people (what the CLI prints without ``--json``);
- ``verify()``: True = checked by independent code and right, False = checked and wrong;
  [`NotVerifiable`][rompicapo.common.NotVerifiable] is raised when it cannot be checked. A
  partial check never returns True.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, ClassVar

import numpy as np

__all__ = ["SearchResult", "dumps_json", "to_jsonable"]


@dataclass
class SearchResult:
    """What every solver returns: the answer (in the subclass), counts, timings and memory.

    ``solve_seconds`` excludes the one-off compilation of numba kernels, which is reported in
    ``compile_seconds`` (zero when the kernels were already compiled in this process, a fraction
    of a second when they were loaded from numba's on-disk cache).
    ``counts`` holds machine-independent work measures (nodes, rotations, updates, ...).

    Subclasses add their answer fields. ``to_dict()`` walks the dataclass fields (numpy arrays
    become lists, nested dataclasses dicts); a subclass lists fields to leave out of it in
    ``_dict_exclude`` (bulky arrays, say) and adds derived keys in ``_dict_extra()``.

    ```pycon
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Total(SearchResult):  # a family's result adds its answer
    ...     total: int = 0
    ...
    ...     def verify(self):
    ...         return self.total == sum(self.counts.values())
    >>> result = Total(solve_seconds=0.5, counts={"red": 2, "blue": 3}, total=5)
    >>> result.to_dict()
    {'solve_seconds': 0.5, 'compile_seconds': 0.0, 'peak_bytes': 0, 'counts': {'red': 2, 'blue': 3},
     'total': 5}
    >>> result.verify()
    True

    ```"""

    solve_seconds: float = 0.0
    """Wall-clock seconds of the search, without the one-off compilation of the kernels."""
    compile_seconds: float = 0.0
    """Seconds spent compiling (or loading from numba's cache) the kernels this call used; 0.0 when
    they were already compiled in this process."""
    peak_bytes: int = 0
    """The process's peak resident memory in bytes when the search ended (0 when not measured)."""
    counts: dict[str, int] = field(default_factory=dict)
    """Machine-independent measures of the work done (nodes, rotations, updates, ...), by name."""

    _dict_exclude: ClassVar[tuple[str, ...]] = ()

    def verify(self) -> bool:
        """Check the answer with code that shares nothing with the solver.

        True: checked and right. False: checked and wrong. Raises
        [`NotVerifiable`][rompicapo.common.NotVerifiable] when it cannot be checked.
        """
        raise NotImplementedError

    def _dict_extra(self) -> dict[str, Any]:
        """Derived keys for ``to_dict()`` (override in subclasses)."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON types: its fields, then the subclass's derived keys."""
        out: dict[str, Any] = {}
        skip = set(self._dict_exclude)
        for f in dataclasses.fields(self):
            if f.name in skip or f.name.startswith("_"):
                continue
            out[f.name] = to_jsonable(getattr(self, f.name))
        out.update(to_jsonable(self._dict_extra()))
        return out

    def report(self) -> str:
        """A few lines for people; subclasses say it better."""
        return dumps_json(self.to_dict(), indent=2)


def to_jsonable(obj: Any) -> Any:
    """Plain JSON types from numpy scalars and arrays, dataclasses, tuples, paths and enums.

    ```pycon
    >>> import numpy as np
    >>> from pathlib import Path
    >>> to_jsonable({"n": np.int64(3), "cells": np.arange(3), "file": Path("a/b.txt")})
    {'n': 3, 'cells': [0, 1, 2], 'file': 'a/b.txt'}
    >>> to_jsonable((1.5, float("nan")))  # a tuple is a list, NaN is null
    [1.5, None]

    ```"""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return to_jsonable(float(obj))
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, enum.Enum):
        return to_jsonable(obj.value)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _json_default(obj: object) -> object:
    return to_jsonable(obj)


def dumps_json(obj: object, **kw: Any) -> str:
    """``json.dumps`` that accepts numpy scalars and arrays, dataclasses and paths.

    ```pycon
    >>> import numpy as np
    >>> dumps_json({"a": np.int64(3), "b": np.arange(3)})
    '{"a": 3, "b": [0, 1, 2]}'

    ```"""
    return json.dumps(obj, default=_json_default, **kw)
