"""Writes ``fixtures/zeshel_demo``: fictional worlds in the zeshel layout (Logeswaran et al. 2019)
made to test zero-shot linking, and ``paragraphs.jsonl`` for the spaCy demo.

    python scripts/demo_data/make_zeshel_demo.py [OUTPUT_DIR]  # default fixtures/zeshel_demo
    python scripts/demo_data/make_zeshel_demo.py --stats [DATA_DIR]  # statistics and difficulty
    probes
    python scripts/demo_data/make_zeshel_demo.py --extra-worlds N --out DIR [--mentions-per-world
    120]
        # N more training worlds in varied styles (zeshel_demo_extra), with BM25 candidates
        # in DIR/tfidf_candidates/train.json (--drop-own-page: without the mention's own
        # page); with --late, descriptions whose facts lie ~300 word pieces in (a set for 512
        # against 1024 positions); --late-worlds M adds M late-fact worlds beside N plain ones;
        # --seed S gives other worlds than the default seed

Each world has families sharing a surname, towns and vessels named after people, towns with
former names, companies, guilds, events and landmarks (``zeshel_demo_entities``). Mentions sit
in the descriptions of other entities of the same world; most use a surname, a given name, a
title, an epithet, a former name or a descriptive phrase instead of the entity's title, and the
fact that tells the candidates apart comes one or more sentences after the mention
(``Passage``). The output depends only on the fixed seed, so regenerating gives identical files.
"""

import argparse
import json
import random
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from zeshel_demo_entities import SEED, Entity, WorldBuilder, hex_id, sentence  # noqa: E402
from zeshel_demo_paragraphs import paragraphs  # noqa: E402
from zeshel_demo_text import (  # noqa: E402
    CLUE_TEMPLATES,
    FILLERS,
    HISTORY,
    MENTION_TEMPLATES,
    WORLDS,
    WorldNames,
)

DEFAULT_OUTPUT = Path(__file__).resolve().parents[2] / "fixtures" / "zeshel_demo"
MENTIONS_PER_SPLIT_WORLD = {"train": 68, "val": 64, "test": 120}
TITLE_MENTION_RATE = 0.25  # the rest use another name of the entity
TARGET_KIND_WEIGHTS = {
    "person": 3.0, "vessel": 2.0, "town": 2.0, "org": 1.0, "event": 1.0, "landmark": 1.0,
    "nature": 0.6, "estate": 1.0, "inn": 0.6,
}
LONG_PASSAGES = 7  # passages every long description hosts, before the random ones


@dataclass
class Passage:
    """A mention sentence, filler sentences, then a clue sentence quoting one fact of the gold."""

    words: List[str]
    mention_start: int  # inclusive word offsets into ``words``
    mention_end: int
    gold: Entity
    form: str
    fact: str
    clue_start: Optional[int] = None  # word offset of the clue's fact; None: the last sentence


@dataclass
class Mention:
    mention_id: str
    context: Entity
    start: int
    end: int
    text: str
    gold: Entity
    form: str
    fact: str
    clue_distance: int  # words between the mention's end and the start of its clue


@dataclass
class World:
    names: WorldNames
    entities: List[Entity]
    roles: Dict[str, Entity]
    mentions: List[Mention]
    texts: Dict[str, str]  # document_id -> text


def make_passage(rng: random.Random, host: Entity, gold: Entity, form: str) -> Passage:
    """``mention sentence, 1-2 fillers, clue``: the clue quotes one fact of the gold entity."""
    mention = gold.aliases[form]
    template = rng.choice(MENTION_TEMPLATES)
    before, after = template.split("{m}")
    fill = {"h": host.display, "y": str(rng.randrange(180, 460))}
    before_words = before.format(**fill).split()
    mention_words = mention.split()
    if not before_words:
        mention_words[0] = sentence(mention_words[0])
    words = before_words + mention_words + after.format(**fill).split()
    start = len(before_words)
    end = start + len(mention_words) - 1
    for filler in rng.sample(FILLERS, rng.choice((1, 2))):
        words += filler.split()
    fact_name = rng.choice(sorted(gold.facts))
    refs = [ref for ref in gold.refs if ref != gold.aliases.get("descriptive")]
    ref = rng.choice(refs)
    clue = rng.choice(CLUE_TEMPLATES).format(Ref=sentence(ref), ref=ref,
                                             fact=gold.facts[fact_name])
    words += clue.split()
    return Passage(words, start, end, gold, form, gold.facts[fact_name])


def choose_form(rng: random.Random, entity: Entity) -> str:
    others = sorted(form for form in entity.aliases if form != "title")
    if "title" not in entity.aliases or (others and rng.random() >= TITLE_MENTION_RATE):
        return rng.choice(others)
    return "title"


def description(entity: Entity) -> List[str]:
    """The own sentences of a description: intro, every fact, extras."""
    sentences = [entity.intro]
    for i, name in enumerate(sorted(entity.facts)):
        subject = entity.subject if i % 2 == 0 else sentence(entity.pronoun)
        sentences.append(f"{subject} {entity.facts[name]} .")
    return sentences + entity.extra


PassageMaker = Callable[[random.Random, Entity, Entity, str, List[Entity]], Passage]


def build_world(
    names: WorldNames, mention_count: Optional[int] = None, passage: Optional[PassageMaker] = None,
    prepare: Optional[Callable[[Dict[str, Entity]], None]] = None,
) -> World:
    """The world's entities and ``mention_count`` mentions (the split's count by default), each
    written by ``passage`` (``make_passage`` by default; it is also given the world's entities);
    ``prepare`` may change the entities (their intros, say) before any text is written."""
    roles = WorldBuilder(names).build()
    if prepare is not None:
        prepare(roles)
    entities = list(roles.values())
    rng = random.Random(f"{SEED}:{names.name}:mentions")
    hosted: Dict[str, List[Passage]] = {entity.document_id: [] for entity in entities}
    gold_weights = [TARGET_KIND_WEIGHTS[e.kind] for e in entities]
    long_hosts = [e for e in entities if e.long for _ in range(LONG_PASSAGES)]
    short = [e for e in entities if not e.long]
    count = MENTIONS_PER_SPLIT_WORLD[names.split] if mention_count is None else mention_count
    for i in range(count):
        host = long_hosts[i] if i < len(long_hosts) else rng.choice(short)
        gold = host
        while gold is host:
            gold = rng.choices(entities, gold_weights)[0]
        form = choose_form(rng, gold)
        if passage is None:
            block = make_passage(rng, host, gold, form)
        else:
            block = passage(rng, host, gold, form, entities)
        hosted[host.document_id].append(block)
    texts, mentions = {}, []
    for entity in entities:
        words = entity.title.split()
        for own in description(entity):
            words += own.split()
        blocks: List[object] = list(hosted[entity.document_id])
        if entity.long:
            blocks += HISTORY + rng.sample(FILLERS, 6)
            rng.shuffle(blocks)
        for block in blocks:
            if isinstance(block, str):
                words += block.split()
                continue
            offset = len(words)
            words += block.words
            text = " ".join(block.words[block.mention_start : block.mention_end + 1])
            clue_start = block.clue_start
            if clue_start is None:
                clue_start = len(block.words) - len(block.fact.split()) - 1
            mentions.append(Mention(
                hex_id(names.name, entity.document_id, str(offset)), entity,
                offset + block.mention_start, offset + block.mention_end, text, block.gold,
                block.form, block.fact, clue_start - block.mention_end - 1,
            ))
        texts[entity.document_id] = " ".join(words)
    return World(names, entities, roles, mentions, texts)


def category(mention: Mention) -> str:
    """Zeshel's mention categories (Logeswaran et al. 2019, §6.1)."""
    text, title = mention.text.lower(), mention.gold.title.lower()
    if text == title:
        return "HIGH_OVERLAP"
    if title.startswith(text + " ("):
        return "MULTIPLE_CATEGORIES"
    if text in title:
        return "AMBIGUOUS_SUBSTRING"
    return "LOW_OVERLAP"


def build_worlds() -> List[World]:
    return [build_world(names) for names in WORLDS]


def document_file(world: World) -> Tuple[str, str]:
    """``documents/<world>.json``: one ``{document_id, title, text}`` line per entity."""
    lines = [
        json.dumps({"document_id": e.document_id, "title": e.title,
                    "text": world.texts[e.document_id]})
        for e in world.entities
    ]
    return f"documents/{world.names.name}.json", "\n".join(lines) + "\n"


def mention_file(worlds: List[World], split: str) -> Tuple[str, str]:
    """``mentions/<split>.json``: the mentions of the split's worlds, one JSON line each."""
    lines = [
        json.dumps({
            "mention_id": m.mention_id, "context_document_id": m.context.document_id,
            "corpus": world.names.name, "start_index": m.start, "end_index": m.end,
            "text": m.text, "label_document_id": m.gold.document_id, "category": category(m),
        })
        for world in worlds if world.names.split == split for m in world.mentions
    ]
    return f"mentions/{split}.json", "\n".join(lines) + "\n"


def files(worlds: List[World]) -> Iterator[Tuple[str, str]]:
    """``(relative path, content)`` of every file of the data set."""
    for world in worlds:
        yield document_file(world)
    for split in ("train", "val", "test"):
        yield mention_file(worlds, split)
    test = [world for world in worlds if world.names.split == "test"][0]
    lines = [json.dumps(paragraph) for paragraph in paragraphs(test.roles)]
    yield "paragraphs.jsonl", "\n".join(lines) + "\n"


def write(output: Path) -> List[World]:
    worlds = build_worlds()
    for relative, content in files(worlds):
        path = output / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return worlds


def write_extra(args: argparse.Namespace) -> None:
    from zeshel_demo_extra import build_extra_worlds, extra_files, late_fact_worlds

    if args.out is None:
        raise SystemExit("--extra-worlds needs --out DIR (kept apart from the demo's seven worlds)")
    if args.out.resolve() == DEFAULT_OUTPUT.resolve():
        raise SystemExit(f"--out must not be {DEFAULT_OUTPUT}: the demo worlds stay as they are")
    seed = args.seed or SEED
    build = late_fact_worlds if args.late else build_extra_worlds
    worlds = build(args.extra_worlds, args.mentions_per_world, seed)
    # --late-worlds: late-fact worlds beside the plain ones, in one folder (a training set that
    # holds both, for a model at 1024 positions to learn to read past 512 pieces)
    worlds += late_fact_worlds(args.late_worlds, args.mentions_per_world, seed)
    for relative, content in extra_files(worlds):
        path = args.out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates, write_candidates

    candidates = args.out / "tfidf_candidates"
    candidates.mkdir(exist_ok=True)
    # BM25 ranks the mention's own page in the first 4 for about half of the mentions; the
    # first stage still leaves it there for a fifth (a page never links to itself), so by
    # default it stays a negative; --drop-own-page leaves it out.
    own = {m.mention_id: m.context.document_id for world in worlds for m in world.mentions}
    if not args.drop_own_page:
        own = {}
    found = ZeshelCandidates(args.out, top_k=args.candidates + 1).split("train", progress=False)
    written = write_candidates(
        (replace(result, candidates=[c for c in result.candidates
                                     if c.document_id != own.get(result.mention_id)]
                 [: args.candidates]) for result in found), candidates / "train.json")
    total = sum(len(world.mentions) for world in worlds)
    print(f"wrote {len(worlds)} extra training worlds, {total} mentions and their "
          f"{args.candidates} BM25 candidates ({len(written)} lists) to {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--stats", action="store_true",
                        help="print statistics and BM25 / MiniLM probes of DIRECTORY instead")
    parser.add_argument("--windows", type=int, nargs="+", default=[0, 16, 64],
                        help="words each side of a mention for the MiniLM probes")
    parser.add_argument("--extra-worlds", type=int, default=0,
                        help="write this many additional training worlds to --out instead")
    parser.add_argument("--out", type=Path, help="output folder of --extra-worlds")
    parser.add_argument("--mentions-per-world", type=int, default=120)
    parser.add_argument("--drop-own-page", action="store_true",
                        help="leave each mention's own page out of its --extra-worlds candidates")
    parser.add_argument("--late", action="store_true",
                        help="--extra-worlds whose facts lie beyond 512 pieces (an evaluation set)")
    parser.add_argument("--late-worlds", type=int, default=0,
                        help="with --extra-worlds: this many late-fact worlds beside them")
    parser.add_argument("--seed", default=None,
                        help="the generator's seed for --extra-worlds (default the demo's); "
                        "another seed gives other worlds, e.g. a test set apart from training")
    parser.add_argument("--candidates", type=int, default=16,
                        help="BM25 candidates per mention of --extra-worlds")
    args = parser.parse_args()
    if args.extra_worlds:
        write_extra(args)
        return
    if args.stats:
        from zeshel_demo_stats import print_stats

        print_stats(args.directory, build_worlds(), args.windows)
        return
    worlds = write(args.directory)
    total = sum(len(world.mentions) for world in worlds)
    print(f"wrote {len(worlds)} worlds and {total} mentions to {args.directory}")


if __name__ == "__main__":
    main()
