"""Fine-tuning options: early stopping, a fresh head's own learning rate, balanced loss, the siamese pair network
and its matrix-form scoring of every ordered pair (tiny models built from a config; nothing downloaded)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.models import ClassifierSettings
from mtlib.models.capabilities import Capabilities
from mtlib.models.training import store
from mtlib.models.training.finetune import _class_weights, _groups, held_score
from mtlib.models.training.loop import EarlyStopping, TrainLog, fit
from mtlib.models.training.resolved import cache_settings
from mtlib.models.training.settings import finetune_extras
from mtlib.models.training.siamese import linear_layer
from tests.conftest import save_tiny_bert

GARDEN = ["cherry", "tree", "garden", "apple", "fruit", "table"]
ANIMALS = ["dogs", "bark", "night", "poodles", "sleep", "king"]


@pytest.fixture(scope="module")
def word_bert_dir(tmp_path_factory):
    """A 2-layer BERT whose WordPiece vocabulary is written out (each test word one token)."""
    from transformers import BertTokenizerFast

    folder = tmp_path_factory.mktemp("word-bert")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *GARDEN, *ANIMALS, "a", "the"]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(str(folder / "vocab.txt"), do_lower_case=True, model_max_length=128)
    return save_tiny_bert(folder, tokenizer)


def _word_pairs(n: int = 160, seed: int = 0) -> pd.DataFrame:
    """Three classes of word pairs: same topic, other topic, and ``a``/``the`` with any word (a minority)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        a = GARDEN if rng.random() < 0.5 else ANIMALS
        if i % 5 == 0:
            rows.append((str(rng.choice(["a", "the"])), str(rng.choice(a)), "article"))
            continue
        b = a if i % 2 == 0 else (ANIMALS if a is GARDEN else GARDEN)
        rows.append((str(rng.choice(a)), str(rng.choice(b)), "same" if a is b else "other"))
    return pd.DataFrame(rows, columns=["text", "text_pair", "label"])


def test_defaults_keep_every_old_cache_key_and_new_options_change_it():
    caps = Capabilities(finetune="encoder")
    plain = cache_settings("finetune", ClassifierSettings(), caps, [0, 1], True, None)
    assert finetune_extras(ClassifierSettings()) == {} and "architecture" not in plain
    for option in (
        {"class_weight": "balanced"},
        {"head_lr": 1e-3},
        {"eval_every": 0.5},
        {"architecture": "siamese"},
    ):
        asked = cache_settings("finetune", ClassifierSettings(**option), caps, [0, 1], True, None)
        assert asked != plain and set(option) <= set(asked)
    head = cache_settings("head", ClassifierSettings(eval_every=0.5, head_lr=1e-3), caps, [0, 1], True, None)
    assert "eval_every" not in head and "head_lr" not in head  # a head on frozen features ignores them


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("head_lr", 0.0, "head_lr must be a finite number > 0"),
        ("eval_every", -0.5, "eval_every must be a finite number > 0"),
        ("patience", 0, "patience must be a whole number"),
        ("select_by", "loss", "select_by must be one of accuracy, macro_f1"),
        ("architecture", "bi", "architecture must be one of cross, siamese"),
    ],
)
def test_bad_fine_tuning_options_name_the_option(option, value, match):
    with pytest.raises(ValueError, match=match):
        ClassifierSettings.from_options("m", {option: value})


def test_early_stopping_without_held_out_data_is_refused(word_bert_dir):
    data = _word_pairs(40)
    with pytest.raises(ValueError, match="eval_every .* needs held-out data"):
        models.classifier(
            str(word_bert_dir),
            (data["text"], data["text_pair"], data["label"]),
            how="finetune",
            eval_every=0.5,
            heldout_fraction=0,
            epochs=1,
            device="cpu",
            use_cache=False,
        )


def test_helpers_balance_classes_split_the_head_and_score_macro_f1():
    import torch

    w = _class_weights(np.array([0, 0, 0, 1]), 3).numpy()
    np.testing.assert_allclose(w, [4 / 9, 4 / 3, 1.0])  # n / (k n_c); an absent class keeps weight 1
    net = torch.nn.Sequential()
    net.body, net.head = torch.nn.Linear(3, 3), torch.nn.Linear(3, 2)
    groups = _groups(net, 1e-3)
    assert groups is not None and groups[0]["lr"] == 1e-3 and "lr" not in groups[1]
    assert {id(p) for p in groups[0]["params"]} == {id(p) for p in net.head.parameters()}
    assert {id(p) for p in groups[1]["params"]} == {id(p) for p in net.body.parameters()}
    assert _groups(net, None) is None
    assert held_score(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), "macro_f1") == pytest.approx(
        (1 + 2 / 3 + 2 / 3) / 3
    )


def test_fit_keeps_the_best_state_and_stops_after_patience():
    import torch

    torch.manual_seed(0)
    module = torch.nn.Linear(1, 1, bias=False)
    scores = iter([0.1, 0.5, 0.3, 0.2, 0.9])
    states = []

    def evaluate(m):
        states.append(float(m.weight.detach()))
        return next(scores)

    x, y = torch.ones(8, 1), torch.full((8, 1), 3.0)
    stopping = EarlyStopping(evaluate, every=0.5, patience=2)
    log = fit(
        module,
        8,
        lambda m, idx, dev: ((m(x[idx]) - y[idx]) ** 2).mean(),
        epochs=5,
        batch_size=2,
        lr=0.1,
        device="cpu",
        stopping=stopping,
    )
    assert isinstance(log, TrainLog)
    assert [c[0] for c in log.curve] == [0.5, 1.0, 1.5, 2.0]  # stopped after 2 evaluations without gain
    assert log.best_epoch == 1.0 and len(log.losses) == 2
    assert float(module.weight.detach()) == pytest.approx(states[1])  # the best state, restored


def test_early_stopping_records_the_curve_and_keeps_the_best_held_out_state(word_bert_dir):
    data = _word_pairs()
    kwargs = dict(
        how="finetune",
        architecture="siamese",
        class_weight="balanced",
        epochs=4,
        lr=2e-3,
        head_lr=1e-2,
        eval_every=0.5,
        patience=3,
        heldout_fraction=0.25,
        batch_size=16,
        device="cpu",
    )
    clf = models.classifier(str(word_bert_dir), (data["text"], data["text_pair"], data["label"]), **kwargs)
    t = clf.training
    assert t.valid_curve and t.best_epoch == max(t.valid_curve, key=lambda c: c[1])[0]
    assert t.heldout_accuracy == pytest.approx(max(score for _, score in t.valid_curve))  # restored best state
    assert t.settings["architecture"] == "siamese" and t.settings["head_lr"] == 1e-2
    store._MEMO.clear()
    again = models.classifier(str(word_bert_dir), (data["text"], data["text_pair"], data["label"]), **kwargs)
    assert again.training.from_cache and again.training.valid_curve == t.valid_curve
    assert again.training.best_epoch == t.best_epoch


@pytest.mark.parametrize("head", ["linear", "mlp"])
def test_siamese_matrix_form_equals_explicit_pair_calls(word_bert_dir, head):
    data = _word_pairs(80, seed=3)
    clf = models.classifier(
        str(word_bert_dir),
        (data["text"], data["text_pair"], data["label"]),
        how="finetune",
        architecture="siamese",
        head=head,
        hidden=(8,),
        epochs=1,
        lr=1e-3,
        heldout_fraction=0,
        device="cpu",
        use_cache=False,
    )
    assert clf.siamese and (linear_layer(clf.head_module()) is not None) == (head == "linear")
    words = GARDEN + ANIMALS + ["a"]
    logits = models.pair_logit_matrix(clf.head_module(), clf.embed(words), block=5)
    i, j = np.nonzero(np.ones((len(words), len(words)), bool))
    explicit = clf.logits([words[a] for a in i], [words[b] for b in j])
    assert logits.shape == (13, 13, 3)
    np.testing.assert_allclose(logits[i, j], explicit, atol=1e-5)
    with pytest.raises(ValueError, match="classifies text pairs"):
        clf._ensure_net() or clf.net(**clf.encoder.collate(clf.encoder.encode(["cherry"], None)))
