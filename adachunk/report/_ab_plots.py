"""PNG plots of an A/B comparison (matplotlib with the ``Agg`` backend, imported lazily).

Three figures, each written to ``plots/<name>.png`` and embedded in the HTML report:

* ``metrics``: distribution of each metric over documents, A and B side by side (box plots
  with the documents drawn as points, because corpora are often small);
* ``sizes``: histogram of chunk sizes in tokens, A and B overlaid;
* ``deltas``: per-document paired differences B − A for every metric, with the mean and its
  bootstrap 95% interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._ab_stats import METRICS

COLORS = ("#3b6fb6", "#d9822b")  # A blue, B orange (colour-blind safe pair)
_DPI = 100


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)  # no display, whatever the user's default backend
    import matplotlib.pyplot as plt

    return plt


def _jitter(n: int, width: float = 0.12) -> list[float]:
    """Deterministic horizontal offsets for n points (no randomness: images are reproducible)."""
    if n <= 1:
        return [0.0] * n
    return [-width + 2 * width * i / (n - 1) for i in range(n)]


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=_DPI, format="png", metadata={"Software": None})  # no version stamp: stable bytes
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _labels(summary: dict[str, Any]) -> tuple[str, str]:
    p = summary["profiles"]
    return f"A: {p['a']['label']}", f"B: {p['b']['label']}"


def plot_metrics(path: Path, summary: dict[str, Any]) -> Path:
    """Box plots of the winners' metric values per document, A next to B for every metric."""
    plt = _pyplot()
    rows = summary["per_document"]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for side, (key, color) in enumerate(zip(("a", "b"), COLORS)):
        data, pos = [], []
        for i, m in enumerate(METRICS):
            vals = [r[key][m] for r in rows if r[key][m] is not None]
            if vals:
                data.append(vals)
                pos.append(i * 3 + side + 1)
        if data:
            ax.boxplot(data, positions=pos, widths=0.7, patch_artist=True, showfliers=False,
                       boxprops={"facecolor": color, "alpha": 0.35, "edgecolor": color},
                       medianprops={"color": color}, whiskerprops={"color": color}, capprops={"color": color})
            for p, vals in zip(pos, data):
                ax.scatter([p + j for j in _jitter(len(vals))], vals, s=10, color=color, zorder=3)
    for i, m in enumerate(METRICS):
        if all(r["a"][m] is None and r["b"][m] is None for r in rows):  # say why the slot is empty
            ax.text(i * 3 + 1.5, 0.5, "not measured (not weighed)", transform=ax.get_xaxis_transform(), ha="center",
                    color="#888888", fontsize=8)
    ax.set_xticks([i * 3 + 1.5 for i in range(len(METRICS))], [m.upper() for m in METRICS])
    ax.set_xlim(0, len(METRICS) * 3)
    ax.set_ylabel("value (percentage points)")
    ax.set_title("Winning chunkings per document")
    _legend(ax, _labels(summary))
    fig.tight_layout()
    return _save(fig, path)


def plot_sizes(path: Path, summary: dict[str, Any], tokens: tuple[list[int], list[int]]) -> Path:
    """Overlaid histograms of chunk sizes (tokens) of both profiles' winners."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 3.6))
    both = tokens[0] + tokens[1]
    if both:
        lo, hi = min(both), max(both)
        bins = 30 if hi > lo else 1
        for vals, color, label in zip(tokens, COLORS, _labels(summary)):
            if vals:
                ax.hist(vals, bins=bins, range=(lo, hi + (hi == lo)), color=color, alpha=0.45, label=label,
                        edgecolor=color)
        ax.legend(loc="upper right", fontsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # chunk counts are whole numbers
    ax.set_xlabel("chunk size (tokens)")
    ax.set_ylabel("chunks")
    ax.set_title("Chunk size distribution")
    fig.tight_layout()
    return _save(fig, path)


def plot_deltas(path: Path, summary: dict[str, Any]) -> Path:
    """Per-document deltas B − A per metric, with the mean and its bootstrap interval."""
    plt = _pyplot()
    rows = summary["per_document"]
    fig, ax = plt.subplots(figsize=(9, 3.8))
    ax.axhline(0, color="#888888", linewidth=0.8)
    for i, m in enumerate(METRICS):
        vals = [r["delta"][m] for r in rows if r["delta"][m] is not None]
        colors = [COLORS[1] if v > 0 else COLORS[0] if v < 0 else "#888888" for v in vals]
        ax.scatter([i + j for j in _jitter(len(vals), 0.25)], vals, s=14, c=colors, zorder=3)
        if not vals:
            ax.text(i, 0.5, "not measured (not weighed)", transform=ax.get_xaxis_transform(), ha="center", color="#888888", fontsize=8)
        stat = summary["metrics"][m]
        if stat["delta"] is not None:
            lo, hi = stat["ci95"]
            ax.errorbar([i + 0.38], [stat["delta"]], yerr=[[stat["delta"] - lo], [hi - stat["delta"]]],
                        fmt="D", color="black", markersize=5, capsize=4, zorder=4)
    ax.set_xticks(range(len(METRICS)), [m.upper() for m in METRICS])
    ax.set_xlim(-0.6, len(METRICS) - 0.4)
    ax.set_ylabel("B − A (percentage points)")
    ax.set_title("Per-document differences (dots) and mean with 95% bootstrap CI (diamond)")
    fig.tight_layout()
    return _save(fig, path)


def _legend(ax, labels: tuple[str, str]) -> None:
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(facecolor=c, alpha=0.5, edgecolor=c, label=lab) for c, lab in zip(COLORS, labels)],
              loc="lower left", fontsize=8)


def write_plots(folder: Path, summary: dict[str, Any], runs) -> dict[str, Path]:
    """Write every plot into ``folder``; returns name → path (in display order)."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = [r["source"] for r in summary["per_document"]]
    tokens = tuple([t for s in sources for (_, _, t) in run.chunks.get(s, [])] for run in runs)
    return {
        "metrics": plot_metrics(folder / "metrics.png", summary),
        "sizes": plot_sizes(folder / "sizes.png", summary, tokens),
        "deltas": plot_deltas(folder / "deltas.png", summary),
    }
