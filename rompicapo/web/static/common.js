// Shared helpers of the playground's pages: JSON requests that show the server's one-line
// error, jobs with live progress over server-sent events, the tab id, and the nav header.
// Plain ES module, no dependencies.

// One id per browser tab, kept across reloads of the tab (sessionStorage is per tab): the
// server allows one running job per tab.
export const TAB = (() => {
  try {
    let id = sessionStorage.getItem("rompicapo-tab");
    if (!id) {
      id = "t" + Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
      sessionStorage.setItem("rompicapo-tab", id);
    }
    return id;
  } catch {
    return "t" + Math.random().toString(36).slice(2, 12);
  }
})();

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

export function showError(message) {
  const el = errorLine();
  el.textContent = message ? String(message).split("\n")[0] : "";
  el.hidden = !message;
}

export function clearError() {
  showError("");
}

// fetch a JSON answer; a 4xx/5xx shows the server's one-line {"error"} and throws it.
// body: an object sent as JSON (POST), or a Blob/string/ArrayBuffer sent raw (an upload).
export async function api(url, body = undefined, { method, quiet = false, signal } = {}) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), signal };
  if (body !== undefined) {
    const raw = body instanceof Blob || typeof body === "string" || body instanceof ArrayBuffer;
    init.body = raw ? body : JSON.stringify(body);
    init.headers = { "Content-Type": raw ? "application/octet-stream" : "application/json" };
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (err.name === "AbortError") throw err;
    const message = "the playground server does not answer (is rompicapo serve running?)";
    if (!quiet) showError(message);
    throw new Error(message);
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

// Start a job: POST url with body (the tab id added); then follow its events.
// onProgress(event) gets each ProgressEvent (as a dict), onEnd(summary) the final summary
// ({state, result, error, seconds}). Returns {id, stop(), done} where done resolves to the
// summary. Closing the page closes the stream, and the server stops the job.
export async function startJob(url, body, { onProgress, onEnd } = {}) {
  const job = await api(url, { ...body, tab: TAB });
  return followJob(job.id, { onProgress, onEnd });
}

export function followJob(id, { onProgress, onEnd } = {}) {
  let resolve;
  const done = new Promise((r) => (resolve = r));
  const source = new EventSource(`/api/jobs/${encodeURIComponent(id)}/events`);
  let finished = false;
  const finish = (summary) => {
    if (finished) return;
    finished = true;
    source.close();
    if (summary && summary.state === "failed" && summary.error) showError(summary.error);
    if (onEnd) onEnd(summary);
    resolve(summary);
  };
  source.addEventListener("progress", (e) => {
    if (onProgress) onProgress(JSON.parse(e.data));
  });
  source.addEventListener("end", (e) => finish(JSON.parse(e.data)));
  source.onerror = async () => {
    // the stream broke (server restarted?): ask once for the job's state
    if (finished) return;
    source.close();
    try {
      finish(await api(`/api/jobs/${encodeURIComponent(id)}`, undefined, { quiet: true }));
    } catch (err) {
      finish({ id, state: "failed", error: err.message });
    }
  };
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

// Numbers with thousands separators (exact for integers of any size sent as numbers).
export function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : String(n);
}

navHeader();
