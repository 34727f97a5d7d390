// The exact-cover page: Sudoku (solve, uniqueness, rating, hints, generation), N queens and
// polyomino packings one solution at a time, and an uploaded .dlx problem in a job.
import { api, followJob, setProgress, showError, fmt, svg } from "/static/common.js";

const $ = (id) => document.getElementById(id);
const SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

// ------------------------------------------------------------------ Sudoku
const sd = { box: [3, 3], hint: null };
const side = () => sd.box[0] * sd.box[1];

function sdBuild(box) {
  sd.box = box;
  const n = side();
  const grid = $("sd-grid");
  grid.replaceChildren();
  grid.style.gridTemplateColumns = `repeat(${n}, auto)`;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const input = document.createElement("input");
      input.maxLength = 1;
      input.dataset.r = r;
      input.dataset.c = c;
      input.setAttribute("aria-label", `row ${r + 1} column ${c + 1}`);
      if ((c + 1) % box[1] === 0 && c < n - 1) input.classList.add("br");
      if ((r + 1) % box[0] === 0 && r < n - 1) input.classList.add("bb");
      input.addEventListener("input", () => {
        const v = input.value.toUpperCase();
        input.value = SYMBOLS.slice(0, n).includes(v) ? v : "";
        input.className = input.className.replace(/\b(solved|hinted|elim)\b/g, "");
        input.classList.toggle("given", !!input.value);
        sdClearHint();
      });
      input.addEventListener("keydown", (e) => sdMove(e, r, c));
      grid.append(input);
    }
  }
}

function sdMove(e, r, c) {
  const n = side();
  const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
  if (!d) return;
  e.preventDefault();
  sdCell((r + d[0] + n) % n, (c + d[1] + n) % n).focus();
}

const sdCell = (r, c) => $("sd-grid").children[r * side() + c];

// The puzzle as one line: the givens (cells typed or loaded), solutions left out.
function sdLine({ withSolution = false } = {}) {
  return [...$("sd-grid").children]
    .map((i) => (i.value && (withSolution || !i.classList.contains("solved")) ? i.value : "."))
    .join("");
}

function sdLoad(line, box) {
  sdBuild(box);
  [...$("sd-grid").children].forEach((input, k) => {
    const ch = line[k];
    input.value = ch && ch !== "." ? ch : "";
    input.classList.toggle("given", !!input.value);
  });
  sdClearHint();
}

function sdShowSolution(line) {
  [...$("sd-grid").children].forEach((input, k) => {
    if (!input.value || input.classList.contains("solved")) {
      input.value = line[k];
      input.classList.add("solved");
    }
  });
}

function sdClearSolution() {
  for (const input of $("sd-grid").children) {
    if (input.classList.contains("solved")) {
      input.value = "";
      input.classList.remove("solved");
    }
  }
}

function sdClearHint() {
  sd.hint = null;
  $("sd-apply").disabled = true;
  for (const input of $("sd-grid").children) input.classList.remove("hinted", "elim");
}

const status = (text) => ($("sd-status").textContent = text);

async function sdSolve(showIt) {
  sdClearSolution();
  sdClearHint();
  $("sd-explain").textContent = "";
  status("solving…");
  try {
    const r = await api("/api/cover/sudoku/solve", { puzzle: sdLine() });
    if (r.solutions === 0) return status("no solution");
    if (showIt) sdShowSolution(r.solution);
    const uniq = r.unique ? "unique solution" : "more than one solution";
    status(`${uniq}${showIt ? "" : " (not shown)"}; checked by the verifier: ${r.verified ? "yes" : "NO"}; ` +
      `${(r.solve_seconds * 1000).toFixed(2)} ms (${r.engine})`);
  } catch (err) {
    status("");
  }
}

async function sdRate() {
  status("rating…");
  try {
    const r = await api("/api/cover/sudoku/rate", { puzzle: sdLine() });
    status(`rating: ${r.label} (guesses ${fmt(r.guesses)}, DLX nodes ${fmt(r.nodes)})`);
  } catch {
    status("");
  }
}

async function sdHint() {
  sdClearHint();
  try {
    const r = await api("/api/cover/sudoku/hint", { puzzle: sdLine({ withSolution: false }) });
    $("sd-explain").textContent = r.kind ? `${r.kind}: ${r.explanation}` : r.explanation;
    for (const [row, col] of r.eliminations || []) sdCell(row, col).classList.add("elim");
    if (r.cell) {
      sdCell(r.cell[0], r.cell[1]).classList.add("hinted");
      sd.hint = r;
      $("sd-apply").disabled = false;
    }
  } catch {
    $("sd-explain").textContent = "";
  }
}

function sdApply() {
  if (!sd.hint || !sd.hint.cell) return;
  const input = sdCell(sd.hint.cell[0], sd.hint.cell[1]);
  input.value = SYMBOLS[sd.hint.digit - 1];
  input.classList.remove("solved");
  input.classList.add("given");
  sdClearHint();
}

async function sdGenerate() {
  const box = $("sd-box").value;
  const body = { box, symmetric: $("sd-sym").checked, difficulty: $("sd-diff").value };
  if ($("sd-seed").value !== "") body.seed = Number($("sd-seed").value);
  status("generating…");
  $("sd-explain").textContent = "";
  $("sd-generate").disabled = true;
  try {
    const r = await api("/api/cover/sudoku/generate", body);
    sdLoad(r.puzzle, r.box);
    $("sd-explain").textContent = "";
    const missed = r.found ? "" : ` (no ${r.wanted} puzzle within the time allowed: this is the last try)`;
    const seed = r.seed === null || r.seed === undefined ? "" : `; seed ${r.seed} (makes it again)`;
    status(`${r.clues} clues, ${r.rating}, ${r.minimal ? "minimal" : "not minimal"}` +
      `${r.symmetric ? ", symmetric" : ""}${seed}; unique and checked: ${r.verified ? "yes" : "NO"}${missed}`);
  } catch {
    status("");
  } finally {
    $("sd-generate").disabled = false;
  }
}

function sdPaste() {
  const text = $("sd-paste").value.replace(/[\s|+-]/g, "").replace(/0/g, ".");
  const n = Math.round(Math.sqrt(text.length));
  const boxes = { 4: [2, 2], 6: [2, 3], 9: [3, 3], 12: [3, 4], 16: [4, 4] };
  if (n * n !== text.length || !boxes[n]) {
    showError(`a puzzle has 16, 36, 81, 144 or 256 cells; got ${text.length}`);
    return;
  }
  showError("");
  sdLoad(text.toUpperCase(), boxes[n]);
  status(`loaded a ${n}x${n} puzzle`);
}

$("sd-solve").onclick = () => sdSolve(true);
$("sd-unique").onclick = () => sdSolve(false);
$("sd-rate").onclick = sdRate;
$("sd-hint").onclick = sdHint;
$("sd-apply").onclick = sdApply;
$("sd-clear-sol").onclick = () => { sdClearSolution(); status(""); };
$("sd-clear").onclick = () => { sdBuild(sd.box); status(""); $("sd-explain").textContent = ""; };
$("sd-generate").onclick = sdGenerate;
$("sd-load").onclick = sdPaste;
$("sd-copy").onclick = () => ($("sd-paste").value = sdLine());
sdLoad("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79", [3, 3]);

// ------------------------------------------------------------------ N queens
const q = { index: 0 };

async function qShow(delta) {
  const n = Number($("q-n").value);
  const index = Math.max(0, q.index + delta);
  try {
    const r = await api("/api/cover/queens", { n, index });
    q.index = r.index;
    const board = $("q-board");
    board.replaceChildren();
    const s = 320 / n;
    board.setAttribute("viewBox", "0 0 320 320");
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        board.append(svg("rect", { x: j * s, y: i * s, width: s, height: s,
          fill: (i + j) % 2 ? "#b58863" : "#f0d9b5" }));
      }
      board.append(svg("text", { x: r.columns[i] * s + s / 2, y: i * s + s * 0.72,
        "text-anchor": "middle", "font-size": s * 0.7, class: "queen" }, "♛"));
    }
    const of = r.count === null ? "" : ` of ${fmt(r.count)}`;
    $("q-status").textContent = `solution ${fmt(r.index + 1)}${of}; checked: ${r.verified ? "yes" : "NO"}`;
  } catch {
    // the error line says why; the board of an earlier answer must not stay as if it were this one
    $("q-board").replaceChildren();
    $("q-status").textContent = "";
  }
}
$("q-prev").onclick = () => qShow(-1);
$("q-next").onclick = () => qShow(1);
$("q-n").onchange = () => { q.index = 0; qShow(0); };
qShow(0);

// ------------------------------------------------------------------ polyominoes
const p = { index: 0 };
const COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0",
  "#f032e6", "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000",
  "#aaffc3", "#808000", "#ffd8b1", "#000075", "#808080"];

function pDraw(drawing) {
  const rows = drawing.split("\n");
  const h = rows.length, w = Math.max(...rows.map((x) => x.length));
  const s = Math.min(40, Math.floor(560 / Math.max(w, 1)));
  const board = $("p-board");
  board.replaceChildren();
  board.setAttribute("width", w * s + 2);
  board.setAttribute("height", h * s + 2);
  board.setAttribute("viewBox", `0 0 ${w * s + 2} ${h * s + 2}`);
  const letters = [...new Set(drawing.replace(/[\s.]/g, ""))].sort();
  rows.forEach((line, r) => [...line].forEach((ch, c) => {
    if (ch === " " || ch === ".") return;
    const colour = COLOURS[letters.indexOf(ch) % COLOURS.length];
    board.append(svg("rect", { x: 1 + c * s, y: 1 + r * s, width: s, height: s, fill: colour }));
    // a thick line where the piece changes (or the region ends)
    const other = (rr, cc) => (rows[rr] || "")[cc];
    const line = (x1, y1, x2, y2) => board.append(svg("line", {
      x1: 1 + x1 * s, y1: 1 + y1 * s, x2: 1 + x2 * s, y2: 1 + y2 * s, stroke: "#222", "stroke-width": 2 }));
    if (other(r, c + 1) !== ch) line(c + 1, r, c + 1, r + 1);
    if (other(r + 1, c) !== ch) line(c, r + 1, c + 1, r + 1);
    if (other(r, c - 1) !== ch) line(c, r, c, r + 1);
    if (other(r - 1, c) !== ch) line(c, r, c + 1, r);
    board.append(svg("text", { x: 1 + c * s + s / 2, y: 1 + r * s + s * 0.68, "text-anchor": "middle",
      "font-size": s * 0.45, fill: "#222" }, ch));
  }));
}

const pBody = () => ({ pieces: $("p-pieces").value, region: $("p-region").value });

async function pShow(delta) {
  const index = Math.max(0, p.index + delta);
  $("p-status").textContent = "searching…";
  try {
    const r = await api("/api/cover/polyomino", { ...pBody(), index });
    p.index = r.index;
    pDraw(r.drawing);
    $("p-status").textContent = `packing ${fmt(r.index + 1)}; checked: ${r.verified ? "yes" : "NO"}`;
  } catch {
    $("p-board").replaceChildren();
    $("p-status").textContent = "";
  }
}

async function pCount() {
  $("p-status").textContent = "counting (at most 10 s)…";
  try {
    const r = await api("/api/cover/polyomino/count", pBody());
    const bound = r.complete ? "" : " at least (stopped by the time limit)";
    $("p-status").textContent = `packing ${fmt(p.index + 1)}; ${fmt(r.count)} packings${bound}` +
      (r.symmetry_factor > 1 ? ` (counted up to the region's ${r.symmetry_factor} symmetries)` : "") +
      `; ${r.seconds.toFixed(2)} s`;
  } catch {
    $("p-status").textContent = "";
  }
}
$("p-prev").onclick = () => pShow(-1);
$("p-next").onclick = () => pShow(1);
$("p-count").onclick = pCount;
$("p-region").onchange = () => { p.index = 0; pShow(0); };
$("p-pieces").onchange = () => { p.index = 0; pShow(0); };
pShow(0);

// ------------------------------------------------------------------ .dlx upload
const x = { job: null };

async function xStart() {
  const file = $("x-file").files[0];
  if (!file) return showError("choose a .dlx file first");
  const params = new URLSearchParams({
    mode: $("x-mode").value, limit: $("x-limit").value, time_limit: $("x-time").value,
  });
  $("x-out").textContent = "";
  $("x-status").textContent = "uploading…";
  setProgress($("x-progress"), null);
  let job;
  try {
    job = await api(`/api/cover/dlx?${params}`, file);
  } catch {
    $("x-status").textContent = "";
    return;
  }
  $("x-start").disabled = true;
  $("x-stop").disabled = false;
  $("x-progress").hidden = false;
  x.job = followJob(job.id, {
    onProgress: (e) => {
      setProgress($("x-progress"), e);
      const c = e.counts || {};
      const parts = [`${fmt(c.solutions ?? 0)} solutions so far`, `${fmt(c.nodes ?? 0)} nodes`];
      if (e.total) parts.push(`${(100 * (e.done ?? 0) / e.total).toFixed(1)}% of the tree (estimate)`);
      parts.push(`${(e.elapsed ?? 0).toFixed(1)} s`);
      $("x-status").textContent = parts.join(", ");
    },
    onEnd: (s) => {
      $("x-start").disabled = false;
      $("x-stop").disabled = true;
      $("x-progress").hidden = true;
      x.job = null;
      const r = s.result;
      if (!r) {
        $("x-status").textContent = s.state === "stopped" ? "stopped" : (s.error || s.state);
        return;
      }
      const exact = r.complete ? "exactly" : `at least (stopped: ${r.stopped || s.state})`;
      $("x-status").textContent = `${exact} ${fmt(r.count)} solutions; ${fmt(r.nodes ?? 0)} nodes; ` +
        `${(r.solve_seconds ?? 0).toFixed(3)} s` + (r.algorithm ? ` (${r.algorithm})` : "");
      $("x-out").textContent = (r.kept || []).map((sol, k) => `solution ${k + 1}:\n  ${sol.join("\n  ")}`).join("\n");
    },
  });
}
$("x-start").onclick = xStart;
$("x-stop").onclick = () => x.job && x.job.stop();
