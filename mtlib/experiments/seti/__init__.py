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

Layout (lowest level first): :mod:`~mtlib.experiments.seti.checks` (argument checks at the public entries),
:mod:`~mtlib.experiments.seti.facts` (the paper's verbs, rules, settings, and the checks of names against them),
:mod:`~mtlib.experiments.seti.spec` (notebook 07's parameters, declared once),
:mod:`~mtlib.experiments.seti.inferences` (templates, Table 3's labels, natural inferences of a SICK file),
:mod:`~mtlib.experiments.seti.figures` (Figures 1 and 2), :mod:`~mtlib.experiments.seti.builder` (the seven
settings and their invariants), :mod:`~mtlib.experiments.seti.scoring` (heads, fine-tuning, few-shot),
:mod:`~mtlib.experiments.seti.report` (Table 5, findings, per-model reports),
:mod:`~mtlib.experiments.seti.experiment` (``run(spec)``; the notebook: ``load(spec)`` then ``analyse(spec, data)``).
Every model goes through the classifier factory (:func:`mtlib.models.classifier`); majority baselines are
:func:`mtlib.models.baseline.majority_baseline` of the test labels.

No module is named after a name this face exports (the face imports a module on first use; a module
``build`` would shadow the function ``build`` once imported), hence ``builder``.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "facts": [
            "COLUMNS",
            "CONFIGS",
            "FEWSHOT_HOWS",
            "FEWSHOT_MODES",
            "FEWSHOT_SETTINGS",
            "FUNCTION_WORDS",
            "IRREGULAR_PARTICIPLES",
            "KINDS",
            "MISSING_RULES",
            "NEEDS_STRUCTURAL",
            "NON_VERIDICAL_VERBS",
            "PAPER_TABLE5",
            "RULE_SYMBOLS",
            "RULES",
            "SETTINGS",
            "TEMPLATE",
            "TEST_RULES",
            "TRAIN_RULES",
            "VERIDICAL_VERBS",
            "SetiError",
            "check_fewshot",
            "parse_settings",
        ],
        "checks": ["DEVICES", "TEMPLATE_FIELDS", "check_device", "check_template"],
        "inferences": [
            "composed_label",
            "embed_clause",
            "extract_natural_inferences",
            "lexical_substitution",
            "rule_of",
            "rules_table",
            "structural_match",
            "subsample_pool",
            "third_person",
            "verb_table",
            "veridical_premises",
        ],
        "figures": ["figure1", "figure2"],
        "builder": [
            "POOL_COLUMNS",
            "SetiData",
            "build",
            "build_all",
            "build_seeds",
            "check_inputs",
            "check_invariants",
            "check_setting",
            "compositional",
            "natural_sentences",
            "primitive_natural",
            "primitive_veridical",
            "sentence_components",
            "split_by_sentences",
            "universe",
            "with_shots",
        ],
        "scoring": [
            "accuracy_by_rule",
            "evaluate_fewshot",
            "evaluate_finetune",
            "evaluate_heads",
            "finetune_predictions",
            "head_predictions",
            "pair_classifier",
            "pair_predictions",
            "pairs_frame",
        ],
        "report": [
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
        "experiment": ["SetiInputs", "analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
