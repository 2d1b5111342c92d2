"""``python -m mtlib.suite``: exit codes, JUnit XML a JUnit reader accepts, scoring from a predictions CSV."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.relations import PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, Template
from mtlib.suite.cli import main
from mtlib.suite.predictions import needed_texts

ROOT = Path(__file__).resolve().parents[3]
GOOD, BAD = ["great", "wonderful", "excellent", "superb"], ["awful", "terrible", "boring", "dreadful"]
MODEL_FILE = """
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

GOOD, BAD = {good!r}, {bad!r}
train = [f"{{s}} {{w}}." for w in GOOD + BAD for s in ("It was", "The film was", "What a")]
labels = ["positive" if w in GOOD else "negative" for w in GOOD + BAD for _ in range(3)]
model = make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)).fit(train, labels)
bad_model = lambda texts: [float("nan")] * len(texts)


def raises(texts):
    raise RuntimeError("the model's own bug")


def hangs(texts):
    import time

    time.sleep(3600)


def probs(texts):
    return model.predict_proba(texts)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A saved suite (an MFT from a labelled template, an invariance and a pairwise test) and a model file."""
    table = {"adj": {**dict.fromkeys(GOOD, "positive"), **dict.fromkeys(BAD, "negative")}}
    template = Template(
        "{name} said the {noun} was {adj}.", {"name": "names", "noun": ["film", "plot"], "adj": GOOD + BAD}, label=table
    )
    suite = Suite("demo", n_boot=50)
    suite.add("labels", MFT(), template, threshold=0.2)
    suite.add("names", SingleInput("names", "equivalence", T.NameSwap()), template, threshold=0.1)
    suite.add("table 1", PairwiseSystematicity("T", T.manino_table1()[:2]), template, threshold=0.2)
    suite.save(tmp_path / "suite.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strict = Suite("strict").add("praise is negative", MFT("negative"), template, threshold=0.01)
    strict.save(tmp_path / "strict.json")
    (tmp_path / "my_model.py").write_text(MODEL_FILE.format(good=GOOD, bad=BAD))
    return tmp_path


def check_junit(path: Path, tests: int, failures: int) -> ET.Element:
    """The JUnit layout the readers share (Jenkins' junit schema): testsuites > testsuite > testcase (> failure)."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and root.get("tests") == str(tests) and root.get("failures") == str(failures)
    (suite,) = root.findall("testsuite")
    for attr in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
        assert suite.get(attr) is not None, attr
    float(suite.get("time"))
    cases = suite.findall("testcase")
    assert len(cases) == tests and all(
        c.get("name") and c.get("classname") and float(c.get("time")) >= 0 for c in cases
    )
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == failures
    for c in failed:
        f = c.find("failure")
        assert f.get("type") and "threshold" in f.get("message") and f.text
    try:  # a JUnit reader, where installed (the test extra installs junitparser)
        import junitparser
    except ImportError:
        return root
    xml = junitparser.JUnitXml.fromfile(str(path))
    read = [case for ts in xml for case in ts]
    assert len(read) == tests and sum(1 for case in read if not case.is_passed) == failures
    return root


def test_run_passes_exit_0_and_writes_junit_html_json(project: Path, capsys) -> None:
    argv = ["run", str(project / "suite.json"), "--model", f"{project / 'my_model.py'}:model"]
    out = [f"--junit={project / 'out.xml'}", f"--html={project / 'out.html'}", f"--json={project / 'out.json'}"]
    assert main(argv + out) == 0
    printed = capsys.readouterr().out
    assert "PASS: every test of suite 'demo' passes on" in printed and "my_model.py:model" in printed
    check_junit(project / "out.xml", tests=3, failures=0)
    assert "<html" in (project / "out.html").read_text() and '"format"' in (project / "out.json").read_text()


def test_a_failing_gate_exits_1_with_the_rate_interval_threshold_and_worst_examples(project: Path) -> None:
    argv = ["run", str(project / "strict.json"), "--model", f"{project / 'my_model.py'}:model", "--name", "tfidf"]
    assert main(argv + ["--junit", str(project / "fail.xml")]) == 1
    root = check_junit(project / "fail.xml", tests=1, failures=1)
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message").startswith("rate ") and "95% interval [" in failure.get("message")
    assert "gate bound" in failure.get("message") and "> threshold 0.0100" in failure.get("message")
    assert "worst 5 examples" in failure.text and "said the" in failure.text
    assert root.find("testsuite").get("name") == "strict on tfidf"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", "{p}/missing.json", "--model", "x"], "cannot read the suite"),
        (["run", "{p}/suite.json", "--model", "{p}/model.pkl"], "does not load pickled models"),
        (["run", "{p}/suite.json", "--model", "{p}/nowhere.py:model"], "no Python file"),
        (["run", "{p}/suite.json", "--model", "{p}/my_model.py:nothing"], "has no 'nothing'"),
        (["run", "{p}/suite.json", "--model", "no_such_module_here:model"], "cannot import module"),
        (["run", "{p}/suite.json", "--model", "no-such-registry-name"], "unknown model"),
        (["run", "{p}/suite.json", "--model", "{p}/my_model.py:bad_model"], "NaN or infinite values"),
        (["score", "{p}/suite.json", "{p}/missing.csv"], "cannot read the predictions"),
    ],
)
def test_bad_input_exits_2_and_says_what(project: Path, capsys, argv: list[str], says: str) -> None:
    assert main([a.format(p=project) for a in argv]) == 2
    assert says in capsys.readouterr().err


def scored(project: Path, texts: list[str], columns: str) -> pd.DataFrame:
    sys.path.insert(0, str(project))
    try:
        from my_model import model  # noqa: PLC0415 - the file the fixture wrote
    finally:
        sys.path.remove(str(project))
        sys.modules.pop("my_model", None)
    p = model.predict_proba(texts)
    if columns == "score":
        return pd.DataFrame({"text": texts, "score": p[:, list(model.classes_).index("positive")]})
    return pd.DataFrame({"text": texts, **{str(c): p[:, i] for i, c in enumerate(model.classes_)}})


@pytest.mark.parametrize("columns", ["classes", "score"])
def test_texts_then_score_reproduce_the_run_from_a_predictions_csv(project: Path, capsys, columns: str) -> None:
    assert main(["texts", str(project / "suite.json"), "-o", str(project / "texts.csv")]) == 0
    texts = pd.read_csv(project / "texts.csv", keep_default_na=False)["text"].tolist()
    assert texts == needed_texts(Suite.load(project / "suite.json")) and len(texts) == len(set(texts))
    scored(project, texts, columns).to_csv(project / "preds.csv", index=False)
    assert (
        main(["score", str(project / "suite.json"), str(project / "preds.csv"), "--json", str(project / "s.json")]) == 0
    )
    assert (
        main(
            [
                "run",
                str(project / "suite.json"),
                "--model",
                f"{project / 'my_model.py'}:model",
                "--json",
                str(project / "r.json"),
            ]
        )
        == 0
    )
    from mtlib.suite import SuiteResult

    a, b = SuiteResult.load(project / "s.json"), SuiteResult.load(project / "r.json")
    cols = ["rate", "cases", "violations", "passed"]
    pd.testing.assert_frame_equal(a.summary()[cols], b.summary()[cols])
    assert a.model == "preds"


def test_a_predictions_file_with_a_gap_a_word_or_nan_is_refused_clearly(project: Path, capsys) -> None:
    texts = needed_texts(Suite.load(project / "suite.json"))
    frame = scored(project, texts, "classes")
    cases = {
        "short.csv": (frame.iloc[:-2], "no prediction for 2 of the"),
        "word.csv": (
            frame.assign(positive=frame["positive"].astype(object).where(frame.index != 4, "high")),
            "line 6: column 'positive' must hold numbers, got 'high'",
        ),
        "nan.csv": (
            frame.assign(positive=np.where(frame.index == 3, np.nan, frame["positive"])),
            "nan.csv, line 5: column 'positive' must hold numbers, got an empty value",
        ),
        "notext.csv": (frame.rename(columns={"text": "sentence"}), "need a 'text' column"),
        "twice.csv": (  # the same text again, its two probabilities swapped
            pd.concat([frame, frame.head(1).assign(positive=frame["negative"][0], negative=frame["positive"][0])]),
            "has two different predictions",
        ),
    }
    for name, (data, says) in cases.items():
        data.to_csv(project / name, index=False)
        assert main(["score", str(project / "suite.json"), str(project / name)]) == 2, name
        assert says in capsys.readouterr().err, name


def test_the_module_runs_as_a_command(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mtlib.suite", "run", "strict.json", "--model", "my_model.py:model"],
        cwd=project,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MTLIB_PROGRESS": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "FAIL: 1 of 1 tests of suite 'strict'" in proc.stdout, proc.stderr[-2000:]


# -- issue 43: --timeout, JUnit on every exit, exit 3 in --help, the too-few-inputs reason, JSONL, --labels ---------


def test_help_lists_every_exit_code_and_the_timeout(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--timeout S" in text and "Exit codes: 0 every gate passes; 1 a gate fails" in text
    assert (
        "2 bad input" in text
        and "3 the model failed: it raised (traceback printed) or a call ran past --timeout" in text
    )


def test_a_hanging_model_is_stopped_by_timeout_exit_3_and_an_error_testcase(project: Path) -> None:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mtlib.suite", "run", "suite.json", "--model", "my_model.py:hangs"]
        + ["--timeout", "1.5", "--junit", "hang.xml"],
        cwd=project,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MTLIB_PROGRESS": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert time.monotonic() - start < 60  # it did not wait for the hour: the stuck call is a daemon thread
    assert "did not answer within the time limit of 1.5 s" in proc.stderr
    root = ET.parse(project / "hang.xml").getroot()
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("3", "1", "2")
    error = suite.find("testcase/error")
    assert error.get("type") == "ModelTimeout" and "time limit of 1.5 s" in error.get("message")
    assert suite.findall("testcase")[0].get("name") == "labels"  # the first test was running
    assert "not run: the run stopped at 'labels'" in suite.findall("testcase")[1].find("skipped").get("message")


def _junit_error(path: Path) -> tuple[ET.Element, ET.Element]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite.get("errors") == "1"
    return suite, suite.find("testcase/error")


def test_junit_is_written_on_exit_2_and_3_with_an_error_testcase(project: Path, capsys) -> None:
    model = f"{project / 'my_model.py'}:"
    assert (
        main(["run", str(project / "suite.json"), "--model", model + "raises", "--junit", str(project / "3.xml")]) == 3
    )
    suite, error = _junit_error(project / "3.xml")
    assert error.get("type") == "ModelError" and "RuntimeError: the model's own bug" in error.get("message")
    assert "Traceback" in error.text and suite.get("skipped") == "2"
    assert (
        main(["run", str(project / "suite.json"), "--model", model + "nothing", "--junit", str(project / "2.xml")]) == 2
    )
    suite, error = _junit_error(project / "2.xml")
    assert error.get("type") == "BadInput" and "has no 'nothing'" in error.get("message")
    assert suite.findall("testcase")[0].get("name") == "(the suite run)" and suite.get("skipped") == "3"
    assert main(["run", str(project / "missing.json"), "--model", "x", "--junit", str(project / "m.xml")]) == 2
    assert "cannot read the suite" in _junit_error(project / "m.xml")[1].get("message")
    with pytest.raises(SystemExit):  # argparse refuses the command line: CI still gets a JUnit file
        main(
            ["run", str(project / "suite.json"), "--timeout", "soon", "--model", "x", "--junit", str(project / "u.xml")]
        )
    assert _junit_error(project / "u.xml")[1].get("type") == "UsageError"
    capsys.readouterr()


def test_a_test_failing_only_for_too_few_inputs_says_so_in_the_summary_and_junit(project: Path, capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        few = Suite("few").add("praise", MFT("positive"), ["It was great.", "What a superb film."], threshold=0.05)
    few.save(project / "few.json")
    argv = ["run", str(project / "few.json"), "--model", f"{project / 'my_model.py'}:model"]
    assert main(argv + ["--junit", str(project / "few.xml")]) == 1
    out = capsys.readouterr()
    reason = "too few inputs: needs at least 73 inputs for the gate at 0.05; has 2"
    assert f"- praise: gate bound 0.6576 > 0.0500; {reason}" in out.out
    assert "warning: " in out.err and "few.json: test 'praise': 2 inputs cannot pass threshold 0.05" in out.err
    failure = ET.parse(project / "few.xml").getroot().find("testsuite/testcase/failure")
    assert failure.get("message").endswith(f"(0 of 2 cases violated); {reason}")


def test_score_reads_jsonl_and_run_reads_a_function_of_class_probabilities_with_labels(project: Path) -> None:
    texts = needed_texts(Suite.load(project / "suite.json"))
    frame = scored(project, texts, "classes")
    with (project / "preds.jsonl").open("w") as fh:
        for row in frame.to_dict("records"):
            fh.write(json.dumps(row) + "\n")
    assert main(["score", str(project / "suite.json"), str(project / "preds.jsonl")]) == 0
    model = f"{project / 'my_model.py'}:probs"
    assert main(["run", str(project / "suite.json"), "--model", model]) == 2  # (n, 2) from a function: names?
    assert main(["run", str(project / "suite.json"), "--model", model, "--labels", "negative,positive"]) == 0
