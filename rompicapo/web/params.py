"""Reading request parameters: every value checked, every mistake a 400 with one line.

Handlers read their JSON body with `json_body()` and take each field with `field()`,
which checks its type and range and raises [`InputError`][rompicapo.common.InputError] (turned into
HTTP 400 by the app) naming the field. The families' own checks run after these, so a request
is validated by the same code as a Python call or a command line.
"""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.requests import Request

from rompicapo.common import InputError

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_UPLOAD_BYTES",
    "BodyTooLarge",
    "field",
    "json_body",
    "known",
    "read_body",
    "upload_text",
]

# A JSON request is a few hundred bytes (a Sudoku, a move list, a board of 256 pieces is 3 KB).
MAX_BODY_BYTES = 256 * 1024

_MISSING = object()


class BodyTooLarge(InputError):
    """A request body over its route's limit: HTTP 413, whatever the limit (the JSON body's or
    an upload's)."""

    status = 413


async def read_body(request: Request, max_bytes: int, what: str) -> bytes:
    """The raw body, refused (InputError naming ``what``) once it passes ``max_bytes``: by its
    declared length before reading, and by what arrives while reading."""
    size = request.headers.get("content-length")
    if size is not None and not size.isdigit():
        raise InputError("the Content-Length header is not a number of bytes")
    if size is not None and int(size) > max_bytes:
        raise BodyTooLarge(f"{what} is larger than {max_bytes} bytes")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > max_bytes:
            raise BodyTooLarge(f"{what} is larger than {max_bytes} bytes")
    return data


async def json_body(request: Request, *, max_bytes: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The request's JSON object, or InputError (bad JSON, not an object, too large)."""
    data = await read_body(request, max_bytes, "the request body")
    if not data.strip():
        return {}
    try:
        body = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


def known(body: dict[str, Any], *names: str) -> dict[str, Any]:
    """``body`` when it names only ``names``: a field the route does not know is a mistake
    (a typo would otherwise be ignored silently), so it is a 400 naming it."""
    extra = sorted(set(body) - set(names))
    if extra:
        takes = ", ".join(names) or "none"
        raise InputError(f"unknown field {str(extra[0])[:40]!r}; this route takes {takes}")
    return body


def field(
    body: dict[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    default: Any = _MISSING,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[Any, ...] | None = None,
    max_length: int | None = 10_000,
) -> Any:
    """``body[name]`` checked: its type (bool is not an int), range, choices and length."""
    if name not in body or body[name] is None:
        if default is _MISSING:
            raise InputError(f"{name} is required")
        return default
    value = body[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise InputError(f"{name} must be {_names(kinds)}, got a boolean")
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kinds):
        raise InputError(f"{name} must be {_names(kinds)}, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{name} must be a finite number")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if minimum is not None and value < minimum:
            raise InputError(f"{name} must be at least {minimum:g}, got {value:g}")
        if maximum is not None and value > maximum:
            raise InputError(f"{name} must be at most {maximum:g}, got {value:g}")
    if isinstance(value, (str, list)) and max_length is not None and len(value) > max_length:
        raise InputError(f"{name} is longer than {max_length}")
    if choices is not None and value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(str, choices))}")
    return value


def _names(kinds: tuple[type, ...]) -> str:
    words = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        list: "a list",
        dict: "an object",
    }
    return " or ".join(words.get(k, k.__name__) for k in kinds)


# An uploaded file (a .dlx problem, a pieces file, a board, a study): the largest the playground
# accepts. Bigger problems belong on the command line.
MAX_UPLOAD_BYTES = 8 * 1024 * 1024


async def upload_text(request: Request, *, max_bytes: int = MAX_UPLOAD_BYTES) -> str:
    """The request body as an uploaded text file (sent raw, not multipart): checked for size, NUL
    bytes and UTF-8 by [`rompicapo.common.decode_text()`][rompicapo.common.decode_text]. The file
    name a page may send is never used as a path on the server."""
    from rompicapo.common import decode_text

    data = await read_body(request, max_bytes, "the upload")
    if not data:
        raise InputError("the upload is empty")
    return decode_text(data, "upload")
