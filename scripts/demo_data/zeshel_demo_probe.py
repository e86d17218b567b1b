"""A learned difficulty probe of the zeshel demo: five weights over frozen features.

Each BM25 candidate of a mention gets five features: its BM25 score (divided by the mention's
best), whether it is the mention's own context document, the MiniLM cosine between the mention
string and the candidate (title + description), the highest MiniLM cosine between the candidate
and a sentence within ``window`` words of the mention (the mention's own sentence left out), and
the product of the last two. A softmax over the candidates (Logeswaran et al. 2019's listwise
loss) fits the five weights on the training split. Not a model of the project: it shows that
what a linker must read is in the context, and gives a floor for a trained linker.
"""

from pathlib import Path
from typing import Dict, List, Optional, Tuple

import torch

from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines

Example = Tuple[torch.Tensor, int]  # (candidates x 5 features, index of the gold or -1)


def window_sentences(words: List[str], start: int, end: int, window: int) -> List[str]:
    """``.``-ended sentences within ``window`` words of the mention, not the mention's own."""
    sentences, current, first = [], [], max(0, start - window)
    for i in range(first, min(len(words), end + 1 + window)):
        current.append(words[i])
        if words[i] == ".":
            if not (i - len(current) + 1 <= start and i >= end):
                sentences.append(" ".join(current))
            current = []
    return sentences or ["."]


class FeatureProbe:
    def __init__(self, data_dir: Path, encoder, window: int = 48) -> None:
        self.data_dir = data_dir
        self.encoder = encoder
        self.window = window
        self.documents = WorldDocuments(data_dir / "documents")
        self.candidates = ZeshelCandidates(data_dir, 64)
        self._entities: Dict[str, Tuple[List[str], torch.Tensor]] = {}
        self.weights = torch.zeros(5)

    def entities(self, world: str) -> Tuple[List[str], torch.Tensor]:
        if world not in self._entities:
            docs = self.documents.world(world)
            texts = [f"{d['title']} {d['text']}" for d in docs.values()]
            self._entities[world] = (list(docs), self.encoder.encode(texts))
        return self._entities[world]

    def examples(self, split: str) -> List[Optional[Example]]:
        """One example per mention of ``split`` (None when BM25 finds no candidate)."""
        path = self.data_dir / "mentions" / f"{split}.json"
        mentions = {m["mention_id"]: m for _, m in read_json_lines(path)}
        examples = []
        for result in self.candidates.split(split, progress=False):
            mention = mentions[result.mention_id]
            examples.append(self._example(mention, result.candidates) if result.candidates
                            else None)
        return examples

    def _example(self, mention: dict, candidates) -> Example:
        ids, vectors = self.entities(mention["corpus"])
        context = mention["context_document_id"]
        words = self.documents.world(mention["corpus"])[context]["text"].split()
        sentences = window_sentences(words, int(mention["start_index"]),
                                     int(mention["end_index"]), self.window)
        rows = vectors[[ids.index(c.document_id) for c in candidates]]
        bm25 = torch.tensor([c.score for c in candidates])
        own = torch.tensor([float(c.document_id == context) for c in candidates])
        name = (self.encoder.encode([mention["text"]]) @ rows.T)[0]
        clue = (self.encoder.encode(sentences) @ rows.T).max(dim=0).values
        features = torch.stack([bm25 / bm25.max(), own, name, clue, name * clue], dim=1)
        found = [c.document_id for c in candidates]
        gold = mention["label_document_id"]
        return features, found.index(gold) if gold in found else -1

    def fit(self, examples: List[Optional[Example]], steps: int = 300) -> None:
        usable = [e for e in examples if e is not None and e[1] >= 0]
        weights = torch.zeros(5, requires_grad=True)
        optimizer = torch.optim.Adam([weights], lr=0.05)
        for _ in range(steps):
            optimizer.zero_grad()
            loss = -sum(torch.log_softmax(x @ weights, 0)[gold] for x, gold in usable)
            (loss / len(usable)).backward()
            optimizer.step()
        self.weights = weights.detach()

    def correct(self, examples: List[Optional[Example]]) -> int:
        return sum(e is not None and e[1] >= 0 and int((e[0] @ self.weights).argmax()) == e[1]
                   for e in examples)
