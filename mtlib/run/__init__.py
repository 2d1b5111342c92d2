"""The kernel side of a run: what a notebook imports to record its results.

A notebook opens its run with :class:`mtlib.run.results.Run` (``Run.from_spec(spec)``),
records metrics, tables and figures through it, and it writes where
:class:`~mtlib.run.layout.RunLayout` says, with a ``manifest.json`` of what the run
was computed from (:mod:`~mtlib.run.manifest`, :mod:`~mtlib.run.environment`); its
parameter values are checked by :mod:`~mtlib.run.params` when the runner has not
checked them. Nothing here runs a notebook: the runner (profiles, jobs, executors,
REPORT, pins, diff, script mode) and the course-book builder are the tool ``mtrun``
beside mtlib (``tools/mtrun/``, ``python -m mtrun``), which imports this package and
never the reverse. ``python -m mtlib.run`` still starts it, for one release.

Modules, lowest first: ``params`` (the parameter check), ``layout`` (paths),
``environment`` and ``manifest`` (what a run was computed from), ``results``
(what a notebook uses). This face imports none of them eagerly.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "params": ALL,
        "layout": ALL,
        "manifest": ALL,
        "results": ALL,
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
