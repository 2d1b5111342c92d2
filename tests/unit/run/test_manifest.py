"""The manifest's parts: what the loaders and the cache report, how files and models are named, who writes it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mtlib import models
from mtlib.data import cogalex
from mtlib.models.base import Model
from mtlib.models.training.settings import Training
from mtlib.run import environment, manifest
from mtlib.run.layout import RunLayout
from mtlib.run.results import Run
from mtlib.utils import provenance
from mtlib.utils.cache import ArrayCache, cached_rows
from mtrun import manifests
from mtrun.jobs import JobResult
from mtrun.report import write_report


def _pairs(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("cat\tdog\tRANDOM\nhot\tcold\tANT\n")
    return path


def test_a_loader_reports_the_file_it_read_once(tmp_path):
    provenance.reset()
    data = _pairs(tmp_path / "own" / "pairs.tsv")
    cogalex.read_pairs(data)
    cogalex.read_pairs(data)
    assert provenance.inputs() == [data]
    [entry] = manifest.input_records()
    assert entry == {
        "name": "pairs.tsv",  # a user's own file: its name and digest, not where it lives
        "where": "user",
        "bytes": data.stat().st_size,
        "sha256": provenance.fingerprint(data)[1],
    }


def test_files_are_named_relative_to_the_project_or_the_data_folder():
    project = environment.CODE_ROOT
    bundled = project / "data" / "montague" / "words.tsv"
    assert manifest.input_name(bundled, project, project / "data") == ("data/montague/words.tsv", "project")
    elsewhere = Path("/srv/datasets/sick/SICK.txt")
    assert manifest.input_name(elsewhere, project, Path("/srv/datasets")) == ("$MTLIB_DATA/sick/SICK.txt", "data")
    assert manifest.private_value({"paths": ["/home/ana/x.txt", "~/y.tsv", "data/z.tsv"], "n": 3}) == {
        "paths": ["x.txt", "y.tsv", "data/z.tsv"],
        "n": 3,
    }
    climbing = "../" * (len(Path.cwd().parts) + 1) + "home/ana/w.tsv"  # relative, out of every project
    assert manifest.private_value(climbing) == "w.tsv"
    records = manifest.cache_records(
        {("(no cache)", "embed /home/ana/my model"): {"calls": 1, "hits": 0, "misses": 1}}, []
    )
    assert records[0]["operation"] == "embed my model" and "ana" not in json.dumps(records)


def test_the_cache_counts_hits_and_misses_per_namespace(tmp_path):
    provenance.reset()
    cache = ArrayCache(("toy@1", "embed"), root=tmp_path)

    def compute(items):
        return np.ones((len(items), 2), dtype=np.float32)

    cached_rows(cache, ["a", "b", "a"], compute)
    cached_rows(cache, ["a", "b", "c"], compute)
    cached_rows(None, ["x"], compute, desc="embed toy")
    counts = provenance.cache_counts()
    assert counts[("toy@1", "embed")] == {"calls": 2, "hits": 2, "misses": 3}
    assert counts[("(no cache)", "embed toy")] == {"calls": 1, "hits": 0, "misses": 1}
    [uncached, cached] = manifest.cache_records(counts, [Model("toy", "toy@1")])  # in namespace order
    assert (cached["model"], cached["operation"], cached["hits"], cached["misses"]) == ("toy", "embed", 2, 3)
    assert (uncached["cached"], uncached["identity"], uncached["operation"]) == (False, None, "embed toy")


def test_a_trained_classifier_lists_its_training_record_and_its_base():
    encoder = Model("enc", "enc@12ab")
    clf = Model("enc+linear", "enc@12ab+head:k1")
    clf.encoder = encoder  # type: ignore[attr-defined]
    clf.training = Training(
        "head", "linear", {"C": 1.0}, seed=3, heldout_accuracy=None, majority_baseline=None, key="k1"
    )  # type: ignore[attr-defined]
    record = manifest.model_record(clf)
    assert record["base"] == {"name": "enc", "identity": "enc@12ab"}
    assert record["training"]["seed"] == 3 and record["training"]["settings"] == {"C": 1.0}
    assert record["training"]["key"] == "k1" and record["training"]["data_sha256"] is None
    assert record["precision"] is None  # the model says nothing about its precision: null, not a guess


def test_run_writes_its_manifest_with_the_models_it_used(tmp_path):
    held = models.load("vader")  # loaded before the run, as in a JupyterLab kernel
    provenance.reset()
    run = Run("provenance_unit", profile="smoke", out_dir=str(tmp_path), params={"seed": 1, "out_dir": str(tmp_path)})
    first = json.loads(run.layout.manifest_path.read_text())
    assert first["models"] == [] and first["parameters"] == {"seed": 1}  # out_dir is where outputs go: left out
    cogalex.read_pairs(_pairs(tmp_path / "in" / "pairs.tsv"))
    held.score(["a fine film"], "positive")
    run.record("x", 1.0)
    body = json.loads(run.layout.manifest_path.read_text())
    assert [m["name"] for m in body["models"]] == ["vader"] and body["models"][0]["identity"] == held.identity
    assert [e["name"] for e in body["inputs"]] == ["pairs.tsv"]
    assert body["cache"][0]["model"] == "vader"
    before = run.layout.manifest_path.stat().st_mtime_ns
    run.write_manifest()  # nothing changed but the date: not rewritten
    assert run.layout.manifest_path.stat().st_mtime_ns == before


def test_a_model_held_from_an_earlier_run_and_not_used_is_not_listed(tmp_path):
    models.load("vader")
    run = Run("provenance_unit", profile="smoke", out_dir=str(tmp_path), params={})
    run.record("x", 1.0)
    assert json.loads(run.layout.manifest_path.read_text())["models"] == []


def test_the_runner_completes_a_manifest_or_writes_one(tmp_path):
    run_dir = tmp_path / "papermill_runs" / "smoke" / "01_x"
    path = manifests.complete_manifest(run_dir, "01_x", "smoke", {"seed": 0, "out_dir": "/home/ana/o"}, "failed", 2.5)
    written = json.loads(path.read_text())
    assert written["written_by"] == "runner" and written["runner"] == {"status": "failed", "seconds": 2.5}
    assert written["parameters"] == {"seed": 0} and written["inputs"] == []
    assert written["record_type"] == "notebook" and "kind" not in written and written["schema"] == manifest.SCHEMA
    # a schema-1 manifest (its record type named kind) is completed as a schema-2 one
    manifest.write_manifest(run_dir / "manifest.json", {"schema": 1, "kind": "notebook", "inputs": [{"name": "a"}]})
    assert manifest.read_manifest(path)["record_type"] == "notebook" and "kind" not in manifest.read_manifest(path)
    manifests.complete_manifest(run_dir, "01_x", "smoke", {}, "ok", 1.0)
    again = json.loads(path.read_text())
    assert again["inputs"] == [{"name": "a"}] and again["runner"]["status"] == "ok"
    assert again["record_type"] == "notebook" and "kind" not in again


def test_the_report_shows_what_each_run_ran_on_and_links_the_manifests(tmp_path):
    layout = RunLayout(tmp_path, "p", "01_a")
    manifest.write_manifest(
        layout.manifest_path,
        {
            "record_type": "notebook",
            "code": {"commit": "0123456789abcdef", "dirty": False},
            "machine": {"cpu": "Some CPU", "torch_cpu_capability": "AVX2", "device": "cpu", "precision": "fp32"},
        },
    )
    report = write_report([JobResult("01_a", "ok", 2.0, metrics={"accuracy": 0.5})], "p", tmp_path)
    text = report.read_text()
    assert "Ran on: commit 0123456789, machine Some CPU (torch kernels AVX2), device cpu, precision fp32." in text
    assert "Manifest: [manifest.json](01_a/manifest.json)" in text and "[manifest.json](manifest.json)" in text
    html = (report.parent / "REPORT.html").read_text()
    assert "Ran on: commit 0123456789" in html and 'href="01_a/manifest.json"' in html
    invocation = json.loads((report.parent / "manifest.json").read_text())
    assert invocation["record_type"] == "invocation" and invocation["profile"] == "p"
    [entry] = invocation["notebooks"]
    assert entry["manifest"] == "01_a/manifest.json" and entry["manifest_sha256"]


def test_the_environment_and_machine_hold_no_path():
    env, machine = environment.environment_record(), environment.machine_record()
    assert all("/" not in str(lib["library"]) for lib in env["blas"])
    assert set(env["packages"]) == set(environment.PACKAGES)
    assert set(machine["kernel_env"]) == set(environment.KERNEL_VARS)
    code = environment.code_record()
    assert code["source_sha256"] and not any(str(v).startswith("/") for v in code.values())
