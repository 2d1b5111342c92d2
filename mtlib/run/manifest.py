"""A run's manifest: everything needed to say why its numbers are what they are.

Intuition: ``metrics.json`` says *what* a notebook computed; ``manifest.json``
beside it says *from what*: the code (commit, uncommitted changes), the
software (Python, package versions, BLAS), the machine (CPU, instruction sets,
kernel set, threads, device, precision), the parameters, every data file the
loaders read (size and SHA-256), every model used (weights identity, backend,
precision, a trained classifier's training record), what the disk cache
answered and what was computed, and the timings. ``python -m mtrun.diff``
compares two of them.

Who writes it: :class:`mtlib.run.results.Run` rewrites it with every
``metrics.json`` (:func:`notebook_manifest`), in JupyterLab as under the
runner; the runner (``mtrun.manifests``, a tool beside mtlib) adds its view of
the job (status, seconds) when the notebook ends and writes one for the whole
invocation beside ``REPORT.md``, through :func:`write_manifest`.

Nothing is listed by hand: the inputs are what the loaders reported
(:mod:`mtlib.utils.provenance`), the models those this process loaded
(:func:`mtlib.models.load` and the classifier factory keep them) and used.
Nothing personal is written: a data file is named relative to the project
(``data/trees/train.txt``), else relative to the data folder
(``$MTLIB_DATA``), else by its file name alone (with its digest, which is what
identifies it); the same holds for a path given as a parameter or a model.

Example:
    >>> input_name(Path("/p/data/trees/train.txt"), Path("/p"), Path("/p/data"))
    ('data/trees/train.txt', 'project')
    >>> input_name(Path("/d/sst/stsa.binary.dev"), Path("/p"), Path("/d"))
    ('$MTLIB_DATA/sst/stsa.binary.dev', 'data')
    >>> input_name(Path("/home/ana/reviews.txt"), Path("/p"), Path("/p/data"))
    ('reviews.txt', 'user')
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mtlib.data.errors import data_dir
from mtlib.models import loading
from mtlib.models.base import Model
from mtlib.models.training import store
from mtlib.run.environment import CODE_ROOT, code_record, environment_record, machine_record
from mtlib.run.layout import read_json_object
from mtlib.utils import provenance

__all__ = ["notebook_manifest", "read_manifest"]

#: File name of a manifest (a notebook's in its run folder, an invocation's in the profile folder).
MANIFEST = "manifest.json"
#: Version of the manifest's layout.
SCHEMA = 2
#: Schema 1 named a manifest's record type (``"notebook"``, ``"invocation"``) ``kind``; 2 names it ``record_type``
#: (``kind`` means a model family only). :func:`read_manifest` reads a schema-1 file as schema 2.
OLD_RECORD_TYPE = "kind"
#: The sections ``python -m mtrun.diff`` compares, in the order of the issue.
GROUPS = ("code", "environment", "machine", "inputs", "models", "parameters")
#: Parameters that say where outputs go, not what is computed: left out of a manifest.
OUTPUT_PARAMS = ("out_dir",)


def _project() -> Path:
    """The project the running code belongs to (the folder holding ``mtlib/``)."""
    return CODE_ROOT


def _under(path: Path, root: Path | None) -> str | None:
    """``path`` relative to ``root`` (POSIX), trying both as given and with links resolved; None if outside."""
    if root is None:
        return None
    for p, r in ((path, root), (Path(os.path.realpath(path)), Path(os.path.realpath(root)))):
        try:
            return p.relative_to(r).as_posix()
        except ValueError:
            continue
    return None


def input_name(path: Path, project: Path, data: Path | None) -> tuple[str, str]:
    """How a manifest names a file: ``(name, where)``.

    ``where`` is ``"project"`` (``name`` relative to the project folder), ``"data"`` (relative to a data
    folder outside the project, shown as ``$MTLIB_DATA/...``) or ``"user"`` (anywhere else: the file name
    alone; a home folder or user name never appears).
    """
    inside = _under(path, project)
    if inside is not None:
        return inside, "project"
    in_data = _under(path, data)
    if in_data is not None:
        return f"$MTLIB_DATA/{in_data}", "data"
    return path.name, "user"


def input_records(paths: Iterable[Path] | None = None) -> list[dict[str, Any]]:
    """One entry per file read (default: those :mod:`mtlib.utils.provenance` recorded since the run began).

    Each: ``name`` and ``where`` (:func:`input_name`), ``bytes`` and ``sha256`` (None when the file is gone).
    """
    project, data = _project(), data_dir()
    out = []
    for path in provenance.inputs() if paths is None else paths:
        name, where = input_name(Path(path), project, data)
        try:
            size, digest = provenance.fingerprint(path)
        except OSError:
            size, digest = None, None
        out.append({"name": name, "where": where, "bytes": size, "sha256": digest})
    return out


def private_value(value: Any) -> Any:
    """A parameter value as a manifest keeps it: paths reduced as :func:`input_name` does.

    An absolute or home path, and a relative one that exists from the working folder or climbs out of it
    (``..``), is named relative to the project or the data folder, else by its last part; any other text
    (a registry name, ``external/sst/x`` relative to the data folder) is kept.
    """
    if isinstance(value, str):
        if os.path.isabs(value) or value.startswith("~"):
            return input_name(Path(os.path.expanduser(value)), _project(), data_dir())[0]
        if "/" in value or os.sep in value:  # relative: from the working folder, it may climb out of the project
            path = Path(value)
            if ".." in path.parts or path.exists():
                return input_name(Path(os.path.abspath(value)), _project(), data_dir())[0]
        return value
    if isinstance(value, Mapping):
        return {str(k): private_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [private_value(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return private_value(str(value))


def loaded_models() -> list[Model]:
    """Every model this process holds: those :func:`mtlib.models.load` and the classifier factory keep."""
    found: dict[int, Model] = {}
    for model in [*loading._LOADED.values(), *store._MEMO.values()]:
        found.setdefault(id(model), model)
    return list(found.values())


def _base(model: Model) -> Model | None:
    """The model a classifier is built on (``encoder`` of a head, ``base`` of the others), if any."""
    for attr in ("encoder", "base"):
        inner = getattr(model, attr, None)
        if isinstance(inner, Model):
            return inner
    return None


def used_models(before: Iterable[int] = (), counts: Mapping[tuple[str, ...], Any] | None = None) -> list[Model]:
    """The models a run used: loaded since it began, or whose outputs (or whose base's) the cache served since.

    Args:
        before: ``id()`` of the models held when the run began (a JupyterLab kernel keeps models between runs).
        counts: :func:`mtlib.utils.provenance.cache_counts` (default: now).
    """
    seen = {key[0] for key in (provenance.cache_counts() if counts is None else counts)}
    held = set(before)
    out = []
    for model in loaded_models():
        base = _base(model)
        if id(model) not in held or model.identity in seen or (base is not None and base.identity in seen):
            out.append(model)
    return out


def _plain(value: Any) -> Any:
    """JSON-safe copy (dataclasses and other objects as their fields or text)."""
    return json.loads(json.dumps(value, default=str))


def model_record(model: Model) -> dict[str, Any]:
    """A model as the manifest lists it.

    Returns:
        ``name`` (a path reduced by :func:`private_value`), ``kind``, ``identity`` (the weights identity the
        cache keys use), ``backend``, ``precision`` (``model.precision``; None where a model has none),
        ``device``, ``base`` (the encoder of a classifier, by name and identity) and ``training`` (a trained
        classifier's record: how, head, settings, seed, cache key, whether it was reloaded; its
        ``data_sha256`` when the model records one, else None), None for a model that was not trained here.
    """
    base = _base(model)
    training = getattr(model, "training", None)
    record = None
    if training is not None:
        is_record = dataclasses.is_dataclass(training) and not isinstance(training, type)
        fields = dataclasses.asdict(training) if is_record else dict(vars(training))
        record = {k: _plain(fields.get(k)) for k in ("how", "head", "settings", "seed", "key", "n_train", "from_cache")}
        record["data_sha256"] = fields.get("data_sha256")
    return {
        "name": private_value(model.name),
        "kind": getattr(model, "kind", None),
        "identity": model.identity,
        "backend": getattr(model, "backend", None),
        "precision": _plain(getattr(model, "precision", None)),
        "device": str(getattr(model, "device", "") or "") or None,
        "base": None if base is None else {"name": private_value(base.name), "identity": base.identity},
        "training": record,
    }


def cache_records(counts: Mapping[tuple[str, ...], Mapping[str, int]], models: Sequence[Model]) -> list[dict[str, Any]]:
    """Cache hits and misses per model and operation: ``calls``, ``hits`` (unique inputs served from the
    cache) and ``misses`` (unique inputs computed), named by the model whose identity keys the namespace."""
    names = {m.identity: private_value(m.name) for m in models}
    out = []
    for parts, n in sorted(counts.items()):
        uncached = parts[0] == "(no cache)"
        operation = "/".join(" ".join(private_value(w) for w in p.split(" ")) for p in parts[1:])
        out.append(
            {
                "model": None if uncached else names.get(parts[0]),
                "identity": None if uncached else parts[0],
                "operation": operation,
                "cached": not uncached,
                **{k: int(n[k]) for k in ("calls", "hits", "misses")},
            }
        )
    return out


def notebook_manifest(
    stem: str,
    profile: str,
    params: Mapping[str, Any] | None,
    metrics: Mapping[str, Any],
    models_before: Iterable[int] = (),
) -> dict[str, Any]:
    """The manifest of a notebook run, from what this process recorded since the run began.

    Args:
        stem: The notebook.
        profile: Its profile.
        params: Its parameters (``out_dir`` left out, paths reduced: :func:`private_value`).
        metrics: Its metrics so far (their ``timing/`` keys are copied).
        models_before: ``id()`` of the models held when the run began (:func:`used_models`).
    """
    counts = provenance.cache_counts()
    models = used_models(models_before, counts)
    records = sorted((model_record(m) for m in models), key=lambda r: (str(r["name"]), str(r["identity"])))
    unique = list({json.dumps(r, sort_keys=True): r for r in records}.values())
    return {
        "schema": SCHEMA,
        "record_type": "notebook",
        "notebook": stem,
        "profile": profile,
        "written_by": "Run",
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "code": {**code_record(), "notebook_sha256": notebook_digest(stem)},
        "environment": environment_record(),
        "machine": machine_record([str(m.device) for m in models], [r["precision"] for r in unique]),
        "parameters": {k: private_value(v) for k, v in sorted((params or {}).items()) if k not in OUTPUT_PARAMS},
        "inputs": input_records(),
        "models": unique,
        "cache": cache_records(counts, models),
        "timing": {k: v for k, v in sorted(metrics.items()) if k.startswith("timing/")},
    }


def notebook_digest(stem: str) -> str | None:
    """SHA-256 of the notebook's source file ``notebooks/<stem>.ipynb`` (None when it is not there)."""
    path = _project() / "notebooks" / f"{stem}.ipynb"
    try:
        return provenance.fingerprint(path)[1]
    except OSError:
        return None


def write_manifest(path: Path, manifest: Mapping[str, Any]) -> Path:
    """Write a manifest (sorted keys, indented) through a temporary file and a rename; returns ``path``.

    A reader sees the old manifest or the new one, never a part. Unlike the cache's writes it is not
    forced to disk (``fsync``): a notebook rewrites its manifest many times, and the disk flush was most
    of the cost of a rewrite (``benchmarks/bench_manifest.py``); the next rewrite or the end of the run
    replaces it anyway.
    """
    data = (json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def start_run() -> frozenset[int]:
    """Begin a run's record: forget what this process read and counted before (:func:`mtlib.utils.provenance.reset`).

    Returns:
        ``id()`` of the models held now, for :func:`used_models` (a JupyterLab kernel keeps earlier runs' models).
    """
    provenance.reset()
    return frozenset(id(m) for m in loaded_models())


def rewrite_manifest(path: Path, manifest: Mapping[str, Any], previous: str = "") -> str:
    """Write ``manifest`` unless nothing but its date changed since the body ``previous``; returns the body on disk.

    A write that fails (a full disk, a lost folder) is reported with a warning and returns ``previous``: the
    notebook's metrics were written, its manifest will be tried again with the next one.
    """
    body = json.dumps({k: v for k, v in manifest.items() if k != "written"}, sort_keys=True, default=str)
    if body == previous:
        return previous
    try:
        write_manifest(path, manifest)
    except OSError as err:
        warnings.warn(f"{manifest.get('notebook')}: {MANIFEST} not written ({err})", stacklevel=3)
        return previous
    return body


def read_manifest(path: str | os.PathLike) -> dict[str, Any]:
    """A manifest, or an empty dict when it is missing or unreadable.

    A schema-1 manifest (before ``kind`` was renamed ``record_type``) reads with its ``record_type``.
    """
    manifest = read_json_object(path)
    if OLD_RECORD_TYPE in manifest and "record_type" not in manifest:  # a model record's kind is nested, not here
        manifest["record_type"] = manifest.pop(OLD_RECORD_TYPE)
    return manifest
