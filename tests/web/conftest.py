"""Fixtures of the playground's tests: the app under Starlette's test client, a live server on
a free loopback port, and a headless Chromium driven by Playwright.

Playwright never downloads a browser here: it is pointed at Debian's ``chromium`` package
(``/usr/bin/chromium``, or ``ROMPICAPO_CHROMIUM``). Where no Chromium is installed the browser
tests skip, unless ``ROMPICAPO_REQUIRE_BROWSER=1`` (set by CI, which installs the package),
where a missing browser is a failure. Screenshots go to ``ROMPICAPO_ARTIFACTS`` (default
``test-artifacts/`` in the working folder).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


PORT = 8765  # the test client's address: http://127.0.0.1:8765 (nothing listens there)


def page_tokens(client, path: str = "/") -> dict[str, str]:
    """The headers a page sends: its CSRF secret and owner token, read from the page."""
    html = client.get(path).text
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)
    owner = re.search(r'<meta name="owner-token" content="([^"]+)"', html).group(1)
    return {"X-CSRF-Token": csrf, "X-Owner-Token": owner}


@pytest.fixture
def new_page():
    """``new_page(client, path="/")``: the tokens of a page just loaded (another owner)."""
    return page_tokens


@pytest.fixture(scope="module")
def app_client():
    """One app (2 job workers and a quick one) under Starlette's test client per module."""
    from starlette.testclient import TestClient

    from rompicapo.web import create_app

    app = create_app(jobs=2, port=PORT, warm_up=False)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def client(app_client):
    """The module's test client as a page just loaded: its tokens sent with every request."""
    app_client.headers.update(page_tokens(app_client))
    yield app_client
    for name in ("X-CSRF-Token", "X-Owner-Token"):
        app_client.headers.pop(name, None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(**options):
    """The playground (``create_app(**options)``) served by uvicorn in a thread on a free
    port, for the length of the block; yields its base URL."""
    import uvicorn

    from rompicapo.web import create_app
    from rompicapo.web.app import json_errors_protocol

    port = _free_port()
    app = create_app(port=port, **options)
    config = uvicorn.Config(  # as `rompicapo serve` runs it
        app, host="127.0.0.1", port=port, log_level="warning", http=json_errors_protocol()
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the playground did not start within 20 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def serve():
    """``with serve(**options) as url``: a playground of its own (`serving`)."""
    return serving


@pytest.fixture(scope="session")
def live_server():
    """The playground served by uvicorn in a thread; yields its base URL."""
    with serving(jobs=3) as url:
        yield url


def _chromium() -> str | None:
    path = os.environ.get("ROMPICAPO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Debian's package) under Playwright."""
    executable = _chromium()
    if executable is None:
        if os.environ.get("ROMPICAPO_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium found (apt-get install chromium), and CI requires it")
        pytest.skip("no Chromium on this machine (apt-get install chromium to run these)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh page at the live server, 1280x900."""
    # bypass_csp: Playwright evaluates its waits as strings, which the pages' CSP forbids
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, base_url=live_server, bypass_csp=True
    )
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where browser tests save screenshots (look at them)."""
    folder = Path(os.environ.get("ROMPICAPO_ARTIFACTS", "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
