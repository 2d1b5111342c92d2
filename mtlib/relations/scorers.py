"""What a relation calls to score texts: the scorer protocol, with no model library behind it.

A relation never loads a model. It takes a *scorer*, anything that maps a
list of texts to numbers:

- a function ``texts -> scores`` (shape ``(n,)``), ``texts -> probs``
  (``(n, k)`` class probabilities) or ``texts -> embeddings`` (``(n, d)``);
- an object with ``score(texts) -> (n,)``;
- a model with ``classify(texts) -> (n, k)`` and ``labels`` (and ``embed``
  for the similarity property), as every :class:`mtlib.models.Model` has.

Turning a registry name (``"vader"``), a scikit-learn pipeline or a
transformers pipeline into a scorer is the caller's job, one wing up:
``mtlib.models.load("vader")`` or ``mtlib.models.adapters.wrap(pipeline)``;
:mod:`mtlib.suite` and :func:`mtlib.testing.assert_relation` do it for you.
So ``import mtlib.relations`` needs numpy, pandas and scipy only.

Every output a scorer returns is checked where it comes in
(:func:`unique_outputs`): one row per text, numbers only, and no NaN or
infinity (refused with the count and the first text that produced one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mtlib.relations.errors import MtlibInputError, check_texts, refuse

__all__ = ["Scorer", "as_scorer", "unique_outputs"]

#: What a relation may ask a scorer for: a score per text, class probabilities, or an embedding.
NEEDS = ("score", "probs", "embedding")


@runtime_checkable
class Scorer(Protocol):
    """A function ``texts -> array``: ``(n,)`` scores, ``(n, k)`` class probabilities or ``(n, d)`` embeddings."""

    def __call__(self, texts: list[str]) -> Any: ...  # pragma: no cover - a protocol


def positive_column(labels: Sequence[Any], positive_label: Any = None, owner: str = "the model") -> int:
    """The column read as the score: ``positive_label``, else ``"positive"``, else the last class.

    ``positive_label`` matches exactly first, then case-insensitively.

    Raises:
        MtlibInputError: ``positive_label`` is not one of ``labels``.

    Example:
        >>> positive_column(["NEG", "POS"]), positive_column(["neg", "Positive", "neutral"])
        (1, 1)
    """
    if positive_label is None:
        lower = [str(label).lower() for label in labels]
        return lower.index("positive") if "positive" in lower else len(lower) - 1
    for i, label in enumerate(labels):
        if label == positive_label and type(label) is type(positive_label):
            return i
    lower = [str(label).lower() for label in labels]
    if str(positive_label).lower() in lower:
        return lower.index(str(positive_label).lower())
    raise MtlibInputError(
        f"{owner} has no label {positive_label!r}; its labels are {list(labels)}", argument="positive_label"
    )


_HOW = "a scorer: a function texts -> scores, an object with score(texts), or a model with classify(texts) and labels"


def _needs_wrapping(model: Any) -> bool:
    """An sklearn estimator or a transformers pipeline: an mtlib model adapter makes it a scorer."""
    return hasattr(model, "predict_proba") or type(model).__module__.startswith(("sklearn", "transformers"))


def _advice(model: Any) -> str:
    """What to pass instead of ``model`` (a name, an sklearn or transformers object)."""
    if isinstance(model, str):
        return (
            f"; a registry name is loaded by the caller: mtlib.models.load({model!r}) "
            f"(or run it through mtlib.suite / mtlib.testing, which load names)"
        )
    if _needs_wrapping(model):
        return "; wrap it first: mtlib.models.adapters.wrap(obj)"
    return ""


def as_scorer(model: Any, needs: str = "score", *, positive_label: Any = None) -> Callable[[list[str]], Any]:
    """A ``texts -> array`` function from a scorer (see the module docstring).

    Args:
        model: A function, an object with ``score(texts)``, or a model with
            ``classify(texts)`` and ``labels`` (``embed(texts)`` for embeddings).
        needs: ``"score"`` (``(n,)``: the positive class's probability, else
            the last class's), ``"probs"`` (``(n, k)``) or ``"embedding"`` (``(n, d)``).
        positive_label: The class read as the score (default: the model's
            ``positive_label``, else ``"positive"``, else the last class).

    Raises:
        MtlibInputError: anything else, with what to pass instead (a registry
            name or an sklearn pipeline: load or wrap it with :mod:`mtlib.models`).
    """
    if needs not in NEEDS:
        raise refuse("as_scorer", "needs", f"one of {list(NEEDS)}", needs)
    if hasattr(model, "classify") and hasattr(model, "labels"):
        if needs == "embedding":
            return lambda texts: model.embed(texts)
        labels = list(model.labels)
        if not labels:
            raise MtlibInputError(
                f"as_scorer: {model!r} has no classes; make a classifier with mtlib.models.classifier(...) "
                f"or pass a scoring function",
                argument="model",
            )
        if needs == "probs":
            return lambda texts: model.classify(texts)
        label = positive_label if positive_label is not None else getattr(model, "positive_label", None)
        col = positive_column(labels, label, str(getattr(model, "name", type(model).__name__)))
        return lambda texts: np.asarray(model.classify(texts), dtype=float)[:, col]
    if _needs_wrapping(model) or isinstance(model, (str, bytes, type)):
        pass  # a name is loaded, an sklearn estimator (score(X, y)) or a transformers pipeline wrapped, by the caller
    elif not callable(model) and callable(getattr(model, "score", None)):
        score: Callable[[list[str]], Any] = model.score
        return score
    elif callable(model):
        fn: Callable[[list[str]], Any] = model
        return fn
    shown = " ".join(repr(model).split())[:60]
    raise MtlibInputError(
        f"as_scorer: model must be {_HOW}, got {type(model).__name__} {shown}{_advice(model)}",
        argument="model",
        expected=_HOW,
    )


def check_outputs(
    raw: Any, texts: Sequence[Any], where: str, what: str = "the scorer", ndim: tuple[int, ...] = (1, 2)
) -> np.ndarray:
    """A scorer's output as a float array, one row per text, every value finite.

    Raises:
        MtlibInputError: not numbers (e.g. label strings), the wrong number of
            rows or dimensions, or NaN / infinite values: the message gives
            how many texts got one and the first such text.

    Example:
        >>> try:
        ...     check_outputs([0.5, float("nan")], ["fine", "broken"], "demo")
        ... except MtlibInputError as err:
        ...     print(err)
        demo: the scorer returned NaN or infinite values for 1 of 2 texts; the first: 'broken'
    """
    expected = f"a {' or '.join(f'{d}-D' for d in ndim)} array of numbers, one row per text"
    if raw is None or isinstance(raw, (str, bytes, dict)):
        raise refuse(where, f"the output of {what}", expected, raw)
    try:
        arr = np.asarray(raw)
    except (TypeError, ValueError):  # ragged rows
        raise refuse(where, f"the output of {what}", expected, raw) from None
    nones = [i for i, row in enumerate(arr.reshape(len(arr), -1)) if None in list(row)] if arr.ndim else []
    if arr.dtype == object and nones and len(arr) == len(texts):
        raise MtlibInputError(
            f"{where}: {what} must return numbers (a score or class probabilities per text), got None for "
            f"{len(nones):,} of {len(texts):,} texts; the first: {str(texts[nones[0]])[:80]!r}",
            argument="scorer",
            expected=expected,
        )
    if arr.dtype.kind not in "biuf":
        flat = arr.ravel()
        first = flat[0].item() if len(flat) and isinstance(flat[0], np.generic) else (flat[0] if len(flat) else None)
        raise MtlibInputError(
            f"{where}: {what} must return numbers (scores or class probabilities), got {arr.dtype} values "
            f"such as {first!r}; a classifier that returns label names needs its probabilities "
            f"(predict_proba) or a score per text",
            argument="scorer",
            expected=expected,
        )
    if arr.ndim not in ndim or len(arr) != len(texts):
        raise MtlibInputError(
            f"{where}: {what} returned shape {arr.shape} for {len(texts)} texts; expected {expected}",
            argument="scorer",
            expected=expected,
        )
    arr = arr.astype(float)
    finite = np.isfinite(arr).reshape(len(arr), -1).all(axis=1)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise MtlibInputError(
            f"{where}: {what} returned NaN or infinite values for {len(bad):,} of {len(texts):,} texts; "
            f"the first: {str(texts[int(bad[0])])[:80]!r}",
            argument="scorer",
            expected="finite numbers",
        )
    return arr


def unique_outputs(
    texts: Sequence[str], fn: Callable[[list[str]], Any], where: str = "unique_outputs", ndim: tuple[int, ...] = (1, 2)
) -> np.ndarray:
    """Call ``fn`` once on the unique texts and return its checked rows in the order of ``texts``.

    Model adapters already deduplicate and cache; this helper gives the same
    guarantee to any scoring function a user passes in.

    Example:
        >>> calls = []
        >>> unique_outputs(["a", "bb", "a"], lambda t: calls.append(t) or [len(x) for x in t]).tolist(), calls
        ([1.0, 2.0, 1.0], [['a', 'bb']])
    """
    texts = check_texts(texts, where, "texts")
    uniq = list(dict.fromkeys(texts))
    out = check_outputs(fn(uniq), uniq, where, ndim=ndim)
    where_of = {t: i for i, t in enumerate(uniq)}
    return out[[where_of[t] for t in texts]] if texts else out[:0]
