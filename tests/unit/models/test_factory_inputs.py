"""The classifier factory refuses inputs that would silently train something else, naming the option.

Also: ``C`` and ``class_weight`` of a linear head, in the cache key; the settings dataclass.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.models import ClassifierSettings, Model
from mtlib.models.training import store
from mtlib.models.training.loop import stratified_split


class Toy(Model):
    """A frozen encoder without weights: each text's vector comes from its hash (``inf`` for texts with "boom")."""

    kind = "toy-encoder"

    def __init__(self) -> None:
        super().__init__("toy", "toy-identity-1", "cpu", use_cache=False)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for t in texts:
            seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
            row = np.random.default_rng(seed).normal(size=8) + (3.0 if "garden" in t else 0.0)
            rows.append(np.full(8, np.inf) if "boom" in t else row)
        return np.asarray(rows, dtype=np.float32)


def _train(n: int = 40) -> tuple[list[str], list[str]]:
    texts = [f"{'garden' if i % 2 else 'animal'} {i}" for i in range(n)]
    return texts, ["garden" if i % 2 else "animal" for i in range(n)]


@pytest.mark.parametrize(
    "how,option,value",
    [
        ("head", "epochs", 0),
        ("head", "epochs", -1),
        ("head", "lr", 0),
        ("head", "lr", float("inf")),
        ("head", "lr", float("nan")),
        ("head", "batch_size", 0),
        ("head", "hidden", (0,)),
        ("head", "hidden", (100, -5)),
        ("head", "C", 0),
        ("head", "C", float("inf")),
        ("head", "class_weight", "sometimes"),
        ("finetune", "epochs", 0),  # e.g. a notebook's finetune_settings {"minilm": {"epochs": 0}}
        ("finetune", "epochs", 2.5),
        ("finetune", "max_length", 0),
        ("finetune", "batch_size", 0),
        ("finetune", "lr", 0.0),
    ],
)
def test_bad_settings_are_refused_naming_the_option(how, option, value):
    with pytest.raises(
        ValueError, match=rf"classifier\('toy'\): {option}\b.* must be .*; got {re.escape(repr(value))}$"
    ):
        models.classifier(Toy(), _train(), how=how, use_cache=False, **{option: value})


def test_an_unknown_option_is_named():
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['epoch'\]"):
        models.classifier(Toy(), _train(), how="head", epoch=3)


@pytest.mark.parametrize("missing", [float("nan"), None, pd.NA])
def test_missing_labels_are_refused_not_a_class(missing):
    texts, labels = _train()
    labels[5] = missing
    with pytest.raises(ValueError, match=r"train has 1 missing label\(s\) \(NaN/None\), e.g. row 5"):
        models.classifier(Toy(), (texts, labels), how="head", use_cache=False)
    frame = pd.DataFrame({"text": texts, "label": labels})
    with pytest.raises(ValueError, match="missing label"):
        models.classifier(Toy(), frame, how="head", use_cache=False)
    with pytest.raises(ValueError, match="valid has 1 missing label"):
        models.classifier(Toy(), _train(), how="head", valid=(texts, labels), use_cache=False)


def test_a_class_without_training_examples_is_refused_for_a_linear_head():
    with pytest.raises(
        ValueError,
        match=r"labels=\['animal', 'garden', 'plant'\] names class\(es\) \['plant'\] "
        "with no example in train",
    ):
        models.classifier(Toy(), _train(), how="head", labels=["animal", "garden", "plant"], use_cache=False)
    # an MLP head keeps a column for every class: the probabilities have as many columns as labels
    mlp = models.classifier(
        Toy(),
        _train(),
        how="head",
        head="mlp",
        hidden=(4,),
        epochs=1,
        labels=["animal", "garden", "plant"],
        use_cache=False,
    )
    assert mlp.classify(["garden 1"]).shape == (1, 3)


def test_a_class_held_out_entirely_is_refused_for_a_linear_head():
    texts, labels = _train()
    texts, labels = [*texts, "plant 0"], [*labels, "plant"]
    y = np.array([["animal", "garden", "plant"].index(x) for x in labels])
    seed = next(s for s in range(100) if len(y) - 1 in stratified_split(y, 0.5, s)[1])
    with pytest.raises(ValueError, match=r"training part has no example of class\(es\) \['plant'\]"):
        models.classifier(Toy(), (texts, labels), how="head", heldout_fraction=0.5, seed=seed, use_cache=False)


def test_infinite_features_are_refused():
    texts, labels = _train()
    texts[3] = "boom 3"
    with pytest.raises(ValueError, match=r"toy gives infinite features for 1 input\(s\), e.g. 'boom 3'"):
        models.classifier(Toy(), (texts, labels), how="head", use_cache=False)


def test_C_and_class_weight_reach_the_linear_head_and_the_cache_key():
    toy, train = Toy(), _train()
    default = models.classifier(toy, train, how="head", heldout_fraction=0)
    assert models.classifier(toy, train, how="head", heldout_fraction=0, C=1.0, class_weight=None) is default
    assert "C" not in default.training.settings  # the keys of default heads are as before
    strong = models.classifier(toy, train, how="head", heldout_fraction=0, C=0.001)
    assert strong.training.key != default.training.key and strong.head.C == 0.001
    assert np.abs(strong.head.coef_).sum() < np.abs(default.head.coef_).sum()
    balanced = models.classifier(toy, train, how="head", heldout_fraction=0, class_weight="balanced")
    assert balanced.training.key not in (default.training.key, strong.training.key)
    assert balanced.training.settings["class_weight"] == "balanced"
    store._MEMO.clear()  # as a new process: reloaded from the disk cache with its class weights
    again = models.classifier(toy, train, how="head", heldout_fraction=0, class_weight="balanced")
    assert again.training.from_cache and again.head.class_weight == "balanced"
    np.testing.assert_array_equal(again.head.coef_, balanced.head.coef_)


def test_a_settings_dataclass_and_keywords_are_the_same_request():
    toy, train = Toy(), _train()
    by_keywords = models.classifier(toy, train, how="head", seed=3, heldout_fraction=0.25)
    settings = ClassifierSettings(seed=3, heldout_fraction=0.5)
    assert models.classifier(toy, train, how="head", settings=settings, heldout_fraction=0.25) is by_keywords
    with pytest.raises(ValueError, match="epochs must be"):
        models.classifier(toy, train, how="head", settings=ClassifierSettings(epochs=0))
