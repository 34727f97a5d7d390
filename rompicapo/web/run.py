"""How a route hands its work to the job manager (`rompicapo.web.jobs`): a quick answer,
a heavy call, or a job, always as the page that sent the request (its owner token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from rompicapo.web.jobs import Forbidden, JobManager

__all__ = ["heavy", "owner_of", "quick", "start_job"]


def owner_of(request: Request) -> str:
    """The owner id of the page that sent ``request`` (checked by the guard)."""
    owner = getattr(request.state, "owner", None)
    if owner is None:  # the guard sets it on every POST and job route
        raise Forbidden("forbidden: the page's owner token is missing (reload the page)")
    return owner


def _jobs(request: Request) -> JobManager:
    return request.app.state.jobs


async def quick(request: Request, function: Callable[..., Any], *args: Any,
                time_limit: float, family: str | None = None) -> Any:  # fmt: skip
    """``function(*args)`` in the quick lane: an answer the page waits for (a few seconds).
    ``family``: the solver it needs (see `rompicapo.web.warmup`)."""
    return await _jobs(request).call(
        "quick", owner_of(request), function, *args, time_limit=time_limit, family=family
    )


async def heavy(request: Request, function: Callable[..., Any], *args: Any,
                time_limit: float, family: str | None = None) -> Any:  # fmt: skip
    """``function(*args)`` in a job worker, awaited: it takes the page's job slot."""
    return await _jobs(request).call(
        "jobs", owner_of(request), function, *args, time_limit=time_limit, family=family
    )


def start_job(request: Request, kind: str, function: Callable[..., Any], *args: Any,
              time_limit: float, family: str | None = None) -> JSONResponse:  # fmt: skip
    """Start ``function(progress, *args)`` as a job of the page; its summary (with the id)."""
    job = _jobs(request).start_job(
        owner_of(request), kind, function, *args, time_limit=time_limit, family=family
    )
    return JSONResponse(job.summary())
