"""Only the playground's own pages can use it: Host, Origin, the page's tokens, the body type.

A web page the person visits elsewhere can send requests to ``http://127.0.0.1:8765`` (a
``no-cors`` POST needs no preflight), and a name that resolves to 127.0.0.1 (DNS rebinding)
can even read the answers. So every request passes `Guard` first:

- its ``Host`` must be one the server listens as: ``127.0.0.1:PORT``, ``localhost:PORT``,
  ``[::1]:PORT`` or the ``--host`` given (for ``0.0.0.0`` / ``::``, this machine's names and
  addresses); an ``Origin`` header, when sent, must be ``http://`` one of them;
- an ``/api/`` request that a browser marks as coming from another site or another port of
  this one (``Sec-Fetch-Site: same-site`` or ``cross-site``) is refused, GETs included: an
  ``<img>`` on another page reads no tile;
- every POST and every job route (read, events, stop) carries the server's secret as the
  ``X-CSRF-Token`` header and the page's owner token as ``X-Owner-Token``. Both are written
  into each page the server sends (``<meta name="csrf-token">``, ``<meta name="owner-token">``):
  a page of another origin can read neither, and a ``no-cors`` request cannot set headers;
- a POST's body is JSON (``Content-Type: application/json``) except on the two upload routes,
  whose body is the file itself, and on a job's stop, which takes none.

A refused request gets 403 (415 for the body type) and one line, before any route runs.
The owner token is a random id signed with a key of this server (HMAC-SHA256): the server,
not the page, decides who owns a job, and a page cannot forge another page's token.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import socket
from collections.abc import Iterable
from typing import Any

__all__ = ["UPLOADS", "Guard", "Tokens", "allowed_hosts", "one_line_response"]

# Routes whose POST body is an uploaded file (sent raw), not JSON.
UPLOADS = frozenset({"/api/cover/dlx", "/api/edges/study"})
WILDCARDS = ("0.0.0.0", "::", "")


class Tokens:
    """The server's CSRF secret and its owner tokens (see the module docstring)."""

    def __init__(self) -> None:
        self.csrf = secrets.token_urlsafe(32)
        self._key = secrets.token_bytes(32)

    def new_owner(self) -> str:
        ident = secrets.token_urlsafe(16)
        return f"{ident}.{self._sign(ident)}"

    def owner(self, token: str | None) -> str | None:
        """The owner id of a genuine token, else None."""
        if not token or token.count(".") != 1 or len(token) > 100:
            return None
        ident, mac = token.split(".")
        return ident if hmac.compare_digest(mac, self._sign(ident)) else None

    def csrf_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(token, self.csrf)

    def _sign(self, ident: str) -> str:
        return hmac.new(self._key, ident.encode(), hashlib.sha256).hexdigest()[:32]


def _with_port(host: str, port: int) -> list[str]:
    name = f"[{host}]" if ":" in host and not host.startswith("[") else host
    out = [f"{name}:{port}"]
    if port == 80:
        out.append(name)
    return out


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values the server answers to when it listens on ``host:port``."""
    names = ["127.0.0.1", "localhost", "::1"]
    if host in WILDCARDS:
        names += [socket.gethostname(), socket.getfqdn()]
        with contextlib.suppress(OSError):
            for info in socket.getaddrinfo(socket.gethostname(), None):
                names.append(info[4][0])
    else:
        names.append(host)
    return frozenset(h.lower() for name in names if name for h in _with_port(name, port))


def one_line_response(status: int, message: str) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": " ".join(str(message).split())[:500]}, status_code=status)


class Guard:
    """The ASGI middleware of the module docstring, in front of the whole app."""

    def __init__(self, app: Any, hosts: Iterable[str], tokens: Tokens) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
        self.tokens = tokens

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await one_line_response(*refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        """Why the request is refused (status, line), or None."""
        headers: dict[bytes, bytes] = {}
        for key, value in scope.get("headers", []):
            headers.setdefault(key, value)

        def text(name: bytes) -> str | None:
            value = headers.get(name)
            return None if value is None else value.decode("latin-1").strip()

        host = (text(b"host") or "").lower()
        if host not in self.hosts:
            return 403, (
                f"forbidden: this playground answers only at its own address, not "
                f"Host {host[:60]!r}"
            )
        origin = text(b"origin")
        if origin is not None and origin.lower() not in self.origins:
            return 403, f"forbidden: requests from {origin[:60]!r} are refused"
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if path.startswith("/api/") and text(b"sec-fetch-site") in ("same-site", "cross-site"):
            return 403, "forbidden: requests from other sites are refused"
        if method in ("GET", "HEAD") and not path.startswith("/api/jobs/"):
            return None
        if not self.tokens.csrf_ok(text(b"x-csrf-token")):
            return 403, "forbidden: the page's token is missing or wrong (reload the page)"
        owner = self.tokens.owner(text(b"x-owner-token"))
        if owner is None:
            return 403, "forbidden: the page's owner token is missing or wrong (reload the page)"
        scope.setdefault("state", {})["owner"] = owner
        if method == "POST" and path not in UPLOADS and not path.startswith("/api/jobs/"):
            kind = (text(b"content-type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, "this route takes a JSON body (Content-Type: application/json)"
        return None
