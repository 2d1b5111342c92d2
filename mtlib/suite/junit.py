"""A suite run as JUnit XML: one test case per suite test, read by the CI systems people use.

The layout is the one the common JUnit readers share (Jenkins' ``junit``
schema, GitLab, GitHub Actions reporters, Azure Pipelines, ``junitparser``):
``<testsuites>`` holding one ``<testsuite>`` (the suite on one model, with
``tests``, ``failures``, ``errors``, ``skipped``, ``time`` and
``timestamp``), its ``<properties>``, and one ``<testcase name classname
time>`` per test; a failing test has a ``<failure message type>`` whose
message gives the rate, the interval, the gate bound and the threshold, and
whose text adds the rule, the counts and the worst examples. Characters XML
1.0 cannot hold (control characters in a text under test) are dropped.

A run that stopped (bad input, the model raising or running past its time
limit: the command's exits 2 and 3) is written too (:class:`RunError`): the
tests finished before it as above, the test that was running (or one case
for the run itself, when no test had started) with an ``<error message
type>`` saying what stopped it, and the tests after it as ``<skipped>``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mtlib.suite.outcome import TestOutcome
from mtlib.suite.result import SuiteResult

__all__ = ["junit_xml", "write_junit"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean_xml(value: Any) -> str:
    """``str(value)`` without the characters XML 1.0 cannot hold (control characters), for a JUnit attribute or text."""
    return _NOT_XML.sub("", str(value))


@dataclass(frozen=True)
class RunError:
    """Why a suite run stopped before its end, written as a JUnit ``<error>``.

    Attributes:
        error_type: The error's type, the JUnit ``type`` attribute (``BadInput``, ``ModelError``, ``ModelTimeout``,
            ``UsageError``, ``Cancelled``).
        message: One line: what was wrong and what was expected.
        details: The error's text (a traceback, for a model that raised).
        test: The suite test that was running (``""``: none had started).
        not_run: The tests after it, written as skipped.
    """

    error_type: str
    message: str
    details: str = ""
    test: str = ""
    not_run: Sequence[str] = ()


def failure_message(t: TestOutcome) -> str:
    """One line: the rate, its interval, the gate bound against the threshold (or why nothing was counted),
    and why the test could not pass (too few inputs), if so."""
    why = f"; {t.warning}" if t.warning else ""
    if not t.cases:
        return f"no cases: {t.note or 'nothing was counted'} (threshold {t.threshold:.4f}){why}"
    return (
        f"rate {t.rate:.4f}, 95% interval [{t.ci_low:.4f}, {t.ci_high:.4f}]: gate bound {t.gate_bound:.4f} "
        f"{'<=' if t.passed else '>'} threshold {t.threshold:.4f} ({t.violations:,} of {t.cases:,} cases violated)"
        f"{why}"
    )


def _details(t: TestOutcome, k: int) -> str:
    lines = [t.description, f"family: {t.family}" + (f"; rule: {t.rule}" if t.rule else "")]
    lines.append(f"{t.violations:,} of {t.cases:,} cases over {t.n_items:,} items; {t.skipped:,} skipped")
    if len(t.examples):
        lines.append(f"worst {min(k, len(t.examples))} examples:")
        lines.append(t.examples.head(k).to_string(index=False, max_colwidth=80))
    return "\n".join(lines)


def junit_xml(result: SuiteResult, *, k: int = 5, error: RunError | None = None) -> str:
    """The JUnit XML of a suite run (``k`` worst examples in each failure's text).

    Args:
        result: The run, or the part of it finished before ``error`` (possibly no test).
        k: Worst examples in a failure's text.
        error: Why the run stopped, if it did: one ``<error>`` case, then ``error.not_run`` skipped.
    """
    seconds = result.meta.get("seconds", {}) if isinstance(result.meta.get("seconds"), dict) else {}
    total = sum(float(v) for v in seconds.values())
    failures = sum(not t.passed for t in result.tests)
    not_run = list(error.not_run) if error else []
    counts = {
        "tests": str(len(result.tests) + (1 + len(not_run) if error else 0)),
        "failures": str(failures),
        "errors": str(int(error is not None)),
        "time": f"{total:.3f}",
    }
    root = ET.Element("testsuites", {"name": clean_xml(f"mtlib suite {result.suite}"), **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": clean_xml(f"{result.suite} on {result.model}"),
            **counts,
            "skipped": str(len(not_run)),
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
        },
    )
    props = ET.SubElement(suite, "properties")
    for key, value in (("suite", result.suite), ("model", result.model), ("scored", result.scored)):
        ET.SubElement(props, "property", {"name": key, "value": clean_xml(value)})
    classname = clean_xml(f"mtlib.suite.{result.suite}")
    for t in result.tests:
        time = f"{float(seconds.get(t.name, 0.0)):.3f}"
        case = ET.SubElement(suite, "testcase", {"name": clean_xml(t.name), "classname": classname, "time": time})
        if not t.passed:
            failure = ET.SubElement(case, "failure", {"message": clean_xml(failure_message(t)), "type": "SuiteGate"})
            failure.text = clean_xml(_details(t, k))
        out = ET.SubElement(case, "system-out")
        out.text = clean_xml(f"{t.description}\n{failure_message(t)}")
    if error is not None:
        time = f"{float(result.meta.get('stopped_after', 0.0)):.3f}"
        name = error.test or "(the suite run)"
        case = ET.SubElement(suite, "testcase", {"name": clean_xml(name), "classname": classname, "time": time})
        failed = ET.SubElement(
            case, "error", {"message": clean_xml(error.message), "type": clean_xml(error.error_type)}
        )
        failed.text = clean_xml(error.details or error.message)
        for name in not_run:
            skipped = ET.SubElement(
                suite, "testcase", {"name": clean_xml(name), "classname": classname, "time": "0.000"}
            )
            at = f" at {error.test!r}" if error.test else ""
            why = f"not run: the run stopped{at} ({error.error_type}: {error.message})"
            ET.SubElement(skipped, "skipped", {"message": clean_xml(why)})
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(result: SuiteResult, path: str | Path, *, k: int = 5, error: RunError | None = None) -> Path:
    """Write :func:`junit_xml` to ``path`` (folders made); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junit_xml(result, k=k, error=error), encoding="utf-8")
    return path
