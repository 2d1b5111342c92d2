"""Notebook 05, Polarity Sensitivity Scoring (Bhathena, Willis, Dass, §3, Table 1, Appendices B-C): its parameters,
its data and the paper's values.

Intuition: a sentiment classifier built on a sentence encoder should notice
when a few words flip a review's polarity while its content stays the same.
The method (train a classifier per condition through
:func:`mtlib.models.classifier`, score PSS with
:mod:`mtlib.analysis.polarity_sensitivity`, tabulate, test) is in the
notebook's cells. This package keeps what the notebook reads:

- :mod:`~mtlib.experiments.pss.spec`: the parameters (:class:`Spec`);
- :mod:`~mtlib.experiments.pss._data`: the Yelp sentences and reference pairs
  (:func:`load`), stratified subsamples (:func:`subsample`), and the Appendix B
  cleaning of the rewrite pairs (:func:`clean_pairs`: a rewrite identical to
  its source is dropped, and so is one that adds no word absent from its
  source), beside the paper's 500 -> 353;
- :mod:`~mtlib.experiments.pss._paper`: the paper's Table 1 as fractions
  (:func:`paper_table1`) and ours beside it in the paper's layout
  (:func:`table1_layout`).

Units: rates are fractions in [0, 1]; the paper's Table 1 (percent) is stored as fractions too.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_data": [
            "RULE_NAMES",
            "RULES",
            "TOKENIZERS",
            "PSSData",
            "clean_pairs",
            "cleaning_note",
            "cleaning_report_with_paper",
            "load",
            "subsample",
            "tokens",
        ],
        "_paper": ["paper_table1", "table1_layout"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
