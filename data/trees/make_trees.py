"""Generate the bundled sentiment treebank (``train.txt``, ``dev.txt``, ``test.txt``).

The files stand in for the Stanford Sentiment Treebank's PTB tree files: one
bracketed binary tree per line, a sentiment label 0-4 on every node
(0 very negative, 2 neutral, 4 very positive), words as pre-terminals
``(label word)``, tokens separated by single spaces, ``\\n`` line ends.

Everything is written here: a small grammar of movie-review sentences over
hand-made word lists and invented names (syllable combinations, no real
people or films). Node labels are **composed from the children** by rules
that make trees differ in how compositional they are:

* words carry a lexicon label (adjectives, sentiment nouns and verbs polar,
  everything else 2);
* a plain phrase takes the mean of its polar (non-2) children, rounded;
* an intensifier ("very", "remarkably") pushes a polar phrase one step
  outward, a downtoner ("somewhat") one step toward 2;
* a negation ("not", "never", "hardly") flips the polarity (4, 3 -> 1;
  1, 0 -> 3; 2 -> 2);
* "X , but Y" is mostly Y: round(0.25 X + 0.75 Y);
* noise: each inner node moves one step up or down with probability
  ``NODE_NOISE``, and with probability ``ROOT_SWITCH`` a sentence's root gets
  a label unrelated to its parts (irony, idiom: the non-compositional cases).

Sentences come from eight templates (copula judgements, verb phrases with
objects, contrasts, fragments, credits, comparisons, two-word sentences such
as "Cool ?" and a few one-word sentences), a third of them followed by a cast
list of invented names. The grammar ignores number agreement and do-support
("The hours spends", "does not tells"): the trees and their labels are what
the experiment uses, not the polish of the English. Generation is deterministic: one
``random.Random(SEED)``; duplicates are dropped in insertion order, so two
runs give byte-identical files (a test checks it).

Usage::

    python data/trees/make_trees.py [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

SEED = 20261122
OUT_DIR = Path(__file__).resolve().parent
SPLITS = {"train": 1200, "dev": 600, "test": 400}
NODE_NOISE = 0.06
ROOT_SWITCH = 0.05

# ---------------------------------------------------------------------------
# Lexicon: word -> label. Written for this project.
# ---------------------------------------------------------------------------

ADJ = {
    4: "brilliant superb wonderful magnificent stunning extraordinary masterful exhilarating glorious dazzling "
       "breathtaking sublime flawless luminous riveting triumphant marvelous exquisite astonishing electrifying "
       "spellbinding transcendent radiant miraculous phenomenal",
    3: "good fine charming funny clever warm witty enjoyable engaging touching lively smart sweet solid likable "
       "pleasant entertaining affecting thoughtful moving tender sharp elegant vivid inventive heartfelt playful "
       "gentle graceful honest intelligent absorbing appealing bright fresh lovely rich sincere sturdy tasteful "
       "winning amusing sober poignant",
    2: "long new old young french american small large quiet late early short modern recent familiar second "
       "final first whole documentary animated historical political domestic rural urban foreign silent "
       "black white european british local national musical literal visual",
    1: "dull weak flat bland slow tedious clumsy shallow predictable tired muddled thin awkward forgettable "
       "sloppy stale labored lazy uneven bloated overlong contrived generic hollow murky choppy trite "
       "pretentious listless plodding preachy mediocre silly cheap",
    0: "awful terrible dreadful horrible atrocious abysmal painful unwatchable worthless disastrous miserable "
       "insufferable excruciating wretched pathetic incompetent dismal inept ghastly putrid",
}
NOUN = {
    4: "masterpiece triumph gem marvel delight treasure",
    3: "charm wit warmth pleasure joy grace heart humor spark beauty insight energy",
    2: "film movie picture story plot script cast director actor actress performance scene ending "
       "character dialogue camera music score soundtrack comedy drama thriller documentary romance "
       "sequel remake adaptation premise tale chronicle portrait journey family father mother son "
       "daughter brother sister town city village house war summer winter night morning country river "
       "island school office kitchen garden road train ship hotel restaurant audience viewer critic "
       "screen studio festival budget camera editing lighting costume set location setting effect "
       "moment hour minute year decade era generation story-line subplot flashback voice narrator "
       "hero villain friend stranger lover couple child teenager soldier detective doctor teacher "
       "student writer painter singer dancer musician farmer priest lawyer judge policeman king queen "
       "prince princess ghost monster robot alien dog cat horse bird animal game court case time account "
       "sense coda survivor regime extradition chess head world life death love memory dream truth "
       "history future past idea theme message point question answer problem twist surprise mystery "
       "secret letter photograph song dance party wedding funeral trip visit return escape chase fight "
       "battle storm fire water light shadow color sound silence word name face hand eye kiss smile",
    1: "mess bore letdown misfire chore slog cliche failure",
    0: "disaster catastrophe travesty embarrassment",
}
VERB = {  # base forms; third person -s and past -ed forms are generated
    3: "delight charm amuse captivate enchant reward impress please thrill",
    2: "follow show tell watch film start open end visit return travel move turn follow cover "
       "explore examine present offer feature include introduce split spend trace track record "
       "describe recount portray depict mix blend combine stage shoot frame build",
    1: "bore tire disappoint annoy confuse drag",
    0: "insult waste",
}
INTENSIFIERS = "very really extremely remarkably truly utterly deeply wildly thoroughly genuinely".split()
DOWNTONERS = "somewhat slightly fairly rather mildly".split()
NEGATIONS = "not never hardly".split()
CONTRASTS = "but yet".split()
DETS = "the a this its".split()
PREPS = "of in about with from among".split()
ADVERB_SETTINGS = "today tonight here now again".split()

ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr gr st tr sh ch th".split()
VOWELS = "a e i o u ai ei ou ia".split()
CODAS = ["", "n", "l", "r", "s", "th", "m", "ck", "nd", "rt", "x", "z"]


def _lexicon(groups: dict[int, str]) -> list[tuple[str, int]]:
    return [(w, label) for label, words in groups.items() for w in words.split()]


def _inflect(verb: str) -> tuple[str, str]:
    if verb.endswith("e"):
        return verb + "s", verb + "d"
    if verb.endswith(("sh", "ch", "x", "s")):
        return verb + "es", verb + "ed"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies", verb[:-1] + "ied"
    if verb in ("split", "shoot"):
        return verb + "s", {"split": "split", "shoot": "shot"}[verb]
    return verb + "s", verb + "ed"


def _plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith("f"):
        return noun[:-1] + "ves"
    return noun + "s"


class Grammar:
    """The word lists, the invented names, and one random generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.adj = _lexicon(ADJ)
        self.polar_adj = [a for a in self.adj if a[1] != 2]
        nouns = _lexicon(NOUN)
        self.nouns = nouns + [(_plural(w), label) for w, label in nouns if label == 2]
        self.neutral_nouns = [n for n in self.nouns if n[1] == 2]
        self.plurals = {_plural(w) for w, label in nouns if label == 2}
        self.verbs = [(f, label) for w, label in _lexicon(VERB) for f in (w, *_inflect(w))]
        self.tverbs = [(_inflect(w)[0], label) for w, label in _lexicon(VERB)]
        names: list[str] = []
        seen = set()
        while len(names) < 3000:
            parts = [self.rng.choice(ONSETS) + self.rng.choice(VOWELS) + self.rng.choice(CODAS)
                     for _ in range(self.rng.choice((2, 2, 3)))]
            name = "".join(parts).capitalize()
            if name not in seen:
                seen.add(name)
                names.append(name)
        self.names = names

    # -- labels -------------------------------------------------------------
    def noisy(self, label: int) -> int:
        if self.rng.random() < NODE_NOISE:
            label += self.rng.choice((-1, 1))
        return min(4, max(0, label))

    @staticmethod
    def plain(*labels: int) -> int:
        polar = [x for x in labels if x != 2]
        return round(sum(polar) / len(polar)) if polar else 2

    @staticmethod
    def intensify(x: int) -> int:
        return min(4, x + 1) if x > 2 else (max(0, x - 1) if x < 2 else 2)

    @staticmethod
    def soften(x: int) -> int:
        return x - 1 if x > 2 else (x + 1 if x < 2 else 2)

    @staticmethod
    def negate(x: int) -> int:
        return {0: 3, 1: 3, 2: 2, 3: 1, 4: 1}[x]

    @staticmethod
    def contrast(x: int, y: int) -> int:
        return round(0.25 * x + 0.75 * y)

    # -- nodes: (label, children) or (label, word) ---------------------------
    def word(self, w: str, label: int = 2):
        return (label, w)

    def node(self, label: int, *children):
        return (self.noisy(label), children)

    def pick(self, items):
        return self.rng.choice(items)

    def adjp(self, polar_bias: float = 0.7):
        """An adjective with an optional intensifier, downtoner or negation."""
        pool = self.polar_adj if self.rng.random() < polar_bias else self.adj
        a = self.word(*self.pick(pool))
        r = self.rng.random()
        if r < 0.2:
            return self.node(self.intensify(a[0]), self.word(self.pick(INTENSIFIERS)), a)
        if r < 0.3:
            return self.node(self.soften(a[0]), self.word(self.pick(DOWNTONERS)), a)
        return a

    def np(self, with_adj: float = 0.5):
        """Determiner, optional adjective phrase, noun; sometimes a name's possessive."""
        n = self.word(*self.pick(self.nouns if self.rng.random() < 0.3 else self.neutral_nouns))
        if self.rng.random() < with_adj:
            a = self.adjp()
            n = self.node(self.plain(a[0], n[0]), a, n)
        if self.rng.random() < 0.35:
            owner = self.node(2, self.word(self.pick(self.names)), self.word("'s"))
            return self.node(self.plain(owner[0], n[0]), owner, n)
        plural = n[1] in self.plurals if isinstance(n[1], str) else False
        return self.node(n[0], self.word(self.pick(("the", "its", "these") if plural else DETS)), n)

    def pp_np(self):
        """An NP with an optional prepositional phrase ("a portrait of the town")."""
        head = self.np()
        if self.rng.random() < 0.35:
            pp = self.np(with_adj=0.3)
            pp = self.node(pp[0], self.word(self.pick(PREPS)), pp)
            return self.node(self.plain(head[0], pp[0]), head, pp)
        return head

    def copula(self):
        """'the film is (not) very good' -> VP label from the adjective phrase."""
        a = self.adjp(0.9)
        be = self.word(self.pick(("is", "was", "feels", "seems")))
        if self.rng.random() < 0.3:
            neg = self.word(self.pick(NEGATIONS))
            a = self.node(self.negate(a[0]), neg, a)
        vp = self.node(a[0], be, a)
        subj = self.pp_np()
        return self.node(self.plain(subj[0], vp[0]) if vp[0] == 2 else vp[0], subj, vp)

    def transitive(self):
        """'NAME 's new film charms the audience' -> mean of polar parts."""
        v = self.word(*self.pick(self.tverbs))
        obj = self.pp_np()
        vp = self.node(self.plain(v[0], obj[0]), v, obj)
        if self.rng.random() < 0.2:
            neg = self.node(2, self.word(self.pick(("does", "did"))), self.word("not"))
            vp = self.node(self.negate(vp[0]), neg, vp)
        if self.rng.random() < 0.2:
            adv = self.word(self.pick(ADVERB_SETTINGS))
            vp = self.node(vp[0], vp, adv)
        subj = self.np()
        return self.node(self.plain(subj[0], vp[0]), subj, vp)

    def person(self):
        """An invented first and last name."""
        return self.node(2, self.word(self.pick(self.names)), self.word(self.pick(self.names)))

    def cast(self):
        """', starring NAME NAME and NAME NAME' (neutral, many rare tokens)."""
        people = self.person()
        if self.rng.random() < 0.5:
            people = self.node(2, people, self.node(2, self.word("and"), self.person()))
        head = self.node(2, self.word(self.pick(("starring", "with", "featuring"))), people)
        return self.node(2, self.word(","), head)

    def clause(self):
        return self.copula() if self.rng.random() < 0.55 else self.transitive()

    def contrast_clause(self):
        """'X , but Y' with the SST shape ((X ,) (but Y))."""
        x, y = self.clause(), self.clause()
        left = self.node(x[0], x, self.word(","))
        right = self.node(y[0], self.word(self.pick(CONTRASTS)), y)
        return self.node(self.contrast(x[0], y[0]), left, right)

    def fragment(self):
        """'A sober and affecting chronicle of the town' (no verb)."""
        a1, a2 = self.adjp(), self.adjp()
        coord = self.node(self.plain(a1[0], a2[0]), a1, self.node(a2[0], self.word("and"), a2))
        n = self.word(*self.pick(self.neutral_nouns))
        head = self.node(self.plain(coord[0], n[0]), coord, n)
        if self.rng.random() < 0.6:
            pp = self.np(with_adj=0.3)
            head = self.node(self.plain(head[0], pp[0]), head, self.node(pp[0], self.word("of"), pp))
        return self.node(head[0], self.word(self.pick(("A", "An", "One"))), head)

    def credits(self):
        """'Directed by NAME NAME , the film is ...' (many rare name tokens)."""
        who = self.person()
        by = self.node(2, self.word(self.pick(("Directed", "Written", "Produced"))),
                       self.node(2, self.word("by"), who))
        c = self.clause()
        return self.node(c[0], self.node(2, by, self.word(",")), c)

    def comparison(self):
        """'the sequel is more X than the original' style: label from the adjective."""
        a = self.adjp(1.0)
        more = self.node(a[0], self.word("more"), a)
        than = self.node(2, self.word("than"), self.np(with_adj=0.0))
        vp = self.node(a[0], self.word("is"), self.node(a[0], more, than))
        subj = self.np(with_adj=0.0)
        return self.node(vp[0], subj, vp)

    def short(self):
        """Two-word sentences: 'Cool ?', 'Brilliant !' (punctuation can flip or keep)."""
        w, label = self.pick(self.polar_adj)
        mark, flip = self.pick(((".", False), ("!", False), ("?", True)))
        root = self.node(2 if flip and self.rng.random() < 0.5 else label, self.word(w.capitalize(), label),
                         self.word(mark))
        return root

    def sentence(self):
        r = self.rng.random()
        if r < 0.008:
            w, label = self.pick(self.polar_adj)
            return self.word(w.capitalize(), label)  # a one-word sentence
        if r < 0.04:
            return self.short()
        if r < 0.36:
            body = self.clause()
        elif r < 0.58:
            body = self.contrast_clause()
        elif r < 0.73:
            body = self.fragment()
        elif r < 0.86:
            body = self.credits()
        else:
            body = self.comparison()
        if self.rng.random() < 0.35:
            body = self.node(body[0], body, self.cast())
        root = self.node(body[0], body, self.word("."))
        if self.rng.random() < ROOT_SWITCH:
            root = (self.rng.choice([x for x in range(5) if x != root[0]]), root[1])
        return root


def _capitalize_first(tree) -> tuple:
    label, rest = tree
    if isinstance(rest, str):
        return (label, rest[:1].upper() + rest[1:])
    return (label, (_capitalize_first(rest[0]), *rest[1:]))


def leaves(tree) -> str:
    """The sentence: words left to right, joined by spaces."""
    label, rest = tree
    return rest if isinstance(rest, str) else " ".join(leaves(c) for c in rest)


def to_ptb(tree) -> str:
    """``(label word)`` or ``(label child child ...)``."""
    label, rest = tree
    if isinstance(rest, str):
        return f"({label} {rest})"
    return f"({label} " + " ".join(to_ptb(c) for c in rest) + ")"


def generate(seed: int = SEED) -> dict[str, list[str]]:
    """The three splits as lists of PTB lines (no duplicate sentences across splits)."""
    grammar = Grammar(seed)
    lines: list[str] = []
    seen: set[str] = set()
    total = sum(SPLITS.values())
    while len(lines) < total:
        tree = _capitalize_first(grammar.sentence())
        if leaves(tree) not in seen:
            seen.add(leaves(tree))
            lines.append(to_ptb(tree))
    out, start = {}, 0
    for split, n in SPLITS.items():
        out[split] = lines[start:start + n]
        start += n
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for split, lines in generate().items():
        (args.out_dir / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
