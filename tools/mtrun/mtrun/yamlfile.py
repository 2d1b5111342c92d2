"""Profiles and ``-p`` values as YAML: parsed with the line of every key, bounded, duplicates refused.

Intuition: a profile is written by hand, so a mistake in it should be named by
file and line (``quick.yaml:12: key 'n_boot' is given twice``), and a file or
a value that is far larger than any profile (an alias bomb, a pasted data file)
is refused before it costs memory. The runner's profiles (:mod:`mtrun.profiles`)
and script mode (:mod:`mtrun.script`) read YAML only through here; the
notebooks' parameter check itself is :mod:`mtlib.run.params`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from mtlib.run.params import ConfigError

__all__ = ["MAX_YAML_BYTES", "MAX_YAML_NODES", "ConfigError", "load_yaml_text", "read_yaml"]

#: Bounds of a profile or a ``-p`` value: bytes, and values once YAML aliases are expanded.
MAX_YAML_BYTES = 1_000_000
MAX_YAML_NODES = 100_000


def read_yaml(path: str | Path, *, raw_keys_under: Sequence[str] = ()) -> tuple[Any, dict[tuple[str, ...], int]]:
    """Parse a YAML file; return the data and the 1-based line of every mapping key.

    Args:
        path: The file.
        raw_keys_under: Top-level keys whose mapping's keys are kept as written
            (``01:`` unquoted stays the string ``"01"``, not the integer 1);
            ``""`` means the top-level mapping's own keys.

    Returns:
        ``(data, lines)``, ``lines[("notebooks", "01")]`` being the line of that key.

    Raises:
        ConfigError: unreadable or invalid YAML, with ``file:line:column``.
    """
    path = Path(path)
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise ConfigError(
                f"{path}: {path.stat().st_size} bytes, more than a profile or rules file needs "
                f"(at most {MAX_YAML_BYTES})"
            )
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text ({err.reason}); save the file as UTF-8") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror or err})") from None
    loader = yaml.SafeLoader(text)
    lines: dict[tuple[str, ...], int] = {}
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        if isinstance(node, yaml.MappingNode):
            mappings = [node] if "" in raw_keys_under else []
            mappings += [
                value
                for key, value in node.value
                if key.value in raw_keys_under and isinstance(value, yaml.MappingNode)
            ]
            for mapping in mappings:
                for sub, _ in mapping.value:
                    if isinstance(sub, yaml.ScalarNode) and sub.tag.endswith((":int", ":float")):
                        sub.tag = "tag:yaml.org,2002:str"  # keep "01" as written
        _check_nodes(node, str(path))
        _key_lines(node, (), lines)
        data = loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = " ".join(str(getattr(err, "problem", None) or err).split())
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:  # thousands of nested brackets: the YAML reader recurses once per level
        raise ConfigError(f"{path}: nested too deeply; expected a mapping of parameter: value") from None
    finally:
        loader.dispose()
    return data, lines


def load_yaml_text(text: str, where: str) -> Any:
    """Parse one YAML value given on the command line, with the bounds of :func:`read_yaml`.

    Raises:
        ConfigError: too long, too many nodes once aliases are expanded, or a duplicate key.
        yaml.YAMLError: invalid YAML.
    """
    if len(text) > MAX_YAML_BYTES:
        raise ConfigError(f"{where}: the value has {len(text)} characters (at most {MAX_YAML_BYTES})")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, where)
        return loader.construct_document(node)
    except RecursionError:
        raise ConfigError(f"{where}: the value is nested too deeply") from None
    finally:
        loader.dispose()


def _check_nodes(root: Any, where: str) -> None:
    """Refuse an alias bomb (a document that grows past :data:`MAX_YAML_NODES` once aliases are expanded)
    and a key given twice in one mapping (YAML keeps the last silently), naming the line."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise ConfigError(
                f"{where}: more than {MAX_YAML_NODES} values once its aliases (*name) are expanded; "
                "an alias bomb, or far more than a profile needs"
            )
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in seen:
                        raise ConfigError(
                            f"{where}:{key.start_mark.line + 1}: key {key.value!r} is given twice "
                            f"(first at line {seen[key.value]})"
                        )
                    seen[key.value] = key.start_mark.line + 1
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value


def _key_lines(node: Any, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = (*prefix, str(key.value))
            out[k] = key.start_mark.line + 1
            _key_lines(value, k, out)
