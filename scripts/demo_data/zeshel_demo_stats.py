"""Statistics and difficulty probes of the zeshel demo data (``make_zeshel_demo.py --stats``).

Probes on each world of the validation and test splits: BM25's first candidate
(``ZeshelCandidates``, the index and query of ``longent bm25-candidates``: the mention string
against title + description, or with context words), the untrained all-MiniLM-L6-v2 used as it
was trained (mean pooling, 256 word pieces, cosine) between the words around the mention and
title + description, a five-weight model on frozen features (``zeshel_demo_probe``), and an
oracle that is handed the clue sentence.
"""

import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import torch
from transformers import AutoModel, AutoTokenizer
from zeshel_demo_probe import FeatureProbe

from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines

LONG_PIECES = 512
MINILM_MAX_LENGTH = 256  # sentence_bert_config.json of all-MiniLM-L6-v2
BM25_CONTEXT = 16  # words each side added to the BM25 query in the second BM25 probe


def read_mentions(data_dir: Path, split: str) -> List[dict]:
    return [record for _, record in read_json_lines(data_dir / "mentions" / f"{split}.json")]


def mention_counts(data_dir: Path) -> Dict[str, Counter]:
    return {split: Counter(m["corpus"] for m in read_mentions(data_dir, split))
            for split in ("train", "val", "test")}


def not_title_rate(data_dir: Path, split: str) -> Tuple[int, int]:
    """(mentions whose string differs from the gold title, mentions)."""
    mentions = read_mentions(data_dir, split)
    documents = WorldDocuments(data_dir / "documents")
    differ = sum(
        m["text"] != documents.world(m["corpus"])[m["label_document_id"]]["title"]
        for m in mentions
    )
    return differ, len(mentions)


def ambiguous_strings(data_dir: Path, splits: Sequence[str]) -> Tuple[int, int]:
    """(mention strings linked to more than one entity, distinct mention strings)."""
    golds = defaultdict(set)
    for split in splits:
        for m in read_mentions(data_dir, split):
            golds[(m["corpus"], m["text"])].add(m["label_document_id"])
    return sum(len(ids) > 1 for ids in golds.values()), len(golds)


def piece_lengths(data_dir: Path, tokenizer) -> Dict[str, Dict[str, int]]:
    """world -> document id -> MiniLM word pieces of title + text (no special tokens)."""
    lengths = {}
    for path in sorted((data_dir / "documents").glob("*.json")):
        lengths[path.stem] = {
            doc["document_id"]: len(
                tokenizer(f"{doc['title']} {doc['text']}", add_special_tokens=False).input_ids
            )
            for _, doc in read_json_lines(path)
        }
    return lengths


def long_pairs(data_dir: Path, split: str, lengths: Dict[str, Dict[str, int]]) -> Tuple[int, int]:
    """(mentions whose context document and gold description together exceed 512 pieces,
    mentions): the pairs a 512-position cross-encoder must cut (Yao et al. 2020, DLength)."""
    mentions = read_mentions(data_dir, split)
    long = sum(
        sum(lengths[m["corpus"]][m[key]] for key in ("context_document_id", "label_document_id"))
        > LONG_PIECES
        for m in mentions
    )
    return long, len(mentions)


def bm25_at(
    data_dir: Path, split: str, ks: Sequence[int], context_words: int = 0
) -> Dict[str, Dict[int, int]]:
    """world -> {k: mentions with the gold among BM25's first k}."""
    hits: Dict[str, Dict[int, int]] = defaultdict(lambda: {k: 0 for k in ks})
    candidates = ZeshelCandidates(data_dir, max(ks), context_words)
    for result in candidates.split(split, progress=False):
        ids = [c.document_id for c in result.candidates]
        for k in ks:
            hits[result.world][k] += int(result.gold_document_id in ids[:k])
    return dict(hits)


def bm25_pool_size(data_dir: Path, split: str, top_k: int = 64) -> float:
    """Mean number of candidates BM25 returns (only entities sharing a word with the mention)."""
    sizes = [len(r.candidates)
             for r in ZeshelCandidates(data_dir, top_k).split(split, progress=False)]
    return sum(sizes) / len(sizes)


class MiniLM:
    """all-MiniLM-L6-v2 as a sentence encoder: mean of the last layer over word pieces."""

    def __init__(self, path: str) -> None:
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()

    @torch.no_grad()
    def encode(self, texts: List[str], batch_size: int = 32) -> torch.Tensor:
        vectors = []
        for i in range(0, len(texts), batch_size):
            batch = self.tokenizer(texts[i : i + batch_size], padding=True, truncation=True,
                                   max_length=MINILM_MAX_LENGTH, return_tensors="pt")
            hidden = self.model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1)
            vectors.append(torch.nn.functional.normalize(mean, dim=-1))
        return torch.cat(vectors)


def minilm_at1(
    data_dir: Path, split: str, encoder: MiniLM, windows: Sequence[int]
) -> Dict[int, Dict[str, int]]:
    """window -> world -> mentions whose gold is the entity closest (cosine) to the mention with
    ``window`` words each side."""
    documents = WorldDocuments(data_dir / "documents")
    by_world = defaultdict(list)
    for m in read_mentions(data_dir, split):
        by_world[m["corpus"]].append(m)
    hits: Dict[int, Dict[str, int]] = defaultdict(dict)
    for world, mentions in sorted(by_world.items()):
        docs = list(documents.world(world).values())
        entity_vectors = encoder.encode([f"{d['title']} {d['text']}" for d in docs])
        for window in windows:
            queries = []
            for m in mentions:
                words = documents.world(world)[m["context_document_id"]]["text"].split()
                start, end = int(m["start_index"]), int(m["end_index"])
                queries.append(" ".join(words[max(0, start - window) : end + 1 + window]))
            best = (encoder.encode(queries) @ entity_vectors.T).argmax(dim=1).tolist()
            hits[window][world] = sum(docs[b]["document_id"] == m["label_document_id"]
                                      for b, m in zip(best, mentions))
    return hits


def clue_sentence(words: List[str], fact_start: int) -> str:
    """The sentence (``.``-delimited) of the word at ``fact_start``."""
    begin = fact_start
    while begin > 0 and words[begin - 1] != ".":
        begin -= 1
    end = words.index(".", fact_start)
    return " ".join(words[begin : end + 1])


def oracle_clue_at1(data_dir: Path, world, encoder: MiniLM) -> int:
    """Mentions whose gold MiniLM ranks first among BM25's candidates (the context document left
    out) when the query is the mention and the generator's clue sentence. A linker is not told
    where the clue is; this measures whether the clue, once found, points at the gold."""
    documents = WorldDocuments(data_dir / "documents").world(world.names.name)
    ids = list(documents)
    vectors = encoder.encode([f"{d['title']} {d['text']}" for d in documents.values()])
    split = world.names.split
    candidates = {r.mention_id: [c.document_id for c in r.candidates]
                  for r in ZeshelCandidates(data_dir, 64).split(split, progress=False)}
    hits = 0
    for m in world.mentions:
        words = documents[m.context.document_id]["text"].split()
        query = f"{m.text} : {clue_sentence(words, m.end + 1 + m.clue_distance)}"
        scores = (encoder.encode([query]) @ vectors.T)[0]
        pool = [c for c in candidates[m.mention_id] if c != m.context.document_id]
        best = max(pool, key=lambda c: float(scores[ids.index(c)]))
        hits += best == m.gold.document_id
    return hits


def print_stats(data_dir: Path, worlds, windows: Sequence[int]) -> None:
    """Prints the statistics; ``worlds`` (the generator's) give clue distances and KB sizes."""
    torch.set_num_threads(1)
    print(f"data: {data_dir}")
    print("mentions per split and world:")
    for split, counts in mention_counts(data_dir).items():
        print(f"  {split:<6}{sum(counts.values()):>5}  " +
              ", ".join(f"{world} {n}" for world, n in sorted(counts.items())))
    for split in ("train", "val", "test"):
        differ, total = not_title_rate(data_dir, split)
        print(f"{split}: mention string != gold title in {differ}/{total} "
              f"({100 * differ / total:.1f} %)")
    categories = Counter(m["category"] for m in read_mentions(data_dir, "test"))
    print("test categories: " + ", ".join(f"{c} {n}" for c, n in sorted(categories.items())))
    for splits in (("train", "val", "test"), ("test",)):
        ambiguous, total = ambiguous_strings(data_dir, splits)
        print(f"mention strings linked to more than one entity ({'+'.join(splits)}): "
              f"{ambiguous} of {total}")
    for world in worlds:
        aliases = defaultdict(set)
        for entity in world.entities:
            for alias in entity.aliases.values():
                aliases[alias.lower()].add(entity.title)
        shared = sum(len(titles) > 1 for titles in aliases.values())
        distances = [m.clue_distance for m in world.mentions]
        print(f"  {world.names.name:<14} {world.names.split:<5} {len(world.entities)} entities, "
              f"{shared} names shared by 2+ entities, words from mention to clue: "
              f"min {min(distances)} median {statistics.median(distances)} max {max(distances)}")
    encoder = MiniLM(packaged_minilm())
    lengths = piece_lengths(data_dir, encoder.tokenizer)
    long = {world: sum(n > LONG_PIECES for n in ns.values()) for world, ns in lengths.items()}
    everything = [n for ns in lengths.values() for n in ns.values()]
    print(f"descriptions over {LONG_PIECES} MiniLM word pieces: {sum(long.values())} of "
          f"{len(everything)} (" + ", ".join(f"{w} {n}" for w, n in long.items()) +
          f"); longest {max(everything)}, median {statistics.median(everything)}")
    for split in ("train", "val", "test"):
        over, total = long_pairs(data_dir, split, lengths)
        print(f"{split}: context document + gold description over {LONG_PIECES} pieces for "
              f"{over}/{total} mentions")
    ks = (1, 4, 16, 64)
    print("probes: share of mentions whose gold is among the first k (count/total); BM25+16w: "
          f"query with {BM25_CONTEXT} context words each side; MiniLM with w words each side")
    header = "".join(f"{f'BM25@{k}':>12}" for k in ks) + f"{f'BM25+{BM25_CONTEXT}w@1':>14}"
    header += "".join(f"{f'MiniLM@1 w={w}':>16}" for w in windows)
    print(f"  {'split':<6}{'world':<15}{'chance@1':>9}{header}")
    for split in ("val", "test"):
        bm25 = bm25_at(data_dir, split, ks)
        bm25_context = bm25_at(data_dir, split, (1,), BM25_CONTEXT)
        dense = minilm_at1(data_dir, split, encoder, windows)
        for world, total in sorted(mention_counts(data_dir)[split].items()):
            row = "".join(f"{bm25[world][k] / total:>6.3f}{f'({bm25[world][k]})':>6}" for k in ks)
            row += f"{bm25_context[world][1] / total:>8.3f}{f'({bm25_context[world][1]})':>6}"
            row += "".join(f"{dense[w][world] / total:>10.3f}{f'({dense[w][world]})':>6}"
                           for w in windows)
            print(f"  {split:<6}{world:<15}{1 / len(lengths[world]):>9.3f}{row}  of {total}")
        print(f"  {split}: BM25 returns {bm25_pool_size(data_dir, split):.1f} candidates per "
              "mention on average (of at most 64)")
    probe = FeatureProbe(data_dir, encoder)
    examples = {split: probe.examples(split) for split in ("train", "val", "test")}
    probe.fit(examples["train"])
    weights = ", ".join(f"{w:.2f}" for w in probe.weights.tolist())
    print(f"  learned probe (zeshel_demo_probe.py; 5 weights on frozen BM25 and MiniLM features, "
          f"fitted on train: {weights}):")
    for split, split_examples in examples.items():
        hits, total = probe.correct(split_examples), len(split_examples)
        print(f"    {split}: {hits}/{total} ({hits / total:.3f}) right at 1")
    for world in worlds:
        if world.names.split == "test":
            hits, total = oracle_clue_at1(data_dir, world, encoder), len(world.mentions)
            print(f"  oracle clue probe, {world.names.name}: MiniLM ranks the gold first among "
                  f"BM25's candidates (context document left out) for {hits}/{total} "
                  f"({hits / total:.3f}) when given the mention and its clue sentence")
