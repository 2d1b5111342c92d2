"""Notebook 03's data (word pairs, splits, vocabularies, labels) and its method end to end on a fine-tuned model.

The building blocks have their own tests: the prediction matrices in ``tests/unit/models/test_pair_matrix.py``,
the per-class scores in ``tests/unit/analysis/test_class_scores.py``, the sampled draw in
``tests/unit/relations/test_sample_triples.py``; the frozen-head route runs in the smoke profile
(``tests/notebooks``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import mtrun as runner
from mtlib.experiments import lexical as L
from mtlib.run.results import RunLayout, model_slug
from mtlib.utils.paths import project_root

PAIRS = pd.DataFrame(
    {
        "word1": [
            "poodle",
            "dog",
            "happy",
            "glad",
            "cherry",
            "apple",
            "tree",
            "car",
            "dog",
            "king",
            "cheap",
            "fruit",
            "story",
            "garden",
            "night",
            "film",
            "cast",
            "plot",
            "poodle",
            "table",
        ],
        "word2": [
            "dog",
            "animal",
            "glad",
            "joyful",
            "fruit",
            "fruit",
            "plant",
            "vehicle",
            "cat",
            "ruler",
            "expensive",
            "table",
            "tale",
            "yard",
            "day",
            "movie",
            "crew",
            "story",
            "car",
            "desk",
        ],
        "relation": [
            "HYP",
            "HYP",
            "SYN",
            "SYN",
            "HYP",
            "HYP",
            "HYP",
            "HYP",
            "RANDOM",
            "SYN",
            "ANT",
            "RANDOM",
            "SYN",
            "SYN",
            "ANT",
            "SYN",
            "RANDOM",
            "RANDOM",
            "RANDOM",
            "RANDOM",
        ],
        "split": ["train"] * 14 + ["test"] * 6,
    }
)


def test_vocabulary_split_and_labels():
    train, test = L.split_pairs(PAIRS)
    assert len(train) == 14 and len(test) == 6
    words = L.vocabulary(test)
    assert words[:4] == ["night", "day", "film", "movie"] and len(words) == len(set(words)) == 12
    sub = L.vocabulary(test, max_words=5, seed=3)
    assert len(sub) == 5 and sub == [w for w in words if w in sub]  # order of first appearance kept
    assert L.vocabulary(test, max_words=5, seed=3) == sub
    assert L.relation_labels(PAIRS, "syn").sum() == 6 and L.relation_labels(PAIRS, "hyp").sum() == 6
    gold_only = PAIRS.assign(split="gold")  # e.g. a CogALex-V gold_task2.txt: split by the pair hash
    tr, te = L.split_pairs(gold_only)
    assert len(tr) + len(te) == 20 and len(tr) > 0
    assert list(L.table5_frame().loc["english"]) == [0.809, 0.723]


def test_pair_classes_for_a_three_or_four_class_fine_tune():
    labelled = PAIRS.assign(relation=PAIRS["relation"].replace({"RANDOM": "PART_OF"}))
    assert list(L.pair_classes(labelled.head(11))) == ["HYP"] * 2 + ["SYN"] * 2 + ["HYP"] * 4 + [
        "OTHER",
        "SYN",
        "OTHER",
    ]
    four = L.pair_classes(labelled, L.COGALEX_CLASSES)
    assert set(four) == {"SYN", "ANT", "HYP", "RANDOM"} and (four[labelled["relation"] == "PART_OF"] == "RANDOM").all()
    with pytest.raises(ValueError, match="classes must be"):
        L.pair_classes(PAIRS, ("SYN", "HYP"))


def test_load_reads_every_language_of_the_spec():
    data = L.load(L.Spec(languages=["english"], max_vocabulary=12))
    assert data.languages == ["english"] and data.dataset == "bundled"
    assert len(data.splits["english"]["words"]) == 12 and data.metrics()["vocabulary/english"] == 12
    assert set(data.overview().index) >= {"train pairs", "test pairs", "vocabulary n"}


def test_a_causal_lm_among_the_models_cuts_every_vocabulary_to_lm_vocabulary_words():
    """03 prompts a causal LM once per ordered pair and relation: with one, the vocabulary is cut for every model."""
    full = L.load(L.Spec(languages=["english"]))
    assert len(full.splits["english"]["words"]) > 40
    cut = L.load(L.Spec(languages=["english"]), prompted=True)  # lm_vocabulary: 40 by default
    assert len(cut.splits["english"]["words"]) == 40
    assert set(cut.splits["english"]["words"]) <= set(full.splits["english"]["words"])
    smaller = L.load(L.Spec(languages=["english"], max_vocabulary=12), prompted=True)  # the smaller limit wins
    assert len(smaller.splits["english"]["words"]) == 12
    kept = L.load(L.Spec(languages=["english"], lm_vocabulary=0), prompted=True)  # 0: no cut of its own
    assert kept.splits["english"]["words"] == full.splits["english"]["words"]
    with pytest.raises(ValueError, match="lm_vocabulary"):
        L.Spec(lm_vocabulary=-1)


@pytest.mark.notebook
@pytest.mark.slow
def test_notebook_fine_tunes_a_siamese_four_class_model_per_language(tiny_bert_dir, tmp_path):
    """The real profile's route on a tiny model beside a frozen one: a siamese fine-tune per language, early
    stopping on a held-out part of train (the bundled pairs have no validgold), its matrices in matrix form
    whatever max_pairs says, the shared task's table of a 4-class model; the frozen model stays the primary."""
    settings = (
        "{architecture: siamese, pooling: mean, class_weight: balanced, epochs: 2, lr: 1.0e-3, head_lr: 1.0e-2,"
        " batch_size: 64, eval_every: 1, patience: 2, select_by: macro_f1, max_length: 16}"
    )
    overrides = {
        "models": f"[minilm, {tiny_bert_dir}-ft]",
        "languages": "[english]",
        "max_vocabulary": "40",
        "n_boot": "2",
        "n_sample": "500",
        "max_pairs": "10",
        "finetune_classes": "4",
        "finetune_per_language": "true",
        "finetune_settings": settings,
    }
    args = [a for k, v in overrides.items() for a in ("-p", f"03.{k}={v}")]
    root = project_root()
    status = runner.main(["--profile", "smoke", "--only", "03", "--root", str(root), "--out-dir", str(tmp_path), *args])
    layout = RunLayout(tmp_path, "smoke", "03_cogalex_transitivity")
    assert status == 0, layout.report_path.read_text() if layout.report_path.exists() else "no REPORT.md"
    m = json.loads(layout.metrics_path.read_text())
    tuned = f"models/{model_slug(f'{tiny_bert_dir}-ft')}/"
    assert m[tuned + "method/english/syn"] == "exhaustive"  # matrix form despite max_pairs=10
    assert m[tuned + "best_epoch/english"] in (1, 2) and 0 <= m[tuned + "f1_without_random/english"] <= 1
    skipped = m.get("_skipped", {})
    for key in ("balanced_accuracy", "f1", "precision", "recall"):  # the 4-class model scores ANT too
        # precision of ANT exists only when the tiny model predicts one ANT pair: a float decision that differs
        # between CPUs and thread counts; what the run guarantees is "recorded, or skipped with its reason"
        name = f"{tuned}{key}/english/ant"
        assert (name in m) != (name in skipped), (name, skipped.get(name))
        assert name in m or skipped[name].strip(), f"{name} skipped without a reason"
        assert f"{key}/english/ant" not in m and f"{key}/english/ant" not in skipped
    assert m["method/english/syn"] == "exhaustive" and 0 <= m["f1_summary/english"] <= 1
    tables = {p.name for p in layout.tables_dir.glob("*.csv")}
    assert f"shared_task_scores__{model_slug(f'{tiny_bert_dir}-ft')}.csv" in tables
    shared = pd.read_csv(layout.tables_dir / f"shared_task_scores__{model_slug(f'{tiny_bert_dir}-ft')}.csv")
    assert list(shared["class"]) == ["SYN", "ANT", "HYP", "RANDOM", "weighted (SYN, ANT, HYP)"]
    assert np.isclose(shared["reference_f1"].iloc[-1], 0.543)


def test_the_heads_training_settings_have_a_name_that_says_so():
    spec = L.Spec(head_settings={"head": "linear", "C": 0.5})
    assert spec.head_training().C == 0.5
    with pytest.warns(DeprecationWarning, match=r"spec.head_training\(\)"):
        assert spec.heads() == spec.head_training()
