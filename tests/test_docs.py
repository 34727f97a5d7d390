"""The documentation cannot drift: the CLI reference is regenerated and compared, every option
of every command has help text, and the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from commands import commands

from rompicapo.cli import build_parser
from rompicapo.cli.reference import cli_reference

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_is_current():
    page = ROOT / "docs" / "reference" / "cli.md"
    assert page.read_text() == cli_reference(), (
        "docs/reference/cli.md is stale: python -m rompicapo.cli.reference > docs/reference/cli.md"
    )


def test_every_option_of_every_command_has_help():
    missing = []
    for name, parser in commands(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if action.help is argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without help text:\n" + "\n".join(missing)


_HAS_MKDOCS = (
    shutil.which("mkdocs") is not None or (Path(sys.executable).parent / "mkdocs").exists()
)
needs_mkdocs = pytest.mark.skipif(not _HAS_MKDOCS, reason="mkdocs is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for this module with ``mkdocs build --strict``."""
    out = tmp_path_factory.mktemp("site") / "site"
    mkdocs = Path(sys.executable).parent / "mkdocs"
    command = [str(mkdocs) if mkdocs.exists() else "mkdocs", "build", "--strict"]
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [*command, "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


class _Text(HTMLParser):
    """The text a reader sees: everything outside ``<script>`` and ``<style>``."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag) -> None:
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data) -> None:
        if not self.hidden:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.name != "404.html")


@needs_mkdocs
def test_the_site_builds_strict(site):
    assert (site / "index.html").exists()
    assert len(pages(site)) >= 15


# words about how the toolkit was made, and paths a reader of the site does not have
# a quoted word is a value of the toolkit (the improver's "target" repair), not a word about it
_PROCESS = re.compile(
    r"(?<![\"`])\b(issues?|sessions?|helpers?|targets?|tickets?)\b|\.\./shared", re.I
)


@needs_mkdocs
def test_the_pages_speak_about_the_toolkit_not_how_it_was_made(site):
    found = []
    for page in pages(site):
        text = page_text(page.read_text())
        for m in _PROCESS.finditer(text):
            context = " ".join(text[max(0, m.start() - 50) : m.end() + 30].split())
            found.append(f"{page.relative_to(site)}: ...{context}...")
    assert not found, "\n".join(found)


_EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe)\b[^>]*(?:src|href)=["']?(?:https?:)?//""", re.I
)


@needs_mkdocs
def test_the_site_loads_nothing_from_other_hosts(site):
    offenders = [
        f"{page.relative_to(site)}: {m.group(0)}"
        for page in site.rglob("*.html")
        for m in _EXTERNAL.finditer(page.read_text())
    ]
    assert not offenders, "\n".join(offenders)


@needs_mkdocs
def test_lists_render_as_lists(site):
    """A list written right after a paragraph line renders as one paragraph of "- " lines."""
    glued = []
    for page in pages(site):
        for m in re.finditer(r"<p>((?:(?!</p>).)*?)\n[-*] ", page.read_text(), re.S):
            glued.append(f"{page.relative_to(site)}: {m.group(1)[-60:]!r}")
    assert not glued, "\n".join(glued)


FAMILIES = ("common", "paths", "cover", "games", "edges", "web")


@needs_mkdocs
@pytest.mark.parametrize("family", FAMILIES)
def test_every_public_name_has_an_entry(site, family):
    """Each name of a family's ``__all__`` has its anchor on the family's API page."""
    import importlib

    names = importlib.import_module(f"rompicapo.{family}").__all__
    html = (site / "reference" / "api" / family / "index.html").read_text()
    missing = [n for n in names if f'id="rompicapo.{family}.{n}"' not in html]
    assert not missing, f"rompicapo.{family}: no entry for {missing}"


_RAW_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`?")
_RST_TABLE = re.compile(r"={4,} +={4,}")


@needs_mkdocs
def test_docstrings_render_without_raw_roles_or_rst_tables(site):
    found = []
    for page in pages(site):
        text = page_text(page.read_text())
        for m in list(_RAW_ROLE.finditer(text)) + list(_RST_TABLE.finditer(text)):
            context = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            found.append(f"{page.relative_to(site)}: ...{context}...")
    assert not found, f"{len(found)} raw reStructuredText bits:\n" + "\n".join(found[:40])


def _chromium() -> str | None:
    path = os.environ.get("ROMPICAPO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None


# how far each table that does not fit its column runs out of view, unless it scrolls with a
# visible cue (the shadows of extra.css at its hidden edge)
_TABLE_OUT_OF_VIEW = """tables => tables.map(t => {
    const wrap = t.closest('.md-typeset__scrollwrap');
    const over = wrap ? wrap.scrollWidth - wrap.clientWidth : 0;
    const style = wrap && getComputedStyle(wrap);
    const cue = style && style.overflowX === 'auto' && style.backgroundImage.includes('gradient');
    return over > 0 && !cue ? over : 0;
}).filter(px => px > 0)"""


@needs_mkdocs
def test_every_page_opens_in_a_browser_without_errors(site):
    """Every page of the built site, served over HTTP, in headless Chromium: no console error,
    no uncaught exception, every image loaded, and no table out of view without a cue."""
    import functools
    import http.server
    import threading

    pytest.importorskip("playwright")
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium to run this)")
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=executable, args=["--no-sandbox", "--disable-gpu"], headless=True
            )
            page = browser.new_page()
            current = [""]
            page.on(
                "console",
                lambda m: m.type == "error" and problems.append(f"{current[0]}: {m.text}"),
            )
            page.on("pageerror", lambda e: problems.append(f"{current[0]}: {e}"))
            for html in pages(site):
                current[0] = html.relative_to(site).parent.as_posix()
                page.goto(base + current[0] + "/", wait_until="load")
                broken = page.eval_on_selector_all(
                    "img",
                    "imgs => imgs.filter(i => !i.complete || !i.naturalWidth).map(i => i.src)",
                )
                problems += [f"{current[0]}: broken image {src}" for src in broken]
                hidden = page.eval_on_selector_all(".md-content table", _TABLE_OUT_OF_VIEW)
                problems += [f"{current[0]}: a table {px} px wider than the column, no cue"
                             for px in hidden]  # fmt: skip
            browser.close()
    finally:
        server.shutdown()
    assert not problems, "\n".join(problems)


_NUMBER = re.compile(r"^-?[\d,]*\.?\d+(?:e[+-]?\d+)?$")


# the pages whose tables are read from results files, and how many numbers each must show
_TABLE_PAGES = {
    "results/benchmarks": 50,
    "results/counts": 50,
    "how/paths": 50,
    "how/cover": 20,
    "how/edges": 0,
}


@needs_mkdocs
@pytest.mark.parametrize("page", sorted(_TABLE_PAGES))
def test_numbers_in_the_results_tables_come_from_results_files(site, page):
    """Every number in a table of the results and how-it-works pages is a value of
    benchmarks/results/*.json or runs/*.result.json, as the build formats it: none is typed
    by hand."""
    import json

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from hooks import _cell
    finally:
        sys.path.remove(str(ROOT / "docs"))

    def values(node):
        if isinstance(node, dict):
            for v in node.values():
                yield from values(v)
        elif isinstance(node, list):
            for v in node:
                yield from values(v)
        else:
            yield node

    known = set()
    files = [
        *(ROOT / "benchmarks" / "results").glob("*.json"),
        *(ROOT / "runs").glob("*.result.json"),
    ]
    for path in files:
        known |= {_cell(v) for v in values(json.loads(path.read_text()))}
    html = (site / page / "index.html").read_text()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html, re.S)
    numbers = [c.strip() for c in cells if _NUMBER.match(c.strip())]
    assert len(numbers) >= _TABLE_PAGES[page]
    strays = sorted({n for n in numbers if n not in known})
    assert not strays, f"numbers in the tables of {page} that no results file holds: {strays}"


_IMG = re.compile(r"<img\b[^>]*>", re.I)


@needs_mkdocs
def test_every_picture_says_what_it_shows(site):
    """Each image has alternative text of its own (the notebook's pictures take theirs from
    the title each result gives its picture)."""
    bare = []
    for page in pages(site):
        for tag in _IMG.findall(page.read_text()):
            alt = re.search(r'\balt="([^"]*)"', tag)
            if alt is None or len(alt[1].strip()) < 8 or "No description" in alt[1]:
                bare.append(f"{page.relative_to(site)}: {tag[:120]}")
    assert not bare, f"{len(bare)} pictures without a description:\n" + "\n".join(bare[:20])


# A product or a power written with "*" outside code (1.02*10^11, R*C) becomes emphasis: the
# "*" vanish and the text between turns italic, "1.02<em>10^11 ... 1.3</em>10".
_LOST_STAR = re.compile(r"[\w.)]<em>[\w(]|[\w.)]</em>[\w(]")


@needs_mkdocs
def test_no_number_lost_its_star_to_emphasis(site):
    found = []
    for page in pages(site):
        html = re.sub(r"<(code|pre)\b.*?</\1>", "", page.read_text(), flags=re.S)
        for m in _LOST_STAR.finditer(html):
            context = html[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ")
            found.append(f"{page.relative_to(site)}: ...{context}...")
    assert not found, f"{len(found)} products turned to emphasis:\n" + "\n".join(found[:20])


@needs_mkdocs
def test_results_are_drawn_the_speed_chart_and_the_heat_maps(site):
    """The ratios against the peers as a chart made at build time (one bar per side-by-side
    row of benchmarks/results), and each board of counts as a heat map beside its numbers."""
    sys.path.insert(0, str(ROOT / "docs"))
    from sitegen.charts import speedups

    bench = (site / "results" / "benchmarks" / "index.html").read_text()
    assert re.search(
        r'<img alt="a bar chart[^"]+" src="(\.\./)+generated/speed-ratios\.svg"', bench
    )
    chart = (site / "generated" / "speed-ratios.svg").read_text()
    bars = sum(len(rows) for _, rows in speedups(ROOT / "benchmarks" / "results"))
    assert bars >= 30 and chart.count('<g id="patch_') >= bars  # one patch per bar at least
    counts = (site / "results" / "counts" / "index.html").read_text()
    maps = re.findall(r'<div class="board-row">\s*(?:<p>)?<svg.*?</svg>', counts, re.S)
    assert maps and all(m.count("<rect") == 49 for m in maps)  # the 7x7 boards


_IMPORT = re.compile(r"from (rompicapo(?:\.\w+)*) import ([\w, ]+)")


@needs_mkdocs
def test_every_name_the_guides_import_is_in_the_reference(site):
    """A reader who meets a name in a guide or on a how-it-works page finds its entry."""
    anchors = set()
    for page in (site / "reference").rglob("*.html"):
        anchors |= set(re.findall(r'id="(rompicapo\.[\w.]+)"', page.read_text()))
    missing = []
    for md in sorted(
        [*(ROOT / "docs" / "guides").glob("*.md"), *(ROOT / "docs" / "how").glob("*.md")]
    ):
        for module, names in _IMPORT.findall(md.read_text()):
            family = ".".join(module.split(".")[:2])
            for name in (n.strip() for n in names.split(",")):
                if not ({f"{module}.{name}", f"{family}.{name}"} & anchors):
                    missing.append(f"{md.name}: {module}.{name}")
    assert not missing, "names without a reference entry:\n" + "\n".join(missing)
