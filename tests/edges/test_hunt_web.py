"""The playground's hunt panel: the file given at start-up, read-only, behind the guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from rompicapo.common import InputError
from rompicapo.edges import hunt
from rompicapo.edges.generate import generate

PORT = 8765
SMALL, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=1)


def _client(hunt_db):
    """A test client that does not start the job workers (the panel needs none): used
    without ``with``, Starlette's client runs no lifespan."""
    from starlette.testclient import TestClient

    from rompicapo.web import create_app

    app = create_app(jobs=1, port=PORT, warm_up=False, hunt_db=hunt_db)
    return TestClient(app, base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False)


def test_panel_follows_the_hunt_file_read_only(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    hunt(SMALL, db, time_limit=60, jobs=1, seed=1)
    before = db.read_bytes()
    client = _client(db)
    r = client.get("/api/edges/hunt")
    assert r.status_code == 200
    h = r.json()["hunt"]
    assert h["file"] == "h.sqlite" and h["score"] == 40 and h["max_score"] == 40
    assert h["board"]["score"] == 40 and len(h["board"]["cells"]) == 5
    assert h["bests"] and h["running"] is False
    # a path in the request is refused, as any parameter of this route: it names no file
    other = tmp_path / "other.sqlite"
    r2 = client.get("/api/edges/hunt", params={"path": str(other), "db": str(other)})
    assert r2.status_code == 400 and "unknown field" in r2.json()["error"]
    assert not other.exists()
    # the guard stands in front of it as of every route
    foreign = client.get("/api/edges/hunt", headers={"Host": "evil.example:8765"})
    assert foreign.status_code == 403
    cross = client.get("/api/edges/hunt", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    assert client.post("/api/edges/hunt", json={}).status_code in (403, 405)
    assert 'id="hunt"' in client.get("/static/edges.html").text
    assert db.read_bytes() == before  # read, never written


def test_panel_without_a_file_and_waiting_for_one(tmp_path: Path) -> None:
    assert _client(None).get("/api/edges/hunt").json() == {"hunt": None}
    h = _client(tmp_path / "later.sqlite").get("/api/edges/hunt").json()["hunt"]
    assert h == {"file": "later.sqlite", "waiting": True}
    assert not (tmp_path / "later.sqlite").exists()


@pytest.mark.parametrize("kind", ["directory", "text", "no_folder"])
def test_a_bad_hunt_file_is_refused_at_start_up(tmp_path: Path, kind: str) -> None:
    from rompicapo.web import create_app

    path = {"directory": tmp_path, "text": tmp_path / "t.sqlite",
            "no_folder": tmp_path / "missing" / "h.sqlite"}[kind]  # fmt: skip
    if kind == "text":
        path.write_text("not SQLite\n" * 20)
    with pytest.raises(InputError):
        create_app(jobs=1, port=PORT, warm_up=False, hunt_db=path)
