"""Two models' per-item results, from any evaluation tool, compared with paired statistics and gated for CI.

``python -m mtlib.paired BASELINE CANDIDATE --min-diff -0.01`` reads
lm-evaluation-harness ``--log_samples`` files, CSV/JSON Lines of per-item
metrics or saved suite results (:mod:`~mtlib.paired.readers`), pairs the items
by id (:func:`pair_items`), and per task and metric gives both means with 95%
intervals, the paired bootstrap interval of the difference, McNemar's exact
test or a sign-flip permutation test, and Holm-adjusted p-values
(:mod:`~mtlib.paired.stats`). Light: numpy, scipy and pandas, no torch.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "readers": ["read_items"],
        "stats": ["paired_stats"],
        "comparison": ["Comparison", "compare_runs", "pair_items"],
        "cli": ["main"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
