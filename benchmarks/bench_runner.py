"""The Dask executor against the sequential runner: wall time, gather share, same metrics.

Both runs execute the same notebooks in the same profile (default: smoke,
notebooks 04 and 06, which both split by model: all eight took about 6 of
``make bench``'s 12 minutes; ``--only all`` runs every notebook), each with
its own fresh cache (``$MTLIB_CACHE``) and output folder, one after the other
in this process: first sequentially, then on a LocalCluster of ``--workers``
processes (``threads_per_worker=1``) with ``--fan-out`` (default ``models``),
and in between on the same cluster size without fan-out (notebooks in
parallel, whole). Figures:

- ``speedup_fanout`` / ``speedup_no_fanout``: sequential wall time / Dask
  wall time (which includes starting the cluster);
- ``gather_share``: the gather jobs' share of all job seconds of the Dask run
  (the overhead of drawing the cross-model outputs once more from the cache);
- ``fanout_job_seconds`` / ``gather_job_seconds`` per notebook, the per-job
  times an estimate for a larger cluster starts from;
- ``metrics_equal``: notebooks whose ``metrics.json`` (durations aside) is
  the same in both runs, out of those that ran in both.

Usage: ``python benchmarks/bench_runner.py [--profile smoke] [--only 04,06|all] [--workers 2] [--fan-out models]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it


def _comparable(metrics: dict) -> dict:
    return {
        k: v
        for k, v in metrics.items()
        if not k.startswith("timing/") and not any("seconds" in p for p in k.split("/"))
    }


def _run(executor, profile: str, only: list[str] | None, out: Path, cache: Path) -> tuple[float, dict]:
    """Wall seconds and {stem: JobResult} of one run with its own cache."""
    import mtrun as runner

    old = os.environ.get("MTLIB_CACHE")
    os.environ["MTLIB_CACHE"] = str(cache)
    try:
        jobs = runner.build_jobs(profile, only, None, ROOT, None, out)
        start = time.perf_counter()
        results = {r.stem: r for r in executor.map(jobs)}
        return time.perf_counter() - start, results
    finally:
        if old is None:
            os.environ.pop("MTLIB_CACHE", None)
        else:
            os.environ["MTLIB_CACHE"] = old


def schedule(per_nb: dict[str, dict[str, list[float]]], workers: int) -> float:
    """Wall seconds of a job list on ``workers`` workers, as the Dask executor orders it.

    ``per_nb`` maps a notebook to its job seconds: ``{"fan-out": [...], "gather": [t]}`` or
    ``{"whole": [t]}``. Jobs start in submission order on the first free worker (each notebook's
    fan-out jobs, or its whole job, first); a gather job is ready once its notebook's fan-out jobs
    have finished. Start-up and transfer times are not modelled.
    """
    free = [0.0] * workers
    ready = [
        (0.0, t, nb, kind) for nb, kinds in per_nb.items() for kind in ("fan-out", "whole") for t in kinds.get(kind, [])
    ]
    left = {nb: len(kinds.get("fan-out", [])) for nb, kinds in per_nb.items()}
    done_at: dict[str, float] = {}
    end = 0.0
    while ready:
        ready.sort(key=lambda job: job[0])  # stable: submission order among the ready ones
        at, seconds, nb, kind = ready.pop(0)
        i = min(range(workers), key=lambda w: free[w])
        finish = max(free[i], at) + seconds
        free[i], end = finish, max(end, finish)
        if kind == "fan-out":
            left[nb] -= 1
            done_at[nb] = max(done_at.get(nb, 0.0), finish)
            if left[nb] == 0:
                ready.append((done_at[nb], per_nb[nb]["gather"][0], nb, "gather"))
    return end


def _equal(seq: dict, par: dict) -> tuple[list[str], int]:
    """Notebooks whose metrics (durations aside) are the same in both runs, and how many ran ok in both."""
    both = [s for s in seq if seq[s].status == "ok" and par.get(s) and par[s].status == "ok"]
    return [s for s in both if _comparable(seq[s].metrics) == _comparable(par[s].metrics)], len(both)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="smoke")
    parser.add_argument(
        "--only", default="04,06", help="comma-separated notebook numbers, or all (default: 04,06, which fan out)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fan-out", default="models")
    args = parser.parse_args()
    import mtrun as runner
    from mtrun.dask_executor import DaskExecutor

    only = None if args.only.strip() == "all" else [o for o in args.only.split(",") if o] or None
    axes = [a for a in args.fan_out.split(",") if a]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"profile {args.profile}, load average at start {load:.1f} (other processes inflate every time)", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as tmp:
        tmp = Path(tmp)
        seq_s, seq = _run(runner.SequentialExecutor(), args.profile, only, tmp / "seq", tmp / "cache-seq")
        print(f"sequential: {seq_s:.1f} s wall", flush=True)
        plain = DaskExecutor(workers=args.workers, retries=1, echo=lambda line: None)
        plain_s, par_plain = _run(plain, args.profile, only, tmp / "plain", tmp / "cache-plain")
        print(f"dask, {args.workers} workers, no fan-out: {plain_s:.1f} s wall", flush=True)
        dask = DaskExecutor(workers=args.workers, fan_out=axes, retries=1, echo=lambda line: None)
        dask_s, par = _run(dask, args.profile, only, tmp / "dask", tmp / "cache-dask")
        print(f"dask, {args.workers} workers, fan-out {args.fan_out}: {dask_s:.1f} s wall", flush=True)
    equal, compared = _equal(seq, par)
    equal_plain, compared_plain = _equal(seq, par_plain)
    job_s = {"fan-out": 0.0, "gather": 0.0, "whole": 0.0}
    per_nb: dict[str, dict[str, list[float]]] = {}
    for o in dask.outcomes:
        job_s[o.kind] += o.result.seconds
        per_nb.setdefault(o.result.stem, {}).setdefault(o.kind, []).append(round(o.result.seconds, 1))
    total = sum(job_s.values())
    print(
        f"speedup over sequential: {seq_s / plain_s:.2f}x without fan-out, {seq_s / dask_s:.2f}x with fan-out "
        f"{args.fan_out}"
    )
    print(
        f"job seconds with fan-out: fan-out {job_s['fan-out']:.1f}, gather {job_s['gather']:.1f}, "
        f"unsplit {job_s['whole']:.1f}; gather share {job_s['gather'] / total:.1%}"
    )
    print(
        f"failed: sequential {[s for s, r in seq.items() if r.status != 'ok']}, "
        f"dask {[s for s, r in par.items() if r.status != 'ok']}, "
        f"dask without fan-out {[s for s, r in par_plain.items() if r.status != 'ok']}"
    )
    print(
        f"metrics equal to sequential (durations aside): fan-out {len(equal)}/{compared}, "
        f"no fan-out {len(equal_plain)}/{compared_plain}; differing: "
        f"{sorted(set(seq) - set(equal)) or 'none'}"
    )
    for stem, kinds in sorted(per_nb.items()):
        print(f"  {stem}: {json.dumps(kinds)}; sequential {seq[stem].seconds:.1f} s")
    model = {w: schedule(per_nb, w) for w in (1, 2, 4, 16)}
    print(
        "wall time these job times give on W workers (list scheduling, no start-up): "
        + ", ".join(f"{w}: {t:.0f} s" for w, t in model.items())
    )
    for figure, value, unit in (
        ("speedup_fanout", seq_s / dask_s, "x"),
        ("speedup_no_fanout", seq_s / plain_s, "x"),
        ("sequential_seconds", seq_s, "s"),
        ("dask_seconds", dask_s, "s"),
        ("dask_no_fanout_seconds", plain_s, "s"),
        ("gather_share", job_s["gather"] / total, "ratio"),
        ("metrics_equal", len(equal), f"of {compared}"),
    ):
        print(
            json.dumps(
                {
                    "bench": "runner",
                    "figure": figure,
                    "value": round(value, 4),
                    "unit": unit,
                    "profile": args.profile,
                    "workers": args.workers,
                    "load": round(load, 1),
                }
            )
        )
    print(
        json.dumps(
            {
                "bench": "runner",
                "figure": "job_seconds",
                "value": per_nb,
                "unit": "s",
                "sequential": {s: round(r.seconds, 1) for s, r in seq.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
