"""One BERT-base layer: Long-LUKE's blocked and flex backends beside dense LUKE and Hugging Face's
``LongformerLayer``, measured in one run.

Run through ``python scripts/benchmarks/benchmark_long_luke.py [--device cpu|cuda] [--threads 1]``.

Configurations (hidden 768, 12 heads, FFN 3072, dropout 0, window 512):

- ``layer``: one layer on random states. ``dense``: transformers' ``LukeLayer`` (full
  ``(n + m)²`` attention) with ``m = 64`` entities; ``blocked`` and ``flex``: the same weights with
  :class:`EntityAwareSelfAttention` and that backend; ``longformer``: transformers'
  ``LongformerLayer`` on ``n`` tokens of which 64, evenly spaced, have global attention (its
  sequence must be a multiple of the window, so it gets the 64 global tokens inside the ``n``
  words: 64 tokens fewer than Long-LUKE, in its favour). ``flex+compiled``: flex with
  ``compile_pointwise`` (the work after the attention core compiled by inductor,
  :mod:`allennlp_longent.modules.compiled_layer`; its worker compiles in the warm-up pass and
  holds inductor's modules in its baseline RSS). ``forward`` runs under ``no_grad`` in eval
  mode; ``train`` is forward + backward of the sum of the outputs (parameters and inputs get
  gradients).
- ``core``: the attention core alone (per-head queries, keys, values given; no projections),
  ``blocked_entity_attention`` against ``flex_entity_attention``.
- ``matmul``: the reference rates, ``(n + m, 768) @ (768, 3072)`` (the layer's feed-forward
  matmul) and ``(12, n, 64) @ (12, 64, 512)`` (the core's: same inner dimension as ``QKᵀ``).

Method: for each length and pass, one persistent subprocess per configuration builds its layer and
inputs and runs one warm-up pass (flex compiles there); then ``--repeats`` rounds ask every
subprocess in turn for one timed pass (interleaved, so a burst of load on the shared machine hits
every configuration alike). Per pass: process CPU seconds (``time.process_time``; on CUDA the
wall clock after synchronising), wall seconds, and the process peak RSS (Linux ``VmHWM`` after
``clear_refs``, every allocation included; freed memory goes back to the kernel between passes,
``malloc_trim``). Printed: the median and the spread (min–max) of the CPU seconds, the largest peak
RSS and its excess over the RSS before the pass; the report also gives that earlier RSS split into
anonymous and file-backed pages (``RssAnon``, ``RssFile``).

Useful FLOPs (multiply-add = 2): the core does ``4·d`` per head for each (query, key) pair it must
see: the band's ``n·(w + 1) − h(h + 1)`` word pairs and ``2·n·m + m²`` entity pairs (dense LUKE:
all ``(n + m)²``); the layer adds ``26·(n + m)·H²`` for its projections and feed-forward (word Q,
K, V, Q_w2e; entity K, V, Q_e2w, Q_e2e; output; FFN 2·4H²). A training step counts 3× the forward.
Masked and recomputed scores count as no useful work. Rate = useful FLOPs / median CPU seconds,
over the median rate of the reference matmul measured in the same rounds.
"""

import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HIDDEN, HEADS, FFN, WINDOW, ENTITIES = 768, 12, 3072, 512, 64
LENGTHS = [1024, 4096, 16384]
LAYER_BACKENDS = ("dense", "blocked", "flex", "flex+compiled", "longformer")
GOAL_BACKENDS = ("flex", "flex+compiled")
DENSE_MAX = 4096  # dense LUKE's (n + m)² scores per head: 16k words would need > 12 GiB
GOAL_LENGTHS = (4096, 16384)
TARGETS = {"layer": 0.85, "core": 0.6, "speedup": 2.5, "memory": 2 / 3}
RESULT = "RESULT "


def status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def reset_peak_rss() -> int:
    """Returns freed memory to the kernel, restarts the peak (``VmHWM``) from the current RSS
    (``clear_refs``) and returns that RSS in KiB: the peak after a pass, minus this, is what the
    pass added."""
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    Path("/proc/self/clear_refs").write_text("5")
    return status_kib("VmRSS")


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


def clock(device) -> float:
    return time.process_time() if device.type == "cpu" else time.perf_counter()


def build(kind: str, backend: str, words: int, mode: str, device, autocast: str = "none"):
    """A closure running one pass of the configuration; ``autocast`` ``bf16``: the pass runs under
    bf16 autocast (the core and the reference matmuls get bf16 inputs)."""
    import torch

    torch.manual_seed(0)
    train = mode == "train"
    low = autocast == "bf16"
    if kind == "matmul":
        return build_matmul(words, device, torch.bfloat16 if low else torch.float32)
    if kind == "core":
        call, parameters = build_core(backend, words, train, device,
                                      torch.bfloat16 if low else torch.float32)
    elif backend == "longformer":
        call, parameters = build_longformer(words, train, device)
    else:
        call, parameters = build_luke(backend, words, train, device)

    def run():
        with torch.set_grad_enabled(train), torch.autocast(device.type, torch.bfloat16,
                                                           enabled=low):
            outputs = call()
            if train:
                sum(o.sum() for o in outputs).backward()
                for parameter in parameters:
                    parameter.grad = None
        synchronize(device)
    run.call = call
    return run


def build_matmul(words: int, device, dtype):
    import torch

    shapes = {"layer": ((words + ENTITIES, HIDDEN), (HIDDEN, FFN)),
              "core": ((HEADS, words, HIDDEN // HEADS), (HEADS, HIDDEN // HEADS, WINDOW))}
    operands = {k: [torch.randn(*s, device=device, dtype=dtype) for s in v]
                for k, v in shapes.items()}

    def run():
        rates = {}
        for name, (a, b) in operands.items():
            synchronize(device)
            start = clock(device)
            torch.matmul(a, b)
            synchronize(device)
            rates[name] = 2 * a.numel() * b.size(-1) / (clock(device) - start) / 1e9
        return rates
    return run


def build_core(backend: str, words: int, train: bool, device, dtype):
    import torch

    from allennlp_longent.modules.entity_aware_attention import blocked_entity_attention
    from allennlp_longent.modules.flex_entity_attention import (
        EntityTensors,
        flex_entity_attention,
    )

    head = HIDDEN // HEADS
    inputs = [torch.randn(1, HEADS, n, head, device=device, dtype=dtype, requires_grad=train)
              for n in (words, words, words, words, ENTITIES, ENTITIES, ENTITIES, ENTITIES)]
    word_mask = torch.ones(1, words, dtype=torch.bool, device=device)
    entity_mask = torch.ones(1, ENTITIES, dtype=torch.bool, device=device)
    arguments = (*inputs[:3], word_mask, WINDOW // 2, head ** -0.5,
                 EntityTensors(*inputs[3:], entity_mask))
    if backend == "flex":
        return (lambda: flex_entity_attention(*arguments)), inputs
    return (lambda: blocked_entity_attention(*arguments, torch.nn.Identity())), inputs


def build_luke(backend: str, words: int, train: bool, device):
    import torch
    from transformers import LukeConfig, LukeModel

    from allennlp_longent.modules.entity_aware_attention import WordEntityMask
    from allennlp_longent.modules.long_luke import LongLukeEncoder

    config = LukeConfig(
        vocab_size=100, entity_vocab_size=10, hidden_size=HIDDEN, entity_emb_size=HIDDEN,
        num_hidden_layers=1, num_attention_heads=HEADS, intermediate_size=FFN,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    )
    luke = LukeModel(config, add_pooling_layer=False)
    encoder = None
    if backend != "dense":
        compiled = backend == "flex+compiled"
        encoder = LongLukeEncoder(luke, WINDOW, attention_backend=backend.split("+")[0],
                                  compile_pointwise=compiled)
        luke = encoder.luke
    layer = luke.encoder.layer[0].to(device).train(train)
    word_states = torch.randn(1, words, HIDDEN, device=device, requires_grad=train)
    entity_states = torch.randn(1, ENTITIES, HIDDEN, device=device, requires_grad=train)
    if backend == "dense":
        mask = torch.zeros(1, 1, 1, words + ENTITIES, device=device)
    else:
        mask = WordEntityMask(torch.ones(1, words, dtype=torch.bool, device=device),
                              torch.ones(1, ENTITIES, dtype=torch.bool, device=device))
    if encoder is None:
        run = lambda: layer(word_states, entity_states, mask)[:2]  # noqa: E731
    else:  # eager, or with compile_pointwise
        run = lambda: encoder.run_layer(layer, word_states, entity_states, mask)  # noqa: E731
    return run, [word_states, entity_states, *layer.parameters()]


def build_longformer(words: int, train: bool, device):
    """transformers' ``LongformerLayer`` with the mask convention of ``LongformerModel``'s encoder
    (0 local, > 0 global, < 0 padding)."""
    import torch
    from transformers import LongformerConfig
    from transformers.models.longformer.modeling_longformer import LongformerLayer

    if words % WINDOW:
        raise ValueError(f"Longformer needs a multiple of its window {WINDOW}, got {words} words")
    config = LongformerConfig(
        hidden_size=HIDDEN, num_attention_heads=HEADS, intermediate_size=FFN,
        attention_window=[WINDOW], num_hidden_layers=1, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    layer = LongformerLayer(config, layer_id=0).to(device).train(train)
    states = torch.randn(1, words, HIDDEN, device=device, requires_grad=train)
    mask = torch.zeros(1, words, device=device)
    mask[0, torch.linspace(0, words - 1, ENTITIES).long()] = 10000.0
    masks = {"is_index_masked": mask < 0, "is_index_global_attn": mask > 0,
             "is_global_attn": True}
    return (lambda: layer(states, attention_mask=mask, **masks)[:1],
            [states, *layer.parameters()])


def worker(args) -> None:
    """Build, warm up, then one timed pass per ``run`` line on stdin, one JSON line per pass."""
    import torch

    # Every worker imports the same modules, so the processes' resident baselines are comparable.
    import transformers.models.longformer.modeling_longformer  # noqa: F401
    import transformers.models.luke.modeling_luke  # noqa: F401

    import allennlp_longent.modules.long_luke  # noqa: F401

    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    run = build(args.kind, args.backend, args.length, args.mode, device, args.autocast)
    run()  # warm-up: flex compiles here
    for line in sys.stdin:
        if line.strip() != "run":
            break
        before = reset_peak_rss()
        # Resident before the pass, anonymous (heap: model, inputs, leftovers) and file-backed
        # (mapped libraries: the kernel may drop these pages under memory pressure, which lowers
        # the baseline, and so the peak, without any change in this process).
        before_parts = status_kib("RssAnon"), status_kib("RssFile")
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        start, start_cpu = time.perf_counter(), clock(device)
        rates = run()
        synchronize(device)
        cpu, wall = clock(device) - start_cpu, time.perf_counter() - start
        peak = status_kib("VmHWM")
        result = {"cpu": cpu, "wall": wall, "rss_mib": peak / 1024,
                  "extra_mib": (peak - before) / 1024, "before_anon_mib": before_parts[0] / 1024,
                  "before_file_mib": before_parts[1] / 1024}
        if device.type == "cuda":
            result["cuda_mib"] = torch.cuda.max_memory_allocated() / 2 ** 20
        if rates:
            result["rates"] = rates
        print(RESULT + json.dumps(result), flush=True)


class Worker:
    def __init__(self, args, kind: str, backend: str, mode: str, length: int) -> None:
        command = [sys.executable, __file__, "--worker", "--kind", kind, "--backend", backend,
                   "--mode", mode, "--length", str(length), "--threads", str(args.threads),
                   "--device", args.device, "--autocast", args.autocast]
        # Passive OpenMP waiting: spinning threads would add CPU time without doing work.
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS=str(args.threads))
        self.name = f"{kind} {backend} {mode} at {length} words"
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=env)

    def measure(self) -> dict:
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(RESULT):
                return json.loads(line[len(RESULT):])
        raise RuntimeError(f"{self.name} failed (exit {self.process.wait()}); its stderr is above")

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def configurations(length: int, lengths, backends=LAYER_BACKENDS) -> list:
    configs = [("layer", b) for b in LAYER_BACKENDS
               if b in backends and (b != "dense" or length <= DENSE_MAX)]
    if length in GOAL_LENGTHS or length == max(lengths):
        configs += [("core", b) for b in ("blocked", "flex") if b in backends]
    return configs + [("matmul", "reference")]


def summarise(samples: list, kind: str, backend: str, mode: str, length: int,
              reference: dict) -> dict:
    cpu = [s["cpu"] for s in samples]
    result = {"cpu": statistics.median(cpu), "cpu_min": min(cpu), "cpu_max": max(cpu),
              "wall": statistics.median(s["wall"] for s in samples),
              "rss_mib": max(s["rss_mib"] for s in samples),
              "extra_mib": max(s["extra_mib"] for s in samples),
              "before_anon_mib": max(s["before_anon_mib"] for s in samples),
              "before_file_mib": max(s["before_file_mib"] for s in samples)}
    if "cuda_mib" in samples[0]:
        result["cuda_mib"] = max(s["cuda_mib"] for s in samples)
    if backend != "longformer":
        result["gflops"] = useful_flops(kind, backend, length, mode) / result["cpu"] / 1e9
        result["ratio"] = result["gflops"] / reference[kind]
    return result


def measure_group(args, mode: str, length: int) -> dict:
    """Every configuration of one (length, pass) in interleaved rounds."""
    workers = {c: Worker(args, *c, mode, length)
               for c in configurations(length, args.lengths, args.backends)}
    samples = {c: [] for c in workers}
    try:
        for _ in range(args.repeats):
            for config, process in workers.items():
                samples[config].append(process.measure())
    finally:
        for process in workers.values():
            process.close()
    rates = [s["rates"] for s in samples.pop(("matmul", "reference"))]
    reference = {name: statistics.median(r[name] for r in rates) for name in ("layer", "core")}
    print(f"\n{mode} at {length} words; reference matmul {reference['layer']:.1f} GFLOP/s "
          f"(layer shape), {reference['core']:.1f} (core shape)", flush=True)
    results = {}
    for (kind, backend), runs in samples.items():
        r = results[(kind, backend, mode, length)] = summarise(runs, kind, backend, mode, length,
                                                               reference)
        rate = f"{r['gflops']:>8.1f}{r['ratio']:>7.2f}" if "ratio" in r else f"{'':>15}"
        print(f"  {kind:<6}{backend:<14}{r['cpu']:>7.2f} [{r['cpu_min']:.2f}-{r['cpu_max']:.2f}]"
              f"{r['wall']:>8.2f}{r['rss_mib']:>9.0f}{r['extra_mib']:>9.0f}{rate}", flush=True)
    return results


def report(results: dict) -> None:
    """The issue-22 goals and the ratios against Longformer's layer."""
    print("\nagainst HF LongformerLayer (CPU time and peak RSS of the layer, same pass):")
    for (kind, backend, mode, length), r in sorted(results.items(), key=lambda i: i[0][3]):
        peer = results.get(("layer", "longformer", mode, length))
        if kind != "layer" or backend in ("longformer",) or not peer:
            continue
        print(f"  {length:>6} {mode:<8}{backend:<14} {peer['cpu'] / r['cpu']:5.2f}x faster, "
              f"{r['rss_mib'] / peer['rss_mib']:.2f} of its peak RSS "
              f"({r['extra_mib'] / peer['extra_mib']:.2f} of its extra RSS)")
    if any("cuda_mib" in r for r in results.values()):
        print("\npeak CUDA memory of the pass, MiB (torch.cuda.max_memory_allocated):")
        for (kind, backend, mode, length), r in sorted(results.items(), key=lambda i: i[0][3]):
            peer = results.get(("layer", "longformer", mode, length))
            if kind == "layer" and peer:
                print(f"  {length:>6} {mode:<8}{backend:<14} {r['cuda_mib']:8.0f} "
                      f"({r['cuda_mib'] / peer['cuda_mib']:.2f} of Longformer's)")
    print("\nresident before the pass, MiB (anonymous + file-backed, largest of the rounds):")
    for (kind, backend, mode, length), r in sorted(results.items(), key=lambda i: i[0][3]):
        if kind == "layer" and "before_anon_mib" in r:  # absent from runs before 2026-11-24
            print(f"  {length:>6} {mode:<8}{backend:<14} {r['before_anon_mib']:6.0f} + "
                  f"{r['before_file_mib']:4.0f}")
    for backend in GOAL_BACKENDS:
        report_goals(results, backend)


def report_goals(results: dict, backend: str) -> None:
    if not any(key[:3] == ("layer", backend, "train") for key in results):
        return
    print(f"\nissue 22 goals ({backend} backend, training step):")
    for length in GOAL_LENGTHS:
        layer = results.get(("layer", backend, "train", length))
        if not layer:
            continue
        peer = results.get(("layer", "longformer", "train", length))
        lines = [("layer rate", layer["ratio"], TARGETS["layer"], ">=")]
        for mode in ("train", "forward"):
            core = results.get(("core", "flex", mode, length))
            if core:
                lines.append((f"core rate ({mode})", core["ratio"], TARGETS["core"], ">="))
        if length == max(GOAL_LENGTHS) and peer:
            lines += [("speed-up over Longformer", peer["cpu"] / layer["cpu"],
                       TARGETS["speedup"], ">="),
                      ("peak RSS / Longformer's", layer["rss_mib"] / peer["rss_mib"],
                       TARGETS["memory"], "<=")]
        for name, value, target, sense in lines:
            met = value >= target if sense == ">=" else value <= target
            print(f"  {length:>6} words, {name}: {value:.2f} (goal {sense} {target:.2f}) "
                  f"{'met' if met else 'MISSED'}")


def plot(results: dict, args) -> None:
    from plotting import line_plot

    caption = (f"{args.device.upper()}, {args.threads} thread(s), shared with other jobs, so CPU "
               f"seconds are plotted; python scripts/benchmarks/benchmark_long_luke.py --device "
               f"{args.device} --threads {args.threads}; words "
               + ", ".join(map(str, args.lengths)))
    for key, label, name in (("rss_mib", "peak RSS MiB", "memory"),
                             ("cpu" if args.device == "cpu" else "wall", "seconds", "time")):
        series = {}
        for backend in LAYER_BACKENDS:
            for mode in ("forward", "train"):
                points = sorted((n, r[key]) for (kind, b, m, n), r in results.items()
                                if kind == "layer" and b == backend and m == mode)
                if points:
                    series[f"{backend} {mode}"] = tuple(zip(*points))
        path = line_plot(args.plot_dir / f"long_luke_layer_{name}.png", series,
                         title=f"One BERT-base layer: {label}", xlabel="words",
                         ylabel=label, caption=caption)
        print(f"wrote {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--autocast", default="none", choices=["none", "bf16"],
                        help="bf16: every pass under bf16 autocast (how one trains on a GPU)")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per configuration")
    parser.add_argument("--lengths", type=int, nargs="+", default=LENGTHS,
                        help="words per configuration (multiples of 512, for Longformer)")
    parser.add_argument("--modes", nargs="+", default=["forward", "train"],
                        choices=["forward", "train"])
    parser.add_argument("--backends", nargs="+", default=list(LAYER_BACKENDS),
                        choices=LAYER_BACKENDS,
                        help="layers to measure (the attention core runs for blocked and flex)")
    parser.add_argument("--plot-dir", type=Path, default=Path("docs/figures"))
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--report-from", type=Path, nargs="+",
                        help="no measurement: report and plot the results of earlier --json runs")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kind", choices=["core", "layer", "matmul"], help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=["forward", "train"], help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch.cuda.is_available() is False on this machine")
    if args.worker:
        worker(args)
        return
    if args.report_from:
        results = {tuple(key): value for path in args.report_from
                   for key, value in json.loads(path.read_text())}
        args.lengths = sorted({key[3] for key in results})
        report(results)
        if not args.no_plot:
            plot(results, args)
        return
    bad = [n for n in args.lengths if n % WINDOW]
    if bad:
        parser.error(f"--lengths must be multiples of {WINDOW} (Longformer's window): {bad}")
    args.machine = (torch.cuda.get_device_name() if args.device == "cuda"
                    else f"CPU {os.cpu_count()} cores")
    print(f"One layer: hidden {HIDDEN}, {HEADS} heads, FFN {FFN}, window {WINDOW}, {ENTITIES} "
          f"entities (Longformer: global tokens); {args.machine}, {args.threads} thread(s), "
          f"{args.repeats} interleaved rounds, autocast {args.autocast}", flush=True)
    print(f"  {'kind':<6}{'backend':<14}{'cpu s [min-max]':>19}{'wall s':>8}{'RSS MiB':>9}"
          f"{'extra':>9}{'GFLOP/s':>8}{'ratio':>7}")
    results = {}
    for length in args.lengths:
        for mode in args.modes:
            results.update(measure_group(args, mode, length))
            if args.json:  # after every group, so a cut run keeps what it measured
                args.json.write_text(json.dumps([[list(k), v] for k, v in results.items()]))
    report(results)
    if not args.no_plot:
        plot(results, args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
