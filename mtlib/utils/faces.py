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
them directly, so its types stay checked; a face is for users.

    >>> face = Face("mtlib.utils", {"similarity": ["cosine_matrix"]})
    >>> face.names
    ['cosine_matrix']
    >>> face.getattr("cosine_matrix").__name__
    'cosine_matrix'
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["MODULE", "Face"]

#: Among a module's names in a face's exports: the module itself, under its own name.
MODULE = "."


class Face:
    """The public names of a package and the modules behind them.

    Args:
        package: The package's ``__name__``.
        exports: Module name (relative to the package, dotted for a module of a sub-package) -> the names
            it gives the face. A module listed with no names, or with :data:`MODULE` (``"."``) among them,
            is itself reachable as an attribute under its own name (``face.module``).

    Raises:
        ValueError: a name given by two modules, or a name that is also a sub-module's (importing the
            sub-module would set the package attribute to the module and hide the name).
    """

    def __init__(self, package: str, exports: Mapping[str, Sequence[str]]) -> None:
        self.package = package
        self.where: dict[str, tuple[str, str | None]] = {}
        modules = _submodules(package)
        for module, names in exports.items():
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
        if name not in self.where:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module_name, attr = self.where[name]
        module = importlib.import_module(f"{self.package}.{module_name}")
        value = module if attr is None else getattr(module, attr)
        setattr(sys.modules[self.package], name, value)  # later lookups skip __getattr__
        return value


def _submodules(package: str) -> set[str]:
    """The names of a package's sub-modules (empty when the package is not imported yet)."""
    found = getattr(sys.modules.get(package), "__path__", None)
    return {info.name for info in pkgutil.iter_modules(found)} if found else set()
