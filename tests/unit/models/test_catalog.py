"""``mtlib.models.available()``: the registry, then the classifiers trained and stored in the cache."""

from __future__ import annotations

from mtlib import models
from mtlib.models import factory
from tests.unit.models.test_oov import _train, _vector_file


def test_available_lists_trained_models_of_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    before = models.available()
    assert not before["trained"].any() and "minilm" in before.index
    model = models.load(str(_vector_file(tmp_path)))
    texts, labels = _train(20)
    texts += ["zorg"]
    labels += [1]
    factory._MEMO.clear()
    clf = models.classifier(model, (texts, labels), how="head", seed=0)
    table = models.available()
    trained = table[table["trained"]]
    assert len(trained) == 1 and len(table) == len(before) + 1
    row = trained.iloc[0]
    assert trained.index[0] == f"{model.name}+linear#{clf.training.key[:8]}"
    assert (row["kind"], row["source"], row["resolves"], row["cache_key"]) == (
        "head-classifier",
        model.name,
        "trained",
        clf.training.key,
    )
    n_train, n_held = clf.training.n_train, clf.training.n_heldout
    assert row["trained_on"].startswith(f"{n_train} texts, labels [0, 1]")
    assert f"{n_held} held out, held-out accuracy" in row["trained_on"]
    assert ("1 skipped: no vector" in row["trained_on"]) == (clf.training.n_skipped == 1)
    assert not models.available(trained=False)["trained"].any()
