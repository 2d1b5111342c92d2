"""SETI: the SICK loader, natural-inference extraction, the verbs and rules, and notebook 07's spec.

The seven settings' builder is tested in ``tests/unit/data/test_seti_tasks.py``; the method (heads, fine-tuning,
few-shot curves, findings) is notebook 07's cells, run by the notebook tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from mtlib.data import DataFormatError
from mtlib.data.sick import FULL_COLUMNS, load_sick
from mtlib.experiments import seti
from mtlib.relations import MtlibInputError
from mtlib.utils.rules import ParameterError

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "data" / "nli_pool" / "SICK.txt"
GENERATOR = ROOT / "data" / "nli_pool" / "make_sick.py"

# A hand-made SICK file: 3 lexical pairs, 2 active/passive pairs (one with swapped roles), and 4 pairs
# the extractor must skip (unrelated, two words changed, determiner only, negation).
FIXTURE_ROWS = [
    (
        "1",
        "A boy is jumping into the water",
        "A kid is jumping into the water",
        "ENTAILMENT",
        "A_entails_B",
        "B_neutral_A",
    ),
    ("2", "A woman is smiling", "A man is smiling", "CONTRADICTION", "A_contradicts_B", "B_contradicts_A"),
    ("3", "A man is cutting a potato", "A man is slicing a potato", "ENTAILMENT", "A_entails_B", "B_entails_A"),
    (
        "4",
        "The detective is following the man",
        "The man is being followed by the detective",
        "ENTAILMENT",
        "A_entails_B",
        "B_entails_A",
    ),
    (
        "5",
        "A dog is being chased by a cat",
        "A dog is chasing a cat",
        "CONTRADICTION",
        "A_contradicts_B",
        "B_contradicts_A",
    ),
    ("6", "A fish is being sliced by a man", "A cat is jumping into a box", "NEUTRAL", "A_neutral_B", "B_neutral_A"),
    ("7", "A boy is running in the park", "A girl is running in the garden", "NEUTRAL", "A_neutral_B", "B_neutral_A"),
    ("8", "A boy is running in the park", "The boy is running in the park", "ENTAILMENT", "A_entails_B", "B_entails_A"),
    (
        "9",
        "A car is being driven by a man",
        "A car is not being driven by a man",
        "CONTRADICTION",
        "A_contradicts_B",
        "B_contradicts_A",
    ),
]


def _write_sick(path: Path, rows, header=FULL_COLUMNS) -> Path:
    lines = ["\t".join(header)]
    for pid, a, b, label, ab, ba in rows:
        lines.append("\t".join([pid, a, b, label, "4.2", ab, ba, a, b, "FLICKR", "FLICKR", "TRAIN"]))
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return path


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    return seti.extract_natural_inferences(load_sick(BUNDLED))


# --- loader ---------------------------------------------------------------------------------------


def test_load_bundled_sick_has_the_real_layout():
    raw = BUNDLED.read_bytes()
    assert raw.endswith(b"\r\n") and raw.count(b"\r\n") == raw.count(b"\n"), "CRLF line ends as in the real file"
    frame = load_sick(BUNDLED)
    assert list(frame.columns[:12]) == list(FULL_COLUMNS)
    assert (
        frame["pair_ID"].is_unique and frame["entailment_label"].isin(["ENTAILMENT", "NEUTRAL", "CONTRADICTION"]).all()
    )
    assert frame["line"].iloc[0] == 2


def test_load_semeval_layout(tmp_path):
    path = tmp_path / "SICK_train.txt"
    path.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA boy is jumping\tA kid is jumping\t4.5\tENTAILMENT\n"
    )
    frame = load_sick(path)
    pool = seti.extract_natural_inferences(frame)
    assert list(pool["direction"]) == ["AB"] and pool["label"].tolist() == [1]  # no B->A without entailment_BA


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda h, r: (h.replace("entailment_AB", "entailment_X"), r), "missing ['entailment_AB']"),
        (lambda h, r: (h, r.replace("\tCONTRADICTION\t", "\tCONTRA\t", 1)), "entailment_label in"),
        (lambda h, r: (h, r.replace("A_contradicts_B", "A_follows_B", 1)), "entailment_AB in"),
        (lambda h, r: (h, "\t".join(r.split("\t")[:3])), "12 tab-separated columns"),
        (lambda h, r: (h, r.replace("4.2", "high", 1)), "numeric relatedness_score"),
    ],
)
def test_bad_sick_input_names_file_line_and_expectation(tmp_path, mutate, expected):
    good = _write_sick(tmp_path / "good.txt", FIXTURE_ROWS[:2]).read_text().splitlines()
    header, row = mutate(good[0], good[2])
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([header, good[1], row]) + "\n")
    with pytest.raises(DataFormatError) as err:
        load_sick(bad)
    assert str(bad) in str(err.value) and expected in str(err.value)
    assert err.value.line == 1 if "missing" in expected else err.value.line == 3


def test_unknown_header_lists_both_layouts(tmp_path):
    bad = tmp_path / "x.txt"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(DataFormatError, match="entailment_judgment"):
        load_sick(bad)


# --- extraction -----------------------------------------------------------------------------------


def test_extraction_on_hand_made_fixture(tmp_path):
    pool = seti.extract_natural_inferences(load_sick(_write_sick(tmp_path / "SICK.txt", FIXTURE_ROWS)))
    assert set(pool["pair_ID"]) == {1, 2, 3, 4, 5}
    lex = pool[pool["type"] == "lexical"].set_index(["pair_ID", "direction"])
    assert lex.loc[(1, "AB"), "rule"] == "boy→kid" and lex.loc[(1, "AB"), "label"] == 1
    assert lex.loc[(1, "BA"), "rule"] == "kid→boy" and lex.loc[(1, "BA"), "label"] == 0  # B_neutral_A
    assert lex.loc[(3, "BA"), "label"] == 1 and lex.loc[(2, "AB"), "label"] == 0
    stru = pool[pool["type"] == "structural"].set_index(["pair_ID", "direction"])
    assert stru.loc[(4, "AB"), "rule"] == "active→passive" and stru.loc[(4, "AB"), "relation"] == "same"
    assert stru.loc[(5, "AB"), "rule"] == "passive→active" and stru.loc[(5, "AB"), "relation"] == "swapped"
    assert stru["label"].tolist().count(1) == 2
    assert len(pool) == 10  # both directions of the five pairs


def test_structural_match_handles_irregular_and_changed_content():
    assert seti.structural_match("A man is driving a car", "A car is being driven by a man") == "same"
    assert seti.structural_match("A man is carrying a box", "A box is being carried by a man") == "same"
    assert seti.structural_match("A man is slicing a potato", "A tomato is being sliced by a man") == "changed"
    assert seti.structural_match("A man is slicing a potato", "A potato is being eaten by a man") is None
    assert seti.structural_match("A man is slicing a potato", "A man is slicing a tomato") is None


def test_bundled_pool_sizes(pool):
    ab = pool[pool["direction"] == "AB"]
    counts = ab["type"].value_counts()
    assert counts["lexical"] >= 800 and counts["structural"] >= 300
    assert set(pool.groupby("type")["label"].nunique()) == {2}
    assert set(pool.loc[pool["type"] == "structural", "relation"]) == {"same", "swapped", "changed"}
    assert len(load_sick(BUNDLED)) > ab["pair_ID"].nunique(), "unrelated pairs are skipped"


def test_generator_reproduces_committed_file(tmp_path):
    out = tmp_path / "SICK.txt"
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out)], check=True, capture_output=True)
    assert out.read_bytes() == BUNDLED.read_bytes()


# --- verbs and rules ------------------------------------------------------------------------------


def test_table6_verbs_and_template():
    verbs = seti.verb_table()
    assert len(verbs) == 30 and verbs["veridical"].sum() == 15 and verbs["verb"].is_unique
    forms = dict(zip(verbs["verb"], verbs["form"]))
    assert forms["realize"] == "realizes" and forms["wish"] == "wishes" and forms["imply"] == "implies"
    assert seti.TEMPLATE == "Someone {verb} that {s}"
    with pytest.raises(seti.SetiError, match="veridical and non-veridical"):
        seti.verb_table({"know": True})


def test_boolean_rules_table():
    table = seti.rules_table()
    assert table.loc[1, ["PI_ver", "PI_nat", "CI"]].tolist() == [True, True, 1]
    assert table.loc[2, ["PI_ver", "PI_nat", "CI"]].tolist() == [True, False, 0]
    assert table.loc[3, ["PI_ver", "PI_nat", "CI"]].tolist() == [False, True, 0]
    assert table.loc[4, ["PI_ver", "PI_nat", "CI"]].tolist() == [False, False, 0]
    assert table["symbol"].tolist() == ["①", "②", "③", "④"]


def test_subsample_pool_keeps_both_directions_of_a_pair(pool):
    small = seti.subsample_pool(pool, 30, 12, seed=0)
    assert small.groupby("type")["pair_ID"].nunique().to_dict() == {"lexical": 30, "structural": 12}
    assert (small.groupby("pair_ID").size() == 2).all()
    with pytest.raises(MtlibInputError, match="subsample_pool: n_lexical must be an integer >= 0"):
        seti.subsample_pool(pool, -3)
    with pytest.raises(MtlibInputError, match="subsample_pool: pool lacks column"):
        seti.subsample_pool(pool.drop(columns="pair_ID"), 3)


def test_paper_table5():
    table = seti.PAPER_TABLE5.set_index(["task", "setup", "type"])
    assert table.loc[(2, "non-trivial", "CI"), "cg_test"] == 31620 and len(table) == 12


# --- few-shot choices (§5.2) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(how="frozen"), "fewshot_how='frozen' is not one of"),
        (dict(mode="append"), "fewshot_mode='append' is not one of"),
        (dict(epochs=0), "positive integer"),
        (dict(epochs=2.5), "positive integer"),
        (dict(mode="continue", head="linear"), "head='mlp' or fewshot_how"),
    ],
)
def test_bad_fewshot_parameters_are_clear(kwargs, match):
    good = dict(how="head", mode="add", epochs=3, head="linear")
    with pytest.raises(seti.SetiError, match=match):
        seti.check_fewshot(**{**good, **kwargs})
    # the spec refuses the same choices before anything runs, naming the parameter
    spec_args = {("fewshot_" + k if k in ("how", "mode", "epochs") else k): v for k, v in kwargs.items()}
    with pytest.raises(ParameterError, match="fewshot_"):
        seti.Spec(**spec_args)


def test_parse_setups():
    assert seti.parse_setups(["1/trivial", "3/non-trivial-R_ver"]) == [(1, "trivial"), (3, "non-trivial-R_ver")]
    assert seti.parse_setups(["all"]) == list(seti.TASK_SETUPS)
    with pytest.raises(seti.SetiError, match="task1/trivial|<task>/<setting>"):
        seti.parse_setups(["task1/trivial"])
    with pytest.raises(seti.SetiError, match="'all' .* stands alone"):
        seti.parse_setups(["all", "1/trivial"])


# --- notebook 07's spec -------------------------------------------------------------------------


def test_spec_is_the_notebooks_one_declaration():
    from mtlib.experiments import spec_for

    assert spec_for("07") is seti.Spec
    spec = seti.Spec()
    settings = spec.finetune()  # the paper's recipe at small scale, as the fine-tuning had it before
    assert (settings.epochs, settings.lr, settings.batch_size, settings.max_length) == (2, 5e-5, 16, 128)
    assert spec.tasks() == [(1, "trivial"), (2, "non-trivial")]
    assert seti.Spec(finetune_tasks=["all"]).tasks() == list(seti.TASK_SETUPS)
    assert 'finetune_tasks: list = ["1/trivial", "2/non-trivial"]' in seti.Spec.cell()


@pytest.mark.parametrize(
    "values,match",
    [
        (dict(finetune_tasks=["4/trivial"]), "one of all, 1/trivial"),
        (dict(finetune_tasks=["all", "1/trivial"]), "stands alone"),
        (dict(finetune_settings={"learning_rate": 1e-5}), r"unknown key\(s\) \['learning_rate'\]"),
        (dict(finetune_settings={"epochs": 0}), "epochs must be a whole number"),
        (dict(head="logreg"), "one of linear, mlp"),
        (dict(seeds=[]), "at least one entry"),
        (dict(epochs=2), "no such parameter"),  # folded into finetune_settings
    ],
)
def test_spec_refuses_bad_values_naming_the_parameter(values, match):
    with pytest.raises(ParameterError, match=match):
        seti.Spec.from_values(values)


def test_old_seti_names_still_work_for_one_release_with_a_deprecation_warning():
    from mtlib.data import seti_tasks

    for old, new in (
        ("SETTINGS", "TASK_SETUPS"),
        ("FEWSHOT_SETTINGS", "FEWSHOT_SETUPS"),
        ("parse_settings", "parse_setups"),
    ):
        with pytest.warns(DeprecationWarning, match=f"seti.{old} (moved to|is renamed) .*{new}"):
            assert getattr(seti, old) is getattr(seti, new)
    for old, new in (("SETTINGS", "TASK_SETUPS"), ("KINDS", "ITEM_TYPES")):
        with pytest.warns(DeprecationWarning, match=f"seti_tasks.{old} is renamed {new}"):
            assert getattr(seti_tasks, old) is getattr(seti_tasks, new)
    data = seti_tasks.SetiData(1, "trivial", "cg", pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    with pytest.warns(DeprecationWarning, match="SetiData.setting is renamed SetiData.setup"):
        assert data.setting == data.setup == "trivial"
    pool = pd.DataFrame(columns=["premise", "hypothesis", "label", "type", "pair_ID"])
    for step, more in ((seti_tasks.recipe, {}), (seti_tasks.build, {"config": "cg"})):
        with pytest.warns(DeprecationWarning, match=rf"^{step.__name__}\(\): setting= is renamed setup="):
            with pytest.raises(seti_tasks.SetiError, match=r"unknown task setup \(9, 'nowhere'\)"):
                step(9, setting="nowhere", pool=pool, verbs=pd.DataFrame(), **more)
        with pytest.raises(TypeError, match="both setup= and its old name setting="):
            step(9, setup="a", setting="b", pool=pool, verbs=pd.DataFrame(), **more)
