"""Pairwise systematicity of a sentiment classifier (Manino et al. §4.1), notebook 01.

Source inputs are reviews; each transformation T of the paper's Table 1
concatenates a short, neutral sentence at the start or the end. If the model
scores review x1 more positive than x2, it should also score T(x1) more
positive than T(x2); every pair of reviews is a test case.

``run(Spec(...))`` runs it whole; the notebook calls ``load(spec)`` then
``analyse(spec, data)``. The modules behind this face, lowest first: ``spec``
(the parameters), ``data`` (the reviews and the paper's transformations),
``scorer`` (s_pos from any model through :func:`mtlib.models.classifier`),
``report`` (:class:`SystematicityReport`: Tables 1-2, the misclassification
tests, figures), ``experiment`` (load, analyse, run).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_data": ["load_data", "load_dev", "table1_frame", "transformations"],
        "_scorer": ["SentimentScorer", "build_scorer", "score_follow_ups", "split_name"],
        "_report": ["SystematicityReport", "systematicity"],
        "_experiment": ["analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
