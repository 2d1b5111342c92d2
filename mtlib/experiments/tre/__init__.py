"""Tree Reconstruction Error (TRE) of sentence vectors, and its correlation with tree compositionality.

TRE (Andreas 2019; extended to sentences by Bhathena et al. §4) asks how well
an encoder's sentence vectors ``f(x)`` can be rebuilt from **one learned
vector per word type** (the primitives, shared by every sentence) composed
along the sentence's parse tree by a fixed rule. The primitives (and, for the
learned linear rule, its matrix) are trained with RMSProp to minimise

    Σ_x δ(f(x), compose(d(x)))      with δ = 1 − cosine,

and TRE(x) is δ after training: near 0 when the encoder's vector of x is
what its words add up to, larger when the sentence means more (or other)
than its parts as the encoder sees them.

Composition rules:

- ``"add"`` (default): a node is the sum of its children, so a sentence is
  the sum of its words' primitives whatever the tree; evaluated for every
  sentence at once as one sparse bag-of-words product ``B @ E`` with
  ``B`` of shape ``(n_sentences, n_words)``.
- ``"linear"``: a node is ``W [a; b]`` for its children ``a, b`` (``W`` of
  shape ``(d, 2d)``, learned, initialised to ``[I I]`` so training starts
  from addition); a node with k > 2 children folds left to right, a node
  with one child passes it on. Evaluated level by level over all trees at
  once: every node of height h is one row of a single matrix product.

Either way one optimisation covers the whole data set, with no Python loop
over sentences or nodes per step. :func:`fit_tre_reference` is the naive
per-sentence recursion (compose each tree in Python, sum the losses, one
step) kept for tests and the benchmark; both give the same TRE with the
same initialisation and steps.

**Held-out sentences and unseen words.** With free primitives the fit can
drive training TRE towards 0, so :func:`tre_by_split` fits on a training
part and also scores held-out sentences with the trained primitives. A word
never seen in training has no primitive: by default (``unseen="zero"``) it
contributes the zero vector (under addition it is simply left out), and a
held-out sentence whose words are all unseen gets TRE ``nan``;
``unseen="exclude"`` gives ``nan`` to every held-out sentence with an unseen
word. Both counts are reported.

The correlations of Table 2 (Spearman with a bootstrap interval, and a
partial Spearman controlling for sentence length) are at the end.

``run(Spec(...))`` runs notebook 06 whole; the notebook calls ``load(spec)``
then ``analyse(spec, truth)``. Modules, lowest level first: :mod:`.spec` (the
parameters), :mod:`.settings` (a fit's settings as one object), :mod:`.scores`
(TI, WNS, the paper's examples), :mod:`.encoding` (trees as index arrays),
:mod:`.fit` (the objective and its fit), :mod:`.correlation` (Table 2's
correlations), :mod:`.report` (notebook 06's experiment as reports, tables and
figures), :mod:`.experiment` (load, analyse, run).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_settings": ["FitSettings"],
        "_encoding": ["build_vocabulary"],
        "_scores": ["find_paper_examples", "paper_table2", "tree_scores"],
        "_correlation": ["partial_spearman", "spearman_ci"],
        "_fit": ["fit_tre", "fit_tre_reference", "tre_by_split"],
        "_report": [
            "GroundTruth",
            "TREReport",
            "describe",
            "extreme_trees",
            "ground_truth",
            "scatter_figure",
            "sweep",
            "sweep_figure",
            "table2_from",
            "table4_examples",
            "tree_reconstruction",
        ],
        "_experiment": ["analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
