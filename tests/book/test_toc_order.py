"""The book's order (manifest.yml → _toc.yml): the frame holds the introduction; the apparatus (the recovery page,
performance, the build report) and "Reproduce and extend" sit in the appendix after the four parts, and the
introduction's next page is the data the papers are read on, then Part I."""

from pluralign import book
from pluralign.book import contents

APPARATUS = ("recovery", "performance", "build_report")


def _parts():
    m = book.manifest()
    return {p["name"]: [c.get("run") or c.get("page") for c in p["chapters"]] for p in m["parts"]}, m


def test_the_frame_holds_the_introduction_only():
    parts, _ = _parts()
    assert parts["frame"] == ["intro"]
    assert "book/reproduce" in parts["appendix"]


def test_the_apparatus_sits_in_the_appendix_after_the_papers():
    from pluralign.recovery.context import PAGES

    parts, m = _parts()
    names = [p["name"] for p in m["parts"]]
    assert names.index("appendix") > max(names.index(p) for p in ("diverging", "seal", "btb", "cross"))
    assert all(a in parts["appendix"] for a in APPARATUS)
    assert parts["appendix"][-1] == "book/bibliography"
    last = {c["run"] for p in m["parts"] for c in p["chapters"] if c.get("execute") == "last"}
    assert last == {"build_report"}  # it runs after every page, whose cache it shows
    recovery = next(c for p in m["parts"] for c in p["chapters"] if c.get("run") == "recovery")
    assert set(recovery["after"]) == set(PAGES.values())  # the recovery runs after the pages whose studies it reads


def test_the_page_after_the_introduction_is_not_apparatus():
    toc = contents.toc("demo")
    files = [c["file"] for p in toc["parts"] for c in p["chapters"]]
    assert toc["root"].endswith("/intro")
    first_after_intro = files[0]
    assert not any(first_after_intro.endswith(f"/{a}") for a in APPARATUS), first_after_intro
    assert first_after_intro.endswith("/data") and files[1].endswith("/diverging-agreement"), files[:2]
    appendix = next(p for p in toc["parts"] if p["caption"] == "Appendix")
    assert [f["file"].rsplit("/", 1)[-1] for f in appendix["chapters"]][:3] == list(APPARATUS)
