"""The classifier factory: native, head and finetune on tiny models; caching; bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.models.training import store

GARDEN = ["cherry", "tree", "garden", "apple", "fruit", "table"]
ANIMALS = ["dogs", "bark", "night", "poodles", "sleep", "king"]


@pytest.fixture(scope="module")
def toy_bert_dir(tmp_path_factory):
    """A 2-layer BERT whose WordPiece vocabulary is written out (deterministic, unlike a trained one)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("toy-bert")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *GARDEN, *ANIMALS, "a", "at", "the", "and", "is"]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(str(folder / "vocab.txt"), do_lower_case=True, model_max_length=128)
    torch.manual_seed(0)
    BertModel(
        BertConfig(
            vocab_size=len(words),
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=128,
        )
    ).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _toy(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """A separable task in the tiny tokenizer's vocabulary: garden words vs animal words."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        words, label = (GARDEN, "garden") if i % 2 == 0 else (ANIMALS, "animal")
        rows.append({"text": " ".join(rng.choice(words, size=rng.integers(2, 6))), "label": label})
    return pd.DataFrame(rows)


def _toy_pairs(n: int = 120, seed: int = 1) -> pd.DataFrame:
    """Pairs labelled by whether both texts are from the same topic."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        a = GARDEN if rng.random() < 0.5 else ANIMALS
        b = a if i % 2 == 0 else (ANIMALS if a is GARDEN else GARDEN)
        rows.append(
            {"text": " ".join(rng.choice(a, 3)), "text_pair": " ".join(rng.choice(b, 3)), "label": int(i % 2 == 0)}
        )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("head", ["linear", "mlp"])
def test_head_learns_a_separable_task_and_reports_its_baseline(toy_bert_dir, head):
    train = _toy()
    clf = models.classifier(
        str(toy_bert_dir),
        train,
        how="head",
        head=head,
        heldout_fraction=0.25,
        device="cpu",
        epochs=40 if head == "mlp" else None,
    )
    t = clf.training
    assert (t.how, t.head, t.n_train, t.n_heldout) == ("head", head, 90, 30)
    assert t.heldout_accuracy > 0.9 and t.majority_baseline == 0.5
    assert clf.labels == ["animal", "garden"]
    probs = clf.classify(["cherry tree garden", "dogs bark at night"])
    np.testing.assert_allclose(probs.sum(1), 1.0, atol=1e-6)
    assert probs[0].argmax() == 1 and probs[1].argmax() == 0
    lo = clf.log_odds(["cherry tree garden"], "garden")
    np.testing.assert_allclose(lo, np.log(probs[0, 1] / probs[0, 0]), rtol=1e-5)
    assert clf.score(["apple"], "GARDEN").shape == (1,)  # label names match case-insensitively


def test_finetune_learns_the_task_on_tiny_bert_and_second_call_reloads(toy_bert_dir):
    train = _toy(seed=2)
    kwargs = dict(how="finetune", heldout_fraction=0.25, epochs=8, lr=2e-3, batch_size=16, device="cpu", seed=0)
    clf = models.classifier(str(toy_bert_dir), train, **kwargs)
    assert not clf.training.from_cache and clf.training.seconds > 0  # trained here
    assert models.classifier(str(toy_bert_dir), train, **kwargs) is clf  # the in-process memo
    assert clf.training.heldout_accuracy > 0.9 and len(clf.training.train_log) == 8
    probs = clf.classify(["cherry garden", "poodles sleep"])
    store._MEMO.clear()  # as in a new process: only the disk cache is left
    again = models.classifier(str(toy_bert_dir), train, **kwargs)
    assert again.training.from_cache and again.training.seconds == clf.training.seconds  # reloaded, not trained
    assert again.training.heldout_accuracy == clf.training.heldout_accuracy
    np.testing.assert_allclose(again.classify(["cherry garden", "poodles sleep"]), probs, atol=1e-6)
    assert again.net is None  # cached outputs: the network was not even rebuilt
    np.testing.assert_allclose(again.classify(["apple table"]), clf.classify(["apple table"]), atol=1e-5)
    other = models.classifier(str(toy_bert_dir), train, **{**kwargs, "seed": 1, "epochs": 1})
    assert not other.training.from_cache and other.training.key != clf.training.key


def test_pairs_head_and_cross_encoder(toy_bert_dir):
    pairs = _toy_pairs()
    head = models.classifier(str(toy_bert_dir), pairs, how="head", device="cpu", heldout_fraction=0.25)
    assert head.training.heldout_accuracy > 0.8
    fresh = _toy_pairs(n=60, seed=7)
    p = head.classify(fresh["text"], fresh["text_pair"])
    assert p.shape == (60, 2) and np.mean(p.argmax(1) == fresh["label"]) > 0.8
    ft = models.classifier(
        str(toy_bert_dir),
        (pairs["text"], pairs["text_pair"], pairs["label"]),
        how="finetune",
        epochs=1,
        batch_size=32,
        device="cpu",
    )
    assert ft.labels == [0, 1] and ft.classify(["cherry"], ["dogs"]).shape == (1, 2)
    with pytest.raises(ValueError, match="trained on text pairs"):
        ft.classify(["cherry"])


def test_minilm_finetune_and_static_table_finetune_run():
    train = _toy(n=24, seed=3)
    clf = models.classifier("minilm", train, how="finetune", epochs=1, batch_size=12, heldout_fraction=0, device="cpu")
    assert clf.training.heldout_accuracy is None and clf.classify(["a cherry tree"]).shape == (1, 2)
    static = models.classifier(
        "minilm-static", train, how="finetune", epochs=3, batch_size=8, device="cpu", heldout_fraction=0.25
    )
    assert static.training.n_train == 18 and static.classify(["dogs bark"]).shape == (1, 2)
    frozen = models.load("minilm-static").embed(["dogs bark"])
    tuned = static.embed(["dogs bark"])
    assert tuned.shape == frozen.shape and not np.allclose(tuned, frozen)  # its table was tuned
    assert clf.embed(["a cherry tree"]).shape == (1, 384)


def test_frozen_features_are_computed_once_for_several_heads_and_seeds(toy_bert_dir):
    encoder = models.load(str(toy_bert_dir), device="cpu")
    train = _toy(n=60, seed=4)
    models.classifier(encoder, train, how="head", seed=0)
    calls = encoder.calls
    models.classifier(encoder, train, how="head", seed=1)
    models.classifier(encoder, train, how="head", head="mlp", epochs=2, seed=2)
    assert encoder.calls == calls


def test_native_classifier_measures_accuracy_and_reorders_labels(tiny_roberta_nli_dir):
    data = (["a tree", "a dog"], ["a cherry tree", "a cat"], ["ENTAILMENT", "neutral"])
    clf = models.classifier(str(tiny_roberta_nli_dir), data, labels=["ENTAILMENT", "NEUTRAL", "CONTRADICTION"])
    assert clf.training.how == "native" and clf.training.n_heldout == 2
    base = models.load(str(tiny_roberta_nli_dir))
    np.testing.assert_allclose(clf.classify(data[0], data[1]), base.classify(data[0], data[1])[:, [2, 1, 0]])


def test_bad_input_names_the_model_and_what_would_work(toy_bert_dir):
    name = str(toy_bert_dir)
    with pytest.raises(ValueError, match="single class"):
        models.classifier(name, (["a", "b"], ["x", "x"]), how="head")
    with pytest.raises(ValueError, match="3 texts, 2 labels"):
        models.classifier(name, (["a", "b", "c"], ["x", "y"]), how="head")
    with pytest.raises(ValueError, match="unknown how"):
        models.classifier(name, (["a", "b"], ["x", "y"]), how="frozen")
    with pytest.raises(ValueError, match="unknown head.*linear"):
        models.classifier(name, (["a", "b"], ["x", "y"]), head="forest")
    with pytest.raises(ValueError, match="'z'.*labels="):
        models.classifier(name, (["a", "b", "c"], ["x", "y", "z"]), how="head", labels=["x", "y"])
    with pytest.raises(ValueError, match=r"vader.*cannot be fine-tuned.*minilm"):
        models.classifier("vader", (["good", "bad"], ["positive", "negative"]), how="finetune")
    with pytest.raises(ValueError, match=r"glove-50d.*cannot be fine-tuned.*how='head' on glove-50d"):
        models.classifier("glove-50d", (["good", "bad"], ["positive", "negative"]), how="finetune")
    with pytest.raises(ValueError, match=r"vader.*no sentence embeddings.*native"):
        models.classifier("vader", (["good", "bad"], ["positive", "negative"]), how="head")
    with pytest.raises(ValueError, match=r"vader has no label 'neutral'"):
        models.classifier("vader", (["good", "bad"], ["positive", "neutral"]), labels=["positive", "neutral"])
    with pytest.raises(ValueError, match="columns 'text' and 'label'"):
        models.classifier(name, pd.DataFrame({"sentence": ["a"], "label": [1]}), how="head")


@pytest.mark.parametrize("how,head", [("finetune", "linear"), ("head", "mlp")])
def test_init_continues_training_from_a_trained_classifier(toy_bert_dir, how, head):
    """``init=`` starts from the trained weights: the first model is unchanged, the continued one moves, and
    a one-class continuation set (a few-shot D_few) is accepted only when continuing."""
    train, probe = _toy(n=60, seed=5), ["cherry garden", "poodles sleep", "apple bark"]
    kw = dict(how=how, head=head, heldout_fraction=0, device="cpu", epochs=2, seed=0)
    first = models.classifier(str(toy_bert_dir), train, **kw)
    before = first.classify(probe)
    few = train[train["label"] == "garden"].head(4)
    with pytest.raises(ValueError, match="single class"):
        models.classifier(str(toy_bert_dir), few, **kw)
    more = models.classifier(str(toy_bert_dir), few, init=first, **kw)
    assert more.labels == first.labels and more.identity != first.identity
    np.testing.assert_allclose(first.classify(probe), before)  # the init itself is untouched
    assert not np.allclose(more.classify(probe), before, atol=1e-4)  # training went on
    assert models.classifier(str(toy_bert_dir), few, init=first, **kw) is more  # cached by the init's identity
    zero = models.classifier(str(toy_bert_dir), few, init=first, **{**kw, "epochs": 1})
    assert zero is not more


def test_init_errors_name_what_works(toy_bert_dir):
    train = _toy(n=40, seed=6)
    linear = models.classifier(str(toy_bert_dir), train, how="head", heldout_fraction=0, device="cpu")
    with pytest.raises(ValueError, match="head='mlp' or how='finetune'"):
        models.classifier(str(toy_bert_dir), train, how="head", init=linear, device="cpu")
    with pytest.raises(ValueError, match="init must be a classifier from classifier"):
        models.classifier(str(toy_bert_dir), train, how="finetune", init=linear, device="cpu")
    with pytest.raises(ValueError, match="differ from init"):
        models.classifier(
            str(toy_bert_dir),
            train,
            how="head",
            head="mlp",
            init=models.classifier(
                str(toy_bert_dir), train, how="head", head="mlp", heldout_fraction=0, device="cpu", epochs=1
            ),
            labels=["garden", "animal"],
            device="cpu",
        )


def _base_word_embeddings(folder) -> np.ndarray:
    from transformers import AutoModel

    return AutoModel.from_pretrained(folder).get_input_embeddings().weight.detach().numpy().copy()


def test_finetune_freezes_word_embeddings_by_default_and_trains_them_when_asked(toy_bert_dir):
    from mtlib.models.training.networks import word_embeddings

    train = _toy(seed=4)
    kwargs = dict(how="finetune", heldout_fraction=0.25, epochs=2, lr=2e-3, batch_size=16, device="cpu", seed=0)
    base = _base_word_embeddings(toy_bert_dir)
    frozen = models.classifier(str(toy_bert_dir), train, **kwargs)
    assert frozen.training.settings["train_embeddings"] is False
    after = word_embeddings(frozen.net).weight.detach().numpy()
    np.testing.assert_array_equal(after, base)  # bit-identical: no gradient, no AdamW step or weight decay
    moved = frozen.net.body.encoder.layer[1].attention.self.query.weight.detach().numpy()
    from transformers import AutoModel

    query = AutoModel.from_pretrained(toy_bert_dir).encoder.layer[1].attention.self.query.weight.detach().numpy()
    assert not np.allclose(moved, query)  # the rest of the encoder was trained
    trained = models.classifier(str(toy_bert_dir), train, train_embeddings=True, **kwargs)
    assert trained.training.settings["train_embeddings"] is True
    assert trained.training.key != frozen.training.key and trained.identity != frozen.identity  # in the identity
    assert not trained.training.from_cache
    assert np.abs(word_embeddings(trained.net).weight.detach().numpy() - base).max() > 1e-4  # trained
    store._MEMO.clear()  # a new process: each setting reloads its own cache entry, not the other's
    again = models.classifier(str(toy_bert_dir), train, **kwargs)
    assert again.training.from_cache and again.training.key == frozen.training.key


def _query(net_or_folder, layer: int) -> np.ndarray:
    from transformers import AutoModel

    body = AutoModel.from_pretrained(net_or_folder) if not hasattr(net_or_folder, "body") else net_or_folder.body
    return body.encoder.layer[layer].attention.self.query.weight.detach().numpy().copy()


def test_finetune_trains_every_block_by_default_and_only_the_top_ones_when_asked(toy_bert_dir):
    from mtlib.models.training.networks import freeze_lower_layers

    train = _toy(seed=5)
    kwargs = dict(how="finetune", heldout_fraction=0.25, epochs=2, lr=2e-3, batch_size=16, device="cpu", seed=0)
    every = models.classifier(str(toy_bert_dir), train, **kwargs)
    assert "train_layers" not in every.training.settings  # the default keeps the keys of earlier fine-tunes
    assert not np.allclose(_query(every.net, 0), _query(toy_bert_dir, 0))
    top = models.classifier(str(toy_bert_dir), train, train_layers=1, **kwargs)
    assert top.training.settings["train_layers"] == 1 and top.training.key != every.training.key
    np.testing.assert_array_equal(_query(top.net, 0), _query(toy_bert_dir, 0))  # below the top block: untouched
    assert not np.allclose(_query(top.net, 1), _query(toy_bert_dir, 1))
    from transformers import AutoModel

    base = AutoModel.from_pretrained(toy_bert_dir).embeddings.position_embeddings.weight.detach().numpy()
    position = top.net.body.embeddings.position_embeddings.weight.detach().numpy()
    np.testing.assert_array_equal(position, base)  # the embeddings under a frozen block are frozen too
    assert freeze_lower_layers(every.net, 9) == (2, 2) and freeze_lower_layers(every.net, 1) == (1, 2)
    with pytest.raises(ValueError, match="train_layers must be a whole number of top blocks"):
        models.classifier(str(toy_bert_dir), train, train_layers=0, **kwargs)


def test_static_table_trains_by_default_and_freezes_when_asked():
    train = _toy(n=24, seed=3)
    kwargs = dict(how="finetune", epochs=1, batch_size=8, device="cpu", heldout_fraction=0.25)
    tuned = models.classifier("minilm-static", train, **kwargs)
    assert tuned.training.settings["train_embeddings"] is True  # the table is the whole encoder
    kept = models.classifier("minilm-static", train, train_embeddings=False, **kwargs)
    assert kept.training.settings["train_embeddings"] is False and kept.training.key != tuned.training.key
    frozen = models.load("minilm-static").embed(["dogs bark"])
    np.testing.assert_allclose(kept.embed(["dogs bark"]), frozen, atol=1e-6)  # a head on the untouched table


def test_train_embeddings_must_be_a_bool(toy_bert_dir):
    with pytest.raises(ValueError, match="train_embeddings must be True, False or None"):
        models.classifier(str(toy_bert_dir), _toy(), how="finetune", train_embeddings="yes", device="cpu")


def test_fit_leaves_frozen_parameters_out_and_uses_the_fused_update():
    import torch

    from mtlib.models.training.loop import fit

    x, y = torch.randn(40, 3), torch.randint(0, 2, (40,))
    results = {}
    for fused in (False, True):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
        net[0].weight.requires_grad_(False)
        before = net[0].weight.detach().clone()
        log = fit(
            net,
            40,
            lambda m, idx, dev: torch.nn.functional.cross_entropy(m(x[idx]), y[idx]),
            epochs=3,
            batch_size=8,
            lr=1e-2,
            weight_decay=0.1,
            fused=fused,
        )
        assert torch.equal(net[0].weight, before) and log.seconds > 0  # frozen: untouched, even by weight decay
        results[fused] = net[1].weight.detach().clone()
    torch.testing.assert_close(results[True], results[False], atol=1e-5, rtol=1e-5)  # same update, other kernel
