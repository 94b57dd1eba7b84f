"""The page-consistency check reads a page as a reader does and fails on what its numbers do not support: each
case below is a sentence or table the book printed before it was fixed (a finding of a read of the demo book)."""

from pluralign.book import consistency as C


def _page(sentences=(), tables=(), figure_labels=(), free=None):
    return C.Page(
        sentences=list(sentences),
        tables=[list(t) for t in tables],
        figure_labels=list(figure_labels),
        identifier_free=list(sentences if free is None else free),
    )


def test_a_direction_read_off_an_interval_that_contains_zero_fails():
    row = [
        ("", "Single Correct"),
        ("r (this run)", "−0.157 [−0.412, 0.101]"),
        ("verdict", "same direction as the paper"),
    ]
    assert any("contains 0" in p for p in C.problems(_page(tables=[[row]])))
    ok = [("", "Single Correct"), ("r (this run)", "−0.157 [−0.412, 0.101]"), ("verdict", "inconclusive")]
    assert C.problems(_page(tables=[[ok]])) == []


def test_inconclusive_beside_an_interval_that_excludes_zero_fails():
    s = "The difference is 0.101 [0.067, 0.138], inconclusive at this sample size."
    assert any("excludes 0" in p for p in C.problems(_page([s])))


def test_a_verdict_beside_an_interval_that_excludes_the_planted_value_must_say_so():
    bad = "The gap is 0.155 [0.085, 0.229] against a planted gap of 0.328: supported, the model resists more."
    assert any("excludes the planted value 0.328" in p for p in C.problems(_page([bad])))
    good = "The gap is 0.155 [0.085, 0.229], below the planted gap of 0.328: the model resists less than planted."
    assert C.problems(_page([good])) == []
    row = [("", "gap"), ("estimate", "−0.538 [−0.623, −0.450]"), ("planted", "−0.153"), ("verdict", "supported")]
    assert any("excludes the planted value" in p for p in C.problems(_page(tables=[[row]])))


def test_a_count_shown_with_decimals_and_a_share_shown_as_whole_numbers_fail():
    table = [
        [("", "SEAL"), ("pairs", "502.0"), ("alignment", "1")],
        [("", "this run"), ("pairs", "502"), ("alignment", "1")],
    ]
    found = "\n".join(C.problems(_page(tables=[table])))
    assert "count column 'pairs' shows numbers with decimals" in found
    assert "share column 'alignment' shows only whole numbers" in found
    fixed = [
        [("", "SEAL"), ("pairs", "502"), ("alignment", "72.4 %")],
        [("", "run"), ("pairs", "9"), ("alignment", "0.566")],
    ]
    assert C.problems(_page(tables=[fixed])) == []


def test_a_missing_value_inside_a_sentence_fails_but_a_dash_between_words_does_not():
    assert C.problems(_page(["The paper's Δ would be decided at this run's own Δ at about —."]))
    assert C.problems(_page(["On this profile the sheets are filled with , for two annotators."]))
    assert (
        C.problems(_page(["Every setting that decides how hard a check is — the annotators, the judge — is stated."]))
        == []
    )
    assert C.problems(_page(["Two RMs — the pre-D and the post-D one — are compared."])) == []
    assert C.problems(_page(["— : the paper reports nothing for that model."])) == []


def test_the_same_sentence_twice_on_a_page_fails():
    s = "On this run the two rules disagree on 104 pairs here, which the table lists."
    assert any("2 times" in p for p in C.problems(_page([s, "Other text.", s])))


def test_a_stated_reason_that_its_numbers_contradict_fails():
    row = [
        ("", "ambiguous"),
        ("N (this run)", "21"),
        ("r", "—"),
        ("says", "(too few pairs for a correlation (N < 10))"),
    ]
    assert any("beside N = 21" in p for p in C.problems(_page(tables=[[row]])))
    assert any("beside N = 31" in p for p in C.problems(_page(["No correlation with N = 31 (N < 10)."])))
    assert C.problems(_page(["No correlation with N = 7 (N < 10)."])) == []


def test_code_identifiers_fail_on_a_paper_page_outside_the_reproduce_box():
    page = _page(
        ["The setting labeller_rule is read here.", "pluralign.seal.imprint computes it."],
        tables=[[[("", "x"), ("kind_domain", "1")]]],
        figure_labels=["last_response_is_honest"],
        free=["The setting labeller_rule is read here.", "Computed by pluralign.seal.imprint here."],
    )
    found = "\n".join(C.problems(page, paper_page=True))
    assert "'labeller_rule' in a prose" in found
    assert "'kind_domain' in a table header" in found
    assert "'last_response_is_honest' in a figure label" in found
    assert "'pluralign.seal.imprint' in a prose" in found
    assert "computes it" not in found  # the reproduce box (not in identifier_free) may name modules
    assert C.problems(page, paper_page=False) == []  # the appendix may name code
    hub = _page(["Scored on openai/summarize_from_feedback and in helpsteer2.parquet."])
    assert C.problems(hub, paper_page=True) == []


def test_a_table_of_quantities_shows_counts_whole_and_shares_with_their_precision():
    """SEAL's decisive-pairs table printed 502.0 pairs and the paper's 0.7241 as 1."""
    table = [
        [("", "decisive pairs (γ ≠ i)"), ("this run", "502.0"), ("SEAL analysis code", "39,283")],
        [("", "LM-labeller agreement with the human label, γ ≠ i"), ("this run", "0.9"), ("SEAL analysis code", "1")],
    ]
    found = "\n".join(C.problems(_page(tables=[table])))
    assert "count row 'decisive pairs (γ ≠ i)' shows a number with decimals" in found
    assert "share row 'LM-labeller agreement" in found
    fixed = [
        [("", "decisive pairs (γ ≠ i)"), ("this run", "502"), ("SEAL analysis code", "39,283")],
        [("", "LM-labeller agreement with the human label, γ ≠ i"), ("this run", "88.8 %"), ("SEAL", "72.4 %")],
    ]
    assert C.problems(_page(tables=[fixed])) == []


def test_the_same_value_twice_and_a_markdown_escape_fail():
    assert any("fp32 and fp32" in p for p in C.problems(_page(["The two RMs computed in fp32 and fp32."])))
    assert any("escape" in p for p in C.problems(_page(["The margin is max(p, 1 − p\\*) here."])))
    assert C.problems(_page(["The two RMs computed in fp32 and bf16, scored 2 and 2 times."])) == []


def test_hyphenated_pairs_and_group_labels_are_not_taken_for_contradictions():
    assert C.problems(_page(["Refusal phrases give comply-vs-refuse or refuse-vs-refuse pairs here."])) == []
    rows = [[("", "N = 100"), ("r", "0.312"), ("Δ", "−0.021 [−0.080, 0.038]"), ("says", "inconclusive")]]
    rows += [[("", "diverging (62 pairs)"), ("gap", "0.700 [0.671, 0.730]"), ("says", "above 0")]]
    assert C.problems(_page(tables=[rows])) == []


def test_a_note_repeated_by_a_section_computed_per_data_set_is_no_repetition_but_prose_twice_is():
    note = "Left: each model's decisiveness gap with its 95% CI; right: its paired difference."
    per_data_set = C.Page(sentences=[note, note], identifier_free=[note, note], places=["output 3", "output 7"])
    assert C.problems(per_data_set) == []
    prose_and_note = C.Page(sentences=[note, note], identifier_free=[note, note], places=["prose", "output 7"])
    assert any("2 times" in p for p in C.problems(prose_and_note))
    one_output = C.Page(sentences=[note, note], identifier_free=[note, note], places=["output 3", "output 3"])
    assert any("2 times" in p for p in C.problems(one_output))


def test_a_missing_value_is_allowed_where_the_page_says_its_section_has_no_estimate():
    s = "How far one binary judgment is from p*: a mean L1 distance of — (— to —) over all pairs."
    assert C.problems(_page([s]))
    failed = C.Page(sentences=[s], identifier_free=[s], failed_section=True)
    assert C.problems(failed) == []


def test_equal_numbers_and_a_class_named_high_agreement_are_no_contradictions():
    assert C.problems(_page(["The mean and median absolute shifts here are 0.0 and 0.0 degrees, as computed."])) == []
    rows = [[("", "GPT-4o judge · High-Agreement Prefs."), ("confidence", "0"), ("CI", "—")]]
    assert C.problems(_page(tables=[rows])) == []


def test_each_clause_of_a_sentence_reads_its_own_interval():
    two = (
        "BT + margin (Eq. 4): gap −0.0021 [−0.0041, −0.0002]: more decisive on diverging pairs; against BT "
        "(majority), inconclusive at this sample size (the 95% CI [0.000, 0.000] contains 0)."
    )
    assert C.problems(_page([two])) == []  # the rehearsal's cross-training sentence: two readings, two intervals
    apart = "The gap is 0.101 [0.067, 0.138]; inconclusive at this sample size."
    assert any("excludes 0" in p for p in C.problems(_page([apart])))  # a verdict a semicolon away still reads it
    wrong = "Gap 0.2 [0.1, 0.3]: above 0; against BT, gap 0.05 [−0.01, 0.11]: supported."
    assert any("contains 0" in p for p in C.problems(_page([wrong])))


def test_the_parts_of_a_section_computed_per_data_set_may_say_the_same_but_one_part_twice_may_not():
    note = "Reward models: named pre-D and post-D reward models of the paper's setup."
    parts = C.Page(
        sentences=[note, note], identifier_free=[note, note], places=["output 3 · multipref", "output 3 · helpsteer2"]
    )
    assert C.problems(parts) == []
    twice = C.Page(
        sentences=[note, note], identifier_free=[note, note], places=["output 3 · multipref", "output 3 · multipref"]
    )
    assert any("2 times" in p for p in C.problems(twice))
