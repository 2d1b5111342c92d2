"""Build the wheel, install only the core into a fresh virtualenv, run a suite and the CLI there; print figures.

Run by ``tests/unit/suite/test_core.py::test_the_wheel_installs_the_core_into_a_fresh_venv`` (opt-in:
``MTLIB_INSTALL_TEST=1``, it takes about a minute and needs the package registry or pip's cache) or by hand::

    python tests/unit/suite/core_install.py [WORKDIR]

It prints one JSON line: the wheel's size, the venv's size, the seconds to build and to install, the median
time of ``import mtlib.suite`` in a fresh interpreter (5 runs), and whether torch was importable (never).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import sys
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from mtlib.relations import PairwiseSystematicity, SingleInput, transformations as T
from mtlib.suite import MFT, Suite, generate

good, bad = ["great", "wonderful", "excellent", "superb"], ["awful", "terrible", "boring", "dreadful"]
label = {"adj": {**dict.fromkeys(good, "positive"), **dict.fromkeys(bad, "negative")}}
rows = generate.template(
    "{name} said the {noun} was {adj}.", name="names", noun=["film", "plot"], adj=good + bad, label=label
)
suite = Suite("core")
suite.add("labels", MFT(), rows, threshold=0.2)
suite.add("names", SingleInput("names", "equivalence", T.NameSwap()), rows, threshold=0.1)
suite.add("table 1", PairwiseSystematicity("T", T.manino_table1()), rows, threshold=0.2)
suite.save("suite.json")
train = [f"{s} {w}." for w in good + bad for s in ("It was", "The film was", "What a")]
y = ["positive" if w in good else "negative" for w in good + bad for _ in range(3)]
model = make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)).fit(train, y)
result = suite.run(model, name="tfidf")
assert result.passed, result.summary()
assert "torch" not in sys.modules and "matplotlib" not in sys.modules
print("suite ok", result.scored)
"""

MODEL = """
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
good, bad = ["great", "wonderful", "excellent", "superb"], ["awful", "terrible", "boring", "dreadful"]
train = [f"{s} {w}." for w in good + bad for s in ("It was", "The film was", "What a")]
y = ["positive" if w in good else "negative" for w in good + bad for _ in range(3)]
model = make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)).fit(train, y)
"""


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def main(work: Path) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MTLIB_PROGRESS"] = "0"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(ROOT)],
        check=True,
        env=env,
    )
    built = time.perf_counter() - start
    (wheel,) = (work / "dist").glob("mtlib-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    start = time.perf_counter()
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True, env=env)
    installed = time.perf_counter() - start
    run = work / "run"
    run.mkdir(exist_ok=True)
    (run / "my_model.py").write_text(MODEL)
    suite_out = subprocess.run([str(py), "-c", SCRIPT], cwd=run, env=env, capture_output=True, text=True)
    assert suite_out.returncode == 0, suite_out.stderr[-3000:]
    cli = subprocess.run(
        [str(py), "-m", "mtlib.suite", "run", "suite.json", "--model", "my_model.py:model", "--junit", "out.xml"],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0 and (run / "out.xml").is_file(), cli.stdout[-2000:] + cli.stderr[-2000:]
    vader = subprocess.run(
        [str(py), "-m", "mtlib.suite", "run", "suite.json", "--model", "vader"],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
    )
    assert vader.returncode == 2 and "pip install 'mtlib[models]'" in vader.stderr, vader.stderr[-2000:]
    times = []
    for _ in range(5):
        out = subprocess.run(
            [str(py), "-c", "import time; t = time.perf_counter(); import mtlib.suite; print(time.perf_counter() - t)"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(out.stdout))
    torch = subprocess.run([str(py), "-c", "import torch"], env=env, capture_output=True).returncode == 0
    figures = {
        "wheel": wheel.name,
        "wheel_bytes": wheel.stat().st_size,
        "venv_bytes": _size(venv),
        "build_seconds": round(built, 1),
        "install_seconds": round(installed, 1),
        "import_mtlib_suite_seconds_median": round(statistics.median(times), 3),
        "torch_importable": torch,
        "python": sys.version.split()[0],
    }
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="mtlib-core-")))
