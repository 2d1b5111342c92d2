"""Bad notebook parameters and bad profiles fail before any work, with one clear message each.

Every case of issue 13 (notebook parameters, profiles, runner options) is one
parametrised row; nothing here executes a notebook, so it runs in seconds.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import mtrun as runner
from mtlib.experiments import spec_for
from mtlib.run import params as P
from mtlib.run import results
from mtlib.utils import rules as R

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = {p.stem[:2]: p for p in NB_DIR.glob("[0-9][0-9]_*.ipynb")}

# (notebook, parameter, bad value, words the message must contain)
BAD = [
    ("02", "permutations", 0, ">= 1"),
    ("04", "permutations", 0, ">= 1"),
    ("03", "vocabulary_split", "bogus", "one of test, all"),
    ("04", "max_adjectives_per_type", -1, ">= 0"),
    ("04", "max_split_distance", -1, "in [0, 2]"),
    ("01", "n_boot", 0, ">= 1"),
    ("02", "n_boot", 0, ">= 1"),
    ("03", "n_boot", 0, ">= 1"),
    ("05", "n_boot", 0, ">= 1"),
    ("06", "n_boot", 0, ">= 1"),
    ("03", "n_sample", -1, ">= 0"),
    ("01", "models", [], "at least one entry"),
    ("02", "models", [], "at least one entry"),
    ("03", "models", [], "at least one entry"),
    ("04", "models", [], "at least one entry"),
    ("06", "models", [], "at least one entry"),
    ("01", "n_sources", "5", "an integer"),  # '<' not supported between 'int' and 'str' before
    ("02", "max_contexts", "16", "an integer"),
    ("03", "max_vocabulary", 2.5, "an integer"),
    ("06", "steps", True, "an integer"),
    ("03", "how", "yes", "one of head, finetune"),
    ("04", "replace_bundled", "yes", "true or false"),
    ("01", "train_fraction", 1.5, "in (0, 1)"),
    ("02", "train_contexts_fraction", 0, "in (0, 1)"),
    ("06", "heldout_fraction", 1.0, "in [0, 1)"),
    ("01", "data_format", "tree", "one of auto, sentences, trees"),
    ("01", "extra_transformations", [["so bad"]], "a list of 2 entries"),
    ("03", "languages", ["english", "klingon"], "one of english, german"),
    ("03", "head_settings", {"head": "svm"}, "unknown head='svm'; choose one of linear, mlp"),
    ("03", "finetune_settings", {"lr": 0}, "lr must be a finite number > 0"),
    ("03", "finetune_settings", {"pooling": "max"}, "pooling must be one of mean, first"),
    ("01", "finetune_settings", {"epochs": 0}, "epochs must be a whole number >= 1"),
    ("02", "finetune_settings", {"learning_rate": 1e-5}, "unknown key(s) ['learning_rate']"),
    ("04", "backend", "tensorrt", "one of auto, torch, onnx"),
    ("05", "heads", ["linear", "svm"], "one of linear, mlp"),
    ("05", "finetune", ["bert"], "entries of encoders"),
    ("05", "clean_tokens", "chars", "one of whitespace, words"),
    ("05", "n_pairs", -3, ">= 0"),
    ("05", "finetune_settings", {"minilm": {"learning_rate": 1}}, "unknown key(s) ['learning_rate']"),
    ("06", "composition", "mul", "one of add, linear"),
    ("06", "wns_weight", "width", "one of height, depth, uniform"),
    ("06", "sweep_steps", [10, -1], ">= 1"),
    ("07", "seeds", [], "at least one entry"),
    ("07", "seeds", [0, "1"], "an integer"),
    ("07", "fewshot_mode", "append", "one of add, continue"),
    ("07", "finetune_tasks", ["4/trivial"], "one of all, 1/trivial"),
    ("07", "finetune_settings", {"epochs": 0}, "epochs must be a whole number >= 1"),
    ("07", "shots", [0, -2], ">= 0"),
    ("07", "n_lexical", -1, ">= 0"),
]


def _defaults(number: str) -> dict:
    return {k: d.default for k, d in P.declared(NOTEBOOKS[number]).items()}


@pytest.mark.parametrize("number,name,value,expected", BAD, ids=[f"{n}-{k}={v!r}" for n, k, v, _ in BAD])
def test_bad_value_is_refused_naming_the_parameter(number, name, value, expected):
    values = {**_defaults(number), name: value}
    _, problems, _ = P.check(NOTEBOOKS[number], values)
    assert problems, f"{number}.{name}={value!r} was accepted"
    text = "\n".join(problems)
    assert name in text and expected in text, text


@pytest.mark.parametrize("stem", sorted(p.stem for p in NB_DIR.glob("[0-9][0-9]_*.ipynb")))
def test_every_notebook_has_one_spec_whose_defaults_pass(stem):
    notebook = NB_DIR / f"{stem}.ipynb"
    spec = spec_for(stem)
    assert spec is not None and spec.notebook == stem
    declared = P.declared(notebook)
    assert set(declared) == {p.name for p in spec.parameters()}
    _, problems, _ = P.check(notebook, {k: d.default for k, d in declared.items()})
    assert problems == []
    assert all(d.type in P.TYPES for d in declared.values()), {d.name: d.type for d in declared.values()}
    spec()  # the defaults build a checked spec


@pytest.mark.parametrize("profile", ["smoke", "quick", "real", "paper"])
def test_shipped_profiles_pass_the_check(profile):
    jobs = runner.build_jobs(profile, root=ROOT)
    assert {j.stem: j.problems for j in jobs if j.problems} == {}


def test_runner_refuses_bad_values_before_papermill_and_keeps_the_others():
    jobs = runner.build_jobs("smoke", root=ROOT, overrides=["02.permutations=0", "03.vocabulary_split=bogus"])
    bad = {j.stem[:2]: j.problems for j in jobs if j.problems}
    assert set(bad) == {"02", "03"}
    assert "02.permutations = 0: expected >= 1" in bad["02"][0] and "of mtlib.experiments.nli" in bad["02"][0]
    runnable, failed = runner.preflight(jobs, ROOT)
    assert {r.stem[:2] for r in failed} == {"02", "03"} and all(r.status == "failed" for r in failed)
    assert "bad parameters" in failed[0].error and len(runnable) == len(jobs) - 2


def test_a_string_for_a_list_is_wrapped_by_the_runner_with_a_note(capsys):
    jobs = runner.build_jobs("smoke", only=["01"], root=ROOT, overrides=["01.models=minilm"])
    assert jobs[0].parameters["models"] == ["minilm"] and not jobs[0].problems
    assert "wrapped into the list ['minilm']" in capsys.readouterr().out


def test_a_misspelt_parameter_is_an_error_with_a_suggestion():
    jobs = runner.build_jobs("smoke", only=["01"], root=ROOT, overrides=["01.n_bot=3"])
    assert jobs[0].problems and "did you mean 'n_boot'" in jobs[0].problems[0]


def test_run_in_jupyterlab_checks_the_same_rules(tmp_path):
    stem = NOTEBOOKS["03"].stem
    with pytest.raises(P.ParameterError, match=r"vocabulary_split = 'bogus': expected one of test, all"):
        results.Run(stem, profile="t", out_dir=str(tmp_path), params={"vocabulary_split": "bogus"})
    with pytest.raises(P.ParameterError, match=r"models = 'minilm': expected a list .*write \[minilm\]"):
        results.Run(stem, profile="t", out_dir=str(tmp_path), params={"models": "minilm"})
    run = results.Run(stem, profile="t", out_dir=str(tmp_path), params={"models": ["minilm"], "n_boot": 5})
    assert run.layout.params_path.exists()
    results.Run("not_a_notebook", profile="t", out_dir=str(tmp_path), params={"n_boot": 0})  # nothing to check


def test_run_from_notebook_reads_the_declared_parameters_of_the_namespace(tmp_path):
    stem = NOTEBOOKS["03"].stem
    namespace = {
        **{k: d.default for k, d in P.declared(NOTEBOOKS["03"]).items()},
        "out_dir": str(tmp_path),
        "profile": "t",
        "pd": object(),
        "n_boot": 7,
    }
    run = results.Run.from_notebook(stem, namespace)
    saved = yaml.safe_load(run.layout.params_path.read_text())
    assert run.profile == "t" and saved["n_boot"] == 7 and "pd" not in saved
    assert set(saved) == set(P.declared(NOTEBOOKS["03"]))
    with pytest.raises(P.ParameterError, match=r"vocabulary_split = 'bogus'"):
        results.Run.from_notebook(stem, {**namespace, "vocabulary_split": "bogus"})


def test_the_kernel_checks_what_it_receives_whatever_the_environment_says(tmp_path, monkeypatch):
    """No environment flag skips the kernel's check (the old ``$MTLIB_PARAMS_CHECKED`` bypass is gone)."""
    stem = NOTEBOOKS["03"].stem
    monkeypatch.setenv(P.CHECKED_ENV, stem)
    with pytest.raises(P.ParameterError, match=r"vocabulary_split = 'bogus'"):
        results.Run(stem, profile="t", out_dir=str(tmp_path), params={"vocabulary_split": "bogus"})
    spec = spec_for("03")
    namespace = {**spec().values(), "finetune_settings": {"epochs": 0}}
    with pytest.raises(P.ParameterError, match="epochs must be a whole number"):
        spec.from_notebook(namespace)


def test_the_runner_sets_no_flag_that_skips_the_kernels_check():
    for job in runner.build_jobs("smoke", root=ROOT):
        assert P.CHECKED_ENV not in job.env


def test_notebook_05_rules_cover_what_it_checked_itself():
    rules = spec_for("05").rules()
    values = {"encoders": [], "native": [], "heads": ["linear"], "seeds": [0], "finetune": []}
    assert [p for p in rules["encoders"].problems([], values)]  # nothing to score
    values = {"encoders": ["minilm"], "native": [], "heads": [], "seeds": [], "finetune": []}
    assert rules["heads"].problems([], values) and rules["seeds"].problems([], values)
    assert rules["heads"].problems(["cnn"], values)
    assert rules["finetune_heads"].problems({"minilm": ["mlp"]}, {"heads": ["linear"], "finetune": ["minilm"]})
    assert rules["seeds"].problems([], {"encoders": []}) == []  # native analysers only: no training, no seeds


# -- the rule language ---------------------------------------------------------------------------------------------
RULE_CASES = [
    (">= 1", 1, True),
    (">= 1", 0, False),
    (">= 1", "1", False),
    (">= 1", True, False),
    ("> 0", 1e-9, True),
    ("< 1", 1, False),
    ("!= 0", 0, False),
    ("!= 0", -1, True),
    ("in [0, 1)", 0, True),
    ("in [0, 1)", 1, False),
    ("in (0, 1]", 0, False),
    ("in (0, 1]", 1.0, True),
    ("one of a, b", "a", True),
    ("one of a, b", "c", False),
    ("one of 1, 2", 1, True),
    ("one of 1, 2", "1", False),
    ("non-empty", [], False),
    ("non-empty", "x", True),
    ("non-empty", {}, False),
    ("length 2", ["a", "b"], True),
    ("length 2", ["a"], False),
    ("each int", [1, 2], True),
    ("each int", [1, 2.0], False),
    ("each int", [True], False),
    ("each each str", [["a"], ["b", 1]], False),
    ("keys one of a", {"a": 1}, True),
    ("keys one of a", {"b": 1}, False),
    ("list", "x", False),
    ("dict", {}, True),
    ("bool", 0, False),
    ("float", 1, True),
    ("non-empty; each >= 0", [0, 3], True),
    ("non-empty; each >= 0", [0, -3], False),
]


@pytest.mark.parametrize("rule,value,ok", RULE_CASES, ids=[f"{r}|{v!r}" for r, v, _ in RULE_CASES])
def test_rule_language(rule, value, ok):
    assert (R.compile_rule(rule, "t:1").problems(value, {}) == []) is ok


def test_subset_rule_reads_the_other_parameter():
    rule = R.compile_rule("subset of encoders", "t:1")
    assert rule.problems(["a"], {"encoders": ["a", "b"]}) == []
    assert rule.problems(["c"], {"encoders": ["a", "b"]})
    assert rule.problems(["c"], {}) == []  # the other parameter is not known here: nothing to compare


def test_head_rules_are_built_from_the_one_list_of_heads():
    from mtlib.experiments import specs
    from mtlib.models.training.heads import HEADS

    rules = [p.rule for spec in specs().values() for p in spec.parameters() if "one of linear" in p.rule]
    assert rules and all(f"one of {', '.join(HEADS)}" in rule for rule in rules), rules


def test_no_rules_file_beside_the_notebooks():
    assert not (NB_DIR / "parameters.yaml").exists()  # the specs declare every rule, once


def test_non_empty_if_and_unless_read_the_other_parameter():
    when = R.compile_rule("non-empty if encoders", "t:1")
    assert when.problems([], {"encoders": ["a"]}) and when.problems([], {"encoders": []}) == []
    unless = R.compile_rule("non-empty unless native", "t:1")
    assert unless.problems([], {"native": []}) and unless.problems([], {"native": ["vader"]}) == []


def _cell_notebook(path: Path, cell: str) -> Path:
    import nbformat

    params = nbformat.v4.new_code_cell(cell)
    params.metadata["tags"] = ["parameters"]
    nbformat.write(nbformat.v4.new_notebook(cells=[params]), path)
    return path


def test_a_notebook_without_a_spec_declares_its_rules_in_its_cell(tmp_path):
    notebook = _cell_notebook(
        tmp_path / "08_mine.ipynb",
        'n_boot: int = 10  # replicates | >= 1\nname: str = "x"  # a name, no rule\n'
        "seed: int = 0  # a seed | positive\n",
    )
    decl = P.declared(notebook)
    assert decl["n_boot"].rule == ">= 1" and decl["n_boot"].doc == "replicates" and decl["name"].rule == ""
    _, problems, _ = P.check(notebook, {"n_boot": 0})
    assert problems and "08_mine.ipynb parameters cell, line 1" in problems[0]
    _, problems, _ = P.check(notebook, {"seed": 1})
    assert problems == [
        "08_mine.ipynb parameters cell, line 3: unknown rule clause 'positive'; the rule language "
        "is described in mtlib/utils/rules.py"
    ]


# -- profiles and runner options -----------------------------------------------------------------------------------
PROFILES = [
    ("yaml-error", "notebooks:\n  '01':\n    n_boot: 5\n   bad: [\n", r"\.yaml:4:\d+: not valid YAML"),
    ("notebooks-as-list", "notebooks:\n  - '01'\n", r"\.yaml:1: 'notebooks' must be a mapping"),
    ("block-as-list", "notebooks:\n  '01': [n_boot]\n", r"\.yaml:2: notebooks.01 must be a mapping"),
    ("top-level-list", "- 01\n", r"\.yaml:1: a profile is a mapping"),
    ("unknown-top-key", "'01':\n  n_boot: 3\n", r"\.yaml:1: unknown top-level key\(s\) '01'"),
    ("unknown-notebook", "notebooks:\n  '09':\n    n_boot: 3\n", r"unknown notebook key\(s\) '09' \(.*\.yaml:2\)"),
    (
        "duplicate-key",
        "notebooks:\n  01:\n    n_boot: 3\n  1:\n    n_boot: 4\n",
        r"\.yaml:4: notebook 01 is given twice",
    ),
    ("latin-1", "notebooks:\n  '01':\n    data_path: caf\xe9\n", r"\.yaml:3: not UTF-8 text"),
]


@pytest.mark.parametrize("name,text,message", PROFILES, ids=[p[0] for p in PROFILES])
def test_bad_profile_is_refused_naming_file_and_line(tmp_path, name, text, message):
    path = tmp_path / "mine.yaml"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(SystemExit) as err:
        runner.build_jobs(str(path), root=ROOT)
    assert re.search(message, str(err.value)), str(err.value)


def test_unquoted_notebook_keys_are_read_as_written(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("notebooks:\n  01:\n    n_boot: 7\n  7:\n    seeds: [3]\n")
    data = runner.load_profile(NB_DIR, str(path))
    assert set(data["notebooks"]) == {"01", "07"}  # YAML alone reads 01 and 7 as the integer 1 and 7
    jobs = {j.stem[:2]: j for j in runner.build_jobs(str(path), root=ROOT)}
    assert jobs["01"].parameters["n_boot"] == 7 and jobs["07"].parameters["seeds"] == [3]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--timeout", "-5"], "expected a positive number of seconds"),
        (["--timeout", "0"], "expected a positive number of seconds"),
        (["--timeout", "soon"], "expected a number of seconds"),
        (["--out-dir", "{file}"], "is a file, not a folder"),
        (["--out-dir", "{file}/below"], "is a file, not a folder"),
        (["-p", "01.models=[minilm"], "not valid YAML"),
        (["-p", "01.models"], "expected NN.key=value"),
        (["--backend", "tensorrt"], "argument --backend: invalid choice: 'tensorrt'"),
    ],
    ids=[
        "timeout-negative",
        "timeout-zero",
        "timeout-text",
        "out-dir-file",
        "out-dir-below-file",
        "p-yaml",
        "p-no-eq",
        "backend",
    ],
)
def test_bad_runner_options_fail_with_one_message(tmp_path, capsys, args, message):
    target = tmp_path / "a-file"
    target.write_text("x")
    args = [a.replace("{file}", str(target)) for a in args]
    with pytest.raises(SystemExit) as err:  # SystemExit: Python prints the message, no traceback
        runner.main(["--profile", "smoke", "--list", "--root", str(ROOT), *args])
    assert err.value.code != 0 and message in f"{err.value.code} {capsys.readouterr().err}"


def test_bad_option_on_the_command_line_prints_no_traceback(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mtrun",
            "--profile",
            "smoke",
            "--list",
            "--root",
            str(ROOT),
            "--out-dir",
            str(target),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1 and "is a file, not a folder" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("which", ["99", "one past the last", "one before the first"])
def test_layer_out_of_range_names_the_parameter_when_the_model_is_loaded(tiny_bert_dir, which):
    from mtlib import models

    model = models.load(str(tiny_bert_dir), device="cpu")
    n = model.num_layers
    layer = {"99": 99, "one past the last": n + 1, "one before the first": -(n + 2)}[which]
    assert model.features(["a tree"], layer=-(n + 1)).pooled.shape[0] == 1  # the ends of the range work
    with pytest.raises(ValueError, match=rf"layer={layer}: .* has {n} layers.*'layer' parameter.*-{n + 1}\.\.{n}"):
        model.features(["a tree"], layer=layer)
