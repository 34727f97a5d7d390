"""Makes ``tests/`` importable, so every test module reads its data through ``datafiles.DATA``.

pytest's default import mode already puts this folder on ``sys.path`` when it loads this
conftest; the explicit insert keeps ``import datafiles`` working under ``--import-mode=importlib``
too.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
