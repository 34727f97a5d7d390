"""The playground's HTTP API page, written from its route table.

A line ``<!-- http-api -->`` becomes one table per group of routes (the app's own, then each
family's ``ROUTES``): method, path, what it does (the handler's first docstring line), the
fields its JSON body takes and the checks each field gets. The fields are read from the
handler's code and the helpers it calls in its module: the names given to ``known()`` and the
type, range, choices and length given to ``field()``. So the page lists what the server
checks, not what someone remembered to write down.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import textwrap

MARK = re.compile(r"^<!-- http-api -->$", re.M)

_TYPES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
          "list": "list", "dict": "object"}  # fmt: skip


def _app_routes():
    """``(group, method, path, endpoint)`` of every route of a playground app."""
    from starlette.routing import Mount, Route

    from rompicapo.web.app import create_app

    app = create_app(jobs=1, warm_up=False)
    while not hasattr(app, "routes"):
        app = app.app  # the body limit and the guard wrap the Starlette app
    for route in app.routes:
        if isinstance(route, Route):
            for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
                yield "The app", method, route.path, route.endpoint
        elif isinstance(route, Mount) and route.path.startswith("/api/"):
            family = route.path.rsplit("/", 1)[-1]
            for sub in route.routes:
                for method in sorted((sub.methods or {"GET"}) - {"HEAD"}):
                    yield family, method, route.path + sub.path, sub.endpoint


def _source_functions(module) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(inspect.getsource(module))
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


@functools.lru_cache
def _namespace(module) -> dict:
    """The module's names, and those its functions import inside themselves."""
    names = dict(vars(module))
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rompicapo"):
            source = importlib.import_module(node.module)
            for alias in node.names:
                if hasattr(source, alias.name):
                    names[alias.asname or alias.name] = getattr(source, alias.name)
    return names


def _literal(node: ast.AST, module) -> str:
    """The value of an expression of the module's constants (``2**31 - 1``,
    ``tuple(PIECE_SETS)``), else its source text (a local such as ``rows - 1``)."""
    try:
        value = eval(compile(ast.Expression(node), "<field>", "eval"), _namespace(module))
    except Exception:
        return ast.unparse(node)
    if isinstance(value, (int, float, str, bool, tuple, list)) or value is None:
        return repr(tuple(value)) if isinstance(value, list) else repr(value)
    return ast.unparse(node)


def _number(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{int(value):,}" if value.is_integer() else text


def _field_checks(call: ast.Call, module) -> tuple[str, str]:
    """``(name, checks)`` of a ``field(body, "name", kind, default, ...)`` call."""
    args = call.args
    name = ast.literal_eval(args[1])
    kinds = args[2].elts if isinstance(args[2], ast.Tuple) else [args[2]]
    words = [" or ".join(_TYPES.get(ast.unparse(k), ast.unparse(k)) for k in kinds)]
    if len(args) > 3:
        default = _literal(args[3], module)
        if default == "None":
            words.append("optional")
        elif default == ast.unparse(args[3]) and isinstance(args[3], ast.Name):
            words.append("optional (a default of the route)")
        else:
            words.append(f"default {default}")
    else:
        words.append("required")
    kw = {k.arg: _literal(k.value, module) for k in call.keywords}
    if "minimum" in kw and "maximum" in kw:
        words.append(f"{_number(kw['minimum'])}..{_number(kw['maximum'])}")
    elif "minimum" in kw:
        words.append(f">= {_number(kw['minimum'])}")
    elif "maximum" in kw:
        words.append(f"<= {_number(kw['maximum'])}")
    if "choices" in kw:
        words.append(
            "one of " + kw["choices"].strip("()").replace("'", "").rstrip(",").replace(", ", " / ")
        )
    if kw.get("max_length") not in (None, "None") and "str" in words[0] + "list":
        words.append(f"at most {_number(kw['max_length'])} long")
    return name, ", ".join(words)


def _fields(endpoint) -> tuple[list[str], dict[str, str]]:
    """The names the handler's ``known()`` accepts, and the ``field()`` checks of the handler
    and of the helpers it calls (two levels deep, in its module)."""
    module = inspect.getmodule(endpoint)
    functions = _source_functions(module)
    seen, todo = set(), [(endpoint.__name__, 0)]
    known: list[str] = []
    checks: dict[str, str] = {}
    while todo:
        name, depth = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for call in _calls(functions[name]):
            called = _name(call)
            if called == "known":
                known += [ast.literal_eval(a) for a in call.args[1:] if isinstance(a, ast.Constant)]
            elif (
                called == "field" and len(call.args) >= 3 and isinstance(call.args[1], ast.Constant)
            ):
                field_name, words = _field_checks(call, module)
                checks.setdefault(field_name, words)
            elif depth < 2:
                todo.append((called, depth + 1))
    return known, checks


def _summary(endpoint) -> str:
    doc = inspect.getdoc(endpoint) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    return first.replace("``", "`").replace("|", "\\|") or "-"


def http_api() -> str:
    from rompicapo.web.guard import UPLOADS
    from rompicapo.web.params import MAX_BODY_BYTES, MAX_UPLOAD_BYTES

    groups: dict[str, list[str]] = {}
    count = 0
    for group, method, path, endpoint in _app_routes():
        known, checks = _fields(endpoint)
        if path in UPLOADS:
            body = f"the file itself (raw, at most {MAX_UPLOAD_BYTES:,} bytes)"
        elif known or checks:
            names = known or list(checks)
            body = "<br>".join(f"`{n}`" + (f": {checks[n]}" if n in checks else "") for n in names)
        else:
            body = "-"
        rows = groups.setdefault(group, [])
        rows.append(f"| {method} | `{path}` | {_summary(endpoint)} | {body} |")
        count += 1
    out = [
        f"{count} routes. A JSON body is at most {MAX_BODY_BYTES:,} bytes, an upload at most "
        f"{MAX_UPLOAD_BYTES:,}; a field a route does not take is a 400 naming it.",
        "",
    ]
    for group, rows in groups.items():
        title = group if group == "The app" else f"`/api/{group}`"
        out += [f"### {title}", "", "| method | path | what it does | body fields |",
                "| --- | --- | --- | --- |", *rows, ""]  # fmt: skip
    return "\n".join(out)


def expand(markdown: str) -> str:
    return MARK.sub(lambda m: textwrap.dedent(http_api()), markdown)
