"""The house rules, checked on the code itself (ARCHITECTURE.md).

- Wings depend one way: ``utils <- data <- models <- relations <- analysis <- suite, experiments <- run``
  (``testing`` on top); a module imports only from its own wing or those to its left.
- No import cycle among mtlib modules, counting imports made inside functions.
- An import inside a function defers a heavy third-party package only: never an mtlib module.
- No module over 700 lines, no function over 100 lines.
- Every public module declares ``__all__``.
- The tools beside mtlib (``tools/mtrun``: the runner and the course-book builder) keep the same rules, import
  mtlib and never the reverse, and nothing under ``mtlib/`` imports a package that runs or renders notebooks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "mtlib"
#: Wing -> level; a module may import wings of its level or lower.
LEVELS = {
    "utils": 0,
    "data": 1,
    "models": 2,
    "relations": 3,
    "analysis": 4,
    "suite": 5,
    "paired": 6,
    "experiments": 5,
    "run": 6,
    "testing": 7,
}
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 700, 100
#: Tools beside mtlib, in this repository but not in its wheel: package -> the folder holding it.
TOOLS = {"mtrun": ROOT / "tools" / "mtrun"}
#: What runs or renders notebooks: the tools' business, never imported by a module under mtlib/ (issue 56).
NOTEBOOK_RUNNING = (
    "papermill nbclient nbformat nbconvert sphinx myst_nb myst_parser jupyter_client jupyter_cache ipykernel "
    "dask distributed"
).split()


def module_name(path: Path, base: Path = ROOT) -> str:
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}
TOOL_MODULES = {
    module_name(p, folder): p for tool, folder in TOOLS.items() for p in sorted((folder / tool).rglob("*.py"))
}
ALL_MODULES = {**MODULES, **TOOL_MODULES}


def wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def mtlib_imports(path: Path, ours: tuple[str, ...] = ("mtlib", *TOOLS)) -> list[tuple[str, bool, int]]:
    """``(imported module, inside a function, line)`` for every import of an mtlib (or a tool's) module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, bool, int]] = []
    me = next(m for m, p in ALL_MODULES.items() if p == path)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # annotations only: no runtime edge
            if isinstance(child, ast.Import):
                out.extend((a.name, in_function, child.lineno) for a in child.names if a.name.split(".")[0] in ours)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    pkg = me.split(".")[: len(me.split(".")) - child.level + (path.name == "__init__.py")]
                    base = ".".join([*pkg, base] if base else pkg)
                if base.split(".")[0] in ours:
                    for a in child.names:
                        sub = f"{base}.{a.name}"
                        out.append((sub if sub in ALL_MODULES else base, in_function, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return out


EDGES = {m: mtlib_imports(p) for m, p in ALL_MODULES.items()}


def test_no_upward_import_between_wings() -> None:
    bad = []
    for mod, imports in EDGES.items():
        if mod == "mtlib" or wing(mod) not in LEVELS:
            continue
        for target, _, line in imports:
            tw = wing(target)
            if tw in LEVELS and LEVELS[tw] > LEVELS[wing(mod)]:  # type: ignore[index]
                bad.append(f"{MODULES[mod].relative_to(ROOT)}:{line} imports {target} ({wing(mod)} -> {tw})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_mtlib_import_inside_a_function() -> None:
    bad = [
        f"{ALL_MODULES[m].relative_to(ROOT)}:{line} imports {t} inside a function"
        for m, imps in EDGES.items()
        for t, inner, line in imps
        if inner and m != "mtlib"
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    graph = {m: {t for t, _, _ in imps if t in ALL_MODULES and t != m} for m, imps in EDGES.items() if m != "mtlib"}
    # a face importing its own sub-modules is the package's definition, not a dependency back
    graph = {
        m: {t for t in ts if not (t.startswith(m + ".") and ALL_MODULES[m].name == "__init__.py")}
        for m, ts in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def strongconnect(v: str) -> None:  # Tarjan, iterative enough for ~100 modules
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            strongconnect(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(ALL_MODULES))
def test_module_size_and_function_size(module: str) -> None:
    path = ALL_MODULES[module]
    text = path.read_text(encoding="utf-8")
    n = len(text.splitlines())
    assert n <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {n} lines (at most {MAX_MODULE_LINES})"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{path.relative_to(ROOT)}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"


@pytest.mark.parametrize(
    "module",
    sorted(m for m, p in ALL_MODULES.items() if not m.split(".")[-1].startswith("_") and p.name != "__main__.py"),
)
def test_public_module_declares_all(module: str) -> None:
    tree = ast.parse(ALL_MODULES[module].read_text(encoding="utf-8"))
    targets = [
        t
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
    ]
    # a lazy face assigns ``__all__, __getattr__, __dir__ = ...`` in one tuple
    names = {n.id for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(n, ast.Name)}
    assert "__all__" in names, f"{ALL_MODULES[module].relative_to(ROOT)} declares no __all__"


# -- mtlib is the helper; the runner and the book builder are tools beside it (issue 56) -----------------------------
def test_tools_import_mtlib_and_mtlib_never_imports_a_tool() -> None:
    """A tool's module imports mtlib or its own package, never another tool; no mtlib module imports a tool."""
    bad = []
    for mod, imports in EDGES.items():
        top = mod.split(".")[0]
        for target, _, line in imports:
            other = target.split(".")[0]
            if other in TOOLS and other != top:
                bad.append(f"{ALL_MODULES[mod].relative_to(ROOT)}:{line} imports {target} ({top} -> {other})")
    assert not bad, "imports of a tool from outside it:\n" + "\n".join(bad)


def third_party_imports(path: Path) -> list[tuple[str, int]]:
    """``(top-level package, line)`` of every import in a module, inside functions and ``TYPE_CHECKING`` too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name.split(".")[0], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.module.split(".")[0], node.lineno))
    return out


def test_no_module_of_mtlib_imports_what_runs_or_renders_notebooks() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in MODULES.values()
        for name, line in third_party_imports(path)
        if name in NOTEBOOK_RUNNING
    ]
    assert not bad, "the runner and the book builder live in tools/, not in mtlib:\n" + "\n".join(bad)
    assert "tools" not in PKG.parent.joinpath("pyproject.toml").read_text().split("include = [")[1].split("]")[0]


# -- one spec per experiment (issue 34) ------------------------------------------------------------------------------
def test_every_notebook_has_one_spec_and_no_rule_lives_elsewhere() -> None:
    from mtlib.experiments import specs

    stems = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(specs()) == stems, "every notebook is declared by exactly one experiment's Spec"
    assert not (ROOT / "notebooks" / "parameters.yaml").exists(), "rules live in the specs, not in a rules file"
    # the rule language is compiled by the specs and the runner's check only
    allowed = {"mtlib.utils.rules", "mtlib.experiments.spec", "mtlib.run.params"}
    users = {m for m, p in MODULES.items() if "compile_rule(" in p.read_text(encoding="utf-8")}
    assert users <= allowed, f"rules compiled outside the specs: {sorted(users - allowed)}"


def test_no_experiment_keeps_its_own_defaults_table() -> None:
    bad = []
    for mod, path in MODULES.items():
        if wing(mod) != "experiments":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            bad += [
                f"{path.relative_to(ROOT)}:{node.lineno} {t.id}"
                for t in targets
                if isinstance(t, ast.Name) and t.id.endswith("_DEFAULTS")
            ]
    assert not bad, "defaults belong in the experiment's Spec:\n" + "\n".join(bad)


#: Where a model family may be named in a comparison: the adapters (each its own) and the registry.
KIND_ALLOWED = ("mtlib/models/adapters/", "mtlib/models/weights/registry.py")
#: Modules allowed a model-kind comparison for now (none).
KIND_PENDING: set[str] = set()


def _model_kinds() -> set[str]:
    """Every model kind: the adapter table's keys, the registry's kinds, and each adapter's ``kind``."""
    from mtlib.models.capabilities import ADAPTERS
    from mtlib.models.weights.registry import REGISTRY

    return set(ADAPTERS) | {spec.kind for spec in REGISTRY.values()} | {cls.kind for cls in ADAPTERS.values()}


def _kind_comparisons(path: Path, kinds: set[str]) -> list[int]:
    """Lines comparing something named ``kind`` (``x.kind``, ``kind``) with a model kind (==, !=, in, not in)."""

    def names_kind(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "kind") or (
            isinstance(node, ast.Name) and node.id == "kind"
        )

    def literals(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        return set()

    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(names_kind(s) for s in sides) and any(literals(s) & kinds for s in sides):
                lines.append(node.lineno)
    return lines


def test_no_model_kind_is_compared_outside_the_adapters_and_the_registry():
    kinds = _model_kinds()
    assert {"transformer", "lexicon", "sentence-transformers", "wordpiece-static"} <= kinds
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(KIND_ALLOWED) or rel in KIND_PENDING:
            continue
        lines = _kind_comparisons(path, kinds)
        if lines:
            found[rel] = lines
    assert not found, f"ask the adapter's capabilities (mtlib.models.capabilities), not its kind: {found}"


# -- one face mechanism, the models wing in rooms (issue 42) ------------------------------------------------------
@pytest.mark.parametrize("package", sorted(m for m, p in MODULES.items() if p.name == "__init__.py"))
def test_every_package_face_is_a_lazy_face(package: str) -> None:
    """One face mechanism: every ``__init__.py`` builds a :class:`mtlib.utils.faces.Face` and takes its hooks."""
    text = MODULES[package].read_text(encoding="utf-8")
    assert "Face(" in text and "_face.getattr, _face.dir" in text, f"{MODULES[package].relative_to(ROOT)}"


def test_private_modules_keep_no_all() -> None:
    """A public name is written once, in its package's face: a private module has no ``__all__``."""
    bad = [
        str(p.relative_to(ROOT))
        for m, p in MODULES.items()
        if p.name.startswith("_") and p.name not in ("__init__.py", "__main__.py") and "\n__all__" in p.read_text()
    ]
    assert not bad, bad


def test_the_models_wing_keeps_its_top_room_small() -> None:
    top = [p.name for p in (PKG / "models").glob("*.py")]
    assert len(top) <= 12, sorted(top)


def _private_imports(path: Path) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` of every ``from mtlib... import`` that names a private name or a private module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("mtlib."):
            parts = node.module.split(".")  # type: ignore[union-attr]
            private_module = any(p.startswith("_") for p in parts)
            found += [(node.module, a.name, node.lineno) for a in node.names if private_module or a.name[0] == "_"]
        elif isinstance(node, ast.Import):
            found += [(a.name, "", node.lineno) for a in node.names if "._" in a.name and a.name.startswith("mtlib.")]
    return found


def test_no_private_name_is_imported_across_packages() -> None:
    """A private name (``_x``) or module (``_x.py``) is used only inside its own package (wing): another package
    imports a public name, which its owner documents and keeps."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name or module} from {module} ({wing(mod)} -> {wing(module)})"
        for mod, path in MODULES.items()
        for module, name, line in _private_imports(path)
        if wing(module) != wing(mod)
    ]
    assert not bad, "private names imported across packages:\n" + "\n".join(bad)
