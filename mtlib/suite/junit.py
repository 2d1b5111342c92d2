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
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mtlib.suite.outcome import TestOutcome
from mtlib.suite.result import SuiteResult

__all__ = ["failure_message", "junit_xml", "write_junit"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(value: Any) -> str:
    return _NOT_XML.sub("", str(value))


def failure_message(t: TestOutcome) -> str:
    """One line: the rate, its interval, the gate bound against the threshold (or why nothing was counted)."""
    if not t.cases:
        return f"no cases: {t.note or 'nothing was counted'} (threshold {t.threshold:.4f})"
    return (
        f"rate {t.rate:.4f}, 95% interval [{t.ci_low:.4f}, {t.ci_high:.4f}]: gate bound {t.gate_bound:.4f} "
        f"{'<=' if t.passed else '>'} threshold {t.threshold:.4f} ({t.violations:,} of {t.cases:,} cases violated)"
    )


def _details(t: TestOutcome, k: int) -> str:
    lines = [t.description, f"family: {t.family}" + (f"; rule: {t.rule}" if t.rule else "")]
    lines.append(f"{t.violations:,} of {t.cases:,} cases over {t.n_items:,} items; {t.skipped:,} skipped")
    if len(t.examples):
        lines.append(f"worst {min(k, len(t.examples))} examples:")
        lines.append(t.examples.head(k).to_string(index=False, max_colwidth=80))
    return "\n".join(lines)


def junit_xml(result: SuiteResult, *, k: int = 5) -> str:
    """The JUnit XML of a suite run (``k`` worst examples in each failure's text)."""
    seconds = result.meta.get("seconds", {}) if isinstance(result.meta.get("seconds"), dict) else {}
    total = sum(float(v) for v in seconds.values())
    failures = sum(not t.passed for t in result.tests)
    counts = {"tests": str(len(result.tests)), "failures": str(failures), "errors": "0", "time": f"{total:.3f}"}
    root = ET.Element("testsuites", {"name": _clean(f"mtlib suite {result.suite}"), **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": _clean(f"{result.suite} on {result.model}"),
            **counts,
            "skipped": "0",
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
        },
    )
    props = ET.SubElement(suite, "properties")
    for key, value in (("suite", result.suite), ("model", result.model), ("scored", result.scored)):
        ET.SubElement(props, "property", {"name": key, "value": _clean(value)})
    for t in result.tests:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "name": _clean(t.name),
                "classname": _clean(f"mtlib.suite.{result.suite}"),
                "time": f"{float(seconds.get(t.name, 0.0)):.3f}",
            },
        )
        if not t.passed:
            failure = ET.SubElement(case, "failure", {"message": _clean(failure_message(t)), "type": "SuiteGate"})
            failure.text = _clean(_details(t, k))
        out = ET.SubElement(case, "system-out")
        out.text = _clean(f"{t.description}\n{failure_message(t)}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(result: SuiteResult, path: str | Path, *, k: int = 5) -> Path:
    """Write :func:`junit_xml` to ``path`` (folders made); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junit_xml(result, k=k), encoding="utf-8")
    return path
