"""Notebook 05's package: loading and the Appendix B cleaning of the pairs, the paper's Table 1, the spec.

The PSS building blocks are tested in ``tests/unit/analysis/test_polarity_sensitivity.py``; the notebook's
steps (Table 1, the tests, the directions) run in the smoke profile with their pinned values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.analysis import polarity_sensitivity as ps
from mtlib.data import papers
from mtlib.experiments import pss
from mtlib.models.training.settings import ClassifierSettings
from mtlib.utils.context import RunContext


def _pairs(rows):
    return pd.DataFrame(rows, columns=["source", "rewrite", "direction"])


# one hand-made pair per case the rules exist for
CASES = [
    ("the food was bad .", "the food was bad .", "neg_to_pos", "copy"),
    ("the food was bad .", "The  food was BAD . ", "neg_to_pos", "copy"),  # case and spacing only
    ("the food was not good .", "the food was good .", "neg_to_pos", "adds_no_word"),  # removed "not"
    ("the staff was rude and slow .", "the staff was slow .", "neg_to_pos", "adds_no_word"),
    ("bad food . slow service .", "slow service . bad food .", "neg_to_pos", "adds_no_word"),  # reordered
    ("the food was bad .", "the food was great .", "neg_to_pos", "kept"),
    ("the pizza was great .", "the pasta was awful .", "pos_to_neg", "kept"),  # content changed: kept
    ("we loved it .", "we hated it .", "pos_to_neg", "kept"),
    ("we loved it .", "we loved it .", "pos_to_neg", "copy"),
    ("i was not disappointed .", "i was disappointed .", "pos_to_neg", "adds_no_word"),
]


def test_clean_pairs_applies_every_rule_and_reports_it():
    pairs = _pairs([c[:3] for c in CASES])
    kept, report = pss.clean_pairs(pairs)
    expected_kept = [i for i, c in enumerate(CASES) if c[3] == "kept"]
    assert kept.index.tolist() == expected_kept
    assert list(kept.columns) == ["source", "rewrite", "direction"]
    assert report.loc["before cleaning", "all"] == len(CASES)
    assert report.loc[pss.RULE_NAMES["copy"], "all"] == 3
    assert report.loc[pss.RULE_NAMES["adds_no_word"], "all"] == 4
    assert report.loc["kept", "all"] == 3
    assert report.loc["kept", "neg_to_pos"] == 1 and report.loc["kept", "pos_to_neg"] == 2
    assert report.loc[pss.RULE_NAMES["copy"], "pos_to_neg"] == 1
    # counts add up per column
    removed = report.loc[[pss.RULE_NAMES[r] for r in pss.RULES]].sum()
    assert (report.loc["before cleaning"] == removed + report.loc["kept"]).all()


def test_clean_pairs_tokenisation_choice():
    pairs = _pairs([("it 's great .", "it's great.", "pos_to_neg")])
    # whitespace tokens: "it's" and "great." are new words, so the pair is kept
    assert len(pss.clean_pairs(pairs, tokenize="whitespace")[0]) == 1
    # word tokens: the same words, a copy
    kept, report = pss.clean_pairs(pairs, tokenize="words")
    assert kept.empty and report.loc[pss.RULE_NAMES["copy"], "all"] == 1
    with pytest.raises(ValueError, match="tokenize"):
        pss.clean_pairs(pairs, tokenize="spacy")


def test_cleaning_that_empties_the_list_is_a_message_not_a_crash():
    pairs = _pairs([("a b .", "a b .", "neg_to_pos"), ("a b c .", "a c .", "pos_to_neg")])
    kept, report = pss.clean_pairs(pairs)
    assert kept.empty and list(kept.columns) == ["source", "rewrite", "direction"]
    note = pss.cleaning_note(report)
    assert "kept 0 of 2" in note and "undefined" in note
    table = ps.prediction_table(kept, [], [])
    assert np.isnan(ps.pss(table))


def test_clean_pairs_rejects_bad_input():
    with pytest.raises(KeyError, match="direction"):
        pss.clean_pairs(pd.DataFrame({"source": ["a"], "rewrite": ["b"]}))
    with pytest.raises(ValueError, match="unknown direction"):
        pss.clean_pairs(_pairs([("a", "b", "sideways")]))


def test_table1_layout_puts_ours_in_percent_above_the_papers_rows():
    ours = pd.DataFrame(
        {
            "encoder": ["enc", "enc"],
            "final_layers": ["Linear", "DNN"],
            "mode": ["FB", "FB"],
            "accuracy": [0.625, 0.5],
            "accuracy_low": [0.5, np.nan],
            "accuracy_high": [0.75, np.nan],
            "accuracy_sd": [0.125, np.nan],
            "majority_baseline": [0.5, 0.5],
            "pss": [0.4375, np.nan],
            "pss_low": [0.25, np.nan],
            "pss_high": [0.625, np.nan],
            "pss_sd": [np.nan, np.nan],
            "relative": [0.7, np.nan],
            "source": ["ours", "ours"],
        },
        index=pd.Index(["enc/linear/FB", "enc/mlp/FB"], name="condition"),
    )
    layout = pss.table1_layout(ours)
    assert layout.index.name == "condition" and pss.paper_table1().index.name == "condition"
    assert len(layout) == 2 + 14 and list(layout.index[:2]) == ["enc/linear/FB", "enc/mlp/FB"]
    row = layout.loc["enc/linear/FB"]
    assert row["Test Accuracy"] == "62.5 ± 12.5 [50.0, 75.0]" and row["PSS"] == "43.8 [25.0, 62.5]"
    assert row["Majority baseline"] == "50.0" and row["Relative"] == "70.0" and row["Final Layers"] == "Linear"
    assert layout.loc["enc/mlp/FB", "PSS"] == "" and layout.loc["enc/mlp/FB", "Test Accuracy"] == "50.0"
    assert layout.loc["paper:BERT/Linear/FT", "PSS"] == "73.7"
    assert layout.loc["paper:BERT/Linear/FT", "source"] == "paper (Table 1)"
    assert len(pss.table1_layout(ours, with_paper=False)) == 2


def test_paper_table_is_internally_consistent():
    paper = pss.paper_table1()
    assert len(paper) == 14
    # the paper's relative column is PSS / accuracy x 100, to its rounding
    assert np.allclose(paper["pss"] / paper["accuracy"], paper["relative"], atol=0.006)
    assert papers.BHATHENA_PAIRS["before"] == 500 and papers.BHATHENA_PAIRS["after"] == 353


def test_load_reads_the_bundled_files_and_subsamples_as_the_spec_says():
    data = pss.load(pss.Spec(n_train=300, n_finetune=100, n_test=200, seed=0))
    assert len(data.train) == 300 and len(data.test) == 200 and len(data.finetune_train) == 100
    assert set(data.finetune_train.index) <= set(data.train.index)
    assert set(data.train["split"]) == {"train"} and set(data.test["split"]) == {"dev", "test"}
    assert data.train["label"].value_counts().tolist() == [150, 150]  # stratified by label
    assert len(data.raw_pairs) == 800 and set(data.raw_pairs["direction"]) == {"neg_to_pos", "pos_to_neg"}
    assert data.summary().startswith("300 training sentences (100 for FT), 200 dev+test sentences, 800 reference")
    everything = pss.load(pss.Spec(n_finetune=0))
    assert everything.train is not None and len(everything.finetune_train) == len(everything.train)


def test_frozen_features_are_computed_once_for_both_heads_and_every_seed(tmp_path, monkeypatch):
    """Notebook 05's FB step with the real factory and minilm-static: each unique text is embedded once."""
    from mtlib import models
    from mtlib.data import yelp
    from mtlib.models import factory

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path))
    encoder = models.build(models.resolve("minilm-static"))
    embedded: list[str] = []
    token_ids = encoder.token_ids
    monkeypatch.setattr(encoder, "token_ids", lambda texts: embedded.extend(texts) or token_ids(texts))

    sentences = yelp.load_sentences()
    train = pss.subsample(sentences[sentences["split"] == "train"], 60, seed=0)
    test = pss.subsample(sentences[sentences["split"] == "dev"], 40, seed=0)
    pairs = pss.clean_pairs(yelp.load_reference_pairs())[0].groupby("direction").head(10)
    texts = [*test["text"], *pairs["source"], *pairs["rewrite"]]
    context = RunContext.resolve()

    def heads():
        for head in ("linear", "mlp"):
            for seed in (0, 1):
                clf = models.classifier(
                    encoder, train, how="head", head=head, settings=ClassifierSettings(), seed=seed, context=context
                )
                labels = ps.predict_labels(clf, texts)
                table = ps.prediction_table(pairs, labels[40:60], labels[60:])
                yield clf.training.from_cache, ps.pss(table)

    factory._MEMO.clear()
    first = list(heads())
    assert len(first) == 4 and not any(cached for cached, _ in first)  # 4 heads trained
    unique = set(train["text"]) | set(test["text"]) | set(pairs["source"]) | set(pairs["rewrite"])
    assert sorted(embedded) == sorted(unique)  # every unique text once, for 2 heads x 2 seeds

    embedded.clear()
    factory._MEMO.clear()  # as a new process would: the heads come back from the disk cache
    again = list(heads())
    assert embedded == [] and all(cached for cached, _ in again)  # a rerun: no model call, no training
    assert [p for _, p in again] == [p for _, p in first]


def test_clean_pairs_on_no_pairs():
    kept, report = pss.clean_pairs(_pairs([]))
    assert kept.empty and report.loc["before cleaning", "all"] == 0
    assert "No pairs" in pss.cleaning_note(report)
    with_paper = pss.cleaning_report_with_paper(report)
    assert with_paper.loc["kept", "paper (all)"] == 353


def test_spec_training_blocks_become_classifier_settings_and_leave_the_head_to_the_grid():
    from mtlib.utils.rules import ParameterError

    spec = pss.Spec(head_settings={"lr": 3e-3}, finetune_settings={"minilm": {"lr": 1e-4, "epochs": 1}})
    assert isinstance(spec.head_training(), ClassifierSettings) and spec.head_training().lr == 3e-3
    assert pss.Spec().head_training() == ClassifierSettings()  # {}: the factory's defaults, as head_lr 0 was
    assert spec.finetune_training()["minilm"].epochs == 1 and "minilm-static" not in spec.finetune_training()
    assert tuple(ClassifierSettings().hidden) == (500, 100)  # an mlp head is the paper's DNN by default
    for bad, message in [
        ({"head_settings": {"head": "mlp"}}, "head_settings: head is chosen by heads"),
        ({"finetune_settings": {"minilm": {"learning_rate": 1}}}, r"finetune_settings\['minilm'\]: unknown key"),
        ({"finetune_settings": {"minilm": {"epochs": 0}}}, "epochs must be a whole number"),
        ({"finetune_settings": {"glove-50d": {}}}, "expected an entry of finetune"),
    ]:
        with pytest.raises(ParameterError, match=message):
            pss.Spec(**bad)
