"""Notebook 02's parameters and data: pairwise compositionality of an NLI model with a hypernymy probe (Manino et
al. §5.1).

An NLI input is the pair (C(ℓa), C(ℓb)): one context C with a placeholder, filled with two insertions whose
lexical relation is known (ℓa ⊆ ℓb, ℓa ⊇ ℓb, or unrelated). The method (one forward pass per input, the
hypernymy probe, the NLI classifier, :class:`mtlib.relations.PairwiseCompositionality` over every test context,
the tests, Tables 3-4 and the training-data ablation) is the notebook's cells. The modules behind this face:
``spec`` (the parameters and the rules of an ``ablation`` entry), ``_data`` (contexts, insertions, compositions,
the split), ``_external`` (SICK and MED as extra training pairs, SICK TEST) and ``_claims`` (a model row's
conclusion, stated from its tests). The paper's values are :data:`mtlib.data.papers.MANINO_S51`.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_data": ["NLIData", "load_data"],
        "_external": ["ExternalNLI", "load_external", "subset_external"],
        "_claims": ["conclusion"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
