"""``rompicapo serve``: a local web playground over the public API of every family.

An ASGI app (Starlette on uvicorn). The pages are plain HTML, CSS and JavaScript modules in
``static/``, served by the package: no build step, nothing fetched from the internet. Each
family has one module here (``paths.py``, ``cover.py``, ``games.py``, ``edges.py``) that
exports ``ROUTES``, a list of Starlette routes under ``/api/<family>/``; long runs go through
`rompicapo.web.jobs` and stream [`ProgressEvent`][rompicapo.common.ProgressEvent] objects to the
page as server-sent events. Nothing here imports a kernel: only the families' public names.
"""

from rompicapo.common.extras import require_extra

require_extra("web", "the playground (rompicapo.web)")

from rompicapo.web.app import create_app, serve  # noqa: E402  (after the extra's check)

__all__ = ["create_app", "serve"]
