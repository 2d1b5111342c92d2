"""A researcher's edit is a cell: the README's edits and one more per notebook 02-07, each made on a copy of a
notebook and run in the smoke profile.

The README ("The notebooks") shows three: 03 with cosine-threshold heads, 01 with one more transformation, 05
with another encoder. Each test makes one edit on a copy (the tracked notebook is untouched), runs the copy as a
plain script with the smoke profile's values, and checks that the edit changed what it says it changes. The pins
of ``expected.yaml`` are not checked on the copy: changing the pinned values is the point of an edit.

The smoke values the edits are compared with (``BASE``) are the unedited notebooks' smoke metrics (pinned in
``notebooks/profiles/expected.yaml`` or measured on the unedited run).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mtlib.run.layout import RunLayout
from tests.smoke_runs import ROOT, smoke_env
from tests.warm import run_python

NOTEBOOK = ROOT / "notebooks" / "01_pairwise_sentiment_systematicity.ipynb"
#: The README's edit: one line added to the list of transformations, after T6.
AFTER = '    Concatenation("Here is my review:", "start", name="T6"),\n'
ADDED = '    Concatenation("The cinema was cold.", "end", name="T7"),\n'


@pytest.mark.slow
def test_01_with_one_more_transformation_runs_and_counts_it(tmp_path):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and AFTER in c["source"]]
    assert len(cells) == 1, "the transformations are one visible list in one cell of notebook 01"
    cells[0]["source"].insert(cells[0]["source"].index(AFTER) + 1, ADDED)
    copy = tmp_path / NOTEBOOK.name
    copy.write_text(json.dumps(nb), encoding="utf-8")
    out = tmp_path / "out"
    cmd = ["-m", "mtrun.script", str(copy), "--profile", "smoke", "--out-dir", str(out)]
    done = run_python([*cmd, "--quiet", "--cwd", str(ROOT / "notebooks")], env=smoke_env())
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads(RunLayout(out, "smoke", NOTEBOOK.stem).metrics_path.read_text())
    assert metrics["n_transformations"] == 7
    assert 0.0 <= metrics["violation_rate/T7"] <= 1.0
    assert metrics["violation_rate/T6"] >= 0.0  # the paper's six are still there


# --- one more edit per notebook 02-07 -------------------------------------------------------------------------


def edited_run(
    tmp_path: Path, stem: str, old: str | re.Pattern[str], new: str, *, fails: bool = False, where: str = ""
) -> dict[str, Any]:
    """Notebook ``stem`` with ``old`` replaced by ``new`` in the one code cell holding it, run on a copy in the smoke
    profile; its metrics (or, with ``fails``, the failed run's stderr under ``"stderr"``).

    ``old`` is a text, or a pattern that must match exactly once in that cell (``new`` may name its groups: a
    reformatted cell still matches); ``where``, a text the edited cell must also hold (the definition of the
    function the edit is about), so that the cell is found by what it defines. An edit that changes nothing fails.
    """
    notebook = ROOT / "notebooks" / f"{stem}.ipynb"
    nb = json.loads(notebook.read_text(encoding="utf-8"))

    def holds(source: str) -> bool:
        return where in source and bool(old.search(source) if isinstance(old, re.Pattern) else old in source)

    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and holds("".join(c["source"]))]
    assert len(cells) == 1, f"{stem}: the edited text is in one code cell, found {len(cells)}"
    source = "".join(cells[0]["source"])
    if isinstance(old, re.Pattern):
        edited, count = old.subn(new, source)
        assert count == 1, f"{stem}: {old.pattern!r} matches once in the edited cell, found {count}"
    else:
        edited = source.replace(old, new)
    assert edited != source, f"{stem}: the edit changes nothing"
    cells[0]["source"] = edited
    copy = tmp_path / notebook.name
    copy.write_text(json.dumps(nb), encoding="utf-8")
    out = tmp_path / "out"
    cmd = ["-m", "mtrun.script", str(copy), "--profile", "smoke", "--out-dir", str(out)]
    done = run_python([*cmd, "--quiet", "--cwd", str(ROOT / "notebooks")], env=smoke_env())
    if fails:
        assert done.returncode != 0, "the edit should have been refused"
        return {"stderr": done.stderr + done.stdout}
    assert done.returncode == 0, done.stderr[-3000:]
    return {**json.loads(RunLayout(out, "smoke", stem).metrics_path.read_text()), "_out": out}


#: The probe's regularisation in 02's probe cell: ``C=1.0`` of its linear head, in any spacing, line breaks or quotes
#: (group 1 keeps everything before the value).
PROBE_C = re.compile(r"""(head\s*=\s*["']linear["']\s*,\s*C\s*=\s*)1(?:\.0+)?(?![\w.])""")


@pytest.mark.slow
def test_02_with_a_strongly_regularised_probe(tmp_path):
    """Another probe: C = 1e-4 instead of 1 (the logistic probe on the states of the two insertions)."""
    metrics = edited_run(tmp_path, "02_nli_probe_compositionality", PROBE_C, r"\g<1>1e-4", where="def hypernymy_probe(")
    assert 0.0 <= metrics["probe_accuracy"] <= 1.0
    assert metrics["probe_accuracy"] != pytest.approx(0.9970845481049563)  # the unedited smoke run's


def test_02_probe_edit_finds_the_probe_s_c_however_the_call_is_laid_out():
    """The 02 edit's pattern matches once in the whole notebook, in the probe's cell, and still matches the call
    reflowed one keyword per line with single quotes (as a formatter may lay it out), replacing only the value."""
    nb = json.loads((ROOT / "notebooks" / "02_nli_probe_compositionality.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    matched = [s for s in sources if PROBE_C.search(s)]
    assert len(matched) == 1 and len(PROBE_C.findall(matched[0])) == 1 and "def hypernymy_probe(" in matched[0]
    reflowed = "classifier(\n    z_train,\n    how='head',\n    head='linear',\n    C=1.0,\n    settings=s,\n)"
    assert PROBE_C.subn(r"\g<1>1e-4", reflowed) == (reflowed.replace("C=1.0", "C=1e-4"), 1)
    assert PROBE_C.search(reflowed.replace("C=1.0", "C=1.05")) is None  # another value is not the probe's C=1


@pytest.mark.slow
def test_03_with_cosine_threshold_heads_the_readme_edit(tmp_path):
    """The README's 03 edit: heads that threshold the cosine of the two words' vectors, per relation the threshold
    with the highest balanced accuracy on the training pairs; every later cell uses them unchanged."""
    heads = '''def frozen_heads(encoder, train, test, *, spec, context):
    """Cosine-threshold heads: a pair is the relation's when cos(u, v) is above a threshold fitted on train (no
    trained head: spec's head settings and the context are not needed)."""
    encoder.embed(lexical.vocabulary(pd.concat([train, test])))

    def unit(words):
        vectors = encoder.embed(list(words))
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    cos = (unit(train.word1) * unit(train.word2)).sum(1)
    cut = {}
    for rel in lexical.RELATIONS:
        gold = lexical.relation_labels(train, rel)
        cut[rel] = max(np.unique(cos), key=lambda t: ((cos > t)[gold].mean() + (cos <= t)[~gold].mean()) / 2)

    def score(words1, words2):
        c = (unit(words1) * unit(words2)).sum(1)
        return {rel: (c > t).astype(float) for rel, t in cut.items()}

    def matrix(words):
        W = unit(words)
        return {rel: (W @ W.T > t).astype(float) for rel, t in cut.items()}

    return score, matrix
'''
    notebook = json.loads((ROOT / "notebooks" / "03_cogalex_transitivity.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in notebook["cells"] if "".join(c["source"]).startswith("def frozen_heads("))
    metrics = edited_run(tmp_path, "03_cogalex_transitivity", cell, heads)
    for rel, trained in (("syn", 0.4444444444444444), ("hyp", 0.391812865497076)):  # the trained heads' smoke rates
        rate = metrics[f"violation_rate/english/{rel}"]
        assert 0.0 <= rate <= 1.0 and rate != pytest.approx(trained)


@pytest.mark.slow
def test_03_refuses_a_head_that_returns_a_margin_at_the_cell_that_calls_it(tmp_path):
    """A broken contract: score returns a logit instead of a probability; the run stops naming the function."""
    old = "return {rel: h.classify(list(words1), list(words2))[:, h.label_index(True)]"
    margin = "return {rel: h.log_odds(list(words1), True, list(words2))"
    failed = edited_run(tmp_path, "03_cogalex_transitivity", old, margin, fails=True)
    assert "ContractError: score of minilm (english, syn) must return finite values in [0.0, 1.0]" in failed["stderr"]


@pytest.mark.slow
def test_04_with_a_word_list_of_ones_own_kept_under_the_smoke_caps(tmp_path):
    """Another word list: two adjectives and a noun of one's own; the smoke caps (2 per type, 3 nouns) keep them."""
    mine = tmp_path / "mine.tsv"
    mine.write_text("word\tclass\nglorious\tS-I\nfake\tNS-Pr\nteapot\tnoun\n", encoding="utf-8")
    old = "spec = montague.Spec.from_notebook(globals())"
    new = f"word_lists = [{str(mine)!r}]\nspec = montague.Spec.from_notebook(globals())"
    metrics = edited_run(tmp_path, "04_montague_adjectives", old, new)
    table = pd.read_csv(
        RunLayout(metrics["_out"], "smoke", "04_montague_adjectives").tables_dir / "per_adjective_intersective_an.csv"
    )
    shown = " ".join(table.astype(str).to_numpy().ravel())
    assert "glorious" in shown and "fake" in shown, "the user's adjectives reach the tables"


@pytest.mark.slow
def test_05_with_another_encoder_and_one_listed_twice(tmp_path):
    """The README's 05 cell edit (one more encoder: glove-50d, not in the smoke profile's encoders), and the same
    edit with a name already listed, refused there."""
    old = "encoders = list(spec.encoders)"
    metrics = edited_run(tmp_path, "05_polarity_sensitivity", old, 'encoders = [*spec.encoders, "glove-50d"]')
    assert 0.0 <= metrics["models/glove-50d/pss/linear/FB"] <= 1.0
    (tmp_path / "twice").mkdir()
    failed = edited_run(tmp_path / "twice", "05_polarity_sensitivity", old,
                        'encoders = [*spec.encoders, "minilm-static"]', fails=True)  # fmt: skip
    assert "encoders lists 'minilm-static' twice (entries [0] and [1])" in failed["stderr"]


@pytest.mark.slow
def test_05_refuses_a_classifier_that_returns_margins_at_the_cell_that_calls_it(tmp_path):
    """A broken contract: train_classifier's FB head answers margins (minus and plus its log-odds) instead of class
    probabilities; the run stops at the labelling cell, naming the setting and what was expected."""
    old = (
        '        return mt_models.classifier(loaded[encoder], data.train, how="head", head=head, '
        "settings=spec.head_training(),\n                                    seed=train_seed, context=context)\n"
    )
    new = (
        '        fitted = mt_models.classifier(loaded[encoder], data.train, how="head", head=head, '
        "settings=spec.head_training(), seed=train_seed, context=context)\n"
        "        margin = fitted.log_odds\n"
        "        fitted.classify = lambda texts, text_pairs=None: np.stack(\n"
        "            [-margin(texts, 1), margin(texts, 1)], axis=1)\n"
        "        return fitted\n"
    )
    failed = edited_run(tmp_path, "05_polarity_sensitivity", old, new, fails=True)
    want = "ContractError: train_classifier('minilm-static', 'linear', 'FB').classify must return finite values in"
    assert f"{want} [0.0, 1.0] of shape (2, 2)" in failed["stderr"]


@pytest.mark.slow
def test_06_with_another_distance(tmp_path):
    """Another distance: the angle between the vectors (scaled to [0, 2]) instead of 1 - cos."""
    old = "    return 1.0 - dot / (composed.norm(dim=-1) * target.norm(dim=-1)).clamp_min(1e-12)"
    new = ("    cos = dot / (composed.norm(dim=-1) * target.norm(dim=-1)).clamp_min(1e-12)\n"
           "    return torch.arccos(cos.clamp(-1.0, 1.0)) * (2 / torch.pi)")  # fmt: skip
    metrics = edited_run(tmp_path, "06_tree_reconstruction_error", old, new)
    assert 0.0 <= metrics["tre_mean/train"] <= 2.0
    assert metrics["tre_mean/train"] != pytest.approx(0.005704415696007865)  # 1 - cos's smoke value


@pytest.mark.slow
def test_07_with_another_composition_rule(tmp_path):
    """Another rule: F∧T→T (rule 3 entails). Task 2 non-trivial's CG test set (rules 2 and 3) is then no longer all
    non-entailment, so its majority baseline falls below 1."""
    old = "rules = seti.rules_table()  # Table 3"
    new = 'rules = seti.rules_table()\nrules.loc[3, "CI"] = 1  # Table 3'
    metrics = edited_run(tmp_path, "07_seti", old, new)
    assert metrics["baseline/task2/non-trivial/cg"] < 1.0
