"""External NLI training sets for notebook 02: SICK and MED, mapped to entailed / not entailed.

Intuition: a head trained on a few NLI-XY training contexts learns little
(0.66 against always-"not entailed" 0.59 on the real files). Two public sets
add NLI examples of the right sort: SICK (Marelli et al. 2014; its TRAIN split
trains, its TEST split gives a second, independent accuracy) and MED (Yanaka
et al. 2019; monotonicity inferences, all of it trains). Both are mapped to the
two-way label of NLI-XY: ``ENTAILMENT`` / ``entailment`` is entailed,
everything else (neutral, contradiction) is not.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mtlib.data import med, sick

#: Columns of every external frame.
COLUMNS = ["premise", "hypothesis", "entailed", "source"]


def sick_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """SICK rows (:func:`mtlib.data.sick.load_sick`) as ``premise, hypothesis, entailed, source`` (A to B).

    Args:
        frame: Rows of either SICK layout (``entailment_label`` or ``entailment_judgment``).
    """
    label = frame["entailment_label"] if "entailment_label" in frame else frame["entailment_judgment"]
    return pd.DataFrame(
        {
            "premise": frame["sentence_A"].to_numpy(),
            "hypothesis": frame["sentence_B"].to_numpy(),
            "entailed": (label == "ENTAILMENT").to_numpy(),
            "source": "sick",
        },
        columns=COLUMNS,
    )


def med_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """MED rows (:func:`mtlib.data.med.load_med`) as ``premise, hypothesis, entailed, source``."""
    return pd.DataFrame(
        {
            "premise": frame["sentence1"].to_numpy(),
            "hypothesis": frame["sentence2"].to_numpy(),
            "entailed": frame["entailed"].to_numpy(),
            "source": "med",
        },
        columns=COLUMNS,
    )


@dataclass
class ExternalNLI:
    """External pairs that train the NLI classifier, and SICK's TEST split that scores it.

    Attributes:
        train: ``premise, hypothesis, entailed, source`` (SICK TRAIN, then MED), shape ``(m, 4)``.
        sick_test: SICK TEST in the same columns, or None without SICK.
    """

    train: pd.DataFrame
    sick_test: pd.DataFrame | None = None

    def metrics(self) -> dict[str, int]:
        """Sizes: training pairs from each set, SICK TEST pairs."""
        counts = self.train["source"].value_counts()
        out = {f"nli_n_train_{src}": int(counts.get(src, 0)) for src in ("sick", "med")}
        if self.sick_test is not None:
            out["n_sick_test"] = len(self.sick_test)
        return out


def subset_external(external: ExternalNLI | None, sets: tuple[str, ...]) -> ExternalNLI | None:
    """``external`` with only the training pairs of ``sets`` (SICK TEST kept); None when nothing is left to hold.

    Args:
        external: :func:`load_external`.
        sets: Sources to keep (``sick``, ``med``; :func:`mtlib.experiments.nli.training_sets` of an ablation entry).
    """
    if external is None:
        return None
    train = external.train[external.train["source"].isin(list(sets))].reset_index(drop=True)
    if not len(train) and external.sick_test is None:
        return None
    return ExternalNLI(train, external.sick_test)


def load_external(sick_path: str = "", med_path: str = "") -> ExternalNLI | None:
    """SICK TRAIN and MED as NLI training pairs, SICK TEST for a second accuracy; None when both paths are empty.

    Args:
        sick_path: The full SICK release ``SICK.txt`` (it has the ``SemEval_set`` column: TRAIN trains, TEST
            tests, TRIAL is unused), e.g. ``nli_pool/SICK.txt`` for the bundled stand-in.
        med_path: MED's ``MED.tsv`` (every pair trains).

    Raises:
        ValueError: a SICK file without the ``SemEval_set`` column (the SemEval 2014 task files: use the
            full ``SICK.txt``, whose split keeps TEST out of training).
        DataFormatError: malformed input (from the loaders).
    """
    if not sick_path and not med_path:
        return None
    parts, test = [], None
    if sick_path:
        frame = sick.load_sick(sick_path)
        if "SemEval_set" not in frame:
            raise ValueError(
                f"{sick_path}: no SemEval_set column to keep SICK's TEST split out of training; use the full "
                "release SICK.txt"
            )
        parts.append(sick_pairs(frame[frame["SemEval_set"] == "TRAIN"]))
        test = sick_pairs(frame[frame["SemEval_set"] == "TEST"]).reset_index(drop=True)
    if med_path:
        parts.append(med_pairs(med.load_med(med_path)))
    return ExternalNLI(pd.concat(parts, ignore_index=True), test)
