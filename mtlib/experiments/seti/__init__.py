"""SETI: systematicity of textual inference (Fu & Frank 2023), built from its ingredients.

Intuition: a *compositional inference* chains two primitive inferences. A
*veridical* inference ``f(s) -> s`` holds for a veridical verb ("Someone
realizes that s" entails s) and fails for a non-veridical one ("Someone hopes
that s"). A *natural* inference ``s -> s'`` is a one-word substitution
(lexical: "boy" -> "kid") or an active/passive change (structural). Their
composition ``f(s) -> s'`` is entailed exactly when both are (Table 3's
Boolean rules: ① T∧T→T, ② T∧F→F, ③ F∧T→F, ④ F∧F→F). The three tasks of
§3.2 train a model on some primitives or compositions and test it on
compositions it has not seen; a model that composes what it learned is
*systematic*, one that fits surface cues is not. Each task has a *trivial*
setting (the composition rules needed at test time occur in training) and a
*non-trivial* one (they do not), and each setting a *Compositional
Generalization* configuration (``cg``, the controlled split) and an
*In-Distribution* one (``id``, a random split of the same items with the same
sizes).

The package builds every setting from a pool of natural inferences (as
:func:`extract_natural_inferences` finds them in a SICK-format file) and the
30 verbs of Table 6, checks the invariants of §3.2 in code, and scores models.

Layout (lowest level first): :mod:`~mtlib.experiments.seti._checks` (argument checks at the public entries),
:mod:`~mtlib.experiments.seti._facts` (the paper's verbs, rules, settings, and the checks of names against them),
:mod:`~mtlib.experiments.seti.spec` (notebook 07's parameters, declared once),
:mod:`~mtlib.experiments.seti._inferences` (templates, Table 3's labels, natural inferences of a SICK file),
:mod:`~mtlib.experiments.seti._figures` (Figures 1 and 2), :mod:`~mtlib.experiments.seti._builder` (the seven
settings and their invariants), :mod:`~mtlib.experiments.seti._scoring` (heads, fine-tuning, few-shot),
:mod:`~mtlib.experiments.seti._report` (Table 5, findings, per-model reports),
:mod:`~mtlib.experiments.seti._experiment` (``run(spec)``; the notebook: ``load(spec)`` then ``analyse(spec, data)``).
Every model goes through the classifier factory (:func:`mtlib.models.classifier`); majority baselines are
:func:`mtlib.models.training.baseline.majority_baseline` of the test labels.

No module is named after a name this face exports (the face imports a module on first use; a module
``build`` would shadow the function ``build`` once imported), hence ``builder``.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_facts": ["SETTINGS", "TEMPLATE", "TEST_RULES", "SetiError", "check_fewshot", "parse_settings"],
        "_checks": ["check_template"],
        "_inferences": [
            "composed_label",
            "extract_natural_inferences",
            "rule_of",
            "rules_table",
            "structural_match",
            "subsample_pool",
            "verb_table",
            "veridical_premises",
        ],
        "_figures": ["figure1", "figure2"],
        "_builder": ["SetiData", "build", "build_all", "build_seeds", "check_invariants", "universe", "with_shots"],
        "_scoring": ["accuracy_by_rule", "evaluate_fewshot", "head_predictions", "pair_classifier", "pair_predictions"],
        "_report": [
            "PoolReport",
            "SetiReport",
            "by_model",
            "concat",
            "fewshot_report",
            "findings",
            "finetune_report",
            "head_report",
            "natural_pool",
            "rule_table",
            "table5",
            "test_findings",
        ],
        "_experiment": ["SetiInputs", "analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
