"""Where the CPU time of one BERT-base Long-LUKE layer's pass goes, by aten operator.

``python scripts/benchmarks/benchmark_long_luke_profile.py [--backend flex] [--lengths 4096 16384]
[--mode train]``: for each length, one layer of ``benchmark_long_luke_layer`` (same shapes and
inputs) runs a warm-up pass, a plain timed pass, then a pass under a dispatch mode that charges
each aten call's thread CPU time to its operator. Printed: the operators with the most CPU time,
and the time by category: the projections' and feed-forward's matmuls (``addmm``/``mm``), the
attention's batched matmuls (``bmm``/``baddbmm``), copies and fills, other element-wise work and
reductions, the compiled flex kernel (``flex_attention``), and the time outside aten calls
(Python, autograd). Thread CPU time
(``time.thread_time``), not wall time, so load from other jobs on a shared machine does not count;
torch's profiler reports wall time per operator. ``flex+compiled`` is not offered: torch.compile
refuses to run under a Python dispatch mode.
"""

import argparse
import collections
import sys
import time
from pathlib import Path

CATEGORIES = {
    "projection/FFN matmul": ("addmm", "mm"),
    "attention matmul": ("bmm", "baddbmm", "baddbmm_"),
    "compiled flex kernel": ("flex_attention",),
    "copies and fills": ("copy_", "clone", "cat", "stack", "new_zeros", "zeros_like", "zero_",
                         "fill_", "new_empty", "empty_like", "constant_pad_nd", "slice_backward",
                         "index", "index_put_", "_to_copy", "new_full", "full_like"),
}


def category(name: str) -> str:
    for label, names in CATEGORIES.items():
        if name in names:
            return label
    return "element-wise and reductions"


def profile(run):
    """Thread CPU seconds per aten operator (name → (seconds, calls)) and in total."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class CpuTimes(TorchDispatchMode):
        supports_higher_order_operators = True  # compiled flex_attention runs as one such call

        def __init__(self):
            super().__init__()
            self.seconds = collections.Counter()
            self.calls = collections.Counter()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            start = time.thread_time()
            out = func(*args, **(kwargs or {}))
            name = getattr(func, "__name__", str(func)).split(".")[0]
            self.seconds[name] += time.thread_time() - start
            self.calls[name] += 1
            return out

    mode = CpuTimes()
    start = time.thread_time()
    with mode:
        run()
    return mode, time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", default="layer", choices=["layer", "core"])
    parser.add_argument("--backend", default="flex",
                        choices=["dense", "blocked", "flex", "longformer"])
    parser.add_argument("--mode", default="train", choices=["forward", "train"])
    parser.add_argument("--lengths", type=int, nargs="+", default=[4096, 16384])
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    import torch
    from benchmark_long_luke_layer import build, useful_flops

    torch.set_num_threads(1)
    device = torch.device("cpu")
    for length in args.lengths:
        run = build(args.kind, args.backend, length, args.mode, device)
        run()
        start = time.thread_time()
        run()
        plain = time.thread_time() - start
        mode, total = profile(run)
        traced = sum(mode.seconds.values())
        flops = useful_flops(args.kind, args.backend, length, args.mode) / 1e9
        print(f"\n{args.kind} {args.backend} {args.mode}, {length} words: {plain:.2f} CPU s "
              f"(profiled pass {total:.2f} s; {flops:.0f} useful GFLOP)")
        print(f"  {'operator':<32}{'CPU s':>8}{'share':>7}{'calls':>7}")
        for name, seconds in mode.seconds.most_common(args.top):
            print(f"  {name:<32}{seconds:>8.3f}{seconds / total:>7.1%}{mode.calls[name]:>7}")
        by_category = collections.Counter()
        for name, seconds in mode.seconds.items():
            by_category[category(name)] += seconds
        by_category["outside aten calls (Python, autograd)"] = total - traced
        print(f"  {'-- by category':<32}")
        for label, seconds in by_category.most_common():
            print(f"  {label:<44}{seconds:>8.3f}{seconds / total:>7.1%}")
        del run


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(1, str(Path(__file__).resolve().parents[2]))
    main()
