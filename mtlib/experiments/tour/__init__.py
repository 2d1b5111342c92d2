"""The teaching tour (notebook 00): a suite of seven tests, a failing case, two models compared, exercises.

The pieces: :mod:`~mtlib.experiments.tour._data` (the template sentences and the review sample),
:mod:`~mtlib.experiments.tour._report` (what the tour records), :mod:`~mtlib.experiments.tour._exercises`
(the three exercises, judged on the run), :mod:`~mtlib.experiments.tour.spec` and
:mod:`~mtlib.experiments.tour._experiment` (the notebook's parameters, its inputs and the suite).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_data": ["TourInputs"],
        "_report": ["failing_summary", "metrics"],
        "_exercises": ["check_decrease", "check_invariance", "check_prediction"],
        "_experiment": ["load", "suite"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
