"""Every ``>>>`` example in the docstrings of mtlib, and of the tool beside it (mtrun), runs and prints what it shows.

One test per module of mtlib and mtrun (found with :func:`pkgutil.walk_packages`), run
with :mod:`doctest` the way a user would paste the examples: a failed
example fails its module's test with doctest's report (the file, the line,
what was expected and what came). A module whose import needs a package that
is not installed is skipped, naming the package; ``__main__`` modules are not
imported (importing one runs its command).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import mtlib
import mtrun

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module_names() -> list[str]:
    names = {"mtlib", "mtrun"}
    for package in (mtlib, mtrun):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.", onerror=lambda name: None):
            if info.name.rsplit(".", 1)[-1] != "__main__":
                names.add(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _module_names())
def test_docstring_examples_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as err:  # an optional dependency that is absent here
        pytest.skip(f"{name} needs {err.name or err}")
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True).find(module, name) if t.examples]
    if not tests:
        return
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report: list[str] = []
    for test in sorted(tests, key=lambda t: t.lineno or 0):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}:\n" + "".join(report)
