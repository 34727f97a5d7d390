"""Every public function, class and module that the API reference documents shows a ``>>>``
example in its own docstring, which pytest's ``--doctest-modules`` runs.

The names are found as the reference finds them: each ``<!-- api: rompicapo.NAME -->`` line of
``docs/reference/api/*.md`` names a package, its ``__all__`` lists the names, and
``sitegen.api.group`` tells the entries with a docstring of their own (functions, classes,
modules) from the constants, whose entry shows their value.
"""

from __future__ import annotations

import doctest
import importlib
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

sys.path.insert(0, str(ROOT / "docs"))
try:
    from sitegen import api
finally:
    sys.path.remove(str(ROOT / "docs"))

# families whose examples are still being written: their names are expected to pass soon
PENDING = {"rompicapo.games", "rompicapo.edges", "rompicapo.web"}


def documented_packages() -> list[str]:
    """The packages the API pages document, in the order of their pages."""
    pages = sorted((ROOT / "docs" / "reference" / "api").glob("*.md"))
    return [name for page in pages for name in api.MARK.findall(page.read_text())]


def documented_names(package: str) -> list[tuple[str, object]]:
    """``(name, object)`` of each name in the package's reference that has an entry with its
    own docstring."""
    module = importlib.import_module(package)
    pairs = [(name, getattr(module, name)) for name in api.public_names(package)]
    return [(name, obj) for name, obj in pairs if api.group(obj) != "Constants"]


def has_example(obj: object) -> bool:
    """Whether the object's own docstring (not one inherited) holds a ``>>>`` example."""
    return bool(doctest.DocTestParser().get_examples(obj.__doc__ or ""))


def lacking_examples(package: str) -> list[str]:
    return [name for name, obj in documented_names(package) if not has_example(obj)]


def _cases():
    for package in documented_packages():
        pending = [pytest.mark.xfail(reason="examples being written", strict=False)]
        for name, obj in documented_names(package):
            marks = pending if package in PENDING else []
            yield pytest.param(package, name, obj, id=f"{package}.{name}", marks=marks)


def test_the_reference_documents_the_families():
    packages = documented_packages()
    for family in ("paths", "cover", "common", "games", "edges", "web"):
        assert f"rompicapo.{family}" in packages
    assert len(packages) == len(set(packages))


@pytest.mark.parametrize(("package", "name", "obj"), list(_cases()))
def test_every_documented_name_shows_an_example(package, name, obj):
    assert has_example(obj), f"{package}.{name}: its docstring shows no >>> example"


MADE_UP = '''
"""A family made up for the test."""

__all__ = ["LIMIT", "Shown", "shown", "unshown"]

LIMIT = 3


class Shown:
    """A class with an example.

    >>> Shown().size
    2
    """

    size = 2


def shown():
    """A function with an example.

    ```pycon
    >>> shown()
    1

    ```"""
    return 1


def unshown():
    """A function whose docstring only talks about >>> prompts and shows none."""
    return 0
'''


def test_the_check_finds_a_name_without_an_example(monkeypatch):
    module = types.ModuleType("rompicapo.madeup")
    exec(compile(textwrap.dedent(MADE_UP), "<made up>", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "rompicapo.madeup", module)
    assert [name for name, _ in documented_names("rompicapo.madeup")] == [
        "Shown",
        "shown",
        "unshown",
    ]
    assert lacking_examples("rompicapo.madeup") == ["unshown"]


def test_an_inherited_docstring_is_no_example():
    class Base:
        """>>> 1
        1
        """

    class Derived(Base):
        pass

    assert has_example(Base) and not has_example(Derived)
