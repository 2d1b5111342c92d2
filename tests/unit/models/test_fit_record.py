"""A fit's record reads typed (``training.epochs``), its defaults written once; the dict access warns."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest

from mtlib.models.capabilities import Capabilities
from mtlib.models.training.heads import MLPHead
from mtlib.models.training.resolved import cache_settings
from mtlib.models.training.settings import (
    FINETUNE_BATCH,
    FINETUNE_EPOCHS,
    ClassifierSettings,
    FitRecord,
    Training,
    resolved_hyper,
)

CAPS = Capabilities(finetune="encoder", finetune_lr=2e-5)


def _training(how: str, s: ClassifierSettings) -> Training:
    keyed = cache_settings(how, s, CAPS, [0, 1], pairs=False, valid_hash=None)
    return Training(how, s.head, keyed, s.seed, None, None)


def test_the_record_reads_typed_with_the_values_of_the_cache_key_dict():
    s = ClassifierSettings(eval_every=0.5, patience=2, select_by="macro_f1", head_lr=1e-3)
    t = _training("finetune", s)
    keyed = t.recorded()
    assert (t.epochs, t.lr, t.batch_size) == (keyed["epochs"], keyed["lr"], keyed["batch_size"]) == (3, 2e-5, 32)
    assert (t.eval_every, t.patience, t.select_by, t.head_lr) == (0.5, 2, "macro_f1", 1e-3)
    assert (t.pooling, t.max_length, t.pairs, t.heldout_fraction) == ("mean", 128, False, 0.1)
    assert (t.architecture, t.train_layers, t.train_embeddings) == ("cross", "all", False)


def test_without_early_stopping_nothing_was_selected():
    t = _training("finetune", ClassifierSettings())
    assert t.select_by is None and t.eval_every is None and t.patience is None


def test_an_older_record_lacking_a_setting_reads_its_one_default():
    old = FitRecord({"epochs": 3, "lr": 2e-5, "batch_size": 32, "pairs": True})
    defaults = ClassifierSettings()
    assert old.architecture == defaults.architecture and old.class_weight == defaults.class_weight
    assert old.heldout_fraction == defaults.heldout_fraction and old.train_layers == "all"


def test_reading_the_settings_dict_by_key_warns_but_still_works_and_json_is_unchanged():
    t = _training("head", ClassifierSettings(head="mlp"))
    with pytest.warns(DeprecationWarning, match=r"training\.epochs"):
        assert t.settings["epochs"] == t.epochs
    with pytest.warns(DeprecationWarning, match=r"training\.select_by"):
        assert t.settings.get("select_by") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the record's own uses (JSON, copies) do not warn
        body = json.loads(json.dumps(dataclasses.asdict(t)))
        assert body["settings"] == dict(t.settings) == t.recorded()
        assert Training(**body).recorded() == t.recorded()


def test_the_training_defaults_are_written_once():
    """The factory's MLP defaults are MLPHead's; a fine-tune's are the module's constants."""
    head = MLPHead()
    assert resolved_hyper("head", ClassifierSettings(head="mlp"), CAPS) == (head.epochs, head.lr, head.batch_size)
    assert resolved_hyper("finetune", ClassifierSettings(), CAPS) == (FINETUNE_EPOCHS, 2e-5, FINETUNE_BATCH)
