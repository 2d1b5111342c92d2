"""The parameters of notebook 04, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.models.inference.backends import BACKEND_VALUES

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 04: Montague adjective tests on embedding models (Carvalho et al., Tables 1-4 and 6-8)."""

    notebook = "04_montague_adjectives"

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    backend: str = param(
        "auto",
        f"one of {', '.join(BACKEND_VALUES)}",
        "what the encoders embed with: torch, onnx (fp32, exported once), or auto (the runner's --backend, else torch)",
    )
    seed: int = param(0, ">= 0", "seeds the bootstrap and the permutation tests")
    models: list[str] = param(
        ["minilm", "minilm-static", "glove-50d"],
        "non-empty; each str; distinct",
        "registry names or paths (paper: sbert, distilroberta, t5, dpr, labse, minilm-hub, glove, word2vec)",
    )
    word_lists: list[str] = param(
        [],
        "each str; distinct",
        "extra word lists, read before the bundled Appendix A list (the caps keep their words first): a header "
        "line word<TAB>class, then word<TAB>class per line, class S-I, S-NI, NS-Pl, NS-Pr, A or noun (or the "
        "authors' wide CSV)",
    )
    replace_bundled: bool = param(False, "", "use only word_lists, not the bundled list")
    max_adjectives_per_type: int = param(0, ">= 0", "keep at most this many adjectives of each type (0 keeps all)")
    max_nouns: int = param(0, ">= 0", "keep at most this many nouns (0 keeps all)")
    max_split_distance: float = param(
        1.0,
        "in [0, 2]",
        "splits at this cosine distance or more constrain nothing (published reading)",
    )
    n_boot: int = param(1000, ">= 0", "bootstrap replicates over adjectives for the intervals (0 skips them)")
    permutations: int = param(2000, ">= 1", "label shuffles of the adjective-level permutation tests")
