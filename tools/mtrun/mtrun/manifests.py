"""The runner's part of a run's manifests: a finished job's status and seconds, and the invocation's own.

A notebook writes its ``manifest.json`` itself (:func:`mtlib.run.manifest.notebook_manifest`, through
its ``Run``); the runner adds what only it knows: how the job ended and how long it took, a manifest for
a notebook that was refused or failed before it opened its ``Run``, and one manifest for the whole
invocation beside ``REPORT.md`` that names every notebook's manifest by its SHA-256.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mtlib.run.environment import code_record, environment_record, machine_record
from mtlib.run.manifest import (
    MANIFEST,
    OUTPUT_PARAMS,
    SCHEMA,
    notebook_digest,
    private_value,
    read_manifest,
    write_manifest,
)
from mtlib.utils import provenance

__all__ = ["complete_manifest", "invocation_manifest", "write_invocation_manifest"]


def complete_manifest(
    run_dir: Path, stem: str, profile: str, parameters: Mapping[str, Any], status: str, seconds: float
) -> Path | None:
    """Add the runner's view of a finished job to its notebook's manifest (``runner``: status, seconds).

    A notebook that wrote no manifest (refused or failed before it opened its ``Run``) gets one from the
    runner: code, environment, machine and parameters as the runner knew them, no inputs or models
    (``"written_by": "runner"``). Returns the path, None when the run folder cannot be written.
    """
    path = run_dir / MANIFEST
    manifest = read_manifest(path)
    if not manifest:
        manifest = {
            "schema": SCHEMA,
            "record_type": "notebook",
            "notebook": stem,
            "profile": profile,
            "written_by": "runner",
            "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "code": {**code_record(), "notebook_sha256": notebook_digest(stem)},
            "environment": environment_record(),
            "machine": machine_record(),
            "parameters": {k: private_value(v) for k, v in sorted(parameters.items()) if k not in OUTPUT_PARAMS},
            "inputs": [],
            "models": [],
            "cache": [],
            "timing": {},
        }
    manifest["runner"] = {"status": status, "seconds": round(float(seconds), 3)}
    try:
        return write_manifest(path, manifest)
    except OSError:
        return None


def invocation_manifest(profile: str, notebooks: Sequence[tuple[str, str, float]], profile_dir: Path) -> dict[str, Any]:
    """The manifest of one runner invocation: the runner's code, environment and machine, and each notebook's
    status, seconds and manifest (its path relative to ``profile_dir`` and its SHA-256).

    Args:
        profile: The profile run.
        notebooks: ``(stem, status, seconds)`` per notebook of this invocation.
        profile_dir: ``papermill_runs/<profile>``, where the notebooks' run folders are.
    """
    entries = []
    for stem, status, seconds in notebooks:
        path = profile_dir / stem / MANIFEST
        try:
            digest: str | None = provenance.fingerprint(path)[1]
        except OSError:
            digest = None
        entries.append(
            {
                "notebook": stem,
                "status": status,
                "seconds": round(float(seconds), 3),
                "manifest": f"{stem}/{MANIFEST}" if digest else None,
                "manifest_sha256": digest,
            }
        )
    return {
        "schema": SCHEMA,
        "record_type": "invocation",
        "profile": profile,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "code": code_record(),
        "environment": environment_record(),
        "machine": machine_record(),
        "notebooks": entries,
    }


def write_invocation_manifest(profile: str, notebooks: Sequence[tuple[str, str, float]], profile_dir: Path) -> Path:
    """Write :func:`invocation_manifest` as ``papermill_runs/<profile>/manifest.json``; returns its path."""
    return write_manifest(profile_dir / MANIFEST, invocation_manifest(profile, notebooks, profile_dir))
