"""Generate the bundled Yelp-style sentiment-transfer dataset (``data/yelp_style/``).

The files stand in for the Li et al. (2018) Yelp data and use its formats:

* ``sentiment.{train,dev,test}.{0,1}``: one review sentence per line, lower-cased
  and space-tokenised the way the real files are (``it 's``, ``did n't``,
  punctuation split off); ``.0`` negative, ``.1`` positive;
* ``reference.0``: ``source<TAB>rewrite`` per line, every negative test
  sentence with a rewrite meant to be positive; ``reference.1`` the reverse.

Every sentence is written here from hand-made templates and word lists about
restaurants and local businesses; nothing is copied from Yelp or any other
corpus, and no real business or person is named. About 10% of the sentences
carry their polarity through a negation ("the soup was not bland") and 15%
join two clauses of opposite polarity where the last decides ("the soup was
bland , but the waiter was lovely ."), which a bag of words cannot resolve. A single
``random.Random(SEED)`` drives every choice, so two runs give byte-identical
files.

The rewrites imitate the kinds of output a sentiment-transfer model gives, so
that the PSS cleaning rules (Bhathena et al., Appendix B) have work to do:

* ``swap`` -- the sentiment words replaced by words of the other polarity,
  content kept (the good case, about 60%);
* ``content`` -- polarity swapped but a content word changed too (a different
  dish, aspect or business), the error Appendix B says adding-words cannot catch;
* ``retrieve`` -- an unrelated sentence of the target polarity;
* ``no_flip`` -- an intensifier added, polarity unchanged (a failed switch that
  still adds a word);
* ``copy`` -- the source unchanged (some differ only in case or spacing);
* ``delete`` -- words only removed: a dropped ``not``, a dropped sentiment word,
  a truncated clause.

The kind of each rewrite is not written to the files (a real reference file
does not carry it); :func:`generate` returns it for the tests.

Usage::

    python data/yelp_style/make_yelp_style.py [--out DIR]
"""

from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

SEED = 20181105
DEFAULT_OUT = Path(__file__).resolve().parent

POS, NEG = 1, 0
#: Sentences per split and label.
SIZES = {"train": 2000, "dev": 100, "test": 400}
#: Share of each rewrite kind in the reference files (the rest are ``swap``).
REWRITE_MIX = {"content": 0.10, "retrieve": 0.05, "no_flip": 0.05, "copy": 0.08, "delete": 0.12}

# --------------------------------------------------------------------------
# Word lists (neutral slots)
# --------------------------------------------------------------------------

NEUTRAL: dict[str, list[str]] = {
    "biz": ["place", "restaurant", "spot", "diner", "cafe", "bakery", "bar", "pizzeria", "taqueria", "deli",
            "salon", "hotel", "car wash", "pharmacy", "gym", "dentist office", "auto shop", "grocery store",
            "coffee shop", "sushi place", "buffet", "bistro", "food truck", "nail salon", "pet store",
            "dry cleaner", "bookstore", "brewery", "steakhouse", "ramen shop"],
    "food_biz": ["restaurant", "diner", "cafe", "bakery", "pizzeria", "taqueria", "deli", "buffet", "bistro",
                 "steakhouse", "ramen shop", "sushi place", "food truck", "burger joint", "thai place"],
    "dish": ["pizza", "burger", "pad thai", "fried rice", "carne asada", "chicken sandwich", "salad",
             "clam chowder", "pho", "ramen", "sushi roll", "steak", "pasta", "lasagna", "fish taco",
             "burrito", "omelette", "french toast", "quesadilla", "banh mi", "pulled pork", "brisket", "curry",
             "chow mein", "gyro", "falafel", "meatball sub", "cheesecake", "brownie", "tiramisu", "soup",
             "garlic bread", "tuna melt", "meatloaf", "fried chicken", "mac and cheese", "calamari",
             "orange chicken", "bagel", "croissant", "salsa", "guacamole", "bread", "coffee", "iced tea",
             "margarita", "club sandwich", "short rib", "pork chop", "veggie burger"],
    "staff": ["waitress", "waiter", "server", "bartender", "manager", "owner", "hostess", "cashier",
              "receptionist", "stylist", "mechanic", "front desk clerk", "pharmacist", "chef", "delivery guy",
              "technician", "lady at the counter", "guy at the register"],
    "aspect": ["service", "food", "atmosphere", "staff", "decor", "music", "location", "parking", "menu",
               "selection", "patio", "room", "bathroom", "price", "portion", "wine list", "lighting",
               "experience", "customer service", "check in"],
    "person": ["my husband", "my wife", "my friend", "my mom", "my dad", "my boyfriend", "my girlfriend",
               "my sister", "my brother", "my coworker", "my son", "my daughter", "we", "i"],
    "time": ["last night", "on friday", "for lunch", "for brunch", "on my birthday", "last weekend",
             "yesterday", "this morning", "after work", "on a tuesday", "for dinner", "on sunday"],
    "minutes": ["five", "ten", "fifteen", "twenty", "thirty", "forty", "forty five"],
    "city": ["the valley", "town", "the area", "the neighborhood", "the east side", "downtown", "the strip",
             "scottsdale", "the west side", "the old town"],
}

# --------------------------------------------------------------------------
# Polarity slots: (positive fillers, negative fillers)
# --------------------------------------------------------------------------

POLAR: dict[str, tuple[list[str], list[str]]] = {
    "food_adj": (["delicious", "amazing", "fresh", "tasty", "perfect", "excellent", "flavorful", "great",
                  "fantastic", "outstanding", "yummy", "awesome"],
                 ["bland", "cold", "soggy", "terrible", "awful", "disgusting", "stale", "greasy", "overcooked",
                  "tasteless", "dry", "horrible"]),
    "svc_adj": (["friendly", "attentive", "helpful", "quick", "professional", "courteous", "welcoming",
                 "great", "amazing", "polite", "efficient", "wonderful"],
                ["rude", "slow", "unprofessional", "inattentive", "terrible", "awful", "careless",
                 "dismissive", "horrible", "lazy", "incompetent", "unfriendly"]),
    "gen_adj": (["great", "amazing", "excellent", "awesome", "fantastic", "wonderful", "perfect", "nice",
                 "lovely", "superb"],
                ["terrible", "awful", "horrible", "disappointing", "bad", "poor", "mediocre", "lousy",
                 "pathetic", "sad"]),
    "biz_np": (["a gem", "my new favorite", "a great find", "the best in town", "a hidden gem",
                "worth every penny", "a must try", "top notch"],
               ["a disaster", "a joke", "a waste of money", "the worst in town", "a rip off", "a letdown",
                "a total mess", "a huge disappointment"]),
    "return": (["will definitely be back", "will be back soon", "ca n't wait to come back",
                "will be coming back", "will return for sure"],
               ["will not be back", "wo n't be back", "will never come back", "wo n't be returning",
                "will not return"]),
    "recommend": (["highly recommend", "definitely recommend", "would recommend", "totally recommend"],
                  ["would not recommend", "do not recommend", "ca n't recommend", "would never recommend"]),
    "staff_act": (["greeted us with a smile", "checked on us often", "made great suggestions",
                   "went above and beyond", "fixed it right away", "treated us like family",
                   "was happy to help", "answered all my questions"],
                  ["ignored us the whole time", "never checked on us", "rolled her eyes at us",
                   "argued with me", "forgot our order", "treated us like dirt", "hung up on me",
                   "could not be bothered"]),
    "wait": (["our food came out in {minutes} minutes", "they got us in within {minutes} minutes",
              "we were seated right away"],
             ["we waited {minutes} minutes for our food", "it took {minutes} minutes to get a table",
              "we waited over {minutes} minutes just to order"]),
    "price": (["the prices are very reasonable", "great value for the money", "prices are fair",
               "the portions are huge for the price"],
              ["way overpriced for what you get", "the prices are ridiculous", "prices are too high",
               "the portions are tiny for the price"]),
    "feel": (["loved", "enjoyed", "was impressed by", "was blown away by", "really liked"],
             ["hated", "regretted", "was disappointed by", "was grossed out by", "could not stand"]),
    "verdict": (["impressed", "satisfied", "happy"], ["disappointed", "unhappy", "let down"]),
    "clean": (["spotless", "very clean", "clean and bright", "well kept"],
              ["filthy", "dirty", "sticky", "gross"]),
}

#: Words that intensify without changing polarity (used by ``no_flip`` rewrites).
INTENSIFIERS = ["really", "very", "so", "super", "incredibly", "extremely"]

# --------------------------------------------------------------------------
# Templates: {slot} is neutral, {+slot} is a polarity slot of the sentence's
# label, {-slot} one of the opposite polarity. Templates under NEGATED hold a
# "not" that carries the sentiment (used for the removed-"not" rewrites);
# CONTRAST templates join two clauses of opposite polarity, the last decides.
# --------------------------------------------------------------------------

TEMPLATES = [
    "the {dish} was {+food_adj} .",
    "the {dish} here is {+food_adj} .",
    "the {aspect} was {+gen_adj} .",
    "the {aspect} at this {biz} is {+gen_adj} .",
    "our {staff} was {+svc_adj} .",
    "the {staff} was {+svc_adj} and {+svc_adj} .",
    "the {staff} {+staff_act} .",
    "this {biz} is {+biz_np} .",
    "{person} {+feel} the {dish} .",
    "we {+return} .",
    "i {+recommend} this {biz} .",
    "i {+recommend} the {dish} .",
    "{+wait} .",
    "{+price} .",
    "the {dish} was {+food_adj} and the {aspect} was {+gen_adj} .",
    "came here {time} and the {dish} was {+food_adj} .",
    "the bathroom was {+clean} .",
    "the {dish} was {+food_adj} , we {+return} .",
    "went to this {food_biz} {time} and the {staff} {+staff_act} .",
    "{person} ordered the {dish} and it was {+food_adj} .",
    "best {dish} in {city} ? {+biz_np} .",
    "the {staff} was {+svc_adj} , {+price} .",
    "it 's {+biz_np} .",
    "i 've been here {times} times and it 's always {+gen_adj} .",
]
NEGATED = {
    # (label, template): the polarity slot is filled from the *opposite* list.
    POS: ["the {dish} was not {-food_adj} at all .", "the {staff} was n't {-svc_adj} at all .",
          "i was not {-verdict} with the {dish} .", "the {aspect} was not {-gen_adj} ."],
    NEG: ["the {dish} was not {-food_adj} .", "the {staff} was not {-svc_adj} at all .",
          "the {aspect} was n't {-gen_adj} .", "i was not {-verdict} with the {dish} ."],
}
NEUTRAL["times"] = ["two", "three", "four", "five", "six", "a few", "many"]
NEGATION_SHARE = 0.10
#: Two clauses of opposite polarity; the label follows the last one (a bag of words cannot tell).
CONTRAST = [
    "the {dish} was {-food_adj} , but the {staff} was {+svc_adj} .",
    "although the {dish} was {-food_adj} , the {staff} {+staff_act} .",
    "the {aspect} was {-gen_adj} , but overall this {biz} is {+biz_np} .",
    "the {staff} was {-svc_adj} , but the {dish} was {+food_adj} .",
    "{-price} , but the {dish} was {+food_adj} .",
    "the {dish} looked {-food_adj} , but honestly it was {+food_adj} .",
]
CONTRAST_SHARE = 0.15

_SLOT = re.compile(r"\{([+-]?)(\w+)\}")


@dataclass
class Sentence:
    """One generated sentence and what is needed to rewrite it."""

    label: int
    template: str
    fills: list[tuple[str, str, str]] = field(default_factory=list)  # (sign, slot, filler) in order

    def text(self) -> str:
        it = iter(self.fills)
        return _SLOT.sub(lambda m: next(it)[2], self.template)


def _fill(rng: random.Random, slot: str, sign: str, label: int, minutes: str) -> str:
    if not sign:
        return rng.choice(NEUTRAL[slot])
    polarity = label if sign == "+" else 1 - label
    word = rng.choice(POLAR[slot][0 if polarity == POS else 1])
    return word.replace("{minutes}", minutes)


def make_sentence(rng: random.Random, label: int) -> Sentence:
    """Draw one sentence of the given label."""
    r = rng.random()
    family = NEGATED[label] if r < NEGATION_SHARE else CONTRAST if r < NEGATION_SHARE + CONTRAST_SHARE else TEMPLATES
    template = rng.choice(family)
    minutes = rng.choice(NEUTRAL["minutes"])
    sent = Sentence(label, template)
    for m in _SLOT.finditer(template):
        sign, slot = m.group(1), m.group(2)
        sent.fills.append((sign, slot, _fill(rng, slot, sign, label, minutes)))
    return sent


# --------------------------------------------------------------------------
# Rewrites
# --------------------------------------------------------------------------

def swap(rng: random.Random, s: Sentence, change_content: bool = False) -> str:
    """Flip every polarity slot to the other polarity; optionally change one neutral slot."""
    target = 1 - s.label
    minutes = rng.choice(NEUTRAL["minutes"])
    neutral = [i for i, (sign, _, _) in enumerate(s.fills) if not sign]
    changed = rng.choice(neutral) if change_content and neutral else None
    fills = []
    for i, (sign, slot, word) in enumerate(s.fills):
        if sign:
            # a "-" slot (under a negation) takes the polarity opposite to the sentence's
            polarity = target if sign == "+" else 1 - target
            word = rng.choice(POLAR[slot][0 if polarity == POS else 1]).replace("{minutes}", minutes)
        elif i == changed:
            word = rng.choice([w for w in NEUTRAL[slot] if w != word])
        fills.append((sign, slot, word))
    return Sentence(target, s.template, fills).text()


def delete_only(rng: random.Random, s: Sentence) -> str | None:
    """Remove words only: a ``not``/``n't``, a sentiment word, or the last clause."""
    tokens = s.text().split()
    for neg in ("not", "n't"):
        if neg in tokens:
            i = tokens.index(neg)
            return " ".join(tokens[:i] + tokens[i + 1:])
    polar = [(sign, slot, word) for sign, slot, word in s.fills if sign]
    if polar:
        _, _, word = rng.choice(polar)
        text = s.text()
        out = re.sub(rf"(^| ){re.escape(word)}(?= |$)", "", text, count=1).strip()
        if out != text:
            return re.sub(r" +", " ", out)
    if "," in tokens:
        return " ".join(tokens[: tokens.index(",")]) + " ."
    return None


def no_flip(rng: random.Random, s: Sentence) -> str | None:
    """Add an intensifier before a one-word sentiment filler; polarity unchanged."""
    text = s.text()
    words = [w for sign, _, w in s.fills if sign and " " not in w]
    if not words:
        return None
    word = rng.choice(words)
    return re.sub(rf"(^| ){re.escape(word)}(?= |$)", rf"\1{rng.choice(INTENSIFIERS)} {word}", text, count=1)


def rewrite(rng: random.Random, s: Sentence, pool_target: list[str]) -> tuple[str, str]:
    """One rewrite of ``s`` and its kind (see the module docstring)."""
    r = rng.random()
    edges, acc = [], 0.0
    for kind, share in REWRITE_MIX.items():
        acc += share
        edges.append((acc, kind))
    kind = next((k for edge, k in edges if r < edge), "swap")
    text = s.text()
    if kind == "copy":
        variant = rng.random()
        if variant < 0.2:
            return text[:1].upper() + text[1:], kind
        if variant < 0.3:
            return text.replace(" ", "  ", 1) + " ", kind
        return text, kind
    if kind == "delete":
        out = delete_only(rng, s)
        if out and out != text:
            return out, kind
    if kind == "no_flip":
        out = no_flip(rng, s)
        if out:
            return out, kind
    if kind == "retrieve":
        return rng.choice(pool_target), kind
    if kind == "content":
        return swap(rng, s, change_content=True), kind
    return swap(rng, s), "swap"


# --------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------

def generate(seed: int = SEED) -> dict[str, list]:
    """Build every file's lines.

    Returns:
        ``{file name: lines}`` for the sentence files and the reference files,
        plus ``"kinds.0"``/``"kinds.1"``: the rewrite kind of each reference
        line (not written to disk).
    """
    rng = random.Random(seed)
    seen: set[str] = set()
    sentences: dict[int, list[Sentence]] = {POS: [], NEG: []}
    need = sum(SIZES.values())
    for label in (NEG, POS):
        for _ in range(need * 400):
            s = make_sentence(rng, label)
            if s.text() not in seen:
                seen.add(s.text())
                sentences[label].append(s)
                if len(sentences[label]) == need:
                    break
        else:
            raise RuntimeError(f"could not draw {need} unique sentences of label {label}")
    out: dict[str, list] = {}
    for label in (NEG, POS):
        start = 0
        for split in ("train", "dev", "test"):
            part = sentences[label][start:start + SIZES[split]]
            start += SIZES[split]
            out[f"sentiment.{split}.{label}"] = [s.text() for s in part]
    for label in (NEG, POS):
        target_pool = out[f"sentiment.train.{1 - label}"]
        lines, kinds = [], []
        for s in sentences[label][-SIZES["test"]:]:
            text, kind = rewrite(rng, s, target_pool)
            lines.append(f"{s.text()}\t{text}")
            kinds.append(kind)
        out[f"reference.{label}"] = lines
        out[f"kinds.{label}"] = kinds
    return out


def write(files: dict[str, list], out: Path) -> None:
    """Write the sentence and reference files (UTF-8, ``\\n`` line ends)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in files.items():
        if name.startswith("kinds."):
            continue
        with (out / name).open("w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(line + "\n" for line in lines)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed (default: %(default)s)")
    args = parser.parse_args(argv)
    files = generate(args.seed)
    write(files, args.out)
    counts = {k: len(v) for k, v in files.items() if not k.startswith("kinds.")}
    print(f"wrote {sum(counts.values())} lines to {args.out}: {counts}")


if __name__ == "__main__":
    main()
