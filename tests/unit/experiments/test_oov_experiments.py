"""Notebooks 05 and 06 with static word vectors that lack words: nothing stops, everything is counted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mtlib import models
from mtlib.analysis import polarity_sensitivity as ps
from mtlib.analysis.tree_reconstruction import fit_tre_heldout
from mtlib.experiments import tre
from mtlib.models import factory, load
from mtlib.models.inference import oov
from mtlib.models.training.settings import ClassifierSettings
from tests.unit.models.test_oov import VECTORS  # the same 2-d word vectors as the model-layer tests

TREES = Path(__file__).resolve().parents[3] / "data" / "trees" / "dev.txt"


def _vector_file(folder: Path, words: dict[str, tuple[float, ...]]) -> str:
    """A GloVe-style text file (no header): ``word v1 ... vd`` per line."""
    path = folder / "vectors.txt"
    path.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in words.items()))
    return str(path)


def test_pss_with_texts_no_encoder_word_knows_trains_scores_and_counts_them(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    encoder = _vector_file(tmp_path, VECTORS)
    pos = ["good food", "great service", "fine food", "good service", "great food"]
    neg = ["bad food", "awful service", "poor food", "bad service", "awful food"]
    # two training sentences with no known word, one with a partial match ("zorg" unknown); 17 positive, 11 negative
    train = pd.DataFrame(
        {"text": [*pos * 3, *neg * 2, "_num_ _num_", "zorg", "good zorg"], "label": [1] * 15 + [0] * 10 + [1, 0, 1]}
    )
    test = pd.DataFrame({"text": ["great food", "poor service", "_num_"], "label": [1, 0, 1]})
    pairs = pd.DataFrame(
        {
            "source": ["bad food", "good service", "_num_ stars"],
            "rewrite": ["great food", "awful service", "good _num_"],
            "direction": ["neg_to_pos", "pos_to_neg", "pos_to_neg"],
        }
    )
    factory._MEMO.clear()
    model = models.load(encoder)
    texts = [*test["text"], *pairs["source"], *pairs["rewrite"]]
    for head in ("linear", "mlp"):  # notebook 05's FB step: a head per setting, every text labelled once
        clf = models.classifier(model, train, how="head", head=head, settings=ClassifierSettings(), seed=0)
        labels = ps.predict_labels(clf, texts)
        table = ps.prediction_table(pairs, labels[3:6], labels[6:])
        # "_num_" (no vector) gets the training majority, positive: right; "_num_ stars" too, but its
        # rewrite "good _num_" reads as "good": the third pair is not both right
        assert (labels[:3] == test["label"].to_numpy()).tolist() == [True, True, True]
        assert table["both_right"].tolist() == [True, True, False] and ps.pss(table) == 2 / 3
    parts = {"train": list(train["text"]), "test": list(test["text"]), "pairs": [*pairs["source"], *pairs["rewrite"]]}
    coverage = {part: oov.coverage_summary(oov.model_token_counts(model, t), len(t)) for part, t in parts.items()}
    metrics = {k: v for part, summary in coverage.items() for k, v in oov.coverage_metrics(summary, part).items()}
    assert (metrics["oov/skipped/train"], metrics["oov/partial/train"]) == (2, 1)
    assert metrics["oov/token_coverage/train"] == 51 / 55
    assert (metrics["oov/skipped/test"], metrics["oov/partial/test"]) == (1, 0)
    assert metrics["oov/token_coverage/test"] == 4 / 5
    assert (metrics["oov/skipped/pairs"], metrics["oov/partial/pairs"]) == (1, 1)
    assert metrics["oov/token_coverage/pairs"] == 9 / 12
    notes = [
        oov.coverage_note(encoder, coverage[p], what)
        for p, what in [("train", "training sentences"), ("test", "test sentences"), ("pairs", "pair sides")]
    ]
    assert notes[0].startswith(f"{encoder}: 2 of 28 training sentences have no known word (skipped);")
    assert notes[1].startswith(f"{encoder}: 1 of 3 test sentences have no known word")
    assert notes[2].startswith(f"{encoder}: 1 of 6 pair sides have no known word")
    # the head trained only on sentences with a vector; the shares of its training labels answer the others
    t = factory.classifier(encoder, train, how="head", head="linear", seed=0).training
    assert (t.n_skipped, t.n_train, t.n_heldout) == (2, 23, 3)  # 28 sentences: 3 held out, 2 skipped


def test_tre_counts_sentences_a_word_vector_model_has_no_vector_for(tmp_path):
    trees, _ = tre.load_trees(str(TREES), max_sentences=40)
    texts = [t.sentence for t in trees]
    words = sorted({w for t in texts for w in t.split()})
    rng = np.random.default_rng(0)
    dropped = set(texts[0].split()) | set(words[::3])  # the first sentence loses every word
    encoder = load(_vector_file(tmp_path, {w: tuple(rng.normal(size=4).round(4)) for w in words if w not in dropped}))
    targets = encoder.embed(texts)
    summary = oov.coverage_summary(oov.model_token_counts(encoder, texts), len(texts))
    per, _ = fit_tre_heldout(trees, targets, heldout_fraction=0.25, unseen="zero", seed=0, steps=5)
    known = [[w not in dropped for w in t.split()] for t in texts]
    skipped = sum(not any(k) for k in known)
    partial = sum(any(k) and not all(k) for k in known)
    m = oov.coverage_metrics(summary, "sentences")
    assert skipped >= 1 and partial >= 1
    assert (m["oov/skipped/sentences"], m["oov/partial/sentences"]) == (skipped, partial)
    assert (per["split"] == "no target").sum() == skipped  # the same rule leaves them out of the fit
    assert m["oov/token_coverage/sentences"] == sum(map(sum, known)) / sum(map(len, known))
    note = oov.coverage_note("vectors", summary, "sentences", "no target: left out")
    assert f"{skipped} of 40 sentences have no known word (no target: left out)" in note
