"""Training on real-format files: 01's ``train_path`` (heads and fine-tuning), 02's external sets (SICK TRAIN
trains, SICK TEST tests; MED: the head and the fine-tuned cross-encoder trained on them are notebook 02's cells,
tested in ``test_nli_ablation.py``), 03's 4-class fine-tune and its per-relation scores.

Small fixtures in the real layouts (``tests/fixtures/real_formats/``) and tiny models keep these fast and offline.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.data import sick
from mtlib.experiments import lexical, nli, sentiment
from mtlib.models.training.finetune import split_name
from mtlib.utils.context import RunContext
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
    assert split_name("minilm-ft") == ("minilm", "finetune", "minilm-ft")
    assert split_name("minilm-static", "finetune") == ("minilm-static", "finetune", "minilm-static-ft")
    with pytest.raises(ValueError, match="how"):
        split_name("minilm", "native")


def _labelled(frame: pd.DataFrame) -> tuple[list[str], list[int]]:
    return list(frame["text"]), list(frame["label"])


def test_head_trains_on_train_path_and_dev_measures_it():
    """Notebook 01's head: trained on every sentence of ``train_path``, measured on ``dev_path``."""
    train, sources = sentiment.load_data(str(DEV), train_path=str(TRAIN))
    dev = sentiment.load_dev(str(DEV))
    context = RunContext.resolve(device="cpu")
    model = models.load("minilm-static", context=context)
    clf = models.classifier(
        model, _labelled(train), how="head", head="linear", seed=0, context=context, valid=_labelled(dev)
    )
    t = clf.training
    assert (t.n_train, t.n_heldout) == (40, 10) and 0 <= t.heldout_accuracy <= 1 and len(sources) == 10
    s_pos = np.asarray(clf.classify(list(sources["text"])))[:, clf.label_index(1)]
    assert s_pos.shape == (10,) and np.all((s_pos >= 0) & (s_pos <= 1))


def test_finetuned_row_on_train_path():
    """Notebook 01's fine-tuned row (``NAME-ft``): the spec's ``finetune_settings``, 20% held out without a dev file."""
    settings = {"lr": 1e-2, "epochs": 1, "batch_size": 8, "max_length": 16}
    spec = sentiment.Spec(models=["minilm-static-ft"], finetune_settings=settings, seed=1, device="cpu")
    base, how, row = split_name(spec.models[0], spec.how)
    assert (base, how, row) == ("minilm-static", "finetune", "minilm-static-ft")
    train, sources = sentiment.load_data(str(DEV), train_path=str(TRAIN))
    model = models.load(base, context=spec.context())
    clf = models.classifier(
        model, _labelled(train), how=how, settings=spec.finetune(), seed=1, context=spec.context(), heldout_fraction=0.2
    )
    t = clf.training
    assert (t.n_train, t.n_heldout) == (32, 8)  # 20% of the 40 training sentences held out
    assert t.settings["epochs"] == 1 and t.settings["lr"] == 1e-2 and t.seconds >= 0
    s_pos = np.asarray(clf.classify(list(sources["text"])))[:, clf.label_index(1)]
    assert s_pos.shape == (10,) and np.all((s_pos >= 0) & (s_pos <= 1))
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


# --------------------------------------------------------------------------- 03: lexical


def test_relation_scores_and_summary_f1():
    gold = pd.Series(["SYN", "SYN", "HYP", "ANT", "RANDOM", "RANDOM"])
    probs = {"syn": np.array([0.9, 0.2, 0.1, 0.1, 0.6, 0.1]), "hyp": np.array([0.1, 0.1, 0.8, 0.1, 0.1, 0.1])}
    s = lexical.relation_scores(probs, gold)
    assert s.loc["syn", "precision"] == 0.5 and s.loc["syn", "recall"] == 0.5 and s.loc["syn", "f1"] == 0.5
    assert s.loc["hyp", "f1"] == 1.0 and s.loc["hyp", "balanced_accuracy"] == 1.0
    assert s.loc["syn", "balanced_accuracy"] == pytest.approx((0.5 + 3 / 4) / 2)
    # weights: SYN 2, HYP 1, ANT 1 (not predicted: F1 0); RANDOM left out
    assert lexical.f1_summary(s, gold) == pytest.approx((2 * 0.5 + 1 * 1.0 + 0) / 4)
    never = lexical.relation_scores({"syn": np.zeros(6)}, gold)
    assert never.loc["syn", "balanced_accuracy"] == 0.5 and never.loc["syn", "learnt_p"] == 1.0
    assert never.loc["syn", "accuracy"] == never.loc["syn", "majority_baseline"]


def test_four_class_finetune_on_bundled_pairs(tiny_bert_dir):
    base = dict(languages=["english"], max_vocabulary=12, n_sample=500, n_boot=1, device="cpu")
    data = lexical.load(lexical.Spec(**base))
    frozen = lexical.analyse(lexical.Spec(models=["minilm-static"], **base), data).report
    ft = {"epochs": 1, "lr": 1e-3, "batch_size": 64, "pooling": "first", "max_length": 32}
    tuned_spec = lexical.Spec(models=[str(tiny_bert_dir) + "-ft"], finetune_classes=4, finetune_settings=ft, **base)
    tuned = lexical.analyse(tuned_spec, data).report
    assert tuned.model.endswith("-ft") and tuned.finetuned and not frozen.finetuned
    clf = tuned.relation_scores["english"]
    assert list(clf.index) == ["syn", "ant", "hyp", "random"] and list(frozen.relation_scores["english"].index) == [
        "syn",
        "hyp",
    ]
    # the 4-class model's v_c is its single-label answer: exactly one class above 0.5 per pair, the argmax
    test = data.splits["english"]["test"]
    scores = lexical.relation_probabilities(
        tuned_model := lexical.finetune_pair_classifier(
            str(tiny_bert_dir),
            data.splits["english"]["train"],
            settings=tuned_spec.finetune(),
            seed=0,
            context=RunContext.resolve(device="cpu"),
            classes=lexical.COGALEX_CLASSES,
            heldout_fraction=lexical.Spec().finetune_heldout_fraction,
        ),
        test,
    )
    above = np.stack([scores[c] > 0.5 for c in ("syn", "ant", "hyp", "random")], axis=1)
    assert (above.sum(axis=1) == 1).all()
    probs = tuned_model.model.classify(list(test["word1"]), list(test["word2"]))
    order = [tuned_model.model.label_index(c) for c in lexical.COGALEX_CLASSES]
    assert np.array_equal(above.argmax(axis=1), probs[:, order].argmax(axis=1))
    m, f = tuned.metrics(), frozen.metrics()
    for key in ("balanced_accuracy", "f1", "precision", "recall"):
        assert f"{key}/english/ant" in m and f"{key}/english/syn" in f and f"{key}/english/ant" not in f
    assert 0 <= m["f1_summary/english"] <= 1 and 0 <= f["f1_summary/english"] <= 1
    # the binary syn/hyp keys agree with the existing evaluation where both exist
    assert f["f1/english/syn"] == pytest.approx(frozen.scores["english"].loc["syn", "f1"], nan_ok=True)
    assert "balanced accuracy" in frozen.sentence() and 'always-"no"' in tuned.sentence()
    with pytest.raises(ParameterError, match="finetune_classes = 5: expected one of 3, 4"):
        lexical.Spec(finetune_classes=5)
    assert math.isfinite(m["accuracy/english/syn"])
