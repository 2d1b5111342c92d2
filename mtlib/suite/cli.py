"""``python -m mtlib.suite``: a saved suite as a CI command, with exit codes and JUnit XML.

Three commands::

    python -m mtlib.suite run SUITE.json --model NAME_OR_PATH [--timeout S] [--labels a,b]
                              [--junit out.xml] [--html out.html] [--json out.json]
    python -m mtlib.suite score SUITE.json PREDICTIONS.csv|.jsonl [--junit ...] [--html ...] [--json ...]
    python -m mtlib.suite texts SUITE.json [-o texts.csv]

``run`` runs the suite on a model; ``score`` scores it from a file of a
model's saved outputs (:mod:`mtlib.suite.predictions`, as CheckList's
``run_from_file``), for models that cannot run here; ``texts`` writes every
text the suite will ask for, to score elsewhere. Both ``run`` and ``score``
print the summary and exit (:data:`EXIT_CODES`) **0** when every gate passes,
**1** when one fails (a test that could not pass with so few inputs says so),
**2** on bad input (a missing or tampered file, an unknown model, a model
answering NaN, booleans or label names: the message says what and where), and
**3** when the model failed: it raised (its traceback is printed: the model
itself, or a bug) or a call ran past ``--timeout`` seconds (the call is
abandoned in a daemon thread, so the command exits at once). A bad output is
exit 2 whatever wraps the model (a function or a ``predict_proba`` object).
A run cancelled by SIGTERM (a CI job cancelled) or SIGINT exits 143 or 130.
``--junit`` is written on every exit, also 2, 3 and a cancel (an ``<error>``
case saying what stopped the run, the tests after it skipped with the same
reason), and for a command line argparse refuses (with argparse's reason).

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
import dataclasses
import importlib
import importlib.util
import signal
import sys
import threading
import traceback
import warnings
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from mtlib.data.errors import DataFormatError
from mtlib.relations.errors import MtlibInputError
from mtlib.suite.junit import RunError, write_junit
from mtlib.suite.memo import ModelTimeout
from mtlib.suite.predictions import needed_texts, read_predictions
from mtlib.suite.result import SuiteResult
from mtlib.suite.serialize import NotSerializable
from mtlib.suite.suite import Suite, TooFewInputs

__all__ = ["EXIT_CODES", "PICKLE_SUFFIXES", "junit_option", "load_model_spec", "main"]

#: The command's exit codes, as ``--help`` and the README give them.
EXIT_CODES = {
    0: "every gate passes",
    1: "a gate fails (a test that could not pass with so few inputs says so)",
    2: "bad input: a missing or tampered file, a bad option, an unknown model, a model answering NaN, "
    "booleans or label names (the message says what and where)",
    3: "the model failed: it raised (traceback printed) or a call ran past --timeout",
    130: "cancelled by SIGINT (Ctrl-C)",
    143: "cancelled by SIGTERM (a CI job cancelled)",
}

#: How a test's gate reads its interval, as ``--help`` says it.
GATE = (
    "A test passes when its gate bound is at most its threshold. The gate bound is the top of the 95% "
    "interval of its violation rate (or the item-level Wilson bound, when higher), not the rate itself: a "
    "rate of 0.17 whose interval reaches 0.23 fails a threshold of 0.2 (more inputs narrow the interval)."
)

#: File endings of pickled models, which the command refuses to load.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".sav", ".dill")

#: The columns of the printed summary.
_SHOWN = ["rate", "ci_low", "ci_high", "gate_bound", "threshold", "passed", "cases", "violations"]


class BadInput(Exception):
    """Bad input to the command (exit 2); the message says what and where."""


class Cancelled(Exception):
    """The run was cancelled by a signal (CI's SIGTERM, a Ctrl-C's SIGINT): exit 128 + its number, JUnit written.

    An ``Exception`` (not a ``KeyboardInterrupt``), so a stopped suite run still attaches its finished tests.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"the run was cancelled by {signal.Signals(signum).name}")


def _cancel(signum: int, frame: Any) -> None:
    raise Cancelled(signum)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, keeping the reason it refused a command line (for the JUnit file)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        stop = SystemExit(2)
        stop.reason = f"{self.prog}: error: {message}"  # type: ignore[attr-defined]
        self._print_message(stop.reason + "\n", sys.stderr)  # type: ignore[attr-defined]
        raise stop


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


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _labels(text: str) -> list[str]:
    labels = [x.strip() for x in text.split(",")]
    if len(labels) < 2 or not all(labels) or len(set(labels)) != len(labels):
        raise argparse.ArgumentTypeError(f"expected two or more distinct class names, comma-separated, got {text!r}")
    return labels


def _parser() -> argparse.ArgumentParser:
    codes = "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items())
    parser = _Parser(
        prog="python -m mtlib.suite",
        description="Run a saved mtlib suite in CI: exit 0 when every gate passes, 1 when one fails, 2 on bad "
        "input, 3 when the model raised or ran past --timeout.",
        epilog=f"{GATE} Exit codes: {codes}. --junit is written on every exit.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a saved suite on a model", epilog=f"{GATE} Exit codes: {codes}.")
    run.add_argument("suite", help="a suite saved by Suite.save (JSON)")
    run.add_argument("--model", required=True, help="a registry name, a model folder, or FILE.py:NAME / module:NAME")
    run.add_argument(
        "--timeout",
        type=_timeout,
        metavar="S",
        help="the most seconds one model call (a batch of texts) may take; past it the call is abandoned, the "
        "test is an error in the JUnit file and the command exits 3 (default: no limit)",
    )
    run.add_argument(
        "--labels",
        type=_labels,
        metavar="A,B",
        help="class names of the columns of a function returning class probabilities (n, k); for a causal LM, "
        "the classes its prompt answers for",
    )
    run.add_argument(
        "--template",
        help="a causal LM's prompt template (sentiment, nli, hypernym, ...; default sentiment): the model "
        "answers a prompt per text, calibrated contextually",
    )
    score = sub.add_parser(
        "score",
        help="score a saved suite from a file of a model's saved outputs",
        epilog=f"{GATE} Exit codes: {codes}.",
    )
    score.add_argument("suite", help="a suite saved by Suite.save (JSON)")
    score.add_argument(
        "predictions",
        help="CSV (or JSON Lines, one object per line): a text column, then a score column or one probability "
        "column per class",
    )
    for p in (run, score):
        p.add_argument("--name", help="the model's name in the results (default: its own name, or the file's stem)")
        p.add_argument("--positive-label", help="the class read as the score (default: 'positive', else the last)")
        p.add_argument(
            "--junit", metavar="OUT.xml", help="write JUnit XML: one test case per suite test (on every exit)"
        )
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
            why = f"no cases ({t.note})" if not t.cases else f"gate bound {t.gate_bound:.4f} > {t.threshold:.4f}"
            print(f"- {name}: {why}" + (f"; {t.warning}" if t.warning else ""))
        return 1
    print(f"PASS: every test of suite {result.suite!r} passes on {result.model}")
    return 0


def _load(path: str, state: dict[str, Any]) -> Suite:
    """The saved suite; its too-few-inputs warnings printed to standard error."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", TooFewInputs)
        suite = Suite.load(path)
    for warning in said:
        print(f"python -m mtlib.suite: warning: {warning.message}", file=sys.stderr)
    state["suite"] = suite
    return suite


def _command(args: argparse.Namespace, state: dict[str, Any]) -> int:
    suite = _load(args.suite, state)
    if args.command == "texts":
        frame = pd.DataFrame({"text": needed_texts(suite)})
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            frame.to_csv(args.out, index=False)
            print(f"wrote {len(frame):,} texts to {args.out}", file=sys.stderr)
        else:
            frame.to_csv(sys.stdout, index=False)
        return 0
    options: dict[str, Any] = {}
    if args.command == "score":
        model: Any = read_predictions(args.predictions, name=args.name)
    else:
        model = load_model_spec(args.model)
        if args.name is None and not isinstance(model, str):
            args.name = args.model  # FILE.py:NAME says more than the object's class name
        options = {"timeout": args.timeout, "labels": args.labels, "template": args.template}
    return _report(suite.run(model, name=args.name, positive_label=args.positive_label, **options), args)


def junit_option(argv: list[str]) -> str | None:
    """The ``--junit`` path of a command line argparse refused (so CI still gets its file)."""
    for i, arg in enumerate(argv):
        if arg == "--junit" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--junit="):
            return arg.split("=", 1)[1]
    return None


def _error_junit(path: str, args: Any, state: dict[str, Any], error: RunError, err: BaseException | None) -> None:
    """Write the JUnit file of a run that stopped: the tests finished, the error, the tests not run."""
    partial = getattr(err, "suite_result", None)
    suite: Suite | None = state.get("suite")
    if not isinstance(partial, SuiteResult):
        name = suite.name if suite else Path(str(getattr(args, "suite", "") or "suite")).stem
        model = getattr(args, "name", None) or getattr(args, "model", None) or getattr(args, "predictions", "")
        partial = SuiteResult(name, str(model or "?"), [])
    stopped = str(partial.meta.get("stopped_at", ""))
    names = [t.name for t in suite.tests] if suite else []
    not_run = names[names.index(stopped) + 1 :] if stopped in names else ([] if stopped else names)
    error = dataclasses.replace(error, test=stopped, not_run=not_run)
    try:
        written = write_junit(partial, path, error=error)
    except OSError as problem:
        print(f"python -m mtlib.suite: cannot write --junit {path}: {problem}", file=sys.stderr)
        return
    print(f"wrote {written} (exit with an error case)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (:data:`EXIT_CODES`: 0 pass, 1 a gate fails, 2 bad input,
    3 the model raised or ran past ``--timeout``). ``--junit`` is written on every exit."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:
        junit = junit_option(argv)
        if stop.code not in (0, None) and junit:
            why = getattr(stop, "reason", "the command line was refused")
            error = RunError("UsageError", f"python -m mtlib.suite {' '.join(argv)}: {why}")
            _error_junit(junit, None, {}, error, None)
        raise
    state: dict[str, Any] = {}
    caught: BaseException
    trapped = (signal.SIGTERM, signal.SIGINT) if threading.current_thread() is threading.main_thread() else ()
    before = {s: signal.signal(s, _cancel) for s in trapped}
    try:
        return _command(args, state)
    except Cancelled as err:
        print(f"python -m mtlib.suite: {err} (exit {128 + err.signum})", file=sys.stderr)
        code, error, caught = 128 + err.signum, RunError("Cancelled", str(err)), err
    except ModelTimeout as err:
        print(f"python -m mtlib.suite: error (exit 3): {err}", file=sys.stderr)
        code, error, caught = 3, RunError("ModelTimeout", str(err), f"{err}; the call was abandoned"), err
    except (BadInput, MtlibInputError, DataFormatError, NotSerializable, LookupError, OSError, ImportError) as err:
        # LookupError: an unknown model name (ModelNotFoundError); ImportError: a missing extra
        print(f"python -m mtlib.suite: error: {err}", file=sys.stderr)
        code, error, caught = 2, RunError("BadInput", str(err)), err
    except Exception as err:
        # anything else (a bug, the model itself failing): show it, and say it is not a gate result
        details = traceback.format_exc()
        print(details, file=sys.stderr, end="")
        print("python -m mtlib.suite: error while running (exit 3), not a gate result", file=sys.stderr)
        code, error, caught = 3, RunError("ModelError", f"{type(err).__name__}: {err}", details), err
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    if getattr(args, "junit", None):
        _error_junit(args.junit, args, state, error, caught)
    return code
