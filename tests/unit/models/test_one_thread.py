"""A small fine-tune repeated with one CPU thread: what the computation guarantees at any thread count.

Intuition: a tiny model's float decisions (whether it predicts one pair of a rare class, its exact accuracy)
change with the CPU and the thread count, because the order of a float sum does. A test may assert what the
computation guarantees whatever those decisions are: finite probabilities that sum to one, a class that is never
predicted has an undefined precision (NaN, which notebook 03 declares skipped with its reason) and every other
score defined, and the same answers when the same fine-tune runs again with the same threads. Notebook 03's test
(``test_notebook_fine_tunes_a_siamese_four_class_model_per_language``) failed at one thread on an AMD EPYC by
asserting that the tiny model predicts an antonym; this test runs the same kind of fine-tune at one thread so a
test of that kind shows up on any machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.analysis.class_scores import per_class_scores
from mtlib.utils.threads import limit_threads
from tests.conftest import save_tiny_bert

SYN = [("big", "large"), ("small", "little"), ("fast", "quick"), ("happy", "glad")]
ANT = [("big", "small"), ("fast", "slow")]  # the rare class: a tiny model may never predict it
HYP = [("dog", "animal"), ("cat", "animal"), ("rose", "flower"), ("oak", "tree")]
RANDOM = [("dog", "quick"), ("rose", "glad"), ("oak", "little"), ("cat", "large"), ("tree", "slow")]
WORDS = sorted({w for pair in SYN + ANT + HYP + RANDOM for w in pair})


@pytest.fixture(scope="module")
def word_bert_dir(tmp_path_factory):
    """A 2-layer BERT whose vocabulary is these words (one token each)."""
    from transformers import BertTokenizerFast

    folder = tmp_path_factory.mktemp("one-thread-bert")
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizerFast(str(folder / "vocab.txt"), do_lower_case=True, model_max_length=32)
    return save_tiny_bert(folder, tokenizer)


def _pairs() -> pd.DataFrame:
    rows = [
        (a, b, rel) for rel, pairs in (("SYN", SYN), ("ANT", ANT), ("HYP", HYP), ("RANDOM", RANDOM)) for a, b in pairs
    ]
    return pd.DataFrame(rows * 3, columns=["text", "text_pair", "label"])


def _fine_tune_one_thread(folder) -> tuple[np.ndarray, list[str], pd.Series]:
    """Notebook 03's real-profile route, small: a siamese 4-class fine-tune and its probabilities, one thread."""
    data = _pairs()
    with limit_threads(1):
        clf = models.classifier(
            str(folder),
            (data["text"], data["text_pair"], data["label"]),
            how="finetune",
            architecture="siamese",
            pooling="mean",
            class_weight="balanced",
            epochs=2,
            lr=1e-3,
            head_lr=1e-2,
            batch_size=8,
            heldout_fraction=0,
            max_length=8,
            seed=0,
            device="cpu",
            use_cache=False,
        )
        probs = clf.classify(data["text"].tolist(), data["text_pair"].tolist())
    return probs, list(clf.labels), data["label"]


def test_a_fine_tune_at_one_thread_gives_what_the_computation_guarantees(word_bert_dir):
    import torch

    before = torch.get_num_threads()
    probs, labels, gold = _fine_tune_one_thread(word_bert_dir)
    assert torch.get_num_threads() == before  # the thread count is restored
    assert sorted(labels) == ["ANT", "HYP", "RANDOM", "SYN"] and probs.shape == (len(gold), 4)
    assert np.isfinite(probs).all() and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    scores = per_class_scores({lab.lower(): probs[:, i] for i, lab in enumerate(labels)}, gold)
    for rel, row in scores.iterrows():
        # NaN exactly when nothing is predicted (precision) or nothing is gold (never here): the one case the
        # notebook declares skipped with its reason; whether it happens is the float decision no test may pin
        assert np.isnan(row["precision"]) == (row["predicted_positive"] == 0), rel
        assert np.isfinite([row["recall"], row["balanced_accuracy"], row["accuracy"]]).all(), rel
        assert 0 <= row["recall"] <= 1 and 0 <= row["balanced_accuracy"] <= 1
    again, _, _ = _fine_tune_one_thread(word_bert_dir)
    np.testing.assert_array_equal(again, probs)  # the same fine-tune at the same thread count: the same floats
