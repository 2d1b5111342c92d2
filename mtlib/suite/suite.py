"""A suite: named tests of one's own model, run together, saved as JSON.

Each test is a relation (with its transformations) or an
:class:`~mtlib.suite.mft.MFT`, its inputs (a list of texts, a DataFrame with
a ``text`` column, or a :class:`~mtlib.suite.generate.Template` that makes
them) and a threshold: the highest violation rate allowed. ``suite.run(model)``
evaluates every test on one model and returns a
:class:`~mtlib.suite.result.SuiteResult`. The model is anything
:func:`mtlib.models.adapters.wrap` accepts (a registry name, an mtlib model,
an sklearn pipeline, a transformers text-classification pipeline, a scoring
function); the tests share its outputs through a per-run memo, so every
unique text is scored once per run, and a built-in model's disk cache makes
a rerun free.

What is refused, at ``add`` (before any model runs): a test without inputs,
``None``, bytes, numbers, empty or blank texts among the inputs, a bare string
for a list, a threshold that is not a rate, and, when the suite knows the
model's class names (``Suite(..., labels=[...])``), an MFT label outside them.
What is warned about (at ``add`` and again at ``Suite.load``), and said in a
failing test's result: inputs too few for the threshold to be reachable (the
gate compares the interval's *upper* end, so 40 inputs cannot show a rate
below 0.05 even with no violation: 73 can). At ``run``, before any model call:
an MFT label the model lacks, with the test's name; then NaN or infinite
scores, with the test's name, the count and the first text; a model call past
``timeout`` seconds (:class:`~mtlib.suite.memo.ModelTimeout`).

Example::

    from mtlib.relations import SingleInput, transformations as T
    from mtlib.suite import MFT, Suite, generate

    praise = generate.template("The {adj} film was great.", adj=["new", "long", "French"])
    suite = Suite("sentiment").add("praise is positive", MFT("positive"), praise, threshold=0.2)
    suite.add("typos keep the label", SingleInput("typos", "equivalence", T.Typos()), praise, threshold=0.3)
    suite.run("vader").assert_passes()
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.base import label_position
from mtlib.relations import bootstrap
from mtlib.relations.base import Relation
from mtlib.relations.errors import MtlibInputError, check_count, check_rate, check_texts, refuse
from mtlib.suite.generate import Template
from mtlib.suite.memo import ModelTimeout, ScoreMemo, check_labels
from mtlib.suite.mft import MFT
from mtlib.suite.outcome import TestOutcome
from mtlib.suite.result import SuiteResult
from mtlib.suite.serialize import relation_from_json, relation_to_json, suite_from_json

__all__ = ["Suite", "SuiteTest", "TooFewInputs", "inputs_needed"]

#: Format tag of a saved suite.
FORMAT = "mtlib.suite/1"


class TooFewInputs(UserWarning):
    """A test has too few inputs for its threshold to be reachable, even by a model that never fails."""


def inputs_needed(threshold: float, confidence: float = 0.95) -> int | None:
    """The fewest inputs whose gate can pass ``threshold`` (no violation at all); ``None`` if none can (a
    threshold of 0, or one so close to 0 that it would take more than 2**53 inputs).

    The gate compares the upper end of a 95% interval with the threshold; with
    no violation among n inputs that end is the Wilson bound ``z^2 / (n + z^2)``.

    Example:
        >>> inputs_needed(0.05), inputs_needed(0.10), inputs_needed(0.0)
        (73, 35, None)
    """
    if threshold <= 0:
        return None
    if threshold >= 1:
        return 1
    from scipy.special import ndtri  # the normal quantile, imported on use (scipy.stats is slow to import)

    z2 = float(ndtri(1 - (1 - confidence) / 2)) ** 2
    first = z2 * (1 - threshold) / threshold
    if not first < 2**53:  # a threshold so close to 0 (1e-309) that no suite holds enough inputs, or inf
        return None
    n = max(1, math.floor(first))
    while bootstrap.wilson_interval(0, n, alpha=1 - confidence)[1] > threshold:
        n += 1
    return n


def too_few_reason(n: int, threshold: float) -> str:
    """Why ``n`` inputs cannot pass ``threshold`` even with no violation, in one line (``""`` when they can).

    Example:
        >>> too_few_reason(10, 0.05)
        'too few inputs: needs at least 73 inputs for the gate at 0.05; has 10'
        >>> too_few_reason(80, 0.05)
        ''
    """
    needed = inputs_needed(threshold)
    if needed is not None and n >= needed:
        return ""
    if needed is None:
        return f"too few inputs: no number of inputs can pass the gate at {threshold:g}; has {n}"
    return f"too few inputs: needs at least {needed} inputs for the gate at {threshold:g}; has {n}"


@dataclass
class SuiteTest:
    """One named test: a relation or MFT, its inputs (texts or a template), its threshold, the inputs' labels."""

    __test__ = False  # not a pytest test class

    name: str
    relation: Relation | MFT
    inputs: list[str] | Template
    threshold: float
    labels: list[Any] | None = None

    def texts(self) -> list[str]:
        """The source texts (a template is written out)."""
        return self.inputs.frame()["text"].tolist() if isinstance(self.inputs, Template) else list(self.inputs)

    def expected(self) -> list[Any] | None:
        """One expected label per input (a labelled template's ``label`` column, or the labels given), or ``None``."""
        if isinstance(self.inputs, Template) and self.inputs.label is not None:
            return self.inputs.frame()["label"].tolist()
        return self.labels

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (raises :class:`~mtlib.suite.serialize.NotSerializable` for code)."""
        where: dict[str, Any] = (
            {"template": self.inputs.to_json()} if isinstance(self.inputs, Template) else {"inputs": list(self.inputs)}
        )
        if self.labels is not None:
            where["labels"] = list(self.labels)
        return {"name": self.name, "threshold": self.threshold, "relation": relation_to_json(self.relation), **where}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "test") -> SuiteTest:
        """The test :meth:`to_json` wrote (its structure checked by :func:`~mtlib.suite.serialize.suite_from_json`)."""
        inputs: list[str] | Template = Template.from_json(data["template"]) if "template" in data else data["inputs"]
        relation = relation_from_json(data["relation"], f"{where}.relation")
        return cls(data["name"], relation, inputs, float(data["threshold"]), data.get("labels"))


def _as_inputs(inputs: Any, where: str) -> tuple[list[str] | Template, list[Any] | None]:
    """The texts (or the template) and, from a DataFrame with a ``label`` column, one label per text."""
    if isinstance(inputs, Template):
        return inputs, None
    if isinstance(inputs, pd.DataFrame):
        if "text" not in inputs:
            raise MtlibInputError(
                f"{where}: a DataFrame of inputs needs a 'text' column; it has {list(inputs.columns)}",
                argument="inputs",
            )
        labels = inputs["label"].tolist() if "label" in inputs else None
        return check_texts(inputs["text"], where, "inputs['text']", blank=False), labels
    return check_texts(inputs, where, blank=False), None


def _mft_labels(test: SuiteTest, written: bool) -> list[Any] | None:
    """The distinct labels an MFT test expects (``None`` when known only once a template is written out)."""
    relation = test.relation
    assert isinstance(relation, MFT)
    own = relation.expected_label
    if own is not None:
        found = own if isinstance(own, list) else [own]
    elif written or not isinstance(test.inputs, Template):
        found = test.expected() or []
    else:
        label = test.inputs.label
        if callable(label):
            return None
        if isinstance(label, Mapping):
            found = [v for table in label.values() for v in table.values()]
        else:
            found = list(label) if isinstance(label, (list, tuple)) else [label]
    return list({repr(x): x for x in found}.values())


def _check_mft_labels(
    test: SuiteTest, labels: Sequence[Any], owner: str, where: str, written: bool, hint: str = ""
) -> None:
    """Refuse an MFT label that is not one of ``labels`` (an integer below ``len(labels)`` is a column)."""
    for label in _mft_labels(test, written) or []:
        if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < len(labels):
            continue
        try:
            label_position(labels, label, owner)
        except KeyError:
            raise MtlibInputError(
                f"{where}: the MFT expects label {label!r}, which is not among {owner} {list(labels)}{hint}",
                argument="relation",
                expected=f"one of {list(labels)}",
            ) from None


class Suite:
    """Named tests of one's own model.

    Args:
        name: Suite name (tables, reports, saved files).
        n_boot: Bootstrap replicates for pairwise relations' intervals.
        seed: Seeds the bootstraps.
        k: Worst examples kept per test.
        labels: The class names of the model under test, when known: an MFT label outside
            them is refused at :meth:`add`, and a plain function's ``(n, k)`` output is read
            as class probabilities with these names.
    """

    def __init__(
        self, name: str = "suite", *, n_boot: int = 200, seed: int = 0, k: int = 10, labels: Any = None
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise refuse("Suite", "name", "a non-empty text (str)", name)
        n_boot, seed = bootstrap.check_resampling(n_boot, seed, "Suite", skip=True)
        self.name, self.n_boot, self.seed, self.k = name, n_boot, seed, check_count(k, "Suite", "k")
        self.labels = check_labels(labels, "Suite")
        self.tests: list[SuiteTest] = []

    def add(
        self,
        name: str,
        relation: Relation | MFT,
        inputs: Sequence[str] | pd.DataFrame | Template,
        *,
        threshold: float = 0.10,
    ) -> Suite:
        """Add a test; returns the suite (calls chain).

        Args:
            name: Test name (unique in the suite).
            relation: A relation with its transformation(s) (e.g. :class:`~mtlib.relations.SingleInput`,
                :class:`~mtlib.relations.PairwiseSystematicity`), or an :class:`MFT`.
            inputs: Source texts, a DataFrame with a ``text`` column (e.g. from
                :func:`~mtlib.suite.generate.template`; its ``label`` column, if any,
                gives an ``MFT()`` its expected labels), or a :class:`Template`
                (saved as a generator).
            threshold: Highest violation rate allowed (the gate compares the upper end of the interval).

        Raises:
            MtlibInputError: a name already used or empty, a relation that is none, a threshold
                outside [0, 1], no inputs or fewer than the relation needs, a non-text or a blank
                text among them (or made by the template), an MFT with neither a label nor labelled
                inputs, an MFT label outside the suite's ``labels``.

        Warns:
            TooFewInputs: the inputs are too few for the threshold to be reachable (the message says how many).
        """
        where = f"Suite.add({name!r})"
        if not isinstance(name, str) or not name.strip():
            raise refuse("Suite.add", "name", "a non-empty text (str)", name)
        if any(t.name == name for t in self.tests):
            raise MtlibInputError(f"the suite already has a test named {name!r}", argument="name")
        if not isinstance(relation, (Relation, MFT)):
            raise refuse(
                where, "relation", "a relation of mtlib.relations (with its transformations) or an MFT", relation
            )
        threshold = check_rate(threshold, where, "threshold")
        texts, labels = _as_inputs(inputs, where)
        test = SuiteTest(name, relation, texts, threshold, labels if isinstance(relation, MFT) else None)
        n = texts.size() if isinstance(texts, Template) else len(texts)
        least, why = relation.min_inputs
        if n < least:
            raise MtlibInputError(
                f"{where}: {why}: the test needs at least {least} input text{'s' if least > 1 else ''}, got {n}",
                argument="inputs",
            )
        if isinstance(relation, MFT) and relation.expected_label is None and test.expected() is None:
            raise MtlibInputError(
                f"{where}: MFT() without a label needs labelled inputs: a DataFrame with a 'label' column or "
                f"generate.template(..., label=...)",
                argument="inputs",
            )
        if isinstance(relation, MFT) and self.labels is not None:
            _check_mft_labels(test, self.labels, "the suite's labels", where, written=False)
        _warn_if_too_few(name, n, threshold)
        self.tests.append(test)
        return self

    def __len__(self) -> int:
        return len(self.tests)

    def __repr__(self) -> str:
        return f"Suite({self.name!r}: {[t.name for t in self.tests]})"

    def run(
        self,
        model: Any,
        *,
        name: str | None = None,
        positive_label: Any = None,
        timeout: float | None = None,
        labels: Sequence[Any] | None = None,
        template: str | None = None,
    ) -> SuiteResult:
        """Run every test on one model (every unique text scored once).

        Args:
            model: A registry name, an :class:`mtlib.models.Model`, an object
                :func:`mtlib.models.adapters.wrap` accepts, or ``texts -> scores``.
            name: The model's name in the result (default: the model's own name;
                a function's ``__name__``; an sklearn pipeline's class name).
            positive_label: The class read as the score (default: ``"positive"``, else the last class).
            timeout: The most seconds one model call (one batch of texts) may take; ``None``
                (the default) waits for ever. A call past it is abandoned (see :mod:`mtlib.suite.memo`).
            labels: Class names of a plain function's columns (default: the suite's ``labels``):
                the function's ``(n, k)`` output is then read as class probabilities. For a causal LM: the
                classes its prompt's verbalisers answer for (default: the suite's, else negative, positive).
            template: A causal LM's prompt template (a name of :data:`mtlib.models.inference.prompts.TEMPLATES`,
                default ``sentiment``); it then classifies by prompt, calibrated contextually
                (:func:`mtlib.suite.memo.prompted`).

        Returns:
            A :class:`SuiteResult`; its ``model_calls`` counts the batches the model itself ran.

        Raises:
            MtlibInputError: an MFT label the model lacks (before any model call), or the model
                returned something other than finite numbers (strings, booleans, NaN or infinite
                values, a score outside [0, 1] where it is read as a probability): the message
                names the test, the count and the first text.
            ModelTimeout: a model call ran past ``timeout`` (a :class:`TimeoutError`).

            An error raised while a test runs carries ``suite_result``: a :class:`SuiteResult` of the
            tests finished before it, its ``meta["stopped_at"]`` naming the test that was running.
        """
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise refuse("Suite.run", "name", "a non-empty text (str) or None", name)
        memo = ScoreMemo(
            model, positive_label, timeout=timeout, labels=labels, function_labels=self.labels, template=template
        )
        owner = f"the labels of model {memo.name!r}"
        hint = "" if memo.is_classifier else " (a function's score is read as P(positive); give labels= for others)"
        for test in self.tests:
            if isinstance(test.relation, MFT):
                where = f"suite {self.name!r}, test {test.name!r}"
                _check_mft_labels(test, memo.labels, owner, where, written=True, hint=hint)
        before = getattr(memo.model, "calls", None)
        outcomes: list[TestOutcome] = []
        seconds: dict[str, float] = {}

        def result() -> SuiteResult:
            after = getattr(memo.model, "calls", None)
            calls = after - before if isinstance(before, int) and isinstance(after, int) else None
            out = SuiteResult(self.name, name or memo.name, list(outcomes), memo.scored, memo.batches, calls)
            out.meta["seconds"] = dict(seconds)  # per test, for JUnit's time (the first test also pays for loading)
            return out

        for test in self.tests:
            start = time.perf_counter()
            try:
                outcomes.append(self._run_test(test, memo))
            except Exception as err:
                partial = result()
                partial.meta.update(stopped_at=test.name, stopped_after=round(time.perf_counter() - start, 4))
                err.suite_result = partial  # type: ignore[attr-defined]
                raise
            seconds[test.name] = round(time.perf_counter() - start, 4)
        return result()

    def _run_test(self, test: SuiteTest, memo: ScoreMemo) -> TestOutcome:
        """One test on the memo's model; a refused output is reported with the test's name."""
        texts = test.texts()
        try:
            if isinstance(test.relation, MFT):
                expected = test.expected() if test.relation.expected_label is None else None
                res = test.relation.evaluate(texts, memo.probs, labels=memo.labels, expected=expected)
            else:
                res = test.relation.evaluate(
                    texts, memo.scorer(test.relation.needs), n_boot=self.n_boot, seed=self.seed
                )
        except MtlibInputError as err:
            raise MtlibInputError(
                f"suite {self.name!r}, test {test.name!r}: {err}",
                argument=err.argument,
                expected=err.expected,
            ) from err
        except ModelTimeout as err:
            raise ModelTimeout(f"suite {self.name!r}, test {test.name!r}: {err}", err.seconds) from err
        outcome = TestOutcome.from_result(test.name, res, test.threshold, texts, k=self.k)
        if not outcome.passed:
            outcome.warning = too_few_reason(len(texts), test.threshold)
        return outcome

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        out: dict[str, Any] = {"format": FORMAT, "name": self.name, "n_boot": self.n_boot, "seed": self.seed}
        out["k"] = self.k
        if self.labels is not None:
            out["labels"] = list(self.labels)
        return {**out, "tests": [t.to_json() for t in self.tests]}

    def save(self, path: str | Path) -> Path:
        """Write the suite as JSON (transformations by registered name and parameters); returns the path.

        Raises:
            NotSerializable: a test uses an anonymous function or an unregistered class.
        """
        data = json.dumps(self.to_json(), indent=1, allow_nan=False)  # fail before touching the file
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data, encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Suite:
        """The suite :meth:`save` wrote (register any user transformation first).

        Raises:
            MtlibInputError: the file is not JSON, not a saved suite, or a part of it is missing or of the
                wrong type (the message names the file and the key, e.g. ``tests[0].relation.family``).

        Warns:
            TooFewInputs: as :meth:`add` does, the message prefixed with the file.
        """
        data = suite_from_json(path, FORMAT)
        try:
            suite = cls(
                data["name"],
                n_boot=data.get("n_boot", 0),
                seed=data.get("seed", 0),
                k=data.get("k", 10),
                labels=data.get("labels"),
            )
            tests = [SuiteTest.from_json(t, f"tests[{i}]") for i, t in enumerate(data["tests"])]
        except MtlibInputError as err:
            raise MtlibInputError(f"{path}: {err}", argument=err.argument) from err
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", TooFewInputs)
            for test in tests:
                labelled = isinstance(test.inputs, list) and test.labels is not None
                inputs = pd.DataFrame({"text": test.inputs, "label": test.labels}) if labelled else test.inputs
                try:
                    suite.add(test.name, test.relation, inputs, threshold=test.threshold)
                except (MtlibInputError, ValueError) as err:
                    raise MtlibInputError(f"{path}: test {test.name!r}: {err}", argument="tests") from err
        for warning in said:  # said again, with the file: a suite built elsewhere may be loaded in CI
            if issubclass(warning.category, TooFewInputs):
                warnings.warn(f"{path}: {warning.message}", TooFewInputs, stacklevel=2)
            else:
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        return suite


def _warn_if_too_few(name: str, n: int, threshold: float) -> None:
    """Warn when ``n`` inputs cannot pass ``threshold`` even without a violation."""
    needed = inputs_needed(threshold)
    if needed is not None and n >= needed:
        return
    bound = bootstrap.wilson_interval(0, n)[1]
    how = (
        "no number of inputs can reach a threshold of 0: the interval's upper end is always above 0"
        if threshold <= 0
        else "it would take more than 2**53 inputs"
        if needed is None
        else f"at least {needed} inputs are needed"
    )
    warnings.warn(
        f"test {name!r}: {n} inputs cannot pass threshold {threshold:g}: even with no violation the gate's "
        f"bound (the 95% interval's upper end) is {bound:.4f}; {how}",
        TooFewInputs,
        stacklevel=3,
    )
