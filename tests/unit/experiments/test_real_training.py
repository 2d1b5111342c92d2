"""Training on real-format files: 01's ``train_path`` (heads and fine-tuning), 02's external sets (SICK TRAIN
trains, SICK TEST tests; MED) and fine-tuned cross-encoder (03's 4-class fine-tune runs through its notebook:
``tests/unit/experiments/test_lexical.py``; its per-class scores: ``tests/unit/analysis/test_class_scores.py``).

Small fixtures in the real layouts (``tests/fixtures/real_formats/``) and tiny models keep these fast and offline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.data import sick
from mtlib.experiments import nli, sentiment
from mtlib.utils.rules import ParameterError

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures" / "real_formats"
TRAIN = FIX / "stsa.binary.train"
DEV = FIX / "stsa.binary.dev"
MED = FIX / "med" / "MED.tsv"


# --------------------------------------------------------------------------- 01: sentiment


def test_load_data_train_path_replaces_the_bundled_training_reviews():
    default_train, default_sources = sentiment.load_data(seed=0)
    train, sources = sentiment.load_data(train_path=str(TRAIN), seed=0)
    assert len(train) == 40 and train["label"].tolist()[:2] == [1, 0]
    assert train.attrs["source"] == str(TRAIN)
    # no data_path: every bundled review is D (none of them trains)
    assert len(sources) == len(default_train) + len(default_sources)
    _, sst_sources = sentiment.load_data(str(DEV), train_path=str(TRAIN))
    assert len(sst_sources) == 10
    assert sentiment.load_dev("") is None and len(sentiment.load_dev(str(DEV))) == 10


def test_defaults_unchanged_without_train_path():
    a = sentiment.load_data(seed=3, n_sources=50)
    b = sentiment.load_data(seed=3, n_sources=50, train_path="")
    for x, y in zip(a, b):
        pd.testing.assert_frame_equal(x, y)
    assert "source" not in a[0].attrs


def test_split_name():
    assert sentiment.split_name("minilm-ft") == ("minilm", "finetune", "minilm-ft")
    assert sentiment.split_name("minilm-static", "finetune") == ("minilm-static", "finetune", "minilm-static-ft")
    with pytest.raises(ValueError, match="how"):
        sentiment.split_name("minilm", "native")


def test_head_trains_on_train_path_and_dev_measures_it():
    spec = sentiment.Spec(
        models=["minilm-static"], data_path=str(DEV), train_path=str(TRAIN), dev_path=str(DEV), n_boot=1, device="cpu"
    )
    data = sentiment.load(spec)
    report = sentiment.analyse(spec, data).report
    m = report.metrics()
    assert report.model == "minilm-static"
    assert m["head_n_train"] == 40 and m["head_n_test"] == 10 and m["head_evaluated_on"] == "dev"
    assert 0 <= m["head_accuracy"] <= 1 and m["accuracy_n"] == 10


def test_finetuned_row_on_train_path():
    settings = {"lr": 1e-2, "epochs": 1, "batch_size": 8, "max_length": 16}
    spec = sentiment.Spec(
        models=["minilm-static-ft"],
        data_path=str(DEV),
        train_path=str(TRAIN),
        finetune_settings=settings,
        n_boot=1,
        seed=1,
        device="cpu",
        extra_transformations=[],
    )
    data = sentiment.load(spec)
    data.transformations = data.transformations[:1]
    outcome = sentiment.analyse(spec, data)
    report = outcome.report
    m = report.metrics()
    assert report.model == "minilm-static-ft" and list(outcome.reports) == ["minilm-static-ft"]
    assert m["head_n_train"] == 32 and m["head_n_test"] == 8  # 20% of the 40 training sentences held out
    assert m["finetune_epochs"] == 1 and m["finetune_lr"] == 1e-2 and m["train_seconds"] >= 0
    assert report.src.shape == (10,) and np.all((report.src >= 0) & (report.src <= 1))
    assert outcome.metrics()["models/minilm-static-ft/finetune_lr"] == 1e-2
    with pytest.raises(ParameterError, match=r"unknown key\(s\) \['momentum'\]"):
        sentiment.Spec(finetune_settings={"momentum": 0.9})


# --------------------------------------------------------------------------- 02: NLI


def test_external_sets_keep_sick_test_out_of_training():
    full = sick.load_sick()
    ext = nli.load_external(sick.BUNDLED_SICK, str(MED))
    assert ext is not None and ext.sick_test is not None
    n_train, n_test = int((full["SemEval_set"] == "TRAIN").sum()), int((full["SemEval_set"] == "TEST").sum())
    assert ext.metrics() == {"nli_n_train_sick": n_train, "nli_n_train_med": 6, "n_sick_test": n_test}
    train_sick = ext.train[ext.train["source"] == "sick"]
    test_pairs = set(
        zip(
            full.loc[full["SemEval_set"] == "TEST", "sentence_A"], full.loc[full["SemEval_set"] == "TEST", "sentence_B"]
        )
    )
    assert not (
        set(zip(train_sick["premise"], train_sick["hypothesis"])) - set(zip(full["sentence_A"], full["sentence_B"]))
    )
    train_rows = full[full["SemEval_set"] == "TRAIN"]
    assert train_sick["entailed"].tolist() == (train_rows["entailment_label"] == "ENTAILMENT").tolist()
    assert (
        len(test_pairs)
        and ext.sick_test["entailed"].tolist()
        == (full.loc[full["SemEval_set"] == "TEST", "entailment_label"] == "ENTAILMENT").tolist()
    )
    assert nli.load_external() is None
    assert ext.train.loc[ext.train["source"] == "med", "entailed"].tolist() == [True, True, False, True, False, True]


def test_sick_without_split_column_is_refused(tmp_path):
    path = tmp_path / "SICK_train.txt"
    path.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA dog runs\tA dog moves\t4.5\tENTAILMENT\n"
    )
    with pytest.raises(ValueError, match="SemEval_set"):
        nli.load_external(str(path))


@pytest.fixture(scope="module")
def nli_small():
    data = nli.load_data(max_contexts=10, max_insertions=9, seed=0)
    ext = nli.load_external(sick.BUNDLED_SICK, str(MED))
    assert ext is not None and ext.sick_test is not None
    small = nli.ExternalNLI(ext.train.iloc[::8].reset_index(drop=True), ext.sick_test.iloc[:60].reset_index(drop=True))
    return data, small


def _compositionality(model, data, ext, **changes):
    spec = nli.Spec(models=[model], n_boot=1, permutations=10, device="cpu", **changes)
    return nli.analyse(spec, nli.NLIInputs(data, ext)).report


def test_head_trains_on_external_and_scores_sick_test(nli_small, tiny_bert_dir):
    data, ext = nli_small
    report = _compositionality(str(tiny_bert_dir), data, ext)
    m = report.metrics()
    n_ctx = int(data.train_mask.sum())
    assert m["nli_head_n_train"] == pytest.approx(0.8 * (n_ctx + len(ext.train)), abs=2)
    assert m["nli_n_train_sick"] + m["nli_n_train_med"] == len(ext.train)
    assert m["n_sick_test"] == 60 and 0 <= m["accuracy/sick_test"] <= 1
    assert m["majority_baseline/sick_test"] == pytest.approx(
        max(ext.sick_test["entailed"].mean(), 1 - ext.sick_test["entailed"].mean())
    )
    assert "SICK TEST" in report.accuracy_sentences()


def test_finetuned_cross_encoder_row(nli_small, tiny_bert_dir):
    data, ext = nli_small
    settings = {"lr": 1e-3, "epochs": 1, "batch_size": 16, "max_length": 48}
    report = _compositionality(str(tiny_bert_dir), data, ext, how="finetune", finetune_settings=settings)
    m = report.metrics()
    assert report.model.endswith("-ft") and "cross-encoder fine-tuned" in report.ent.source
    assert m["train_seconds"] >= 0 and 0 <= m["nli_accuracy"] <= 1 and "nli_accuracy_majority_baseline" in m
    assert "accuracy/sick_test" in m and report.ent.prob.shape == (len(data.items),)
