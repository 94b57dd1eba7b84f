"""What a SEAL run stands in for (seal.stand_ins): the design's stand-ins by reward models and feature source."""

import pandas as pd

from pluralign.seal.design import EntryFeatures
from pluralign.seal.stand_ins import TRAINED_PAIR_NOTE, study_stand_ins


def test_study_stand_ins():
    assert study_stand_ins({"pre": {}, "post": {}}, None) == []
    assert study_stand_ins(None, None) == [TRAINED_PAIR_NOTE]
    out = study_stand_ins(None, EntryFeatures("rules", pd.DataFrame(), pd.DataFrame(), [], {}, "rule-based featurizer"))
    assert out[1].startswith("rule-based featurizer") and "LM-labeller" in out[1]
    assert study_stand_ins(None, EntryFeatures("llm", pd.DataFrame(), pd.DataFrame(), [], {}, "x")) == [
        TRAINED_PAIR_NOTE
    ]
