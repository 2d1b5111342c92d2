"""The browsable HTML of a relation result: per-transformation table first, wrapped texts, no duplicate column."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

from mtlib import relations as R
from mtlib.relations import transformations as T


class _Tables(HTMLParser):
    """Header cells of every table, by table id, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str | None, list[str]]] = []
        self._in_th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append((dict(attrs).get("id"), []))
        self._in_th = tag == "th"

    def handle_endtag(self, tag: str) -> None:
        self._in_th = False if tag == "th" else self._in_th

    def handle_data(self, data: str) -> None:
        if self._in_th and data.strip():
            self.tables[-1][1].append(data.strip())


def _result(evil: str = "") -> R.RelationResult:
    texts = [f"review {i} {evil}" + " long words" * 40 for i in range(30)]
    rng = np.random.default_rng(1)
    base = dict(zip(texts, rng.random(30)))
    noise = dict(zip(texts, rng.normal(scale=0.3, size=30)))
    fn = lambda xs: np.array([base[x] if x in base else base[x[:-2]] + noise[x[:-2]] for x in xs])  # noqa: E731
    bang = T.FunctionTransformation(lambda s: s + " !", name=f"bang{evil}")
    ask = T.FunctionTransformation(lambda s: s + " ?", name="ask")
    return R.PairwiseSystematicity("p", [bang, ask]).evaluate(texts, fn, n_boot=20)


def test_page_shows_the_transformations_before_the_worst_cases_without_the_repeated_item(tmp_path) -> None:
    res = _result()
    assert res.groups is not None and (res.examples(5)["item_1"] == res.examples(5)["src_text_1"]).all()
    page = res.to_html(tmp_path / "cases.html").read_text()
    parser = _Tables()
    parser.feed(page)
    (groups_id, groups_head), (cases_id, cases_head) = parser.tables
    assert groups_id == "groups" and cases_id == "cases"
    assert groups_head[:6] == ["transformation", "rate", "ci_low", "ci_high", "cases", "violations"]
    assert "src_text_1" in cases_head and "item_1" not in cases_head and "item_2" not in cases_head
    for name, row in res.groups.iterrows():
        assert f"<td>{name}</td>" in page and f"<td>{row['rate']:.4f}</td>" in page
    assert "overflow-wrap:anywhere" in page and "max-width" in page
    assert page.index('id="groups"') < page.index('id="cases"')
    assert set(res.examples(5).columns) >= {"item_1", "src_text_1"}  # the data frame itself is unchanged


def test_notebook_view_wraps_cells_and_escapes_transformation_names() -> None:
    evil = "<img src=x onerror=alert(1)>"
    view = _result(evil)._repr_html_()
    assert "<img" not in view and "&lt;img src=x onerror=alert(1)&gt;" in view
    assert view.index("transformation") < view.index("src_text_1") and "item_1" not in view
    assert "<td>" not in view and 'style="overflow-wrap:anywhere;max-width:32em' in view


def test_result_without_groups_has_no_group_table(tmp_path) -> None:
    src = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    flw = np.array([[0.8, 0.2], [0.1, 0.9], [0.45, 0.55]])
    res = R.SingleInput("eq", "equivalence").check(src, flw, per_item=["a", "b", "c"])
    page = res.to_html(tmp_path / "c.html").read_text()
    assert 'id="groups"' not in page and 'id="cases"' in page and "<td>b</td>" in page
