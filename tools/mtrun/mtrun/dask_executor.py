"""Run the notebook jobs on Dask distributed: a LocalCluster here, or any cluster by its scheduler address.

Intuition: a job (:class:`mtrun.jobs.NotebookJob`) carries everything it needs
and runs in its own papermill process, so a Dask worker only has to call
:func:`mtrun.jobs.execute_job`. With fan-out (:mod:`mtrun.fanout`) a notebook
becomes one job per model (per seed) that runs in a scratch folder and only
fills the shared cache (``$MTLIB_CACHE``), then one *gather* job with every
model, submitted once its fan-out jobs have finished, which reads the cache
and writes the real outputs. The runner's summary, ``REPORT.md`` and exit
status see one :class:`mtrun.jobs.JobResult` per notebook, as with the
sequential executor.

Workers must import this ``mtlib`` and see the same cache path (shared
storage on a multi-machine cluster); a worker that cannot write the cache
fails with the path and the worker named. Jobs whose models need a GPU ask for
``resources={"GPU": 1}`` when some worker offers it
(``dask worker ADDRESS --resources "GPU=1"``). A job that raises is retried
``retries`` times; a job whose worker dies is rescheduled by the scheduler
(``distributed.scheduler.allowed-failures``, set to ``retries`` on a
LocalCluster started here).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mtlib.models.base import CALLS_LOG_ENV
from mtlib.models.weights.registry import REGISTRY
from mtlib.run.layout import RunLayout
from mtlib.utils.cache import CACHE_ENV, default_cache_dir
from mtrun import fanout
from mtrun.jobs import JobResult, NotebookJob, execute_job

__all__ = [
    "CONNECT_TIMEOUT",
    "connect",
    "GPU_WORKER_HINT",
    "PROGRESS_EVERY",
    "CacheNotWritable",
    "DaskExecutor",
    "DaskJob",
    "JobFailed",
    "Outcome",
    "needs_gpu",
    "probe_cache",
    "run_job",
]

#: Seconds to wait for an existing scheduler before giving up (``--connect-timeout``).
CONNECT_TIMEOUT = 30.0
#: A progress line at least this often while jobs run (seconds).
PROGRESS_EVERY = 30.0
GPU_WORKER_HINT = 'dask worker ADDRESS --resources "GPU=1"'


@dataclass(frozen=True)
class DaskJob:
    """One unit of work on a worker.

    Attributes:
        job: The notebook run (a fan-out job's outputs go to a scratch folder on the worker).
        job_type: ``"fan-out"`` (one model/seed, fills the cache), ``"gather"`` (every model, after
            its fan-out jobs) or ``"whole"`` (an unsplit notebook).
        label: What it covers, e.g. ``"minilm"``; empty for gather and whole jobs.
        gpu: Whether its device or models ask for a GPU (:func:`needs_gpu`).
    """

    job: NotebookJob
    job_type: str
    label: str = ""
    gpu: bool = False

    @property
    def name(self) -> str:
        return f"{self.job.stem} [{self.label}]" if self.label else f"{self.job.stem} ({self.job_type})"


@dataclass
class Outcome:
    """What a worker reports back for one :class:`DaskJob`.

    Attributes:
        result: The notebook's :class:`mtrun.jobs.JobResult`.
        forward_calls: Batches the job's models sent through their networks
            (0 for a gather job whose fan-out jobs filled the cache).
        worker: Address of the worker, and ``host`` its machine.
    """

    name: str
    job_type: str
    result: JobResult
    forward_calls: int = 0
    worker: str = ""
    host: str = ""
    submitted: float = 0.0
    calls_by_model: dict[str, int] = field(default_factory=dict)


class JobFailed(Exception):
    """A job whose notebook failed; raised on the worker so that Dask retries it."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(f"{outcome.name}: {outcome.result.error}")
        self.outcome = outcome

    def __reduce__(self) -> tuple[Any, ...]:
        return (JobFailed, (self.outcome,))


class CacheNotWritable(RuntimeError):
    """A worker cannot write the model/result cache."""


def needs_gpu(parameters: dict[str, Any]) -> bool:
    """Whether a job asks for a GPU worker.

    An explicit ``device`` of ``cuda``/``cuda:N`` does; with ``device`` ``auto``
    a job does when one of its models is a hub transformer without packaged
    weights (the paper checkpoints) or a name the registry does not know (a
    user's checkpoint). Packaged, static and lexicon models run on any worker.
    """
    device = str(parameters.get("device", "auto") or "auto")
    if device.startswith("cuda"):
        return True
    if device != "auto":
        return False
    lists = [parameters.get(p) for p in fanout.AXES["models"]]
    names = {m for value in lists if isinstance(value, list) for m in value if isinstance(m, str)}
    for name in names:
        spec = REGISTRY.get(name)
        if spec is None or spec.unpackaged_transformer:
            return True
    return False


def probe_cache(cache: str | None) -> tuple[str, str, str]:
    """On a worker: check that the cache folder can be written (a file written and renamed).

    Returns:
        ``(host, path, error)``; ``error`` is empty when the folder is writable.
    """
    path = Path(cache).expanduser() if cache else default_cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{uuid.uuid4().hex}"
        probe.with_suffix(".tmp").write_bytes(b"mtlib")
        os.replace(probe.with_suffix(".tmp"), probe)
        probe.unlink()
        return socket.gethostname(), str(path), ""
    except OSError as err:
        return socket.gethostname(), str(path), f"{type(err).__name__}: {err}"


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``, or a :class:`SystemExit` within ``timeout`` s.

    The message says what was reached: nothing listening (connection refused
    or no answer), or a server that accepted the connection but did not speak
    as a Dask scheduler (a web server, a database, a wrong port): then the
    first bytes it sent, if any. Dask's own handshake is tried first on a
    connection of its own (:func:`_handshake`), so a server answering garbage
    is named at once, not through what decoding its bytes raised (numpy's
    ``Unable to allocate 6.46 EiB``) or a ``distributed.Client`` left half-made.
    """
    from distributed import Client

    host, port = _host_port(address)
    first: bytes | None = None
    if host and port:
        try:
            probe = socket.create_connection((host, port), timeout=timeout)
        except OSError as err:
            raise SystemExit(
                f"--scheduler {address}: cannot reach {host}:{port}, nothing answers there ({err.strerror or err}); "
                f"expected a "
                "Dask scheduler there (`dask scheduler`), or leave --scheduler out for a LocalCluster"
            ) from None
        with probe:
            probe.settimeout(min(1.0, timeout))
            try:
                first = probe.recv(48)
            except OSError:  # said nothing within a second (a Dask scheduler speaks first)
                first = None
        problem = _handshake(address, timeout)
        if problem is not None:
            sent = f"its first bytes: {first!r}" if first else "it sent nothing"
            raise SystemExit(
                f"--scheduler {address}: reached {host}:{port}, which accepted the connection but did not answer "
                f"as a Dask scheduler ({sent}; the handshake {problem}); expected a Dask scheduler "
                "(`dask scheduler`, default port 8786): check the address, or raise --connect-timeout"
            )
    box: dict[str, Any] = {}

    def attempt() -> None:
        try:
            box["client"] = Client(address, timeout=timeout, set_as_default=False)
        except BaseException as err:  # reported by the caller's thread
            box["error"] = err
            _close_half_made(err, Client)

    thread = threading.Thread(target=attempt, name="mtlib-dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 5.0)
    if "client" in box:
        return box["client"]
    failure = box.get("error")
    what = (
        f"{type(failure).__name__}: {' '.join(str(failure).split())[:200] or 'no message'}"
        if failure
        else f"no answer in {timeout:.0f} s"
    )
    raise SystemExit(
        f"--scheduler {address}: reached {host or address}:{port or '?'}, which accepted the connection but did not "
        f"answer as a Dask scheduler within {timeout:.0f} s ({what}); expected a Dask scheduler "
        "(`dask scheduler`, default port 8786); check the address, or raise --connect-timeout"
    )


def _close_half_made(err: BaseException, client_class: Any) -> None:
    """Close the Client a failed constructor left in ``err``'s frames (an echoing server gets that far).

    Else its ``__del__`` would close it at some later garbage collection, waiting out its timeout and printing
    ``Exception ignored ... TimeoutError`` after the command's own message.
    """
    tb = err.__traceback__
    while tb is not None:
        half = tb.tb_frame.f_locals.get("self")
        if isinstance(half, client_class):
            with contextlib.suppress(Exception):
                half.close(timeout=1)
            half.status = "closed"  # what close() checks first: __del__ has nothing left to do
            return
        tb = tb.tb_next


def _handshake(address: str, timeout: float) -> str | None:
    """Why Dask's comm handshake with ``address`` failed within ``timeout`` s, in words; ``None`` if it worked."""
    import asyncio

    from distributed.comm import connect as comm_connect

    async def attempt() -> None:
        comm = await asyncio.wait_for(comm_connect(address, timeout=timeout), timeout)
        await comm.close()

    try:
        asyncio.run(attempt())
    except (asyncio.TimeoutError, TimeoutError):
        return f"got no answer within {timeout:g} s"
    except Exception as err:  # noqa: BLE001 - whatever decoding the server's bytes raised
        if isinstance(err, MemoryError) or "allocate" in str(err):
            return "read a message length no Dask scheduler sends (the bytes are not Dask's protocol)"
        return f"failed: {type(err).__name__}: {' '.join(str(err).split())[:160]}"
    return None


def _host_port(address: str) -> tuple[str, int | None]:
    """``("host", port)`` of ``tcp://host:port`` (``("", None)`` when it has no port)."""
    rest = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return "", None
    return host.strip("[]"), int(port)


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def run_job(dj: DaskJob) -> Outcome:
    """Execute one job on a worker; raise :class:`JobFailed` when its notebook fails (so it is retried).

    A fan-out job writes its outputs to a scratch folder that is removed
    afterwards: only the cache entries it fills are kept. Every job counts its
    models' forward calls through :data:`mtlib.models.base.CALLS_LOG_ENV`.
    """
    worker = _worker_address()
    host, path, error = probe_cache(dj.job.env.get(CACHE_ENV))
    if error:
        raise CacheNotWritable(
            f"worker {worker} on {host} cannot write the cache folder {path} ({error}); "
            f"set {CACHE_ENV} to a folder every worker can write"
        )
    with tempfile.TemporaryDirectory(prefix="mtlib-dask-") as tmp:
        calls_log = Path(tmp) / "calls.tsv"
        job = replace(dj.job, env={**dj.job.env, CALLS_LOG_ENV: str(calls_log)})
        if dj.job_type == "fan-out":
            scratch = Path(tmp) / "out"
            profile = str(job.parameters.get("profile", "scratch"))
            job = replace(
                job,
                parameters={**job.parameters, "out_dir": str(scratch)},
                output=RunLayout(scratch, profile, job.stem).notebook_path,
                html=False,
            )
        result = execute_job(job)
        by_model: dict[str, int] = {}
        if calls_log.exists():
            for line in calls_log.read_text(encoding="utf-8").splitlines():
                model, _, n = line.rpartition("\t")
                by_model[model] = by_model.get(model, 0) + int(n)
    outcome = Outcome(dj.name, dj.job_type, result, sum(by_model.values()), worker, host, calls_by_model=by_model)
    if result.status != "ok":
        raise JobFailed(outcome)
    return outcome


class DaskExecutor:
    """Runs notebook jobs on Dask; ``map`` yields one :class:`JobResult` per notebook.

    Args:
        workers: Worker processes of the LocalCluster started when no ``scheduler`` is given
            (``threads_per_worker=1``).
        scheduler: Address of an existing scheduler (``tcp://host:8786``).
        fan_out: Axes to split notebooks by: ``()``, ``("models",)``, ``("seeds",)`` or both.
        retries: Extra attempts of a job that fails (and worker deaths a LocalCluster tolerates).
        echo: Where progress lines go (default ``print``).

    After :meth:`map`, :attr:`outcomes` holds every job's :class:`Outcome` (fan-out ones too).
    """

    def __init__(
        self,
        workers: int = 2,
        scheduler: str | None = None,
        fan_out: Sequence[str] = (),
        retries: int = 1,
        echo: Callable[[str], None] | None = None,
        progress_every: float = PROGRESS_EVERY,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        if workers < 1:
            raise SystemExit(f"--workers {workers}: expected 1 or more")
        if retries < 0:
            raise SystemExit(f"--retries {retries}: expected 0 or more")
        unknown = [a for a in fan_out if a not in fanout.AXES]
        if unknown:
            raise SystemExit(f"--fan-out {','.join(unknown)}: expected one or more of {', '.join(fanout.AXES)}")
        self.workers, self.scheduler, self.fan_out, self.retries = workers, scheduler, tuple(fan_out), retries
        self.echo = echo or (lambda line: print(line, flush=True))
        self.progress_every = progress_every
        self.connect_timeout = connect_timeout
        self.outcomes: list[Outcome] = []

    # -- cluster -----------------------------------------------------------
    def _client(self) -> Any:
        """A connected ``distributed.Client`` (and the LocalCluster it owns, closed with it)."""
        import dask
        from distributed import Client, LocalCluster

        if self.scheduler:
            return connect(self.scheduler, self.connect_timeout)

        resources = {"GPU": 1} if _cuda_visible() else None
        with dask.config.set({"distributed.scheduler.allowed-failures": self.retries}):
            cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                resources=resources,
                silence_logs=logging.ERROR,
            )
        return Client(cluster, set_as_default=False)

    def _check_workers(self, client: Any, cache: str | None) -> bool:
        """Fail fast when a worker cannot write the cache; True when some worker offers a GPU."""
        found = client.run(probe_cache, cache)
        bad = [
            f"worker {addr} on {host} cannot write the cache folder {path} ({err})"
            for addr, (host, path, err) in sorted(found.items())
            if err
        ]
        if bad:
            raise SystemExit(
                "\n".join(bad) + f"\nset {CACHE_ENV} to a folder every worker can write "
                "(shared storage on a multi-machine cluster)"
            )
        if not found:
            self.echo("  note: no worker is connected yet; jobs wait for one")
        hosts = {host for host, _, _ in found.values()}
        if len(hosts) > 1 and not cache:
            self.echo(
                f"  note: workers on {len(hosts)} machines and no {CACHE_ENV} set: each uses its own "
                "~/.cache/mtlib, so gather jobs recompute what other machines' jobs cached"
            )
        info = client.scheduler_info().get("workers", {})
        return any((w.get("resources") or {}).get("GPU", 0) >= 1 for w in info.values())

    # -- planning ----------------------------------------------------------
    def plan(self, jobs: Sequence[NotebookJob]) -> list[tuple[list[DaskJob], DaskJob]]:
        """Per notebook: its fan-out jobs (maybe none) and the job that writes its outputs."""
        out = []
        for job in jobs:
            parts: list[fanout.Part] = []
            if self.fan_out:
                parts, notes = fanout.split(job.notebook, job.parameters, self.fan_out)
                for note in notes:
                    self.echo(f"  note: {note}")
            fan = [
                DaskJob(
                    replace(job, parameters=p.parameters),
                    "fan-out",
                    p.label,
                    needs_gpu(fanout.declared_values(job.notebook, p.parameters)),
                )
                for p in parts
            ]
            gpu = needs_gpu(fanout.declared_values(job.notebook, job.parameters))
            out.append((fan, DaskJob(job, "gather" if fan else "whole", "", gpu)))
        return out

    # -- running -----------------------------------------------------------
    def map(self, jobs: Sequence[NotebookJob]) -> Iterator[JobResult]:
        """Run every job; yields each notebook's result when its gather (or whole) job ends."""
        if not jobs:
            return
        cache = os.environ.get(CACHE_ENV)
        if cache:  # every worker uses the cache of the machine that starts the run
            jobs = [replace(j, env={**j.env, CACHE_ENV: cache}) for j in jobs]
        plan = self.plan(jobs)
        client = self._client()
        try:
            self.echo(
                f"  dask: {len(client.scheduler_info().get('workers', {}))} worker(s) at "
                f"{client.scheduler.address}; dashboard: {client.dashboard_link}"
            )
            gpu_workers = self._check_workers(client, cache)
            gpu_jobs = sum(dj.gpu for fan, g in plan for dj in (*fan, g))
            if gpu_jobs and not gpu_workers:
                self.echo(
                    f"  note: {gpu_jobs} job(s) would ask for a GPU but no worker offers one "
                    f"(start one with `{GPU_WORKER_HINT}`); they run on any worker"
                )
            total = sum(len(fan) + 1 for fan, _ in plan)
            pending: dict[Any, DaskJob] = {}
            waiting: dict[str, int] = {}
            gathers: dict[str, tuple[DaskJob, list[Outcome]]] = {}
            start = time.perf_counter()

            def submit(dj: DaskJob) -> None:
                key = f"{dj.job_type}-{dj.name}-{uuid.uuid4().hex[:8]}".replace(" ", "_")
                resources = {"GPU": 1} if dj.gpu and gpu_workers else None
                pending[client.submit(run_job, dj, key=key, pure=False, retries=self.retries, resources=resources)] = dj

            for fan, gather in plan:
                gathers[gather.job.stem] = (gather, [])
                waiting[gather.job.stem] = len(fan)
                for dj in fan:
                    submit(dj)
                if not fan:
                    submit(gather)
            done = failed = 0
            last = time.perf_counter()
            while pending:
                finished = _wait_some(pending, self.progress_every)
                for fut in finished:
                    dj = pending.pop(fut)
                    outcome = self._outcome(fut, dj)
                    self.outcomes.append(outcome)
                    done += 1
                    failed += outcome.result.status != "ok"
                    stem = dj.job.stem
                    extra = f", {outcome.forward_calls} model forward calls" if outcome.result.status == "ok" else ""
                    where = f" on {outcome.worker}" if outcome.worker else ""
                    self.echo(
                        f"  [{time.perf_counter() - start:6.0f} s] {done}/{total} done, "
                        f"{self._running(client, pending)} running, {failed} failed | {dj.name}: "
                        f"{outcome.result.status} in {outcome.result.seconds:.1f} s{where}{extra}"
                        + (f" ({outcome.result.error})" if outcome.result.error else "")
                    )
                    if dj.job_type == "fan-out":
                        gathers[stem][1].append(outcome)
                        waiting[stem] -= 1
                        if waiting[stem] == 0:
                            submit(gathers[stem][0])
                    else:
                        yield self._notebook_result(outcome, gathers[stem][1])
                    last = time.perf_counter()
                if not finished or time.perf_counter() - last >= self.progress_every:
                    self.echo(
                        f"  [{time.perf_counter() - start:6.0f} s] {done}/{total} done, "
                        f"{self._running(client, pending)} running, {failed} failed"
                    )
                    last = time.perf_counter()
        finally:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None and not self.scheduler:
                cluster.close()

    @staticmethod
    def _running(client: Any, pending: dict[Any, DaskJob]) -> int:
        keys = {f.key for f in pending}
        try:  # a worker's processing list also holds the tasks queued on it: count at most its threads
            threads = client.nthreads()
            return sum(
                min(threads.get(w, 1), sum(k in keys for k in tasks)) for w, tasks in client.processing().items()
            )
        except Exception:  # progress is best effort; a busy scheduler must not stop the run
            return 0

    @staticmethod
    def _outcome(fut: Any, dj: DaskJob) -> Outcome:
        """The job's outcome; a failure after the retries becomes a failed :class:`JobResult`."""
        if fut.status == "finished":
            return fut.result()
        err = fut.exception()
        if isinstance(err, JobFailed):
            return err.outcome
        from distributed import KilledWorker

        if isinstance(err, KilledWorker):
            msg = "its worker died while running it (killed, or out of memory), also on the retries"
        else:
            msg = f"{type(err).__name__}: {err}"
        return Outcome(dj.name, dj.job_type, JobResult(dj.job.stem, "failed", 0.0, msg[:300]))

    @staticmethod
    def _notebook_result(outcome: Outcome, fan: list[Outcome]) -> JobResult:
        """The notebook's result: its gather (or whole) job, with the seconds of all its jobs."""
        result = replace(outcome.result, seconds=outcome.result.seconds + sum(o.result.seconds for o in fan))
        bad = [o for o in fan if o.result.status != "ok"]
        if bad and result.status != "ok":
            result.error = f"{result.error} (fan-out failed too: {bad[0].name}: {bad[0].result.error})"[:300]
        return result


def _cuda_visible() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:
        return False


def _wait_some(pending: dict[Any, DaskJob], timeout: float) -> list[Any]:
    """The finished futures among ``pending``, as soon as there is one (empty after ``timeout`` s)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        ready = [f for f in pending if f.done()]
        if ready:
            return ready
        time.sleep(0.2)
    return []
