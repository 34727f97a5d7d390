"""The playground's core: pages served with their tokens, errors as one-line statuses, the job
manager's worker processes (caps per page and in all, stop, a dying worker, reaping)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rompicapo.common import InternalError, NotVerifiable, ProgressEvent
from rompicapo.web.jobs import Busy, Forbidden, JobManager, new_job_id


def slow(progress, seconds: float = 6.0):
    """A job: reports every 10 ms for ``seconds``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        progress(ProgressEvent(kind="progress", done=time.monotonic() - t0))
        time.sleep(0.01)
    return {"finished": True}


def die(progress):
    """A job whose worker process dies under it (a crash in a kernel)."""
    progress(ProgressEvent(kind="start"))
    os._exit(3)


def raise_(kind: str):
    raise {"internal": InternalError, "unverifiable": NotVerifiable, "bug": ZeroDivisionError}[
        kind
    ]("boom")


def pid():
    return os.getpid()


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: Playwright's session may hold this one's loop."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _wait(manager, job, owner, seconds=30):
    t0 = time.monotonic()
    while manager.get(job.id, owner).active:
        assert time.monotonic() - t0 < seconds, "the job did not end"
        time.sleep(0.02)
    return manager.get(job.id, owner)


@pytest.fixture(scope="module")
def manager():
    m = JobManager(max_running=2)
    m.start()
    yield m
    m.close()


def test_index_and_static(client):
    page = client.get("/")
    assert page.status_code == 200 and "rompicapo" in page.text
    assert '<meta name="csrf-token"' in page.text and page.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/api/health").json()["ok"] is True
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


def test_no_route_reads_server_paths(client):
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/etc/passwd",
        "/static/nothing.html",
    ):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "error" in r.json()


def test_a_body_too_large_is_413(client):
    r = client.post("/api/health", content=b"x" * (9 * 1024 * 1024))
    assert r.status_code == 413


def test_any_body_over_its_routes_limit_is_413_with_one_line(client):
    """3 MB is under the upload limit but over a JSON body's: 413 too, as the guide says, and
    the upload limit still holds for an upload."""
    from rompicapo.web.params import MAX_BODY_BYTES, MAX_UPLOAD_BYTES

    body = b'{"heaps": [3]' + b" " * (3 * 1024 * 1024) + b"}"
    assert MAX_BODY_BYTES < len(body) < MAX_UPLOAD_BYTES
    r = client.post("/api/games/nim", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and list(r.json()) == ["error"], r.text
    assert str(MAX_BODY_BYTES) in r.json()["error"]
    small = client.post("/api/games/nim", json={"heaps": [3]})
    assert small.status_code == 200  # the same route takes a body within the limit


def test_a_bogus_content_length_gets_the_json_one_liner(client):
    r = client.post(
        "/api/games/nim",
        content=b'{"heaps": [3]}',
        headers={"Content-Type": "application/json", "Content-Length": "ten"},
    )
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/json")
    assert r.json() == {"error": "the Content-Length header is not a number of bytes"}


def _raw_answer(url: str, request: bytes) -> bytes:
    import socket

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    return data


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /api/games/nim HTTP/1.1\r\nHost: H\r\nContent-Length: ten\r\n\r\n{}",
        b"NOT HTTP AT ALL\r\n\r\n",
    ],
)
def test_a_request_the_server_cannot_parse_gets_the_json_one_liner(serve, request_bytes):
    """What the HTTP parser refuses before the app runs is answered as every other error."""
    import json

    with serve(jobs=1, warm_up=False) as url:
        answer = _raw_answer(url, request_bytes.replace(b"H\r\n", url[7:].encode() + b"\r\n"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head.lower()
    assert json.loads(body) == {"error": "the request is not valid HTTP"}


def test_jobs_one_per_page_and_a_global_cap_and_stop(manager):
    a = manager.start_job("page-a", "slow", slow)
    with pytest.raises(Busy) as busy:
        manager.start_job("page-a", "slow", slow)
    assert busy.value.status == 409
    b = manager.start_job("page-b", "slow", slow)
    with pytest.raises(Busy) as busy:
        manager.start_job("page-c", "slow", slow)
    assert busy.value.status == 429
    with pytest.raises(Forbidden):
        manager.stop(a.id, "page-b")  # another page's job
    t0 = time.monotonic()
    while manager.get(a.id, "page-a").event is None:  # both run in their worker
        assert time.monotonic() - t0 < 60
        time.sleep(0.02)
    t0 = time.monotonic()
    manager.stop(a.id, "page-a")
    manager.stop(b.id, "page-b")
    assert _wait(manager, a, "page-a").state == "stopped"
    assert _wait(manager, b, "page-b").state == "stopped"
    assert time.monotonic() - t0 < 2.0


def test_a_worker_that_dies_fails_its_job_and_is_replaced(manager):
    before = set(manager.worker_pids())
    job = manager.start_job("page-d", "die", die)
    job = _wait(manager, job, "page-d")
    assert job.state == "failed" and "exit code 3" in job.error and "please report" in job.error
    assert job.status == 500
    after = set(manager.worker_pids())
    assert len(after) == len(before) and after != before  # a new worker took its place
    again = _wait(manager, manager.start_job("page-d", "slow", slow, 0.1), "page-d")
    assert again.state == "done" and again.result == {"finished": True}


def test_errors_keep_their_meaning(client, manager):

    from rompicapo.web.jobs import Failed

    for kind, status in (("internal", 500), ("unverifiable", 422), ("bug", 500)):
        with pytest.raises(Failed) as failed:
            _run(manager.call("quick", "page-e", raise_, kind, time_limit=5))
        assert failed.value.status == status
        if status == 500:
            assert "please report" in str(failed.value)
    # over HTTP: an unknown job 404, a bad value 400, a game over 400
    assert client.get("/api/jobs/" + "x" * 22).status_code == 404
    assert client.post("/api/games/nim", json={"heaps": [-1]}).status_code == 400


def test_job_ids_are_unguessable(manager):
    ids = {new_job_id()[:16] for _ in range(1000)}
    assert len(ids) == 1000  # no two of 1,000 share a 16-character prefix
    job = _wait(manager, manager.start_job("page-g", "slow", slow, 0.05), "page-g")
    assert len(job.id) == 22 and job.id[:16] not in ids  # 128 bits, base64


def test_close_ends_every_worker():
    manager = JobManager(max_running=2)
    manager.start()
    job = manager.start_job("page-f", "slow", slow, 30)
    t0 = time.monotonic()
    while manager.get(job.id, "page-f").event is None:
        assert time.monotonic() - t0 < 60
        time.sleep(0.02)
    pids = manager.worker_pids()
    manager.close()
    for p in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(p, 0)
    assert manager.get(job.id, "page-f").state == "stopped"


def sleepy(family):
    time.sleep(1.0)
    return 1.0


def test_warm_up_state_is_reported(manager):
    manager.warm_up("testing", sleepy, 7.0, reload_lane="quick")
    t0 = time.monotonic()
    while "testing" not in manager.compiling():
        assert time.monotonic() - t0 < 60
        time.sleep(0.02)
    assert 5 <= manager.compiling()["testing"] <= 7
    while "testing" in manager.compiling():
        assert time.monotonic() - t0 < 60
        time.sleep(0.05)
    assert manager.warmed["testing"] >= 1.0
    while any("warm" in name for name in _worker_names(manager)):  # the warm-up worker ends
        assert time.monotonic() - t0 < 60
        time.sleep(0.05)


def test_a_request_waits_for_its_solvers_warm_up_not_another(manager):
    """A call needing a solver being warmed up runs after that warm-up (then loads it from the
    cache, instead of compiling it beside it); a call needing nothing does not wait."""
    import asyncio

    manager.warm_up("slow-solver", sleepy, 5.0)
    t0 = time.monotonic()
    while "slow-solver" not in manager.compiling():
        assert time.monotonic() - t0 < 60
        time.sleep(0.02)

    async def both():
        free = asyncio.ensure_future(manager.call("quick", "page-w", pid, time_limit=5))
        bound = asyncio.ensure_future(
            manager.call("quick", "page-w", pid, time_limit=5, family="slow-solver")
        )
        await free
        warmed_at_free = "slow-solver" in manager.warmed
        await bound
        return warmed_at_free, "slow-solver" in manager.warmed

    warmed_at_free, warmed_at_bound = _run(both())
    assert not warmed_at_free  # the free call did not wait for the warm-up
    assert warmed_at_bound  # the bound call ran only once the warm-up was done


def _worker_names(manager) -> list[str]:
    import multiprocessing

    return [p.name for p in multiprocessing.active_children()]


def test_warm_up_compiles_every_family_by_the_public_api():
    from rompicapo.web.warmup import PLAN, warm_up

    for _, family in PLAN:
        assert warm_up(family) >= 0.0
    with pytest.raises(ValueError):
        warm_up("nothing")


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_the_server_reaps_its_workers_when_it_stops(sig):
    """``rompicapo serve`` stopped by Ctrl-C or SIGTERM while a job runs: the server exits
    and none of its worker processes is left."""
    import signal
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "rompicapo", "serve", "--port", str(port), "--jobs", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        t0 = time.monotonic()
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5).read()
                break
            except OSError:
                assert time.monotonic() - t0 < 60 and server.poll() is None
                time.sleep(0.1)
        tasks = Path(f"/proc/{server.pid}/task/{server.pid}/children")
        children = [int(p) for p in tasks.read_text().split()]
        assert len(children) >= 2  # the quick worker and the warm-up's (job workers: later)
        server.send_signal(getattr(signal, sig))
        # uvicorn stops, then passes a SIGTERM on (the exit status says "terminated")
        assert server.wait(30) in (0, -signal.SIGTERM), server.stderr.read()
        assert b"leaked" not in server.stderr.read()
        t0 = time.monotonic()
        while any(os.path.exists(f"/proc/{p}") for p in children):
            assert time.monotonic() - t0 < 10, "a worker outlived its server"
            time.sleep(0.1)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
