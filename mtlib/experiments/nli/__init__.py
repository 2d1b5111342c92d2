"""Pairwise compositionality of an NLI model with a hypernymy probe (Manino et al. §5.1), notebook 02.

An NLI input is the pair (C(ℓa), C(ℓb)): one context C with a placeholder,
filled with two insertions whose lexical relation is known (ℓa ⊆ ℓb, ℓa ⊇ ℓb,
or unrelated). If the model reasons compositionally, a linear probe that
reads "ℓa is a hypernym of ℓb" off the hidden states of the insertions
(s_hyp) should predict the output's entailment score (s_ent): in a downward
context more hypernymy means more entailment (same order), in an upward
context less (reversed order). Every pair of inputs inside one context is a
test case.

``run(Spec(...))`` runs it whole; the notebook calls ``load(spec)`` then
``analyse(spec, inputs)``. The modules behind this face, lowest first: ``spec``
(the parameters), ``data`` (contexts, insertions, compositions, the split),
``external`` (SICK and MED as extra training pairs, SICK TEST), ``scores`` (s_hyp
and s_ent from one forward pass per input), ``report`` (:class:`CompositionalityReport`:
Tables 3-4, up against down, the rate against chance), ``ablation`` (the NLI model retrained on each training
set: which data gives the paper's up < down), ``experiment`` (load, analyse, run).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_data": ["NLIData", "load_data"],
        "_external": ["ExternalNLI", "load_external"],
        "_report": ["CompositionalityReport", "compositionality"],
        "_ablation": ["ablation_sentence", "training_label", "training_sets"],
        "_experiment": ["NLIInputs", "ablation_of", "analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
