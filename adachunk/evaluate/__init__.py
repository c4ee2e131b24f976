"""Extrinsic evaluation of chunkings: does retrieval over the chunks find the answer evidence?

A QA set (:func:`load_qa`: questions with character-span evidence in the documents) is asked
against each chunking with BM25, a dense embedder, or both fused (RRF); recall@k, MRR and
evidence coverage@k are measured per question (optionally under a token budget), and chunkings
are compared with paired bootstrap statistics. ``adachunk eval`` is the command line; the
functions below are what ``adachunk tune`` calls::

    from adachunk.evaluate import load_qa, evaluate_chunks
    qa = load_qa("examples/qa.jsonl", docs)          # docs: {Document.id: Document}
    res = evaluate_chunks(chunks_by_doc, qa, retriever="bm25", ks=(1, 3, 5, 10))
    res.summary["recall@5"], res.per_question[0]["mrr"]

Importing this package is cheap: ``bm25s`` and embedders load on first use.
"""

from __future__ import annotations

from .chunkings import ChunkingSet, load_chunking, load_chunkings
from .core import EvalResult, evaluate_chunks
from ..report.gate import MeasureCondition, check_measure_gate, parse_measure_condition
from ..retrieval.questions import generate_qa, write_qa
from ..retrieval.measures import Budget, measure_keys, parse_budget
from .qa import QASet, QAWarning, Question, load_qa, load_qa_files, locate_answer
from .run import EvalReport, read_documents, run_eval, write_report
from ..retrieval.retrievers import BM25Retriever, DenseRetriever, HybridRetriever, make_retriever, rrf, tokenize
from .stats import paired_delta, prob_best, questions_needed, selection

__all__ = [
    "BM25Retriever", "Budget", "ChunkingSet", "DenseRetriever", "EvalReport", "EvalResult",
    "HybridRetriever", "MeasureCondition", "QASet", "QAWarning", "Question", "check_measure_gate", "evaluate_chunks", "generate_qa",
    "load_chunking", "load_chunkings", "load_qa", "load_qa_files", "locate_answer", "make_retriever", "measure_keys",
    "paired_delta", "parse_budget", "parse_measure_condition", "prob_best", "questions_needed", "read_documents",
    "rrf", "run_eval", "selection", "tokenize", "write_qa", "write_report",
]
