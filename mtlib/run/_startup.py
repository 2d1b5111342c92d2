"""What the runner's own processes skip at start-up: an import that no code in them uses.

jsonschema, which nbformat imports (and papermill and nbconvert import
nbformat), builds an RFC 3987 IRI grammar with lark when it is imported and
``rfc3987_syntax`` is installed (jupyter-events pulls it in for JupyterLab).
That takes about 1.1 s of CPU in every process, and the runner starts one
papermill process per notebook. The grammar only serves jsonschema's ``iri``
format checker; nbformat passes no format checker and its schemas name no
format, so in the runner and its papermill processes the module is marked
absent and jsonschema goes on without that one checker. Nothing else changes;
a user's own interpreter (JupyterLab, a notebook kernel) is not touched.
"""

from __future__ import annotations

import sys

UNUSED = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Mark :data:`UNUSED` as absent (an ``import`` of it raises ``ImportError``) unless already imported."""
    for name in UNUSED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]
