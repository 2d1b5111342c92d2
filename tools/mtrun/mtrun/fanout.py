"""Fan-out, then gather: split one notebook run into one job per model (per seed).

Intuition: a notebook's expensive work (encodings, trained heads, fine-tuned
weights) is cached on disk keyed by model identity, data, settings and seed,
never by which other models share the run. So running the notebook once per
model, each with that single model, fills the same cache entries as one run
with every model; a final *gather* run with every model then only reads the
cache and draws the cross-model tables and figures. The fan-out jobs can run
on different machines at once; only the gather run's outputs are kept.

Which parameters hold models or seeds is declared once here, by parameter
name and role (the notebooks' own names: ``models`` in 01-04 and 06,
``encoders`` / ``finetune`` / ``native`` in 05, ``head_models`` /
``finetune_models`` / ``fewshot_models`` in 07):

- ``required``: a list the notebook needs non-empty; a job for a model not in
  it keeps its first entry (cheap in every profile: a shared cache hit);
- ``optional``: a list that may be empty; a job keeps only its own model;
- model-keyed dicts (per-model settings, e.g. 05's ``finetune_settings``) keep the entries of the job's
  models; which dicts are keyed by model is declared by the notebook's spec (``Spec.model_keyed``), so a
  training block such as 01's ``finetune_settings`` (keyed by setting) is passed whole.

A notebook that declares none of the parameters of an axis runs unsplit, with
a note; so does one whose split would be the whole run again (one model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtlib.run.params import declared, spec_of

__all__ = [
    "AXES",
    "Part",
    "declared_values",
    "model_keyed",
    "split",
]

#: Axis -> {parameter: role}. Roles: "required" (kept non-empty) or "optional".
AXES: dict[str, dict[str, str]] = {
    "models": {
        "models": "required",
        "encoders": "optional",
        "finetune": "optional",
        "native": "optional",
        "head_models": "required",
        "finetune_models": "optional",
        "fewshot_models": "required",
    },
    "seeds": {"seeds": "required", "finetune_seeds": "optional"},
}


@dataclass(frozen=True)
class Part:
    """One fan-out job's parameters.

    Attributes:
        label: What the job covers, e.g. ``"minilm"`` or ``"minilm, seed 1"``.
        parameters: The notebook's parameters with every model/seed list narrowed.
    """

    label: str
    parameters: dict[str, Any]


def declared_values(notebook: Path, parameters: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of ``notebook``: the job's value, else the declared default (its spec's, or its cell's)."""
    return {name: parameters.get(name, d.default) for name, d in declared(notebook).items()}


def model_keyed(notebook: Path) -> tuple[str, ...]:
    """The notebook's dict parameters keyed by model name, as its spec declares them (none without a spec)."""
    spec = spec_of(notebook)
    return tuple(spec.model_keyed) if spec is not None else ()


def _axis_values(values: dict[str, Any], axis: str) -> list[Any]:
    """The distinct items of an axis over its list parameters, in order of first appearance."""
    out: list[Any] = []
    for name in AXES[axis]:
        value = values.get(name)
        if isinstance(value, list):
            out += [v for v in value if isinstance(v, (str, int)) and not isinstance(v, bool) and v not in out]
    return out


def _narrow(values: dict[str, Any], axis: str, item: Any, keyed: Sequence[str] = ()) -> dict[str, Any]:
    """The parameters of the job for one item of an axis (only the axis' lists change)."""
    out: dict[str, Any] = {}
    for name, role in AXES[axis].items():
        value = values.get(name)
        if not isinstance(value, list):
            continue  # absent, or another type under the same name (03's finetune is a bool)
        out[name] = [item] if item in value else (value[:1] if role == "required" else [])
    if axis == "models":
        kept = _models_of(out)
        for name in keyed:
            if isinstance(values.get(name), dict):
                out[name] = {k: v for k, v in values[name].items() if k in kept}
    return out


def _models_of(narrowed: dict[str, Any]) -> set[Any]:
    return {m for name in AXES["models"] for m in (narrowed.get(name) or [])}


def _covered(small: dict[str, Any], big: dict[str, Any]) -> bool:
    """Whether every model (or key) of each narrowed parameter of ``small`` is also in ``big``'s."""
    return all(set(value) <= set(big.get(name) or []) for name, value in small.items())


def _drop_covered(items: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    """Without the jobs whose work another job does anyway (e.g. 07's ``head_models[0]``, which every
    job keeps because the notebook needs one head model): such a job would only repeat it."""
    kept = list(items)
    for entry in items:
        if any(other is not entry and _covered(entry[1], other[1]) for other in kept):
            kept.remove(entry)
    return kept


def split(notebook: Path, parameters: dict[str, Any], axes: Sequence[str]) -> tuple[list[Part], list[str]]:
    """The fan-out jobs of one notebook run, and notes on what was not split.

    Args:
        notebook: The notebook file (its parameters cell is read).
        parameters: The run's parameters for it (profile values and overrides).
        axes: ``["models"]``, ``["seeds"]`` or both (the product: one job per model and seed).

    Returns:
        ``(parts, notes)``: ``parts`` is empty when the notebook runs unsplit
        (then ``notes`` says why). Each part's parameters are ``parameters``
        with the axis lists narrowed; only parameters the notebook declares
        are set.
    """
    unknown = [a for a in axes if a not in AXES]
    if unknown:
        raise ValueError(f"--fan-out {','.join(unknown)}: expected one or more of {', '.join(AXES)}")
    values = declared_values(notebook, parameters)
    parts = [Part("", {})]
    notes = []
    for axis in axes:
        keyed = model_keyed(notebook)
        items = [(item, _narrow(values, axis, item, keyed)) for item in _axis_values(values, axis)]
        if not items:
            names = ", ".join(AXES[axis])
            notes.append(f"{notebook.stem} has no {axis} parameter ({names}): not split by {axis}")
            continue
        if axis == "models":
            items = _drop_covered(items)
        parts = [
            Part(
                ", ".join(x for x in (p.label, str(item) if axis == "models" else f"seed {item}") if x),
                {**p.parameters, **narrowed},
            )
            for p in parts
            for item, narrowed in items
        ]
    parts = [Part(p.label, {**parameters, **p.parameters}) for p in parts if p.parameters]
    if len(parts) == 1 and all(values.get(k) == v for k, v in parts[0].parameters.items()):
        notes.append(f"{notebook.stem}: a single {'/'.join(axes)} value, nothing to split; runs unsplit")
        return [], notes
    return parts, notes
