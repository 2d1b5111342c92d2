"""Profiles: which notebooks there are, and the parameters a profile (plus ``-p`` overrides) gives each.

Intuition: a profile is a YAML file, ``notebooks/profiles/<name>.yaml`` or a
user's own, with ``defaults`` (every notebook) and ``notebooks`` (one block
per notebook number). :func:`load_profile` reads it (errors name the file and
line), :func:`apply_overrides` adds ``-p NN.key=value``,
:func:`notebook_parameters` keeps what one notebook declares and
:func:`check_parameters` checks those values against the notebook's types and
their spec (:mod:`mtlib.run.params`, :mod:`mtlib.experiments.spec`): the
one check of a headless run. :func:`missing_inputs` lists input files a
notebook's parameters name that do not exist.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from mtlib.experiments.spec import RUNNER_SET
from mtlib.run import params as nbparams
from mtlib.run.layout import safe_component
from mtrun import yamlfile

__all__ = [
    "INPUT_LISTS",
    "apply_overrides",
    "builtin_profiles",
    "check_parameters",
    "check_profile_keys",
    "discover",
    "load_profile",
    "missing_inputs",
    "notebook_parameters",
    "profile_name",
    "profile_path",
]

#: Parameters that name input files or folders (besides any ``*_path`` / ``*_dir`` other than ``out_dir``).
INPUT_LISTS = ("word_lists",)


def discover(notebooks_dir: Path) -> list[Path]:
    """Notebooks ``NN_*.ipynb`` in order (``00_tour`` first), without ``00_template`` (run by hand)."""
    return sorted(p for p in notebooks_dir.glob("[0-9][0-9]_*.ipynb") if p.stem != "00_template")


def builtin_profiles(notebooks_dir: Path) -> list[str]:
    """Names of the profiles shipped in ``notebooks/profiles/*.yaml``."""
    return sorted(p.stem for p in (notebooks_dir / "profiles").glob("*.yaml"))


def profile_path(notebooks_dir: Path, profile: str) -> Path:
    """The YAML file of a profile: a built-in name, or a path to a user's file."""
    if profile.endswith((".yaml", ".yml")) or os.sep in profile or "/" in profile:
        path = Path(profile).expanduser()
        if not path.is_file():
            raise SystemExit(
                f"no profile file {path.resolve()}; built-in profiles: "
                f"{', '.join(builtin_profiles(notebooks_dir)) or 'none'}"
            )
        return path
    path = notebooks_dir / "profiles" / f"{profile}.yaml"
    if not path.exists():
        found = builtin_profiles(notebooks_dir)
        raise SystemExit(
            f"no profile {profile!r} at {path}; profiles found: {', '.join(found) or 'none'} "
            "(or give the path of a .yaml file)"
        )
    return path


def profile_name(profile: str) -> str:
    """The name outputs are filed under: the built-in name, or a profile file's stem."""
    is_file = profile.endswith((".yaml", ".yml")) or os.sep in profile or "/" in profile
    name = Path(profile).stem if is_file else profile
    try:
        return safe_component(name, "profile name")
    except ValueError as err:
        raise SystemExit(f"--profile {profile}: {err}; outputs are filed under it (rename the file)") from None


def load_profile(notebooks_dir: Path, profile: str) -> dict[str, Any]:
    """Read a profile: ``{"defaults": {...}, "notebooks": {"01": {...}}}``.

    Args:
        notebooks_dir: The ``notebooks/`` folder (built-in profiles live in its ``profiles/``).
        profile: A built-in name (``quick``) or the path of a YAML file.

    Notebook keys are read as written (``01:`` unquoted stays ``"01"``, not
    the integer 1); a one-digit key (``1:``) is zero-padded to ``"01"`` with a note.

    Raises:
        SystemExit: invalid YAML or a malformed profile, naming the file and line.
    """
    path = profile_path(notebooks_dir, profile)
    try:
        data, lines = yamlfile.read_yaml(path, raw_keys_under=("notebooks",))
    except nbparams.ConfigError as err:
        raise SystemExit(f"profile {err}") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise SystemExit(
            f"{path}:1: a profile is a mapping with 'defaults' and 'notebooks', not a {type(data).__name__}"
        )
    unknown = [k for k in data if k not in ("defaults", "notebooks")]
    if unknown:
        raise SystemExit(
            f"{path}:{lines.get((str(unknown[0]),), 1)}: unknown top-level key(s) "
            f"{', '.join(map(repr, unknown))}; a profile has 'defaults' (every notebook) and "
            "'notebooks' (one block per notebook number, e.g. \"01\":)"
        )
    for section in ("defaults", "notebooks"):
        if data.get(section) is not None and not isinstance(data[section], dict):
            raise SystemExit(
                f"{path}:{lines.get((section,), 1)}: '{section}' must be a mapping "
                f"({'parameter: value' if section == 'defaults' else 'notebook number: {parameter: value}'}"
                f"), not a {type(data[section]).__name__}"
            )
    notebooks: dict[str, Any] = {}
    for key, block in (data.get("notebooks") or {}).items():
        line = lines.get(("notebooks", str(key)), 1)
        name = str(key)
        if name.isdigit() and len(name) == 1:
            print(f'  note: {path}:{line}: notebook key {name} read as "0{name}"', file=sys.stderr)
            name = "0" + name
        if block is not None and not isinstance(block, dict):
            raise SystemExit(
                f"{path}:{line}: notebooks.{key} must be a mapping of parameter: value, not a {type(block).__name__}"
            )
        if name in notebooks:
            raise SystemExit(f"{path}:{line}: notebook {name} is given twice")
        notebooks[name] = block or {}
    return {"defaults": data.get("defaults") or {}, "notebooks": notebooks, "_lines": lines, "_path": str(path)}


def apply_overrides(profile_data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of the profile with ``NN.key=value`` overrides; ``value`` is parsed as YAML.

    ``02.layer=-3`` sets notebook 02's ``layer`` to the integer -3;
    ``03.languages=[english]`` a list; ``*.seed=1`` (or ``seed=1``) every notebook's default.

    Raises:
        SystemExit: an override without ``=``.
    """
    data = {
        **profile_data,
        "defaults": dict(profile_data.get("defaults") or {}),
        "notebooks": {str(k): dict(v or {}) for k, v in (profile_data.get("notebooks") or {}).items()},
    }
    for item in overrides:
        target, sep, raw = item.partition("=")
        if not sep or not target.strip():
            raise SystemExit(f"-p {item!r}: expected NN.key=value (e.g. 02.layer=-3) or key=value")
        scope, dot, key = target.strip().rpartition(".")
        try:
            value = yamlfile.load_yaml_text(raw, f"-p {item!r}") if raw.strip() else ""
        except nbparams.ConfigError as err:
            raise SystemExit(str(err)) from None
        except yaml.YAMLError as err:
            problem = " ".join(str(getattr(err, "problem", None) or err).split())
            raise SystemExit(
                f"-p {item!r}: the value is not valid YAML ({problem}); quote it, e.g. -p '{target.strip()}=\"...\"'"
            ) from None
        if key in RUNNER_SET:
            raise SystemExit(f"-p {item!r}: {key} is set by the runner; use --{key.replace('_', '-')} instead")
        if not dot or scope == "*":
            data["defaults"][key] = value
        else:
            data["notebooks"].setdefault(scope, {})[key] = value
    return data


def missing_inputs(parameters: dict[str, Any], root: Path, cwd: Path) -> list[str]:
    """Input files or folders named by a notebook's parameters that do not exist.

    Parameters ending in ``_path`` or ``_dir`` (except ``out_dir``) and the
    entries of :data:`INPUT_LISTS` are input paths; like the loaders, a path
    is absolute, relative to the notebook's folder, or relative to ``data/``
    (``$MTLIB_DATA``). Empty values mean bundled data.

    Returns:
        One line per missing path: ``key = value (looked at ...)``.
    """
    data = Path(os.environ.get("MTLIB_DATA") or root / "data").expanduser()
    out = []
    for key, value in parameters.items():
        if key in INPUT_LISTS and isinstance(value, list):
            values = [v for v in value if isinstance(v, str) and v]
        elif key.endswith(("_path", "_dir")) and key != "out_dir" and isinstance(value, str) and value:
            values = [value]
        else:
            continue
        for v in values:
            p = Path(v).expanduser()
            places = [p] if p.is_absolute() else [cwd / p, data / p]
            if not any(q.exists() for q in places):
                out.append(f"{key} = {v} (looked at {', '.join(str(q.resolve()) for q in places)})")
    return out


def notebook_parameters(
    notebook: Path, profile_data: dict[str, Any], profile: str, device: str | None, out_dir: Path
) -> dict[str, Any]:
    """The profile's parameters for one notebook, limited to those it declares."""
    declared = set(nbparams.declared(notebook))
    merged: dict[str, Any] = dict(profile_data.get("defaults") or {})
    per_nb = profile_data.get("notebooks") or {}
    for key in (notebook.stem[:2], notebook.stem):
        merged.update(per_nb.get(key) or {})
    merged.update({"profile": profile, "out_dir": str(out_dir)})
    if device:
        merged["device"] = device
    # defaults meant for other notebooks; an undeclared name in this notebook's own block is an error
    # (check_parameters)
    unknown = sorted(set(profile_data.get("defaults") or {}) - declared - {"profile", "out_dir", "device"})
    if unknown:
        print(f"  note: {notebook.name} does not declare {', '.join(unknown)}; not passed")
    return {k: v for k, v in merged.items() if k in declared}


def check_parameters(
    notebook: Path, profile_data: dict[str, Any], parameters: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Validate one notebook's parameters before it runs (:func:`mtlib.run.params.check`).

    A name in the notebook's own profile block (or ``-p NN.name=...``) that
    the notebook does not declare is a problem (a typo would otherwise leave
    the default in place without a word); a string given for a ``list``
    parameter is wrapped into a one-element list, with a note.

    Returns:
        ``(parameters, problems)``: the values to pass, and one message per
        problem naming the parameter, the value and what is expected.
    """
    where = profile_data.get("_path", "the profile")
    lines = profile_data.get("_lines", {})
    decl = nbparams.declared(notebook)
    problems = []
    for block in (notebook.stem[:2], notebook.stem):
        for name in (profile_data.get("notebooks") or {}).get(block) or {}:
            if name not in decl:
                line = lines.get(("notebooks", block, str(name)))
                origin = f"{where}:{line}" if line else f"-p {block}.{name}"
                close = difflib.get_close_matches(str(name), list(decl), n=1)
                problems.append(
                    f"{block}.{name} ({origin}): {notebook.name} has no parameter {name!r}"
                    + (f"; did you mean {close[0]!r}?" if close else "")
                )
    try:
        values, found, notes = nbparams.check(
            notebook, parameters, wrap_strings=True, strict_names=False, parameters=decl
        )
    except nbparams.ConfigError as err:
        return parameters, [*problems, str(err)]
    for note in notes:
        print(f"  note: {notebook.stem[:2]}.{note}")
    return values, problems + [f"{notebook.stem[:2]}.{p}" for p in found]


def check_profile_keys(profile_data: dict[str, Any], notebooks: Sequence[Path]) -> None:
    """Refuse notebook keys of a profile (or of ``-p NN.key=...``) that match no notebook.

    Raises:
        SystemExit: naming the keys, their lines and the notebooks there are.
    """
    known = {nb.stem[:2] for nb in notebooks} | {nb.stem for nb in notebooks}
    lines = profile_data.get("_lines", {})
    bad = [k for k in (profile_data.get("notebooks") or {}) if str(k) not in known]
    if bad:
        where = profile_data.get("_path", "the profile")
        named = ", ".join(
            f"{k!r} ({where}:{lines[('notebooks', k)]})" if ("notebooks", k) in lines else f"{k!r} (-p)" for k in bad
        )
        raise SystemExit(
            f"unknown notebook key(s) {named}; the notebooks are "
            f"{', '.join(sorted(nb.stem for nb in notebooks))} (keys are their two-digit numbers, "
            'quoted: "01":)'
        )
