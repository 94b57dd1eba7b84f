"""Part IV's shared pieces (pluralign.cross.common): verdicts read from a CI, intervals, agreement-class masks."""

import numpy as np
import pytest

from pluralign.cross import common


def test_verdict_reads_the_ci():
    kw = dict(above="up", below="down")
    assert common.verdict(0.3, 0.1, 0.5, **kw) == "up"
    assert common.verdict(-0.3, -0.5, -0.1, **kw) == "down"
    assert "inconclusive" in common.verdict(0.1, -0.1, 0.3, **kw)
    assert common.verdict(0.7, 0.6, 0.8, null=0.5, **kw) == "up"
    assert common.verdict(np.nan, np.nan, np.nan, why_missing="no pairs", **kw) == "— (no pairs)"
    assert common.interval(0.61234, 0.55, 0.671) == "0.612 [0.550, 0.671]" and common.interval(np.nan, 0, 1) == "—"


def test_class_masks_refuse_unclassified_pairs(classes):
    cl = classes(["diverging", "high-agreement-pref"])
    m = common.class_masks(cl)
    assert m["diverging"].tolist() == [True, False] and m["all"].all()
    with pytest.raises(ValueError, match="no agreement class"):
        common.class_masks(cl, ["p0", "zz"])
