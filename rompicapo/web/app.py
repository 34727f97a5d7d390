"""The playground's ASGI app: pages, the families' routes, jobs, and error handling.

Every error a request can cause is an HTTP status with ``{"error": "one line"}``: the user's mistake
([`InputError`][rompicapo.common.InputError]) 400; a request from elsewhere or another page's job
403 (`rompicapo.web.guard`); no such job or route 404; a busy playground 409 (this page runs a job)
or 429 (the playground is full); a body too large 413, of the wrong type 415; an answer that cannot
be checked ([`NotVerifiable`][rompicapo.common.NotVerifiable]) 422; a failure of rompicapo itself
([`InternalError`][rompicapo.common.InternalError], or anything unexpected) 500 with "please report
it", its traceback in the server's log only. The server keeps serving after any of them.

The pages are the HTML files of ``static/`` with the server's CSRF secret and a new owner
token written into their ``<head>`` each time one is sent (`rompicapo.web.guard`).
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import logging
import sys
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rompicapo.common import InputError, NotVerifiable, RompicapoError, default_jobs
from rompicapo.web.guard import Guard, Tokens, allowed_hosts, one_line_response
from rompicapo.web.jobs import Busy, Failed, Forbidden, JobManager, NoSuchJob
from rompicapo.web.params import MAX_UPLOAD_BYTES, BodyTooLarge
from rompicapo.web.run import owner_of
from rompicapo.web.warmup import start_warm_up
from rompicapo.web.worker import BUG

__all__ = ["PAGES", "STATIC", "check_hunt_db", "create_app", "serve"]

STATIC = Path(__file__).parent / "static"
FAMILIES = ("paths", "cover", "games", "edges")
PAGES = ("index", "paths", "cover", "games", "edges")
# Headers of every page: no framing by other sites, no referrer, scripts from here only.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}
log = logging.getLogger("rompicapo.web")


# ------------------------------------------------------------------ errors

_STATUS = [(NotVerifiable, 422), (Busy, None), (Failed, None), (Forbidden, 403),
           (NoSuchJob, 404), (BodyTooLarge, 413), (InputError, 400)]  # fmt: skip


async def _on_rompicapo_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status", None)
    for kind, code in _STATUS:
        if isinstance(exc, kind):
            status = code or status
            break
    else:
        from rompicapo.common import InternalError

        status = 500 if isinstance(exc, InternalError) else 400
    if status == 500 and not isinstance(exc, Failed):
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return one_line_response(500, BUG.format(" ".join(str(exc).split())[:300]))
    return one_line_response(status, str(exc))


async def _on_http(request: Request, exc: HTTPException) -> Response:
    return one_line_response(exc.status_code, exc.detail or "error")


async def _on_bug(request: Request, exc: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return one_line_response(500, BUG.format(type(exc).__name__))


class _BodyLimit:
    """Refuse a request whose declared body exceeds the upload limit before reading it."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for key, value in scope.get("headers", []):
                if key != b"content-length":
                    continue
                if not value.isdigit():
                    response = one_line_response(
                        400, "the Content-Length header is not a number of bytes"
                    )
                elif int(value) > self.max_bytes:
                    response = one_line_response(
                        413, f"the request is larger than {self.max_bytes} bytes"
                    )
                else:
                    continue
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


# ------------------------------------------------------------------ pages and jobs

_page_text: dict[str, str] = {}


def _page(name: str, tokens: Tokens) -> HTMLResponse:
    if name not in _page_text:
        _page_text[name] = (STATIC / f"{name}.html").read_text()
    meta = (
        f'<meta name="csrf-token" content="{tokens.csrf}">\n'
        f'<meta name="owner-token" content="{tokens.new_owner()}">\n'
        '<link rel="icon" href="/favicon.ico" type="image/svg+xml">'
    )
    html = _page_text[name].replace("<head>", "<head>\n" + meta, 1)
    return HTMLResponse(html, headers=PAGE_HEADERS)


async def _index(request: Request) -> Response:
    """The playground's home page."""
    return _page("index", request.app.state.tokens)


async def _static_page(request: Request) -> Response:
    """A page of the playground (index, paths, cover, games, edges), with its tokens."""
    name = request.path_params["name"]
    if name not in PAGES:
        raise HTTPException(404, f"no page {name[:40]!r}")
    return _page(name, request.app.state.tokens)


async def _favicon(request: Request) -> Response:
    """The icon."""
    return FileResponse(
        STATIC / "favicon.svg", media_type="image/svg+xml",
        headers={"Cache-Control": "max-age=86400"},
    )  # fmt: skip


async def _health(request: Request) -> Response:
    """Whether the server runs: jobs running, the most at once, kernels compiling and warmed."""
    jobs: JobManager = request.app.state.jobs
    return JSONResponse(
        {
            "ok": True,
            "running": len(jobs.running()),
            "max": jobs.max_running,
            "compiling": jobs.compiling(),
            "warmed": {family: round(s, 2) for family, s in jobs.warmed.items()},
        }
    )


async def _job(request: Request) -> Response:
    """A job of this page: its state, progress and, once done, its answer."""
    jobs: JobManager = request.app.state.jobs
    return JSONResponse(jobs.get(request.path_params["job"], owner_of(request)).summary())


async def _job_stop(request: Request) -> Response:
    """Stop a job of this page (its best answer so far is kept)."""
    jobs: JobManager = request.app.state.jobs
    return JSONResponse(jobs.stop(request.path_params["job"], owner_of(request)).summary())


async def _job_events(request: Request) -> Response:
    """A job's progress and answer as server-sent events, until it ends."""
    jobs: JobManager = request.app.state.jobs
    job = jobs.get(request.path_params["job"], owner_of(request))
    return StreamingResponse(
        jobs.stream(job, request.is_disconnected),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )


def family_routes() -> list[Any]:
    """The routes of every family module in this package (``ROUTES``), under /api/<family>."""
    routes: list[Any] = []
    for name in FAMILIES:
        module = importlib.import_module(f"rompicapo.web.{name}")
        routes.append(Mount(f"/api/{name}", routes=list(module.ROUTES)))
    return routes


def create_app(
    *,
    jobs: int | None = None,
    host: str = "127.0.0.1",
    port: int = 8765,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    warm_up: bool = True,
    hunt_db: str | Path | None = None,
) -> Any:
    """The playground app for a server listening on ``host:port`` (the addresses its pages may
    come from). ``jobs``: the most jobs running at once, one worker process each (default:
    all cores); ``warm_up``: compile the kernels in the workers as the server starts;
    ``hunt_db``: a hunt file the edges page follows (read-only; see `check_hunt_db()`).

    ```pycon
    >>> from starlette.testclient import TestClient
    >>> app = create_app(jobs=1, warm_up=False)
    >>> with TestClient(app, base_url="http://127.0.0.1:8765") as client:
    ...     client.get("/api/health").json()["ok"]
    True
    >>> with TestClient(app, base_url="http://elsewhere.example") as client:  # not its host
    ...     answer = client.get("/api/health")
    >>> answer.status_code, list(answer.json())
    (403, ['error'])

    ```"""
    manager = JobManager(default_jobs() if jobs is None else jobs)
    tokens = Tokens()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        manager.start()
        if warm_up:
            start_warm_up(manager)
        try:
            yield
        finally:
            manager.close()  # a server that stops stops its runs and its workers

    app = Starlette(
        routes=[
            Route("/", _index),
            Route("/favicon.ico", _favicon),
            Route("/static/{name}.html", _static_page),
            Route("/api/health", _health),
            Route("/api/jobs/{job}", _job),
            Route("/api/jobs/{job}/stop", _job_stop, methods=["POST"]),
            Route("/api/jobs/{job}/events", _job_events),
            *family_routes(),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={
            RompicapoError: _on_rompicapo_error,
            HTTPException: _on_http,
            Exception: _on_bug,
        },
        lifespan=lifespan,
    )
    app.state.jobs = manager
    app.state.hunt_db = None if hunt_db is None else str(check_hunt_db(hunt_db))
    app.state.tokens = tokens
    guarded = Guard(app, allowed_hosts(host, port), tokens)
    return _BodyLimit(guarded, max_upload_bytes)


def check_hunt_db(path: str | Path) -> Path:
    """The hunt file to follow, checked at start-up: a hunt file, or a name in an existing
    folder where a hunt is about to start (the panel waits for it)."""
    from rompicapo.edges.hunt_db import open_hunt

    p = Path(path).resolve()
    if p.is_dir():
        raise InputError(f"--hunt-db {str(path)!r} is a directory, not a hunt file")
    if p.is_file():
        open_hunt(p, readonly=True).close()  # refuses anything but a hunt file
    elif not p.parent.is_dir():
        raise InputError(f"--hunt-db {str(path)!r}: the folder {str(p.parent)!r} does not exist")
    return p


def json_errors_protocol() -> Any:
    """The HTTP/1.1 protocol of the server (uvicorn's h11 one) answering a request it cannot
    parse (a bogus ``Content-Length``, a broken request line) with the JSON one-liner of every
    other error, not uvicorn's plain text."""
    import json

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class JsonErrorsH11(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            body = json.dumps({"error": "the request is not valid HTTP"}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ]
            for event in (
                h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return JsonErrorsH11


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    open_browser: bool = False,
    jobs: int | None = None,
    hunt_db: str | Path | None = None,
) -> None:
    """Run the playground until Ctrl-C or SIGTERM (both stop every run and worker). Binds to
    loopback unless ``host`` says otherwise. ``hunt_db``: a hunt file whose state the edges
    page shows (read-only)."""
    import socket
    import webbrowser

    import uvicorn

    from rompicapo.common import check_int

    port = check_int(port, "port", minimum=1, maximum=65535)
    if hunt_db is not None:
        check_hunt_db(hunt_db)
    try:  # a port in use is one line now, not a traceback from uvicorn later
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"
    if not _is_loopback(host):
        print(
            f"rompicapo serve: listening on {host}:{port}, reachable from other machines",
            file=sys.stderr,
        )
    print(f"rompicapo playground: {url}  (Ctrl-C stops)", file=sys.stderr)
    logging.basicConfig(level=logging.WARNING, format="rompicapo serve: %(message)s")
    if open_browser:
        webbrowser.open(url)
    app = create_app(jobs=jobs, host=host, port=port, hunt_db=hunt_db)
    uvicorn.run(app, host=host, port=port, log_level="warning", http=json_errors_protocol())
