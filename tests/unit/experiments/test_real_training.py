"""Training on real-format files: 01's ``train_path`` (heads and fine-tuning), 02's external sets (SICK TRAIN
trains, SICK TEST tests; MED: the head and the fine-tuned cross-encoder trained on them are notebook 02's cells,
tested in ``test_nli_ablation.py``). 03's 4-class fine-tune runs through its notebook
(``tests/unit/experiments/test_lexical.py``); its per-class scores: ``tests/unit/analysis/test_class_scores.py``.

Small fixtures in the real layouts (``tests/fixtures/real_formats/``) and tiny models keep these fast and offline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.data import sick
from mtlib.experiments import nli, sentiment
from mtlib.models.training.finetune import parse_model_name
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


def test_parse_model_name():
    assert parse_model_name("minilm-ft") == ("minilm", "finetune", "minilm-ft")
    assert parse_model_name("minilm-static", "finetune") == ("minilm-static", "finetune", "minilm-static-ft")
    with pytest.raises(ValueError, match="how"):
        parse_model_name("minilm", "native")


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
    base, how, row = parse_model_name(spec.models[0], spec.how)
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
