"""A page of another local origin (another port) tries to drive the playground, as any web
site the person visits could: ``no-cors`` text/plain POSTs at every POST route and
at the owner's job's stop, a CORS JSON POST, and an ``<img>`` at every GET route. Nothing
starts and nothing stops, checked through the owner's page."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from starlette.routing import Mount, Route

from rompicapo.web import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ATTACK = """<!doctype html><html><body><script>
const base = BASE, job = JOB, posts = POSTS, gets = GETS;
// bodies a route may take: the defaults, a board size, a position
const bodies = ["{}", '{"rows": 5, "cols": 5}', '{"moves": "4"}', '{"heaps": [3, 5]}'];
const body = bodies[0];
const tries = [];
for (const p of posts) {
  for (const b of bodies) {
    tries.push(fetch(base + p.replace("{job}", job), {mode: "no-cors", method: "POST",
      headers: {"Content-Type": "text/plain"}, body: b}).catch(() => null));
  }
}
tries.push(fetch(base + "/api/jobs/" + job + "/stop", {mode: "no-cors", method: "POST"})
  .catch(() => null));
tries.push(fetch(base + "/api/edges/solve", {method: "POST",
  headers: {"Content-Type": "application/json"}, body}).catch(() => null));  // CORS: refused
for (const g of gets) {
  tries.push(new Promise((resolve) => {
    const img = new Image();
    img.onload = img.onerror = () => resolve(null);
    img.src = base + g.replace("{job}", job);
    document.body.append(img);
  }));
}
Promise.all(tries).then(() => { document.body.dataset.done = "1"; });
</script></body></html>"""


def _routes() -> tuple[list[str], list[str]]:
    posts, gets = [], []

    def walk(routes, prefix):
        for r in routes:
            if isinstance(r, Mount) and r.path != "/static":
                walk(r.routes, prefix + r.path)
            elif isinstance(r, Route):
                (posts if "POST" in (r.methods or ()) else gets).append(prefix + r.path)

    walk(create_app(warm_up=False).app.app.routes, "")
    gets = [g.replace("{name}", "games") for g in gets]
    gets += ["/api/paths/tile?b=x&z=0&x=0&y=0&rows=9&cols=200000&sr=1&sc=1"]
    return posts, gets


@pytest.fixture
def attacker():
    """A second local origin: a server on another port whose page holds the attack."""
    page = {"html": ""}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            data = page["html"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield page, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_another_origin_starts_and_stops_nothing(browser, page, live_server, attacker):
    html, url = attacker
    page.goto("/static/edges.html")
    page.wait_for_function("document.body.dataset.edgesReady === '1'", timeout=60_000)
    page.fill("#s-time", "30")
    page.click("#s-start")
    page.wait_for_function("document.body.dataset.edgesJob", timeout=30_000)
    job = page.evaluate("document.body.dataset.edgesJob")

    def state():  # through the owner's page, with its tokens
        return page.evaluate(
            """async (job) => {
              const meta = (n) => document.querySelector(`meta[name="${n}"]`).content;
              const h = {"X-CSRF-Token": meta("csrf-token"), "X-Owner-Token": meta("owner-token")};
              const j = await (await fetch(`/api/jobs/${job}`, {headers: h})).json();
              const health = await (await fetch("/api/health")).json();
              // queued (waiting for its solver's warm-up) or running: alive either way
              return [j.state === "queued" ? "running" : j.state, health.running];
            }""",
            job,
        )

    assert state() == ["running", 1]
    posts, gets = _routes()
    html["html"] = (
        ATTACK.replace("BASE", json.dumps(live_server))
        .replace("JOB", json.dumps(job))
        .replace("POSTS", json.dumps(posts))
        .replace("GETS", json.dumps(gets))
    )
    context = browser.new_context()
    evil = context.new_page()
    evil.goto(url)
    evil.wait_for_function("document.body.dataset.done === '1'", timeout=60_000)
    context.close()
    page.wait_for_timeout(1000)
    assert state() == ["running", 1]  # the job still runs, and it is the only one
    page.click("#s-stop")
    page.wait_for_function("document.body.dataset.edgesDone === '1'", timeout=30_000)
    assert state()[1] == 0
