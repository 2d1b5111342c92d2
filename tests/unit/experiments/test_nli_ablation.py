"""Notebook 02's training-data ablation: the entries, the table (a tiny model on data written here) and the
sentence that says which training data gives the paper's up < down and which reverses it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mtlib.data import papers, sick
from mtlib.experiments import nli
from mtlib.utils.rules import ParameterError

MED_HEADER = (
    "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label\n"
)
MED_ROWS = [
    ("downward_monotone", "No dog barked", "No poodle barked", "entailment"),
    ("downward_monotone", "No poodle barked", "No dog barked", "neutral"),
    ("upward_monotone", "Some poodles ran", "Some dogs ran", "entailment"),
    ("upward_monotone", "Some dogs ran", "Some poodles ran", "neutral"),
    ("downward_monotone", "Every animal slept", "Every cat slept", "entailment"),
    ("upward_monotone", "A cat slept", "An animal slept", "entailment"),
    ("upward_monotone", "An animal slept", "A cat slept", "neutral"),
    ("downward_monotone", "Few birds sang", "Few sparrows sang", "entailment"),
]


@pytest.fixture(scope="module")
def med_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("med") / "MED.tsv"
    lines = [
        f"{i}\t{i}\t{i}e\tpaper:test:{g}\t\t\t\t\t{a}\t{b}\t{lab}\t\t\t\t\t{lab}\n"
        for i, (g, a, b, lab) in enumerate(MED_ROWS)
    ]
    path.write_text(MED_HEADER + "".join(lines))
    return str(path)


def test_entries_parse_to_canonical_sets():
    assert nli.training_sets("sick") == ("sick",)
    assert nli.training_sets(" MED + sick ") == ("sick", "med")
    assert nli.training_sets("none") == ()
    assert nli.training_label(()) == "none" and nli.training_label(["med", "sick"]) == "sick+med"
    for bad in ("", "snli", "sick+sick", "none+med"):
        with pytest.raises(ValueError, match="ablation entry"):
            nli.training_sets(bad)


def test_spec_refuses_bad_entries_naming_each():
    with pytest.raises(ParameterError) as err:
        nli.Spec(ablation=["sick", "mnli", "med+sick", "sick"], sick_path="nli_pool/SICK.txt")
    text = str(err.value)
    assert "'mnli': expected none, or sick, med" in text
    assert "'med+sick' trains on med: med_path must name the file" in text
    assert "'sick' repeats the training set sick" in text
    assert nli.Spec(ablation=["none", "sick"], sick_path="nli_pool/SICK.txt").ablation == ["none", "sick"]


@pytest.fixture(scope="module")
def ablation_run(med_file, tiny_bert_dir):
    data = nli.load_data(max_contexts=10, max_insertions=9, seed=0)
    ext = nli.load_external(sick.BUNDLED_SICK, med_file)
    assert ext is not None and ext.sick_test is not None
    ext = nli.ExternalNLI(ext.train.iloc[::6].reset_index(drop=True), ext.sick_test.iloc[:40].reset_index(drop=True))
    spec = nli.Spec(
        models=[str(tiny_bert_dir)],
        ablation=["sick", "med", "sick+med", "none"],
        sick_path=sick.BUNDLED_SICK,
        med_path=med_file,
        n_boot=5,
        permutations=50,
        device="cpu",
    )
    return spec, ext, nli.analyse(spec, nli.NLIInputs(data, ext))


def test_ablation_table_is_each_training_sets_own_run(ablation_run):
    spec, ext, outcome = ablation_run
    ablation = nli.ablation_of(outcome)
    assert ablation.enabled and outcome.parts == [ablation]
    assert ablation.reports["sick+med"] is outcome.report  # the primary run is reused, not retrained
    table = ablation.table()
    assert list(table.index) == ["sick", "med", "sick+med", "none"]
    counts = ext.train["source"].value_counts()
    assert table["n_external"].tolist() == [counts["sick"], counts["med"], len(ext.train), 0]
    assert table.loc["med", "training_data"] == "NLI-XY train contexts + MED"
    for label, report in ablation.reports.items():
        row, by = table.loc[label], report.by_monotonicity
        assert report.ent.info["nli_head_n_train"] == pytest.approx(
            0.8 * (int(outcome.data.data.train_mask.sum()) + row["n_external"]), abs=2
        )
        assert row["nli_accuracy"] == report.nli_accuracy.accuracy
        assert row["majority_baseline"] == report.nli_accuracy.majority_baseline
        assert (row["up"], row["down_ci_high"]) == (by.loc["up", "rate"], by.loc["down", "ci_high"])
        assert row["p_permutation"] == report.difference.loc[1, "p_value"]
        assert row["sick_test_accuracy"] == report.sick_test.accuracy
        assert row["direction"] == ("up < down (paper)" if row["up"] < row["down"] else "up >= down (reversed)")
    # the same probe and split for every row; only the NLI classifier differs
    assert len({round(float(r.probe_accuracy.accuracy), 12) for r in ablation.reports.values()}) == 1
    assert not np.allclose(ablation.reports["sick"].ent.log_odds, ablation.reports["med"].ent.log_odds)
    metrics = outcome.metrics()
    assert metrics["ablation/sick_med/nli_accuracy"] == table.loc["sick+med", "nli_accuracy"]
    assert metrics["ablation/none/n_external"] == 0
    assert metrics["ablation/med/violation_rate/up"] == table.loc["med", "up"]
    assert metrics["ablation/sick/up_vs_down_p_permutation"] == table.loc["sick", "p_permutation"]
    assert set(ablation.tables()) == {"training_data_ablation"}


def test_ablation_sentence_states_the_runs_numbers(ablation_run):
    _, _, outcome = ablation_run
    ablation = nli.ablation_of(outcome)
    table, text = ablation.table(), ablation.sentence()
    for _, row in table.iterrows():
        assert f"up {row['up']:.3f} [{row['up_ci_low']:.3f}, {row['up_ci_high']:.3f}]" in text
        assert f"NLI-XY accuracy {row['nli_accuracy']:.3f} (majority baseline {row['majority_baseline']:.3f})" in text
    paper_side = [table.loc[x, "training_data"] for x in table.index if table.loc[x, "up"] < table.loc[x, "down"]]
    if paper_side and len(paper_side) < len(table):
        # the sentence names a row by its external sets; the row without any is "the NLI-XY contexts alone"
        first = paper_side[0].removeprefix("NLI-XY train contexts").removeprefix(" + ") or "the NLI-XY contexts alone"
        assert "The paper's up < down holds with " + first + " (" in text
    assert "primary row" in text and "trains on NLI-XY train contexts + SICK TRAIN + MED" in text


def _two_rows(ablation_run, up_sick, down_sick, up_med, down_med, p=(0.001, 0.3)):
    _, _, outcome = ablation_run
    table = nli.ablation_of(outcome).table().loc[["sick", "med"]].copy()
    for label, up, down, pval in (("sick", up_sick, down_sick, p[0]), ("med", up_med, down_med, p[1])):
        table.loc[label, ["up", "up_ci_low", "up_ci_high"]] = [up, up - 0.01, up + 0.01]
        table.loc[label, ["down", "down_ci_low", "down_ci_high"]] = [down, down - 0.01, down + 0.01]
        table.loc[label, "p_permutation"] = pval
    return table


@pytest.mark.parametrize("sick_paper", [True, False])
def test_sentence_names_the_reversing_training_data_in_both_directions(ablation_run, sick_paper):
    table = (
        _two_rows(ablation_run, 0.30, 0.50, 0.45, 0.33)
        if sick_paper
        else _two_rows(ablation_run, 0.45, 0.33, 0.30, 0.5)
    )
    text = nli.ablation_sentence(table, "tiny-ft", primary="sick")
    holds, reverses = ("SICK TRAIN", "MED") if sick_paper else ("MED", "SICK TRAIN")
    p_holds, p_rev = ("0.001", "0.3, not significant") if sick_paper else ("0.3, not significant", "0.001")
    assert (
        f"The paper's up < down holds with {holds} (p = {p_holds}); it is reversed with {reverses} (p = {p_rev})."
        in text
    )
    assert text.rstrip(".").endswith("trains on NLI-XY train contexts + SICK TRAIN")
    assert re.search(rf"\+ {reverses}, tiny-ft gives the reverse of the paper's direction: up 0\.450 ", text)
    assert f"up {papers.MANINO_S51['violation_rate/up']} < down {papers.MANINO_S51['violation_rate/down']}" in text
    assert "(permutation p = 0.001)" in text and "(permutation p = 0.3, not significant)" in text


def test_sentence_names_the_row_without_external_data_and_an_untested_row(ablation_run):
    _, _, outcome = ablation_run
    table = nli.ablation_of(outcome).table().loc[["none", "med"]].copy()
    table.loc["none", ["up", "down", "p_permutation"]] = [0.2, 0.4, 0.01]
    table.loc["med", ["up", "down", "p_permutation"]] = [0.5, 0.3, float("nan")]
    text = nli.ablation_sentence(table, "m", primary="med")
    assert "The paper's up < down holds with the NLI-XY contexts alone (p = 0.01); it is reversed with MED" in text
    assert "reversed with MED (not tested)." in text and "(not tested);" in text


def test_sentence_when_every_set_agrees_or_the_ablation_is_off(ablation_run):
    same = _two_rows(ablation_run, 0.30, 0.50, 0.20, 0.40)
    assert "Every training set gives the paper's up < down" in nli.ablation_sentence(same, "m", primary="sick")
    rev = _two_rows(ablation_run, 0.50, 0.30, 0.40, 0.20)
    assert "Every training set reverses the paper's up < down" in nli.ablation_sentence(rev, "m", primary="x")
    off = nli.ablation_sentence(rev.loc[["sick"]], "m", primary="sick", enabled=False)
    assert "No training-data ablation in this run" in off and "reverse of the paper's direction: up 0.500" in off


def test_ablation_off_records_nothing_and_still_states_the_primary_row(ablation_run, tiny_bert_dir):
    spec, ext, with_ablation = ablation_run
    data = with_ablation.data.data
    outcome = nli.analyse(
        nli.Spec(models=[str(tiny_bert_dir)], n_boot=5, permutations=50, device="cpu"), nli.NLIInputs(data, None)
    )
    assert outcome.parts == [] and not any(k.startswith("ablation/") for k in outcome.metrics())
    alone = nli.ablation_of(outcome)
    assert not alone.enabled and alone.metrics() == {} and alone.tables() == {}
    assert list(alone.table().index) == ["none"] and alone.reports["none"] is outcome.report
    assert "No training-data ablation in this run" in alone.sentence()
