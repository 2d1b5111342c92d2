"""``python -m mtlib.suite``: a saved suite as a CI command, with exit codes and JUnit XML.

Three commands::

    python -m mtlib.suite run SUITE.json --model NAME_OR_PATH [--junit out.xml] [--html out.html] [--json out.json]
    python -m mtlib.suite score SUITE.json PREDICTIONS.csv [--junit ...] [--html ...] [--json ...]
    python -m mtlib.suite texts SUITE.json [-o texts.csv]

``run`` runs the suite on a model; ``score`` scores it from a file of a
model's saved outputs (:mod:`mtlib.suite.predictions`, as CheckList's
``run_from_file``), for models that cannot run here; ``texts`` writes every
text the suite will ask for, to score elsewhere. Both ``run`` and ``score``
print the summary and exit **0** when every gate passes, **1** when one
fails, **2** on bad input (a missing or tampered file, an unknown model, a
model answering NaN or label names: the message says what and where), and
**3** on any other error while running (its traceback is printed: a bug, or the model itself failing).

What ``--model`` may be:

- a registry name (``vader``, ``minilm``; the transformers and
  sentence-transformers ones need ``pip install 'mtlib[models]'``), a hub id
  or a model folder, as :func:`mtlib.models.load` resolves them;
- ``FILE.py:NAME`` or ``package.module:NAME``: the object ``NAME`` of a Python
  file or module of yours, anything :func:`mtlib.models.adapters.wrap` takes
  (an sklearn pipeline with ``predict_proba`` on raw texts, a transformers
  pipeline, a function ``texts -> scores``). This is how a pickled or
  joblib-saved pipeline is used: your file loads it, so loading a pickle
  (which runs whatever code it holds) stays your explicit choice, in code you
  can read. A ``.pkl``/``.pickle``/``.joblib`` path given directly is refused
  with that advice (mtlib never unpickles; see the README's "Pickles").
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

import pandas as pd

from mtlib.relations.errors import MtlibInputError
from mtlib.suite.junit import write_junit
from mtlib.suite.predictions import needed_texts, read_predictions
from mtlib.suite.result import SuiteResult
from mtlib.suite.serialize import NotSerializable
from mtlib.suite.suite import Suite

__all__ = ["PICKLE_SUFFIXES", "load_model_spec", "main"]

#: File endings of pickled models, which the command refuses to load.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".sav", ".dill")

#: The columns of the printed summary.
_SHOWN = ["rate", "ci_low", "ci_high", "gate_bound", "threshold", "passed", "cases", "violations"]


class BadInput(Exception):
    """Bad input to the command (exit 2); the message says what and where."""


def load_model_spec(spec: str) -> Any:
    """What ``--model`` names: ``FILE.py:NAME`` or ``module:NAME`` imported, anything else as the name itself.

    Raises:
        BadInput: a pickle file, a missing file or module, a missing attribute.
    """
    if spec.lower().endswith(PICKLE_SUFFIXES):
        raise BadInput(
            f"--model {spec}: mtlib does not load pickled models (loading one runs whatever code it holds). "
            f"Load {spec!r} in a Python file you trust (e.g. my_model.py, with joblib or pickle: `model = ...`), "
            f"and pass --model my_model.py:model"
        )
    target, sep, attr = spec.rpartition(":")
    if not sep or not attr.isidentifier() or (len(target) == 1 and target.isalpha()):
        return spec  # a registry name, a hub id or a folder (a Windows drive letter is not a module)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise BadInput(f"--model {spec}: no Python file {path}")
        module_spec = importlib.util.spec_from_file_location(f"_mtlib_user_model_{path.stem}", path)
        if module_spec is None or module_spec.loader is None:
            raise BadInput(f"--model {spec}: cannot import {path}")
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, str(path.resolve().parent))  # the file may import its neighbours
        try:
            module_spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(path.resolve().parent))
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as err:
            raise BadInput(f"--model {spec}: cannot import module {target!r}: {err}") from err
    if not hasattr(module, attr):
        names = sorted(n for n in vars(module) if not n.startswith("_"))[:20]
        raise BadInput(f"--model {spec}: {target} has no {attr!r}; it defines {names}")
    return getattr(module, attr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m mtlib.suite",
        description="Run a saved mtlib suite in CI: exit 0 when every gate passes, 1 when one fails, 2 on bad input.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a saved suite on a model")
    run.add_argument("suite", help="a suite saved by Suite.save (JSON)")
    run.add_argument("--model", required=True, help="a registry name, a model folder, or FILE.py:NAME / module:NAME")
    score = sub.add_parser("score", help="score a saved suite from a CSV of a model's saved outputs")
    score.add_argument("suite", help="a suite saved by Suite.save (JSON)")
    score.add_argument("predictions", help="CSV: a text column, then a score column or one probability per class")
    for p in (run, score):
        p.add_argument("--name", help="the model's name in the results (default: its own name, or the CSV's stem)")
        p.add_argument("--positive-label", help="the class read as the score (default: 'positive', else the last)")
        p.add_argument("--junit", metavar="OUT.xml", help="write JUnit XML: one test case per suite test")
        p.add_argument("--html", metavar="OUT.html", help="write the self-contained HTML report")
        p.add_argument("--json", metavar="OUT.json", help="write the result as JSON (SuiteResult.load reads it)")
    texts = sub.add_parser("texts", help="write every text the suite scores (sources and follow-ups) as a CSV")
    texts.add_argument("suite", help="a suite saved by Suite.save (JSON)")
    texts.add_argument("-o", "--out", metavar="OUT.csv", help="where to write (default: standard output)")
    return parser


def _report(result: SuiteResult, args: argparse.Namespace) -> int:
    """Print the summary, write the files asked for; 0 if every gate passes, else 1."""
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(result.summary()[_SHOWN].round(4).to_string())
    if args.junit:
        print(f"wrote {write_junit(result, args.junit)}")
    if args.html:
        print(f"wrote {result.to_html(args.html)}")
    if args.json:
        print(f"wrote {result.save(args.json)}")
    failing = result.failing()
    if failing:
        print(f"FAIL: {len(failing)} of {len(result.tests)} tests of suite {result.suite!r} fail on {result.model}")
        for name in failing:
            t = result[name]
            print(
                f"- {name}: "
                + (f"no cases ({t.note})" if not t.cases else f"gate bound {t.gate_bound:.4f} > {t.threshold:.4f}")
            )
        return 1
    print(f"PASS: every test of suite {result.suite!r} passes on {result.model}")
    return 0


def _command(args: argparse.Namespace) -> int:
    suite = Suite.load(args.suite)
    if args.command == "texts":
        frame = pd.DataFrame({"text": needed_texts(suite)})
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            frame.to_csv(args.out, index=False)
            print(f"wrote {len(frame):,} texts to {args.out}", file=sys.stderr)
        else:
            frame.to_csv(sys.stdout, index=False)
        return 0
    if args.command == "score":
        model: Any = read_predictions(args.predictions, name=args.name)
    else:
        model = load_model_spec(args.model)
        if args.name is None and not isinstance(model, str):
            args.name = args.model  # FILE.py:NAME says more than the object's class name
    return _report(suite.run(model, name=args.name, positive_label=args.positive_label), args)


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (0 pass, 1 a gate fails, 2 bad input, 3 another error)."""
    args = _parser().parse_args(argv)
    try:
        return _command(args)
    except (BadInput, MtlibInputError, NotSerializable, LookupError, OSError, ImportError) as err:
        # LookupError: an unknown model name (ModelNotFoundError); ImportError: a missing extra
        print(f"python -m mtlib.suite: error: {err}", file=sys.stderr)
        return 2
    except Exception:  # anything else (a bug, the model itself failing): show it, and say it is not a gate result
        traceback.print_exc()
        print("python -m mtlib.suite: error while running (exit 3), not a gate result", file=sys.stderr)
        return 3
