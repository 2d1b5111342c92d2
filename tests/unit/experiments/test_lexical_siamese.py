"""Notebook 03's siamese 4-class model: matrix-form predictions, early stopping on validation pairs, the
shared task's score table (tiny models built from a config; nothing downloaded)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.experiments import lexical as L
from mtlib.experiments.lexical._report import transitivity
from mtlib.experiments.lexical._scores import shared_task_table
from mtlib.models import ClassifierSettings
from mtlib.utils.context import RunContext

CPU = RunContext.resolve(device="cpu")

WORDS = ["poodle", "dog", "animal", "happy", "glad", "joyful", "cherry", "fruit", "tree", "car", "cheap", "dear"]
RELATIONS = ["HYP", "HYP", "SYN", "SYN", "ANT", "RANDOM", "RANDOM", "RANDOM"]


def _pairs(n: int, seed: int, split: str) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(WORDS), n), rng.integers(0, len(WORDS), n)
    return pd.DataFrame(
        {
            "word1": [WORDS[i] for i in a],
            "word2": [WORDS[(j if j != i else (i + 1) % len(WORDS))] for i, j in zip(a, b)],
            "relation": [RELATIONS[k % len(RELATIONS)] for k in range(n)],
            "split": split,
        }
    )


SIAMESE = ClassifierSettings(
    architecture="siamese",
    class_weight="balanced",
    epochs=2,
    lr=1e-3,
    head_lr=1e-2,
    batch_size=8,
    eval_every=0.5,
    patience=2,
    select_by="macro_f1",
    max_length=16,
)


@pytest.mark.parametrize("classes", [L.COGALEX_CLASSES, L.PAIR_CLASSES])
def test_siamese_prediction_matrices_equal_explicit_pair_calls(tiny_bert_dir, classes):
    train, valid = _pairs(48, 0, "train"), _pairs(16, 1, "validgold")
    model = L.finetune_pair_classifier(
        str(tiny_bert_dir),
        train,
        settings=SIAMESE,
        seed=0,
        context=CPU,
        use_cache=False,
        classes=classes,
        valid=valid,
        heldout_fraction=L.Spec().finetune_heldout_fraction,
    )
    assert model.siamese and model.model.training.n_heldout == 16  # validgold held out, not train
    mats = L.prediction_matrices(model, WORDS, max_pairs=1)  # matrix form, whatever max_pairs says
    assert mats is not None
    i, j = np.nonzero(~np.eye(len(WORDS), dtype=bool))
    explicit = L.predict_pairs(model, [WORDS[a] for a in i], [WORDS[b] for b in j])
    for rel in L.RELATIONS:
        assert mats[rel].shape == (12, 12) and not mats[rel].diagonal().any()
        np.testing.assert_array_equal(mats[rel][i, j], explicit[rel] > 0.5)


def test_shared_task_table_scores_single_labels_over_every_gold_pair():
    gold = pd.Series(["SYN", "SYN", "ANT", "HYP", "RANDOM", "RANDOM"])
    answer = np.array(["SYN", "ANT", "ANT", "RANDOM", "SYN", "RANDOM"])
    probs = {c.lower(): (answer == c).astype(float) for c in L.COGALEX_CLASSES}
    table = shared_task_table(probs, gold, {"SYN": 0.477, "weighted": 0.543})
    # SYN: tp 1, fp 1 (a RANDOM pair), fn 1 -> F1 0.5; ANT: tp 1, fp 1 -> 2/3; HYP: 0
    np.testing.assert_allclose(table.loc[["SYN", "ANT", "HYP"], "f1"], [0.5, 2 / 3, 0.0])
    weighted = table.loc["weighted (SYN, ANT, HYP)"]
    assert weighted["f1"] == pytest.approx((2 * 0.5 + 2 / 3 + 0) / 4)
    assert weighted["f1_without_random"] == pytest.approx((2 * 2 / 3 + 2 / 3 + 0) / 4)  # SYN fp gone
    assert weighted["reference_f1"] == 0.543 and np.isnan(table.loc["ANT", "reference_f1"])


def test_per_language_fine_tunes_stop_on_validgold_or_a_held_out_part_of_train(tiny_bert_dir):
    pairs = {"english": pd.concat([_pairs(40, 0, "train"), _pairs(12, 1, "test"), _pairs(12, 2, "validgold")])}
    pairs["german"] = pd.concat([_pairs(40, 3, "train"), _pairs(12, 4, "test")])
    splits = {}
    for lang, p in pairs.items():
        train, test = L.split_pairs(p)
        splits[lang] = {"train": train, "test": test, "words": L.vocabulary(test), "valid": p[p.split == "validgold"]}
    data = L.LexicalData(splits, "CogALex-VI")
    report = transitivity(
        f"{tiny_bert_dir}-ft",
        data,
        how="head",
        head_settings=ClassifierSettings(),
        finetune_settings=SIAMESE,
        finetune_classes=4,
        predict_batch_size=64,
        max_pairs=10,
        n_sample=100,
        n_boot=10,
        n_top=3,
        seed=0,
        context=CPU,
        per_language=True,
        heldout_fraction=0.25,
    )
    assert set(report.fits) == {"english", "german"}
    assert report.fits["english"]["validation"] == "validgold (12 pairs)"
    assert report.fits["german"]["validation"].startswith("a stratified 25% of train held out")
    for lang in ("english", "german"):
        fit = report.fits[lang]
        assert fit["best_epoch"] == max(fit["valid_curve"], key=lambda c: c[1])[0]
        assert (report.table5.loc[lang, "method"] == "exhaustive").all()  # matrix form despite max_pairs=10
        table = report.shared_task[lang]
        assert list(table.index) == ["SYN", "ANT", "HYP", "RANDOM", "weighted (SYN, ANT, HYP)"]
        assert table.loc["weighted (SYN, ANT, HYP)", "f1"] == pytest.approx(report.f1_summaries[lang])
    assert report.shared_task["english"].loc["weighted (SYN, ANT, HYP)", "reference_f1"] == 0.543
    metrics = report.metrics()
    assert "best_epoch/english" in metrics and "f1_without_random/german" in metrics
    assert "weighted F1 over SYN, ANT, HYP" in report.shared_task_sentence()
