"""Several data sets analysed apart (the paper profile: MultiPref and HelpSteer2, never combined; Diverging
Preferences §2): :class:`Studies` holds one :class:`~pluralign.cross.study.Study` per data set, and a page's section
decorated with :func:`each_data_set` runs on each and joins the results."""

from __future__ import annotations

import functools

import pandas as pd

from pluralign import report

__all__ = ["Studies", "each_data_set", "join"]


class Studies:
    """One study per data set (``studies``: ``{data set name: Study}``), analysed apart."""

    def __init__(self, studies: dict):
        self.studies = studies


def join(results: dict) -> report.Result:
    """The results of one section on several data sets (``{name: Result}``) as one: tables stacked under a
    "data set" level, notes under a heading per data set, values from each suffixed ``_<k>`` (k = 0, 1, …) and
    also unsuffixed from the first; the page shows each data set's forest plot, figure and note under its name
    (``parts``); ``figure`` and ``forest`` are the first data set's, every figure in ``data["figures"]``."""
    tables = {k: r.table for k, r in results.items() if r.table is not None}
    values = dict(next(iter(results.values())).values)
    for i, r in enumerate(results.values()):
        values.update({f"{v}_{i}": x for v, x in r.values.items()})
    first = next(iter(results))
    note = "\n\n".join(f"**{k}**\n\n{r.note}" for k, r in results.items() if r.note)
    return report.Result(
        table=pd.concat(tables, names=["data set"]) if tables else None,
        figure=results[first].figure,
        forest=results[first].forest,
        caption=results[first].caption,
        forest_caption=results[first].forest_caption,
        note=note,
        values=values,
        data={"results": results, "figures": {k: r.figure for k, r in results.items()}},
        parts=dict(results) if len(results) > 1 else {},
    )


def each_data_set(section):
    """A section of a page (a function of one study) that, given :class:`Studies`, runs on each data set's study
    and :func:`join`\\ s the results."""

    @functools.wraps(section)
    def run(study, *args, **kw) -> report.Result:
        if isinstance(study, Studies):
            return join({k: section(s, *args, **kw) for k, s in study.studies.items()})
        return section(study, *args, **kw)

    return run
