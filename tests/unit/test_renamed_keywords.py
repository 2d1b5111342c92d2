"""Keywords renamed so that "kind" means only a model family and "settings" only a training block (issue 57).

Each old keyword of a public name still works for one release: it warns ``DeprecationWarning`` ("``old=`` is
renamed ``new=``") and builds the same object as the new keyword; giving both is a ``TypeError``.
SETI's ``seti_tasks.recipe``/``build`` (``setting=`` -> ``setup=``) are tested in ``experiments/test_seti.py``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch

from mtlib.analysis import TREModel
from mtlib.data import seti_tasks
from mtlib.models.training.frozen import Head
from mtlib.models.training.heads import make_head
from mtlib.relations.notation import Node
from mtlib.relations.transformations import Typos
from mtlib.utils.faces import renamed_keywords


def _tre(**options: Any) -> TREModel:
    return TREModel(
        vocab=["a"],
        composition="additive",
        primitives=torch.zeros(1, 2),
        weight=None,
        losses=np.zeros(1),
        train_tre=np.zeros(1),
        **options,
    )


def _seti(**setup: Any) -> seti_tasks.SetiData:
    frame = pd.DataFrame(columns=seti_tasks.COLUMNS)
    return seti_tasks.SetiData(task=2, config="cg", train=frame, dev=frame, test=frame, **setup)


def _head(**head: Any) -> Head:
    return Head(estimator=make_head("linear"), classes_=np.array([0, 1]), accuracy=0.5, n_train=4, n_test=2,
                key="k", **head)  # fmt: skip


#: (what is built, old keyword, new keyword, the value, what the two results must agree on)
CASES: list[tuple[str, Callable[..., Any], str, str, Any, Callable[[Any], Any]]] = [
    ("Typos", lambda **kw: Typos(seed=3, **kw), "kind", "typo", "delete", lambda t: (t, t("A wonderful film."))),
    ("Node", lambda **kw: Node(id="n", label="x", xy=(0.0, 0.0), **kw), "kind", "node_type", "number", lambda n: n),
    ("TREModel", _tre, "settings", "options", {"steps": 5, "lr": 0.1}, lambda m: (m.options, m.composition)),
    ("SetiData", _seti, "setting", "setup", "non-trivial", lambda d: (d.setup, d.name)),
    ("make_head", lambda **kw: make_head(seed=1, **kw), "kind", "head", "mlp", lambda h: (type(h), vars(h))),
    ("Head", _head, "kind", "head", "logreg", lambda h: (h.head, h.recorded_head, h.key)),
]


@pytest.mark.parametrize(("name", "build", "old", "new", "value", "seen"), CASES, ids=[c[0] for c in CASES])
def test_an_old_keyword_warns_and_builds_what_the_new_one_builds(
    name: str, build: Callable[..., Any], old: str, new: str, value: Any, seen: Callable[[Any], Any]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new keyword warns nothing
        current = build(**{new: value})
    with pytest.warns(DeprecationWarning, match=rf"^{name}\(\): {old}= is renamed {new}=; the old keyword goes"):
        former = build(**{old: value})
    assert seen(former) == seen(current)
    with pytest.raises(TypeError, match=rf"^{name}\(\) got both {new}= and its old name {old}=; give {new}= only"):
        build(**{old: value, new: value})


def test_a_class_keeps_its_fields_and_replace_works_with_the_new_keyword() -> None:
    assert [f.name for f in dataclasses.fields(Typos)] == ["typo", "n", "seed"]
    assert [f.name for f in dataclasses.fields(Node)] == ["id", "label", "node_type", "xy", "source"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dataclasses.replace(Typos("swap"), typo="mixed") == Typos("mixed")


def test_an_old_keyword_beside_the_new_one_given_by_position_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"^Typos\(\) got both typo= and its old name kind="):
        Typos("swap", kind="delete")
    with pytest.raises(TypeError, match=r"^make_head\(\) got both head= and its old name kind="):
        make_head("mlp", kind="mlp")


def test_renaming_to_a_keyword_the_callable_does_not_take_is_refused_when_decorating() -> None:
    def f(a: int, b: int = 0) -> int:
        return a + b

    with pytest.raises(ValueError, match=r"renamed_keywords on .*f: c= -> d= needs 'd' among its parameters"):
        renamed_keywords(c="d")(f)
    with pytest.raises(ValueError, match="needs 'b' among its parameters .* and 'a' not"):
        renamed_keywords(a="b")(f)
