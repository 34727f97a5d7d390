// A small Markdown renderer for the reports the playground shows (the study report): headings,
// paragraphs, bullet and numbered lists, tables (with column alignment), code blocks, and
// inline code, bold, italics, links and images. It builds DOM nodes with textContent only (no
// innerHTML), so a report's text can never become markup. images: name -> URL (the report's
// plots, sent as data URLs); an image line names a file of the report.

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(!?\[[^\]]*\]\([^)\s]+\))/;

function inline(parent, text, images) {
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      parent.append(rest);
      return;
    }
    if (m.index) parent.append(rest.slice(0, m.index));
    const tok = m[0];
    if (tok.startsWith("`")) {
      const code = document.createElement("code");
      code.textContent = tok.slice(1, -1);
      parent.append(code);
    } else if (tok.startsWith("**")) {
      const b = document.createElement("strong");
      inline(b, tok.slice(2, -2), images);
      parent.append(b);
    } else if (tok.startsWith("*")) {
      const i = document.createElement("em");
      inline(i, tok.slice(1, -1), images);
      parent.append(i);
    } else {
      const [, label, href] = /^!?\[([^\]]*)\]\(([^)\s]+)\)$/.exec(tok);
      if (tok.startsWith("!")) {
        const name = href.split("/").pop();
        const img = document.createElement("img");
        img.alt = label || name;
        img.title = name;
        if (images[name]) img.src = images[name];
        parent.append(img);
      } else if (/^https?:\/\//.test(href)) {
        const a = document.createElement("a");
        a.href = href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        a.textContent = label;
        parent.append(a);
      } else parent.append(label);
    }
    rest = rest.slice(m.index + tok.length);
  }
}

const cells = (line) => line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());

function table(lines, images) {
  const t = document.createElement("table");
  t.className = "report-table";
  const align = cells(lines[1]).map((c) => (c.endsWith(":") ? "right" : c.startsWith(":") ? "left" : ""));
  lines.forEach((line, k) => {
    if (k === 1) return;
    const tr = document.createElement("tr");
    cells(line).forEach((text, j) => {
      const cell = document.createElement(k === 0 ? "th" : "td");
      if (align[j]) cell.style.textAlign = align[j];
      inline(cell, text, images);
      tr.append(cell);
    });
    t.append(tr);
  });
  const box = document.createElement("div");
  box.className = "scroll-x";
  box.append(t);
  return box;
}

export function renderMarkdown(text, images = {}) {
  const out = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
    } else if (line.startsWith("```")) {
      const pre = document.createElement("pre");
      const body = [];
      for (i += 1; i < lines.length && !lines[i].startsWith("```"); i += 1) body.push(lines[i]);
      pre.textContent = body.join("\n");
      out.append(pre);
      i += 1;
    } else if (/^#{1,6} /.test(line)) {
      const level = Math.min(6, line.indexOf(" ") + 1); // "# x" is h2: the page has its own h1
      const h = document.createElement(`h${Math.min(6, level)}`);
      inline(h, line.replace(/^#+ /, ""), images);
      out.append(h);
      i += 1;
    } else if (line.trim().startsWith("|") && /^\s*\|?[\s:|-]+\|?\s*$/.test(lines[i + 1] || "")) {
      const rows = [];
      while (i < lines.length && lines[i].trim().startsWith("|")) rows.push(lines[i++]);
      out.append(table(rows, images));
    } else if (/^\s*([-*]|\d+\.) /.test(line)) {
      const ordered = /^\s*\d+\. /.test(line);
      const list = document.createElement(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*]|\d+\.) /.test(lines[i])) {
        const li = document.createElement("li");
        inline(li, lines[i].replace(/^\s*([-*]|\d+\.) /, ""), images);
        list.append(li);
        i += 1;
      }
      out.append(list);
    } else {
      const p = document.createElement("p");
      const para = [];
      while (i < lines.length && lines[i].trim() && !/^(#|```|\s*\||\s*([-*]|\d+\.) )/.test(lines[i])) {
        para.push(lines[i++].trim());
      }
      inline(p, para.join(" "), images);
      out.append(p);
    }
  }
  return out;
}
