// Shared helpers of the playground's pages: JSON requests that carry the page's tokens and
// show the server's one-line error, jobs with live progress over server-sent events, the
// "compiling the solver" note, and the nav header.
// Plain ES module, no dependencies.

// The page's tokens, written into it by the server: the server's secret (every POST and job
// route must carry it) and this page's owner token (the jobs it starts are its own).
const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
const TOKENS = { "X-CSRF-Token": meta("csrf-token"), "X-Owner-Token": meta("owner-token") };

// The element that shows the last error of the page (created under the header if missing).
function errorLine() {
  let el = document.getElementById("error");
  if (!el) {
    el = document.createElement("p");
    el.id = "error";
    el.className = "error";
    el.setAttribute("role", "alert");
    const header = document.querySelector("header");
    (header || document.body).after(el);
  }
  return el;
}

// The controls the person used last: an error shows right under them, where the person is
// looking, not at the top of the page.
let lastControls = null;
function noteControls(event) {
  const target = event.target instanceof Element ? event.target : null;
  // the block the control stands in: its row of controls, its paragraph, its section
  const place = target && target.closest(".controls, p, section");
  if (place && !place.matches("#error")) lastControls = place;
}
document.addEventListener("click", noteControls, true);
document.addEventListener("change", noteControls, true);
document.addEventListener("submit", noteControls, true);

export function showError(message) {
  const el = errorLine();
  if (message && lastControls && lastControls.isConnected) {
    const anchor = lastControls.matches("section")
      ? lastControls.querySelector(".controls") || lastControls.firstElementChild
      : lastControls;
    if (anchor && el.previousElementSibling !== anchor) anchor.after(el);
  }
  el.textContent = message ? String(message).split("\n")[0] : "";
  el.hidden = !message;
}

export function clearError() {
  showError("");
}

// The note under the header while the server compiles a solver (its first use after
// installation): "compiling the solver (once, about N s)".
function noteLine() {
  let el = document.getElementById("notice");
  if (!el) {
    el = document.createElement("p");
    el.id = "notice";
    el.className = "notice";
    el.setAttribute("role", "status");
    errorLine().after(el);
  }
  return el;
}

let waiting = 0;
async function watchCompiling() {
  // asked only when an answer is slow: the server says which solvers it is compiling
  while (waiting > 0) {
    try {
      const h = await (await fetch("/api/health")).json();
      const seconds = Object.values(h.compiling || {});
      const el = noteLine();
      el.textContent = seconds.length
        ? `compiling the solver (once, about ${Math.max(...seconds)} s)…`
        : "";
      el.hidden = !seconds.length;
      document.body.dataset.compiling = seconds.length ? "1" : "";
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  noteLine().hidden = true;
  document.body.dataset.compiling = "";
}

// fetch a JSON answer; a 4xx/5xx shows the server's one-line {"error"} and throws it.
// body: an object sent as JSON (POST), or a Blob/string/ArrayBuffer sent raw (an upload).
export async function api(url, body = undefined, { method, quiet = false, signal } = {}) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), signal, headers: { ...TOKENS } };
  if (body !== undefined) {
    const raw = body instanceof Blob || typeof body === "string" || body instanceof ArrayBuffer;
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = raw ? "application/octet-stream" : "application/json";
  }
  let response;
  waiting += 1;
  const slow = setTimeout(() => { if (waiting === 1) watchCompiling(); }, 700);
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (err.name === "AbortError") throw err;
    const message = "the playground server does not answer (is rompicapo serve running?)";
    if (!quiet) showError(message);
    throw new Error(message);
  } finally {
    clearTimeout(slow);
    waiting -= 1;
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data && data.error) || `HTTP ${response.status}`;
    if (!quiet) showError(message);
    const err = new Error(message);
    err.status = response.status;
    throw err;
  }
  if (!quiet) clearError();
  return data;
}

// Start a job: POST url with body; then follow its events.
// onProgress(event) gets each ProgressEvent (as a dict), onEnd(summary) the final summary
// ({state, result, error, seconds}). Returns {id, stop(), done} where done resolves to the
// summary. Closing the page closes the stream, and the server stops the job.
export async function startJob(url, body, { onProgress, onEnd } = {}) {
  const job = await api(url, body);
  return followJob(job.id, { onProgress, onEnd });
}

// The job's server-sent events, read with fetch (EventSource cannot send the page's tokens).
async function readEvents(id, onEvent, signal) {
  const response = await fetch(`/api/jobs/${encodeURIComponent(id)}/events`, { headers: TOKENS, signal });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      onEvent(name, JSON.parse(data));
    }
  }
}

export function followJob(id, { onProgress, onEnd } = {}) {
  let resolve;
  const done = new Promise((r) => (resolve = r));
  const abort = new AbortController();
  let finished = false;
  const finish = (summary) => {
    if (finished) return;
    finished = true;
    abort.abort();
    if (summary && summary.state === "failed" && summary.error) showError(summary.error);
    if (onEnd) onEnd(summary);
    resolve(summary);
  };
  readEvents(id, (name, data) => {
    if (name === "progress" && onProgress && !finished) onProgress(data);
    else if (name === "end") finish(data);
  }, abort.signal).then(async () => {
    // the stream ended without its end event (server restarted?): ask once for the state
    if (finished) return;
    try {
      finish(await api(`/api/jobs/${encodeURIComponent(id)}`, undefined, { quiet: true }));
    } catch (err) {
      finish({ id, state: "failed", error: err.message });
    }
  }, (err) => {
    if (!finished) finish({ id, state: "failed", error: err.message });
  });
  return {
    id,
    done,
    stop: () => api(`/api/jobs/${encodeURIComponent(id)}/stop`, {}, { quiet: true }).catch(() => {}),
  };
}

// A progress bar element's value from a ProgressEvent ({done, total, ...}).
export function setProgress(bar, event) {
  if (!bar) return;
  if (event && event.total) {
    bar.max = event.total;
    bar.value = Math.min(event.done || 0, event.total);
  } else {
    bar.removeAttribute("value"); // indeterminate
  }
}

// The shared header: the playground's name and a link to every page, the current one marked.
const PAGES = [
  ["/", "Home"],
  ["/static/paths.html", "Paths"],
  ["/static/cover.html", "Exact cover"],
  ["/static/games.html", "Games"],
  ["/static/edges.html", "Edge matching"],
];

export function navHeader() {
  let header = document.querySelector("header");
  if (!header) {
    header = document.createElement("header");
    document.body.prepend(header);
  }
  if (header.querySelector("nav.site")) return header;
  const nav = document.createElement("nav");
  nav.className = "site";
  const here = location.pathname === "/index.html" ? "/" : location.pathname;
  for (const [href, label] of PAGES) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = label;
    if (href === here) a.setAttribute("aria-current", "page");
    nav.append(a);
  }
  header.prepend(nav);
  return header;
}

// Small DOM helper: el("button", {class: "x", onclick: f}, "text", child...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// An SVG element: svg("circle", {cx: 5, ...}, "text")
export function svg(tag, attrs = {}, text) {
  const n = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

// Numbers with thousands separators (exact for integers of any size sent as numbers).
export function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : String(n);
}

navHeader();
