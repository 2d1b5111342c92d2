"""SETI: systematicity of textual inference (Fu & Frank 2023): notebook 07's spec, data and the paper's facts.

Intuition: a *compositional inference* chains two primitive inferences. A
*veridical* inference ``f(s) -> s`` holds for a veridical verb ("Someone
realizes that s" entails s) and fails for a non-veridical one ("Someone hopes
that s"). A *natural* inference ``s -> s'`` is a one-word substitution
(lexical: "boy" -> "kid") or an active/passive change (structural). Their
composition ``f(s) -> s'`` is entailed exactly when both are (Table 3). The
three tasks of §3.2 train a model on some primitives or compositions and test
it on compositions it has not seen; notebook 07 builds them
(:mod:`mtlib.data.seti_tasks`), trains and scores the models and tests the
paper's findings, each step a cell.

Layout (lowest level first): :mod:`~mtlib.experiments.seti._facts` (the paper's verbs, rules, Table 5, the
few-shot study, and the checks of names against them), :mod:`~mtlib.experiments.seti.spec` (notebook 07's
parameters, declared once), :mod:`~mtlib.experiments.seti._inferences` (the verb table, Table 3 as data, the
natural inferences of a SICK file).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_facts": [
            "FEWSHOT_SETUPS",
            "MISSING_RULES",
            "NON_VERIDICAL_VERBS",
            "PAPER_TABLE5",
            "RULE_SYMBOLS",
            "SETUP_NAMES",
            "TASK_SETUPS",
            "TEMPLATE",
            "VERIDICAL_VERBS",
            "SetiError",
            "check_fewshot",
            "parse_setups",
        ],
        "_inferences": [
            "extract_natural_inferences",
            "lexical_substitution",
            "rules_table",
            "structural_match",
            "subsample_pool",
            "verb_table",
        ],
    },
    moved={
        "SETTINGS": "mtlib.experiments.seti:TASK_SETUPS",
        "FEWSHOT_SETTINGS": "mtlib.experiments.seti:FEWSHOT_SETUPS",
        "parse_settings": "mtlib.experiments.seti:parse_setups",
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
