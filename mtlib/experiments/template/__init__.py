"""The template a new notebook starts from (notebook 00_template): a spec and its data loader, nothing else.

Copy this package to ``mtlib/experiments/<short_name>/`` with the notebook, set ``notebook`` in
``spec.py`` to the new notebook's file stem, and replace the data loader; the method goes in the
notebook's cells. The face lists what the
notebook calls; a package is found by :func:`mtlib.experiments.spec_for` without being listed anywhere.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_experiment": ["load"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
