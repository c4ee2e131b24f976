"""The corpus runner behind ``adachunk run``: per-document jobs, resumable state, backends."""

from .job import DocResult, JobOptions, process_path
from .run import RunSummary, run_corpus

__all__ = ["DocResult", "JobOptions", "process_path", "RunSummary", "run_corpus"]
