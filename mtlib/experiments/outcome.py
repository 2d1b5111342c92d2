"""What an experiment's ``run(spec)`` returns: its reports, recorded in the one key scheme.

Intuition: a notebook runs an experiment in steps (load the data, then test
every model) so that a reader sees the data before the models run; a script,
a test or a cluster job wants the whole experiment in one call. Both get an
:class:`Outcome`: the run-level reports (data counts, cleaning reports) and one
report per model row, the first model's being the primary one (its metrics also
get plain keys). :meth:`Outcome.metrics` gives exactly the keys a notebook
records with ``run.record_outcome(outcome)``.

Example:
    >>> class Counts:
    ...     def metrics(self):
    ...         return {"n_items": 3}
    >>> class Rate:
    ...     def metrics(self):
    ...         return {"rate": 0.25}
    >>> out = Outcome(reports={"minilm": Rate(), "vader": Rate()}, parts=[Counts()])
    >>> out.metrics()
    {'n_items': 3, 'models/minilm/rate': 0.25, 'rate': 0.25, 'models/vader/rate': 0.25}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mtlib.utils.keys import missing, scheme, skipped_of

__all__ = ["Outcome"]


@dataclass
class Outcome:
    """The reports of one experiment run.

    Attributes:
        reports: Model row name -> its report (an object with ``metrics()``, optionally ``tables()`` and
            ``headline``), in the notebook's order.
        parts: Run-level reports, recorded with their keys as they are (data counts, cleaning, ground truth).
        primary: The row whose metrics also get plain keys (default: the first of ``reports``).
        data: What the experiment ran on (the loaded data), for the notebook to show.
        spec: The spec it ran with.
    """

    reports: dict[str, Any] = field(default_factory=dict)
    parts: list[Any] = field(default_factory=list)
    primary: str | None = None
    data: Any = None
    spec: Any = None

    def __post_init__(self) -> None:
        if self.primary is None and self.reports:
            self.primary = next(iter(self.reports))

    @property
    def report(self) -> Any:
        """The primary model's report."""
        if self.primary is None:
            raise ValueError("this outcome has no model reports")
        return self.reports[self.primary]

    def entries(self) -> list[tuple[Any, str | None, bool]]:
        """``(report, model, primary)`` for every report: the run-level parts first, then each model."""
        out: list[tuple[Any, str | None, bool]] = [(part, None, True) for part in self.parts]
        out += [(report, name, name == self.primary) for name, report in self.reports.items()]
        return out

    def metrics(self) -> dict[str, Any]:
        """Every value in the run's key scheme (:func:`mtlib.utils.keys.scheme`); keys a report declares
        skipped (:func:`~mtlib.utils.keys.skipped_of`) and left without a value are left out, as a run does."""
        out: dict[str, Any] = {}
        for report, model, primary in self.entries():
            values = dict(report if isinstance(report, Mapping) else report.metrics())
            skipped = skipped_of(report)
            values = {k: v for k, v in values.items() if not (k in skipped and missing(v))}
            out.update(scheme(values, model, primary))
        return out

    def extend(self, other: Outcome | Iterable[tuple[str, Any]]) -> Outcome:
        """This outcome with more model reports (another outcome's, or ``(name, report)`` pairs) appended."""
        pairs = other.reports.items() if isinstance(other, Outcome) else other
        self.reports.update(dict(pairs))
        if isinstance(other, Outcome):
            self.parts += other.parts
        return self
