"""The feature-imprint page's reading of the planted-weight check is computed from its own table: all signs right and
some weights outside their intervals reads "misses in scale, none inverted", never "miss or invert others"."""

import numpy as np
import pandas as pd

from pluralign.seal.planted import ImprintRecovery, recovery_reading


def _rec(same_sign, covered, features=("harmfulness", "factual_error", "refusal")):
    t = pd.DataFrame(
        {"same_sign": np.asarray(same_sign, float), "covered": np.asarray(covered, bool)},
        index=pd.Index(features, name="feature"),
    )
    return ImprintRecovery(table=t, scale=1.0, pearson_r=0.9, sign_agreement=float(np.mean(same_sign)))


def test_all_signs_right_reads_misses_in_scale_none_inverted():
    parts = {"pre-D RM": _rec([1, 1, 1], [True, False, True]), "post-D RM": _rec([1, 1, 1], [False, True, True])}
    text = recovery_reading(parts)
    assert "misses in scale, none inverted" in text and "2 of the 6 rescaled weights" in text
    assert "(factual error, harmfulness)" in text  # display names, each once
    assert "invert others" not in text and "do not reproduce" not in text


def test_an_inverted_sign_is_named():
    text = recovery_reading({"post-D RM": _rec([1, 0, 1], [True, False, False])})
    assert "1 have the opposite sign (factual error)" in text and "1 missed in scale (refusal)" in text


def test_everything_covered_reads_reproduced():
    assert recovery_reading({"post-D RM": _rec([1, 1, 1], [True, True, True])}).startswith(
        "The trained RMs reproduce the planted weights"
    )


def test_the_page_note_follows_its_table(study):
    from pluralign.seal.pages import imprint_page

    rec = imprint_page.planted_recovery(study)
    rows = pd.concat([v.table for v in rec.data["parts"].values()])
    if (rows["same_sign"] == 0).any():
        assert "opposite sign" in rec.note
    else:
        assert "none inverted" in rec.note or "reproduce the planted weights" in rec.note
        assert "miss or invert" not in rec.note
