"""The optional parts of rompicapo, reached through one door.

The core (``pip install rompicapo``) solves and draws every family: numpy, numba, llvmlite,
rich, Pillow and psutil. Four extras add what a few commands need:

| extra | brings | for |
| --- | --- | --- |
| ``cluster`` | Dask distributed | ``--scheduler`` / ``scheduler=``: jobs on a Dask cluster |
| ``plots`` | matplotlib | ``edges study-report``, ``edges hunt-report`` with figures |
| ``pdf`` | reportlab | PDF pictures (``path --pdf``) |
| ``web`` | Starlette, uvicorn | ``rompicapo serve``: the playground |

``all`` installs the four. Nothing imports them at a module's top: a function that needs one
calls `require_extra()` before any work starts, which raises `MissingExtraError` (an
[`InputError`][rompicapo.common.InputError]: one line, exit status 2) naming the extra to
install:

```pycon
>>> require_extra("cluster", "--scheduler")  # installed here: nothing happens
>>> EXTRAS["pdf"]
('reportlab',)

```
"""

from __future__ import annotations

import importlib.util
import sys

from rompicapo.common.errors import InputError

__all__ = ["EXTRAS", "MissingExtraError", "has_extra", "require_extra"]

# extra -> the modules it must make importable
EXTRAS: dict[str, tuple[str, ...]] = {
    "cluster": ("distributed",),
    "plots": ("matplotlib",),
    "pdf": ("reportlab",),
    "web": ("starlette", "uvicorn"),
}


class MissingExtraError(InputError, ImportError):
    """A feature whose extra is not installed; the message says what to install.

    ```pycon
    >>> exc = MissingExtraError("--pdf needs the pdf extra: pip install 'rompicapo[pdf]'")
    >>> isinstance(exc, InputError), isinstance(exc, ImportError)
    (True, True)

    ```"""


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # None: imports of it are blocked
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def has_extra(extra: str) -> bool:
    """Whether every module of ``extra`` can be imported (found, not imported).

    ```pycon
    >>> import importlib.util
    >>> has_extra("pdf") == (importlib.util.find_spec("reportlab") is not None)
    True

    ```"""
    return all(_importable(m) for m in EXTRAS[extra])


def require_extra(extra: str, feature: str) -> None:
    """Raise `MissingExtraError` ("``feature`` needs the ``extra`` extra: pip install
    'rompicapo[extra]'") unless ``extra`` is installed.

    ```pycon
    >>> require_extra("pdf", "PDF pictures")  # installed here: nothing happens
    >>> require_extra("gpu", "a kernel")
    Traceback (most recent call last):
    ...
    ValueError: no extra named 'gpu'

    ```"""
    if extra not in EXTRAS:
        raise ValueError(f"no extra named {extra!r}")
    if not has_extra(extra):
        raise MissingExtraError(
            f"{feature} needs the {extra} extra: pip install 'rompicapo[{extra}]'"
        )
