"""The flex backend's CPU training kernel with the band's probabilities recomputed in the backward
(the default) against kept between the passes (``keep_probs``): CPU seconds and extra peak RSS of
the attention core's training step, both variants in one process, interleaved.

``OMP_NUM_THREADS=1 python scripts/benchmarks/benchmark_band_recompute.py [--words 16384]
[--rounds 5]``. Shapes as the core of ``benchmark_long_luke_layer`` (12 heads of 64, 64 entities,
window 512). Per pass: process CPU seconds and the process's peak RSS over its RSS before the pass
(Linux ``VmHWM`` after ``clear_refs``, freed memory returned with ``malloc_trim`` between passes).
Printed: median [min–max] CPU seconds and the largest extra RSS per variant, and whether the two
variants' outputs and gradients are equal bit for bit.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

HEADS, WIDTH, ENTITIES, WINDOW = 12, 64, 64, 512


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=16384)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import torch
    from benchmark_long_luke_layer import reset_peak_rss, status_kib

    from allennlp_longent.modules.flex_entity_attention import (
        EntityTensors,
        flex_entity_attention,
    )

    torch.set_num_threads(1)
    torch.manual_seed(0)
    sizes = [args.words] * 4 + [ENTITIES] * 4
    inputs = [torch.randn(1, HEADS, n, WIDTH, requires_grad=True) for n in sizes]
    word_mask = torch.ones(1, args.words, dtype=torch.bool)
    entity_mask = torch.ones(1, ENTITIES, dtype=torch.bool)

    def step(keep: bool) -> list:
        words, entities = flex_entity_attention(
            *inputs[:3], word_mask, WINDOW // 2, WIDTH ** -0.5,
            EntityTensors(*inputs[3:], entity_mask), keep_probs=keep)
        (words.sum() + entities.sum()).backward()
        grads = [t.grad for t in inputs]
        for t in inputs:
            t.grad = None
        return [words.detach(), entities.detach(), *grads]

    equal = all(torch.equal(a, b) for a, b in zip(step(True), step(False)))  # also the warm-up
    samples = {"kept": [], "recomputed": []}
    for round_ in range(args.rounds):
        order = ("kept", "recomputed") if round_ % 2 == 0 else ("recomputed", "kept")
        for name in order:
            before = reset_peak_rss()
            start = time.process_time()
            step(name == "kept")
            seconds = time.process_time() - start
            samples[name].append((seconds, (status_kib("VmHWM") - before) / 1024))
    print(f"attention core training step, {args.words} words, {HEADS} heads, {ENTITIES} "
          f"entities, window {WINDOW}, 1 thread, {args.rounds} interleaved rounds")
    for name, runs in samples.items():
        seconds = [s for s, _ in runs]
        print(f"  probabilities {name:<11} {statistics.median(seconds):.3f} CPU s "
              f"[{min(seconds):.3f}-{max(seconds):.3f}], extra RSS {max(m for _, m in runs):.0f} "
              "MiB")
    print(f"  outputs and gradients bit-equal: {equal}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
