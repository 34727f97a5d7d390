"""Hostile requests over every route of the playground: each answered with a 4xx and a one-line
{"error"}, never a 500 or a traceback, and the server keeps serving.

The routes are found by walking the app (so the families' routes added later are covered too);
every POST route gets a table of bodies no route can accept, every GET route hostile query
strings, every path parameter hostile values; then a table of wrong field values for the routes
whose fields are known.
"""

from __future__ import annotations

import re

import pytest
from starlette.routing import Mount, Route

from rompicapo.web import create_app
from rompicapo.web.guard import UPLOADS

# bodies no route accepts: not JSON, not an object, not text, too deep, too big
BAD_BODIES: list[tuple[str, bytes]] = [
    ("not json", b"{not json"),
    ("truncated", b'{"moves": "44'),
    ("array", b"[1, 2, 3]"),
    ("string", b'"hello"'),
    ("number", b"12345678901234567890"),
    ("true", b"true"),
    ("nul bytes", b"\x00\x00\x00{}"),
    ("bad utf-8", b'\xff\xfe\xfa{"rows": 1}'),
    ("deep nesting", b"[" * 50_000 + b"]" * 50_000),
    ("nan", b'{"rows": NaN, "cols": Infinity, "moves": NaN, "heaps": NaN}'),
    ("too big", b'{"x": "' + b"a" * (300 * 1024) + b'"}'),
]
# an upload route's body is a file, not JSON: these are the files no upload route accepts
BAD_UPLOADS: list[tuple[str, bytes]] = [
    ("empty", b""),
    ("nul bytes", b"\x00\x00\x00{}"),
    ("bad utf-8", b"\xff\xfe\xfa a b"),
    ("items only, an option naming an unknown item", b"a b\nc\n"),
]
HUGE = b"x" * (9 * 1024 * 1024)  # beyond every upload limit: 413

BAD_QUERIES = [
    "b=BOARD&z=abc&x=0&y=0",
    "b=nothing&z=0&x=0&y=0",
    "z=0&x=0&y=0",
    "b=BOARD&z=1e999&x=0&y=0",
    "b=BOARD&z=-5&x=-1&y=0",
    "b=BOARD&z=0&x=" + "9" * 100 + "&y=0",
    "rows=abc&cols=1",
    "rows=1e999&cols=1e999&z=0&x=0&y=0",
    "rows=-5&cols=10&z=0&x=0&y=0",
    "rows=10&cols=10&z=99&x=0&y=0",
    "rows=10&cols=10&z=0&x=-1&y=0",
    "rows=" + "9" * 100 + "&cols=10&z=0&x=0&y=0",
    "rows=10&cols=10&sr=10&sc=0&z=0&x=0&y=0",
    "rows=10&cols=10&z=0&x=0&y=%00",
    "rows=10&cols=10&z=0.5&x=0&y=0",
    "rows=true&cols=[]&z=0&x=0&y=0",
]

BAD_PATH_VALUES = ["..%2F..%2Fetc%2Fpasswd", "%00", "j" + "9" * 200, "j-1", "null", "'%3B--"]

# wrong field values for the routes whose fields are known (the same field names recur)
FIELD_VALUES = [10**100, -1, 1.5, True, "abc", None, [], {}, "1" * 5000, [[1, 2]] * 3]
KNOWN_FIELDS = {
    "/api/games/connect4/analyze": {"moves": "", "time_limit": 0.05},
    "/api/games/connect4/move": {"moves": "4", "time_limit": 0.05},
    "/api/games/connect4/solve": {"moves": "4", "time_limit": 1},
    "/api/games/tictactoe/analyze": {"moves": [4]},
    "/api/games/tictactoe/tree": {"moves": [4, 0], "ordered": False},
    "/api/games/nim": {"heaps": [3, 5], "misere": False},
    "/api/paths/board": {"rows": 10, "cols": 10, "sr": 0, "sc": 0},
    "/api/paths/cell": {"board": "BOARD", "step": 5},
    "/api/paths/step": {"board": "BOARD", "r": 1, "c": 1},
    "/api/paths/window": {"board": "BOARD", "r0": 0, "c0": 0, "h": 3, "w": 3},
    "/api/paths/prefix": {"rows": 10, "cols": 10, "prefix": [[0, 0]], "time_limit": 0.1},
    "/api/paths/count": {"rows": 3, "cols": 3},
}
OPTIONAL = {"moves", "time_limit", "ordered", "misere", "sr", "sc"}  # None means the default


def _accepted(path: str, name: str, value) -> bool:
    """The values of the table some fields legitimately take."""
    if value is None and name in OPTIONAL:
        return True
    if name in ("ordered", "misere") and isinstance(value, bool):
        return True
    if name == "time_limit" and value == 1.5:
        return True
    return name == "moves" and value == [] and "tictactoe" in path


def _routes(app) -> list[tuple[str, set[str]]]:
    out = []

    def walk(routes, prefix):
        for r in routes:
            if isinstance(r, Mount):
                if r.path == "/static":
                    continue
                walk(r.routes, prefix + r.path)
            elif isinstance(r, Route):
                out.append((prefix + r.path, set(r.methods or {"GET"}) - {"HEAD"}))

    walk(app.app.app.routes, "")
    return out


def _fill(path: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", value, path)


def _check(r, what):
    assert 400 <= r.status_code < 500, f"{what}: {r.status_code} {r.text[:200]}"
    body = r.json()
    assert isinstance(body.get("error"), str) and body["error"], what
    assert "\n" not in body["error"] and "Traceback" not in body["error"], what


def test_hostile_requests_over_every_route(client):
    app = create_app(jobs=2, warm_up=False)
    routes = _routes(app)
    board = client.post("/api/paths/board", json={"rows": 10, "cols": 10}).json()["board"]
    assert any(p.startswith("/api/games/") for p, _ in routes)
    assert any(p.startswith("/api/paths/") for p, _ in routes)
    sent = 0
    for path, methods in routes:
        if path in ("/", "/api/health", "/favicon.ico"):
            continue
        values = BAD_PATH_VALUES if "{" in path else [None]
        for v in values:
            url = path if v is None else _fill(path, v)
            if "POST" in methods:
                table = BAD_UPLOADS if path in UPLOADS else BAD_BODIES
                for name, body in table:
                    r = client.post(url, content=body, headers={"content-type": "application/json"})
                    _check(r, f"POST {url} {name}")
                    sent += 1
                r = client.post(url, content=HUGE)
                _check(r, f"POST {url} huge")
                assert r.status_code == 413
                sent += 1
                if "GET" not in methods:
                    _check(client.get(url), f"GET {url} (POST only)")
                    sent += 1
            if "GET" in methods:
                for q in BAD_QUERIES:
                    q = q.replace("BOARD", board)
                    _check(client.get(f"{url}?{q}"), f"GET {url}?{q}")
                    sent += 1
    for path, good in KNOWN_FIELDS.items():
        for name in good:
            for value in FIELD_VALUES:
                if _accepted(path, name, value):
                    continue
                body = {**good, name: value}
                if body.get("board") == "BOARD":
                    body["board"] = board
                _check(client.post(path, json=body), f"POST {path} {name}={value!r:.40}")
                sent += 1
    traversal = (
        "/static/../app.py",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/etc/passwd",
        "/api/../../etc/passwd",
        "/api/nothing",
        "/api/jobs/",
        "/static/paths.html%00",
    )
    for bad in traversal:
        r = client.get(bad)
        _check(r, f"GET {bad}")
        sent += 1
    print(f"{sent} hostile requests, every one a 4xx")
    assert sent >= 200, sent
    health = client.get("/api/health")
    assert health.status_code == 200 and health.json()["ok"] is True
    # and a good request still works
    assert client.post("/api/games/nim", json={"heaps": [1, 2]}).status_code == 200


@pytest.mark.parametrize("token", ["", "x" * 65, "a.b", "\x7f", None])
def test_bad_owner_tokens_refused(client, token):
    headers = {"X-Owner-Token": token} if token is not None else {}
    if token is None:
        client.headers.pop("X-Owner-Token")
    r = client.post("/api/paths/count", json={"rows": 3, "cols": 3}, headers=headers)
    assert r.status_code == 403
    _check(r, f"owner token {token!r}")
