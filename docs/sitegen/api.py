"""One API page per family, written from the family's ``__all__``.

A line ``<!-- api: rompicapo.NAME -->`` becomes the package's overview, a table of its public
names (each with its first docstring line, linking to its entry) and one mkdocstrings entry
per name (``::: rompicapo.NAME.X``), grouped as functions, classes, modules and constants. The
entry's anchor is ``rompicapo.NAME.X``, what ``from rompicapo.NAME import X`` names.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types

MARK = re.compile(r"^<!-- api: (rompicapo(?:\.\w+)*) -->$", re.M)

GROUPS = ("Functions", "Classes", "Modules", "Constants")

# :func:`x`, :class:`~a.b.C`, ... as plain code in the one-line summaries
_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`~?([^`]+)`")


def group(obj: object) -> str:
    """The heading an entry falls under: ``Functions``, ``Classes``, ``Modules`` or ``Constants``.

    Functions, classes and modules of rompicapo have an entry with their own docstring; values,
    and names defined outside rompicapo such as a type alias, show their value instead.
    """
    if isinstance(obj, types.ModuleType):
        return "Modules"
    if not (canonical(obj) or "").startswith("rompicapo."):
        return "Constants"  # values, and type aliases such as ProgressCallback
    if inspect.isclass(obj):
        return "Classes"
    if callable(obj):
        return "Functions"
    return "Constants"


def summary(obj: object) -> str:
    """The first sentence-line of an object's own docstring, as Markdown for a table cell."""
    if group(obj) == "Constants":
        return f"`{_short_repr(obj)}`"
    doc = inspect.getdoc(obj) or ""
    first = doc.strip().split("\n\n")[0].replace("\n", " ")
    first = _ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", first)
    first = first.replace("``", "`").replace("|", "\\|")
    return first if len(first) <= 160 else first[:157].rsplit(" ", 1)[0] + " ..."


def _short_repr(value: object) -> str:
    text = repr(value).replace("|", "\\|").replace("`", "'")
    return text if len(text) <= 40 else text[:37] + "..."


def public_names(package: str) -> list[str]:
    module = importlib.import_module(package)
    return list(getattr(module, "__all__", []))


def api_page(package: str) -> str:
    module = importlib.import_module(package)
    names = public_names(package)
    grouped: dict[str, list[str]] = {g: [] for g in GROUPS}
    for name in names:
        grouped[group(getattr(module, name))].append(name)
    lines = [
        f"::: {package}",
        "    options:",
        "      show_root_heading: false",
        "      members: false",
        "",
        f"## Contents ({len(names)} names)",
        "",
    ]
    for heading in GROUPS:
        if not grouped[heading]:
            continue
        lines += [f"**{heading}**", "", "| name | what it is |", "| --- | --- |"]
        for name in grouped[heading]:
            lines.append(f"| [`{name}`](#{package}.{name}) | {summary(getattr(module, name))} |")
        lines.append("")
    for heading in GROUPS:
        if not grouped[heading]:
            continue
        lines += [f"## {heading}", ""]
        for name in grouped[heading]:
            if heading == "Constants":
                lines += _constant(package, name, getattr(module, name))
            else:
                lines += _entry(package, name, getattr(module, name))
    return "\n".join(lines)


def canonical(obj: object) -> str | None:
    """Where an object is defined: ``module.qualname``, or a module's own name."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)):
        return None
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else None


def _entry(package: str, name: str, obj: object) -> list[str]:
    """An mkdocstrings entry of the object where it is defined, anchored at ``package.name``.

    ``rompicapo.paths.construct`` names both a module and the function the package re-exports;
    the entry documents the object the package exports, whatever shares its name.
    """
    target = canonical(obj) or f"{package}.{name}"
    anchor = f"{package}.{name}"
    lines = [] if target == anchor else [f"[](){{#{anchor}}}", ""]
    return [*lines, f"::: {target}", "    options:", "      heading_level: 3", ""]


def _constant(package: str, name: str, value: object) -> list[str]:
    """A constant's entry: its name, its value and the module that defines it."""
    home = next(
        (
            m.__name__
            for m in list(sys.modules.values())
            if isinstance(m, types.ModuleType)
            and (m.__name__ or "").startswith(package + ".")
            and m.__dict__.get(name, _MISSING) is value
        ),
        package,
    )
    text = repr(value)
    if len(text) > 300:
        text = text[:297] + "..."
    return [
        f"### `{name}` {{#{package}.{name} }}",
        "",
        "```python",
        f"{name} = {text}",
        "```",
        "",
        f"Defined in `{home}`.",
        "",
    ]


_MISSING = object()


def expand(markdown: str) -> str:
    return MARK.sub(lambda m: api_page(m.group(1)), markdown)
