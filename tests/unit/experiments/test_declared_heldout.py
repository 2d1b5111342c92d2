"""The held-out share and the seed of a notebook's classifiers come from its spec's training blocks.

Notebooks 01, 02 and 03 pass ``settings=`` (a training block, or :meth:`Spec.classifier_settings`) and write
neither ``heldout_fraction=`` nor ``seed=``; the settings, hence every cache key, equal those of the calls that
wrote them, and a profile's (or ``-p``'s) ``heldout_fraction`` in a block takes effect.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import mtrun as runner
from mtlib.experiments import lexical, nli, pss, sentiment, seti
from mtlib.experiments.spec import training_keys
from mtlib.models import ClassifierSettings
from mtlib.models.capabilities import Capabilities
from mtlib.models.training.resolved import ResolvedTraining
from mtlib.models.training.settings import CLASSIFIER_HELDOUT

ROOT = Path(__file__).resolve().parents[3]
CAPS = Capabilities(finetune="encoder", finetune_lr=2e-5)


def _former(block: dict, **call: object) -> ClassifierSettings:
    """The settings the notebooks' former calls made: the block, then ``seed=`` / ``heldout_fraction=`` at the call."""
    return ClassifierSettings.from_options("former", dict(call), ClassifierSettings(**block))


def _key(s: ClassifierSettings, how: str) -> str:
    return ResolvedTraining.resolve(s, how, CAPS, ["a", "b"], False, None).cache_key("toy@1", "d" * 32)


@pytest.mark.parametrize("spec_class", [sentiment.Spec, nli.Spec])
def test_01_and_02_blocks_carry_the_seed_and_the_held_out_share_the_calls_wrote(spec_class):
    spec = spec_class(seed=7)
    former = _former(spec.finetune_settings, seed=7, heldout_fraction=CLASSIFIER_HELDOUT)
    assert spec.finetune() == former and _key(spec.finetune(), "finetune") == _key(former, "finetune")
    head = _former({"head": "linear"}, seed=7, heldout_fraction=CLASSIFIER_HELDOUT)
    assert ClassifierSettings.from_options("x", {"head": "linear"}, spec.classifier_settings()) == head
    assert (spec.classifier_settings().seed, spec.classifier_settings().heldout_fraction) == (7, 0.2)


def test_03_fine_tune_holds_out_nothing_without_early_stopping_else_its_declared_share():
    plain = lexical.Spec(seed=2)
    assert plain.finetune() == _former(plain.finetune_settings, seed=2, heldout_fraction=0)
    stopping = lexical.Spec(seed=2, finetune_settings={"eval_every": 0.5})
    assert stopping.finetune() == _former({"eval_every": 0.5}, seed=2, heldout_fraction=0.15)
    assert (
        lexical.Spec(finetune_settings={"eval_every": 1}, finetune_heldout_fraction=0.3).finetune().heldout_fraction
        == 0.3
    )
    head = lexical.Spec(seed=2).head_training()
    assert head == _former({"head": "linear"}, seed=2, heldout_fraction=CLASSIFIER_HELDOUT)


def test_05_keeps_the_factorys_held_out_share_and_07_holds_out_nothing():
    assert pss.Spec().head_training().heldout_fraction == ClassifierSettings().heldout_fraction
    assert seti.Spec().finetune().heldout_fraction == 0.0  # what 07's calls passed as heldout_fraction=0.0
    assert seti.Spec(seed=4).classifier_settings() == ClassifierSettings(seed=4, heldout_fraction=0.0)
    # a block's own share wins (07's calls no longer pass one over it)
    assert seti.Spec(finetune_settings={"heldout_fraction": 0.2}).finetune().heldout_fraction == 0.2


def test_a_blocks_own_held_out_share_wins_and_is_checked():
    assert "heldout_fraction" in training_keys() and "seed" not in training_keys()
    assert sentiment.Spec(finetune_settings={"heldout_fraction": 0.3}).finetune().heldout_fraction == 0.3
    assert lexical.Spec(finetune_settings={"heldout_fraction": 0.05}).finetune().heldout_fraction == 0.05
    with pytest.raises(ValueError, match=r"finetune_settings: .*heldout_fraction must be in \[0, 1\); got 1.5"):
        sentiment.Spec(finetune_settings={"heldout_fraction": 1.5})
    with pytest.raises(ValueError, match=r"finetune_settings: unknown key\(s\) \['seed'\]"):
        sentiment.Spec(finetune_settings={"seed": 1})


def test_a_held_out_share_given_with_dash_p_reaches_the_fine_tune():
    jobs = runner.build_jobs(
        "smoke", only=["01"], root=ROOT, overrides=["01.finetune_settings={heldout_fraction: 0.3}"]
    )
    assert len(jobs) == 1 and not jobs[0].problems, jobs[0].problems
    spec = sentiment.Spec.from_values(jobs[0].parameters, strict=False)
    assert spec.finetune().heldout_fraction == 0.3


def _calls(code: str, name: str) -> list[str]:
    """The text of every call ``name(...)`` in ``code`` (parentheses matched)."""
    out = []
    for m in re.finditer(re.escape(name) + r"\(", code):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        out.append(code[m.start() : i])
    return out


@pytest.mark.parametrize("stem", ["01_pairwise", "02_nli", "03_cogalex", "07_seti"])
def test_the_notebooks_classifier_calls_write_no_held_out_share_or_seed(stem):
    (path,) = ROOT.glob(f"notebooks/{stem}*.ipynb")
    code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
    calls = _calls(code, "mt_models.classifier")
    assert len(calls) >= 2
    for call in calls:
        assert "heldout_fraction" not in call, call
        # 07 trains run k with seed k (one seed per run, not the spec's): its calls pass it
        assert "seed=" not in call or (stem == "07_seti" and ("seed=run_seed" in call or "seed=seed" in call)), call
    assert "classifier_heldout" not in code and '"heldout_fraction"' not in code  # no dict that passes it either
