"""A/B of two profiles on one corpus (``adachunk ab``)."""

from __future__ import annotations

from ..report._ab_moves import top_rules
from ..report.ab import require_report_extra, run_ab
from ..report.gate import parse_metric_condition as ab_condition

__all__ = ["ab_condition", "require_report_extra", "run_ab", "top_rules"]
