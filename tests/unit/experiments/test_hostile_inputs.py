"""Hostile inputs to SETI's and PSS's public entries: each fails at the entry, naming the argument.

Every error here is a :class:`mtlib.relations.MtlibInputError` (a ``ValueError``) raised before any model
is loaded or trained; the device tests also check that a report records the device it used.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mtlib.data import sick as sick_data
from mtlib.experiments import pss, seti
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations import MtlibInputError
from mtlib.utils.batching import resolve_device
from mtlib.utils.context import RunContext

CPU = RunContext.resolve(device="cpu")
#: The settings the SETI entries require (notebook 07 passes its spec's), small.
HEAD = dict(template=seti.TEMPLATE, head="linear", max_train=0, context=CPU)
FEWSHOT = dict(
    how="head",
    mode="add",
    fewshot_epochs=3,
    head="linear",
    max_train=0,
    finetune_train_size=0,
    settings=ClassifierSettings(epochs=1),
    context=CPU,
)
FINETUNE = dict(tasks=["1/trivial"], seeds=[0], train_size=8, test_size=8, settings=ClassifierSettings(epochs=1))


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    found = seti.extract_natural_inferences(sick_data.load_sick(sick_data.BUNDLED_SICK))
    return seti.subsample_pool(found, 30, 12, seed=0)


@pytest.fixture(scope="module")
def small(pool):
    built, _ = seti.build_seeds(pool, [0], settings=[(1, "trivial")], configs=["cg"])
    return built


# --- seti: the template (case 1) -------------------------------------------------------------------


@pytest.mark.parametrize("template", ["Someone {verb} that", "Someone believes that {s}"])
def test_template_without_a_placeholder_is_refused_where_it_is_given(pool, template):
    missing = "{s}" if "{s}" not in template else "{verb}"
    with pytest.raises(MtlibInputError, match=r"build_seeds: template .* has no \{" + missing[1:-1] + r"\}") as err:
        seti.build_seeds(pool, [0], template=template)
    assert err.value.argument == "template"
    # build_all skips settings on SetiError; a bad template is not skipped
    with pytest.raises(MtlibInputError, match="build: template"):
        seti.build_all(pool, template=template)
    with pytest.raises(MtlibInputError, match="universe: template"):
        seti.universe(pool, template=template)
    with pytest.raises(MtlibInputError, match="veridical_premises: template"):
        seti.veridical_premises(["knows"], ["a man sleeps"], template)


@pytest.mark.parametrize("template", ["Someone {verb} that {s} {x}", "Someone {verb} that {s", 5, None])
def test_template_with_stray_fields_or_not_a_string(pool, template):
    with pytest.raises(MtlibInputError, match="template"):
        seti.build_seeds(pool, [0], template=template)


def test_valid_templates_still_build(pool):
    assert seti.check_template(seti.TEMPLATE, "x") == seti.TEMPLATE
    built, _ = seti.build_seeds(pool, [0], settings=[(1, "trivial")], configs=["cg"], template="Somebody {verb}: {s}")
    (data,) = built.values()
    assert data.test["premise"].str.startswith("Somebody ").all()


# --- seti: the device (case 2) ---------------------------------------------------------------------


def test_unknown_device_is_refused_before_loading(small, pool):
    """The device is checked once, where the run's context is resolved; an entry refuses anything but a context."""
    with pytest.raises(ValueError, match="device 'tpu' is not a device mtlib knows"):
        RunContext.resolve(device="tpu")
    with pytest.raises(ValueError, match="expected one of 'auto', 'cpu'"):
        RunContext.resolve(device=0)  # type: ignore[arg-type]
    for entry in (
        lambda: seti.head_report("minilm-static", small, pool, **{**HEAD, "context": "tpu"}),
        lambda: seti.fewshot_report("minilm-static", small, [0], **{**FEWSHOT, "context": "cpu"}),
        lambda: seti.finetune_report("minilm", small, **FINETUNE, context=None),
    ):
        with pytest.raises(MtlibInputError, match="context") as err:
            entry()
        assert err.value.argument == "context"


def test_cuda_without_a_gpu_says_so(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="device 'cuda' asked for, but torch sees no CUDA GPU"):
        RunContext.resolve(device="cuda")
    with pytest.raises(ValueError, match="cuda:1"):
        RunContext.resolve(device="cuda:1")


def test_report_records_the_device_used(small, pool):
    auto = RunContext.resolve()
    report = seti.head_report("minilm-static", small, pool, **{**HEAD, "max_train": 60, "context": auto})
    metrics = report.metrics()
    assert metrics["head_device"] == resolve_device("auto") == report.device
    assert metrics["encoder_device"] == "cpu"  # static vectors run on the CPU whatever was asked
    cpu = seti.head_report("minilm-static", small, pool, **{**HEAD, "max_train": 60, "context": CPU})
    assert cpu.metrics()["head_device"] == "cpu"
    if report.device == "cpu":  # "auto" resolved to the CPU here: the same run
        assert cpu.scores["accuracy"].tolist() == report.scores["accuracy"].tolist()
    # reports not made by an entry with a device carry no device key
    assert "head_device" not in seti.SetiReport("m").metrics()


# --- seti: other entry points (case 4) -------------------------------------------------------------


@pytest.mark.parametrize("seeds", [[], 0, "01", [0, -1], [0.5], None])
def test_bad_seeds(pool, seeds):
    with pytest.raises(MtlibInputError, match="build_seeds: seeds"):
        seti.build_seeds(pool, seeds)


def test_bad_pool_counts_and_frames(pool, small):
    with pytest.raises(MtlibInputError, match="natural_pool: n_lexical must be an integer >= 0"):
        seti.natural_pool("", -1, 5)
    with pytest.raises(MtlibInputError, match="natural_pool: n_structural"):
        seti.natural_pool("", 5, 2.5)
    with pytest.raises(MtlibInputError, match="natural_pool: sick_path"):
        seti.natural_pool(None)
    with pytest.raises(MtlibInputError, match="subsample_pool: n_lexical"):
        seti.subsample_pool(pool, -3)
    with pytest.raises(MtlibInputError, match="build_seeds: pool must be a DataFrame"):
        seti.build_seeds("pool.tsv", [0])
    with pytest.raises(MtlibInputError, match=r"build: pool lacks column\(s\) \['type'\]"):
        seti.build(1, "trivial", "cg", pool.drop(columns="type"))
    with pytest.raises(MtlibInputError, match="build: n_few"):
        seti.build(1, "trivial", "cg", pool, n_few=-1)
    with pytest.raises(MtlibInputError, match="head_report: datasets must be a mapping"):
        seti.head_report("minilm-static", [small], pool, **HEAD)
    with pytest.raises(MtlibInputError, match="head_report: max_train"):
        seti.head_report("minilm-static", small, pool, **{**HEAD, "max_train": -1})


def test_bad_shots_and_settings(small):
    with pytest.raises(MtlibInputError, match="fewshot_report: shots"):
        seti.fewshot_report("minilm-static", small, [], **FEWSHOT)
    with pytest.raises(MtlibInputError, match=r"fewshot_report: shots\[1\]"):
        seti.fewshot_report("minilm-static", small, [0, -2], **FEWSHOT)
    with pytest.raises(MtlibInputError, match="finetune_report: tasks"):
        seti.finetune_report("minilm", small, **{**FINETUNE, "tasks": "1/trivial"}, context=CPU)
    with pytest.raises(MtlibInputError, match="finetune_report: seeds"):
        seti.finetune_report("minilm", small, **{**FINETUNE, "seeds": []}, context=CPU)


# --- pss: clean_pairs (case 3) ---------------------------------------------------------------------


def _pairs(rows, index=None):
    return pd.DataFrame(rows, columns=["source", "rewrite", "direction"], index=index, dtype=object)


@pytest.mark.parametrize(
    ("row", "column", "shown"),
    [
        (("the food was bad .", 5, "neg_to_pos"), "rewrite", "int 5"),
        ((None, "the food was good .", "neg_to_pos"), "source", "NoneType None"),
        (("the food was bad .", math.nan, "neg_to_pos"), "rewrite", "float nan"),
        ((b"bytes", "the food was good .", "neg_to_pos"), "source", "bytes"),
    ],
)
def test_clean_pairs_refuses_non_text_with_row_and_column(row, column, shown):
    good = ("the food was bad .", "the food was great .", "neg_to_pos")
    pairs = _pairs([good, row, good], index=[10, 11, 12])
    with pytest.raises(MtlibInputError, match=rf"clean_pairs: pairs row 1 \(index 11\), column '{column}'") as err:
        pss.clean_pairs(pairs)
    assert shown in str(err.value)
    assert err.value.argument == f"pairs[{column!r}]"


def test_clean_pairs_refuses_a_non_frame_and_keeps_its_old_errors():
    with pytest.raises(MtlibInputError, match="clean_pairs: pairs must be a DataFrame"):
        pss.clean_pairs([("a", "b", "neg_to_pos")])
    with pytest.raises(KeyError, match="direction"):
        pss.clean_pairs(pd.DataFrame({"source": ["a"], "rewrite": ["b"]}))
    with pytest.raises(ValueError, match="unknown direction"):
        pss.clean_pairs(_pairs([("a", "b", None), ("c", "d", 3)]))


# --- pss: other entry points (case 4) --------------------------------------------------------------


def test_pss_subsample_refuses_a_non_frame_and_a_negative_count():
    frame = pd.DataFrame({"text": ["a", "b"], "label": [0, 1]})
    with pytest.raises(MtlibInputError, match="subsample: frame must be a DataFrame"):
        pss.subsample(frame.to_dict("records"), 1)
    with pytest.raises(MtlibInputError, match="subsample: n must be an integer >= 0"):
        pss.subsample(frame, -1)
