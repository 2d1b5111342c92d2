"""A causal language model as a classifier by prompting (``how="prompt"``): template, verbalisers, calibration.

Intuition: the model answers each input's prompt; the log-probability of each
label's verbaliser (:meth:`mtlib.models.adapters.causal_lm.CausalLMModel.label_logprobs`)
is its raw score, and a softmax over the labels makes it a probability. Raw scores
are biased: a small LM may prefer "positive" to "negative" whatever the review
(the issue measured 6 of 10 right at threshold 0, 9 of 10 calibrated). So a
per-label bias is added, declared and recorded in ``training.settings``:

- ``"bias"`` (default): the bias that maximises the likelihood of the training
  split's labels (a multinomial logistic regression whose only free parameters
  are the intercepts; for two labels, a threshold on the log-odds), fitted on at
  most :data:`CALIBRATION_SIZE` training examples drawn with the seed;
- ``"contextual"``: Zhao et al. (2021), "Calibrate Before Use": minus the
  log-probabilities the model gives a content-free input (``"N/A"`` in every slot),
  so that input scores every label alike; needs no labelled data;
- ``"none"``: the raw scores.

``shots`` examples (drawn with the seed from the training split, left out of
calibration and of the held-out accuracy) go into the prompt's shared prefix.
Every held-out accuracy stands beside its majority baseline (``training``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.base import Model, softmax
from mtlib.models.inference.prompts import PromptPlan, plan, template_for, template_named
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.labelled import parse_labelled, prepare
from mtlib.models.training.settings import ClassifierSettings, Training, json_safe

__all__ = ["PromptClassifier"]

#: At most this many training examples calibrate the bias (drawn with the seed): a small LM scores a few
#: hundred prompts a minute on a 2-core CPU, and 256 examples pin k <= 5 intercepts well.
CALIBRATION_SIZE = 256
#: The content-free input of contextual calibration, in every slot.
CONTENT_FREE = "N/A"


class PromptClassifier(Model):
    """Class probabilities of a causal LM from its label log-probabilities plus a calibration bias.

    Attributes:
        base: The causal LM.
        plan: The prompt plan (template, shots, verbalisers as token ids).
        bias: Added to the label log-probabilities, shape ``(k,)``.
        training: How it was built (``how="prompt"``), its held-out accuracy and majority baseline.
    """

    kind = "prompt-classifier"

    def __init__(self, base: Model, prompt: PromptPlan, bias: np.ndarray, training: Training) -> None:
        super().__init__(base.name, base.identity, base.device, False)
        self.base, self.plan, self.bias, self.training = base, prompt, np.asarray(bias, float), training
        self.labels = list(prompt.labels)
        self.context = base.context

    @property
    def calls(self) -> int:
        """Batches its causal LM has run (the classifier itself runs none)."""
        return self.base.calls

    @calls.setter
    def calls(self, value: int) -> None:
        """Nothing to count: the causal LM counts its own batches."""

    def label_logprobs(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Uncalibrated ``log P(verbaliser | prompt)``, ``(n, k)`` (cached by the base model)."""
        return np.asarray(self.base.label_logprobs(self.plan, texts, text_pairs))  # type: ignore[attr-defined]

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Calibrated scores ``(n, k)``: label log-probabilities plus :attr:`bias`."""
        return self.label_logprobs(texts, text_pairs) + self.bias

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Probabilities over the labels, ``(n, k)``: a softmax of :meth:`logits`."""
        scores = self.logits(texts, text_pairs)
        return softmax(scores) if len(scores) else np.zeros((0, len(self.labels)))


def fit_bias(logprobs: np.ndarray, y: np.ndarray, steps: int = 50) -> np.ndarray:
    """The per-label bias maximising ``sum_i log softmax(logprobs_i + b)[y_i]``, with ``b[0] = 0``.

    A concave problem in ``b``: Newton's method on the free intercepts (a small ridge keeps the Hessian
    invertible when a label never wins), shape ``(k,)``.

    Example:
        >>> lp = np.log([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.6, 0.4]])
        >>> b = fit_bias(lp, np.array([0, 1, 0, 1]))
        >>> bool(abs(softmax(lp + b)[:, 1].mean() - 0.5) < 1e-6)
        True
    """
    k = logprobs.shape[1]
    onehot = np.eye(k)[y]
    b = np.zeros(k)
    for _ in range(steps):
        p = softmax(logprobs + b)
        grad = (onehot - p).sum(0)[1:] - 1e-6 * b[1:]
        hess = -(np.einsum("ni,ij->ij", p, np.eye(k)) - p.T @ p)[1:, 1:] - 1e-6 * np.eye(k - 1)
        step = np.linalg.solve(hess, grad)
        b[1:] -= step
        if np.abs(step).max() < 1e-10:
            break
    return b


def _pick(n: int, size: int, rng: np.random.Generator, exclude: Any = ()) -> np.ndarray:
    pool = np.setdiff1d(np.arange(n), np.asarray(exclude, dtype=int))
    return np.sort(rng.choice(pool, size=min(size, len(pool)), replace=False)) if size else np.zeros(0, int)


def prompt_classifier(base: Model, train: Any, s: ClassifierSettings) -> PromptClassifier:
    """A prompt classifier over ``base`` (a causal LM), calibrated as ``s.calibration`` says.

    ``train`` gives the classes (or ``s.labels``), the shots, the calibration examples and, split off by
    ``s.heldout_fraction`` (or ``s.valid``), the held-out accuracy beside its majority baseline. Without
    ``train``, ``s.labels`` is required and the calibration is ``contextual`` or ``none``.

    Raises:
        ValueError: ``base`` is not a causal LM, no labels, ``bias`` or shots without training data, or a
            template / verbaliser problem (:mod:`mtlib.models.inference.prompts`).
    """
    name, start = base.name, time.perf_counter()
    if not base.capabilities.prompts:
        raise ValueError(
            f"classifier({name!r}, how='prompt'): {name} ({base.kind}) is not a causal language model; "
            "how='prompt' needs one, e.g. 'smollm2-135m'"
        )
    owner = f"classifier({name!r}, how='prompt')"
    if train is None:
        if s.labels is None or s.calibration == "bias" or s.shots:
            raise ValueError(
                f"{owner}: without training data pass labels=[...] and calibration='contextual' or 'none' "
                f"(got calibration={s.calibration!r}, shots={s.shots})"
            )
        template = template_named("sentiment" if s.template is None else s.template, owner)
        texts, pairs, y, classes = [], None, np.zeros(0, int), list(s.labels)
        held: dict[str, Any] | None = None
    else:
        parsed = parse_labelled(train, "train", name)
        template = template_for(s.template, parsed[1] is not None, owner)  # before the split: the clearer error
        task = prepare(parsed, s, name, s.labels)
        texts, pairs, y, classes, held = task.data["texts"], task.data["pairs"], task.data["y"], task.classes, task.held
    rng = np.random.default_rng(s.seed)
    shot_idx = _pick(len(texts), s.shots, rng)
    shots = [(texts[i], pairs[i] if pairs else None, classes[y[i]]) for i in rng.permutation(shot_idx)]
    tokenizer = base.tokenizer  # type: ignore[attr-defined]
    prompt = plan(template, tokenizer, classes, shots=shots, chat=s.chat, verbalisers=s.verbalisers)
    clf = PromptClassifier(base, prompt, np.zeros(len(classes)), Training("prompt", "prompt", {}, s.seed, None, None))
    calib = _pick(len(texts), CALIBRATION_SIZE, rng, exclude=shot_idx) if s.calibration == "bias" else np.zeros(0, int)
    if s.calibration == "bias":
        lp = clf.label_logprobs([texts[i] for i in calib], [pairs[i] for i in calib] if pairs else None)
        clf.bias = fit_bias(lp, y[calib])
    elif s.calibration == "contextual":
        free = clf.label_logprobs([CONTENT_FREE], [CONTENT_FREE] if template.pairs else None)[0]
        clf.bias = -(free - np.logaddexp.reduce(free))
    clf.training.settings = json_safe(
        {
            "how": "prompt",
            "template": template.name,
            "template_key": template.key(),
            "plan_key": prompt.key,
            "chat": s.chat,
            "labels": classes,
            "verbalisers": [tokenizer.decode(list(v)) for v in prompt.verbalisers],
            "pairs": template.pairs,
            "shots": len(shots),
            "calibration": s.calibration,
            "n_calibration": int(len(calib)),
            "bias": [float(b) for b in clf.bias],
            "prefix_tokens": len(prompt.prefix),
            "seed": s.seed,
        }
    )
    clf.training.n_train = int(len(calib))
    if held is not None and len(held["y"]):
        predicted = clf.classify(held["texts"], held["pairs"]).argmax(1)
        clf.training.heldout_accuracy = float(np.mean(predicted == held["y"]))
        clf.training.majority_baseline = majority_baseline(held["y"])
        clf.training.n_heldout = len(held["y"])
    clf.training.seconds = time.perf_counter() - start
    return clf
