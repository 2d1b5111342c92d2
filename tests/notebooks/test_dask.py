"""The Dask executor end to end: fan-out then gather on a 2-process LocalCluster, a worker killed mid-job.

One module-scoped run of notebooks 01 and 04 (smoke profile; 01 given a
second model, ``vader``, so that it splits too) sequentially with one fresh
cache, and on Dask with ``--fan-out models`` with another fresh cache while a
worker and everything it started are killed in the middle of a fan-out job
(as when a machine dies). The tests then compare the two runs.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path

import pytest

import mtrun as runner
from mtrun import fanout

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("dask")  # one worker holds the module's LocalCluster
ONLY = ["01", "04"]
OVERRIDES = ["01.models=[minilm,vader]"]


def _with_cache(cache: Path):
    """Point ``$MTLIB_CACHE`` at ``cache`` (workers and kernels inherit it); returns the old value."""
    old = os.environ.get("MTLIB_CACHE")
    os.environ["MTLIB_CACHE"] = str(cache)
    return old


def _restore(old: str | None) -> None:
    if old is None:
        os.environ.pop("MTLIB_CACHE", None)
    else:
        os.environ["MTLIB_CACHE"] = old


def _cmdline(proc) -> list[str]:
    try:
        return proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return []


def _kill_a_fan_out_worker(client, stop: threading.Event, killed: dict) -> None:
    """Wait until a worker runs a fan-out job's kernel for a moment, then SIGKILL it and its children."""
    seen: dict[int, float] = {}
    while not stop.is_set():
        pids = client.run(os.getpid)
        processing = client.processing()
        for addr, pid in pids.items():
            keys = [k for k in processing.get(addr, []) if str(k).startswith("fan-out-04")]
            if not keys:
                continue
            try:
                kids = psutil.Process(pid).children(recursive=True)
            except psutil.NoSuchProcess:
                continue
            if not any("ipykernel" in " ".join(_cmdline(k)) for k in kids):
                continue
            seen.setdefault(pid, time.monotonic())
            if time.monotonic() - seen[pid] >= 2.0:  # the kernel is busy in the notebook
                for proc in [psutil.Process(pid), *kids]:
                    try:
                        proc.kill()
                    except psutil.NoSuchProcess:
                        pass
                killed.update(address=addr, pid=pid, keys=keys)
                return
        time.sleep(0.5)


#: The cluster's closing and the tests still to read :func:`runs` on this worker: the cluster is closed after the
#: last of them (an idle 2-worker LocalCluster costs about 5 s of CPU a minute), not at the end of the session.
_LIVE: dict = {}


@pytest.fixture(autouse=True)
def _close_the_cluster_after_its_last_reader(request):
    yield
    if "pending" in _LIVE:
        _LIVE["pending"].discard(request.node.nodeid)
        if not _LIVE["pending"]:
            _LIVE.pop("pending")
            _LIVE.pop("close")()


@pytest.fixture(scope="session")  # not module: xdist may interleave modules on a worker, which would rebuild it
def runs(request, tmp_path_factory):
    """(sequential results, dask results, the executor, kill record, out dirs, cluster address)."""
    import dask
    from distributed import Client, LocalCluster

    base = tmp_path_factory.mktemp("dask-runs")
    seq_out, dask_out = base / "sequential", base / "dask"
    old = _with_cache(base / "cache-sequential")
    try:
        jobs = runner.build_jobs("smoke", ONLY, None, ROOT, None, seq_out, OVERRIDES)
        sequential = {r.stem: r for r in runner.SequentialExecutor().map(jobs)}
    finally:
        _restore(old)
    old = _with_cache(base / "cache-dask")
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        )
    client = Client(cluster, set_as_default=False)
    closed: list[bool] = []

    def close() -> None:
        if not closed:
            closed.append(True)
            client.close()
            cluster.close()

    stop, killed = threading.Event(), {}
    killer = threading.Thread(target=_kill_a_fan_out_worker, args=(client, stop, killed), daemon=True)
    try:
        jobs = runner.build_jobs("smoke", ONLY, None, ROOT, None, dask_out, OVERRIDES)
        executor = runner.make_executor(
            argparse.Namespace(
                executor="dask", workers=2, scheduler=cluster.scheduler_address, fan_out="models", retries=1
            )
        )
        killer.start()
        results = {r.stem: r for r in executor.map(jobs)}
        stop.set()
        killer.join(timeout=10)
        readers = {i.nodeid for i in request.session.items if "runs" in getattr(i, "fixturenames", ())}
        _LIVE.update(pending=readers, close=close)
        yield sequential, results, executor, killed, (seq_out, dask_out), cluster.scheduler_address
    finally:
        stop.set()
        _restore(old)
        _LIVE.clear()
        close()


def _comparable(metrics: dict) -> dict:
    """Metrics without durations: keys under ``timing/`` or with a part naming ``seconds`` (05's
    ``seconds_total``, 04's ``embed_seconds/<model>`` are not under ``timing/`` yet)."""
    return {
        k: v
        for k, v in metrics.items()
        if not k.startswith("timing/") and not any("seconds" in p for p in k.split("/"))
    }


@pytest.mark.slow
def test_fan_out_gather_gives_the_sequential_metrics_exactly(runs):
    sequential, results, _, _, (seq_out, dask_out), _ = runs
    assert sorted(results) == sorted(sequential) == ["01_pairwise_sentiment_systematicity", "04_montague_adjectives"]
    for stem, res in results.items():
        assert sequential[stem].status == "ok", sequential[stem].error
        assert res.status == "ok", res.error
        seq_metrics = json.loads((seq_out / "papermill_runs/smoke" / stem / "metrics.json").read_text())
        dask_metrics = json.loads((dask_out / "papermill_runs/smoke" / stem / "metrics.json").read_text())
        assert len(_comparable(seq_metrics)) > 20
        assert _comparable(dask_metrics) == _comparable(seq_metrics)


@pytest.mark.slow
def test_same_output_files_and_no_fan_out_leftovers(runs):
    _, _, _, _, (seq_out, dask_out), _ = runs
    files = [sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) for out in (seq_out, dask_out)]
    assert files[0] == files[1]
    assert any(f.endswith("metrics.json") for f in files[1])


@pytest.mark.slow
def test_gather_jobs_make_no_model_forward_calls(runs):
    _, _, executor, _, _, _ = runs
    by_type = {}
    for o in executor.outcomes:
        by_type.setdefault(o.job_type, []).append(o)
    assert sorted(o.name for o in by_type["fan-out"]) == [
        "01_pairwise_sentiment_systematicity [minilm]",
        "01_pairwise_sentiment_systematicity [vader]",
        "04_montague_adjectives [minilm-static]",
        "04_montague_adjectives [minilm]",
    ]
    assert len(by_type["gather"]) == 2 and "whole" not in by_type
    # the fan-out jobs ran the models (the counter works) and the gather jobs only read the cache
    assert all(o.forward_calls > 0 for o in by_type["fan-out"]), [(o.name, o.forward_calls) for o in by_type["fan-out"]]
    assert [(o.name, o.forward_calls) for o in by_type["gather"]] == [(o.name, 0) for o in by_type["gather"]]


@pytest.mark.slow
def test_a_killed_worker_job_is_retried_and_the_run_completes(runs):
    _, results, executor, killed, _, _ = runs
    assert killed, "no fan-out job of 04 was running long enough to be killed"
    assert all(r.status == "ok" for r in results.values())
    names = [o.name for o in executor.outcomes]
    assert len(names) == len(set(names)) == 6  # every job once: the killed one rescheduled, not lost or doubled
    for key in killed["keys"]:  # the jobs queued or running on the killed worker ended well elsewhere
        job = [o for o in executor.outcomes if str(key).startswith(f"{o.job_type}-{o.name}".replace(" ", "_"))]
        assert len(job) == 1 and job[0].result.status == "ok"


@pytest.mark.slow
def test_a_cache_a_worker_cannot_write_names_path_and_worker(runs, tmp_path):
    from distributed import Client

    from mtrun.dask_executor import DaskExecutor

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with Client(runs[5], timeout=10, set_as_default=False) as client:
        with pytest.raises(SystemExit) as err:
            DaskExecutor(scheduler=runs[5], echo=lambda _: None)._check_workers(client, str(blocked / "cache"))
    text = str(err.value)
    assert str(blocked / "cache") in text and "worker tcp://" in text


def test_unreachable_scheduler_fails_fast_naming_it(tmp_path, capsys):
    start = time.perf_counter()
    with pytest.raises(SystemExit) as err:
        runner.main(
            [
                "--profile",
                "smoke",
                "--only",
                "01",
                "--out-dir",
                str(tmp_path),
                "--executor",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:9",
            ]
        )
    assert "tcp://127.0.0.1:9" in str(err.value) and "cannot reach" in str(err.value)
    assert time.perf_counter() - start < 30


def test_dask_flags_need_the_dask_executor(tmp_path):
    with pytest.raises(SystemExit, match="need --executor dask"):
        runner.main(["--profile", "smoke", "--only", "01", "--out-dir", str(tmp_path), "--fan-out", "models"])
    with pytest.raises(SystemExit, match="--fan-out layers"):
        runner.main(
            [
                "--profile",
                "smoke",
                "--only",
                "01",
                "--out-dir",
                str(tmp_path),
                "--executor",
                "dask",
                "--fan-out",
                "layers",
            ]
        )


def _notebook(prefix: str) -> Path:
    return next((ROOT / "notebooks").glob(f"{prefix}_*.ipynb"))


def test_fan_out_of_a_parameter_a_notebook_lacks_runs_it_unsplit_with_a_note():
    parts, notes = fanout.split(_notebook("04"), {"models": ["minilm", "glove-50d"]}, ["seeds"])
    assert parts == [] and "no seeds parameter" in notes[0]
    parts, notes = fanout.split(_notebook("01"), {"models": ["minilm"]}, ["models"])
    assert parts == [] and "nothing to split" in notes[0]


def test_fan_out_passes_a_training_block_whole_and_narrows_only_model_keyed_dicts():
    block = {"lr": 3e-5, "epochs": 1, "batch_size": 32, "max_length": 64}
    parts, _ = fanout.split(
        _notebook("01"), {"models": ["minilm", "minilm-ft"], "finetune_settings": block}, ["models"]
    )
    assert len(parts) == 2 and all(p.parameters["finetune_settings"] == block for p in parts)
    assert fanout.model_keyed(_notebook("01")) == () and "finetune_settings" in fanout.model_keyed(_notebook("05"))


def test_fan_out_narrows_dependent_lists_and_keyed_settings():
    params = {
        "encoders": ["minilm", "glove-50d"],
        "finetune": ["minilm"],
        "native": ["vader"],
        "finetune_heads": {"minilm": ["linear"]},
        "finetune_settings": {"minilm": {"lr": 1e-4}},
        "seeds": [0, 1],
    }
    parts, notes = fanout.split(_notebook("05"), params, ["models", "seeds"])
    assert notes == []
    got = {p.label: p.parameters for p in parts}
    assert sorted(got) == sorted(f"{m}, seed {s}" for m in ("minilm", "glove-50d", "vader") for s in (0, 1))
    assert got["minilm, seed 1"] == {**params, "encoders": ["minilm"], "native": [], "seeds": [1]}
    assert got["glove-50d, seed 0"] == {
        **params,
        "encoders": ["glove-50d"],
        "finetune": [],
        "native": [],
        "finetune_heads": {},
        "finetune_settings": {},
        "seeds": [0],
    }
    assert got["vader, seed 0"]["encoders"] == [] and got["vader, seed 0"]["native"] == ["vader"]


def test_fan_out_keeps_required_lists_and_drops_jobs_others_cover():
    # 07: every job needs a head model; the head model's own job would only repeat the others' work
    params = {
        "head_models": ["minilm"],
        "finetune_models": ["bert-large-uncased", "roberta-large"],
        "fewshot_models": ["bert-large-uncased", "roberta-large"],
    }
    parts, _ = fanout.split(_notebook("07"), params, ["models"])
    assert [p.label for p in parts] == ["bert-large-uncased", "roberta-large"]
    assert parts[1].parameters["head_models"] == ["minilm"]
    assert parts[1].parameters["finetune_models"] == parts[1].parameters["fewshot_models"] == ["roberta-large"]


def test_gpu_jobs_from_the_device_or_the_models():
    from mtrun.dask_executor import needs_gpu

    assert needs_gpu({"device": "cuda", "models": ["minilm"]})
    assert not needs_gpu({"device": "cpu", "models": ["siebert"]})
    assert needs_gpu({"device": "auto", "models": ["minilm", "siebert"]})
    assert not needs_gpu({"device": "auto", "encoders": ["minilm", "glove-50d"], "native": ["vader"]})
