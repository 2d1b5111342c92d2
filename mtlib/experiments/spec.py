"""One declaration per experiment: every parameter's name, type, default, rule and one-line doc.

Intuition: a notebook parameter used to live in up to four places (the
notebook's ``parameters`` cell, a rules file, an experiment's defaults and the
training settings' checks), and the copies drifted. Now each experiment
declares its parameters once, as a frozen dataclass that subclasses
:class:`Spec`; everything else is derived from it:

- the notebook's ``parameters`` cell (:meth:`Spec.cell`; ``python -m
  mtrun.notebooks --fix`` writes it, a test checks every notebook matches);
- the runner's check before a notebook starts, and the same check when a
  notebook opens its run in JupyterLab (:meth:`Spec.from_values`,
  :meth:`Spec.from_notebook`): types, then the rules of
  :mod:`mtlib.utils.rules`, then the experiment's own :meth:`Spec.validate`
  (e.g. training settings turned into a :class:`~mtlib.models.ClassifierSettings`,
  unknown keys refused);
- the keys a profile may set (the fields, minus ``profile`` and ``out_dir``,
  which the runner sets);
- the documentation table (:meth:`Spec.markdown`).

Each experiment package exposes its spec as ``Spec``; :func:`mtlib.experiments.spec_for` finds a
spec by notebook key or stem.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Toy(Spec):
    ...     notebook = "99_toy"
    ...     n_boot: int = param(1000, ">= 1", "bootstrap replicates")
    >>> Toy(n_boot=50).n_boot
    50
    >>> Toy(n_boot=0)
    Traceback (most recent call last):
    ...
    mtlib.utils.rules.ParameterError: invalid parameters of 99_toy:
      n_boot = 0: expected >= 1 (a finite number) (rule '>= 1' of mtlib.experiments.Toy.n_boot)
    >>> print(Toy.cell().splitlines()[-2])
    n_boot: int = 1000  # bootstrap replicates
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import typing
from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from mtlib.models.training.settings import CLASSIFIER_HELDOUT, ClassifierSettings
from mtlib.utils.choices import AUTO
from mtlib.utils.context import PRECISION_VALUES, RunContext
from mtlib.utils.rules import ParameterError, Rule, compile_rule, type_problem

__all__ = ["Spec", "param"]

#: First line of every generated ``parameters`` cell.
CELL_HEADER = "# Parameters: papermill injects the profile's values after this cell."
#: Deprecated, read by nothing: the runner used to set it so that the kernel skipped its check. Checking is
#: cheap and idempotent, so the kernel checks the values it receives, always; the name goes in the next release.
CHECKED_ENV = "MTLIB_PARAMS_CHECKED"
#: Parameters the runner sets for every notebook (from ``--profile`` and ``--out-dir``); a profile cannot.
RUNNER_SET = ("profile", "out_dir")

#: Fields of :class:`~mtlib.models.ClassifierSettings` that an experiment sets itself (its labels, validation
#: data, seed, device, cache): a profile's training block may set every other one, ``heldout_fraction`` included
#: (a block that leaves it out takes its spec's :meth:`Spec.training_defaults`).
SET_BY_EXPERIMENT = ("labels", "valid", "seed", "device", "use_cache", "init")


S = TypeVar("S", bound="Spec")


def training_keys() -> list[str]:
    """The keys a profile's training block (``finetune_settings``, ``head_settings``) may hold."""
    return [f.name for f in fields(ClassifierSettings) if f.name not in SET_BY_EXPERIMENT]


def training_settings(
    value: Mapping[str, Any], where: str, defaults: Mapping[str, Any] | None = None
) -> ClassifierSettings:
    """A training block of a spec as one :class:`~mtlib.models.ClassifierSettings`, checked once, here.

    Args:
        value: The block, e.g. ``{"lr": 3e-5, "epochs": 1}``; keys it leaves out take ``defaults``, then the
            factory's defaults.
        where: The parameter's name, for messages.
        defaults: What the spec declares for keys the block leaves out (:meth:`Spec.training_defaults`: its
            ``seed``, its held-out share); they may include fields a block cannot set (``seed``).

    Raises:
        ParameterError: a key that is not a training setting (the known ones are listed), or a bad value.

    Example:
        >>> training_settings({"lr": 3e-5, "epochs": 2}, "finetune_settings").epochs
        2
        >>> try:
        ...     training_settings({"learning_rate": 1}, "finetune_settings")
        ... except ParameterError as err:
        ...     print(err.problems[0][:70])
        finetune_settings: unknown key(s) ['learning_rate']; the training sett
    """
    keys = training_keys()
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise ParameterError(
            [f"{where}: unknown key(s) {unknown}; the training settings are {', '.join(sorted(keys))}"], where
        )
    try:
        return ClassifierSettings.from_options(where, {**(defaults or {}), **value})
    except (TypeError, ValueError) as err:
        raise ParameterError([f"{where}: {err}"], where) from None


def param(default: Any, rule: str = "", doc: str = "") -> Any:
    """Declare one parameter of a :class:`Spec`: its default, its rule (:mod:`mtlib.utils.rules`) and its doc.

    Args:
        default: A plain literal (number, string, bool, list or mapping of them): it is written into the
            notebook's ``parameters`` cell as it is. Lists and mappings are copied for each spec.
        rule: Clauses of the rule language, separated by ``;`` (empty: only the type is checked).
        doc: One line for the cell's comment and the documentation table (no ``#``, no ``=``: papermill reads
            a cell comment with ``=`` as code and cannot parse the parameter).

    Raises:
        ValueError: a doc with ``#``, ``=`` or a line break (the cell and papermill would misread it).
    """
    if any(c in doc for c in "#=\n"):
        raise ValueError(f"param doc {doc!r}: no '#', '=' or line break (the parameters cell's comment holds it)")
    metadata = {"rule": rule, "doc": doc}
    if isinstance(default, (list, dict)):
        frozen = copy.deepcopy(default)
        return field(default_factory=lambda: copy.deepcopy(frozen), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class Parameter:
    """One declared parameter, as the cell, the runner and the docs see it.

    Attributes:
        name: The variable.
        type: Its cell annotation: ``int``, ``float``, ``bool``, ``str``, ``list`` or ``dict``.
        default: Its default literal.
        rule: Its rule string (may be empty).
        doc: Its one-line description.
        owner: ``"<Spec class>.<name>"``, named in messages.
    """

    name: str
    type: str
    default: Any
    rule: str
    doc: str
    owner: str


def _cell_type(annotation: Any) -> str:
    """The cell annotation of a field type: ``list[str]`` -> ``"list"``."""
    origin = typing.get_origin(annotation) or annotation
    for type_name, py in (("bool", bool), ("int", int), ("float", float), ("str", str), ("list", list), ("dict", dict)):
        if origin is py:
            return type_name
    raise TypeError(f"a spec field must be a bool, int, float, str, list or dict, not {annotation!r}")


def _literal(value: Any) -> str:
    """``value`` as a Python literal for the ``parameters`` cell (double quotes, as the notebooks write)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


@dataclass(frozen=True)
class Spec:
    """Base of every experiment's spec: the parameters every notebook has.

    A subclass sets ``notebook`` (the notebook's file stem) and declares its own
    parameters with :func:`param`; it may redeclare a base parameter to give it
    its own doc or default. Constructing a spec checks it: types, rules, then
    :meth:`validate`; a bad value raises :class:`~mtlib.utils.rules.ParameterError`
    listing every problem.

    Attributes:
        profile: The run profile (set by the runner).
        device: Torch device.
        precision: Numerics of model inference (``$MTLIB_PRECISION`` under ``auto``).
        seed: The run's seed.
        out_dir: Output root (set by the runner).
    """

    notebook: ClassVar[str] = ""
    #: Dict parameters keyed by model name (a cluster run split by model keeps each job's own entries).
    model_keyed: ClassVar[tuple[str, ...]] = ()
    #: Dict parameters that are training blocks, checked as ClassifierSettings by :meth:`validate`.
    training_blocks: ClassVar[tuple[str, ...]] = ()
    #: The held-out share of a classifier's training data without a validation split (:data:`CLASSIFIER_HELDOUT`):
    #: the notebooks read it through :meth:`classifier_settings` and the experiment's :meth:`training_defaults`.
    classifier_heldout: ClassVar[float] = CLASSIFIER_HELDOUT

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper (selects sizes and models)")
    device: str = param("auto", "non-empty", "torch device: auto (cuda, then mps, then cpu), cpu, cuda or mps")
    precision: str = param(
        "auto",
        f"one of {', '.join(PRECISION_VALUES)}",
        "what the models' forward passes run in: fp32, tf32, bf16, fp16, or auto (the runner's --precision, else fp32)",
    )
    seed: int = param(0, ">= 0", "random seed for anything stochastic")
    out_dir: str = param("", "", "output root; empty means the project folder")

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ParameterError(problems, self.notebook or type(self).__name__)

    # -- the declaration --------------------------------------------------------------------------------------
    @classmethod
    def parameters(cls) -> list[Parameter]:
        """Every parameter in cell order: the base ones, the experiment's, and ``out_dir`` last."""
        return list(_parameters(cls))

    @classmethod
    def parameter(cls, name: str) -> Parameter:
        """One parameter by name.

        Raises:
            KeyError: no such parameter, with the closest name.
        """
        found = {p.name: p for p in _parameters(cls)}
        if name not in found:
            close = difflib.get_close_matches(name, list(found), n=1)
            raise KeyError(
                f"{cls.__name__} has no parameter {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")
            )
        return found[name]

    @classmethod
    def rules(cls) -> dict[str, Rule]:
        """The compiled rule of every parameter that has one."""
        return dict(_rules(cls))

    @classmethod
    def cell(cls) -> str:
        """The notebook's ``parameters`` cell: ``name: type = literal  # doc`` per parameter."""
        lines = [CELL_HEADER]
        for p in _parameters(cls):
            lines.append(f"{p.name}: {p.type} = {_literal(p.default)}" + (f"  # {p.doc}" if p.doc else ""))
        return "\n".join(lines)

    @classmethod
    def markdown(cls) -> str:
        """The documentation table of the parameters (name, type, default, rule, doc)."""
        rows = ["| parameter | type | default | rule | what it is |", "| --- | --- | --- | --- | --- |"]
        for p in _parameters(cls):
            rule, doc = (p.rule or "—").replace("|", "\\|"), p.doc.replace("|", "\\|")
            rows.append(f"| `{p.name}` | {p.type} | `{_literal(p.default)}` | {rule} | {doc} |")
        return "\n".join(rows)

    # -- checking -----------------------------------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Every problem of this spec's values: types first, then rules, then :meth:`validate`."""
        values = self.values()
        out = [msg for p in _parameters(type(self)) if (msg := type_problem(p.name, values[p.name], p.type))]
        if out:
            return out
        for name, rule in _rules(type(self)).items():
            for where, got, what in rule.problems(values[name], values):
                out.append(f"{name}{where} = {got!r}: expected {what} (rule {rule.text!r} of {rule.source})")
        return out or self.validate()

    def context(self) -> RunContext:
        """Where and in what numerics this run computes: a :class:`~mtlib.utils.context.RunContext`, resolved once.

        From the spec's ``device`` and ``precision`` (and ``backend`` where the experiment has one);
        ``auto`` reads the environment the runner gave the process, then the defaults. The notebook's
        ``Run.from_spec(spec)`` and its cells take this same object, and hand it down to every model
        load, training and statistic.
        """
        found = self.__dict__.get("_context")
        if found is None:
            found = RunContext.resolve(
                device=self.device, precision=self.precision, backend=getattr(self, "backend", AUTO)
            )
            object.__setattr__(self, "_context", found)
        return found

    def training(self, name: str) -> ClassifierSettings:
        """The training block ``name`` (a dict parameter) as :class:`~mtlib.models.ClassifierSettings`.

        The keys the block leaves out take :meth:`training_defaults` (the spec's seed, the experiment's
        held-out share), then the factory's defaults; so a notebook's classifier call passes ``settings=`` and
        writes neither ``seed=`` nor ``heldout_fraction=``, and a profile's block may set ``heldout_fraction``.
        """
        block = getattr(self, name)
        return self.typed_block(block, name, self.training_defaults(name, block))

    def training_defaults(self, name: str, block: Mapping[str, Any]) -> dict[str, Any]:
        """What the training block ``name`` takes for the keys it leaves out, before the factory's defaults.

        Here: ``seed``, the spec's (a call that trains with another seed, e.g. one per repetition, passes
        ``seed=``). An experiment whose notebook holds out a share of the training data adds its
        ``heldout_fraction`` (e.g. :attr:`classifier_heldout`); one that adds nothing keeps the factory's.

        Args:
            name: The block's parameter, e.g. ``"finetune_settings"``.
            block: Its value (a default may depend on it, e.g. early stopping asked for).
        """
        return {"seed": self.seed}

    def classifier_settings(self) -> ClassifierSettings:
        """The settings of a classifier this spec has no training block for (a head, a probe, a prompt).

        The spec's ``seed`` and held-out share (:attr:`classifier_heldout`); the call adds its own options
        (``head=``, ``valid=``...) over them.

        Example:
            >>> from mtlib.experiments.sentiment import Spec
            >>> s = Spec(seed=3).classifier_settings()
            >>> (s.seed, s.heldout_fraction)
            (3, 0.2)
        """
        typed: dict[str, ClassifierSettings] = self.__dict__.setdefault("_typed", {})
        if "" not in typed:
            typed[""] = ClassifierSettings(seed=self.seed, heldout_fraction=self.classifier_heldout)
        return typed[""]

    def typed_block(
        self, block: Mapping[str, Any], where: str, defaults: Mapping[str, Any] | None = None
    ) -> ClassifierSettings:
        """A training block of this spec in its final typed form, parsed once per spec (:func:`training_settings`).

        Construction checks every block (:meth:`validate` parses it); later calls return the same object, so
        code below the entry takes the typed settings and never parses the block again. ``defaults`` fill the
        keys the block leaves out (:meth:`training_defaults`).
        """
        typed: dict[str, ClassifierSettings] = self.__dict__.setdefault("_typed", {})
        if where not in typed:
            typed[where] = training_settings(block, where, defaults)
        return typed[where]

    def validate(self) -> list[str]:
        """The experiment's own checks beyond the rules (cross-parameter, training settings); one message each.

        Here: every parameter named in ``training_blocks`` is a valid
        :class:`~mtlib.models.ClassifierSettings`. A subclass adds its cross-parameter checks to this list.
        """
        problems: list[str] = []
        for name in self.training_blocks:
            try:
                self.training(name)
            except ParameterError as err:
                problems += err.problems
        return problems

    @classmethod
    def from_values(cls: type[S], values: Mapping[str, Any], *, strict: bool = True) -> S:
        """A checked spec from ``values`` (any subset of the parameters; the rest keep their defaults).

        Args:
            values: Parameter values, e.g. a profile's block.
            strict: A name that is not a parameter is a problem (with the closest name suggested);
                otherwise it is ignored.

        Raises:
            ParameterError: every problem, one per line.
        """
        known = {p.name for p in _parameters(cls)}
        unknown = [k for k in values if k not in known]
        if unknown and strict:
            problems = []
            for name in unknown:
                close = difflib.get_close_matches(str(name), sorted(known), n=1)
                problems.append(
                    f"{name}: {cls.notebook or cls.__name__} has no such parameter"
                    + (f"; did you mean {close[0]}?" if close else "")
                )
            raise ParameterError(problems, cls.notebook or cls.__name__)
        return cls(**{k: v for k, v in values.items() if k in known})

    @classmethod
    def from_notebook(cls: type[S], namespace: Mapping[str, Any]) -> S:
        """The spec of a running notebook from its namespace (pass ``globals()``).

        Every parameter found in ``namespace`` is taken (the cell's values, or what papermill injected) and
        checked, here, once: types, rules, :meth:`validate` (each training block parsed into its frozen
        :class:`~mtlib.models.ClassifierSettings`, kept on the spec). The runner's own check before the notebook
        started is only its early error; nothing skips this one.

        Raises:
            ParameterError: a value breaks its type, rule or the experiment's checks (fix the parameters cell).
        """
        values = {p.name: namespace[p.name] for p in _parameters(cls) if p.name in namespace}
        try:
            return cls.from_values(values, strict=False)
        except ParameterError as err:
            raise ParameterError(err.problems, f"{cls.notebook or cls.__name__} (fix the parameters cell)") from None

    def values(self) -> dict[str, Any]:
        """Every parameter's value, in cell order."""
        return {p.name: getattr(self, p.name) for p in _parameters(type(self))}


def _default(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    raise TypeError(f"spec field {f.name} has no default")


_PARAMETERS: dict[type, tuple[Parameter, ...]] = {}
_RULES: dict[type, dict[str, Rule]] = {}


def _parameters(cls: type[Spec]) -> tuple[Parameter, ...]:
    if cls not in _PARAMETERS:
        _PARAMETERS[cls] = _declare(cls)
    return _PARAMETERS[cls]


def _declare(cls: type[Spec]) -> tuple[Parameter, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        out.append(
            Parameter(
                f.name,
                _cell_type(hints[f.name]),
                _default(f),
                f.metadata.get("rule", ""),
                f.metadata.get("doc", ""),
                f"{cls.__module__.removesuffix('.spec')}.{cls.__name__}.{f.name}",
            )
        )
    last = [p for p in out if p.name == "out_dir"]
    return tuple([p for p in out if p.name != "out_dir"] + last)


def _rules(cls: type[Spec]) -> dict[str, Rule]:
    if cls not in _RULES:
        _RULES[cls] = {p.name: compile_rule(p.rule, p.owner) for p in _parameters(cls) if p.rule}
    return _RULES[cls]
