"""SETI's two figures as reusable panels (mtlib.analysis.plots.accuracy_panels, shot_curves)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from mtlib.analysis import plots


def test_accuracy_panels_draw_one_panel_per_setup_present_with_each_config_and_the_baselines():
    scores = pd.DataFrame(
        [(m, 1, "s", c, seed, 0.5 + 0.1 * seed, 0.6) for m in ("a", "b") for c in ("cg", "id") for seed in (0, 1)],
        columns=["model", "task", "setup", "config", "seed", "accuracy", "baseline"],
    )
    fig = plots.accuracy_panels(scores, [(1, "s"), (2, "absent")], [("cg", "CG"), ("id", "ID")], ylabel="acc")
    (ax,) = fig.axes
    assert ax.get_title() == "Task 1\ns" and ax.get_ylabel() == "acc"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["CG", "ID"]
    assert len(ax.collections) == 4  # per config: the seeds' points and the baselines' bars
    assert sorted(ax.collections[0].get_offsets()[:, 1].tolist()) == [0.5, 0.5, 0.6, 0.6]
    plt.close(fig)


def test_shot_curves_mark_the_given_shots_and_the_baseline():
    fewshot = pd.DataFrame(
        [("a", 1, "s", seed, k, 0.5 + k / 100, 0.7) for seed in (0, 1) for k in (0, 1, 4)],
        columns=["model", "task", "setup", "seed", "shots", "accuracy", "baseline"],
    )
    fig = plots.shot_curves(fewshot, [(1, "s")], {(1, "s"): 4})
    (ax,) = fig.axes
    vertical = [ln.get_xdata()[0] for ln in ax.lines if ln.get_linestyle() == "--"]
    dotted = [ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() == ":"]
    assert vertical == [4] and dotted == pytest.approx([0.7])  # the mean of the runs' baselines
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "4"]
    plt.close(fig)


def test_a_frame_with_the_old_column_setting_still_draws_for_one_release_with_a_deprecation_warning():
    scores = pd.DataFrame(
        [("a", 1, "s", c, 0, 0.5, 0.6) for c in ("cg", "id")],
        columns=["model", "task", "setting", "config", "seed", "accuracy", "baseline"],
    )
    with pytest.warns(DeprecationWarning, match="accuracy_panels: the column 'setting' is renamed 'setup'"):
        fig = plots.accuracy_panels(scores, [(1, "s")], [("cg", "CG"), ("id", "ID")])
    assert [ax.get_title() for ax in fig.axes] == ["Task 1\ns"]
    plt.close(fig)
    fewshot = pd.DataFrame([("a", 1, "s", 0, k, 0.5, 0.7) for k in (0, 1)],
                           columns=["model", "task", "setting", "seed", "shots", "accuracy", "baseline"])  # fmt: skip
    with pytest.warns(DeprecationWarning, match="shot_curves: the column 'setting' is renamed 'setup'"):
        fig = plots.shot_curves(fewshot, [(1, "s")])
    assert [ax.get_title() for ax in fig.axes] == ["Task 1 s"]
    plt.close(fig)
