"""``python -m mtlib.paired A B``: two runs' per-item results compared, printed, written, and gated for CI.

::

    python -m mtlib.paired BASELINE CANDIDATE [--metrics acc,exact_match] [--min-diff -0.01]
        [--equivalence 0.02] [--require not-worse|equivalent|better] [--adjust holm|bh] [--items-for 0.02]
        [--n-boot 10000] [--seed 0] [--require-all] [--json OUT.json] [--markdown OUT.md]
        [--html OUT.html] [--junit OUT.xml]

BASELINE and CANDIDATE are lm-eval ``--log_samples`` files or their folder, inspect_ai logs (``.eval``, ``.json``)
or their folder, CSV/JSON Lines files of ``id`` and metric columns, or saved mtlib suite results
(:mod:`mtlib.paired.readers`). Every row gets a verdict (better, worse, equivalent, inconclusive) and its minimum
detectable effect (:mod:`mtlib.paired.power`) in every output; ``--html OUT.html`` also writes the forest plot
``OUT.png`` beside it (:mod:`mtlib.paired.plot`) and shows it above the table. The exit codes are the suite's
(:data:`EXIT_CODES`); ``--junit`` is written on every exit.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import sys
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.errors import DataFormatError
from mtlib.paired.comparison import ADJUSTMENTS, REQUIREMENTS, Comparison, compare_runs
from mtlib.paired.plot import forest_png
from mtlib.relations.errors import MtlibInputError
from mtlib.suite.cli import junit_option
from mtlib.suite.junit import clean_xml
from mtlib.suite.report import STYLE, table_html

__all__ = ["main", "shown"]

#: The command's exit codes (the suite command's numbers).
EXIT_CODES = {
    0: "every row passes the gate (or no gate was given)",
    1: "the gate fails on some task and metric",
    2: "bad input: a missing or malformed file, a bad option, nothing shared (the message names the file and line)",
    3: "internal error (traceback printed): not a gate result",
}

GATE_HELP = (
    "the gate: on every task and metric compared, the LOWER end of the 95%% paired bootstrap interval of the "
    "difference (candidate - baseline) must be above X. --min-diff -0.01 passes when the candidate is, with "
    "97.5%% confidence, worse by less than 0.01; --min-diff 0 asks it to be better. The point estimate never "
    "decides: a candidate whose mean is higher but whose interval reaches below X fails. For a --lower-better "
    "metric the gate reads the improvement a - b the same way (the upper end of b - a must be below -X)"
)


def shown(c: Comparison) -> pd.DataFrame:
    """The table as a user reads it: means and difference with their intervals, the test, p-values, the gate."""
    t = c.table
    out = pd.DataFrame(index=t.index)
    out["n"] = t["n_items"].astype(int).astype(str) + [
        f" ({g} groups)" if g != n else "" for g, n in zip(t["n_groups"], t["n_items"])
    ]
    for name, side in ((c.model_a, "a"), (c.model_b, "b")):
        out[name] = [
            f"{m:.4f} [{lo:.4f}, {hi:.4f}]"
            for m, lo, hi in t[[f"mean_{side}", f"{side}_low", f"{side}_high"]].to_numpy()
        ]
    out["diff (b - a) [95%]"] = [
        f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]" for d, lo, hi in t[["diff", "diff_low", "diff_high"]].to_numpy()
    ]
    out["a_only/b_only"] = ["" if pd.isna(x) else f"{int(x)}/{int(y)}" for x, y in zip(t["a_only"], t["b_only"])]
    adjusted = ADJUSTMENTS[c.adjust]
    out["test"], out["p"] = t["test"], t["p"].map("{:.3g}".format)
    out[adjusted] = t[adjusted].map("{:.3g}".format)
    out["MDE"] = [f"{m:.3g}" if np.isfinite(m) else "n/a" for m in t["mde"]]
    if c.items_for is not None:
        out[f"items for {c.items_for:g}"] = [f"{k:,.0f}" if np.isfinite(k) else "n/a" for k in t["items_for"]]
    if c.equivalence is not None:
        out["diff [90%]"] = [f"[{lo:+.4f}, {hi:+.4f}]" for lo, hi in t[["diff_low90", "diff_high90"]].to_numpy()]
    out["verdict"] = t["verdict"]
    gated = c.min_diff is not None or c.require is not None
    out["gate"] = t["passed"].map({True: "pass", False: "FAIL"}) if gated else ""
    return out


def _gate_text(c: Comparison) -> str:
    parts = [] if c.min_diff is None else [f"the improvement's lower 95% bound above {c.min_diff:+g}"]
    if c.require is not None:
        parts.append({"not-worse": "no verdict 'worse'", "better": "the verdict 'better'"}.get(c.require, ""))
        if c.require == "equivalent":
            parts[-1] = f"the 90% interval inside ±{c.equivalence:g} (equivalent)"
    return " and ".join(parts)


def _why_failed(c: Comparison, r: pd.Series) -> str:
    """Why one row fails the gate: its bound at or below --min-diff, and/or its verdict not the one required."""
    why = []
    if c.min_diff is not None and not np.nan_to_num(r["gate_bound"], nan=-np.inf) > c.min_diff:
        why.append(f"gate bound {r['gate_bound']:+.4f} <= {c.min_diff:+g}")
    if c.require is not None:
        why.append(f"verdict {r['verdict']}, equivalent {r['equivalent']} (--require {c.require})")
    return "; ".join(why)


def verdict_counts(c: Comparison) -> str:
    """``better 2, inconclusive 1`` for the rows' verdicts, with how they were decided."""
    counts = c.table["verdict"].value_counts()
    shown_ = ", ".join(f"{v} {counts[v]}" for v in ("better", "worse", "equivalent", "inconclusive") if v in counts)
    how = f"{'Holm' if c.adjust == 'holm' else 'Benjamini-Hochberg'}-adjusted p < 0.05"
    band = f"; equivalent: 90% interval inside ±{c.equivalence:g}" if c.equivalence is not None else ""
    return f"verdicts: {shown_} (better/worse: {how}{band})"


def _verdict(c: Comparison) -> str:
    if c.min_diff is None and c.require is None:
        return f"no gate (--min-diff, --require): {c.model_b} vs {c.model_a} on {len(c.table)} task/metric rows"
    if c.passed:
        return f"PASS: every row has {_gate_text(c)}"
    return f"FAIL: the gate asks every row for {_gate_text(c)}; it fails on: {', '.join(c.failing())}"


def markdown(c: Comparison) -> str:
    """The comparison as a Markdown page (table, verdict, unmatched items, notes)."""
    frame = shown(c).reset_index()
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in frame.to_numpy()]
    extra = [f"- {u}" for u in c.unmatched + c.notes]
    head = f"# {c.model_b} (b) vs {c.model_a} (a)\n\n{_verdict(c)}\n\n{verdict_counts(c)}\n\n"
    return head + "\n".join(lines) + "\n" + ("\n## Left out, and notes\n\n" + "\n".join(extra) + "\n" if extra else "")


def forest(c: Comparison) -> bytes | None:
    """The comparison's forest plot as PNG bytes (:func:`mtlib.paired.plot.forest_png`); None without matplotlib."""
    title = f"{c.model_b} (b) vs {c.model_a} (a)"
    return forest_png(c.table, title=title, min_diff=c.min_diff, equivalence=c.equivalence)


def _html(c: Comparison, png: bytes | None) -> str:
    title = f"{c.model_b} (b) vs {c.model_a} (a)"
    extra = "".join(f"<li>{html.escape(u)}</li>" for u in c.unmatched + c.notes)
    extra = f"<h2>Left out, and notes</h2><ul>{extra}</ul>" if extra else ""
    if png is None:
        picture = "<p><em>The forest plot needs matplotlib (pip install matplotlib); the table follows.</em></p>"
    else:
        alt = "forest plot: each row's improvement of b over a with its 90% and 95% paired intervals"
        picture = f'<p><img alt="{alt}" src="data:image/png;base64,{base64.b64encode(png).decode()}"></p>'
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1><p>{html.escape(_verdict(c))}</p>"
        f"<p>{html.escape(verdict_counts(c))}</p>{picture}"
        f"{table_html(shown(c).reset_index(), index=False)}{extra}"
        "</body></html>\n"
    )


def _junit(c: Comparison | None, error: str = "") -> str:
    """One test case per task and metric (a failure when its gate fails); an ``<error>`` case for a stopped run."""
    rows = [] if c is None else list(c.table.iterrows())
    failures = sum(not r["passed"] for _, r in rows)
    counts = {"tests": str(len(rows) + bool(error)), "failures": str(failures), "errors": str(int(bool(error)))}
    name = "mtlib paired comparison" + ("" if c is None else f": {c.model_b} vs {c.model_a}")
    root = ET.Element("testsuites", {"name": clean_xml(name), **counts})
    suite = ET.SubElement(root, "testsuite", {"name": clean_xml(name), **counts, "skipped": "0"})
    for (task, metric), r in rows:
        case = ET.SubElement(suite, "testcase", {"name": clean_xml(f"{task}/{metric}"), "classname": "mtlib.paired"})
        text = (
            f"b - a = {r['diff']:+.4f}, 95% interval [{r['diff_low']:+.4f}, {r['diff_high']:+.4f}]; "
            f"{r['test']} p = {r['p']:.3g} (Holm {r['p_holm']:.3g}, BH {r['p_bh']:.3g}); {int(r['n_items'])} items; "
            f"verdict {r['verdict']}; MDE {r['mde']:.3g}"
        )
        if not r["passed"]:
            assert c is not None
            message = f"{_why_failed(c, r)}: {text}"
            ET.SubElement(case, "failure", {"message": clean_xml(message), "type": "PairedGate"}).text = clean_xml(text)
        ET.SubElement(case, "system-out").text = clean_xml(text)
    if error:
        case = ET.SubElement(suite, "testcase", {"name": "(the comparison)", "classname": "mtlib.paired"})
        ET.SubElement(case, "error", {"message": clean_xml(error.splitlines()[-1]), "type": "Error"}).text = clean_xml(
            error
        )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_outputs(c: Comparison | None, args: argparse.Namespace, error: str = "") -> None:
    """Write the files asked for (only JUnit, with an error case, when the comparison stopped)."""
    writers = {"junit": lambda: _junit(c, error)}
    if c is not None:
        writers.update(
            json=lambda: json.dumps(c.to_json(), indent=1, allow_nan=False) + "\n",
            markdown=lambda: markdown(c),
        )
        if getattr(args, "html", None):
            png = forest(c)
            writers["html"] = lambda: _html(c, png)
            if png is not None:
                picture = Path(args.html).with_suffix(".png")
                picture.parent.mkdir(parents=True, exist_ok=True)
                picture.write_bytes(png)
                print(f"wrote {picture}", file=sys.stderr)
    for option, write in writers.items():
        target = getattr(args, option, None)
        if target:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_text(write(), encoding="utf-8")
            print(f"wrote {target}", file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    codes = "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items())
    parser = argparse.ArgumentParser(
        prog="python -m mtlib.paired",
        description="Compare two models' per-item results, paired by item id: each model's mean with a 95% "
        "interval, the paired difference (b - a) with a paired bootstrap interval (groups resampled together), "
        "McNemar's exact test for 0/1 metrics, a sign-flip permutation test otherwise, Holm-adjusted p-values "
        "across tasks; then a gate for CI.",
        epilog=f"Exit codes: {codes}.",
    )
    parser.add_argument(
        "baseline",
        help="run a: lm-eval samples_*.jsonl or inspect_ai .eval/.json (or their folder), CSV/JSONL, suite JSON",
    )
    parser.add_argument("candidate", help="run b, the same way")
    parser.add_argument("--min-diff", type=float, metavar="X", help=GATE_HELP)
    names: dict[str, Any] = {"type": lambda s: [m for m in s.split(",") if m], "metavar": "M1,M2"}
    what = "comma-separated; lm-eval's acc matches acc,none"
    parser.add_argument("--metrics", **names, help=f"metrics to compare ({what}; default: every one both runs have)")
    parser.add_argument("--lower-better", **names, default=[], help=f"metrics where lower is better ({what})")
    parser.add_argument(
        "--equivalence",
        type=float,
        metavar="M",
        help="the equivalence margin: a row whose 90%% paired interval lies inside (-M, M) (two one-sided tests at "
        "5%%) and that is not significantly better or worse reads 'equivalent'",
    )
    parser.add_argument(
        "--require",
        choices=REQUIREMENTS,
        help="the gate asks every row for a verdict: not-worse (none 'worse'), equivalent (90%% interval inside "
        "±M; needs --equivalence), better; with --min-diff too, both must hold",
    )
    parser.add_argument(
        "--adjust",
        choices=sorted(ADJUSTMENTS),
        default="holm",
        help="the p-value adjustment across rows the verdicts read: holm (family-wise error, default) or bh "
        "(Benjamini-Hochberg false discovery rate, for suites of many tasks); both are in the JSON",
    )
    parser.add_argument(
        "--items-for",
        type=float,
        metavar="D",
        help="each row says how many items it would need to detect a difference D (80%% power, two-sided 0.05)",
    )
    parser.add_argument("--n-boot", type=int, default=10_000, help="bootstrap replicates and sign flips (10000)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the replicates: the same seed, the same numbers")
    parser.add_argument("--require-all", action="store_true", help="exit 2 when an item is on one side only")
    parser.add_argument("--name-a", help="the baseline's name in the outputs")
    parser.add_argument("--name-b", help="the candidate's name in the outputs")
    for option, what in (("json", "JSON"), ("markdown", "Markdown"), ("html", "HTML"), ("junit", "JUnit XML")):
        parser.add_argument(f"--{option}", metavar="OUT", help=f"write the comparison as {what}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (:data:`EXIT_CODES`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # argparse refused the command line: CI still gets its JUnit file
        junit = junit_option(argv)
        if stop.code not in (0, None) and junit:
            write_outputs(None, argparse.Namespace(junit=junit), f"usage error: {' '.join(argv)} was refused")
        raise
    try:
        if args.n_boot < 1:
            raise MtlibInputError(f"--n-boot must be at least 1, got {args.n_boot}")
        keys = ("metrics", "n_boot", "seed", "min_diff", "require_all", "equivalence", "adjust", "require", "items_for")
        options = {k: getattr(args, k) for k in keys}
        names = (args.name_a, args.name_b)
        c = compare_runs(args.baseline, args.candidate, lower_better=args.lower_better, names=names, **options)
    except (MtlibInputError, DataFormatError, OSError) as err:
        print(f"python -m mtlib.paired: error: {err}", file=sys.stderr)
        write_outputs(None, args, f"bad input: {err}")
        return 2
    except Exception:
        print(traceback.format_exc(), file=sys.stderr, end="")
        print("python -m mtlib.paired: internal error (exit 3), not a gate result", file=sys.stderr)
        write_outputs(None, args, traceback.format_exc())
        return 3
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 40):
        print(f"a = {c.model_a}, b = {c.model_b}; {c.n_boot:,} paired bootstrap replicates, seed {c.seed}")
        print(shown(c).to_string())
    for line in c.unmatched:
        print(f"left out: {line}")
    for line in c.notes:
        print(f"note: {line}")
    print(verdict_counts(c))
    write_outputs(c, args)
    print(_verdict(c))
    return 0 if c.passed else 1
