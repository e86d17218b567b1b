"""Peak memory, time and achieved FLOP rate of Long-LUKE's attention backends against dense LUKE.

Two settings. ``--setting bert-base`` (default; :mod:`benchmark_long_luke_layer`): one BERT-base
layer (hidden 768, 12 heads, FFN 3072, window 512, 64 entities, 1k–16k words), dense LUKE against
the ``blocked`` and ``flex`` backends, forward and training step, peak memory from the allocator
and the process, GFLOP/s against a same-shape dense matmul measured in the same worker, the
issue-13 ratios and a log-log plot. ``--setting small``: the whole-model comparison below.

Setting ``small``: both encoders carry the same random LUKE weights (default: hidden 256, 4 heads,
4 layers, FFN 1024, a 512-word checkpoint whose position tables are extended with E_repeat to the
input length). The dense one is transformers' ``LukeModel``; the long one is ``LongLukeEmbedder``
with ``attention_window`` 128 (64 words on each side). Inputs: one document of ``n`` word pieces
and 32 entities of 1–3 words each; inference (``torch.no_grad``, eval mode) unless ``--backward``.

Memory method: every measurement runs in a fresh subprocess, so allocator caches and earlier runs
cannot hide or inflate anything. After the model and the inputs are built, the worker resets the
kernel's peak-RSS counter (``echo 5 > /proc/self/clear_refs``), reads ``VmRSS`` as the baseline,
runs one forward pass and reads the peak ``VmHWM``; the figure reported is ``VmHWM - VmRSS``, the
extra resident memory the pass needed at its peak (activations, scores, workspace). It counts every
allocation, torch's included (tracemalloc would not). Linux only. Time: the median of ``--repeats``
further passes after that first (warm-up) pass, with ``--threads`` torch threads, as wall-clock
seconds and as CPU seconds of the process (all threads, OpenMP waiting passively; less sensitive
than wall time to other load on a shared machine; with ``--threads 1`` it is the compute time).

Usage: ``python scripts/benchmarks/benchmark_long_luke.py --setting small [--threads 2] [--repeats
2]
[--backward]``; ``python scripts/benchmarks/benchmark_long_luke.py [--device cuda]`` for the
BERT-base layer.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DENSE_LENGTHS = [512, 1024, 2048, 4096]
LONG_LENGTHS = [512, 1024, 2048, 4096, 8192, 16384]


def status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def write_checkpoint(directory: Path, hidden: int, layers: int) -> None:
    import torch
    from transformers import LukeConfig, LukeModel

    config = LukeConfig(
        vocab_size=1000, entity_vocab_size=100, hidden_size=hidden, entity_emb_size=hidden,
        num_hidden_layers=layers, num_attention_heads=hidden // 64, intermediate_size=4 * hidden,
        max_position_embeddings=514, pad_token_id=1, type_vocab_size=1,
    )
    torch.manual_seed(0)
    LukeModel(config).save_pretrained(directory)


def inputs(length: int, entities: int):
    import torch

    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 1000, (1, length), generator=generator)
    starts = torch.randint(0, length - 3, (entities,), generator=generator)
    positions = torch.full((1, entities, 3), -1)
    for j, start in enumerate(starts.tolist()):
        width = 1 + j % 3
        positions[0, j, :width] = torch.arange(start, start + width)
    entity_ids = torch.randint(3, 100, (1, entities), generator=generator)
    return ids, torch.ones_like(ids), entity_ids, torch.ones_like(entity_ids), positions


def worker(args) -> None:
    import torch
    from transformers import LukeModel

    from allennlp_longent.modules.long_luke import LongLukeEmbedder
    from allennlp_longent.modules.position_extension import extend_position_embeddings

    torch.set_num_threads(args.threads)
    max_length = max(args.length, 512)
    if args.worker == "dense":
        model = LukeModel.from_pretrained(args.checkpoint, add_pooling_layer=False)
        extend_position_embeddings(model, max_length, "repeat")
    else:
        model = LongLukeEmbedder(
            args.checkpoint, max_length=max_length, attention_window=args.window, output="both"
        )
    model.eval()
    ids, mask, entity_ids, entity_mask, positions = inputs(args.length, args.entities)

    def forward():
        if args.worker == "dense":
            out = model(input_ids=ids, attention_mask=mask, entity_ids=entity_ids,
                        entity_attention_mask=entity_mask, entity_position_ids=positions)
            words, entities = out.last_hidden_state, out.entity_last_hidden_state
        else:
            words, entities = model(ids, mask, entity_ids=entity_ids, entity_mask=entity_mask,
                                    entity_position_ids=positions)
        if args.backward:
            (words.sum() + entities.sum()).backward()
            model.zero_grad(set_to_none=True)

    with torch.set_grad_enabled(args.backward):
        Path("/proc/self/clear_refs").write_text("5")
        baseline = status_kib("VmRSS")
        forward()
        peak = status_kib("VmHWM") - baseline
        wall, cpu = [], []
        for _ in range(args.repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            forward()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    print(json.dumps({"peak_mib": peak / 1024, "seconds": statistics.median(wall),
                      "cpu_seconds": statistics.median(cpu)}))


def measure(args, kind: str, length: int) -> dict:
    command = [
        sys.executable, __file__, "--setting", "small", "--worker", kind, "--length", str(length),
        "--checkpoint", str(args.checkpoint), "--window", str(args.window),
        "--entities", str(args.entities), "--threads", str(args.threads),
        "--repeats", str(args.repeats),
    ] + (["--backward"] if args.backward else [])
    # Passive OpenMP waiting: spinning threads would add CPU time without doing work.
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        raise RuntimeError(f"{kind} at {length} words failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    if "--setting" not in sys.argv or "bert-base" in sys.argv:
        sys.path.insert(0, str(Path(__file__).parent))
        from benchmark_long_luke_layer import main as layer_main

        layer_main([a for a in sys.argv[1:] if a not in ("--setting", "bert-base")])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", choices=["small", "bert-base"], default="bert-base")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--window", type=int, default=128)
    parser.add_argument("--entities", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--backward", action="store_true", help="time forward + backward")
    parser.add_argument("--dense-lengths", type=int, nargs="+", default=DENSE_LENGTHS)
    parser.add_argument("--long-lengths", type=int, nargs="+", default=LONG_LENGTHS)
    parser.add_argument("--worker", choices=["dense", "long"], help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--checkpoint", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    mode = "forward+backward" if args.backward else "forward (no_grad)"
    print(f"LUKE hidden {args.hidden}, {args.layers} layers, window {args.window}, "
          f"{args.entities} entities, {args.threads} threads, {mode}; peak = extra RSS of one pass")
    with tempfile.TemporaryDirectory() as directory:
        args.checkpoint = Path(directory)
        write_checkpoint(args.checkpoint, args.hidden, args.layers)
        print(f"\n{'words':>6} {'dense MiB':>10} {'long MiB':>9} {'ratio':>6} "
              f"{'dense s':>8} {'long s':>7} {'ratio':>6} {'dense cpu':>9} {'long cpu':>8} "
              f"{'ratio':>6}", flush=True)
        long_results = {}
        for length in args.dense_lengths:
            dense = measure(args, "dense", length)
            ours = long_results[length] = measure(args, "long", length)
            print(f"{length:>6} {dense['peak_mib']:>10.1f} {ours['peak_mib']:>9.1f} "
                  f"{dense['peak_mib'] / ours['peak_mib']:>5.1f}x {dense['seconds']:>8.2f} "
                  f"{ours['seconds']:>7.2f} {dense['seconds'] / ours['seconds']:>5.1f}x "
                  f"{dense['cpu_seconds']:>9.2f} {ours['cpu_seconds']:>8.2f} "
                  f"{dense['cpu_seconds'] / ours['cpu_seconds']:>5.1f}x", flush=True)
        print(f"\n{'words':>6} {'long MiB':>9} {'x prev':>7} {'long s':>7} {'long cpu':>8} "
              f"{'x prev':>7}", flush=True)
        previous = None
        for length in args.long_lengths:
            ours = long_results.get(length) or measure(args, "long", length)
            memory, cpu = "", ""
            if previous is not None:
                memory = f"{ours['peak_mib'] / previous['peak_mib']:.2f}x"
                cpu = f"{ours['cpu_seconds'] / previous['cpu_seconds']:.2f}x"
            print(f"{length:>6} {ours['peak_mib']:>9.1f} {memory:>7} {ours['seconds']:>7.2f} "
                  f"{ours['cpu_seconds']:>8.2f} {cpu:>7}", flush=True)
            previous = ours

if __name__ == "__main__":
    main()
