"""Headless PNG plots for the benchmark scripts: one figure per call, series against a shared axis.

Every benchmark that prints a table also calls :func:`line_plot` with the same numbers, so the
README's figures come from the run that printed its tables.
"""

from pathlib import Path
from typing import Dict, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402


class _PlainLogFormatter(ticker.LogFormatter):
    """Matplotlib's choice of which log ticks to label, written as plain numbers (0.06, 200)."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:g}"


Series = Dict[str, Tuple[Sequence[float], Sequence[float]]]


def line_plot(
    path: Path,
    series: Series,
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    caption: str,
    loglog: bool = True,
) -> Path:
    """Draw each named ``(xs, ys)`` series with markers and write a PNG to ``path``.

    ``caption`` goes under the axes (name the machine and the command that produced the numbers).
    Points whose value is missing (``None`` or NaN) are left out of their series, never drawn as 0.
    """
    if not series:
        raise ValueError(f"nothing to plot for {path}")
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    for name, (xs, ys) in series.items():
        points = [(x, y) for x, y in zip(xs, ys) if y is not None and y == y]
        if points:
            ax.plot(*zip(*points), marker="o", label=name)
    if loglog:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        # plain numbers (0.5, 200, 1024) rather than powers: the values are read, not estimated
        xs = sorted({x for xs, _ in series.values() for x in xs})
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.yaxis.set_major_formatter(_PlainLogFormatter(minor_thresholds=(2, 0.5)))
        ax.yaxis.set_minor_formatter(_PlainLogFormatter(minor_thresholds=(2, 0.5)))
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.text(0.01, 0.01, caption, fontsize=7, va="bottom", wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
