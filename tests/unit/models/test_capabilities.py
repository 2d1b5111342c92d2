"""Model families as capabilities: a new family is one adapter class and one table entry, asked, never named."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from mtlib import models
from mtlib.models import factory
from mtlib.models.capabilities import ADAPTERS, Capabilities
from mtlib.models.weights.registry import REGISTRY, ModelSpec
from mtlib.models.weights.resolve import Resolved


def _resolve_toy(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    return Resolved(spec.name, None, "toy-letters", "built-in", spec)


class LetterModel(models.Model):
    """A toy family: a text is its counts of a, e, i, o, u (no weights, nothing to download)."""

    kind = "toy-letters"
    capabilities = Capabilities(
        resolves="toy-letters",
        resolve=_resolve_toy,
        offline_status=lambda spec: "built-in",
        identity=lambda resolved: f"{resolved.name}@1",
        why_not_finetune="a letter count has no weights",
    )

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        super().__init__(resolved.name, f"{resolved.name}@1", "cpu", use_cache)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.array([[t.count(v) for v in "aeiou"] for t in texts], dtype=np.float32)


@pytest.fixture
def toy_family(monkeypatch):
    """The family added the documented way: its adapter in ADAPTERS; a registry name for it."""
    monkeypatch.setitem(ADAPTERS, "toy-letters", LetterModel)
    monkeypatch.setitem(REGISTRY, "letters", ModelSpec("letters", "letters", kind="toy-letters"))
    factory._MEMO.clear()
    yield
    factory._MEMO.clear()


def test_a_new_family_resolves_loads_embeds_and_classifies_through_the_factory(toy_family):
    resolved = models.resolve("letters")
    assert resolved.kind == "toy-letters" and resolved.how == "built-in"
    assert models.model_identity(resolved) == "letters@1"
    assert models.registered().loc["letters", "resolves"] == "built-in"
    model = models.load("letters")
    assert isinstance(model, LetterModel) and model.precision is None  # no network: no precision
    np.testing.assert_array_equal(model.embed(["banana", "kiwi"]), [[3, 0, 0, 0, 0], [0, 0, 2, 0, 0]])
    texts = ["aaa", "aab", "aba", "baa", "ooo", "oob", "obo", "boo"]
    clf = models.classifier("letters", (texts, ["a"] * 4 + ["o"] * 4), how="head", heldout_fraction=0)
    assert clf.classify(["aaaa", "oooo"]).argmax(1).tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"\(toy-letters\) cannot be fine-tuned: a letter count has no weights"):
        models.classifier("letters", (texts, ["a"] * 4 + ["o"] * 4), how="finetune")


def test_the_built_in_families_declare_what_they_can_do():
    caps = {kind: adapter.capabilities for kind, adapter in ADAPTERS.items()}
    assert caps["wordpiece-static"].finetune_lr == 1e-3 and caps["wordpiece-static"].trains_word_embeddings
    assert caps["sentence-transformers"].finetune == "pipeline" and caps["hf-encoder"].finetune == "encoder"
    assert caps["hf-classifier"].keeps_own_head and caps["hf-classifier"].finetune_lr == 2e-5
    assert not caps["lexicon"].can_finetune and not caps["gensim"].can_finetune
    resolvers = {c.resolves for c in caps.values() if c.resolve is not None}
    assert resolvers == {"wordpiece-static", "lexicon", "gensim", "packaged-vectors", "gguf"}  # transformers: folders
    assert caps["causal-lm"].prompts and not caps["causal-lm"].can_finetune
    with pytest.raises(ValueError, match="finetune='sideways'"):
        Capabilities(finetune="sideways")


def test_a_family_that_reads_model_folders_registers_itself_and_resolution_finds_it(tmp_path, monkeypatch):
    """The recipe of ARCHITECTURE.md: one adapter module that registers itself with the folders it reads; no
    resolution code names the family."""
    from mtlib.models import capabilities

    monkeypatch.setattr(capabilities, "ADAPTERS", dict(capabilities.ADAPTERS))
    monkeypatch.setattr(capabilities, "_FOLDER_TESTS", list(capabilities._FOLDER_TESTS))
    from mtlib.models.weights import resolve as resolve_module

    monkeypatch.setattr(resolve_module, "ADAPTERS", capabilities.ADAPTERS)

    @capabilities.register_adapter(lambda folder: (folder / "letters.json").exists(), priority=50)
    class FolderLetters(LetterModel):
        kind = "toy-folder-letters"

    folder = tmp_path / "my-letters"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "letters.json").write_text("{}")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text("{}")
    assert models.resolve(str(folder)).kind == "toy-folder-letters"
    assert models.resolve(str(plain)).kind == "hf-encoder"  # any other folder: the plain encoder, as before
    assert capabilities.ADAPTERS["toy-folder-letters"] is FolderLetters
    with pytest.raises(ValueError, match="registered already"):
        capabilities.register_adapter()(type("Other", (LetterModel,), {"kind": "toy-folder-letters"}))
