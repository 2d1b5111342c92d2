"""Heads on frozen features: seeded, evaluated on held-out data, cached."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.models.factory import train_head
from mtlib.models.training import frozen as probes


def _blobs(n=200, d=8, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + 3.0 * y[:, None]
    return X, np.where(y == 1, "pos", "neg")


@pytest.mark.parametrize("kind", ["logreg", "mlp"])
def test_head_learns_separable_data_and_reports_held_out_accuracy(kind):
    X, y = _blobs()
    head = train_head(X, y, kind=kind, seed=1, epochs=20) if kind == "mlp" else train_head(X, y, kind=kind, seed=1)
    assert head.n_test == 40 and head.n_train == 160
    assert head.accuracy > 0.95
    assert set(head.classes_) == {"neg", "pos"}
    proba = head.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-5)
    assert head.score(X[:5], "pos").shape == (5,)


def test_training_is_seeded():
    X, y = _blobs()
    a = train_head(X, y, kind="mlp", seed=3, epochs=5, use_cache=False)
    b = train_head(X, y, kind="mlp", seed=3, epochs=5, use_cache=False)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-6)


def test_head_is_reloaded_from_the_cache_without_retraining(monkeypatch):
    X, y = _blobs(seed=5)
    first = train_head(X, y, seed=0)

    def refuse(*args, **kwargs):
        raise AssertionError("retrained instead of reading the cache")

    monkeypatch.setattr(probes, "make_head", refuse)
    again = train_head(X, y, seed=0)
    assert again.key == first.key
    np.testing.assert_allclose(again.predict_proba(X), first.predict_proba(X))


def test_damaged_cached_head_is_retrained():
    from mtlib.utils.cache import cache_root

    X, y = _blobs(seed=6)
    head = train_head(X, y, seed=0)
    next((cache_root() / "heads" / head.key).glob("head*.npz")).write_bytes(b"not an npz")  # head.<digest>.npz
    with pytest.warns(UserWarning, match="damaged"):
        again = train_head(X, y, seed=0)
    assert again.accuracy == head.accuracy


def test_explicit_test_set_and_bad_input():
    X, y = _blobs()
    head = train_head(X[:150], y[:150], X_test=X[150:], y_test=y[150:])
    assert head.n_train == 150 and head.n_test == 50
    with pytest.raises(ValueError, match="two classes"):
        train_head(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="unknown head kind"):
        train_head(X, y, kind="forest")
    assert head.predict_proba(np.zeros((0, X.shape[1]))).shape == (0, 2)


@pytest.mark.parametrize("kind", ["logreg", "mlp"])
def test_log_odds_orders_like_the_probability_without_saturating(kind):
    X, y = _blobs(seed=9)
    head = train_head(X, y, kind=kind, seed=0, epochs=5) if kind == "mlp" else train_head(X, y)
    p = head.score(X, "pos")
    lo = head.log_odds(X, "pos")
    np.testing.assert_allclose(lo, np.log(p) - np.log1p(-p), rtol=1e-4, atol=1e-4)
    far = head.log_odds(X[:3] * 0 + 40.0, "pos")
    assert np.all(np.isfinite(far)) and np.all(far > 10)


def test_a_head_caches_in_the_folder_it_is_given_and_only_there(tmp_path, monkeypatch):
    from mtlib.utils.cache import default_cache_dir

    X, y = _blobs(seed=8)
    folder = tmp_path / "run-cache"
    head = train_head(X, y, seed=0, cache_dir=folder)
    assert (folder / "heads" / head.key / "head.json").is_file()
    assert not (default_cache_dir() / "heads" / head.key).exists()  # the default folder is not read or written

    def refuse(*args, **kwargs):
        raise AssertionError("retrained instead of reading the given folder")

    monkeypatch.setattr(probes, "make_head", refuse)
    again = train_head(X, y, seed=0, cache_dir=folder)
    assert again.key == head.key and again.accuracy == head.accuracy


def test_an_mlp_head_trains_with_one_thread_on_a_cpu_and_restores_the_pools(monkeypatch):
    """The MLP head limits its own threads (its many tiny steps); no caller wraps it in limit_threads."""
    import torch
    from threadpoolctl import threadpool_info

    from mtlib.models.training import heads

    seen: list[tuple[int, list[int]]] = []
    real_fit = heads.fit

    def watching(*args, **kwargs):
        seen.append((torch.get_num_threads(), [pool["num_threads"] for pool in threadpool_info()]))
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(heads, "fit", watching)
    before = torch.get_num_threads()
    X, y = _blobs(seed=9)
    train_head(X, y, kind="mlp", seed=0, epochs=2, use_cache=False, device="cpu")
    assert len(seen) == 1 and seen[0][0] == 1 and set(seen[0][1]) <= {1}
    assert torch.get_num_threads() == before
