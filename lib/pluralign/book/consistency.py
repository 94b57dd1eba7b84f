"""Does a rendered page say only what its numbers support? The page-consistency check of the built book.

The site check (:mod:`pluralign.book.sitecheck`) reads every page in headless Chromium and hands this module what a
reader sees: the page's sentences (prose, notes, admonitions; folded ones too), its tables (every row as
``(column header, cell text)`` pairs, the row's label first) and the text of its figures' labels. :func:`problems`
returns one line per contradiction:

- a **verdict that its interval contradicts**: a row or sentence with one interval "x [lo, hi]" and a verdict that
  reads a direction ("same direction", "supported", "holds", "above 0", …) while the interval contains 0, or reads
  "inconclusive" while it excludes 0; a verdict that claims agreement with a planted value ("covers", "recovers:
  yes", "consistent with the planted") beside an interval that excludes it;
- a **count shown as a share or a share as a count**: a count column (N, pairs, entries, …) holding a number with
  decimals ("502.0"), or a share column (share, agreement, alignment, a₊ …) holding only the integers 0 and 1;
- a **missing value inside a sentence**: "—" where a number belongs ("at about —", "is — ."), unless a section of
  the page ran and has no estimate (its warning box says why its values are missing);
- the **same sentence twice** on a page (sentences of eight words or more);
- a **stated reason its own numbers contradict**: "N < 10" (or "fewer than 10") beside N ≥ 10 in the same row or
  sentence;
- on a paper page (Parts I–IV): a **code identifier** (``snake_case``, a module path) in the prose (inline code
  included), a table's headers or row labels,
  or a figure's labels, outside the "Reproduce this page" box.

The checks read the rendered text, not the code that wrote it, so they hold for every page and every profile."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_NUM = r"[\u2212+-]?\d[\d,]*(?:\.\d+)?(?:e[\u2212+-]?\d+)?"
#: an estimate with its interval: "0.155 [0.085, 0.229]" (a % sign may follow each number)
INTERVAL = re.compile(rf"({_NUM})\s?%?\s*\[\s*({_NUM})\s?%?\s*,\s*({_NUM})\s?%?\s*\]")
#: verdicts that read a direction or an effect, and so need an interval that excludes the null
DIRECTIONAL = re.compile(
    r"\b(same direction|opposite direction|same sign|opposite sign|supported|(?<!not )holds\b|above 0|below 0|"
    r"rules? out|ruled out|significant(?!ly)|is decided)",
    re.I,
)
#: verdicts that say the interval contains the null
NULL_VERDICT = re.compile(r"\b(inconclusive|cannot tell|not distinguishable from 0)\b", re.I)
#: verdicts that claim the interval covers a planted (true) value
COVERS = re.compile(r"\b(covers the planted|consistent with the planted|recovers: yes|recovered: yes)\b", re.I)
#: verdicts that say the data support a claim
SUPPORTS = re.compile(r"\b(supported|supports|confirms|recovers|recovered|consistent with)\b", re.I)
#: words that say where an interval stands against the planted value
BESIDE_PLANTED = re.compile(
    r"\b(below|above|short of|excludes|misses|beyond|less than|more than|smaller than|larger than|not)\b[^.;]*"
    r"\bplanted\b",
    re.I,
)
PLANTED = re.compile(rf"\bplanted(?: value| gap| slope| ρ| r| AUROC)?\s*(?:=|of|:)?\s*({_NUM})", re.I)
#: "—" standing where a value belongs: after a word that introduces a value, or right before punctuation
#: (a dash between two words is punctuation and stays)
DASH_VALUE = re.compile(
    r"(?:\b(?:about|at|of|is|was|were|are|be|by|than|from|equals|reads)|[=≈<>:])\s+—(?=\s*(?:$|[.,;:)\]]|\())"
    r"|(?<=\w)\s+—\s*(?=[.,;)\]]|$)"
)
#: an empty value: a word followed by a lone comma or full stop ("with , for"), or empty brackets
EMPTY_VALUE = re.compile(r"(?<=[a-z])\s+[,;](?=\s)|(?<![\w>])\(\s*\)|(?<!\w)\[\s*\]")
#: the same value twice where two were meant ("computed in fp32 and fp32")
TWICE = re.compile(r"(?<![\w-])(\w[\w.+]*) (and|or|vs\.?|versus) \1(?![\w-])")
#: Markdown escapes that reached the reader ("1 − p\\*")
RAW_ESCAPE = re.compile(r"\\[*_`]")
#: a column that holds a row's N ("N", "N (this run)", "pairs (N)", "pairs")
_N_HEADER = re.compile(r"(^|\s)[Nn]( \(.*\))?$|\(N\)|^pairs\b")
REASON = re.compile(r"(?:\bN\s*<\s*|\bfewer than\s+)(\d+)", re.I)
N_VALUE = re.compile(r"\bN\s*=\s*(\d[\d,]*)")
#: a module path of the library ("pluralign.seal.imprint"): code, named only in a page's reproduce box
MODULE = re.compile(r"\bpluralign(?:\.[a-z_]+)+")
SNAKE = re.compile(r"(?<![\w/.\-@])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.\-(])")
_COUNT_HEADER = re.compile(
    r"^(n|N|count|counts|pairs|entries|judgments|annotators|items|rows|dropped|kept|removed)$|\(N\)$|^N \(|"
    r"^(number of|# )",
    re.I,
)
_SHARE_HEADER = re.compile(
    r"(?<![\w-])(share|agreement|alignment|proportion|fraction|rate)\b|(?<!\w)a\s?[₊₋]", re.I
)  # "High-Agreement Prefs." names a class, not a share
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
#: page paths (relative to the site) of the papers' parts: the pages where no code identifier may show
PAPER_PAGE = re.compile(r"(^|/)(diverging|seal|btb|cross)-[^/]*\.html$")


@dataclass
class Page:
    """What a reader sees of one page: ``sentences`` (prose paragraphs and list items, outside tables and code),
    ``tables`` (each a list of rows, a row a list of ``(header, text)`` pairs, the row label's header "" first when
    the row has one), ``figure_labels`` (the texts of the figures' titles, axes, ticks and legends),
    ``identifier_free`` (the prose that must carry no code identifier: all of it but the reproduce box),
    ``places`` (for each of those, "prose" for the page's own text or "output N" for the computed output it stands
    in, "output N · name" in the part of a section computed per data set: each part may say what another says),
    ``failed_section`` (a section of the page ran and has no estimate, its reason in a warning box: the prose quoting
    its values shows "—" for them)."""

    sentences: list[str] = field(default_factory=list)
    tables: list[list[list[tuple[str, str]]]] = field(default_factory=list)
    figure_labels: list[str] = field(default_factory=list)
    identifier_free: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    failed_section: bool = False


def _num(text: str) -> float:
    return float(text.replace("\u2212", "-").replace(",", ""))


def intervals(text: str) -> list[tuple[float, float, float]]:
    """Every "estimate [low, high]" in a text, as numbers."""
    return [tuple(_num(g) for g in m.groups()) for m in INTERVAL.finditer(text)]


def verdict_problem(text: str, others: str = "") -> str | None:
    """What is wrong with a verdict in ``text`` (a sentence, or a table row's cells joined) that has exactly one
    interval: a direction read off an interval containing 0, "inconclusive" beside one that excludes 0, or a claimed
    agreement with a planted value (in ``text`` or ``others``, e.g. the row's planted column) the interval excludes.
    None when nothing contradicts."""
    found = intervals(text)
    if len(found) != 1:
        return None
    est, lo, hi = found[0]
    if lo > hi:
        lo, hi = hi, lo
    without = INTERVAL.sub(" ", text)
    if DIRECTIONAL.search(without) and lo <= 0 <= hi and not NULL_VERDICT.search(without):
        return f"a direction read off an interval that contains 0 ({est:g} [{lo:g}, {hi:g}])"
    if NULL_VERDICT.search(without) and not DIRECTIONAL.search(without) and (lo > 0 or hi < 0):
        return f"'inconclusive' beside an interval that excludes 0 ({est:g} [{lo:g}, {hi:g}])"
    planted = PLANTED.search(without) or PLANTED.search(others)
    if planted:
        v = _num(planted.group(1))
        if not lo <= v <= hi:
            if COVERS.search(without):
                return f"claims the planted value {v:g} while its interval [{lo:g}, {hi:g}] excludes it"
            if (DIRECTIONAL.search(without) or SUPPORTS.search(without)) and not BESIDE_PLANTED.search(without):
                return (
                    f"a verdict beside an interval [{lo:g}, {hi:g}] that excludes the planted value {v:g}, "
                    "without saying so"
                )
    return None


def sentence_verdict_problem(sentence: str) -> str | None:
    """:func:`verdict_problem` of a sentence, clause by clause: a sentence may give two readings ("gap x [lo, hi]:
    more decisive on diverging pairs; against BT (majority), inconclusive (the 95% CI [a, b] contains 0)"), each
    with its own interval. A clause (between "; ") with a bracket of its own is read alone; one without reads the
    sentence's other intervals (a verdict set apart from its interval by a semicolon)."""
    clauses = sentence.split("; ")
    if len(clauses) == 1:
        return verdict_problem(sentence)
    shown = " ".join(m.group(0) for m in INTERVAL.finditer(sentence))
    for clause in clauses:
        why = verdict_problem(clause if "[" in clause else f"{clause} {shown}")
        if why:
            return why
    return None


def sentences_of(paragraphs: list[str]) -> list[str]:
    """The sentences of a page's paragraphs."""
    out = []
    for p in paragraphs:
        out += [s.strip() for s in _SENTENCE_SPLIT.split(" ".join(p.split())) if s.strip()]
    return out


def _is_count(header: str) -> bool:
    return bool(_COUNT_HEADER.search(header.strip()))


#: a row label that names a count ("decisive pairs (γ ≠ i)", "annotators per pair")
_COUNT_LABEL = re.compile(r"\b(pairs|entries|judgments|annotators|count|rows)\b|^N\b|\(N\)", re.I)
#: a statistic of counts (a mean, a median, a ratio) may have decimals
_STATISTIC = re.compile(r"\b(mean|average|median|ratio|per)\b", re.I)
#: a share shown as a whole number or with one digit ("1", "0.9"): a share is a percentage with one decimal or an
#: estimate with its column's precision
_COARSE_SHARE = re.compile(r"[01](\.\d)?")


def _is_share(header: str) -> bool:
    return bool(_SHARE_HEADER.search(header)) and not _is_count(header)


def _count_row(label: str, share_label: bool, cells: list[str]) -> bool:
    """A row that holds counts: a short label naming a count ("decisive pairs (γ ≠ i)", "annotators"), no number
    in the label itself ("N = 100", "diverging (62 pairs)" name a group), and mostly whole numbers in its cells."""
    name = re.sub(r"\(.*?\)", "", label).strip()
    if not name or share_label or re.search(r"\d", name) or len(name.split()) > 4:
        return False
    if not _COUNT_LABEL.search(name) or _STATISTIC.search(name):
        return False
    numeric = [c for c in cells if re.fullmatch(_NUM, c)]
    return sum(bool(re.fullmatch(r"\d[\d,]*(\.0+)?", c)) for c in numeric) * 2 >= len(numeric) > 0


def table_problems(rows: list[list[tuple[str, str]]]) -> list[str]:
    """Counts shown as shares (or shares as counts), verdicts against their row's interval, and reasons against
    their row's N, in one table (rows of ``(header, text)``)."""
    out = []
    columns: dict[str, list[str]] = {}
    for row in rows:
        label = row[0][1] if row and row[0][0] == "" else ""
        for h, t in row:
            if h:
                columns.setdefault(h, []).append(t.strip())
        # a row whose label names a count or a share (a table with quantities as rows)
        cells = [t.strip() for h, t in row if h]
        share_label = bool(_SHARE_HEADER.search(label))
        if _count_row(label, share_label, cells):
            if any(re.fullmatch(r"\d[\d,]*\.\d+", c) for c in cells):
                out.append(f"the count row {label!r} shows a number with decimals: {' | '.join(cells)}")
        if label and share_label and any(_COARSE_SHARE.fullmatch(c) for c in cells):
            out.append(f"the share row {label!r} shows a share as a whole number or one digit: {' | '.join(cells)}")
        joined = " | ".join(t for _, t in row)
        planted = " ".join(f"planted {t}" for h, t in row if "planted" in h.lower())
        why = verdict_problem(" | ".join(t for h, t in row if "planted" not in h.lower()), planted)
        if why:
            out.append(f"row {joined[:80]!r}: {why}")
        out += [f"row {joined[:80]!r}: {w}" for w in reason_problems(joined, row)]
    for h, cells in columns.items():
        numeric = [c for c in cells if re.fullmatch(_NUM, c)]
        if _is_count(h) and any(re.fullmatch(r"\d[\d,]*\.\d+", c) for c in numeric):
            out.append(f"the count column {h!r} shows numbers with decimals: {' | '.join(cells[:6])}")
        if _is_share(h) and len(numeric) >= 2 and set(numeric) <= {"0", "1"}:
            out.append(f"the share column {h!r} shows only whole numbers: {' | '.join(cells[:6])}")
    return out


def reason_problems(text: str, row: list[tuple[str, str]] | None = None) -> list[str]:
    """A stated "N < k" (or "fewer than k") beside an N of at least k: in the same sentence ("N = 21"), or, for a
    table row, in its N column."""
    out = []
    for m in REASON.finditer(text):
        k = int(m.group(1))
        ns = [int(v.replace(",", "")) for v in N_VALUE.findall(text)]
        ns += [
            int(t.replace(",", ""))
            for h, t in (row or [])
            if _N_HEADER.search(h.strip()) and re.fullmatch(r"\d[\d,]*", t.strip())
        ]
        big = [n for n in ns if n >= k]
        if big:
            out.append(f"says '{m.group(0).strip()}' beside N = {big[0]}")
    return out


def repeated_sentences(page: Page) -> list[str]:
    """A sentence of eight words or more that stands twice where a reader meets it twice: in the page's own prose
    (twice, or once there and once in a computed note) or twice in one place of a computed output. The same note in
    the parts of a section computed for two data sets (under each data set's name) is not a repetition. Sentences
    are read with their inline code (a glued name shows as code in one place, as text in another)."""
    texts = page.identifier_free or page.sentences
    places = page.places if len(page.places) == len(texts) else ["prose"] * len(texts)
    seen: dict[str, list[str]] = {}
    for text, place in zip(texts, places):
        for s in sentences_of([text]):
            if len(s.split()) >= 8:
                seen.setdefault(" ".join(s.split()).lower(), []).append(place)
    out = []
    for s, where in seen.items():
        counts = Counter(where)
        if len(where) > 1 and ("prose" in counts or max(counts.values()) > 1):
            out.append(f"the same sentence {s[:100]!r} stands {len(where)} times on the page")
    return out


def problems(page: Page, paper_page: bool = False) -> list[str]:
    """Every contradiction of one page (module docstring), one line each."""
    out = []
    said = sentences_of(page.sentences)
    for s in said:
        why = sentence_verdict_problem(s)
        if why:
            out.append(f"sentence {s[:100]!r}: {why}")
        m = DASH_VALUE.search(s) or EMPTY_VALUE.search(s)
        if m and not s.lstrip().startswith("—") and not page.failed_section:
            out.append(f"a missing value inside the sentence: {s[max(m.start() - 70, 0) : m.end() + 20]!r}")
        out += [f"sentence {s[:100]!r}: {w}" for w in reason_problems(s)]
        twice = TWICE.search(s)
        if twice and not re.fullmatch(r"[\d.,]+", twice.group(1)):
            out.append(f"the same value twice where two were meant: {twice.group(0)!r} in {s[:100]!r}")
        escape = RAW_ESCAPE.search(s)
        if escape:
            out.append(f"a Markdown escape shown to the reader: {s[max(escape.start() - 40, 0) : escape.end() + 10]!r}")
    out += repeated_sentences(page)
    for rows in page.tables:
        out += table_problems(rows)
    if paper_page:
        seen = set()
        where = [("prose", t) for t in page.identifier_free]
        where += [("table header", h) for rows in page.tables for row in rows for h, _ in row]
        where += [("table row label", row[0][1]) for rows in page.tables for row in rows if row and row[0][0] == ""]
        where += [("figure label", t) for t in page.figure_labels]
        for kind, text in where:
            for m in [*SNAKE.finditer(text), *MODULE.finditer(text)]:
                if (kind, m.group(0)) not in seen:
                    seen.add((kind, m.group(0)))
                    out.append(f"code identifier {m.group(0)!r} in a {kind}: {text.strip()[:80]!r}")
    return out
