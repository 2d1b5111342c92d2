"""Prompt templates for a causal language model: a template per task, its slots, its label verbalisers.

Intuition: a causal LM classifies a text by how likely it finds each label's
answer after a prompt. A :class:`PromptTemplate` says what the prompt is
(an instruction, then a query with named slots such as ``{text}`` or
``{premise}`` / ``{hypothesis}``) and which words answer for each label (its
*verbalisers*: ``positive`` -> ``"positive"``, ``entailment`` -> ``"yes"``).
:func:`plan` turns a template, a tokenizer and optional few-shot examples into
a :class:`PromptPlan` of token ids: one shared *prefix* (the chat template's
system turn, the instruction, the shots: the same for every input, so a model
computes it once and reuses its key/value cache), the query of each input,
a fixed *tail* (the end of the user turn and the start of the answer) and each
label's verbaliser ids. The prompt of an input is ``prefix + query + tail`` and
its label ``j`` scores ``log P(verbaliser_j | prompt)``, the summed log-probability
of the verbaliser's tokens.

Checks (each error names the template, the slot, the label or the text):

- a query without one of the template's slots, or with a slot it does not declare;
- two labels whose verbalisers tokenise the same, or one that tokenises to nothing;
- an empty slot value (an empty text);
- a chat template asked of a tokenizer that has none.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TEMPLATES", "PromptTemplate"]

#: Stands for the query while a chat template renders, so its text splits into prefix and tail.
_QUERY_MARK = "\u2063QUERY\u2063"


@dataclass(frozen=True)
class PromptTemplate:
    """How a task is asked of a causal language model.

    Attributes:
        name: The template's name (its key in :data:`TEMPLATES`, and in every cache key of its scores).
        instruction: What the model is asked, once, before the examples and the query.
        query: One input as text, with its slots in braces (``"Review: {text}"``); the first slot is
            filled from a classifier's ``texts``, the second (if any) from its ``text_pairs``.
        slots: The slots ``query`` must hold, in the order they are filled.
        verbalisers: Label (as ``str(label).lower()``) -> the word that answers for it.
        answer: In a plain (non-chat) prompt, what stands between the query and the answer
            (``"Answer:"``); a chat prompt answers in the assistant's turn.

    Example:
        >>> t = PromptTemplate("toy", "Is it good?", "Text: {text}", ("text",), {"1": "yes", "0": "no"})
        >>> fill(t, "fine", None)
        'Text: fine'
    """

    name: str
    instruction: str
    query: str
    slots: tuple[str, ...]
    verbalisers: Mapping[str, str] = field(default_factory=dict)
    answer: str = "Answer:"

    def __post_init__(self) -> None:
        found = [f for _, f, _, _ in string.Formatter().parse(self.query) if f is not None]
        unknown = sorted(set(found) - set(self.slots))
        missing = [s for s in self.slots if s not in found]
        if unknown:
            raise ValueError(
                f"prompt template {self.name!r}: its query {self.query!r} has the slot(s) {unknown}, which it does "
                f"not declare; its slots are {list(self.slots)}"
            )
        if missing:
            raise ValueError(
                f"prompt template {self.name!r}: its query {self.query!r} lacks the slot(s) "
                f"{['{' + s + '}' for s in missing]}; put each declared slot in the query"
            )
        if not 1 <= len(self.slots) <= 2:
            raise ValueError(f"prompt template {self.name!r}: 1 or 2 slots (a text, or a text pair), got {self.slots}")

    @property
    def pairs(self) -> bool:
        """Whether the template reads a text pair (two slots)."""
        return len(self.slots) == 2

    def key(self) -> str:
        """A digest of everything that changes the prompt (keys the cached scores)."""
        body = json.dumps(
            [self.name, self.instruction, self.query, list(self.slots), sorted(self.verbalisers.items()), self.answer]
        )
        return hashlib.sha256(body.encode()).hexdigest()[:16]


_YES_NO = {"1": "yes", "0": "no", "true": "yes", "false": "no", "yes": "yes", "no": "no"}

#: The templates mtlib ships, one per task of the notebooks (01 sentiment; 02, 07 NLI; 03 a relation per question;
#: 05 sentiment). Each notebook's labels have a verbaliser here.
TEMPLATES: dict[str, PromptTemplate] = {
    t.name: t
    for t in (
        PromptTemplate(
            "sentiment",
            "Is the sentiment of the movie review positive or negative? Answer with one word.",
            "Review: {text}",
            ("text",),
            {
                "positive": "positive",
                "negative": "negative",
                "1": "positive",
                "0": "negative",
                "pos": "positive",
                "neg": "negative",
                "true": "positive",
                "false": "negative",
            },
        ),
        PromptTemplate(
            "nli",
            "Does the premise entail the hypothesis? Answer yes, no or maybe.",
            "Premise: {premise}\nHypothesis: {hypothesis}",
            ("premise", "hypothesis"),
            {
                **_YES_NO,
                "entailment": "yes",
                "contradiction": "no",
                "neutral": "maybe",
                "non-entailment": "no",
                "entailed": "yes",
                "not-entailed": "no",
            },
        ),
        PromptTemplate(
            "hypernym",
            "Answer the question about two words with yes or no.",
            'Is "{word}" a kind of "{other}"?',
            ("word", "other"),
            dict(_YES_NO),
        ),
        PromptTemplate(
            "synonym",
            "Answer the question about two words with yes or no.",
            'Do "{word}" and "{other}" mean the same?',
            ("word", "other"),
            dict(_YES_NO),
        ),
        PromptTemplate(
            "antonym",
            "Answer the question about two words with yes or no.",
            'Is "{word}" the opposite of "{other}"?',
            ("word", "other"),
            dict(_YES_NO),
        ),
        PromptTemplate(
            "meronym",
            "Answer the question about two words with yes or no.",
            'Is "{word}" a part of "{other}"?',
            ("word", "other"),
            dict(_YES_NO),
        ),
    )
}


def template_for(template: str | PromptTemplate | None, pairs: bool, owner: str) -> PromptTemplate:
    """The template a classifier uses: a :class:`PromptTemplate`, a name of :data:`TEMPLATES`, or by the data.

    Without a template, single texts get ``sentiment`` and text pairs ``nli``.

    Raises:
        ValueError: an unknown name (listing the known ones), or a template whose slot count does not
            match the data (single texts for a pair template, or the reverse).
    """
    chosen = template_named(("nli" if pairs else "sentiment") if template is None else template, owner)
    if chosen.pairs != pairs:
        has = "text pairs" if pairs else "single texts"
        raise ValueError(
            f"{owner}: prompt template {chosen.name!r} has the slots {list(chosen.slots)} but the data are {has}; "
            f"use a template with {'two slots' if pairs else 'one slot'}"
        )
    return chosen


def template_named(template: str | PromptTemplate, owner: str) -> PromptTemplate:
    """A :class:`PromptTemplate` itself, or the one of :data:`TEMPLATES` by that name.

    Raises:
        ValueError: an unknown name, listing the known ones.
    """
    if isinstance(template, PromptTemplate):
        return template
    if template in TEMPLATES:
        return TEMPLATES[template]
    raise ValueError(f"{owner}: unknown prompt template {template!r}; the templates are {sorted(TEMPLATES)}")


def verbaliser_of(template: PromptTemplate, label: Any, given: Mapping[str, str] | None = None) -> str:
    """The word that answers for ``label``: from ``given`` (a user's own), else the template's.

    Raises:
        ValueError: no verbaliser for the label (names the template and the labels it knows).
    """
    for table in (given or {}, template.verbalisers):
        for key in (str(label), str(label).lower()):
            if key in table:
                return table[key]
    known = sorted(set(template.verbalisers) | set(given or {}))
    raise ValueError(
        f"prompt template {template.name!r} has no verbaliser for the label {label!r}; it knows {known}. "
        "Pass verbalisers={label: word} to the classifier"
    )


def fill(template: PromptTemplate, text: str, pair: str | None, where: str = "") -> str:
    """The query of one input: its slots filled with ``text`` (and ``pair``).

    Raises:
        ValueError: an empty (or blank) value, or a missing / unexpected second text.
    """
    values = [text] if pair is None else [text, pair]
    if len(values) != len(template.slots):
        raise ValueError(
            f"prompt template {template.name!r}{where}: expects {len(template.slots)} text(s) for the slots "
            f"{list(template.slots)}, got {len(values)}"
        )
    for slot, value in zip(template.slots, values):
        if not value.strip():
            raise ValueError(
                f"prompt template {template.name!r}{where}: the slot {{{slot}}} is given an empty text {value!r}; "
                "a prompt needs something to classify"
            )
    return template.query.format(**dict(zip(template.slots, values)))


@dataclass(frozen=True)
class PromptPlan:
    """A template made into token ids for one tokenizer: what a causal LM scores.

    Attributes:
        template: The template.
        labels: The classes, in column order.
        prefix: Token ids shared by every prompt (chat system turn, instruction, shots), length ``P``.
        tail: Token ids after every query (end of the user turn, start of the answer).
        verbalisers: Each label's answer token ids, non-empty and pairwise different.
        chat: Whether the prompt went through the tokenizer's chat template.
        key: A digest of every token id above (keys the cached scores).
    """

    template: PromptTemplate
    labels: tuple[Any, ...]
    prefix: tuple[int, ...]
    tail: tuple[int, ...]
    verbalisers: tuple[tuple[int, ...], ...]
    chat: bool
    key: str


def _encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _chat(tokenizer: Any, turns: list[tuple[str, str]], template: PromptTemplate) -> str:
    """The chat rendering of ``turns`` ``(role, content)``, ending with the assistant's turn opened."""
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(
            f"prompt template {template.name!r}: chat=True needs a tokenizer with a chat template, and this model's "
            "has none; use chat=False (a plain prompt ending in the template's answer cue) or a chat model"
        )
    messages = [{"role": role, "content": content} for role, content in turns]
    return str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))


def plan(
    template: PromptTemplate,
    tokenizer: Any,
    labels: Sequence[Any],
    *,
    shots: Sequence[tuple[str, str | None, Any]] = (),
    chat: bool = True,
    verbalisers: Mapping[str, str] | None = None,
) -> PromptPlan:
    """Token ids of a template's shared prefix, tail and verbalisers (see the module's docstring).

    Args:
        template: The task's template.
        tokenizer: A Hugging Face tokenizer (``__call__`` and, for ``chat``, ``apply_chat_template``).
        labels: The classes, in column order (each needs a verbaliser).
        shots: Few-shot examples ``(text, pair or None, label)``, in order; they go in the prefix.
        chat: Render through the tokenizer's chat template (an instruction-tuned model), else a plain
            prompt: instruction, shots and query separated by blank lines, each ending in ``answer``.
        verbalisers: A user's own words for some labels (over the template's).

    Raises:
        ValueError: a label without a verbaliser, two labels whose verbalisers tokenise the same, one that
            tokenises to nothing, an empty shot, or ``chat`` without a chat template.
    """
    words = [verbaliser_of(template, lab, verbalisers) for lab in labels]
    if chat:
        turns: list[tuple[str, str]] = []
        for i, (text, pair, label) in enumerate(shots):
            lead = template.instruction + "\n\n" if i == 0 else ""
            turns += [
                ("user", lead + fill(template, text, pair, f" (shot {i})")),
                ("assistant", verbaliser_of(template, label, verbalisers)),
            ]
        lead = "" if shots else template.instruction + "\n\n"
        rendered = _chat(tokenizer, [*turns, ("user", lead + _QUERY_MARK)], template)
        head, tail_text = rendered.split(_QUERY_MARK)
        answers = words
    else:
        blocks = [template.instruction]
        for i, (text, pair, label) in enumerate(shots):
            word = verbaliser_of(template, label, verbalisers)
            blocks.append(f"{fill(template, text, pair, f' (shot {i})')}\n{template.answer} {word}")
        head, tail_text = "\n\n".join(blocks) + "\n\n", "\n" + template.answer
        answers = [" " + w for w in words]
    ids = [tuple(_encode(tokenizer, a)) for a in answers]
    for lab, word, got in zip(labels, answers, ids):
        if not got:
            raise ValueError(
                f"prompt template {template.name!r}: the verbaliser {word!r} of label {lab!r} tokenises to nothing"
            )
    for i in range(len(ids)):
        for j in range(i):
            if ids[i] == ids[j]:
                raise ValueError(
                    f"prompt template {template.name!r}: labels {labels[j]!r} and {labels[i]!r} have verbalisers "
                    f"{answers[j]!r} and {answers[i]!r} that tokenise the same ({list(ids[i])}); give them "
                    "different words (verbalisers={label: word})"
                )
    prefix, tail = tuple(_encode(tokenizer, head)), tuple(_encode(tokenizer, tail_text))
    digest = hashlib.sha256(json.dumps([template.key(), prefix, tail, ids, chat]).encode()).hexdigest()[:16]
    return PromptPlan(template, tuple(labels), prefix, tail, tuple(ids), chat, digest)
