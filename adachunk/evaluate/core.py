"""``evaluate_chunks``: retrieve chunks for each question of a QA set and measure the evidence found.

**Scope.** By default (``scope="corpus"``) each question is asked against the chunks of *every*
document, as a RAG index would hold them: the other documents are distractors, and a chunk of
another document never counts as evidence. On a small corpus, per-document retrieval
(``scope="doc"``) is nearly trivial (a 10 KB document cut into 1100-token chunks has three or
four, so recall@3 is close to 1 whatever the cuts), which is why corpus scope is the default;
doc scope answers "given the right document, are the right chunks found?" and builds one index
per document.

**Prefixes.** What an index embeds is often more than the chunk: ``adachunk run`` embeds
``embed_prefix(record) + text`` (the heading path, a legal structure path, a table's context).
``prefixes`` gives any such string per chunk; ``prefix_retrievers`` says which retrievers index
it (dense embeds ``prefix + text``, BM25 adds the prefix's terms), and ``prefix_costs`` makes a
retrieved chunk cost ``tokens(prefix) + tokens(text)`` within a budget (the reader gets the
prefix too: "a prefix costs what it adds"; see :func:`adachunk.retrieval.measures.take`).
Evidence is still measured on the chunk text's span. Without ``prefixes`` nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ..datatypes import Chunk
from ..retrieval.measures import Budget, Cut, measure_keys, parse_budget, question_measures, summarise
from .qa import QASet
from ..retrieval.retrievers import LONG_TEXT, BM25Retriever, HybridRetriever, make_retriever, span_tokens, tokenize

SCOPES = ("corpus", "doc")
INDEX_TEXTS = ("text", "heading_path+text")
#: The retrievers a prefix can be indexed by (``evaluate_chunks(prefix_retrievers=...)``).
PREFIX_RETRIEVERS = ("dense", "bm25")


@dataclass
class EvalResult:
    """The measures of one chunking with one retriever.

    Attributes:
        summary: mean of each measure over the questions (``recall@5``, ``mrr``, ...), plus
            ``questions``, ``chunks`` and ``chunk_tokens`` (mean tokens per chunk).
        per_question: one row per question (``id``, ``doc``, ``line``, every measure, ``rank``),
            in QA-file order, for paired statistics.
        keys: the measure names in table order.
        settings: retriever, ks, budget, scope, rrf_k, index_text.
    """

    summary: dict[str, Any]
    per_question: list[dict[str, Any]]
    keys: list[str]
    settings: dict[str, Any] = field(default_factory=dict)

    def values(self, key: str) -> list[float]:
        """One measure per question, in row order."""
        return [float(r[key]) for r in self.per_question]


@dataclass
class _Table:
    """All chunks of a chunking, numbered; parallel lists keyed by chunk number."""

    doc_ids: list[str]
    doc: list[int]
    starts: list[int]
    ends: list[int]
    tokens: list[int]
    texts: list[str]
    doc_text: list[str] = field(default_factory=list)  # each chunk's own text (what a reader reads)
    index: list[int] = field(default_factory=list)  # each chunk's position in its document's list
    prefix: list[str] = field(default_factory=list)  # each chunk's prefix ("" without prefixes)


def _index_text(chunk: Chunk, mode: str) -> str:
    if mode == "heading_path+text" and chunk.heading_path:
        return " > ".join(chunk.heading_path) + "\n\n" + chunk.text
    return chunk.text


def _table(chunks_by_doc: Mapping[str, Sequence[Chunk]], qa: QASet, index_text: str,
           prefixes: Mapping[str, Sequence[str]] | None = None, dense_prefix: bool = False) -> _Table:
    doc_ids = list(dict.fromkeys(list(chunks_by_doc) + qa.docs))
    t = _Table(doc_ids, [], [], [], [], [])
    for d, doc_id in enumerate(doc_ids):
        chunks = chunks_by_doc.get(doc_id, ())
        pre = _doc_prefixes(prefixes, doc_id, len(chunks))
        for j, c in enumerate(chunks):
            t.doc.append(d)
            t.starts.append(c.start)
            t.ends.append(c.end)
            t.tokens.append(max(0, int(c.tokens)))
            t.texts.append(pre[j] + c.text if dense_prefix else _index_text(c, index_text))
            t.doc_text.append(c.text)
            t.index.append(j)
            t.prefix.append(pre[j])
    return t


def _replace_texts(table: _Table, chunks_by_doc: Mapping[str, Sequence[Chunk]],
                   embed_texts: Mapping[str, Sequence[str]]) -> None:
    """Put each document's given embedded strings in place of ``table.texts`` (ValueError when a
    document's count differs from its chunks')."""
    first = 0
    for doc_id in table.doc_ids:
        n = len(chunks_by_doc.get(doc_id, ()))
        got = embed_texts.get(doc_id)
        if got is not None:
            if len(got) != n:
                raise ValueError(f"document {doc_id!r}: {len(got)} embedded texts for {n} chunks")
            table.texts[first:first + n] = [str(t) for t in got]
        first += n


def _doc_prefixes(prefixes: Mapping[str, Sequence[str]] | None, doc_id: str, n: int) -> list[str]:
    """The prefixes of one document's ``n`` chunks ("" each when it has none)."""
    got = (prefixes or {}).get(doc_id)
    if got is None:
        return [""] * n
    if len(got) != n:
        raise ValueError(f"document {doc_id!r}: {len(got)} prefixes for {n} chunks")
    return [str(p or "") for p in got]


def _recount(table: _Table, tokenizer: str) -> Cut:
    """Count every chunk's tokens with ``tokenizer`` (in place) and return the exact truncation
    rule of that tokenizer: the end offset of a chunk's first ``n`` tokens."""
    from ..tokens import get_counter

    counter = get_counter(tokenizer)
    texts = [table.doc_text[i] for i in range(len(table.doc))]
    table.tokens = [int(n) for n in counter.counts(texts)] if texts else []

    def cut(i: int, n: int) -> int:
        positions, sizes = counter.boundaries(texts[i])
        j = int(np.searchsorted(sizes, n, side="right")) - 1  # the last boundary within n tokens
        return table.starts[i] + int(positions[max(j, 0)])

    return cut


def _tokens(table: _Table, chunks_by_doc: Mapping[str, Sequence[Chunk]], qa: QASet, index_text: str,
            lexical_prefix: bool = False) -> list[list[str]]:
    """BM25 terms per chunk number: from one tokenisation of each document when the QA set
    carries its documents (and the chunk is its slice), else from the chunk text."""
    docs = qa.documents or {}
    out: list[list[str]] = []
    for doc_id in table.doc_ids:
        chunks = list(chunks_by_doc.get(doc_id, ()))
        doc = docs.get(doc_id)
        if doc is not None and all(doc.text[c.start:c.end] == c.text for c in chunks):
            terms = span_tokens(doc.text, [(c.start, c.end) for c in chunks])
        else:
            terms = [tokenize(c.text) for c in chunks]
        if index_text == "heading_path+text":
            terms = [tokenize(" > ".join(c.heading_path)) + t if c.heading_path else t for c, t in zip(chunks, terms)]
        out += terms
    if lexical_prefix:
        out = [tokenize(p) + t if p else t for p, t in zip(table.prefix, out)]
    return out


def _groups(table: _Table, qa: QASet, scope: str) -> list[tuple[list[int], list[int]]]:
    """``(chunk numbers, question numbers)`` searched together."""
    if scope == "corpus":
        return [(list(range(len(table.doc))), list(range(len(qa.questions))))]
    number = {d: i for i, d in enumerate(table.doc_ids)}
    by_doc: dict[int, list[int]] = {}
    for i, d in enumerate(table.doc):
        by_doc.setdefault(d, []).append(i)
    groups: dict[int, list[int]] = {}
    for j, q in enumerate(qa.questions):
        groups.setdefault(number[q.doc], []).append(j)
    return [(by_doc.get(d, []), qs) for d, qs in groups.items()]


def evaluate_chunks(chunks_by_doc: Mapping[str, Sequence[Chunk]], qa: QASet, retriever: Any = "bm25",
                    ks: Sequence[int] = (1, 3, 5, 10), budget: "Budget | int | str | None" = None,
                    embedder: Any = None, *, scope: str = "corpus", rrf_k: int = 60,
                    index_text: str = "text", budgets: Sequence[int] = (), tokenizer: str | None = None,
                    long_text: str = "pool", prefixes: Mapping[str, Sequence[str]] | None = None,
                    prefix_retrievers: Sequence[str] = PREFIX_RETRIEVERS, prefix_costs: bool = False,
                    store: Any = None, read_spans: bool = False,
                    embed_texts: Mapping[str, Sequence[str]] | None = None) -> EvalResult:
    """Retrieve chunks for every question of ``qa`` and measure the evidence they hold.

    Args:
        chunks_by_doc: the chunks of each document, keyed by document id (the ids of ``qa``); a
            document of the QA set without chunks makes its questions misses.
        qa: the questions (:func:`adachunk.evaluate.load_qa`).
        retriever: ``bm25``, ``dense``, ``hybrid``, or an object with
            ``rank(texts, queries, top) -> list of index arrays``.
        ks: the cut-offs k of the measures (positive, any order; duplicates dropped).
        budget: token budget of the retrieved context: None, tokens in all (``2048``), or per
            retrieved chunk (``"512*k"``); see :mod:`adachunk.retrieval.measures`.
        embedder: embedder spec or instance for ``dense``/``hybrid`` (None: the default MiniLM).
        scope: ``corpus`` (every document's chunks, the default) or ``doc`` (the question's own).
        rrf_k: the reciprocal-rank-fusion constant of ``hybrid``.
        index_text: what is indexed: ``text`` (the chunk's slice) or ``heading_path+text``.
        budgets: token budgets of ``coverage@Btok`` (as many chunks as fit, no cut-off k).
        tokenizer: count every chunk's tokens with this tokenizer (``cl100k_base``,
            ``o200k_base``) for the budgets and ``tokens@k``, and truncate to exact tokens; None:
            the chunks' own ``tokens``, truncated proportionally.
        long_text: how ``dense`` embeds a chunk longer than the model's input: ``pool`` (mean of
            pieces that fit, as adachunk's index) or ``truncate`` (the model reads its first
            tokens, as most vector stores and Chroma's evaluation do).
        prefixes: per document id, one string per chunk (parallel to ``chunks_by_doc``) put
            before the chunk where ``prefix_retrievers`` index it (module docstring); a document
            without an entry has none. Not with ``index_text="heading_path+text"``.
        prefix_retrievers: which retrievers index the prefixes: ``dense`` (the embedded text,
            also the text any custom ``rank`` object gets) and/or ``bm25`` (its terms; both
            sides of ``hybrid``).
        prefix_costs: a retrieved chunk costs ``tokens(prefix) + tokens(text)`` within the
            budgets, the prefix read first (:func:`adachunk.retrieval.measures.take`); needs
            ``tokenizer``.
        store: a persistent vector cache for ``dense``/``hybrid``
            (:class:`adachunk.retrieval.store.VectorStore`); None: the process cache only.
        read_spans: add ``read@Btok`` to each per-question row, for each budget: what was read,
            in rank order, as ``(doc id, chunk position in its document, start, read end)``.
        embed_texts: per document id, one string per chunk: what ``dense`` (and a custom
            ``rank`` object) embeds instead of ``prefix + text`` (e.g. what ``adachunk run``
            indexes with ``index.table_rows: plain``); BM25 and the budgets still read the
            chunk (and its prefix). A document without an entry embeds as usual.

    Returns:
        The summary and the per-question rows.

    Raises:
        ValueError: an unknown retriever, scope or index text, a bad budget or k, prefixes that
            do not match the chunks.
    """
    ks, budgets = _checked_settings(ks, scope, index_text, long_text, budgets)
    prefix_retrievers = _checked_prefixes(prefixes, prefix_retrievers, prefix_costs, index_text, tokenizer)
    bud = parse_budget(budget)
    ret = make_retriever(retriever, embedder, rrf_k, long_text=long_text, store=store)
    table = _table(chunks_by_doc, qa, index_text, prefixes, "dense" in prefix_retrievers)
    if embed_texts is not None:
        _replace_texts(table, chunks_by_doc, embed_texts)
    cut = _recount(table, tokenizer) if tokenizer else None
    prefix_tokens = _prefix_tokens(table, tokenizer) if prefixes is not None else None
    top = None if budgets else ks[-1]  # a budget may take more chunks than the largest k
    rankings = _rank_chunks(ret, table, chunks_by_doc, qa, index_text, scope, top, "bm25" in prefix_retrievers)
    keys = measure_keys(ks, budgets)
    rows = _question_rows(table, qa, rankings, ks, bud, budgets, cut,
                          prefix_tokens if prefix_costs else None, read_spans)
    summary = summarise(rows, keys)
    summary.update(questions=len(rows), chunks=len(table.doc),
                   chunk_tokens=round(sum(table.tokens) / len(table.tokens), 1) if table.tokens else None)
    settings = {"retriever": getattr(ret, "name", str(retriever)), "ks": ks, "budget": str(bud) if bud else None,
                "budgets": budgets, "tokenizer": tokenizer, "long_text": long_text, "scope": scope, "rrf_k": rrf_k,
                "index_text": index_text}
    if prefixes is not None:
        summary["prefix_tokens"] = round(sum(prefix_tokens) / len(prefix_tokens), 1) if prefix_tokens else None
        settings.update(prefixes=True, prefix_retrievers=list(prefix_retrievers), prefix_costs=prefix_costs)
    if embed_texts is not None:
        settings["embed_texts"] = True
    return EvalResult(summary, rows, keys, settings)


def _checked_prefixes(prefixes: Mapping[str, Sequence[str]] | None, retrievers: Sequence[str], costs: bool,
                      index_text: str, tokenizer: str | None) -> tuple[str, ...]:
    """The retrievers that index the prefixes (none without prefixes); ValueError on a bad
    combination."""
    if isinstance(retrievers, str):
        retrievers = [r for r in retrievers.split(",") if r]
    unknown = [r for r in retrievers if r not in PREFIX_RETRIEVERS]
    if unknown:
        raise ValueError(f"unknown prefix retriever {unknown[0]!r}; allowed: {', '.join(PREFIX_RETRIEVERS)}")
    if prefixes is None:
        if costs:
            raise ValueError("prefix_costs needs prefixes")
        return ()
    if index_text != "text":
        raise ValueError(f"prefixes replace index_text={index_text!r}: give one or the other")
    if costs and not tokenizer:
        raise ValueError("prefix_costs needs a tokenizer to count the prefixes")
    return tuple(retrievers)


def _prefix_tokens(table: _Table, tokenizer: str | None) -> list[int]:
    """Tokens of each chunk's prefix with ``tokenizer`` (0 for none; without a tokenizer, 0)."""
    if not tokenizer:
        return [0] * len(table.prefix)
    from ..tokens import get_counter

    counter = get_counter(tokenizer)
    need = [p for p in dict.fromkeys(table.prefix) if p]
    counts = dict(zip(need, (int(n) for n in counter.counts(need)))) if need else {}
    return [counts.get(p, 0) for p in table.prefix]


def _checked_settings(ks: Sequence[int], scope: str, index_text: str, long_text: str,
                      budgets: Sequence[int]) -> tuple[list[int], list[int]]:
    """``ks`` and ``budgets`` sorted without duplicates, every setting checked (ValueError)."""
    ks = sorted(dict.fromkeys(int(k) for k in ks))
    if not ks or ks[0] < 1:
        raise ValueError(f"ks must be positive integers, got {ks}")
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; allowed: {', '.join(SCOPES)}")
    if index_text not in INDEX_TEXTS:
        raise ValueError(f"unknown index text {index_text!r}; allowed: {', '.join(INDEX_TEXTS)}")
    if long_text not in LONG_TEXT:
        raise ValueError(f"unknown long_text {long_text!r}; allowed: {', '.join(LONG_TEXT)}")
    budgets = sorted(dict.fromkeys(int(b) for b in budgets))
    if budgets and budgets[0] < 1:
        raise ValueError(f"budgets must be positive token counts, got {budgets}")
    return ks, budgets


def _rank_chunks(ret: Any, table: _Table, chunks_by_doc: Mapping[str, Sequence[Chunk]], qa: QASet,
                 index_text: str, scope: str, top: int | None,
                 lexical_prefix: bool = False) -> dict[int, Sequence[int]]:
    """The chunk numbers each question retrieves, best first (at most ``top``), by question number."""
    rankings: dict[int, Sequence[int]] = {}
    lexical = isinstance(ret, (BM25Retriever, HybridRetriever))
    tokens = _tokens(table, chunks_by_doc, qa, index_text, lexical_prefix) if lexical else None
    for chunk_nums, q_nums in _groups(table, qa, scope):
        texts = [table.texts[i] for i in chunk_nums]
        queries = [qa.questions[j].question for j in q_nums]
        if lexical:
            ranked = ret.rank(texts, queries, top=top, tokens=[tokens[i] for i in chunk_nums])
        else:
            ranked = ret.rank(texts, queries, top=top)
        for j, order in zip(q_nums, ranked):
            rankings[j] = [chunk_nums[int(i)] for i in order[:top]]
    return rankings


def _question_rows(table: _Table, qa: QASet, rankings: dict[int, Sequence[int]], ks: list[int], bud: Any,
                   budgets: list[int], cut: Cut | None, prefix_tokens: Sequence[int] | None = None,
                   read_spans: bool = False) -> list[dict[str, Any]]:
    """One row per question, in QA-file order: its id, document, line and every measure."""
    number = {d: i for i, d in enumerate(table.doc_ids)}
    rows = []
    for j, q in enumerate(qa.questions):
        row = {"id": q.id, "doc": q.doc, "line": q.line}
        row.update(question_measures(q.evidence, number[q.doc], rankings.get(j, []), table.doc, table.starts,
                                     table.ends, table.tokens, ks, bud, budgets, cut, prefix_tokens, read_spans))
        if read_spans:
            for b in budgets:
                key = f"read@{b}tok"
                row[key] = [(table.doc_ids[table.doc[i]], table.index[i], s, e) for (i, s, e) in row[key]]
        rows.append(row)
    return rows
