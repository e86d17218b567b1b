"""Additional training worlds for the zeshel demo, written in more varied styles.

``python scripts/demo_data/make_zeshel_demo.py --extra-worlds N --out DIR`` writes N worlds (all
``train``)
whose names are made from syllables and never equal a name, or a word of a name, of the
validation and test worlds. Their entities are built like the demo's (``WorldBuilder``), but the
passages vary more than the demo's: more mention, clue and filler templates, a clue that may come
*before* the mention ("Among them was a woman who ... . That was Carrow ."), and distractor
sentences quoting a fact of another, explicitly named entity of the world, so that matching any
fact of the context is not enough. The seven demo worlds are unchanged.
"""

import random
from typing import Dict, List, Set

from make_zeshel_demo import Passage, World, build_world, document_file, mention_file
from zeshel_demo_entities import SEED, Entity, article, sentence
from zeshel_demo_text import (
    CLUE_TEMPLATES,
    FILLERS,
    HISTORY,
    MENTION_TEMPLATES,
    WORLDS,
    WorldNames,
)

CLUE_FIRST_RATE = 0.25
DISTRACTOR_RATE = 0.5
LATE_PADDING = 8  # filler sentences after the 16 history sentences of a late-fact description
VESSELS = ["ship", "barge", "airship", "sandship", "engine", "longship", "riverboat", "sledge"]

EXTRA_MENTION_TEMPLATES = [
    "{m} turns up in a ledger kept at {h} .",
    "Among the names linked to {h} is {m} .",
    "A traveller passing through wrote at length about {m} .",
    "{m} was the talk of every market in the year {y} .",
    "Much later , a court heard a case about {m} .",
    "The accounts of {h} list {m} more than once .",
    "Nobody in {h} had a kind word for {m} .",
    "Old maps of the region still show {m} .",
]
EXTRA_CLUE_TEMPLATES = [
    "What is certain is that {ref} {fact} .",
    "It is said that {ref} {fact} .",
    "Everyone agrees on one thing : {ref} {fact} .",
    "According to a later chronicle , {ref} {fact} .",
    "The point is that {ref} {fact} .",
    "Whatever else is told , {ref} {fact} .",
]
EXTRA_FILLERS = [
    "The clerk who wrote it down was paid twice for the work .",
    "A copy was sent to the bishop , who never answered .",
    "That spring the roads were closed by mud for a month .",
    "Two witnesses later changed their stories .",
    "The entry is written in a cramped and hurried hand .",
    "Prices at the fish market doubled that week .",
]
# A clue that comes before the mention names the entity only by its kind.
FORWARD_CLUES = [
    "Among them was {a_noun} that {fact} .",
    "One {noun} in these records {fact} .",
    "The {noun} in question {fact} .",
    "Only one {noun} of the region {fact} .",
]
AFTER_CLUE_MENTIONS = [
    "That was {m} .",
    "The records give the name as {m} .",
    "Later writers call it {m} .",
    "Its name , or at least the name used here , is {m} .",
]
DISTRACTORS = [
    "{Other} , by contrast , {fact} .",
    "At the same time {other} {fact} .",
    "This is not to be confused with {other} , which {fact} .",
    "Meanwhile {other} {fact} .",
]

ONSETS = ["b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "r", "s",
          "st", "t", "th", "v", "w", "z"]
VOWELS = ["a", "e", "i", "o", "u", "ae", "ei", "ou", "y"]
CODAS = ["", "", "n", "r", "l", "s", "th", "m", "ck", "nd", "rk"]
SURNAME_ENDS = ["ley", "wick", "more", "ton", "by", "den", "ard", "ell", "ow", "an"]
MALE_ENDS = ["", "o", "an", "ric", "us"]
FEMALE_ENDS = ["a", "ine", "elle", "is", "wen"]
TOWN_ENDS = ["haven", "ford", "wick", "holm", "by", "mere", "stead", "port", "ness", "bury"]
NATURE_ENDS = ["Reach", "Point", "Sound", "Fell", "Marsh", "Peak", "Shoals", "Deeps"]


def forbidden_names() -> Set[str]:
    """Every name of the validation and test worlds, whole and word by word, lower-cased."""
    names: Set[str] = set()
    for world in WORLDS:
        if world.split == "train":
            continue
        for value in world[2:]:
            for name in [value] if isinstance(value, str) else value:
                names.add(name.lower())
                names.update(word.lower() for word in name.split())
    return names


class NameMaker:
    """Names from syllables, unique within a world and never a validation or test name."""

    def __init__(self, rng: random.Random, forbidden: Set[str]) -> None:
        self.rng = rng
        self.used = set(forbidden)

    def make(self, ends: List[str], syllables: int = 1) -> str:
        while True:
            stem = "".join(self.rng.choice(ONSETS) + self.rng.choice(VOWELS)
                           + self.rng.choice(CODAS) for _ in range(syllables))
            name = (stem + self.rng.choice(ends)).capitalize()
            if name.lower() not in self.used and len(name) > 2:
                self.used.add(name.lower())
                return name

    def many(self, count: int, ends: List[str], syllables: int = 1) -> List[str]:
        return [self.make(ends, syllables) for _ in range(count)]


def extra_world_names(index: int, seed: str = SEED, prefix: str = "extra") -> WorldNames:
    rng = random.Random(f"{seed}:{prefix}:{index}")
    maker = NameMaker(rng, forbidden_names())
    region = maker.make(["land", "mark", "reach", "shire", "moor"])
    return WorldNames(
        f"{prefix}_{index:03d}_{region.lower()}", "train", f"the {region}", rng.choice(VESSELS),
        maker.many(6, SURNAME_ENDS), maker.many(5, SURNAME_ENDS),
        maker.many(10, MALE_ENDS), maker.many(10, FEMALE_ENDS),
        maker.many(6, TOWN_ENDS), [f"Old {maker.make(TOWN_ENDS)}", maker.make(TOWN_ENDS)],
        [f"{maker.make([''])} {rng.choice(NATURE_ENDS)}" for _ in range(3)],
    )


def varied_passage(
    rng: random.Random, host: Entity, gold: Entity, form: str, entities: List[Entity]
) -> Passage:
    """A mention, fillers, perhaps a distractor fact of another entity, and the clue; or the
    clue first, naming the entity only by its kind, and the mention last."""
    mention_words = gold.aliases[form].split()
    fact = gold.facts[rng.choice(sorted(gold.facts))]
    blocks = [f.split() for f in rng.sample(FILLERS + EXTRA_FILLERS, rng.choice((0, 1, 2)))]
    if rng.random() < DISTRACTOR_RATE:
        other = rng.choice([e for e in entities if e is not gold and e is not host])
        other_fact = other.facts[rng.choice(sorted(other.facts))]
        blocks.insert(rng.randrange(len(blocks) + 1), rng.choice(DISTRACTORS).format(
            Other=sentence(other.display), other=other.display, fact=other_fact).split())
    fill = {"h": host.display, "y": str(rng.randrange(180, 460))}
    if rng.random() < CLUE_FIRST_RATE:
        noun = gold.noun or "one"
        clue = rng.choice(FORWARD_CLUES).format(noun=noun, a_noun=article(noun), fact=fact)
        before, after = rng.choice(AFTER_CLUE_MENTIONS).split("{m}")
        words = clue.split() + [w for block in blocks for w in block] + before.split()
        start = len(words)
        words += mention_words + after.split()
        clue_start = len(clue.split()) - len(fact.split()) - 1
    else:
        template = rng.choice(MENTION_TEMPLATES + EXTRA_MENTION_TEMPLATES)
        before, after = template.split("{m}")
        before_words = before.format(**fill).split()
        if not before_words:
            mention_words[0] = sentence(mention_words[0])
        words = before_words + mention_words + after.format(**fill).split()
        start = len(before_words)
        words += [w for block in blocks for w in block]
        refs = [ref for ref in gold.refs if ref != gold.aliases.get("descriptive")]
        ref = rng.choice(refs)
        clue = rng.choice(CLUE_TEMPLATES + EXTRA_CLUE_TEMPLATES).format(
            Ref=sentence(ref), ref=ref, fact=fact)
        clue_start = len(words) + len(clue.split()) - len(fact.split()) - 1
        words += clue.split()
    return Passage(words, start, start + len(mention_words) - 1, gold, form, fact, clue_start)


def build_extra_worlds(count: int, mentions_per_world: int, seed: str = SEED) -> List[World]:
    return [build_world(extra_world_names(i, seed), mentions_per_world, varied_passage)
            for i in range(count)]


def late_fact_worlds(count: int, mentions_per_world: int, seed: str = SEED) -> List[World]:
    """Worlds (named apart from the training extras) in which every description opens with
    ``LATE_PADDING`` background sentences, so its facts start some 300 word pieces in: a pair cut
    to 512 pieces loses them, one of 1024 keeps them (Yao et al. 2020's long-context case)."""
    def pad(roles: Dict[str, Entity]) -> None:
        for entity in roles.values():
            entity.intro = " ".join([entity.intro] + HISTORY + FILLERS[:LATE_PADDING])

    return [build_world(extra_world_names(i, seed, "late"), mentions_per_world,
                        varied_passage, pad) for i in range(count)]


def extra_files(worlds: List[World]):
    """``(relative path, content)``: each world's documents and ``mentions/train.json``."""
    for world in worlds:
        yield document_file(world)
    yield mention_file(worlds, "train")
