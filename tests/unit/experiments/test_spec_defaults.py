"""No spec parameter's default is repeated in experiment code with another value.

Every function an experiment's face offers is compared with the experiment's spec: a parameter named
like a spec parameter (or like one without its ``finetune_`` / ``head_`` prefix, e.g. ``heldout_fraction``
for ``finetune_heldout_fraction``) either has no default, or the spec's own, or an "off" value that asks
for nothing (None, an empty list, 0, False, ""), which is not a copy of any setting.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

from mtlib.experiments import Spec, specs

OFF = (None, (), [], {}, 0, False, "")


def _functions(package: object) -> list:
    out = []
    for name in getattr(package, "__all__", []):
        obj = getattr(package, name)
        if inspect.isclass(obj) and issubclass(obj, Spec):
            continue  # the spec itself
        if inspect.isfunction(obj):
            out.append(obj)
        elif inspect.isclass(obj):
            out += [
                m for _, m in inspect.getmembers(obj, inspect.isfunction) if m.__qualname__.startswith(obj.__name__)
            ]
    return out


@pytest.mark.parametrize("stem", sorted(specs()))
def test_experiment_functions_take_the_spec_defaults(stem: str) -> None:
    spec = specs()[stem]
    package = importlib.import_module(spec.__module__.rsplit(".", 1)[0])
    defaults = {p.name: p.default for p in spec.parameters()}
    for name, value in list(defaults.items()):
        for prefix in ("finetune_", "head_"):
            if name.startswith(prefix) and "_" in name[len(prefix) :] and name[len(prefix) :] not in defaults:
                defaults[name[len(prefix) :]] = value
    drifted = []
    for fn in _functions(package):
        for p in inspect.signature(fn).parameters.values():
            if p.name not in defaults or p.default is inspect.Parameter.empty or p.name in ("profile", "out_dir"):
                continue
            if any(p.default is off or (type(p.default) is type(off) and p.default == off) for off in OFF):
                continue
            if p.default != defaults[p.name]:
                drifted.append(
                    f"{fn.__module__}.{fn.__qualname__}({p.name}={p.default!r}): spec says {defaults[p.name]!r}"
                )
    assert not drifted, "defaults copied into code with another value:\n" + "\n".join(drifted)
