"""Issue 36, runner options accepted and ignored or misplaced: every executor flag without the executor it
belongs to is refused, ``--out-dir ''`` is not the project folder, and no ``--out-dir`` inside ``data/``.

Each refusal happens before anything runs or is written, with the option named (``--list`` makes the
accepted cases cost no notebook run).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

import mtrun as runner

PARAMS = 'profile: str = "quick"  # profile\nout_dir: str = ""  # output root\nn_boot: int = 10  # replicates | >= 1\n'


def _project(root: Path) -> Path:
    (root / "mtlib").mkdir(parents=True)
    (root / "data").mkdir()
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    cell = nbformat.v4.new_code_cell(PARAMS)
    cell.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell("x = 1")])
    nb.metadata["kernelspec"] = {"name": "mtlib", "display_name": "Python (mtlib)", "language": "python"}
    nbformat.write(nb, nb_dir / "01_a.ipynb")
    (nb_dir / "profiles" / "t.yaml").write_text("notebooks: {}\n")
    return root


def _main(root: Path, *args: str) -> int:
    return runner.main(["--profile", "t", "--root", str(root), "--list", *args])


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--workers", "3"], "--workers"),
        (["--retries", "2"], "--retries"),
        (["--connect-timeout", "5"], "--connect-timeout"),
        (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
        (["--fan-out", "models"], "--fan-out"),
        (["--workers", "2", "--fan-out", "models"], "--workers, --fan-out given without --executor dask"),
    ],
)
def test_a_dask_option_without_the_dask_executor_is_refused(tmp_path, args, named):
    root = _project(tmp_path / "p")
    with pytest.raises(SystemExit, match=named) as err:
        _main(root, *args)
    assert "--executor dask" in str(err.value)


def test_workers_with_a_scheduler_and_connect_timeout_without_one_are_refused(tmp_path):
    root = _project(tmp_path / "p")
    with pytest.raises(SystemExit, match="--workers sets the workers of the LocalCluster"):
        _main(root, "--executor", "dask", "--workers", "3", "--scheduler", "tcp://127.0.0.1:9")
    with pytest.raises(SystemExit, match="--connect-timeout applies to --scheduler"):
        _main(root, "--executor", "dask", "--connect-timeout", "5")


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_out_dir_is_refused_not_taken_as_the_project_folder(tmp_path, value, monkeypatch):
    root = _project(tmp_path / "p")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=r"--out-dir '': expected a folder .*leave --out-dir out"):
        _main(root, "--out-dir", value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]  # nothing created in the working directory


@pytest.mark.parametrize("where", ["data", "data/figures_here", "data/../data/x"])
def test_an_out_dir_inside_the_data_folder_is_refused(tmp_path, where):
    root = _project(tmp_path / "p")
    with pytest.raises(SystemExit, match=r"--out-dir .*inside the data folder"):
        _main(root, "--out-dir", str(root / where))
    assert list((root / "data").iterdir()) == []  # no folder made among the inputs


def test_an_out_dir_inside_mtlib_data_is_refused(tmp_path, monkeypatch):
    root = _project(tmp_path / "p")
    monkeypatch.setenv("MTLIB_DATA", str(tmp_path / "datasets"))
    with pytest.raises(SystemExit, match="inside the data folder"):
        _main(root, "--out-dir", str(tmp_path / "datasets" / "runs"))


def test_good_options_are_still_accepted(tmp_path):
    root = _project(tmp_path / "p")
    assert _main(root) == 0
    assert _main(root, "--out-dir", str(tmp_path / "elsewhere")) == 0
    assert _main(root, "--executor", "dask", "--workers", "3", "--retries", "0") == 0
