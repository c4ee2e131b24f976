"""Retrieval evaluation on a QA set, and QA generation (``adachunk eval``)."""

from __future__ import annotations

from ..evaluate.run import read_documents, run_eval, write_report
from ..evaluate.table import format_report
from ..report.gate import parse_measure_condition as eval_condition
from ..retrieval.measures import parse_budget
from ..retrieval.questions import generate_qa, write_qa

__all__ = ["eval_condition", "format_report", "generate_qa", "parse_budget", "read_documents", "run_eval", "write_qa", "write_report"]
