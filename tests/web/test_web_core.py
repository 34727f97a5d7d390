"""The playground's core: pages served, errors as one-line 4xx, jobs and their limits."""

from __future__ import annotations

import time

from rompicapo.common import ProgressEvent
from rompicapo.web.jobs import JobManager


def test_index_and_static(client):
    assert client.get("/").status_code == 200
    assert "rompicapo" in client.get("/").text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/api/health").json()["ok"] is True


def test_no_route_reads_server_paths(client):
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/etc/passwd",
    ):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "error" in r.json()


def test_a_body_too_large_is_413(client):
    r = client.post("/api/health", content=b"x" * (9 * 1024 * 1024))
    assert r.status_code == 413


def test_jobs_one_per_tab_and_a_global_cap_and_stop():
    jobs = JobManager(max_running=2)

    def slow(progress):
        for i in range(600):
            progress(ProgressEvent(kind="progress", done=i))
            time.sleep(0.01)
        return {"finished": True}

    a = jobs.start("tab-a", "slow", slow)
    try:
        jobs.start("tab-a", "slow", slow)
        raise AssertionError("a second job in one tab was accepted")
    except Exception as exc:  # Busy, 409
        assert getattr(exc, "status", None) == 409
    b = jobs.start("tab-b", "slow", slow)
    try:
        jobs.start("tab-c", "slow", slow)
        raise AssertionError("a third job was accepted with max_running=2")
    except Exception as exc:
        assert getattr(exc, "status", None) == 429
    t0 = time.monotonic()
    jobs.stop(a.id)
    jobs.stop(b.id)
    while a.state == "running" or b.state == "running":
        assert time.monotonic() - t0 < 2, "a stopped job still runs after 2 s"
        time.sleep(0.01)
    assert a.state == b.state == "stopped"
