"""Every value the four papers publish that a notebook or a test compares with.

One table per paper table, each with its source (paper and section), so a
notebook shows ``ours`` beside ``paper`` and ``notebooks/profiles/expected.yaml``
pins what must be reproduced. Sections, in notebook order:

- Manino et al. 2022 (notebooks 01-03)
- Carvalho et al. 2023 (notebook 04)
- Bhathena et al. (notebook 05), Andreas 2019 / TRE (notebook 06), Fu & Frank 2023 (notebook 07)

Values are typed in from the papers (facts from the papers), never computed here.
"""

from __future__ import annotations
