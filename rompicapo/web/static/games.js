// The games page: Connect Four against the solver, tic-tac-toe's statistics and tree, Nim.
import { api, startJob, setProgress, showError, el, fmt, svg } from "/static/common.js";

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ Connect Four
const c4 = { moves: "", side: 1, busy: false, over: false, job: null, analysis: null };

function c4Grid(moves) {
  const grid = Array.from({ length: 7 }, () => []);
  [...moves].forEach((ch, i) => grid[Number(ch) - 1].push(i % 2 === 0 ? 1 : 2));
  return grid;
}

function c4Draw() {
  const board = $("c4-board");
  board.replaceChildren();
  const grid = c4Grid(c4.moves);
  const last = c4.moves ? Number(c4.moves.at(-1)) - 1 : -1;
  for (let c = 0; c < 7; c++) {
    for (let r = 0; r < 6; r++) {
      const who = grid[c][r];
      const circle = svg("circle", {
        cx: 50 + c * 100, cy: 550 - r * 100, r: 40,
        class: who ? `p${who}` : "empty", "data-col": c + 1,
      });
      if (c === last && r === grid[c].length - 1) circle.classList.add("last");
      board.append(circle);
    }
  }
  $("c4-moves").textContent = c4.moves || "(none)";
}

function c4HumanToMove() {
  const mover = 1 + (c4.moves.length % 2);
  return c4.side === 0 || mover === c4.side;
}

// Each column's value for the player to move: the exact score (+n wins, 0 draws, -n loses,
// Pons' convention; from the opening book or the search), W / D / L when only the outcome is
// known (the weak search or a forced four found by the shallow search), or ±n: nobody can force four soon
// enough, so the score lies within -n..n.
function c4ShowScores(a) {
  const box = $("c4-scores");
  box.replaceChildren();
  for (let c = 1; c <= 7; c++) {
    const col = a && a.columns ? a.columns[c - 1] : null;
    let text = "", cls = "", title = `column ${c}`;
    if (col && col.state === "solved") {
      text = col.score > 0 ? `+${col.score}` : String(col.score);
      cls = col.score > 0 ? "win" : col.score < 0 ? "loss" : "draw";
    } else if (col && col.state === "weak") {
      text = { 1: "W", 0: "D", "-1": "L" }[col.sign];
      cls = col.sign > 0 ? "win" : col.sign < 0 ? "loss" : "draw";
      title += ": only the outcome is known (win, draw or loss)";
    } else if (col && col.state === "bound") {
      text = `±${col.bound}`;
      cls = "bound";
      title += `: not settled yet; nobody can force four soon, so the score is within ±${col.bound}`;
    } else if (col && col.state === "unknown") {
      text = "…";
      cls = "bound";
      title += ": not settled within the time cap";
    } else if (col && col.state === "full") {
      cls = "full";
      title += " is full";
    }
    if (a && a.best_columns && a.best_columns.includes(c) && col.state !== "bound") cls += " best";
    box.append(el("span", { class: cls, "data-col": c, "data-state": col ? col.state : "", title }, text));
  }
}

function c4Status(a) {
  const who = (p) => (p === 1 ? "Red" : "Yellow");
  let text;
  if (a.winner) text = `${who(a.winner)} wins.`;
  else if (a.draw) text = "Draw: the board is full.";
  else {
    const mover = a.to_move;
    const you = c4.side === 0 || mover === c4.side;
    text = `${who(mover)} to move${you ? " (you)" : " (computer)"}.`;
    if (a.sign !== null && a.sign !== undefined) text += ` With best play: ${a.explanation}.`;
  }
  $("c4-status").textContent = text;
  c4.over = a.over;
}

async function c4Refresh(cap = 0.3) {
  c4Draw();
  const a = await api("/api/games/connect4/analyze", { moves: c4.moves, time_limit: cap });
  c4.analysis = a;
  c4ShowScores(a.over ? null : a);
  c4Status(a);
  // for tests and the curious: every analysis the page showed, in order
  (window.c4Log ||= []).push({ moves: a.moves, to_move: a.to_move, score: a.score ?? null, sign: a.sign ?? null,
    over: a.over, winner: a.winner, seconds: a.seconds ?? 0, shown: performance.now(),
    states: (a.columns || []).map((c) => c.state) });
  document.body.dataset.c4Moves = c4.moves; // for tests: the position the page shows
  document.body.dataset.c4Over = a.over ? "1" : "0";
  return a;
}

// The computer's moves, each followed by the analysis of the position the human faces.
async function c4Computer() {
  while (!c4.over && !c4HumanToMove()) {
    $("c4-status").textContent = "The computer is thinking…";
    const r = await api("/api/games/connect4/move", { moves: c4.moves, time_limit: 0.35 });
    c4.moves += String(r.column);
    c4Draw();
    await c4Refresh();
  }
}

async function c4Act(fn) {
  if (c4.busy) return;
  c4.busy = true;
  document.body.dataset.c4Busy = "1";
  try {
    await fn();
  } catch (err) {
    /* shown by api() */
  } finally {
    c4.busy = false;
    document.body.dataset.c4Busy = "0";
  }
}

function c4Play(col) {
  return c4Act(async () => {
    if (c4.over || !c4HumanToMove()) return;
    const grid = c4Grid(c4.moves);
    if (grid[col - 1].length >= 6) return showError(`column ${col} is full`);
    c4.moves += String(col);
    window.c4Clicked = performance.now();
    $("c4-verdict").textContent = "";
    if (c4.side === 0) await c4Refresh();
    else {
      // a short look at the computer's side (the game may be over), then its move and the
      // analysis of the human's next position: together well within a second
      const a = await c4Refresh(0.1);
      if (!a.over) await c4Computer();
    }
  });
}

$("c4-board").addEventListener("click", (e) => {
  const col = Number(e.target.getAttribute && e.target.getAttribute("data-col"));
  if (col) c4Play(col);
  else {
    const box = $("c4-board").getBoundingClientRect();
    c4Play(1 + Math.min(6, Math.floor(((e.clientX - box.left) / box.width) * 7)));
  }
});
$("c4-new").onclick = () =>
  c4Act(async () => {
    c4.moves = "";
    c4.side = Number($("c4-side").value);
    $("c4-verdict").textContent = "";
    await c4Refresh();
    await c4Computer();
  });
$("c4-side").onchange = () => $("c4-new").click();
$("c4-undo").onclick = () =>
  c4Act(async () => {
    if (!c4.moves) return;
    c4.moves = c4.moves.slice(0, -1);
    while (c4.moves && !c4HumanToMove()) c4.moves = c4.moves.slice(0, -1);
    c4.over = false;
    await c4Refresh();
    await c4Computer();
  });
$("c4-perfect").onclick = () =>
  c4Act(async () => {
    if (c4.over) return;
    const r = await api("/api/games/connect4/move", { moves: c4.moves, time_limit: 2 });
    c4.moves += String(r.column);
    $("c4-verdict").textContent = `Played column ${r.column} (${r.how}).`;
    await c4Refresh();
    await c4Computer();
  });
$("c4-solve").onclick = async () => {
  if (c4.over || c4.job) return;
  const bar = $("c4-progress");
  bar.hidden = false;
  $("c4-stop").hidden = false;
  $("c4-verdict").textContent = "Solving (up to 30 s)...";
  try {
    c4.job = await startJob("/api/games/connect4/solve", { moves: c4.moves, time_limit: 30 }, {
      onProgress: (e) => setProgress(bar, e),
    });
    const s = await c4.job.done;
    if (s.result) {
      c4ShowScores(s.result);
      const r = s.result;
      $("c4-verdict").textContent = r.sign !== null
        ? `Who wins from here: ${r.explanation}; best column(s) ${r.best_columns.join(", ")}.`
        : `Not settled in ${s.seconds.toFixed(1)} s: each column shows what is known.`;
    } else if (s.state === "stopped") $("c4-verdict").textContent = "Stopped.";
  } catch {
    $("c4-verdict").textContent = "";
  } finally {
    c4.job = null;
    bar.hidden = true;
    $("c4-stop").hidden = true;
  }
};
$("c4-stop").onclick = () => c4.job && c4.job.stop();

// ------------------------------------------------------------------ tic-tac-toe
const ttt = { moves: [], zoom: "fit", scale: 1 };

let tttAnalyseRequest = 0;

async function tttRefresh() {
  const request = ++tttAnalyseRequest;
  const a = await api("/api/games/tictactoe/analyze", { moves: ttt.moves });
  if (request !== tttAnalyseRequest) return; // a later click's answer is on its way
  const board = $("ttt-board");
  board.replaceChildren();
  for (let i = 0; i < 9; i++) {
    const mark = a.board[i] === "." ? "" : a.board[i];
    const b = el("button", { "data-cell": i, "aria-label": `cell ${i}` }, mark);
    if (!mark && a.cell_values && a.cell_values[i] !== undefined) {
      const v = a.cell_values[i];
      b.append(el("span", { class: "v", title: "value of this move (X's view)" }, v > 0 ? "+1" : String(v)));
    }
    b.onclick = () => {
      if (mark || a.over) return;
      ttt.moves.push(i);
      tttRefresh().catch(() => ttt.moves.pop());
    };
    board.append(b);
  }
  const words = { 1: "X wins", 0: "a draw", "-1": "O wins" };
  $("ttt-status").textContent = a.over
    ? a.winner ? `${a.winner} has won.` : "Draw."
    : `${a.to_move} to move; with best play: ${words[a.value]}.`;
  const table = $("ttt-stats");
  table.replaceChildren(
    el("tr", {}, el("th", {}, "search"), el("th", {}, "nodes"), el("th", {}, "leaves"), el("th", {}, "cutoffs")),
  );
  if (a.stats) {
    const names = { minimax: "minimax", alphabeta: "alpha-beta, cells 0..8", alphabeta_ordered: "alpha-beta, centre-corners-edges" };
    for (const [k, label] of Object.entries(names)) {
      const s = a.stats[k];
      table.append(el("tr", { "data-search": k }, el("th", {}, label), el("td", {}, fmt(s.nodes)),
        el("td", {}, fmt(s.leaves)), el("td", {}, fmt(s.cutoffs))));
    }
  }
  await tttTree(a);
}

// Quick clicks start several tree requests; only the latest one's answer is drawn (an older
// answer arriving last would show the tree of a position no longer on the board).
let tttTreeRequest = 0;

async function tttTree(a) {
  const box = $("ttt-tree");
  const request = ++tttTreeRequest;
  box.replaceChildren();
  if (a.over) {
    $("ttt-tree-note").textContent = "";
    return;
  }
  let t;
  try {
    t = await api("/api/games/tictactoe/tree", { moves: ttt.moves, ordered: $("ttt-ordered").checked }, { quiet: true });
  } catch (err) {
    if (request === tttTreeRequest) $("ttt-tree-note").textContent = `${err.message}.`;
    return;
  }
  if (request !== tttTreeRequest) return;
  box.replaceChildren();
  if (!t.tree) {
    $("ttt-tree-note").textContent = `${t.note}.`;
    return;
  }
  const c = t.counts;
  $("ttt-tree-note").textContent =
    `${fmt(c.nodes)} nodes visited, ${fmt(c.leaves)} leaves, ${fmt(c.cut_moves)} branches cut (red, dashed). ` +
    "Blue: X (max) to move, orange: O (min), grey: game over; in a node its value, on an edge the cell played.";
  const tree = drawTree(t.tree);
  box.append(tree);
  tttZoom(ttt.zoom);
  box.scrollLeft = Math.max(0, t.tree._x * ttt.scale - box.clientWidth / 2); // the root in view
}

// The tree's zoom: "fit" shrinks a wide tree to the box (down to TREE_MIN_SCALE, then the box
// scrolls: at 60% its 10 px labels were 6 px, a sliver no one reads), "1" draws it at full
// size (the box scrolls). Labels never overlap at any zoom: the layout keeps them apart and
// the zoom scales it whole.
const TREE_MIN_SCALE = 0.85;
function tttZoom(mode) {
  ttt.zoom = mode;
  const tree = $("ttt-tree").querySelector("svg");
  if (!tree) return;
  const w = Number(tree.dataset.width), h = Number(tree.dataset.height);
  const room = $("ttt-tree").clientWidth - 2;
  ttt.scale = mode === "fit" ? Math.max(TREE_MIN_SCALE, Math.min(1, room / w)) : 1;
  tree.setAttribute("width", Math.round(w * ttt.scale));
  tree.setAttribute("height", Math.round(h * ttt.scale));
  $("ttt-zoom-fit").setAttribute("aria-pressed", String(mode === "fit"));
  $("ttt-zoom-full").setAttribute("aria-pressed", String(mode !== "fit"));
}

// Lay out the tree: leaves (and cut stubs) left to right, a parent above its children's middle.
// A node's value sits in its circle; the cell played is written just above the child it leads
// to (a cut branch's cell below its stub). Every leaf and stub has its own column DX wide, wider
// than a circle and a label, so no two labels meet.
function drawTree(root) {
  const DX = 22, DY = 64;
  let x = 0, depth = 0;
  const nodes = [], edges = [];
  function place(n, d) {
    depth = Math.max(depth, d);
    const xs = [];
    for (const ch of n.children) xs.push(place(ch, d + 1));
    for (const m of n.cut) {
      const cx = (x += 1) * DX;
      edges.push({ cut: true, m, x2: cx, y2: (d + 1) * DY - 24, from: n });
      xs.push(cx);
    }
    const px = xs.length ? (xs[0] + xs.at(-1)) / 2 : (x += 1) * DX;
    n._x = px;
    n._y = d * DY + 16;
    nodes.push(n);
    for (const ch of n.children) edges.push({ cut: false, from: n, to: ch });
    return px;
  }
  place(root, 0);
  const width = (x + 2) * DX, height = (depth + 1) * DY + 20;
  const g = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, "aria-label": "alpha-beta tree" });
  g.dataset.width = width;
  g.dataset.height = height;
  for (const e of edges) {
    if (e.cut) {
      g.append(svg("line", { x1: e.from._x, y1: e.from._y, x2: e.x2, y2: e.y2, stroke: "#c53030", "stroke-dasharray": "3 3", class: "cut" }));
      g.append(svg("text", { x: e.x2, y: e.y2 + 10, "text-anchor": "middle", fill: "#c53030", class: "label" }, `${e.m}`));
    } else {
      g.append(svg("line", { x1: e.from._x, y1: e.from._y, x2: e.to._x, y2: e.to._y, stroke: "#8a94a6" }));
      g.append(svg("text", { x: e.to._x, y: e.to._y - 10, "text-anchor": "middle", fill: "#5b6475", class: "label" }, `${e.to.move}`));
    }
  }
  for (const n of nodes) {
    const fill = n.terminal ? "#e2e8f0" : n.player === "max" ? "#bee3f8" : "#feebc8";
    g.append(svg("circle", { cx: n._x, cy: n._y, r: 7, fill, stroke: "#4a5568" }));
    g.append(svg("text", { x: n._x, y: n._y + 3.5, "text-anchor": "middle", class: "label" }, n.value === null ? "" : String(n.value)));
  }
  return g;
}

$("ttt-undo").onclick = () => { ttt.moves.pop(); tttRefresh(); };
$("ttt-zoom-fit").onclick = () => tttZoom("fit");
$("ttt-zoom-full").onclick = () => tttZoom("full");
$("ttt-new").onclick = () => { ttt.moves = []; tttRefresh(); };
$("ttt-ordered").onchange = () => tttRefresh();

// ------------------------------------------------------------------ Nim
const nim = { heaps: [3, 5, 8], misere: false, hint: null };

async function nimRefresh(showHint = false) {
  const a = await api("/api/games/nim", { heaps: nim.heaps, misere: nim.misere });
  const board = $("nim-board");
  board.replaceChildren();
  nim.heaps.forEach((h, i) => {
    const row = el("div", { class: "nim-heap", "data-heap": i + 1 }, el("span", { class: "label" }, `heap ${i + 1}: ${h}`));
    const shown = Math.min(h, 40);
    for (let j = 0; j < shown; j++) {
      const take = h - j; // clicking token j takes it and every token to its right
      const b = el("button", { title: `take ${take}`, "data-take": take });
      if (showHint && a.move && a.move[0] === i + 1 && take <= a.move[1]) b.classList.add("hint");
      b.onclick = () => nimMove(i, take);
      row.append(b);
    }
    if (h > shown) row.append(el("span", { class: "muted" }, ` ... (${h - shown} more; the first tokens take the most)`));
    board.append(row);
  });
  const rows = a.binary.map((b, i) => `heap ${String(i + 1).padStart(2)}  ${b.padStart(a.nim_sum_binary.length)}  (${nim.heaps[i]})`);
  rows.push("-".repeat(12 + a.nim_sum_binary.length));
  rows.push(`nim-sum   ${a.nim_sum_binary}  (${a.nim_sum})`);
  $("nim-sum").textContent = rows.join("\n");
  const over = nim.heaps.every((h) => h === 0);
  const took = nim.computerTook ? `The computer took ${nim.computerTook[1]} from heap ${nim.computerTook[0]}. ` : "";
  $("nim-status").textContent = over
    ? took + (nim.lastMover === "you" ? (nim.misere ? "You took the last token: you lose." : "You took the last token: you win.")
      : nim.misere ? "The computer took the last token: you win." : "The computer took the last token: it wins.")
    : showHint ? a.report.split("\n")[0] : `${took}Your move. ${a.outcome === "P" ? "Bouton says: a P-position (you lose against best play)." : "Bouton says: an N-position (you can win)."}`;
  document.body.dataset.nimTook = nim.computerTook ? nim.computerTook.join(",") : "";
  return a;
}

async function nimMove(i, take) {
  if (take < 1 || take > nim.heaps[i]) return;
  nim.heaps[i] -= take;
  nim.lastMover = "you";
  nim.computerTook = null;
  if (nim.heaps.some((h) => h > 0)) {
    const a = await api("/api/games/nim", { heaps: nim.heaps, misere: nim.misere });
    let move = a.move;
    if (!move) {
      const j = nim.heaps.indexOf(Math.max(...nim.heaps));
      move = [j + 1, 1]; // a P-position: any move loses against best play; take one
    }
    nim.heaps[move[0] - 1] -= move[1];
    nim.lastMover = "computer";
    nim.computerTook = move;
  }
  await nimRefresh();
}

$("nim-set").onclick = () => {
  const heaps = $("nim-heaps").value.split(/[ ,]+/).filter(Boolean).map(Number);
  if (!heaps.length || heaps.some((h) => !Number.isInteger(h) || h < 0)) return showError("heaps must be whole numbers like 3,5,8");
  nim.heaps = heaps;
  nim.computerTook = null;
  nim.misere = $("nim-misere").checked;
  nimRefresh();
};
$("nim-hint").onclick = () => nimRefresh(true);

// ------------------------------------------------------------------ start
c4Draw();
c4ShowScores(null);
tttRefresh().catch(() => {});
nimRefresh().catch(() => {});
c4Refresh().catch(() => {});
