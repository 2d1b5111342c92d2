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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from mtlib.relations import Relation
from mtlib.suite.generate import Template
from mtlib.suite.memo import ScoreMemo
from mtlib.suite.mft import MFT
from mtlib.suite.outcome import TestOutcome
from mtlib.suite.result import SuiteResult
from mtlib.suite.serialize import relation_from_json, relation_to_json

__all__ = ["FORMAT", "Suite", "SuiteTest"]

#: Format tag of a saved suite.
FORMAT = "mtlib.suite/1"


@dataclass
class SuiteTest:
    """One named test: a relation or MFT, its inputs (texts or a template) and its threshold."""

    __test__ = False  # not a pytest test class

    name: str
    relation: Relation | MFT
    inputs: list[str] | Template
    threshold: float

    def texts(self) -> list[str]:
        """The source texts (a template is written out)."""
        return self.inputs.frame()["text"].tolist() if isinstance(self.inputs, Template) else list(self.inputs)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (raises :class:`~mtlib.suite.serialize.NotSerializable` for code)."""
        where = (
            {"template": self.inputs.to_json()} if isinstance(self.inputs, Template) else {"inputs": list(self.inputs)}
        )
        return {"name": self.name, "threshold": self.threshold, "relation": relation_to_json(self.relation), **where}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SuiteTest:
        """The test :meth:`to_json` wrote."""
        inputs: list[str] | Template = (
            Template.from_json(data["template"]) if "template" in data else [str(t) for t in data["inputs"]]
        )
        return cls(data["name"], relation_from_json(data["relation"]), inputs, float(data["threshold"]))


def _as_inputs(inputs: Any) -> list[str] | Template:
    if isinstance(inputs, Template):
        return inputs
    if isinstance(inputs, pd.DataFrame):
        if "text" not in inputs:
            raise ValueError(f"a DataFrame of inputs needs a 'text' column; it has {list(inputs.columns)}")
        return [str(t) for t in inputs["text"]]
    if isinstance(inputs, str):
        raise TypeError("inputs must be a list of texts, not one string")
    return [str(t) for t in inputs]


class Suite:
    """Named tests of one's own model.

    Args:
        name: Suite name (tables, reports, saved files).
        n_boot: Bootstrap replicates for pairwise relations' intervals.
        seed: Seeds the bootstraps.
        k: Worst examples kept per test.
    """

    def __init__(self, name: str = "suite", *, n_boot: int = 200, seed: int = 0, k: int = 10) -> None:
        self.name, self.n_boot, self.seed, self.k = name, n_boot, seed, k
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
                :func:`~mtlib.suite.generate.template`), or a :class:`Template` (saved as a generator).
            threshold: Highest violation rate allowed (the gate compares the upper end of the interval).

        Raises:
            ValueError: a name already used, or a threshold outside [0, 1].
        """
        if any(t.name == name for t in self.tests):
            raise ValueError(f"the suite already has a test named {name!r}")
        if not 0 <= threshold <= 1:
            raise ValueError(f"threshold must be a rate in [0, 1], got {threshold}")
        self.tests.append(SuiteTest(name, relation, _as_inputs(inputs), float(threshold)))
        return self

    def __len__(self) -> int:
        return len(self.tests)

    def __repr__(self) -> str:
        return f"Suite({self.name!r}: {[t.name for t in self.tests]})"

    def run(self, model: Any, *, positive_label: Any = None) -> SuiteResult:
        """Run every test on one model (every unique text scored once).

        Args:
            model: A registry name, an :class:`mtlib.models.Model`, an object
                :func:`mtlib.models.adapters.wrap` accepts, or ``texts -> scores``.
            positive_label: The class read as the score (default: ``"positive"``, else the last class).

        Returns:
            A :class:`SuiteResult`; its ``model_calls`` counts the batches the model itself ran.
        """
        memo = ScoreMemo(model, positive_label)
        before = getattr(memo.model, "calls", None)
        outcomes = []
        for test in self.tests:
            texts = test.texts()
            if isinstance(test.relation, MFT):
                res = test.relation.evaluate(texts, memo.probs, labels=memo.labels)
            else:
                res = test.relation.evaluate(
                    texts, memo.scorer(test.relation.needs), n_boot=self.n_boot, seed=self.seed
                )
            outcomes.append(TestOutcome.from_result(test.name, res, test.threshold, texts, k=self.k))
        after = getattr(memo.model, "calls", None)
        calls = after - before if isinstance(before, int) and isinstance(after, int) else None
        return SuiteResult(self.name, memo.name, outcomes, memo.scored, memo.batches, calls)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "format": FORMAT,
            "name": self.name,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "k": self.k,
            "tests": [t.to_json() for t in self.tests],
        }

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
            ValueError: the file is not a saved suite.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{path} is not a saved suite (format {FORMAT!r})")
        suite = cls(data["name"], n_boot=int(data["n_boot"]), seed=int(data["seed"]), k=int(data.get("k", 10)))
        suite.tests = [SuiteTest.from_json(t) for t in data["tests"]]
        return suite
