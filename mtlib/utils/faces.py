"""Lazy package faces: each public name written once, its module imported on first use.

Intuition: a package's ``__init__.py`` is its face, the short list of what
users and notebooks call. Written by hand, every name appears three times
(the module's ``__all__``, the face's import, the face's ``__all__``), and
importing the face imports every module behind it (and torch, matplotlib ...
behind those) even when one name is wanted. A :class:`Face` maps each public
name to the module that defines it, once; ``__getattr__`` (PEP 562) imports
that module the first time the name is asked for.

Example (what an ``__init__.py`` holds)::

    from mtlib.utils.faces import Face

    _face = Face(__name__, {"_spec": ["Spec"], "_method": ["run", "transitivity"]})
    __all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir

Modules behind a face are private (``_method.py``); code inside mtlib imports
them directly, so its types stay checked; a face is for users. A public module
is listed with :data:`ALL` instead of its names: its ``__all__`` is exactly what
the face shows (a name other modules import from it by name, but users need not
see, stays out), and the face reads it from the module's source (without
importing it), so each name is written once, in its module.

    >>> face = Face("mtlib.utils", {"similarity": ["cosine_matrix"]})
    >>> face.names
    ['cosine_matrix']
    >>> Face("mtlib.utils", {"paths": ALL}).names
    ['project_root']
    >>> Face("mtlib.utils", {"paths": [MODULE, ALL]}).names
    ['paths', 'project_root']
    >>> face.getattr("cosine_matrix").__name__
    'cosine_matrix'
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

__all__ = ["ALL", "MODULE", "Face", "renamed", "renamed_attribute", "renamed_keywords"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: Among a module's names in a face's exports: the module itself, under its own name.
MODULE = "."
#: In place of a module's names in a face's exports: every name of the module's own ``__all__``.
ALL = "*"
_DECLARED_ALL = re.compile(r"^__all__\s*=\s*(\[[^\]]*\])", re.MULTILINE)


class Face:
    """The public names of a package and the modules behind them.

    Args:
        package: The package's ``__name__``.
        exports: Module name (relative to the package, dotted for a module of a sub-package) -> the names
            it gives the face, or :data:`ALL` for every name of the module's own ``__all__`` (``[MODULE, ALL]``:
            the module itself as well).
        moved: Names that moved elsewhere or were renamed, kept for one release: old name -> ``"package:name"``
            (the package itself for a rename). Asking for one gives a :class:`DeprecationWarning` and the new
            object; they are not in ``names``. A module listed
            with no names, or with :data:`MODULE` (``"."``) among them, is itself reachable as an attribute
            under its own name (``face.module``).

    Raises:
        ValueError: a name given by two modules, a name that is also a sub-module's (importing the
            sub-module would set the package attribute to the module and hide the name), or a module
            listed with :data:`ALL` whose source declares no literal ``__all__``.
    """

    def __init__(
        self,
        package: str,
        exports: Mapping[str, Sequence[str] | str],
        moved: Mapping[str, str] | None = None,
    ) -> None:
        self.package = package
        #: Deprecated names (kept one release): old name -> ``"package:name"`` where it lives now.
        self.moved = dict(moved or {})
        self.where: dict[str, tuple[str, str | None]] = {}
        modules = _submodules(package)
        for module, listed in exports.items():
            names = [n for entry in ([ALL] if listed == ALL else listed) for n in _expanded(package, module, entry)]
            own = module.rsplit(".", 1)[-1]
            for name in [own if n == MODULE else n for n in names or [MODULE]]:
                if name in self.where:
                    raise ValueError(f"{package}: {name!r} is exported twice")
                itself = name == own and (not names or MODULE in names)
                if not itself and name in modules:
                    raise ValueError(
                        f"{package}: {name!r} is both an exported name of {module} and a sub-module; rename one"
                    )
                self.where[name] = (module, None if itself else name)
        self.names = sorted(self.where)
        self.getattr: Callable[[str], Any] = self._getattr
        self.dir: Callable[[], list[str]] = lambda: list(self.names)

    def _getattr(self, name: str) -> Any:
        if name in self.moved and name not in self.where:
            home, _, new = self.moved[name].partition(":")
            how = f"is renamed {new}" if home == self.package else f"moved to {home}.{new}"
            warnings.warn(
                f"{self.package}.{name} {how}; the old name goes in the next release",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(importlib.import_module(home), new)
        if name not in self.where:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module_name, attr = self.where[name]
        module = importlib.import_module(f"{self.package}.{module_name}")
        value = module if attr is None else getattr(module, attr)
        setattr(sys.modules[self.package], name, value)  # later lookups skip __getattr__
        return value


def renamed(new: _F, old: str) -> _F:
    """A deprecated alias of the function ``new`` under its old name ``old``, kept for one release.

    Calling it gives a :class:`DeprecationWarning` naming the new function, then calls ``new``. A module keeps
    ``old = renamed(new, "module.old")`` beside the new name (out of its ``__all__``), and its package's face lists
    the old name in ``moved=``, so both ``from package import old`` and ``module.old`` still work and warn.

    Args:
        new: The function under its new name.
        old: The old name as users wrote it (``"mtlib.utils.keys.scheme"``); its last part is the alias's name.

    Example:
        >>> import warnings
        >>> def model_keys(x):
        ...     return x
        >>> scheme = renamed(model_keys, "keys.scheme")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     scheme(1), caught[0].category.__name__, str(caught[0].message)
        (1, 'DeprecationWarning', 'keys.scheme is renamed model_keys; the old name goes in the next release')
    """

    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"{old} is renamed {new.__name__}; the old name goes in the next release", DeprecationWarning, stacklevel=2
        )
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old.rsplit(".", 1)[-1]
    alias.__doc__ = f"Deprecated: the old name of :func:`{new.__name__}`; it goes in the next release."
    return cast(_F, alias)


def renamed_attribute(old: str, new: str) -> property:
    """A read-only attribute kept one release under its old name: reading it warns and gives attribute ``new``.

    Args:
        old: The old name as users wrote it, e.g. ``"Node.kind"`` (named in the warning).
        new: The attribute it reads now, e.g. ``"node_type"``.

    Example:
        >>> class Point:
        ...     x = 1.0
        ...     horizontal = renamed_attribute("Point.horizontal", "x")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     Point().horizontal, caught[0].category.__name__
        (1.0, 'DeprecationWarning')
    """
    owner = old.rpartition(".")[0]

    def read(self: Any) -> Any:
        warnings.warn(
            f"{old} is renamed {owner + '.' if owner else ''}{new}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self, new)

    return property(read, doc=f"Deprecated name of ``{new}`` (a DeprecationWarning; goes in the next release).")


def renamed_keywords(**renames: str) -> Callable[[_F], _F]:
    """Keep old keyword names of a function or a class's constructor for one release: ``old="new"``.

    A call with an old keyword gives a :class:`DeprecationWarning` (``"Typos(): kind= is renamed typo=; ..."``)
    and does what the new keyword does. On a class (a dataclass too: put it above ``@dataclass``) it wraps the
    class's ``__init__`` in place, so its fields, ``fields()`` and ``replace()`` (new names) are unchanged; a function
    keeps its signature for introspection (``inspect.signature`` follows the wrapper).

    Args:
        renames: Old keyword -> the new keyword it is now.

    Raises:
        ValueError: (when decorating) a new keyword the callable does not take, or an old one it still takes.
        TypeError: (on a call) both an old keyword and its new one given.

    Example:
        >>> @renamed_keywords(kind="typo")
        ... def typos(typo="swap", n=1):
        ...     return typo, n
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     typos(kind="delete"), str(caught[0].message)
        (('delete', 1), 'typos(): kind= is renamed typo=; the old keyword goes in the next release')
    """

    def decorate(target: _F) -> _F:
        is_class = isinstance(target, type)
        call: Callable[..., Any] = target.__init__ if is_class else target
        name = target.__qualname__
        signature = inspect.signature(call)
        params = signature.parameters
        for old, new in renames.items():
            if new not in params or old in params:
                raise ValueError(
                    f"renamed_keywords on {name}: {old}= -> {new}= needs {new!r} among its parameters "
                    f"({', '.join(params)}) and {old!r} not"
                )

        @functools.wraps(call)
        def accepting(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs or new in signature.bind_partial(*args).arguments:
                        raise TypeError(f"{name}() got both {new}= and its old name {old}=; give {new}= only")
                    warnings.warn(
                        f"{name}(): {old}= is renamed {new}=; the old keyword goes in the next release",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return call(*args, **kwargs)

        accepting.__renamed_keywords__ = dict(renames)  # type: ignore[attr-defined]
        if is_class:
            setattr(target, "__init__", accepting)  # noqa: B010 (mypy refuses assigning to a method)
            return target
        return cast(_F, accepting)

    return decorate


def _expanded(package: str, module: str, entry: str) -> list[str]:
    """One entry of a module's names in a face's exports: :data:`ALL` as the module's own ``__all__``."""
    return _declared_all(package, module) if entry == ALL else [entry]


def _submodules(package: str) -> set[str]:
    """The names of a package's sub-modules (empty when the package is not imported yet)."""
    found = getattr(sys.modules.get(package), "__path__", None)
    return {info.name for info in pkgutil.iter_modules(found)} if found else set()


def _declared_all(package: str, module: str) -> list[str]:
    """The literal ``__all__`` of ``package.module``, read from its source file (the module is not imported).

    Raises:
        ValueError: no source file, or no ``__all__ = [...]`` literal at the start of a line in it.
    """
    found = getattr(sys.modules.get(package), "__path__", None)
    if found is None:
        spec = importlib.util.find_spec(package)
        found = spec.submodule_search_locations if spec else None
    parts = module.split(".")
    for folder in found or []:
        for path in (Path(folder, *parts).with_suffix(".py"), Path(folder, *parts, "__init__.py")):
            if path.is_file():
                match = _DECLARED_ALL.search(path.read_text(encoding="utf-8"))
                if match is None:
                    raise ValueError(f"{package}: {path} declares no literal __all__ = [...] to take ALL from")
                return list(ast.literal_eval(match.group(1)))
    raise ValueError(f"{package}: no source file for module {module!r} to read its __all__ from")
