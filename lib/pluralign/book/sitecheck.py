"""Headless-browser check of the built book.

Opens every HTML page of the site in Debian's Chromium (through Selenium and Debian's
chromedriver; nothing is downloaded) and fails on

- images that did not load (``naturalWidth == 0`` after the page is loaded),
- internal links to a page that does not exist or to an anchor that page does not have,
- raw error tracebacks shown in a page (Python ``Traceback (most recent call last)`` or a
  notebook error output),
- TeX that was not typeset (``$$``, ``\\begin{``, ``\\frac`` … in the visible prose, outside code),
- a script loaded from another site (the book must work offline: MathJax is served from the site).

Usage: ``python -m pluralign.book.sitecheck _build/html`` (``make check-book``); exit status 1 with one
line per problem.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w+Error: .+$", re.M)
RAW_TEX = re.compile(r"\$\$|\\begin\{|\\end\{|\\frac\{|\\mathrm\{|\\mathbb\{|\\sigma\b|\\left\b")

_JS = r"""
const imgs = Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src'));
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
return {imgs: imgs, links: links, ids: ids, errs: errs, scripts: scripts, prose: prose.join(' '),
        text: document.body ? document.body.innerText : ''};
"""

_WAIT_FOR_MATH = """
const done = arguments[arguments.length - 1];
if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
  MathJax.startup.promise.then(() => done(true), () => done(false));
} else { setTimeout(() => done(!document.querySelector('script[src*="mathjax"]')), 3000); }
"""


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def check(site: str | Path) -> list[str]:
    """Return the problems found in the built site (empty list: all good)."""
    site = Path(site).resolve()
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                   and p.name not in ("genindex.html", "search.html"))
    if not pages:
        return [f"{site}: no HTML pages (build the book first: make book)"]
    problems: list[str] = []
    seen: dict[Path, dict] = {}
    driver = _driver()
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
        for src in info["imgs"]:
            problems.append(f"{rel}: image did not load: {src}")
        for e in info["errs"]:
            problems.append(f"{rel}: error output in page: {e!r}")
        for src in info["scripts"]:
            problems.append(f"{rel}: external script (the site must work offline): {src}")
        tex = RAW_TEX.search(info["prose"])
        if tex:
            start = max(tex.start() - 40, 0)
            problems.append(f"{rel}: TeX not typeset: {info['prose'][start:tex.end() + 40]!r}")
        m = TRACEBACK.search(info["text"])
        if m:
            problems.append(f"{rel}: raw traceback in page: {m.group(0)[:120]!r}")
        for href in info["links"]:
            u = urlparse(href)
            if u.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            path, frag = urldefrag(href)
            target = (page.parent / unquote(path)).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{rel}: broken link {href!r} (no {target.relative_to(site) if target.is_relative_to(site) else target})")
                continue
            if frag and target.suffix == ".html":
                ids = seen[target]["ids"] if target in seen else None
                if ids is None:
                    ids = re.findall(r'id="([^"]+)"', target.read_text(errors="replace"))
                if unquote(frag) not in ids:
                    problems.append(f"{rel}: broken anchor {href!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    site = argv[0] if argv else "_build/html"
    problems = check(site)
    for p in problems:
        print(p)
    n = len(list(Path(site).rglob("*.html")))
    print(f"sitecheck: {n} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
