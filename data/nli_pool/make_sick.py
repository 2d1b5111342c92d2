"""Generate the bundled natural-inference pool ``SICK.txt`` in the real SICK format.

SICK (Marelli et al. 2014) is the corpus Fu & Frank (2023) draw their natural
inferences from. This file stands in for it: every sentence is written here
from hand-made templates and word lists (short everyday scenes such as "A boy
is jumping into the water"); nothing is copied from SICK, Flickr or any other
corpus. It has the real ``SICK.txt`` layout, so :func:`mtlib.data.sick.load_sick`
and :func:`mtlib.experiments.seti.extract_natural_inferences` read both:

* tab-separated, CRLF line ends, header ``pair_ID sentence_A sentence_B
  entailment_label relatedness_score entailment_AB entailment_BA
  sentence_A_original sentence_B_original sentence_A_dataset
  sentence_B_dataset SemEval_set``;
* ``entailment_label`` (A to B) in ENTAILMENT / NEUTRAL / CONTRADICTION;
  ``entailment_AB`` in ``A_entails_B`` / ``A_neutral_B`` / ``A_contradicts_B``
  and ``entailment_BA`` in ``B_entails_A`` / ``B_neutral_A`` /
  ``B_contradicts_A``; ``SemEval_set`` in TRAIN / TRIAL / TEST;
  ``*_dataset`` is ``MTLIB`` (the real file says FLICKR or SEMEVAL).

The pairs come in four families:

* **lexical**: B is A with one word substituted. The relation of the word pair
  fixes both directions: synonym (entailed both ways), hypernym (A to B
  entailed, B to A neutral; ``boy -> kid``), hyponym (the reverse), antonym or
  co-hyponym (contradiction both ways; ``man -> woman``, ``sitting ->
  standing``) and an unrelated other word (neutral both ways; ``park ->
  garden``);
* **structural**: one side active, the other passive ("A man is driving a car"
  / "A car is being driven by a man"): same roles (entailed both ways),
  swapped roles (contradiction) or changed content (one noun replaced,
  neutral);
* **unrelated**: two scenes sharing nothing in particular (neutral);
* **distractors** the extractor must skip: two words substituted, only the
  determiner changed, a negation inserted.

Generation is deterministic: one ``random.Random(SEED)`` drives every choice,
candidates are de-duplicated in insertion order, and two runs give byte-identical
output.

Usage::

    python data/nli_pool/make_sick.py [--out PATH]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

SEED = 20230709
DEFAULT_OUT = Path(__file__).resolve().parent / "SICK.txt"
HEADER = [
    "pair_ID",
    "sentence_A",
    "sentence_B",
    "entailment_label",
    "relatedness_score",
    "entailment_AB",
    "entailment_BA",
    "sentence_A_original",
    "sentence_B_original",
    "sentence_A_dataset",
    "sentence_B_dataset",
    "SemEval_set",
]

# How many pairs of each family to write (the lexical quota is split over the relations below).
QUOTAS = {"lexical": 900, "structural": 330, "unrelated": 160, "distractor": 110}
LEXICAL_SHARES = {"syn": 0.2, "hyper": 0.25, "hypo": 0.1, "anto": 0.25, "other": 0.2}

# Label of (A -> B, B -> A) for each relation of the substituted word in B to the one in A.
LABELS = {
    "syn": ("ENTAILMENT", "ENTAILMENT"),
    "hyper": ("ENTAILMENT", "NEUTRAL"),
    "hypo": ("NEUTRAL", "ENTAILMENT"),
    "anto": ("CONTRADICTION", "CONTRADICTION"),
    "other": ("NEUTRAL", "NEUTRAL"),
    "same": ("ENTAILMENT", "ENTAILMENT"),
    "swapped": ("CONTRADICTION", "CONTRADICTION"),
    "changed": ("NEUTRAL", "NEUTRAL"),
    "unrelated": ("NEUTRAL", "NEUTRAL"),
}
RELATEDNESS = {
    "syn": (4.6, 5.0),
    "hyper": (4.0, 4.8),
    "hypo": (4.0, 4.8),
    "anto": (3.2, 4.1),
    "other": (3.0, 3.9),
    "same": (4.7, 5.0),
    "swapped": (3.6, 4.4),
    "changed": (3.0, 3.8),
    "unrelated": (1.0, 2.2),
    "distractor": (2.8, 4.2),
}

# ---------------------------------------------------------------------------
# Word lists: (word, [(other word, relation of other word to word)])
# ---------------------------------------------------------------------------

SUBJECTS: dict[str, list[tuple[str, str]]] = {
    "boy": [("kid", "hyper"), ("child", "hyper"), ("girl", "anto"), ("person", "hyper")],
    "girl": [("kid", "hyper"), ("child", "hyper"), ("boy", "anto"), ("person", "hyper")],
    "man": [("guy", "syn"), ("person", "hyper"), ("woman", "anto"), ("boy", "other")],
    "woman": [("lady", "syn"), ("person", "hyper"), ("man", "anto"), ("girl", "other")],
    "kid": [("child", "syn"), ("boy", "hypo"), ("girl", "hypo"), ("adult", "anto")],
    "child": [("kid", "syn"), ("boy", "hypo"), ("girl", "hypo"), ("adult", "anto")],
    "dog": [("animal", "hyper"), ("puppy", "hypo"), ("cat", "anto"), ("horse", "other")],
    "puppy": [("dog", "hyper"), ("animal", "hyper"), ("kitten", "anto")],
    "cat": [("animal", "hyper"), ("kitten", "hypo"), ("dog", "anto"), ("bird", "other")],
    "guy": [("man", "syn"), ("person", "hyper"), ("lady", "anto")],
    "lady": [("woman", "syn"), ("person", "hyper"), ("guy", "anto")],
    "player": [("athlete", "hyper"), ("person", "hyper"), ("referee", "other")],
    "musician": [("person", "hyper"), ("artist", "hyper"), ("dancer", "other")],
    "chef": [("cook", "syn"), ("person", "hyper"), ("waiter", "other")],
}
# Human subjects may do anything; animals only the activities marked for them.
ANIMALS = {"dog", "puppy", "cat", "animal", "kitten", "horse", "bird"}
ADJECTIVES: dict[str, list[tuple[str, str]]] = {
    "young": [("little", "other"), ("old", "anto")],
    "old": [("elderly", "syn"), ("young", "anto")],
    "little": [("small", "syn"), ("big", "anto")],
    "big": [("large", "syn"), ("little", "anto")],
    "tall": [("short", "anto"), ("thin", "other")],
    "happy": [("cheerful", "syn"), ("sad", "anto")],
    "brown": [("black", "anto"), ("white", "anto")],
    "black": [("brown", "anto"), ("dark", "hyper")],
}
ADJ_FOR = {
    "young": "H",
    "old": "HA",
    "little": "HA",
    "big": "HA",
    "tall": "H",
    "happy": "HA",
    "brown": "A",
    "black": "A",
}
VERBS: dict[str, list[tuple[str, str]]] = {
    "jumping": [("leaping", "syn"), ("moving", "hyper"), ("diving", "other")],
    "running": [("moving", "hyper"), ("sprinting", "hypo"), ("walking", "anto"), ("racing", "syn")],
    "walking": [("strolling", "syn"), ("moving", "hyper"), ("running", "anto")],
    "sitting": [("standing", "anto"), ("resting", "hyper"), ("lying", "anto")],
    "standing": [("sitting", "anto"), ("waiting", "other")],
    "playing": [("sleeping", "anto"), ("fighting", "other"), ("resting", "anto")],
    "swimming": [("floating", "other"), ("drowning", "other"), ("paddling", "hyper")],
    "smiling": [("grinning", "syn"), ("frowning", "anto"), ("crying", "anto")],
    "laughing": [("giggling", "syn"), ("crying", "anto"), ("smiling", "other")],
    "dancing": [("moving", "hyper"), ("singing", "other"), ("sitting", "anto")],
    "resting": [("sleeping", "hypo"), ("relaxing", "syn"), ("working", "anto")],
    "climbing": [("descending", "anto"), ("moving", "hyper"), ("sitting", "anto")],
}
VERB_FOR = {
    "jumping": "HA",
    "running": "HA",
    "walking": "HA",
    "sitting": "HA",
    "standing": "HA",
    "playing": "HA",
    "swimming": "HA",
    "smiling": "H",
    "laughing": "H",
    "dancing": "H",
    "resting": "HA",
    "climbing": "HA",
}
# Places: (preposition, noun) with relations of the noun.
PLACES: dict[str, list[tuple[str, str]]] = {
    "water": [("lake", "hypo"), ("pool", "hypo"), ("sand", "other")],
    "park": [("garden", "other"), ("forest", "other"), ("street", "other")],
    "beach": [("shore", "syn"), ("desert", "other"), ("field", "other")],
    "road": [("street", "syn"), ("path", "other"), ("river", "other")],
    "field": [("meadow", "syn"), ("yard", "other"), ("stage", "other")],
    "snow": [("grass", "other"), ("mud", "other"), ("ice", "other")],
    "grass": [("lawn", "syn"), ("snow", "other"), ("sand", "other")],
    "house": [("building", "hyper"), ("cottage", "hypo"), ("shop", "other")],
    "kitchen": [("room", "hyper"), ("garage", "other")],
    "stage": [("platform", "hyper"), ("street", "other")],
    "bench": [("seat", "hyper"), ("chair", "other"), ("sofa", "other")],
    "rock": [("stone", "syn"), ("wall", "other"), ("tree", "other")],
    "tree": [("oak", "hypo"), ("plant", "hyper"), ("rock", "other")],
}
# Activity frames: verb -> list of (preposition, place) it combines with.
FRAMES: dict[str, list[tuple[str, str]]] = {
    "jumping": [("into the", "water"), ("on the", "grass"), ("off the", "rock"), ("over the", "bench")],
    "running": [
        ("in the", "park"),
        ("along the", "beach"),
        ("across the", "field"),
        ("down the", "road"),
        ("through the", "snow"),
    ],
    "walking": [("in the", "park"), ("along the", "beach"), ("down the", "road"), ("through the", "snow")],
    "sitting": [("on the", "bench"), ("on the", "grass"), ("in the", "kitchen"), ("on the", "rock")],
    "standing": [("on the", "stage"), ("in the", "kitchen"), ("near the", "tree"), ("in front of the", "house")],
    "playing": [("in the", "snow"), ("in the", "park"), ("on the", "beach"), ("in the", "field"), ("in the", "grass")],
    "swimming": [("in the", "water")],
    "smiling": [("on the", "stage"), ("in the", "kitchen"), ("near the", "tree"), ("in the", "park")],
    "laughing": [("in the", "kitchen"), ("on the", "beach"), ("in front of the", "house")],
    "dancing": [("on the", "stage"), ("in the", "kitchen"), ("on the", "beach"), ("in the", "field")],
    "resting": [("on the", "bench"), ("under the", "tree"), ("on the", "grass"), ("in the", "house")],
    "climbing": [("up the", "tree"), ("up the", "rock"), ("onto the", "stage")],
}

# Transitive verbs for active/passive pairs: (present participle, past participle, agents, patients).
HUMANS = ["man", "woman", "boy", "girl", "chef", "player", "kid", "lady", "guy", "musician"]
TRANSITIVE: list[tuple[str, str, list[str], list[str]]] = [
    ("driving", "driven", HUMANS, ["car", "truck", "bus", "tractor"]),
    ("riding", "ridden", HUMANS, ["horse", "bike", "motorcycle", "wave"]),
    ("slicing", "sliced", HUMANS, ["potato", "tomato", "onion", "carrot", "bread"]),
    ("cutting", "cut", HUMANS, ["paper", "onion", "cake", "rope"]),
    ("peeling", "peeled", HUMANS, ["potato", "banana", "orange", "carrot"]),
    ("eating", "eaten", HUMANS + ["dog", "cat"], ["pizza", "apple", "sandwich", "banana"]),
    ("kicking", "kicked", HUMANS, ["ball", "door", "box"]),
    ("throwing", "thrown", HUMANS, ["ball", "stick", "frisbee", "stone"]),
    ("catching", "caught", HUMANS + ["dog"], ["ball", "frisbee", "fish"]),
    ("holding", "held", HUMANS, ["baby", "umbrella", "guitar", "cup"]),
    ("playing", "played", HUMANS, ["guitar", "piano", "flute", "drum"]),
    ("reading", "read", HUMANS, ["book", "newspaper", "letter"]),
    ("washing", "washed", HUMANS, ["dog", "car", "dish", "window"]),
    ("carrying", "carried", HUMANS, ["box", "bag", "baby", "ladder"]),
    ("pushing", "pushed", HUMANS, ["cart", "stroller", "car", "swing"]),
    ("chopping", "chopped", HUMANS, ["onion", "wood", "garlic", "carrot"]),
]
# Agent/patient pairs that read sensibly both ways round (for swapped roles).
ANIMATE_VERBS: list[tuple[str, str]] = [
    ("chasing", "chased"),
    ("following", "followed"),
    ("hugging", "hugged"),
    ("watching", "watched"),
    ("pushing", "pushed"),
    ("kissing", "kissed"),
    ("feeding", "fed"),
    ("biting", "bitten"),
]
ANIMATES = ["man", "woman", "boy", "girl", "dog", "cat", "kid", "detective", "policeman", "baby"]


def article(word: str) -> str:
    return "An" if word[0] in "aeiou" else "A"


def np_(word: str, capital: bool = True) -> str:
    a = article(word)
    return f"{a if capital else a.lower()} {word}"


def scene(subject: str, adj: str | None, verb: str, prep: str, place: str) -> str:
    """``A young boy is jumping into the water``."""
    head = f"{adj} {subject}" if adj else subject
    return f"{np_(head)} is {verb} {prep} {place}"


def build_scenes(rng: random.Random) -> list[tuple[str, str | None, str, str, str]]:
    """Every intransitive scene (subject, adjective, verb, preposition, place), shuffled."""
    out = []
    for subject in SUBJECTS:
        kind = "A" if subject in ANIMALS else "H"
        for verb, frames in FRAMES.items():
            if kind not in VERB_FOR[verb]:
                continue
            for prep, place in frames:
                for adj in [None, *[a for a, k in ADJ_FOR.items() if kind in k]]:
                    out.append((subject, adj, verb, prep, place))
    rng.shuffle(out)
    return out


def lexical_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """``(sentence_A, sentence_B, relation)`` with one word of A substituted in B."""
    quota = {rel: round(share * n) for rel, share in LEXICAL_SHARES.items()}
    quota["other"] += n - sum(quota.values())
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str, str]] = []
    for subject, adj, verb, prep, place in build_scenes(rng):
        if not any(quota.values()):
            break
        slots = []
        slots += [
            ("subject", other, rel)
            for other, rel in SUBJECTS[subject]
            if (other in ANIMALS) == (subject in ANIMALS) or rel in ("hyper", "other")
        ]
        slots += [("verb", other, rel) for other, rel in VERBS[verb]]
        slots += [("place", other, rel) for other, rel in PLACES[place]]
        if adj:
            slots += [("adj", other, rel) for other, rel in ADJECTIVES[adj]]
        slots = [s for s in slots if quota[s[2]] > 0]
        if not slots:
            continue
        slot, other, rel = rng.choice(slots)
        a = scene(subject, adj, verb, prep, place)
        b = scene(
            *{
                "subject": (other, adj, verb, prep, place),
                "verb": (subject, adj, other, prep, place),
                "place": (subject, adj, verb, prep, other),
                "adj": (subject, other, verb, prep, place),
            }[slot]
        )
        if (a, b) in seen or (b, a) in seen:
            continue
        seen.add((a, b))
        quota[rel] -= 1
        out.append((a, b, rel))
    return out


def active(agent: str, ing: str, patient: str) -> str:
    return f"{np_(agent)} is {ing} {np_(patient, False)}"


def passive(agent: str, participle: str, patient: str) -> str:
    return f"{np_(patient)} is being {participle} by {np_(agent, False)}"


def structural_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """Active/passive pairs: same roles, swapped roles (animate verbs) or one noun changed."""
    same, swapped = [], []
    for ing, participle, agents, patients in TRANSITIVE:
        for agent in agents:
            for patient in patients:
                same.append((ing, participle, agent, patient, patients))
    for ing, participle in ANIMATE_VERBS:
        for agent in ANIMATES:
            for patient in ANIMATES:
                if agent != patient:
                    swapped.append((ing, participle, agent, patient))
    rng.shuffle(same)
    rng.shuffle(swapped)
    n_same, n_swapped = round(0.5 * n), round(0.3 * n)
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()

    def add(a: str, b: str, rel: str) -> None:
        if a not in seen and b not in seen:
            seen.update((a, b))
            out.append((a, b, rel) if rng.random() < 0.5 else (b, a, rel))

    for ing, participle, agent, patient, _ in same[:n_same]:
        add(active(agent, ing, patient), passive(agent, participle, patient), "same")
    for ing, participle, agent, patient in swapped[:n_swapped]:
        add(active(agent, ing, patient), passive(patient, participle, agent), "swapped")
    for ing, participle, agent, patient, patients in same[n_same:]:
        if len(out) >= n:
            break
        other = rng.choice([p for p in patients if p != patient])
        add(active(agent, ing, patient), passive(agent, participle, other), "changed")
    return out


def unrelated_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """Two scenes with a different subject, verb and place."""
    scenes = build_scenes(rng)
    out: list[tuple[str, str, str]] = []
    for (s1, a1, v1, p1, l1), (s2, a2, v2, p2, l2) in zip(scenes[::2], scenes[1::2]):
        if len(out) >= n:
            break
        if s1 != s2 and v1 != v2 and l1 != l2:
            out.append((scene(s1, a1, v1, p1, l1), scene(s2, a2, v2, p2, l2), "unrelated"))
    return out


def distractor_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str, str]]:
    """Pairs a one-substitution or active/passive rule must skip: ``(A, B, label_AB, label_BA)``."""
    out: list[tuple[str, str, str, str]] = []
    for subject, adj, verb, prep, place in build_scenes(rng):
        if len(out) >= n:
            break
        a = scene(subject, adj, verb, prep, place)
        kind = len(out) % 3
        if kind == 0:  # two words substituted
            other_s = SUBJECTS[subject][0][0]
            other_p = PLACES[place][-1][0]
            out.append((a, scene(other_s, adj, verb, prep, other_p), "NEUTRAL", "NEUTRAL"))
        elif kind == 1:  # only the determiner differs
            out.append((a, "The " + a.split(" ", 1)[1], "ENTAILMENT", "ENTAILMENT"))
        else:  # negation inserted
            out.append((a, a.replace(" is ", " is not ", 1), "CONTRADICTION", "CONTRADICTION"))
    return out


def entailment_ab(label: str) -> str:
    return {"ENTAILMENT": "A_entails_B", "NEUTRAL": "A_neutral_B", "CONTRADICTION": "A_contradicts_B"}[label]


def entailment_ba(label: str) -> str:
    return {"ENTAILMENT": "B_entails_A", "NEUTRAL": "B_neutral_A", "CONTRADICTION": "B_contradicts_A"}[label]


def generate() -> list[list[str]]:
    """All rows (without the header), in file order."""
    rng = random.Random(SEED)
    rows: list[tuple[str, str, str, str, str]] = []
    for a, b, rel in lexical_pairs(rng, QUOTAS["lexical"]):
        rows.append((a, b, *LABELS[rel], rel))
    for a, b, rel in structural_pairs(rng, QUOTAS["structural"]):
        rows.append((a, b, *LABELS[rel], rel))
    for a, b, rel in unrelated_pairs(rng, QUOTAS["unrelated"]):
        rows.append((a, b, *LABELS[rel], rel))
    for a, b, ab, ba in distractor_pairs(rng, QUOTAS["distractor"]):
        rows.append((a, b, ab, ba, "distractor"))
    rng.shuffle(rows)
    out = []
    for i, (a, b, ab, ba, rel) in enumerate(rows, start=1):
        lo, hi = RELATEDNESS[rel]
        score = f"{rng.uniform(lo, hi):.1f}"
        split = rng.choices(["TRAIN", "TRIAL", "TEST"], weights=[45, 5, 50])[0]
        out.append([str(i), a, b, ab, score, entailment_ab(ab), entailment_ba(ba), a, b, "MTLIB", "MTLIB", split])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    lines = ["\t".join(HEADER)] + ["\t".join(row) for row in generate()]
    args.out.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    print(f"wrote {len(lines) - 1} pairs to {args.out}")


if __name__ == "__main__":
    main()
