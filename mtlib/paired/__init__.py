"""Two models' per-item results, from any evaluation tool, compared with paired statistics and gated for CI.

``python -m mtlib.paired BASELINE CANDIDATE --min-diff -0.01`` reads lm-evaluation-harness ``--log_samples``
files, inspect_ai logs (``.eval``, ``.json``), CSV/JSON Lines of per-item metrics or saved suite results
(:mod:`~mtlib.paired.readers`), pairs the items by id (:func:`pair_items`), and per task and metric gives both means
with 95% intervals, the paired bootstrap interval of the difference, McNemar's exact test or a sign-flip
permutation test (:mod:`~mtlib.paired.stats`, over :mod:`mtlib.analysis.paired_tests`), Holm- and
Benjamini-Hochberg-adjusted p-values, the minimum detectable effect (:mod:`~mtlib.paired.power`), a verdict
(better, worse, equivalent, inconclusive) and a forest plot (:mod:`~mtlib.paired.plot`). Light: numpy, scipy, pandas
and zstandard, no torch; the plot uses matplotlib when it is installed.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "inspect_logs": ALL,
        "readers": ALL,
        "stats": ALL,
        "power": ALL,
        "comparison": ALL,
        "plot": ALL,
        "cli": ALL,
    },
    moved={name: f"mtlib.analysis:{name}" for name in ("holm", "paired_replicates", "sign_flip_p")},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
