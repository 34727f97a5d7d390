// The paths page: the paper game, a zoomable map of a board of any size, counts as heat maps.
import { api, startJob, setProgress, showError, clearError, el, fmt } from "/static/common.js";

const $ = (id) => document.getElementById(id);
const JUMPS = [[3, 0], [-3, 0], [0, 3], [0, -3], [2, 2], [2, -2], [-2, 2], [-2, -2]];

// ------------------------------------------------------------------ the paper game
const game = { rows: 10, cols: 10, path: [], hinted: new Set() };

function isJump(a, b) {
  return JUMPS.some(([dr, dc]) => a[0] + dr === b[0] && a[1] + dc === b[1]);
}

function gameDraw() {
  const board = $("g-board");
  board.style.gridTemplateColumns = `repeat(${game.cols}, 36px)`;
  const written = new Map(game.path.map((c, i) => [c[0] * game.cols + c[1], i + 1]));
  const last = game.path.at(-1);
  const buttons = [];
  for (let r = 0; r < game.rows; r++) {
    for (let c = 0; c < game.cols; c++) {
      const k = written.get(r * game.cols + c);
      const b = el("button", { "data-r": r, "data-c": c, "aria-label": `row ${r} column ${c}` }, k ?? "");
      if (k) b.classList.add(k === game.path.length ? "last" : "written");
      if (k && game.hinted.has(k)) b.classList.add("hinted");
      if (!k && last && isJump(last, [r, c])) b.classList.add("next");
      b.onclick = () => gameClick(r, c, b);
      buttons.push(b);
    }
  }
  board.replaceChildren(...buttons);
  const n = game.rows * game.cols;
  let status = `${game.path.length} of ${n} written.`;
  if (game.path.length === n) status = `Done: all ${n} cells written.`;
  else if (last && !buttons.some((b) => b.classList.contains("next"))) status += " No jump left from here: undo.";
  $("g-status").textContent = status;
  document.body.dataset.written = String(game.path.length);
}

function gameClick(r, c, button) {
  const last = game.path.at(-1);
  const taken = game.path.some(([a, b]) => a === r && b === c);
  if (taken || (last && !isJump(last, [r, c]))) {
    button.classList.add("refused");
    setTimeout(() => button.classList.remove("refused"), 400);
    $("g-answer").textContent = taken ? "That cell is written already." : "Not one jump from the last number: refused.";
    return;
  }
  game.path.push([r, c]);
  $("g-answer").textContent = "";
  gameDraw();
}

async function askPrefix(seconds = 2) {
  if (!game.path.length) {
    $("g-answer").textContent = "Write the first number anywhere first.";
    return null;
  }
  return api("/api/paths/prefix", { rows: game.rows, cols: game.cols, prefix: game.path, time_limit: seconds });
}

$("g-new").onclick = () => {
  game.rows = Number($("g-rows").value);
  game.cols = Number($("g-cols").value);
  if (!(game.rows >= 1 && game.rows <= 30 && game.cols >= 1 && game.cols <= 30)) {
    showError("the paper game takes boards up to 30 x 30");
    return;
  }
  clearError();
  game.path = [];
  game.hinted.clear();
  $("g-answer").textContent = "";
  gameDraw();
};
$("g-undo").onclick = () => {
  game.hinted.delete(game.path.length);
  game.path.pop();
  gameDraw();
};
async function hint(all) {
  const a = await askPrefix();
  if (!a) return;
  if (a.status === "found") {
    const upto = all ? a.path.length : game.path.length + 1;
    for (let i = game.path.length; i < upto; i++) {
      game.path.push(a.path[i]);
      game.hinted.add(i + 1);
    }
    $("g-answer").textContent = all ? "Completed by the search (checked by the verifier)." : `Hint: ${game.path.length} goes there.`;
  } else if (a.status === "impossible") {
    $("g-answer").textContent = `No completion exists: ${a.proof}. Undo some numbers.`;
  } else {
    $("g-answer").textContent = `No completion found in time (${a.proof}); try another move.`;
  }
  gameDraw();
}
$("g-hint").onclick = () => hint(false).catch(() => ($("g-answer").textContent = ""));
$("g-complete").onclick = () => hint(true).catch(() => ($("g-answer").textContent = ""));
$("g-possible").onclick = async () => {
  $("g-answer").textContent = "Searching (at most 5 s)…";
  const a = await askPrefix(5).catch(() => null);
  if (!a) {
    $("g-answer").textContent = "";
    return;
  }
  const words = { found: "Yes: a completion exists (found one)", impossible: `No, proven impossible: ${a.proof}`, unknown: `Unknown: ${a.proof}` };
  $("g-answer").textContent = `${words[a.status]}.`;
  $("g-answer").dataset.status = a.status;
};

// ------------------------------------------------------------------ the map
const TILE = 256;
const map = { board: null, z: 0, cx: 0, cy: 0, tiles: new Map(), windowKey: "", window: null, pointer: null };
const canvas = $("m-canvas");
const ctx = canvas.getContext("2d");

// The routes that read a board take the handle the server gave when it was shown.
function boardQuery() {
  return `b=${encodeURIComponent(map.board.board)}`;
}
function boardBody(extra) {
  return { board: map.board.board, ...extra };
}
const scale = () => 2 ** map.z; // pixels per cell

function fit() {
  const b = map.board;
  const z = Math.floor(Math.log2(Math.min(canvas.width / b.cols, canvas.height / b.rows)));
  map.z = Math.max(-30, Math.min(6, z));
  map.cx = b.cols / 2;
  map.cy = b.rows / 2;
}

function toCell(px, py) {
  const s = scale();
  return [Math.floor(map.cy + (py - canvas.height / 2) / s), Math.floor(map.cx + (px - canvas.width / 2) / s)];
}
function toPixel(r, c) {
  const s = scale();
  return [(c - map.cx) * s + canvas.width / 2, (r - map.cy) * s + canvas.height / 2];
}

function tileImage(z, x, y) {
  const key = `${z}/${x}/${y}`;
  let img = map.tiles.get(key);
  if (!img) {
    img = new Image();
    img.onload = () => requestDraw();
    img.src = `/api/paths/tile?${boardQuery()}&z=${z}&x=${x}&y=${y}`;
    map.tiles.set(key, img);
    if (map.tiles.size > 600) map.tiles.delete(map.tiles.keys().next().value);
  }
  return img;
}

let drawPending = false;
function requestDraw() {
  if (!drawPending) {
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      drawMap();
    });
  }
}

function drawMap() {
  if (!map.board) return;
  const s = scale();
  ctx.fillStyle = "#eef0f4";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // pixel coordinates of the whole zoomed image at the canvas's top-left corner
  const ox = map.cx * s - canvas.width / 2, oy = map.cy * s - canvas.height / 2;
  const x0 = Math.max(0, Math.floor(ox / TILE)), y0 = Math.max(0, Math.floor(oy / TILE));
  const x1 = Math.floor((ox + canvas.width) / TILE), y1 = Math.floor((oy + canvas.height) / TILE);
  const maxX = Math.ceil((map.board.cols * s) / TILE), maxY = Math.ceil((map.board.rows * s) / TILE);
  for (let ty = y0; ty <= Math.min(y1, maxY - 1); ty++) {
    for (let tx = x0; tx <= Math.min(x1, maxX - 1); tx++) {
      const img = tileImage(map.z, tx, ty);
      const dx = Math.round(tx * TILE - ox), dy = Math.round(ty * TILE - oy);
      if (img.complete && img.naturalWidth) ctx.drawImage(img, dx, dy);
      else {
        // while it loads, the quarter of the coarser tile already shown, scaled up (or the
        // finer tiles scaled down): zooming stays smooth
        const parent = map.tiles.get(`${map.z - 1}/${tx >> 1}/${ty >> 1}`);
        if (parent && parent.complete && parent.naturalWidth) {
          const h = TILE / 2;
          ctx.drawImage(parent, (tx & 1) * h, (ty & 1) * h, h, h, dx, dy, TILE, TILE);
        } else {
          for (let k = 0; k < 4; k++) {
            const child = map.tiles.get(`${map.z + 1}/${2 * tx + (k & 1)}/${2 * ty + (k >> 1)}`);
            if (child && child.complete && child.naturalWidth) {
              ctx.drawImage(child, dx + (k & 1) * (TILE / 2), dy + (k >> 1) * (TILE / 2), TILE / 2, TILE / 2);
            }
          }
        }
      }
    }
  }
  if (map.z >= 4) drawWindow();
  for (const [cell, colour] of [[map.board.start, "#2f855a"], [map.board.end, "#c53030"]]) {
    const [px, py] = toPixel(cell[0] + 0.5, cell[1] + 0.5);
    ctx.strokeStyle = colour;
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.arc(px, py, Math.max(7, s * 0.45), 0, 2 * Math.PI);
    ctx.stroke();
  }
  if (map.pointer) {
    const [r, c] = map.pointer;
    const [px, py] = toPixel(r, c);
    ctx.strokeStyle = "#1d2330";
    ctx.lineWidth = 1;
    ctx.strokeRect(px, py, Math.max(2, s), Math.max(2, s));
  }
  document.body.dataset.mapZ = String(map.z);
}

// Zoomed in: the steps of the visible cells (one request per view), drawn as numbers and jumps.
function drawWindow() {
  const [r0, c0] = toCell(0, 0), [r1, c1] = toCell(canvas.width, canvas.height);
  const rr0 = Math.max(0, r0), cc0 = Math.max(0, c0);
  const h = Math.min(64, r1 - rr0 + 1), w = Math.min(64, c1 - cc0 + 1);
  if (h < 1 || w < 1) return;
  const key = `${boardQuery()}:${rr0}:${cc0}:${h}:${w}`;
  if (map.windowKey !== key) {
    map.windowKey = key;
    api("/api/paths/window", boardBody({ r0: rr0, c0: cc0, h, w }), { quiet: true })
      .then((d) => {
        if (map.windowKey === key) {
          map.window = d;
          requestDraw();
        }
      })
      .catch(() => {});
  }
  const d = map.window;
  if (!d) return;
  const s = scale();
  const at = new Map();
  d.steps.forEach((row, i) => row.forEach((st, j) => at.set(st, [d.r0 + i, d.c0 + j])));
  ctx.strokeStyle = "rgba(20,20,30,0.4)";
  ctx.lineWidth = Math.max(1, s / 32);
  ctx.beginPath();
  for (const [st, [r, c]] of at) {
    const nxt = at.get(st + 1);
    if (!nxt) continue;
    const [ax, ay] = toPixel(r + 0.5, c + 0.5), [bx, by] = toPixel(nxt[0] + 0.5, nxt[1] + 0.5);
    ctx.moveTo(ax, ay);
    ctx.lineTo(bx, by);
  }
  ctx.stroke();
  if (s >= 32) {
    ctx.fillStyle = "#111";
    ctx.font = `${Math.min(13, s / 4.5)}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const [st, [r, c]] of at) {
      const [x, y] = toPixel(r + 0.5, c + 0.5);
      // a long step number that does not fit its cell shows its last digits (the pointer
      // readout gives it whole)
      let label = st.toLocaleString("en-US");
      if (ctx.measureText(label).width > s * 0.9) label = "…" + String(st).slice(-4);
      ctx.fillText(label, x, y);
    }
  }
}

function readout(text) {
  $("m-readout").textContent = text;
}

let pointerTimer = null;
canvas.addEventListener("mousemove", (e) => {
  if (!map.board || drag) return;
  const box = canvas.getBoundingClientRect();
  const px = ((e.clientX - box.left) / box.width) * canvas.width, py = ((e.clientY - box.top) / box.height) * canvas.height;
  const [r, c] = toCell(px, py);
  if (r < 0 || c < 0 || r >= map.board.rows || c >= map.board.cols) return;
  map.pointer = [r, c];
  requestDraw();
  clearTimeout(pointerTimer);
  pointerTimer = setTimeout(async () => {
    const d = await api("/api/paths/step", boardBody({ r, c }), { quiet: true }).catch(() => null);
    if (d && map.pointer && map.pointer[0] === r && map.pointer[1] === c) {
      readout(`cell (${fmt(r)}, ${fmt(c)}): step ${fmt(d.step)}`);
      $("m-readout").dataset.step = String(d.step);
      $("m-readout").dataset.cell = `${r},${c}`;
    }
  }, 60);
});

let drag = null;
canvas.addEventListener("pointerdown", (e) => {
  drag = { x: e.clientX, y: e.clientY, cx: map.cx, cy: map.cy };
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const box = canvas.getBoundingClientRect(), k = canvas.width / box.width / scale();
  map.cx = drag.cx - (e.clientX - drag.x) * k;
  map.cy = drag.cy - (e.clientY - drag.y) * k;
  requestDraw();
});
canvas.addEventListener("pointerup", () => (drag = null));
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const box = canvas.getBoundingClientRect();
  const px = ((e.clientX - box.left) / box.width) * canvas.width, py = ((e.clientY - box.top) / box.height) * canvas.height;
  zoomAt(e.deltaY < 0 ? 1 : -1, px, py);
}, { passive: false });

function zoomAt(dz, px = canvas.width / 2, py = canvas.height / 2) {
  const z = Math.max(-30, Math.min(6, map.z + dz));
  if (z === map.z) return;
  // keep the point under the pointer where it is
  const s0 = scale();
  const wx = map.cx + (px - canvas.width / 2) / s0, wy = map.cy + (py - canvas.height / 2) / s0;
  map.z = z;
  const s1 = scale();
  map.cx = wx - (px - canvas.width / 2) / s1;
  map.cy = wy - (py - canvas.height / 2) / s1;
  requestDraw();
}

function centreOn(r, c, z = 6) {
  map.z = z;
  map.cx = c + 0.5;
  map.cy = r + 0.5;
  map.pointer = [r, c];
  requestDraw();
}

function showNumbered(b) {
  const grid = $("m-grid");
  grid.style.gridTemplateColumns = `repeat(${b.cols}, auto)`;
  const cells = [];
  b.grid.forEach((row, r) => row.forEach((st, c) => {
    const span = el("span", { "data-r": r, "data-c": c }, st);
    if (st === 1) span.classList.add("start");
    if (st === b.cells) span.classList.add("end");
    cells.push(span);
  }));
  grid.replaceChildren(...cells);
}

async function showBoard() {
  const body = { rows: Number($("m-rows").value), cols: Number($("m-cols").value), sr: Number($("m-sr").value), sc: Number($("m-sc").value) };
  $("m-info").textContent = "Building the path...";
  let b;
  try {
    b = await api("/api/paths/board", body);
  } catch (err) {
    // the error line says why; the map of the board shown before must not stay as if it
    // were this one
    $("m-info").textContent = "";
    readout("");
    map.board = null;
    canvas.hidden = true;
    $("m-grid").hidden = true;
    $("m-grid").replaceChildren();
    return;
  }
  map.board = b;
  map.tiles.clear();
  map.window = null;
  map.windowKey = "";
  map.pointer = null;
  $("m-info").textContent =
    `${fmt(b.rows)} x ${fmt(b.cols)}: ${fmt(b.cells)} cells, ${b.method === "blocks" ? "the block construction (O(1) per cell)" : "the greedy constructor's path"}; ` +
    `start (${b.start.join(", ")}), end (${b.end.map(fmt).join(", ")}).`;
  readout("");
  if (b.grid) {
    $("m-grid").hidden = false;
    canvas.hidden = true;
    showNumbered(b);
  } else {
    $("m-grid").hidden = true;
    $("m-grid").replaceChildren();
    canvas.hidden = false;
    fit();
    requestDraw();
  }
  document.body.dataset.mapReady = "1";
}

$("m-show").onclick = showBoard;
$("m-zin").onclick = () => zoomAt(1);
$("m-zout").onclick = () => zoomAt(-1);
$("m-fit").onclick = () => { if (map.board) { fit(); requestDraw(); } };
$("m-goto").onclick = async () => {
  if (!map.board) return;
  const step = $("m-step").value.trim().replace(/[_,\s]/g, "");
  const d = await api("/api/paths/cell", boardBody({ step })).catch(() => null);
  if (!d) return;
  const [r, c] = d.cell;
  readout(`step ${fmt(d.step)} is at cell (${fmt(r)}, ${fmt(c)})`);
  $("m-readout").dataset.step = String(d.step);
  $("m-readout").dataset.cell = `${r},${c}`;
  if (map.board.grid) highlight(r, c);
  else centreOn(r, c);
};
$("m-where").onclick = async () => {
  if (!map.board) return;
  const r = Number($("m-r").value), c = Number($("m-c").value);
  const d = await api("/api/paths/step", boardBody({ r, c })).catch(() => null);
  if (!d) return;
  readout(`cell (${fmt(r)}, ${fmt(c)}) is step ${fmt(d.step)}`);
  $("m-readout").dataset.step = String(d.step);
  $("m-readout").dataset.cell = `${r},${c}`;
  if (map.board.grid) highlight(r, c);
  else centreOn(r, c);
};
function highlight(r, c) {
  for (const s of $("m-grid").querySelectorAll("span.hl")) s.classList.remove("hl");
  const s = $("m-grid").querySelector(`span[data-r="${r}"][data-c="${c}"]`);
  if (s) { s.classList.add("hl"); s.style.outline = "2px solid #2b6cb0"; }
}

// ------------------------------------------------------------------ counts
let shipped = null;
let countJob = null;

function heat(data, source) {
  const box = $("c-heat");
  box.style.gridTemplateColumns = `repeat(${data.cols}, auto)`;
  const max = Math.max(1, ...data.table.flat()), min = Math.min(...data.table.flat());
  const cells = [];
  data.table.forEach((row, r) => row.forEach((v, c) => {
    const t = max === min ? 1 : (v - min) / (max - min);
    const light = 96 - 52 * t;
    cells.push(el("span", { style: `background: hsl(${210 - 200 * t}, 75%, ${light}%); color: ${light < 60 ? "#fff" : "#111"}`, "data-r": r, "data-c": c, title: `start (${r}, ${c})` }, fmt(v)));
  }));
  box.replaceChildren(...cells);
  $("c-info").textContent = `${data.rows} x ${data.cols}: ${fmt(data.total)} paths in all; from each start (red: the most, pale blue: the fewest). ${source}`;
  document.body.dataset.countTotal = String(data.total);
}

$("c-show").onclick = async () => {
  if (!shipped) shipped = await (await fetch("/static/paths-counts.json")).json();
  const key = $("c-shipped").value;
  heat(shipped.boards[key], `Source: the shipped results (${key === "7x7" ? "runs/7x7-all-starts" : "rompicapo count"}).`);
};
$("c-count").onclick = async () => {
  if (countJob) return;
  const bar = $("c-progress");
  bar.hidden = false;
  $("c-stop").hidden = false;
  $("c-info").textContent = "Counting…";
  setProgress(bar, null);
  try {
    countJob = await startJob("/api/paths/count", { rows: Number($("c-rows").value), cols: Number($("c-cols").value) }, {
      onProgress: (e) => {
        setProgress(bar, e);
        $("c-info").textContent = e.total
          ? `Counting: ${fmt(e.done)} of ${fmt(e.total)} ${e.unit} done.`
          : "Counting…";
      },
    });
    const s = await countJob.done;
    if (s.result) heat(s.result, `Computed now in ${s.seconds.toFixed(1)} s.`);
    else {
      $("c-heat").replaceChildren();
      $("c-info").textContent = s.state === "stopped" ? "Stopped." : s.error || "Failed.";
    }
  } catch {
    $("c-heat").replaceChildren(); // the error line says why
    $("c-info").textContent = "";
  } finally {
    countJob = null;
    bar.hidden = true;
    $("c-stop").hidden = true;
  }
};
$("c-stop").onclick = () => countJob && countJob.stop();

// ------------------------------------------------------------------ start
gameDraw();
showBoard();
$("c-show").click();
