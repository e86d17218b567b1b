"""One BERT-base Long-LUKE layer: dense LUKE against the blocked and flex attention backends.

Run through ``python scripts/benchmarks/benchmark_long_luke.py [--device cpu|cuda] [--threads 1]``.

What runs, per configuration in a fresh subprocess (so allocator caches and compiled code of one
configuration cannot help or hurt another), configurations interleaved by length:

- ``layer``: one ``LukeLayer`` (hidden 768, 12 heads, FFN 3072, dropout 0) on random ``n`` word and
  64 entity states. ``dense`` is transformers' layer (full ``(n + m)²`` attention); ``blocked`` and
  ``flex`` are the same weights with :class:`EntityAwareSelfAttention` (window 512) and that
  backend. ``forward`` runs under ``no_grad`` in eval mode; ``train`` is forward + backward of a
  random projection of both outputs (all parameters and inputs get gradients).
- ``core``: the attention core alone (per-head queries, keys, values given; no projections),
  ``blocked_entity_attention`` against ``flex_entity_attention``.

Each worker runs one warm-up pass (flex compiles there), then the measured pass: wall and process
CPU seconds, and the peak resident memory above the state before the pass (Linux ``VmHWM`` after
``clear_refs``; every allocation, torch's and the compiler's included). Then one pass under
``torch.profiler`` with ``profile_memory``: the allocator's peak of live tensor bytes above the
start of the pass (on CUDA instead ``torch.cuda.max_memory_allocated``). The reference rate is a
dense matmul of the same shape class timed in the same worker before and after (median of 3 each):
``(12, n, 64) @ (12, 64, 512)`` for the core (same inner dimension and about the same work as the
band's ``QKᵀ``), ``(n + m, 768) @ (768, 3072)`` for the layer (its feed-forward matmul).

Useful FLOPs (multiply-add = 2): the core does ``4·d`` per head for each (query, key) pair it must
see — the band's ``n·(w + 1) − h(h + 1)`` word pairs, ``2·n·m + m²`` entity pairs (dense LUKE: all
``(n + m)²``); the layer adds ``26·(n + m)·H²`` for its projections and feed-forward (word Q, K, V,
Q_w2e; entity K, V, Q_e2w, Q_e2e; output; FFN 2·4H²). A training step counts 3× the forward.
Recomputation (flex's backward recomputes the scores) and masked scores count as no useful work.
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

HIDDEN, HEADS, FFN, WINDOW, ENTITIES = 768, 12, 3072, 512, 64
LENGTHS = [1024, 4096, 16384]  # every 4x: the default run stays near 15 CPU minutes
DENSE_MAX = 4096  # dense LUKE's (n + m)² scores per head: 16k words would need > 12 GiB
TARGETS = {"core": 0.6, "layer": 0.5, "memory": 4.0}


def status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def useful_flops(kind: str, backend: str, words: int, mode: str) -> float:
    entities, half = ENTITIES, WINDOW // 2
    if backend == "dense":
        pairs = (words + entities) ** 2
    else:
        band = words * (2 * half + 1) - half * (half + 1)
        pairs = band + 2 * words * entities + entities ** 2
    flops = 4 * HIDDEN * pairs  # 4·d per pair per head, H·d = hidden
    if kind == "layer":
        flops += 2 * 13 * (words + entities) * HIDDEN ** 2
    return flops * (3 if mode == "train" else 1)


def synchronize(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()


def matmul_rate(kind: str, words: int, device) -> float:
    """GFLOP/s of the reference matmul (median of 3, process CPU time on CPU, wall on CUDA)."""
    import torch

    if kind == "core":
        a = torch.randn(HEADS, words, HIDDEN // HEADS, device=device)
        b = torch.randn(HEADS, HIDDEN // HEADS, WINDOW, device=device)
    else:
        a = torch.randn(words + ENTITIES, HIDDEN, device=device)
        b = torch.randn(HIDDEN, FFN, device=device)
    flops = 2 * a.numel() * b.size(-1)
    torch.matmul(a, b)
    rates = []
    for _ in range(3):
        synchronize(device)
        start = time.process_time() if device.type == "cpu" else time.perf_counter()
        torch.matmul(a, b)
        synchronize(device)
        now = time.process_time() if device.type == "cpu" else time.perf_counter()
        rates.append(flops / (now - start) / 1e9)
    return statistics.median(rates)


def allocator_peak_mib(run, device) -> float:
    """Peak of live tensor bytes above the start of ``run()``, from the allocator."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        run()
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before) / 2 ** 20
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run()
    with tempfile.NamedTemporaryFile(suffix=".json") as trace:
        prof.export_chrome_trace(trace.name)
        events = json.loads(Path(trace.name).read_text())["traceEvents"]
    totals = [(e["args"]["Total Allocated"], e["args"]["Bytes"]) for e in events
              if e.get("name") == "[memory]" and e["args"].get("Device Type") == 0]
    if not totals:
        raise RuntimeError("the profiler recorded no CPU allocation")
    start = totals[0][0] - totals[0][1]
    return (max(total for total, _ in totals) - start) / 2 ** 20


def build(kind: str, backend: str, words: int, mode: str, device):
    """A closure running one pass of the configuration."""
    import torch
    from transformers import LukeConfig, LukeModel

    from allennlp_longent.modules.entity_aware_attention import (
        WordEntityMask,
        blocked_entity_attention,
    )
    from allennlp_longent.modules.flex_entity_attention import (
        EntityTensors,
        flex_entity_attention,
    )
    from allennlp_longent.modules.long_luke import LongLukeEncoder

    torch.manual_seed(0)
    train = mode == "train"
    head = HIDDEN // HEADS
    if kind == "core":
        def tensor(length):
            return torch.randn(1, HEADS, length, head, device=device, requires_grad=train)

        inputs = [tensor(words) for _ in range(3)] + [tensor(n) for n in
                                                       (words, ENTITIES, ENTITIES, ENTITIES,
                                                        ENTITIES)]
        word_mask = torch.ones(1, words, dtype=torch.bool, device=device)
        entity_mask = torch.ones(1, ENTITIES, dtype=torch.bool, device=device)
        entities = EntityTensors(*inputs[3:], entity_mask)
        arguments = (*inputs[:3], word_mask, WINDOW // 2, head ** -0.5, entities)
        if backend == "flex":
            def call():
                return flex_entity_attention(*arguments)
        else:
            dropout = torch.nn.Identity()

            def call():
                return blocked_entity_attention(*arguments, dropout)
        parameters = inputs
    else:
        config = LukeConfig(
            vocab_size=100, entity_vocab_size=10, hidden_size=HIDDEN, entity_emb_size=HIDDEN,
            num_hidden_layers=1, num_attention_heads=HEADS, intermediate_size=FFN,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        )
        luke = LukeModel(config, add_pooling_layer=False)
        if backend != "dense":
            luke = LongLukeEncoder(luke, WINDOW, attention_backend=backend).luke
        layer = luke.encoder.layer[0].to(device).train(train)
        word_states = torch.randn(1, words, HIDDEN, device=device, requires_grad=train)
        entity_states = torch.randn(1, ENTITIES, HIDDEN, device=device, requires_grad=train)
        if backend == "dense":
            mask = torch.zeros(1, 1, 1, words + ENTITIES, device=device)
        else:
            mask = WordEntityMask(torch.ones(1, words, dtype=torch.bool, device=device),
                                  torch.ones(1, ENTITIES, dtype=torch.bool, device=device))

        def call():
            return layer(word_states, entity_states, mask)[:2]
        parameters = [word_states, entity_states, *layer.parameters()]

    def run():
        with torch.set_grad_enabled(train):
            outputs = call()
            if train:
                loss = sum((o * torch.ones_like(o)).sum() for o in outputs)
                loss.backward()
                for parameter in parameters:
                    parameter.grad = None
        synchronize(device)
    run.call = call
    return run


def bf16_worker(args, device) -> None:
    """fp32 against bf16 autocast on the same layer and inputs, passes interleaved: CPU seconds
    and the largest output difference relative to the largest fp32 output."""
    import torch

    def outputs():
        with torch.no_grad():
            return [o.float() for o in layer_call()]
    run = build("layer", args.backend, args.length, args.mode, device)
    layer_call = run.call
    seconds = {"fp32": [], "bf16": []}
    for repeat in range(3):
        for name in ("fp32", "bf16"):
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=name == "bf16"):
                start = time.process_time() if device.type == "cpu" else time.perf_counter()
                run()
                synchronize(device)
                end = time.process_time() if device.type == "cpu" else time.perf_counter()
                if repeat:  # the first round compiles and warms up
                    seconds[name].append(end - start)
    exact = outputs()
    with torch.autocast(device.type, dtype=torch.bfloat16):
        low = outputs()
    error = max(float((a - b).abs().max() / a.abs().max()) for a, b in zip(exact, low))
    print(json.dumps({"fp32": statistics.median(seconds["fp32"]),
                      "bf16": statistics.median(seconds["bf16"]), "relative_error": error}))


def worker(args) -> None:
    import torch

    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    if args.kind == "bf16":
        bf16_worker(args, device)
        return
    run = build(args.kind, args.backend, args.length, args.mode, device)
    reference = [matmul_rate(args.kind, args.length, device)]
    run()  # warm-up: flex compiles here
    Path("/proc/self/clear_refs").write_text("5")
    baseline = status_kib("VmRSS")
    start, start_cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    rss = (status_kib("VmHWM") - baseline) / 1024
    allocated = allocator_peak_mib(run, device)
    reference.append(matmul_rate(args.kind, args.length, device))
    seconds = cpu if device.type == "cpu" else wall
    flops = useful_flops(args.kind, args.backend, args.length, args.mode)
    print(json.dumps({
        "wall": wall, "cpu": cpu, "rss_mib": rss, "alloc_mib": allocated,
        "gflops": flops / seconds / 1e9, "matmul_gflops": statistics.median(reference),
    }))


def measure(args, kind: str, backend: str, mode: str, length: int) -> dict:
    command = [sys.executable, __file__, "--worker", "--kind", kind, "--backend", backend,
               "--mode", mode, "--length", str(length), "--threads", str(args.threads),
               "--device", args.device]
    # Passive OpenMP waiting: spinning threads would add CPU time without doing work.
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS=str(args.threads))
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        raise RuntimeError(f"{kind} {backend} {mode} at {length} words failed:\n"
                           f"{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def report(results: dict, args) -> None:
    """The issue-13 ratios at 4,096 words (or the largest length run with dense)."""
    length = max(n for (kind, backend, _, n) in results if backend == "dense")
    print(f"\nissue 13 targets at {length} words + {ENTITIES} entities, {args.threads} thread(s):")
    for mode in ("forward", "train"):
        core = results.get(("core", "flex", mode, length))
        if core:
            ratio = core["gflops"] / core["matmul_gflops"]
            blocked = results[("core", "blocked", mode, length)]
            print(f"  core {mode:<7}: flex {core['gflops']:.1f} GFLOP/s = {ratio:.2f} of the "
                  f"matmul ({core['matmul_gflops']:.1f}); blocked "
                  f"{blocked['gflops'] / blocked['matmul_gflops']:.2f}; target >= "
                  f"{TARGETS['core']} {'met' if ratio >= TARGETS['core'] else 'MISSED'}")
    for backend in ("flex", "blocked"):
        step = results[("layer", backend, "train", length)]
        dense = results[("layer", "dense", "train", length)]
        rate = step["gflops"] / step["matmul_gflops"]
        memory = dense["alloc_mib"] / step["alloc_mib"]
        print(f"  layer train step, {backend}: {rate:.2f} of the matmul rate (target >= "
              f"{TARGETS['layer']} {'met' if rate >= TARGETS['layer'] else 'MISSED'}); "
              f"peak {step['alloc_mib']:.0f} MiB vs dense {dense['alloc_mib']:.0f} MiB = "
              f"{memory:.2f}x less (target >= {TARGETS['memory']}x "
              f"{'met' if memory >= TARGETS['memory'] else 'MISSED'}); "
              f"{dense['cpu'] / step['cpu']:.2f}x less CPU time than dense")


def plot(results: dict, args) -> None:
    from plotting import line_plot

    lengths = "" if args.lengths == LENGTHS else " --lengths " + " ".join(map(str, args.lengths))
    caption = (f"{args.machine}; {args.threads} thread(s); CPU shared with other jobs (CPU seconds "
               f"plotted). python scripts/benchmarks/benchmark_long_luke.py --device {args.device} "
               f"--threads {args.threads}{lengths}")
    for key, label, name in (("alloc_mib", "peak allocated MiB", "memory"),
                             ("cpu" if args.device == "cpu" else "wall", "seconds", "time")):
        series = {}
        for backend in ("dense", "blocked", "flex"):
            for mode in ("forward", "train"):
                points = sorted((n, r[key]) for (kind, b, m, n), r in results.items()
                                if kind == "layer" and b == backend and m == mode)
                if points:
                    series[f"{backend} {mode}"] = tuple(zip(*points))
        path = line_plot(args.plot_dir / f"long_luke_layer_{name}.png", series,
                         title=f"One BERT-base Long-LUKE layer: {label}", xlabel="words",
                         ylabel=label, caption=caption)
        print(f"wrote {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lengths", type=int, nargs="*", default=LENGTHS,
                        help="words per configuration (none: only the bf16 comparison)")
    parser.add_argument("--plot-dir", type=Path, default=Path("docs/figures"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kind", choices=["core", "layer", "bf16"], help=argparse.SUPPRESS)
    parser.add_argument("--bf16-length", type=int, default=1024,
                        help="words of the bf16-autocast comparison (0: skip it)")
    parser.add_argument("--backend", choices=["dense", "blocked", "flex"], help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=["forward", "train"], help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("--device cuda: torch.cuda.is_available() is False on this machine")
    if args.worker:
        worker(args)
        return
    import torch

    args.machine = (torch.cuda.get_device_name() if args.device == "cuda"
                    else f"CPU {os.cpu_count()} cores")
    print(f"One LUKE layer: hidden {HIDDEN}, {HEADS} heads, FFN {FFN}, window {WINDOW}, "
          f"{ENTITIES} entities; {args.machine}, {args.threads} thread(s)", flush=True)
    print(f"{'kind':<6}{'backend':<9}{'mode':<9}{'words':>6}{'wall s':>8}{'cpu s':>8}"
          f"{'alloc MiB':>10}{'rss MiB':>9}{'GFLOP/s':>9}{'matmul':>8}{'ratio':>7}", flush=True)
    results = {}
    for length in args.lengths:
        for mode in ("forward", "train"):
            configs = [("layer", "dense"), ("layer", "blocked"), ("layer", "flex")]
            if length == 4096 or length == max(args.lengths):
                configs += [("core", "blocked"), ("core", "flex")]
            for kind, backend in configs:
                if backend == "dense" and length > DENSE_MAX:
                    continue
                r = results[(kind, backend, mode, length)] = measure(args, kind, backend, mode,
                                                                     length)
                print(f"{kind:<6}{backend:<9}{mode:<9}{length:>6}{r['wall']:>8.2f}{r['cpu']:>8.2f}"
                      f"{r['alloc_mib']:>10.0f}{r['rss_mib']:>9.0f}{r['gflops']:>9.1f}"
                      f"{r['matmul_gflops']:>8.1f}{r['gflops'] / r['matmul_gflops']:>7.2f}",
                      flush=True)
    if results:
        report(results, args)
    if args.bf16_length:
        print(f"\nbf16 autocast vs fp32, one layer, {args.bf16_length} words, same worker, "
              "passes interleaved:")
        for backend in ("blocked", "flex"):
            for mode in ("forward", "train"):
                r = measure(args, "bf16", backend, mode, args.bf16_length)
                print(f"  {backend:<8}{mode:<8} fp32 {r['fp32']:.2f} s, bf16 {r['bf16']:.2f} s "
                      f"(bf16 {r['fp32'] / r['bf16']:.2f}x the speed); largest output difference "
                      f"{r['relative_error']:.1e} of the largest output", flush=True)
    if results:
        plot(results, args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
