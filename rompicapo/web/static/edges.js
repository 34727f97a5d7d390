// The edge-matching page: a board viewer (mismatched joints in red, piece and rotation under
// the pointer, the e2.bucas.name URL), a live solve with a score chart, polishing, study reports.
import { api, startJob, showError, fmt, svg } from "/static/common.js";
import { renderMarkdown } from "/static/markdown.js";

const $ = (id) => document.getElementById(id);

const st = { pieces: "eternity2", view: null, job: null, history: [] };

// ------------------------------------------------------------------ the board
function drawBoard(view) {
  st.view = view;
  const board = $("e-board");
  board.replaceChildren();
  const s = Math.floor(576 / Math.max(view.rows, view.cols));
  board.setAttribute("width", view.cols * s);
  board.setAttribute("height", view.rows * s);
  board.setAttribute("viewBox", `0 0 ${view.cols * s} ${view.rows * s}`);
  for (let r = 0; r < view.rows; r++) {
    for (let c = 0; c < view.cols; c++) {
      const cell = view.cells[r][c];
      const x = c * s, y = r * s, m = s / 2;
      const g = svg("g", { "data-r": r, "data-c": c });
      if (!cell) {
        g.append(svg("rect", { x, y, width: s, height: s, fill: "#eee", stroke: "#ccc" }));
      } else {
        const [, , top, right, bottom, left] = cell;
        const tri = [
          [top, `${x},${y} ${x + s},${y} ${x + m},${y + m}`],
          [right, `${x + s},${y} ${x + s},${y + s} ${x + m},${y + m}`],
          [bottom, `${x + s},${y + s} ${x},${y + s} ${x + m},${y + m}`],
          [left, `${x},${y + s} ${x},${y} ${x + m},${y + m}`],
        ];
        for (const [colour, points] of tri) {
          g.append(svg("polygon", { points, fill: view.palette[colour] || "#888", stroke: "#333", "stroke-width": 0.5 }));
        }
      }
      board.append(g);
    }
  }
  for (const [r1, c1, r2, c2] of view.mismatched) {
    // the joint between (r1, c1) and its right or lower neighbour
    const line = r1 === r2
      ? { x1: (c1 + 1) * s, y1: r1 * s + 3, x2: (c1 + 1) * s, y2: (r1 + 1) * s - 3 }
      : { x1: c1 * s + 3, y1: (r1 + 1) * s, x2: (c1 + 1) * s - 3, y2: (r1 + 1) * s };
    board.append(svg("line", { ...line, class: "bad" }));
  }
  const hover = svg("rect", { x: 0, y: 0, width: s, height: s, class: "hover", visibility: "hidden" });
  board.append(hover);
  board.onmousemove = (e) => {
    const box = board.getBoundingClientRect();
    const c = Math.floor(((e.clientX - box.left) / box.width) * view.cols);
    const r = Math.floor(((e.clientY - box.top) / box.height) * view.rows);
    if (r < 0 || c < 0 || r >= view.rows || c >= view.cols) return;
    hover.setAttribute("x", c * s);
    hover.setAttribute("y", r * s);
    hover.setAttribute("visibility", "visible");
    const cell = view.cells[r][c];
    $("e-hover").textContent = cell
      ? `row ${r}, column ${c}: piece ${cell[0] + 1}, rotation ${cell[1]} (edges ${cell.slice(2).join(" ")})`
      : `row ${r}, column ${c}: empty`;
    $("e-hover").dataset.piece = cell ? cell[0] + 1 : "";
    $("e-hover").dataset.rotation = cell ? cell[1] : "";
  };
  board.onmouseleave = () => hover.setAttribute("visibility", "hidden");
  const bad = view.mismatched.length;
  $("e-score").textContent = `score ${fmt(view.score)} / ${fmt(view.max_score)}; ${fmt(view.placed)} of ` +
    `${fmt(view.rows * view.cols)} cells filled; ${fmt(bad)} mismatched joint${bad === 1 ? "" : "s"} (red)` +
    (view.valid === undefined ? "" : view.valid ? "; a complete board by the rules" : "");
  $("e-url").value = view.url || "(the viewer takes at most 25 colours)";
  $("e-url-open").href = view.url || "#";
  const text = boardText(view);
  $("e-download").href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
}

function boardText(view) {
  const lines = [`# rompicapo playground board, score ${view.score}/${view.max_score}`,
    "# ROW COL PIECE ROTATION; row 0 = top, piece 1-based"];
  view.cells.forEach((row, r) => row.forEach((cell, c) => {
    if (cell) lines.push(`${r} ${c} ${cell[0] + 1} ${cell[1]}`); // files number pieces from 1
  }));
  return lines.join("\n") + "\n";
}

async function show(boardTextOrUrl) {
  try {
    const view = await api("/api/edges/board", { pieces: st.pieces, board: boardTextOrUrl || "" });
    drawBoard(view);
    document.body.dataset.edgesReady = "1";
  } catch {
    /* the error line says why */
  }
}

$("e-pieces-kind").onchange = () => {
  const file = $("e-pieces-kind").value === "file";
  $("e-pieces-file").hidden = !file;
  if (!file) {
    st.pieces = "eternity2";
    show("");
  }
};
$("e-pieces-file").onchange = async () => {
  const f = $("e-pieces-file").files[0];
  if (!f) return;
  st.pieces = await f.text();
  show("");
};
$("e-board-file").onchange = async () => {
  const f = $("e-board-file").files[0];
  if (f) show(await f.text());
};
$("e-show").onclick = () => show($("e-board-text").value);
$("e-empty").onclick = () => show("");

// ------------------------------------------------------------------ solve and polish
// Score (left axis) and depth (right axis), each scaled to the range seen so the climb shows.
function drawChart() {
  const chart = $("s-chart");
  chart.replaceChildren();
  const W = 576, H = 180, L = 44, R = 40, B = 20;
  const pts = st.history;
  const tMax = Math.max(1, ...pts.map((p) => p.t));
  const X = (t) => L + ((W - L - R) * t) / tMax;
  const range = (vals) => {
    if (!vals.length) return [0, 1];
    const lo = Math.min(...vals), hi = Math.max(...vals);
    const pad = Math.max(2, Math.ceil((hi - lo) * 0.1));
    return [Math.max(0, lo - pad), hi + pad];
  };
  const scored = pts.filter((p) => p.score !== null && p.score !== undefined);
  const deep = pts.filter((p) => p.depth);
  const [s0, s1] = range(scored.map((p) => p.score));
  const [d0, d1] = range(deep.map((p) => p.depth));
  const Y = (v, lo, hi) => H - B - ((H - B - 8) * (v - lo)) / (hi - lo);
  chart.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#888" }));
  chart.append(svg("line", { x1: L, y1: 4, x2: L, y2: H - B, stroke: "#888" }));
  chart.append(svg("line", { x1: W - R, y1: 4, x2: W - R, y2: H - B, stroke: "#888" }));
  if (scored.length) {
    chart.append(svg("text", { x: 2, y: 14, fill: "#1560bd" }, String(s1)));
    chart.append(svg("text", { x: 2, y: H - B }, String(s0)));
    chart.append(svg("polyline", { class: "score", points: scored.map((p) => `${X(p.t)},${Y(p.score, s0, s1)}`).join(" ") }));
  }
  if (deep.length) {
    chart.append(svg("text", { x: W - R + 4, y: 14 }, String(d1)));
    chart.append(svg("text", { x: W - R + 4, y: H - B }, String(d0)));
    chart.append(svg("polyline", { class: "depth", points: deep.map((p) => `${X(p.t)},${Y(p.depth, d0, d1)}`).join(" ") }));
  }
  chart.append(svg("text", { x: L, y: H - 4 }, "0 s"));
  chart.append(svg("text", { x: W - R - 40, y: H - 4 }, `${tMax.toFixed(1)} s`));
}

function running(on) {
  $("s-start").disabled = on;
  $("s-polish").disabled = on;
  $("s-stop").disabled = !on;
}

// A status line says only what is known: a part whose value has not come yet is left out,
// never shown as "?", "null" or an empty field.
function onProgress(e) {
  const c = e.counts || {};
  const known = (v) => v !== null && v !== undefined && !Number.isNaN(v);
  const score = e.best && typeof e.best === "object" ? e.best.score : (c.best_score ?? e.best);
  const depth = c.deepest ?? (e.best && typeof e.best === "object" ? e.best.depth : undefined);
  if (e.kind === "start") {
    $("s-status").textContent = `${e.message || "starting the search"}…`;
    return;
  }
  st.history.push({ t: e.elapsed, score: c.best_score ?? score, depth });
  drawChart();
  if (e.best && typeof e.best === "object") drawBoard(e.best);
  const top = c.max_score ?? (st.view ? st.view.max_score : null);
  const parts = [];
  const best = c.best_score ?? score;
  if (known(best)) {
    const what = c.deepest === undefined ? "best score" : "best search score";
    parts.push(`${what} ${fmt(best)}${known(top) ? ` / ${fmt(top)}` : ""}` +
      (known(c.deepest) ? `, deepest ${c.deepest} pieces` : ""));
  } else if (known(c.deepest)) parts.push(`deepest ${c.deepest} pieces`);
  if (c.placements && e.elapsed) parts.push(`${fmt(Math.round(c.placements / e.elapsed))} placements/s`);
  else if (e.rate) parts.push(`${fmt(Math.round(e.rate))} ${e.unit}/s`);
  if (known(e.elapsed)) parts.push(`${e.elapsed.toFixed(1)} s`);
  $("s-status").textContent = parts.length ? parts.join("; ") : "searching…";
  document.body.dataset.edgesScore = known(best) ? String(best) : "";
}

function onEnd(s) {
  running(false);
  st.job = null;
  const r = s.result;
  if (!r) {
    $("s-status").textContent = s.state === "stopped" ? "stopped before the search began" : s.error || s.state;
    document.body.dataset.edgesDone = "1";
    return;
  }
  if (r.board) drawBoard(r.board);
  const how = s.state === "stopped" ? "stopped; the best board is kept" : "done";
  if (r.score_after !== undefined) {
    $("s-status").textContent = `${how}: polished from ${r.score_before} to ${r.score_after}` +
      (r.iterations ? `; ${fmt(r.iterations)} repairs` : "");
  } else {
    $("s-status").textContent = `${how}: board score ${r.score} / ${r.board.max_score} (search ${r.search_score} ` +
      `with ${r.search_depth} pieces, completed greedily); ${fmt(r.counts.placements)} placements in ` +
      `${r.solve_seconds.toFixed(1)} s; verified: ${r.verified}`;
  }
  document.body.dataset.edgesDone = "1";
}

async function start(kind) {
  st.history = [];
  drawChart();
  document.body.dataset.edgesDone = "";
  const body = { pieces: st.pieces, time_limit: Number($("s-time").value), seed: Number($("s-seed").value) };
  if (kind === "solve") body.clues = $("s-clues").value;
  else body.board = st.view ? boardText(st.view) : "";
  try {
    running(true);
    $("s-status").textContent = "starting…";
    st.job = await startJob(`/api/edges/${kind}`, body, { onProgress, onEnd });
    document.body.dataset.edgesJob = st.job.id; // for tests: the job this page owns
  } catch {
    running(false);
    $("s-status").textContent = "";
  }
}
$("s-start").onclick = () => start("solve");
$("s-polish").onclick = () => start("improve");
$("s-stop").onclick = () => st.job && st.job.stop();

// ------------------------------------------------------------------ study report
$("st-go").onclick = async () => {
  const f = $("st-file").files[0];
  if (!f) return showError("choose a study file first");
  $("st-status").textContent = "making the report…";
  $("st-summary").replaceChildren();
  $("st-summary").hidden = true;
  $("st-images").replaceChildren();
  try {
    const r = await api("/api/edges/study", f);
    $("st-status").textContent = `${fmt(r.jobs)} jobs; report made in ${r.seconds.toFixed(1)} s`;
    const images = Object.fromEntries((r.images || []).map((im) => [im.name, `data:image/png;base64,${im.png}`]));
    $("st-summary").replaceChildren(renderMarkdown(r.summary || "", images));
    $("st-summary").hidden = false;
    // the plots the report's text does not show itself, one a row at a size that reads
    const shown = new Set([...$("st-summary").querySelectorAll("img")].map((img) => img.title));
    $("st-images").replaceChildren(...(r.images || []).filter((im) => !shown.has(im.name)).map((im) => {
      const fig = document.createElement("figure");
      const img = document.createElement("img");
      img.src = images[im.name];
      img.alt = im.name;
      const cap = document.createElement("figcaption");
      cap.textContent = im.name;
      fig.append(img, cap);
      return fig;
    }));
  } catch {
    $("st-status").textContent = ""; // the error line says why; the last report is gone
  }
};

// ------------------------------------------------------------------ hunt panel
// Polls the hunt file given at start-up (GET /api/edges/hunt); hidden when there is none.
const HUNT_POLL_MS = 5000;
const COLOURS = { restart: "#1f77b4", improve: "#ff7f0e" };

function drawHuntChart(bests, seconds) {
  const chart = $("h-chart");
  chart.replaceChildren();
  if (!bests.length) return;
  const W = 576, H = 140, pad = 28;
  // from 0 to the end of the hunt, in seconds for a short one, the best so far drawn on to the end
  const t1 = Math.max(1, seconds || 0, ...bests.map((b) => b[0]));
  const [unit, scale] = t1 < 120 ? ["s", 1] : ["min", 60];
  const lo = Math.min(...bests.map((b) => b[1])), hi = Math.max(...bests.map((b) => b[1]));
  const x = (t) => pad + (W - 2 * pad) * t / t1;
  const y = (s) => H - pad - (H - 2 * pad) * (hi === lo ? 0.5 : (s - lo) / (hi - lo));
  let d = "", top = -Infinity;
  for (const b of bests) {
    const prev = top;
    top = Math.max(top, b[1]);
    d += d ? `L${x(b[0]).toFixed(1)},${y(prev).toFixed(1)}L${x(b[0]).toFixed(1)},${y(top).toFixed(1)}`
           : `M${x(b[0]).toFixed(1)},${y(top).toFixed(1)}`;
  }
  d += `L${x(t1).toFixed(1)},${y(top).toFixed(1)}`;
  chart.append(svg("path", { d, fill: "none", stroke: "#888" }));
  for (const b of bests) chart.append(svg("circle", { cx: x(b[0]), cy: y(b[1]), r: 3, fill: COLOURS[b[2]] || "#444" }));
  chart.append(svg("text", { x: 2, y: 12, "font-size": 11 }, `${hi}`));
  if (hi !== lo) chart.append(svg("text", { x: 2, y: H - pad + 4, "font-size": 11 }, `${lo}`));
  chart.append(svg("text", { x: pad, y: H - 6, "font-size": 11 }, "0"));
  chart.append(svg("text", { x: W - 110, y: H - 6, "font-size": 11 }, `${(t1 / scale).toFixed(1)} ${unit}`));
}

async function pollHunt() {
  let r;
  try {
    r = await api("/api/edges/hunt", undefined, { quiet: true });
  } catch {
    setTimeout(pollHunt, HUNT_POLL_MS * 2);
    return;
  }
  if (!r.hunt) return; // no hunt file given: the panel stays hidden, nothing more is asked
  const h = r.hunt;
  $("hunt").hidden = false;
  if (h.waiting) {
    $("h-status").textContent = `waiting for ${h.file} (no hunt has written it yet)`;
  } else {
    const last = h.last || {};
    $("h-status").textContent = `${h.file}: best ${h.score ?? "—"}/${h.max_score} · ` +
      (h.seconds < 120 ? `${h.seconds.toFixed(0)} s` : `${(h.seconds / 60).toFixed(1)} min`) +
      ` over ${h.runs} run${h.runs === 1 ? "" : "s"}${h.running ? " (running)" : ""} · ` +
      `${fmt(last.restarts || 0)} restarts, ${fmt(last.improves || 0)} improver runs in the last run · ` +
      `blue: new best by a restart, orange: by the improver`;
    drawHuntChart(h.bests || [], h.seconds);
    const ops = Object.entries(h.operators || {}).sort((a, b) => b[1].weight - a[1].weight);
    $("h-ops").textContent = ops.length
      ? "improver's operators by weight (latest run): " +
        ops.map(([op, o]) => `${op} ${o.weight.toFixed(2)} (+${o.gain})`).join(", ")
      : "";
    st.huntBoard = h.board;
    $("h-show").disabled = !h.board;
    $("h-url").hidden = !(h.board && h.board.url);
    if (h.board && h.board.url) $("h-url").href = h.board.url;
  }
  setTimeout(pollHunt, HUNT_POLL_MS);
}
$("h-show").onclick = () => { if (st.huntBoard) drawBoard(st.huntBoard); };

// The page opens on a sample: Joshua Blackwood's published board of 470 (its ten mismatched
// joints drawn in red), a board to point at and polish before any search.
const SAMPLE = "/static/eternity2-blackwood-470.txt";
fetch(SAMPLE)
  .then((r) => (r.ok ? r.text() : ""))
  .catch(() => "")
  .then((text) => show(text));
pollHunt();
// for the browser tests: the score and depth reported so far
window.edgesHistory = () => st.history.map((h) => ({ ...h }));
