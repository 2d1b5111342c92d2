"""One frozen, resolved training object: checked where it is made, every default applied, the former cache keys."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mtlib import models
from mtlib.models.capabilities import Capabilities
from mtlib.models.factory import train_head
from mtlib.models.training.frozen import Head
from mtlib.models.training.heads import MLP_BATCH, MLP_EPOCHS, MLP_LR
from mtlib.models.training.resolved import ResolvedTraining
from mtlib.models.training.settings import FINETUNE_BATCH, FINETUNE_EPOCHS, ClassifierSettings
from mtlib.utils.cache import stable_hash

CAPS = Capabilities(finetune="encoder", finetune_lr=2e-5)

#: ``stable_hash(cache_settings(how, ClassifierSettings(**options), CAPS, ["a", "b"], False, None), 24)`` as
#: computed by the code before the resolved object existed (commit f399c18): every cache and pin depends on it.
FORMER_KEYS = [
    ("head", {}, "73b3295be5972090b7c52780"),
    ("head", {"head": "mlp"}, "d977d4afb76e1151520e6e3b"),
    ("head", {"C": 0.5, "class_weight": "balanced"}, "780519c5d287ac10ca941d37"),
    ("finetune", {}, "5bfbe3caf5378b93c022b199"),
    ("finetune", {"epochs": 2}, "b925d1a2a374c5dc18364d3a"),
    (
        "finetune",
        {"epochs": 5, "batch_size": 32, "lr": 1e-05, "pooling": "first", "max_length": 32},
        "d42376d4d7a7c54f8462fa5d",
    ),
    (
        "finetune",
        {"eval_every": 0.5, "patience": 2, "architecture": "siamese", "train_layers": 3},
        "3db938fc488071736d0f9842",
    ),
]


@pytest.mark.parametrize(("how", "options", "former"), FORMER_KEYS)
def test_the_resolved_objects_key_equals_the_former_key(how, options, former):
    plan = ResolvedTraining.resolve(ClassifierSettings(**options), how, CAPS, ["a", "b"], False, None)
    assert stable_hash(plan.keyed(), 24) == former
    # the full key: encoder identity, data digest, settings, as mtlib.models.training.store.cache_key made it
    assert plan.cache_key("toy@1", "d" * 32) == stable_hash(["toy@1", "d" * 32, plan.keyed()], 24)


def test_every_default_is_applied_once_in_the_resolved_object():
    tune = ResolvedTraining.resolve(ClassifierSettings(), "finetune", CAPS, [0, 1], True, None)
    assert (tune.epochs, tune.lr, tune.batch_size) == (FINETUNE_EPOCHS, 2e-5, FINETUNE_BATCH)
    assert (tune.heldout_fraction, tune.select_by, tune.train_layers, tune.train_embeddings) == (
        0.1,
        "accuracy",
        "all",
        False,
    )
    mlp = ResolvedTraining.resolve(ClassifierSettings(head="mlp"), "head", CAPS, [0, 1], False, None)
    assert (mlp.epochs, mlp.lr, mlp.batch_size, mlp.hidden) == (MLP_EPOCHS, MLP_LR, MLP_BATCH, (500, 100))
    valid = ResolvedTraining.resolve(ClassifierSettings(valid=(["x"], [0])), "head", CAPS, [0, 1], False, "h" * 24)
    assert valid.heldout_fraction is None and valid.valid == "h" * 24


def test_settings_and_the_resolved_object_are_frozen_and_checked_where_made():
    s = ClassifierSettings(epochs=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.epochs = 3  # type: ignore[misc]
    plan = ResolvedTraining.resolve(s, "finetune", CAPS, [0, 1], False, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.epochs = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"^ClassifierSettings: epochs must be a whole number >= 1"):
        ClassifierSettings(epochs=0)
    with pytest.raises(ValueError, match=r"^ClassifierSettings: lr must be a finite number > 0"):
        dataclasses.replace(s, lr=-1.0)
    with pytest.raises(ValueError, match=r"^classifier\('toy'\): epochs must be"):
        ClassifierSettings.from_options("toy", {"epochs": 0}, s)
    assert ClassifierSettings.from_options("toy", {}, s) is s  # trusted as made: not checked or copied again


def test_a_recorded_dict_reads_back_as_the_same_resolved_training():
    s = ClassifierSettings(epochs=2, head_lr=1e-3, eval_every=0.5, patience=2, architecture="siamese")
    plan = ResolvedTraining.resolve(s, "finetune", CAPS, ["a", "b"], True, None)
    again = ResolvedTraining.from_record(plan.keyed())
    assert again == plan and again.keyed() == plan.keyed()


def test_a_resolved_training_writes_no_default_of_its_own():
    # every field is passed by ``resolve`` (or ``from_record``): the defaults live in ClassifierSettings and
    # resolved_hyper only, so a field left out is an error, not a second copy of a default
    defaulted = [
        f.name
        for f in dataclasses.fields(ResolvedTraining)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    ]
    assert defaulted == []
    with pytest.raises(TypeError, match="missing"):
        ResolvedTraining(how="head", head="linear")  # type: ignore[call-arg]


def _blobs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 4)).astype(np.float32), np.array([0, 1] * 30)


def test_train_head_is_a_deprecated_alias_of_the_factory_with_the_same_key():
    X, y = _blobs()
    with pytest.warns(DeprecationWarning, match=r"classifier\(X, y, how='head', head='linear'"):
        old = train_head(X, y, use_cache=False)
    new = models.classifier(X, y, how="head", head="linear", heldout_fraction=0.2, use_cache=False)
    assert isinstance(new, Head) and new.key == old.key == "e705ae686faf40df5d77fc72"  # the former key
    assert (new.head, new.recorded_head) == ("linear", "logreg")
    with pytest.warns(DeprecationWarning, match="Head.kind is renamed Head.recorded_head"):
        assert new.kind == "logreg"  # the old name gives the value it gave
    assert new.summary()["kind"] == "logreg" and new.settings["kind"] == "logreg"  # metrics and cache key unchanged
    np.testing.assert_array_equal(new.predict_proba(X), old.predict_proba(X))
    with pytest.warns(DeprecationWarning):
        mlp = train_head(X, y, kind="mlp", seed=1, epochs=3, use_cache=False)
    assert mlp.key == "d1d54121083db1c7ee344091"
    with pytest.warns(DeprecationWarning):
        given = train_head(X, y, kind="logreg", seed=0, C=1.0, test_size=0.3, use_cache=False)
    assert given.key == "2435037bad220923d0f99e3a"
    # notebook 02's probe: an explicit test set, C given, the run's cache folder
    with pytest.warns(DeprecationWarning):
        probe = train_head(X[:40], y[:40], kind="logreg", seed=0, C=1.0, X_test=X[40:], y_test=y[40:], use_cache=False)
    again = models.classifier(X[:40], y[:40], how="head", head="linear", seed=0, C=1.0, valid=(X[40:], y[40:]))
    assert again.key == probe.key and again.accuracy == probe.accuracy


def test_a_head_on_features_refuses_what_it_cannot_do():
    X, y = _blobs()
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['pooling'\]"):
        models.classifier(X, y, how="head", pooling="first")
    with pytest.raises(ValueError, match="a feature matrix takes how='head'"):
        models.classifier(X, y, how="finetune")
    with pytest.raises(ValueError, match="C .* must be a finite number > 0"):
        models.classifier(X, y, how="head", C=0.0)


def test_head_reads_the_old_head_name_logreg_as_linear_and_refuses_an_unknown_one():
    X, y = _blobs()
    trained = models.classifier(X, y, how="head", head="mlp", heldout_fraction=0.2, use_cache=False)
    assert (trained.head, trained.recorded_head, trained.summary()["kind"]) == ("mlp", "mlp", "mlp")
    fields = {f.name: getattr(trained, f.name) for f in dataclasses.fields(Head)}
    assert dataclasses.replace(trained, head="logreg").head == "linear"
    with pytest.raises(ValueError, match="Head: head must be one of linear, mlp .*got 'svm'"):
        Head(**{**fields, "head": "svm"})


def test_the_head_estimators_name_their_head_and_keep_kind_and_make_head_kind_for_one_release():
    from mtlib.models.training.heads import LinearHead, MLPHead, make_head

    assert (LinearHead.head, MLPHead.head) == ("linear", "mlp")
    for cls in (LinearHead, MLPHead):
        with pytest.warns(DeprecationWarning, match=f"{cls.__name__}.kind is renamed {cls.__name__}.head"):
            assert make_head(cls.head).kind == cls.head
    with pytest.warns(DeprecationWarning, match=r"make_head\(\): kind= is renamed head="):
        assert isinstance(make_head(kind="logreg", seed=1), LinearHead)
    with pytest.raises(TypeError, match="both head= and its old name kind="):
        make_head("mlp", kind="mlp")
    with pytest.raises(ValueError, match="unknown head 'svm'"):
        make_head("svm")
