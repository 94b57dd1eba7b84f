"""Headless-browser check of the built book.

Opens every HTML page of the site in Debian's Chromium (through Selenium and Debian's
chromedriver; nothing is downloaded) and fails on

- images that did not load (``naturalWidth == 0`` after the page is loaded),
- internal links to a page that does not exist or to an anchor that page does not have,
- raw error tracebacks shown in a page (Python ``Traceback (most recent call last)`` or a
  notebook error output),
- TeX that was not typeset (``$$``, ``\\begin{``, ``\\frac`` … in the visible prose, outside code),
- a script loaded from another site (the book must work offline: MathJax is served from the site),
- a figure in a page's text narrower than half the text column (shrunk figures are unreadable),
- a table wider than the text column, scroll container or not (a reader must not scroll sideways to see its
  last columns),
- a table cell showing ``NaN`` / ``nan`` / ``None`` (a missing value is "—" with a note saying why),
- table text under 12 px, a results cell (a number or a verdict in it) that wraps past three lines on a paper page,
  a figure without its numbered caption
  ("Figure N." under it: :func:`pluralign.report.figure_caption`),
- what its numbers do not support (:mod:`pluralign.book.consistency`: a verdict its interval contradicts, a count
  shown as a share, "—" inside a sentence, a sentence twice, a reason its numbers contradict, a code identifier on
  a paper page),
- a table cell with a number of five or more significant decimals (``0.123456``; ``0.00100`` is 3 significant
  digits and fine; an arXiv id such as ``arXiv:2410.19133`` is no number): estimates have 3 significant digits; a
  paper's number shown as printed (a cell of class ``printed``, :func:`pluralign.presentation.present`) keeps its
  decimals.

Pages are opened at a reader's desktop size (1366 × 900).

Usage: ``python -m pluralign.book.sitecheck _build/html`` (``make check-book``); exit status 1 with one
line per problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

from pluralign.book import consistency
from pluralign.report import PROFILE_NOTE

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w+Error: .+$", re.M)
RAW_TEX = re.compile(r"\$\$|\\begin\{|\\end\{|\\frac\{|\\mathrm\{|\\mathbb\{|\\sigma\b|\\left\b")

_JS = r"""
const imgs = Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)
    .map(i => i.getAttribute('src'));
const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'));
const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id);
const errs = Array.from(document.querySelectorAll('.output.traceback, .output.error, div.cell_output .stderr'))
    .map(e => e.innerText.slice(0, 200));
const scripts = Array.from(document.querySelectorAll('script[src]')).map(s => s.getAttribute('src'))
    .filter(u => /^(https?:)?\/\//.test(u));
// visible prose outside code: text nodes not inside pre / code / script / style, in a rendered element
const prose = [];
const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const n = walker.currentNode, el = n.parentElement;
  if (!el || el.closest('pre, code, script, style, mjx-container, .MathJax, mjx-assistive-mml')) continue;
  if (el.getClientRects().length === 0) continue;
  prose.push(n.textContent);
}
// layout: figures and tables inside the article's text column
const col = document.querySelector('article.bd-article, main article, [role=main]') || document.body;
const colW = col.clientWidth;
const narrow = Array.from(col.querySelectorAll('.cell_output img, figure img, img.figure'))
    .filter(i => i.naturalWidth > 0 && i.getBoundingClientRect().width < 0.5 * colW)
    .map(i => (i.getAttribute('src') || '').slice(0, 60) + ' ('
        + Math.round(i.getBoundingClientRect().width) + ' of ' + colW + ' px)');
// a table wider than the box it stands in: inside a scroll container its right part is hidden until the reader
// scrolls sideways (the verdict column of a wide table is off the page), so a scroll container is no excuse. The
// part hidden: the nearest clipping or scrolling ancestor's overflow, else what runs past the text column
const hidden = t => {
  for (let a = t.parentElement; a && a !== col.parentElement; a = a.parentElement) {
    const o = getComputedStyle(a).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden') return a.scrollWidth - a.clientWidth;
  }
  return t.getBoundingClientRect().right - col.getBoundingClientRect().right;
};
const wide = Array.from(col.querySelectorAll('table'))
    .filter(t => hidden(t) > 1)
    .map(t => (t.innerText || '').slice(0, 60).replace(/\s+/g, ' ') + ' (' + Math.round(hidden(t))
        + ' px out of sight)');
const longnum = Array.from(col.querySelectorAll('td:not(.printed), th'))
    .filter(c => /(^|[^\w.])(?<!arXiv:)-?\d+\.0*[1-9]\d{4,}(?![\w.])/.test(c.innerText))
    .map(c => c.innerText.trim().slice(0, 40));
const nan = Array.from(col.querySelectorAll('td, th'))
    .filter(c => /^\s*(NaN|nan|None|<NA>|NaT)\s*$/.test(c.innerText))
    .map(c => { const t = c.closest('table'); return (t && t.innerText || '').slice(0, 50).replace(/\s+/g, ' '); });
// what the page-consistency check reads (pluralign.book.consistency): paragraphs and list items outside tables
// and code (folded ones too: textContent), with math and code removed; the reproduce box apart
// math and (for the consistency checks) inline code stand as one placeholder word, so a sentence keeps its shape
const clean = (el, keepCode) => {
  const c = el.cloneNode(true);
  c.querySelectorAll('script, style, pre, .pluralign-figure-labels, table, p, li, ul, ol')
      .forEach(x => { if (x !== c) x.remove(); });
  c.querySelectorAll('mjx-container, .MathJax, span.math' + (keepCode ? '' : ', code'))
      .forEach(x => { if (x !== c && x.isConnected) x.replaceWith(document.createTextNode('X')); });
  return (c.textContent || '').replace(/\s+/g, ' ').trim();
};
const paragraphs = [], freeOfIds = [], places = [];
const outputs = Array.from(col.querySelectorAll('.cell_output'));
// a section computed per data set shows each data set's part under a paragraph that is only its bold name: a
// sentence's place is its output and that part
const partOf = {};
const isPartHeading = el => el.tagName === 'P' && el.children.length === 1 && el.children[0].tagName === 'STRONG'
    && el.textContent.trim() === el.children[0].textContent.trim();
col.querySelectorAll('p, li, dd, figcaption, .admonition-title').forEach(el => {
  const inOutput = el.closest('.cell_output');
  if (inOutput && isPartHeading(el)) partOf[outputs.indexOf(inOutput)] = el.textContent.trim();
  if (el.closest('table, pre, .highlight, .cell_input, .pluralign-figure-labels, nav, .bd-toc, footer, ' +
                 '.pluralign-missing, .citation, .bibliography, dl.citation')) return;
  const t = clean(el, false);
  if (t) paragraphs.push(t);
  const box = el.closest('.admonition');
  const title = box && box.querySelector('.admonition-title');
  if (!(title && /Reproduce this page/.test(title.textContent))) {
    freeOfIds.push(clean(el, true));
    const out = el.closest('.cell_output');  // the page's own prose, or which computed output it stands in
    const k = out ? outputs.indexOf(out) : -1;
    places.push(out ? 'output ' + k + (partOf[k] ? ' · ' + partOf[k] : '') : 'prose');
  }
});
const tables = Array.from(col.querySelectorAll('table')).map(t => {
  // a column's header: the texts of every header row above it (a multi-level header, colspans expanded, the rows
  // aligned on the right, where the data columns are), joined
  const headRows = t.tHead ? Array.from(t.tHead.rows).map(r => Array.from(r.cells).flatMap(
      c => Array(c.colSpan || 1).fill(c.textContent.trim()))) : [];
  const width = Math.max(0, ...headRows.map(r => r.length));
  const head = Array.from({length: width}, (_, j) => headRows.map(r => r[j - (width - r.length)] || '')
      .filter((x, i, a) => x && a.indexOf(x) === i).join(' '));
  const body = Array.from(t.tBodies).flatMap(b => Array.from(b.rows));
  return body.map(r => {
    const cells = Array.from(r.cells);
    const labels = cells.filter(c => c.tagName === 'TH').map(c => c.textContent.trim());
    const data = cells.filter(c => c.tagName === 'TD');
    const hs = head.slice(head.length - data.length);
    const row = labels.length ? [['', labels.join(' · ')]] : [];
    data.forEach((c, i) => row.push([hs[i] || '', c.textContent.replace(/\s+/g, ' ').trim()]));
    return row;
  });
});
const figureLabels = Array.from(col.querySelectorAll('.pluralign-figure-labels')).map(e => e.textContent);
// a section that ran and has no estimate says so in a warning box; the prose quoting its values shows "—"
const failedSection = Array.from(col.querySelectorAll('.admonition')).some(e => /No estimate\./.test(e.textContent));
// readability: table text under 12 px, a cell wrapping past three lines, a figure without its numbered caption
const small = Array.from(col.querySelectorAll('table')).filter(t => {
  const c = t.querySelector('td, th');
  return c && parseFloat(getComputedStyle(c).fontSize) < 11.95;
}).map(t => (t.innerText || '').slice(0, 50).replace(/\s+/g, ' ') + ' ('
    + getComputedStyle(t.querySelector('td, th')).fontSize + ')');
const lines = el => {
  const r = document.createRange(); r.selectNodeContents(el);
  const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
  return tops.size;
};
// a results cell (a number or a verdict in it) that wraps past three lines; descriptive text and column headers
// may wrap
const results = new RegExp('(?<![§\\w])\\d|inconclusive|direction|supported|\\bholds\\b|same sign|opposite|' +
    'covers|above (0|planted)|below (0|planted)|recover', 'i');
const tall = Array.from(col.querySelectorAll('td, tbody th'))
    .filter(c => c.getClientRects().length && results.test(c.textContent) && lines(c) > 3)
    .map(c => c.innerText.trim().slice(0, 60).replace(/\s+/g, ' ') + ' (' + lines(c) + ' lines)');
const uncaptioned = Array.from(col.querySelectorAll('.cell_output img')).filter(i => {
  const cell = i.closest('.cell');
  return !(cell && /Figure \d+\./.test(cell.textContent));
}).map(i => (i.getAttribute('src') || '').slice(0, 60));
return {imgs: imgs, links: links, ids: ids, errs: errs, scripts: scripts, prose: prose.join(' '),
        text: document.body ? document.body.innerText : '', narrow: narrow, wide: wide, nan: nan,
        longnum: longnum, paragraphs: paragraphs, free_of_ids: freeOfIds, places: places, tables: tables,
        figure_labels: figureLabels, small: small, tall: tall, uncaptioned: uncaptioned,
        failed_section: failedSection};
"""

# waits for MathJax's typesetting where the page loads MathJax (polling up to 3 s for it to start); a page without
# MathJax is read at once (it used to wait a fixed 3 s)
_WAIT_FOR_MATH = """
const done = arguments[arguments.length - 1];
const start = Date.now();
const loads = () => !!document.querySelector('script[src*="mathjax"]');
(function wait() {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(() => done(true), () => done(false));
  } else if (!loads() || Date.now() - start > 3000) {
    done(!loads());
  } else { setTimeout(wait, 50); }
})();
"""


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def _shown_problems(rel: Path, info: dict) -> list[str]:
    """What one page shows wrong (everything but its links): images, errors, scripts, layout, readability, NaN
    cells, long decimals, raw TeX, tracebacks and what its numbers do not support (:mod:`.consistency`)."""
    problems: list[str] = []
    for src in info["imgs"]:
        problems.append(f"{rel}: image did not load: {src}")
    for e in info["errs"]:
        problems.append(f"{rel}: error output in page: {e!r}")
    for src in info["scripts"]:
        problems.append(f"{rel}: external script (the site must work offline): {src}")
    for img in info["narrow"]:
        problems.append(f"{rel}: figure narrower than half the text column: {img}")
    for t in info["wide"]:
        problems.append(f"{rel}: table wider than the text column: {t!r}")
    if info["longnum"]:
        problems.append(
            f"{rel}: {len(info['longnum'])} table cell(s) with five or more significant decimals, e.g. "
            f"{info['longnum'][0]!r} (show 3 significant digits)"
        )
    for t in info["small"]:
        problems.append(f"{rel}: {READING}table text under 12 px: {t!r}")
    paper_page = bool(consistency.PAPER_PAGE.search(rel.as_posix()))
    if info["tall"] and paper_page:
        problems.append(
            f"{rel}: {READING}{len(info['tall'])} table cell(s) wrap past three lines, e.g. {info['tall'][0]!r} "
            "(a short word in the cell, the long reading in the note)"
        )
    for src in info["uncaptioned"]:
        problems.append(f"{rel}: {READING}figure without a numbered caption: {src}")
    if paper_page and PROFILE_NOTE not in info["text"]:  # report.profile_note's opening words
        problems.append(f"{rel}: no note of what produced the page ({PROFILE_NOTE!r} …: its profile, its stand-ins)")
    reading = consistency.Page(
        sentences=info["paragraphs"],
        tables=[[[tuple(c) for c in row] for row in t] for t in info["tables"]],
        figure_labels=info["figure_labels"],
        identifier_free=info["free_of_ids"],
        places=info["places"],
        failed_section=info["failed_section"],
    )
    problems += [f"{rel}: {READING}{p}" for p in consistency.problems(reading, paper_page=paper_page)]
    for t in sorted(set(info["nan"])):
        n = info["nan"].count(t)
        problems.append(f"{rel}: {n} NaN/None cell(s) in table {t!r} (show '—' and say why)")
    tex = RAW_TEX.search(info["prose"])
    if tex:
        start = max(tex.start() - 40, 0)
        problems.append(f"{rel}: TeX not typeset: {info['prose'][start : tex.end() + 40]!r}")
    m = TRACEBACK.search(info["text"])
    if m:
        problems.append(f"{rel}: raw traceback in page: {m.group(0)[:120]!r}")
    return problems


def check(site: str | Path) -> list[str]:
    """Return the problems found in the built site (empty list: all good)."""
    site = Path(site).resolve()
    pages = sorted(
        p
        for p in site.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts and p.name not in ("genindex.html", "search.html")
    )
    if not pages:
        return [f"{site}: no HTML pages (build the book first: make book)"]
    problems: list[str] = []
    seen: dict[Path, dict] = {}
    driver = _driver()
    driver.set_window_size(1366, 900)
    driver.set_script_timeout(30)
    try:
        for page in pages:
            driver.get(page.as_uri())
            actual = Path(unquote(urlparse(driver.current_url).path))  # after a meta-refresh redirect
            if actual != page and actual in pages:
                continue  # a redirect stub (index.html): the target page is checked itself
            driver.execute_async_script(_WAIT_FOR_MATH)
            seen[page] = driver.execute_script(_JS)
    finally:
        driver.quit()
    for page, info in seen.items():
        rel = page.relative_to(site)
        problems += _shown_problems(rel, info)
        for href in info["links"]:
            u = urlparse(href)
            if u.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            path, frag = urldefrag(href)
            target = (page.parent / unquote(path)).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                shown = target.relative_to(site) if target.is_relative_to(site) else target
                problems.append(f"{rel}: broken link {href!r} (no {shown})")
                continue
            if frag and target.suffix == ".html":
                ids = seen[target]["ids"] if target in seen else None
                if ids is None:
                    ids = re.findall(r'id="([^"]+)"', target.read_text(errors="replace"))
                if unquote(frag) not in ids:
                    problems.append(f"{rel}: broken anchor {href!r}")
    return problems


#: marks a problem of how a page reads (:mod:`.consistency`, text size, long cells, captions) in :func:`check`'s list
READING = "[reading] "


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    site = argv[0] if argv else "_build/html"
    problems = check(site)
    # --reading=report: how the pages read is reported, not failed (the paper profile rehearsed on random-weight
    # models, whose sections often have nothing to estimate from); every other problem fails as always
    report_only = "--reading=report" in argv
    failing = [p for p in problems if not (report_only and READING in p)]
    for p in problems:
        print(p if p in failing else f"(reported) {p}")
    n = len(list(Path(site).rglob("*.html")))
    print(
        f"sitecheck: {n} pages, {len(failing)} problems"
        + (f", {len(problems) - len(failing)} reported" if report_only else "")
    )
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
