"""The playground's ASGI app: static pages, the families' routes, jobs, and error handling.

Every error a request can cause is an HTTP 4xx with ``{"error": "one line"}``: the families'
:class:`~rompicapo.common.InputError` (400), a busy playground (409/429), an unknown route
(404), a body too large (413). A bug is a 500 with one line, and the server keeps serving.
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import pkgutil
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rompicapo.common import InputError, NotVerifiable, RompicapoError, default_jobs
from rompicapo.web.jobs import Busy, JobManager
from rompicapo.web.params import MAX_UPLOAD_BYTES

__all__ = ["STATIC", "create_app", "serve"]

STATIC = Path(__file__).parent / "static"
FAMILIES = ("paths", "cover", "games", "edges")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())[:500]}, status_code=status)


async def _on_input_error(request: Request, exc: Exception) -> Response:
    return _error(400, str(exc))


async def _on_busy(request: Request, exc: Busy) -> Response:
    return _error(exc.status, str(exc))


async def _on_http(request: Request, exc: HTTPException) -> Response:
    return _error(exc.status_code, exc.detail or "error")


async def _on_bug(request: Request, exc: Exception) -> Response:
    return _error(500, f"internal error: {type(exc).__name__}: {exc}; please report it")


class _BodyLimit:
    """Refuse a request whose declared body exceeds the upload limit before reading it."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for key, value in scope.get("headers", []):
                if key == b"content-length" and (
                    not value.isdigit() or int(value) > self.max_bytes
                ):
                    response = _error(413, f"the request is larger than {self.max_bytes} bytes")
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


async def _index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def _health(request: Request) -> Response:
    jobs: JobManager = request.app.state.jobs
    return JSONResponse({"ok": True, "running": len(jobs.running()), "max": jobs.max_running})


async def _job(request: Request) -> Response:
    return JSONResponse(request.app.state.jobs.get(request.path_params["job"]).summary())


async def _job_stop(request: Request) -> Response:
    return JSONResponse(request.app.state.jobs.stop(request.path_params["job"]).summary())


async def _job_events(request: Request) -> Response:
    jobs: JobManager = request.app.state.jobs
    job = jobs.get(request.path_params["job"])
    return StreamingResponse(
        jobs.stream(job, request.is_disconnected),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )


@contextlib.asynccontextmanager
async def _lifespan(app: Any):
    yield
    app.state.jobs.stop_all()  # a server that stops stops its runs


def family_routes() -> list[Any]:
    """The routes of every family module in this package (``ROUTES``), under /api/<family>."""
    routes: list[Any] = []
    found = {m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])}
    for name in FAMILIES:
        if name in found:
            module = importlib.import_module(f"rompicapo.web.{name}")
            routes.append(Mount(f"/api/{name}", routes=list(module.ROUTES)))
    return routes


def create_app(*, jobs: int | None = None, max_upload_bytes: int = MAX_UPLOAD_BYTES) -> Any:
    """The playground app. ``jobs``: the most jobs running at once (default: all cores)."""
    manager = JobManager(default_jobs() if jobs is None else jobs)
    app = Starlette(
        routes=[
            Route("/", _index),
            Route("/api/health", _health),
            Route("/api/jobs/{job}", _job),
            Route("/api/jobs/{job}/stop", _job_stop, methods=["POST"]),
            Route("/api/jobs/{job}/events", _job_events),
            *family_routes(),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={
            InputError: _on_input_error,
            NotVerifiable: _on_input_error,
            Busy: _on_busy,
            RompicapoError: _on_input_error,
            HTTPException: _on_http,
            Exception: _on_bug,
        },
        lifespan=_lifespan,
    )
    app.state.jobs = manager
    return _BodyLimit(app, max_upload_bytes)


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
) -> None:
    """Run the playground until Ctrl-C. Binds to loopback unless ``host`` says otherwise."""
    import socket
    import sys
    import webbrowser

    import uvicorn

    from rompicapo.common import check_int

    port = check_int(port, "port", minimum=1, maximum=65535)
    try:  # a port in use is one line now, not a traceback from uvicorn later
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    if not _is_loopback(host):
        print(
            f"rompicapo serve: listening on {host}:{port}, reachable from other machines",
            file=sys.stderr,
        )
    print(f"rompicapo playground: {url}  (Ctrl-C stops)", file=sys.stderr)
    if open_browser:
        webbrowser.open(url)
    uvicorn.run(create_app(jobs=jobs), host=host, port=port, log_level="warning")
