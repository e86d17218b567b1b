"""Fine-tune the first stage's sentence encoder on its own ``fact`` feature (an experiment of
issue 19: can the part that reads be trained on real prose?).

``fact`` compares b_i = max_{s, d} cos(v(s), v(d)) between the candidates, s a sentence near the
mention, d a sentence of candidate i's page (``linking/evidence.py``). This script trains v, the
packaged all-MiniLM-L6-v2 with its mean pooling, by the softmax of 20·b_i over each mention's
first four candidates (the listwise loss of Logeswaran et al. 2019 on that score), one mention
at a time, eight to an update, AdamW. Its training worlds are meant to be those of
``docred_linking_worlds.py --shared-name``: real prose where every candidate carries the gold's
name, so only what a page says can decide. It prints fact@1 (how often b_i is highest for the
gold) on each ``--eval`` folder before and after, and saves a checkpoint folder that the first
stage's ``encoder`` setting can name.

    python scripts/linking/finetune_fact_encoder.py OUT --train WORLDS [--corpus-prefix docred] \
        --eval NAME=WORLDS [NAME=WORLDS ...] [--epochs 1] [--lr 2e-5]

A folder of worlds holds ``documents/*.json``, ``mentions/*.json`` and a candidates folder
(``--candidates-dir``, default ``first_stage_candidates``) in zeshel format.
"""

import argparse
import random
import shutil
import time
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Tuple

import torch

from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates.bm25 import bare_title
from allennlp_longent.linking.documents import WorldDocuments, read_json_lines
from allennlp_longent.linking.evidence import (
    FACT_SENTENCES,
    description_sentences,
    nearby_sentences,
)
from allennlp_longent.modules.sentence_pooling import checkpoint_pooling, pool

# (sentences near the mention, each candidate's page sentences, the gold's position)
Item = Tuple[List[str], List[List[str]], int]


def _lines(folder: Path) -> List[dict]:
    """Every record of the folder's JSON-lines files (a bad line names its file and line)."""
    return [record for path in sorted(folder.glob("*.json")) for _, record in read_json_lines(path)]


_declared_pooling = lru_cache(maxsize=None)(checkpoint_pooling)


def load_items(folder: Path, candidates_dir: str = "first_stage_candidates",
               corpus_prefix: Optional[str] = None, window: int = 48, top_k: int = 4) -> List[Item]:
    """The mentions whose gold is among their first ``top_k`` candidates and which have a
    sentence near them, read as the ``fact`` feature reads them."""
    worlds = WorldDocuments(folder / "documents")  # only the mentions' worlds are read
    candidates = {c["mention_id"]: c["tfidf_candidates"][:top_k]
                  for c in _lines(folder / candidates_dir)}
    items = []
    for mention in _lines(folder / "mentions"):
        if corpus_prefix and not mention["corpus"].startswith(corpus_prefix):
            continue
        listed = candidates.get(mention["mention_id"], [])
        if mention["label_document_id"] not in listed:
            continue
        documents = worlds.world(mention["corpus"])
        words = documents[mention["context_document_id"]]["text"].split()
        near = nearby_sentences(words, mention["start_index"], mention["end_index"], window)
        if not near:
            continue
        pages = [description_sentences(documents[c]["text"], bare_title(documents[c]["title"]))
                 [:FACT_SENTENCES] for c in listed]
        items.append((near, pages, listed.index(mention["label_document_id"])))
    return items


def encode(model, tokenizer, texts: List[str]) -> torch.Tensor:
    """Text vectors pooled (and normalized) as the model's checkpoint declares."""
    pooling, normalize = _declared_pooling(model.name_or_path)
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    vectors = pool(model(**batch).last_hidden_state, batch["attention_mask"], pooling)
    return torch.nn.functional.normalize(vectors, dim=-1) if normalize else vectors


def fact_scores(model, tokenizer, item: Item) -> torch.Tensor:
    """b_i per candidate (-1 for a page with no sentence)."""
    near, pages, _ = item
    vectors = encode(model, tokenizer, near + [s for page in pages for s in page])
    queries, rest = vectors[: len(near)], vectors[len(near):]
    scores, at = [], 0
    for page in pages:
        scores.append((queries @ rest[at : at + len(page)].T).max() if page
                      else queries.new_tensor(-1.0))
        at += len(page)
    return torch.stack(scores)


def right_at_1(model, tokenizer, items: List[Item]) -> int:
    model.eval()
    with torch.no_grad():
        return sum(int(fact_scores(model, tokenizer, item).argmax()) == item[2] for item in items)


def main() -> None:
    from transformers import AutoModel, AutoTokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--corpus-prefix", default=None)
    parser.add_argument("--candidates-dir", default="first_stage_candidates")
    parser.add_argument("--eval", nargs="*", default=[], metavar="NAME=WORLDS")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    base = packaged_minilm()
    tokenizer, model = AutoTokenizer.from_pretrained(base), AutoModel.from_pretrained(base)
    train = load_items(args.train, args.candidates_dir, args.corpus_prefix)
    evals = {name: load_items(Path(path), args.candidates_dir)
             for name, path in (spec.split("=", 1) for spec in args.eval)}
    if not train:
        raise SystemExit(f"{args.train}: no mention with its gold among its first 4 candidates")

    def report(when: str) -> None:
        print(when, ", ".join(f"{name} fact@1 {right_at_1(model, tokenizer, items)}/{len(items)}"
                              for name, items in evals.items()), flush=True)

    report("before:")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    start = time.time()
    model.train()
    order = [i for _ in range(args.epochs) for i in random.sample(range(len(train)), len(train))]
    for step, i in enumerate(order, 1):
        logits = 20 * fact_scores(model, tokenizer, train[i])
        loss = torch.nn.functional.cross_entropy(logits[None], torch.tensor([train[i][2]])) / 8
        loss.backward()
        if step % 8 == 0 or step == len(order):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
    print(f"trained on {len(train)} mentions x {args.epochs} in {time.time() - start:.0f} s")
    report("after:")
    shutil.copytree(base, args.out, dirs_exist_ok=True)
    model.save_pretrained(args.out)


if __name__ == "__main__":
    main()
