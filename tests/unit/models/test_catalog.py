"""``mtlib.models.available()``: the registry, then the classifiers trained and stored in the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mtlib import models
from mtlib.models import factory
from mtlib.utils.context import RunContext
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
    elsewhere = models.available(cache_dir=tmp_path / "another-run")  # a run's own folder, not $MTLIB_CACHE
    assert not elsewhere["trained"].any() and len(elsewhere) == len(before)
    context = RunContext.resolve(device="cpu", cache_dir=tmp_path / "cache", environ={})
    assert models.available(cache_dir=context.cache_dir)["trained"].sum() == 1


def test_importing_the_model_wing_defers_pandas_until_a_table_is_asked_for():
    """``import mtlib.models`` registers the families without pandas; ``registered()`` imports it when called."""
    root = Path(__file__).resolve().parents[3]
    code = (
        "import sys, json, mtlib.models as m; before = 'pandas' in sys.modules; table = m.registered(); "
        "print(json.dumps([before, 'pandas' in sys.modules, type(table).__name__, 'minilm' in table.index]))"
    )
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(proc.stdout) == [False, True, "DataFrame", True], proc.stderr[-2000:]
