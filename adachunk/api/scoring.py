"""The metrics of a chunking (``adachunk score``)."""

from __future__ import annotations

from ..metrics.suite import context_for, metric_name, score_chunking
from ..selection.aggregate import aggregate

__all__ = ["aggregate", "context_for", "metric_name", "score_chunking"]
