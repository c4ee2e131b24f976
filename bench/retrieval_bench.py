"""Retrieval of adachunk's chunkings and the peers' in one run: Chroma's protocol and recall within
a token budget, dense and BM25, with paired bootstrap CIs against the best peer.

    python bench/retrieval_bench.py [--corpus chroma-dev|clair|financebench-dev ...]
        [--sizes 128,256,512] [--profiles default,legal,finance,technical]
        [--peers chonkie,chonkie_token,langchain,semchunk,semantic]
        [--prefix-forms none,heading_path,heading_last,heading_path_if_not_start]
        [--prefix-retrievers dense,bm25] [--prefix-free]
        [--cache DIR] [--vectors DIR | --no-vector-cache] [--out bench/out/retrieval]
        [--peer-text plain|ada]

Corpora (from ../shared, each skipped with a message when absent):

* ``chroma-dev``: Chroma's general chunking evaluation, development split (3 corpora, 276 questions
  with evidence spans: ``questions.csv`` read as it is by ``adachunk.evaluate.load_qa``).
  Retrieval is corpus-wide (every chunk of every document in one index, as Chroma's).
* ``clair``: the 33 CLAIR documents with ``adachunk eval generate`` questions (20 per document,
  seed 0): a lexical proxy (README "Evaluate retrieval"), not a real QA set. Corpus-wide.
* ``financebench-dev``: 12 SEC filings as PDFs and FinanceBench's 26 questions about them, with
  zero-based evidence pages (``../shared/corpus/financebench-dev/README.md``). Single-document
  retrieval (each question among its own filing's chunks). adachunk reads the PDFs itself
  (``adachunk.ingest.read_document``: Markdown text with page offsets); the peers chunk the plain
  text pdfplumber gives page by page (``page.extract_text()``, pages joined with a blank line,
  each page's offsets kept), or with ``--peer-text ada`` adachunk's reading too (what the
  reading costs apart from the cuts: bench/RESULTS.md "The gap on 10-K filings is the reading").
  Both readings are cached in ``--cache`` (a few minutes the first time). Default profiles here:
  ``default`` and ``finance``.

Every chunk is counted in cl100k tokens. Dense = all-MiniLM-L6-v2 reading each chunk's first 256
word pieces (as Chroma's evaluation and most vector stores embed); BM25 = bm25s over adachunk's
tokenizer. Chunks are read in rank order until a budget of 1,000 or 2,000 tokens, the last one
truncated to exact tokens. Measures:

* span corpora (chroma-dev, clair): ``coverage@1000tok``/``coverage@2000tok`` (the evidence
  characters among the chunks read), and Chroma's ``recall``/``precision``/``iou`` at k = 5;
* financebench-dev: ``page_hit@Btok`` (some token read comes from a chunk whose character span
  overlaps an evidence page; a chunk's pages are the pages its span overlaps, from the reader's
  page offsets) and ``evidence_recall@Btok``: the evidence text's normalised words and numbers
  (case-folded, ``1,577`` = ``1577``, adachunk's BM25 stop words dropped; all evidence passages of
  a question together) found among the normalised words of the chunk text read within the budget,
  counted as a bag of words: Σ_w min(count in evidence, count read) / Σ_w count in evidence (a
  figure that appears twice in the evidence must be read twice). The prefix's words are not
  counted (evidence is measured on the chunk text, as coverage is). The output also gives the
  readers' ceilings: the recall of the whole document and of the evidence pages alone.

Chunkings: the peers at each size (cl100k tokens, no overlap), adachunk's DP alone at each size
(the default profile with cl100k tokens, min size a quarter of the max), and ``adachunk run``'s
winners for each profile (its own pool, selection and tokenizer), each evaluated twice: text only,
and ``(+prefix)``: with what ``adachunk run`` embeds before each chunk (records made as
``adachunk/runner/job.py::process_path`` makes them, ``chunk_record`` + ``enrich_records``, then
``embed_prefix(record, policy.index.embed_text)``: the heading path; ``finance``/``legal`` recipes
add structure paths, table context, definitions), and dense embeds the whole string the index
embeds (``embed_text(record, mode, index.table_rows)``: with ``table_rows: plain`` the tables'
rows without pipes; the chunk text read within the budget is the same). ``--prefix-forms`` adds rows with other prefixes
on the same chunks: ``heading_path`` (the full path joined by " > "), ``heading_last`` (the
innermost heading), ``heading_path_if_not_start`` (the path only when the chunk does not start
with a heading line), ``none`` (the text-only row, not repeated). A prefix is indexed by the
retrievers of ``--prefix-retrievers`` (default both) and costs its tokens within the budget
(read before the text; ``--prefix-free`` to not count them). Peers have no prefixes.

Caches (``--cache``, default ``~/.cache/adachunk-bench/retrieval``): chunkings per corpus (their
spans; a run's prefixes and heading paths; keyed by the profile's fingerprint, a digest of the
texts chunked and adachunk's code digest, so a changed reading, rule or DP is chunked again),
the financebench readings (keyed by the code digest too), and the dense vectors
(``--vectors``, default ``CACHE/vectors``: :class:`adachunk.retrieval.store.VectorStore`, keyed by
the embedder fingerprint, the long-text mode and the text's sha1), so that a second run embeds
nothing and gives the same numbers. ``--fresh`` rebuilds chunkings and readings; the vectors are
kept (they are keyed by content: delete the folder to re-embed).

Output: Markdown tables per corpus on stdout and in ``--out/retrieval.md``, every number and CI in
``--out/retrieval.json`` (with every per-question value, for any other pairing). The CI of
``A - best peer`` is the paired percentile bootstrap over questions (2,000 resamples, seed 0)
against the peer configuration with the highest mean on that measure; each DP size is also
compared with chonkie's RecursiveChunker at the same size. Per corpus, the **mean of the four**
budget measures (dense and BM25 at 1,000 and 2,000 tokens; coverage on the span corpora, evidence
recall on financebench-dev) of every adachunk row is compared with the single peer configuration
best on that mean; the acceptance-bar table holds every chunking against the best *other* peer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED = ROOT.parent / "shared" / "corpus"
CORPORA = ("chroma-dev", "clair", "financebench-dev")
BUDGETS = (1000, 2000)
K = 5
MEASURES = [f"coverage@{b}tok" for b in BUDGETS] + [f"coverage@{K}", f"precision@{K}", f"iou@{K}"]
PAGE_MEASURES = [f"page_hit@{b}tok" for b in BUDGETS] + [f"evidence_recall@{b}tok" for b in BUDGETS]
TOKENIZER = "cl100k_base"
PREFIX_FORMS = ("none", "heading_path", "heading_last", "heading_path_if_not_start")
RETRIEVERS = ("dense", "bm25")


# --- corpora ---------------------------------------------------------------------------------------
@dataclass
class Corpus:
    """One corpus as the bench runs it.

    ``docs``/``qa``: what adachunk chunks and the questions over it; ``peer_docs``/``peer_qa``:
    what the peers chunk (the same, except on financebench-dev: pdfplumber's text). ``pages``
    (paged corpora only): reader (``ada``, ``peer``) → document → ``(zero-based page, start,
    end)``; ``evidence_pages`` and ``bags`` (evidence words) by question id.
    """

    name: str
    docs: dict
    qa: Any
    peer_docs: dict
    peer_qa: Any
    scope: str = "corpus"
    profiles: str = "default,legal,finance,technical"
    pages: dict = field(default_factory=dict)
    evidence_pages: dict = field(default_factory=dict)
    bags: dict = field(default_factory=dict)

    @property
    def paged(self) -> bool:
        return bool(self.pages)

    @property
    def measures(self) -> list[str]:
        return PAGE_MEASURES if self.paged else MEASURES

    @property
    def primary(self) -> str:
        """The budget measure of the acceptance bar and the mean of the four (``{b}``: budget)."""
        return "evidence_recall@{b}tok" if self.paged else "coverage@{b}tok"

    def texts_digest(self, peer: bool = False) -> str:
        """A digest of the texts chunked (adachunk's reading, or the peers' with ``peer``): part
        of the cache key of their chunkings, whose spans index into exactly these texts."""
        docs = self.peer_docs if peer else self.docs
        h = hashlib.sha1()
        for d in sorted(docs):
            h.update(d.encode() + b"\0" + docs[d].text.encode() + b"\0")
        return h.hexdigest()[:12]


def load_corpus(name: str, per_doc: int = 20):
    """``(documents by id, QASet)`` of a span corpus (chroma-dev, clair), or None when ../shared
    does not have it (``bench/selection_validity.py`` uses this too)."""
    from adachunk.evaluate import generate_qa, load_qa, write_qa
    from adachunk.evaluate.run import read_documents

    if name == "chroma-dev":
        folder = SHARED / "chroma-dev"
        if not folder.is_dir():
            return None
        docs, _ = read_documents([str(folder / f"{s}.md") for s in ("chatlogs", "state_of_the_union", "wikitexts")])
        return docs, load_qa(folder / "questions.csv", docs)
    if name == "clair":
        folder = SHARED / "clair"
        if not folder.is_dir():
            return None
        from common import clair_files

        docs, _ = read_documents([str(p) for p in clair_files(folder)])
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "clair_qa.jsonl"
            write_qa(generate_qa(docs.values(), per_doc, 0), path)
            return docs, load_qa(path, docs)
    raise SystemExit(f"unknown corpus {name!r}: one of {', '.join(CORPORA)}")


def open_corpus(name: str, args) -> Corpus | None:
    """A :class:`Corpus` by name, or None when ../shared does not have it."""
    if name == "financebench-dev":
        corpus = load_financebench(args.cache)
        if corpus is not None and getattr(args, "peer_text", "plain") == "ada":
            # The peers cut adachunk's own reading: separates what the reading costs from what the cuts do.
            corpus.peer_docs, corpus.peer_qa = corpus.docs, corpus.qa
            corpus.pages["peer"] = corpus.pages["ada"]
        return corpus
    got = load_corpus(name, args.per_doc)
    if got is None:
        return None
    docs, qa = got
    return Corpus(name, docs, qa, docs, qa)


# Words and numbers; a number keeps its inner separators so that "1,577" is one token (then "1577").
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+", re.UNICODE)


def norm_words(text: str) -> list[str]:
    """The normalised words of ``text`` (evidence recall): case-folded words and numbers,
    thousands separators dropped from numbers, stop words (adachunk's BM25 list) dropped."""
    from adachunk.retrieval.retrievers import STOPWORDS

    out = []
    for m in _WORD.finditer(text):
        t = m.group().casefold()
        if t[0].isdigit():
            out.append(t.replace(",", ""))
        elif t not in STOPWORDS:
            out.append(t)
    return out


def bag_recall(bag: Counter, read: Counter) -> float:
    """Σ_w min(bag[w], read[w]) / Σ_w bag[w] (0 for an empty bag)."""
    total = sum(bag.values())
    return sum(min(n, read.get(w, 0)) for w, n in bag.items()) / total if total else 0.0


def _read_pdf(path: str) -> dict[str, Any]:
    """One filing read twice: adachunk's Document (as ``adachunk run`` reads it) and
    pdfplumber's plain text of each page."""
    import pdfplumber

    from adachunk.ingest import read_document

    doc = read_document(path)
    with pdfplumber.open(path) as pdf:
        plain = [page.extract_text() or "" for page in pdf.pages]
    return {"adachunk": _reader_version(), "doc": doc, "plumber": plain}


def _reader_version() -> str:
    """adachunk's version and a digest of its whole source (:func:`adachunk.runtime.code.code_digest`,
    what ``adachunk run --resume`` keys on): a cached reading or chunking is made again when any
    module changed, not only a reader (a reading of financebench-dev kept by a digest of
    ``adachunk/ingest`` alone once outlived a change elsewhere and gave 55.14 where the code of
    the day gives 53.45, bench/RESULTS.md "The run at the cost of an index")."""
    from adachunk.runtime.code import code_digest

    return code_digest()


def read_pdfs(paths: list[Path], folder: Path, jobs: int = 2) -> dict[str, dict[str, Any]]:
    """:func:`_read_pdf` of each file, cached in ``folder`` by the file's sha256 and adachunk's
    version (pickles of our own making); read in ``jobs`` processes when not cached."""
    import hashlib
    import pickle


    out, todo = {}, []
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        entry = folder / f"{path.stem}-{digest}.pkl"
        if entry.is_file():
            try:
                got = pickle.loads(entry.read_bytes())
            except (ImportError, AttributeError, pickle.UnpicklingError):  # pickled by a tree whose modules moved
                got = {}
            if got.get("adachunk") == _reader_version():
                out[path.stem] = got
                continue
        todo.append((path, entry))
    if todo:
        from concurrent.futures import ProcessPoolExecutor

        t = time.perf_counter()
        folder.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(max(1, min(jobs, len(todo)))) as pool:
            for (path, entry), got in zip(todo, pool.map(_read_pdf, [str(p) for p, _ in todo])):
                entry.write_bytes(pickle.dumps(got))
                out[path.stem] = got
        print(f"  read {len(todo)} PDFs twice (adachunk, pdfplumber): {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


def load_financebench(cache: Path) -> Corpus | None:
    """financebench-dev (see the module docstring), or None when ../shared does not have it."""
    folder = SHARED / "financebench-dev"
    if not folder.is_dir():
        return None
    from adachunk.evaluate.qa import QASet, Question, merge_spans
    from adachunk.datatypes import Document

    rows = [json.loads(x) for x in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    names = [json.loads(x)["doc_name"] for x in (folder / "documents.jsonl").read_text(encoding="utf-8").splitlines()
             if x.strip()]
    read = read_pdfs([folder / "pdfs" / f"{n}.pdf" for n in names], cache / "financebench-dev" / "documents")
    docs, plain, pages = {}, {}, {"ada": {}, "peer": {}}
    for n in names:
        doc = read[n]["doc"]
        doc.id = n
        docs[n] = doc
        pages["ada"][n] = [(pg.number - 1, pg.start, pg.end) for pg in doc.pages or []]
        texts, offsets, pos = read[n]["plumber"], [], 0
        for i, t in enumerate(texts):
            offsets.append((i, pos, pos + len(t)))
            pos += len(t) + 2
        plain[n] = Document(id=n, text="\n\n".join(texts), source=str(folder / "pdfs" / f"{n}.pdf"))
        pages["peer"][n] = offsets
    qs = {"ada": [], "peer": []}
    evidence_pages, bags = {}, {}
    for line, row in enumerate(rows, 1):
        qid, doc_id = row["financebench_id"], row["doc_name"]
        own = [e for e in row["evidence"] if e.get("doc_name", doc_id) == doc_id]
        evidence_pages[qid] = sorted({int(e["evidence_page_num"]) for e in own})
        bags[qid] = Counter(norm_words("\n".join(e["evidence_text"] for e in own)))
        for base in ("ada", "peer"):
            by_page = {p: (s, e) for p, s, e in pages[base][doc_id]}
            spans = merge_spans(by_page[p] for p in evidence_pages[qid] if p in by_page)
            qs[base].append(Question(qid, row["question"], doc_id, (spans,) if spans else (), row.get("answer"), line))
    path = str(folder / "questions.jsonl")
    qa = QASet(qs["ada"], path=path, lines=len(rows), documents=docs)
    peer_qa = QASet(qs["peer"], path=path, lines=len(rows), documents=plain)
    return Corpus("financebench-dev", docs, qa, plain, peer_qa, scope="doc", profiles="default,finance",
                  pages=pages, evidence_pages=evidence_pages, bags=bags)


def ceilings(corpus: Corpus) -> dict[str, dict[str, Any]]:
    """What each reader's text allows at best: per question, the evidence recall of the whole
    document and of the evidence pages alone (adachunk's Markdown vs pdfplumber's text)."""
    out: dict[str, dict[str, Any]] = {}
    for base, docs in (("ada", corpus.docs), ("peer", corpus.peer_docs)):
        whole = {d: Counter(norm_words(doc.text)) for d, doc in docs.items()}
        per_q = {}
        for q in corpus.qa.questions:
            spans = {p: (s, e) for p, s, e in corpus.pages[base][q.doc]}
            text = "\n".join(docs[q.doc].text[s:e] for p in corpus.evidence_pages[q.id]
                             for s, e in [spans.get(p, (0, 0))])
            per_q[q.id] = {"document": bag_recall(corpus.bags[q.id], whole[q.doc]),
                           "evidence_pages": bag_recall(corpus.bags[q.id], Counter(norm_words(text)))}
        out[base] = {"per_question": per_q,
                     "document": _mean([v["document"] for v in per_q.values()]),
                     "evidence_pages": _mean([v["evidence_pages"] for v in per_q.values()])}
    return out


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


# --- chunkings -------------------------------------------------------------------------------------
def locate(text: str, pieces: list[str]) -> list[tuple[int, int]]:
    """Offsets of a peer's chunk strings, searched in order (as Chroma's evaluation does), for
    the peers that give strings only."""
    spans, pos = [], 0
    for piece in pieces:
        i = text.find(piece, pos)
        if i < 0:
            piece = piece.strip()
            i = text.find(piece, pos)
        if i < 0:
            raise ValueError(f"chunk not found in order: {piece[:60]!r}")
        spans.append((i, i + len(piece)))
        pos = i + len(piece)
    return spans


Splitter = Callable[[str], list[tuple[int, int]]]  # text -> chunk spans


def _chonkie_spans(chunker) -> Splitter:
    # chonkie's own offsets: a token window's decoded text can differ from its slice (a multi-byte
    # character split between two windows decodes to U+FFFD), its offsets tile the text
    return lambda text: [(c.start_index, c.end_index) for c in chunker.chunk(text)]


def _located(chunker: Callable[[str], list[str]]) -> Splitter:
    return lambda text: locate(text, chunker(text))


def _chonkie_recursive(size: int) -> Splitter:
    from chonkie import RecursiveChunker
    from peers import _chonkie_tokenizer

    return _chonkie_spans(RecursiveChunker(tokenizer=_chonkie_tokenizer(), chunk_size=size))


def _chonkie_token(size: int) -> Splitter:
    from chonkie import TokenChunker
    from peers import _chonkie_tokenizer

    return _chonkie_spans(TokenChunker(tokenizer=_chonkie_tokenizer(), chunk_size=size, chunk_overlap=0))


def _chonkie_semantic(size: int) -> Splitter:
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    from adachunk.models.embedders import load_embedder

    from sentence_transformers import SentenceTransformer

    # the bundled MiniLM's files, loaded offline as a SentenceTransformer (adachunk's own embedder
    # runs it through ONNX, which chonkie cannot take)
    model = SentenceTransformer(load_embedder(None).source, device="cpu", local_files_only=True)
    return _chonkie_spans(SemanticChunker(embedding_model=SentenceTransformerEmbeddings(model), chunk_size=size))


def peer_factories() -> dict[str, tuple[str, Callable[[int], Splitter]]]:
    """Peer key → (label, size → splitter)."""
    import peers

    return {
        "chonkie": ("chonkie RecursiveChunker", _chonkie_recursive),
        "chonkie_token": ("chonkie TokenChunker", _chonkie_token),
        "langchain": ("LangChain RecursiveCharacterTextSplitter",
                      lambda n: _located(peers._langchain("RecursiveCharacterTextSplitter")("tokens", n))),
        "semchunk": ("semchunk", lambda n: _located(peers._semchunk("tokens", n))),
        "semantic": ("chonkie SemanticChunker (MiniLM)", _chonkie_semantic),
    }


def dp_spans(docs, size: int) -> dict[str, list[tuple[int, int]]]:
    """adachunk's DP alone, default profile, cl100k tokens, ``size`` max and a quarter min."""
    import adachunk

    rp = adachunk.load_profile("default", tokenizer=TOKENIZER, max_size=size, min_size=max(1, size // 4))
    return {d: [(c.start, c.end) for c in adachunk.chunk_document(doc, rp).chunks] for d, doc in docs.items()}


_PIPE_TABLE = re.compile(r"(?m)(?:^\|.*\n?)+")


def table_headers(text: str, records: list[dict[str, Any]], prefixes: list[str]) -> dict[str, int]:
    """Of the chunks holding body rows of a pipe table: how many, and how many carry the table's
    header row in their text or (otherwise) in their embedded prefix (one count per chunk and
    table; issue 52's "a figure never loses its column")."""
    from adachunk.enrich.tables import table_contexts

    out = {"chunks_with_table_rows": 0, "header_in_text": 0, "header_in_prefix": 0}
    spans = [(m.start(), m.end()) for m in _PIPE_TABLE.finditer(text)]
    # the header row with the years: the table's own, or the first part's of a statement printed in two
    for start, end, ctx in table_contexts(text, {"table": spans}):
        header = next(ln for ln in ctx.split("\n") if ln.startswith("|"))
        body = text.find("\n", text.find("\n", start) + 1) + 1
        for rec, pre in zip(records, prefixes):
            if rec["start"] < end and rec["end"] > body and body > 0:
                out["chunks_with_table_rows"] += 1
                if header in rec["text"]:
                    out["header_in_text"] += 1
                elif header in pre:
                    out["header_in_prefix"] += 1
    return out


def run_chunking(docs, profile: str) -> dict[str, Any]:
    """``adachunk run``'s winners as ``adachunk/runner/job.py::process_path`` makes them: the
    selection, then the records (``chunk_record`` + ``enrich_records``) and what the index embeds
    before each chunk (``embed_prefix(record, policy.index.embed_text)``).

    Returns ``{spans, prefix, heading_path, embedded, meta}``: per document the chunk spans,
    prefixes and heading paths, and (``index.table_rows: plain``; else None) the whole strings
    the index embeds (``embed_text(record, mode, table_rows)``); ``meta``: what won how often, the mean ``rf`` estimate, failed documents.
    """
    import adachunk
    from adachunk.enrich import enrich_records
    from adachunk.metrics.suite import context_for
    from adachunk.selection.choose import select_document
    from adachunk.sink.records import chunk_record, embed_prefix, embed_text

    rp = adachunk.load_profile(profile)
    mode, rows = rp.policy.index.embed_text, rp.policy.index.table_rows
    spans, prefix, heading, winners, estimates, failed = {}, {}, {}, {}, [], []
    embedded: dict[str, list[str]] | None = {} if rows != "markdown" else None
    headers = {"chunks_with_table_rows": 0, "header_in_text": 0, "header_in_prefix": 0}
    for d, doc in docs.items():
        dec = select_document(doc, rp.policy, ctx=context_for(doc, rp.policy))
        best = dec.best
        if best is None:  # the run writes no record for it: its questions find nothing
            spans[d], prefix[d], heading[d] = [], [], []
            if embedded is not None:
                embedded[d] = []
            failed.append(d)
            continue
        chunks = best.chunking.chunks
        records = enrich_records([chunk_record(c, doc, rp.name, rp.fingerprint, best.type, candidate=best.name,
                                               scores=best.scores) for c in chunks], doc, rp.policy)
        spans[d] = [(c.start, c.end) for c in chunks]
        prefix[d] = [embed_prefix(r, mode) for r in records]
        if embedded is not None:
            embedded[d] = [embed_text(r, mode, rows) for r in records]
        for key, n in table_headers(doc.text, records, prefix[d]).items():
            headers[key] += n
        heading[d] = [list(c.heading_path) for c in chunks]
        winners[best.name] = winners.get(best.name, 0) + 1
        if best.scores.get("rf") is not None:
            estimates.append(best.scores["rf"])
    meta = {"winners": dict(sorted(winners.items())),
            "rf_mean": round(sum(estimates) / len(estimates), 4) if estimates else None,
            "embed_text": mode if isinstance(mode, str) else list(mode), "table_rows": rows, "table_headers": headers}
    if failed:
        meta["failed"] = failed
    return {"spans": spans, "prefix": prefix, "heading_path": heading, "embedded": embedded, "meta": meta}


def _code_key() -> str:
    """The code digest's hash part (part of the cache key of adachunk's chunkings)."""
    return _reader_version().rsplit("+", 1)[-1][:12]


def _fingerprint(profile: str) -> str:
    """The profile's fingerprint (a name or a path), part of the cache key of its chunkings."""
    import adachunk

    return adachunk.load_profile(profile).fingerprint


def cached(cache: Path, corpus: str, label: str, make: Callable[[], Any],
           valid: Callable[[Any], bool] = lambda v: True) -> Any:
    """``make()``, kept as JSON under ``cache/corpus/label.json`` (made again when ``valid``
    says a cached value has an older shape or other document ids)."""
    path = cache / corpus / (label.replace("/", "_").replace(" ", "_") + ".json")
    if path.is_file():
        value = json.loads(path.read_text())
        if valid(value):
            return value
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return value


_HEADING_LINE = re.compile(r"[ \t]*#{1,6}(?:[ \t]|$)")


def prefix_form(form: str, texts: list[str], paths: list[list[str]]) -> list[str]:
    """The prefixes of one document's chunks in one form (see the module docstring): ``texts``
    are the chunk texts, ``paths`` their heading paths (outermost first)."""
    out = []
    for text, path in zip(texts, paths):
        if not path or form == "none":
            out.append("")
        elif form == "heading_path":
            out.append(" > ".join(path) + "\n\n")
        elif form == "heading_last":
            out.append(path[-1] + "\n\n")
        elif form == "heading_path_if_not_start":
            out.append("" if _HEADING_LINE.match(text.lstrip("\n")) else " > ".join(path) + "\n\n")
        else:
            raise SystemExit(f"unknown prefix form {form!r}; allowed: {', '.join(PREFIX_FORMS)}")
    return out


def chunkings(corpus: Corpus, args) -> list[dict[str, Any]]:
    """Every chunking of the run: ``{label, kind, base, size, spans, meta}`` (+ ``prefixes`` and
    ``of``, the text-only row, for prefixed rows). ``base``: whose text it cuts (``ada``:
    adachunk's reading, ``peer``: the peers' plain text; the same text except on PDFs)."""
    out = []
    factories = peer_factories()
    sizes = [int(s) for s in args.sizes.split(",")]
    for key in [p for p in args.peers.split(",") if p]:
        label, factory = factories[key]
        for size in sizes:
            def make(factory=factory, size=size):
                split = factory(size)
                return {d: split(doc.text) for d, doc in corpus.peer_docs.items()}
            t = time.perf_counter()
            spans = cached(args.cache, corpus.name, f"{key}_{size}_{corpus.texts_digest(peer=True)}", make,
                           valid=lambda v: set(v) == set(corpus.peer_docs))
            out.append({"label": f"{label} {size}", "kind": "peer", "base": "peer", "size": size, "spans": spans,
                        "meta": {}})
            print(f"  {label} {size}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    for size in sizes:
        t = time.perf_counter()
        # keyed by the default profile's fingerprint, the texts and the code: a changed profile,
        # reading or DP is chunked again
        spans = cached(args.cache, corpus.name,
                       f"adachunk_dp_{size}_{_fingerprint('default')}_{corpus.texts_digest()}_{_code_key()}",
                       lambda size=size: dp_spans(corpus.docs, size), valid=lambda v: set(v) == set(corpus.docs))
        out.append({"label": f"adachunk DP {size}", "kind": "dp", "base": "ada", "size": size, "spans": spans,
                    "meta": {}})
        print(f"  DP {size}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    profiles = args.profiles if args.profiles is not None else corpus.profiles
    forms = [f for f in (args.prefix_forms or "").split(",") if f]
    for f in forms:
        if f not in PREFIX_FORMS:
            raise SystemExit(f"unknown prefix form {f!r}; allowed: {', '.join(PREFIX_FORMS)}")
    for profile in [p for p in profiles.split(",") if p]:
        t = time.perf_counter()
        got = cached(args.cache, corpus.name,
                     f"adachunk_run_{profile}_{_fingerprint(profile)}_{corpus.texts_digest()}_{_code_key()}",
                     lambda profile=profile: run_chunking(corpus.docs, profile),
                     valid=lambda v: isinstance(v, dict) and "embedded" in v and set(v["spans"]) == set(corpus.docs))
        label = f"adachunk run --profile {profile}"
        base = {"kind": "run", "base": "ada", "size": None, "spans": got["spans"]}
        out.append({**base, "label": label, "meta": got["meta"]})
        out.append({**base, "label": f"{label} (+prefix)", "meta": {"prefix": "run", "table_headers": got["meta"].get("table_headers")}, "of": label,
                    "prefixes": got["prefix"], "embedded": got["embedded"]})
        for form in forms:
            if form == "none":
                continue  # the text-only row
            texts = {d: [corpus.docs[d].text[a:b] for a, b in spans] for d, spans in got["spans"].items()}
            out.append({**base, "label": f"{label} (+{form})", "meta": {"prefix": form}, "of": label,
                        "prefixes": {d: prefix_form(form, texts[d], got["heading_path"][d]) for d in texts}})
        print(f"  run {profile}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


# --- retrieval -------------------------------------------------------------------------------------
def evaluate(corpus: Corpus, sets: list[dict[str, Any]], args, store=None) -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → label → {summary, values per measure}."""
    from adachunk.evaluate import evaluate_chunks
    from adachunk.datatypes import Chunk

    prefix_retrievers = tuple(r for r in args.prefix_retrievers.split(",") if r)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever in RETRIEVERS:
        out[retriever] = {}
        for cs in sets:
            t = time.perf_counter()
            docs, qa = (corpus.docs, corpus.qa) if cs["base"] == "ada" else (corpus.peer_docs, corpus.peer_qa)
            chunks = {d: [Chunk(index=i, start=a, end=b, text=docs[d].text[a:b], size=b - a, tokens=0)
                          for i, (a, b) in enumerate(spans)] for d, spans in cs["spans"].items()}
            kw: dict[str, Any] = {}
            if cs.get("prefixes") is not None:
                kw = {"prefixes": cs["prefixes"], "prefix_retrievers": prefix_retrievers,
                      "prefix_costs": not args.prefix_free}
                if cs.get("embedded") is not None and "dense" in prefix_retrievers:
                    kw["embed_texts"] = cs["embedded"]
            res = evaluate_chunks(chunks, qa, retriever, ks=(K,), budgets=BUDGETS, tokenizer=TOKENIZER,
                                  long_text="truncate", scope=corpus.scope, store=store, read_spans=corpus.paged, **kw)
            if corpus.paged:
                values = page_values(corpus, cs, docs, res)
                summary = {m: round(_mean(v), 6) for m, v in values.items()}
                summary.update({k: res.summary[k] for k in ("questions", "chunks", "chunk_tokens", "prefix_tokens")
                                if k in res.summary})
            else:
                values = {m: res.values(m) for m in MEASURES}
                summary = res.summary
            out[retriever][cs["label"]] = {"summary": summary, "values": values}
            print(f"  {retriever} {cs['label']}: {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    return out


def chunk_pages(pages: list[tuple[int, int, int]], starts: list[int], a: int, z: int) -> set[int]:
    """The pages whose text ``[a, z)`` overlaps (``pages``: ``(page, start, end)`` by start)."""
    import bisect

    i, out = max(0, bisect.bisect_right(starts, a) - 1), set()
    while i < len(pages) and pages[i][1] < z:
        p, s, e = pages[i]
        if min(e, z) > max(s, a):
            out.add(p)
        i += 1
    return out


def page_values(corpus: Corpus, cs: dict[str, Any], docs, res) -> dict[str, list[float]]:
    """Page hit and evidence recall per question within each budget, from what was read
    (``read@Btok`` of :func:`adachunk.evaluate.evaluate_chunks`)."""
    pages = corpus.pages[cs["base"]]
    starts = {d: [s for _, s, _ in pp] for d, pp in pages.items()}
    values: dict[str, list[float]] = {m: [] for m in PAGE_MEASURES}
    for row in res.per_question:
        evidence = set(corpus.evidence_pages[row["id"]])
        for b in BUDGETS:
            hit, read = 0, Counter()
            for doc_id, pos, s, e in row[f"read@{b}tok"]:
                if doc_id != row["doc"] or e <= s:  # another document, or only its prefix read
                    continue
                a, z = cs["spans"][doc_id][pos]
                if not hit and evidence & chunk_pages(pages[doc_id], starts[doc_id], a, z):
                    hit = 1
                read.update(norm_words(docs[doc_id].text[s:e]))
            values[f"page_hit@{b}tok"].append(float(hit))
            values[f"evidence_recall@{b}tok"].append(bag_recall(corpus.bags[row["id"]], read))
    return values


def compare(results, sets, measures: list[str] = MEASURES) -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → label → measure → delta to the best peer on that measure, with its CI."""
    from adachunk.evaluate.stats import paired_delta

    peers = [cs["label"] for cs in sets if cs["kind"] == "peer"]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever, by_label in results.items():
        out[retriever] = {}
        best = {m: max(peers, key=lambda lab: by_label[lab]["summary"][m]) for m in measures} if peers else {}
        for cs in sets:
            if cs["kind"] == "peer" or not peers:
                continue
            out[retriever][cs["label"]] = {
                m: {**paired_delta(by_label[best[m]]["values"][m], by_label[cs["label"]]["values"][m]),
                    "best_peer": best[m]} for m in measures}
    return out


def same_size(results, sets, peer: str = "chonkie RecursiveChunker",
              measures: list[str] = MEASURES) -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → ``adachunk DP N`` → measure → delta to ``peer N`` (the DP alone against the
    recursive splitter at the same maximum size), with its CI."""
    from adachunk.evaluate.stats import paired_delta

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever, by_label in results.items():
        out[retriever] = {}
        for cs in sets:
            other = f"{peer} {cs['size']}"
            if cs["kind"] != "dp" or other not in by_label:
                continue
            out[retriever][cs["label"]] = {
                m: {**paired_delta(by_label[other]["values"][m], by_label[cs["label"]]["values"][m]),
                    "peer": other} for m in measures}
    return out


FOUR = [("dense", 1000), ("dense", 2000), ("bm25", 1000), ("bm25", 2000)]
PRIMARY = "coverage@{b}tok"


def _four(values, label: str, primary: str):
    """Per question, the mean of the four budget measures of ``label``."""
    import numpy as np

    return np.mean([values[r][label][primary.format(b=b)] for r, b in FOUR], axis=0).tolist()


def bar(values: dict[str, dict[str, dict[str, list[float]]]], chunkings: list[dict[str, Any]],
        margin: float = -0.01, primary: str = PRIMARY) -> dict[str, dict[str, Any]]:
    """The issue's acceptance bar applied to *every* chunking, peers included: on each of the four
    budget measures (``primary`` at each budget: coverage, or evidence recall on a paged corpus),
    the paired delta against the best *other* peer configuration (95% CI), and whether its lower
    bound is above ``margin``; then the same for the mean of the four measures per question (one
    chunking that must serve both retrievers and both budgets).

    Shows whether the bar separates chunkers at all: a peer is held to it against the best of
    the others, chosen per measure after the fact.
    """
    import numpy as np

    from adachunk.evaluate.stats import paired_delta

    peers = [c["label"] for c in chunkings if c["kind"] == "peer"]

    def series(label: str, r: str | None, b: int | None) -> list[float]:
        if r is not None:
            return values[r][label][primary.format(b=b)]
        return _four(values, label, primary)

    out = {}
    for c in chunkings:
        label, row = c["label"], {}
        others = [p for p in peers if p != label]
        if not others:
            continue
        for r, b in FOUR + [(None, None)]:
            best = max(others, key=lambda p: float(np.mean(series(p, r, b))))
            x = paired_delta(series(best, r, b), series(label, r, b))
            row[f"{r}@{b}" if r else "mean4"] = {"delta": x["delta"], "ci95": x["ci95"], "best_other": best,
                                                  "passes": x["ci95"][0] > margin}
        out[label] = row
    return out


def mean_of_four(values, chunkings: list[dict[str, Any]], primary: str = PRIMARY) -> dict[str, Any]:
    """Every adachunk row's mean of the four budget measures against the *single* peer
    configuration best on that mean (chosen once per corpus), with the paired 95% CI."""
    import numpy as np

    from adachunk.evaluate.stats import paired_delta

    peers = [c["label"] for c in chunkings if c["kind"] == "peer"]
    if not peers:
        return {}
    series = {c["label"]: _four(values, c["label"], primary) for c in chunkings}
    means = {label: float(np.mean(s)) for label, s in series.items()}
    best = max(peers, key=lambda p: means[p])
    rows = {}
    for c in chunkings:
        if c["kind"] == "peer":
            continue
        x = paired_delta(series[best], series[c["label"]])
        rows[c["label"]] = {"mean": means[c["label"]], "delta": x["delta"], "ci95": x["ci95"]}
    return {"measure": primary, "best_peer": best, "best_peer_mean": means[best],
            "peer_means": {p: means[p] for p in peers}, "rows": rows}


# --- tables ----------------------------------------------------------------------------------------
def bar_table(rows: dict[str, dict[str, Any]]) -> str:
    """Markdown of :func:`bar`."""
    lines = ["Every chunking against the best *other* peer on each measure (points, 95% CI; ✓ = lower "
             "bound above −1), and on the mean of the four per question:", "",
             "| chunking | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 | passes | mean of four |",
             "|---|---|---|---|---|---:|---|"]
    for label, row in rows.items():
        cells = [f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}]{' ✓' if x['passes'] else ''}"
                 for k, x in row.items() if k != "mean4"]
        m = row["mean4"]
        lines.append(f"| {label} | " + " | ".join(cells)
                     + f" | {sum(x['passes'] for k, x in row.items() if k != 'mean4')}/4 | "
                     f"{100 * m['delta']:+.2f} [{100 * m['ci95'][0]:+.2f}, {100 * m['ci95'][1]:+.2f}] "
                     f"vs {m['best_other']} |")
    return "\n".join(lines)


def mean_table(m4: dict[str, Any]) -> str:
    """Markdown of :func:`mean_of_four`."""
    if not m4:
        return ""
    what = "evidence recall" if m4["measure"].startswith("evidence") else "evidence coverage"
    lines = [f"Mean of the four budget measures ({what}, dense and BM25 at 1,000 and 2,000 tokens) against the "
             f"single best peer configuration on that mean, **{m4['best_peer']}** "
             f"({100 * m4['best_peer_mean']:.2f}) (points, paired 95% bootstrap CI):", "",
             "| chunking | mean of four | Δ vs best peer [95% CI] |", "|---|---:|---|"]
    for label, x in m4["rows"].items():
        lines.append(f"| {label} | {100 * x['mean']:.2f} | {100 * x['delta']:+.2f} "
                     f"[{100 * x['ci95'][0]:+.2f}, {100 * x['ci95'][1]:+.2f}] |")
    return "\n".join(lines)


def _name(cs: dict[str, Any], summary: dict[str, Any]) -> str:
    """A row's name: its label, what won (run rows), its mean prefix (prefixed rows)."""
    name = cs["label"]
    if cs["meta"].get("winners"):
        name += f" ({', '.join(f'{k} {v}' for k, v in cs['meta']['winners'].items())})"
    if cs.get("prefixes") is not None and summary.get("prefix_tokens") is not None:
        name += f" [prefix {summary['prefix_tokens']:.1f} tok]"
        th = cs["meta"].get("table_headers") or {}
        if th.get("chunks_with_table_rows"):
            name += (f" [table headers: {th['header_in_text']} in text + {th['header_in_prefix']} in prefix"
                     f" of {th['chunks_with_table_rows']}]")
    return name


def _delta_rows(sets, deltas, measure: str) -> list[str]:
    lines = []
    for cs in sets:
        if cs["kind"] == "peer" or cs["label"] not in deltas.get("dense", {}):
            continue
        cells = []
        for retriever in RETRIEVERS:
            for b in BUDGETS:
                x = deltas[retriever][cs["label"]][measure.format(b=b)]
                cells.append(f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}, {100 * x['ci95'][1]:+.1f}] "
                             f"vs {x['best_peer']}")
        lines.append(f"| {cs['label']} | " + " | ".join(cells) + " |")
    return lines


def _same_rows(same, measure: str) -> list[str]:
    lines = []
    for label in same.get("dense", {}):
        cells = [f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}, {100 * x['ci95'][1]:+.1f}]"
                 for retriever in RETRIEVERS for b in BUDGETS
                 for x in [same[retriever][label][measure.format(b=b)]]]
        lines.append(f"| {label} vs {same['dense'][label][measure.format(b=BUDGETS[0])]['peer']} | "
                     + " | ".join(cells) + " |")
    return lines


HEAD4 = "| chunking | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 |"


def table(corpus: str, qa, sets, results, deltas, same) -> str:
    """The Markdown table of one span corpus (chroma-dev, clair)."""
    lines = [f"### {corpus}: {len(qa.questions)} questions", "",
             "| chunking | chunks | mean tokens | recall@5 | precision@5 | IoU@5 | dense @1,000 | dense @2,000 | "
             "BM25 @1,000 | BM25 @2,000 |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for cs in sets:
        d, b = results["dense"][cs["label"]]["summary"], results["bm25"][cs["label"]]["summary"]
        cells = [f"{100 * d['coverage@5']:.1f}", f"{100 * d['precision@5']:.1f}", f"{100 * d['iou@5']:.1f}",
                 f"{100 * d['coverage@1000tok']:.1f}", f"{100 * d['coverage@2000tok']:.1f}",
                 f"{100 * b['coverage@1000tok']:.1f}", f"{100 * b['coverage@2000tok']:.1f}"]
        lines.append(f"| {_name(cs, d)} | {d['chunks']} | {d['chunk_tokens']:.0f} | " + " | ".join(cells) + " |")
    lines += ["", "Paired delta against the best peer on each measure (points, 95% bootstrap CI):", "",
              HEAD4, "|---|---|---|---|---|"]
    lines += _delta_rows(sets, deltas, "coverage@{b}tok")
    if same.get("dense"):
        lines += ["", "The DP alone against chonkie's RecursiveChunker at the same size (points, 95% bootstrap CI):",
                  "", HEAD4, "|---|---|---|---|---|"]
        lines += _same_rows(same, "coverage@{b}tok")
    return "\n".join(lines)


def page_table(corpus: Corpus, sets, results, deltas, same, m4, ceiling) -> str:
    """The Markdown tables of a paged corpus (financebench-dev)."""
    lines = [f"### {corpus.name}: {len(corpus.qa.questions)} questions, {len(corpus.docs)} filings, "
             "single-document retrieval", "",
             "| chunking | chunks | mean tokens | page hit dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 | "
             "evidence recall dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 | mean of four |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    four = {label: x["mean"] for label, x in m4.get("rows", {}).items()} | m4.get("peer_means", {})
    for cs in sets:
        s = {r: results[r][cs["label"]]["summary"] for r in RETRIEVERS}
        cells = [f"{100 * s[r][f'{m}@{b}tok']:.1f}" for m in ("page_hit", "evidence_recall") for r in RETRIEVERS
                 for b in BUDGETS]
        lines.append(f"| {_name(cs, s['dense'])} | {s['dense']['chunks']} | {s['dense']['chunk_tokens']:.0f} | "
                     + " | ".join(cells) + f" | {100 * four.get(cs['label'], float('nan')):.2f} |")
    for measure, what in (("evidence_recall@{b}tok", "evidence recall"), ("page_hit@{b}tok", "page hit")):
        lines += ["", f"Paired delta of {what} against the best peer on each measure (points, 95% bootstrap CI):", "",
                  HEAD4, "|---|---|---|---|---|"]
        lines += _delta_rows(sets, deltas, measure)
    if same.get("dense"):
        lines += ["", "The DP alone against chonkie's RecursiveChunker at the same size, evidence recall (points, "
                  "95% bootstrap CI):", "", HEAD4, "|---|---|---|---|---|"]
        lines += _same_rows(same, "evidence_recall@{b}tok")
    if ceiling:
        lines += ["", "What each reading allows at best (evidence recall of the whole filing / of the evidence "
                  f"pages alone): adachunk's Markdown {100 * ceiling['ada']['document']:.1f} / "
                  f"{100 * ceiling['ada']['evidence_pages']:.1f}, pdfplumber's text "
                  f"{100 * ceiling['peer']['document']:.1f} / {100 * ceiling['peer']['evidence_pages']:.1f}."]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", help=f"{', '.join(CORPORA)} (default: all three)")
    ap.add_argument("--sizes", default="128,256,512")
    ap.add_argument("--profiles", help="adachunk run profiles (default: default,legal,finance,technical; "
                    "default,finance on financebench-dev)")
    ap.add_argument("--peers", default="chonkie,chonkie_token,langchain,semchunk,semantic")
    ap.add_argument("--peer-text", choices=("plain", "ada"), default="plain",
                    help="financebench-dev: the peers chunk pdfplumber's page text (plain) or adachunk's reading (ada)")
    ap.add_argument("--prefix-forms", default="", help=f"more prefixed rows of each run: {', '.join(PREFIX_FORMS)}")
    ap.add_argument("--prefix-retrievers", default="dense,bm25", help="which retrievers index a prefix")
    ap.add_argument("--prefix-free", action="store_true", help="a prefix costs nothing within a budget")
    ap.add_argument("--per-doc", type=int, default=20, help="clair: generated questions per document")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "adachunk-bench" / "retrieval")
    ap.add_argument("--vectors", type=Path, help="the dense vector cache (default: CACHE/vectors)")
    ap.add_argument("--no-vector-cache", action="store_true", help="embed everything again (process cache only)")
    ap.add_argument("--fresh", action="store_true", help="rebuild every chunking and reading (vectors are kept)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "retrieval")
    ap.add_argument("--bar-from", type=Path, help="only print the acceptance-bar table of a saved retrieval.json")
    args = ap.parse_args()
    if args.bar_from:
        for corpus, rep in json.loads(args.bar_from.read_text()).items():
            primary = rep.get("primary", PRIMARY)
            print(f"### {corpus}\n\n" + bar_table(bar(rep["values"], rep["chunkings"], primary=primary)) + "\n\n"
                  + mean_table(mean_of_four(rep["values"], rep["chunkings"], primary)) + "\n")
        return 0
    t_start = time.perf_counter()
    vectors = args.vectors or args.cache / "vectors"
    if args.fresh and args.cache.exists():
        import shutil

        for entry in args.cache.iterdir():
            if entry.is_dir() and entry.resolve() != vectors.resolve():
                shutil.rmtree(entry)
    store = None
    if not args.no_vector_cache:
        from adachunk.retrieval.store import VectorStore

        store = VectorStore(vectors)
    report, md = {}, []
    for name in args.corpus or list(CORPORA):
        t_corpus = time.perf_counter()
        corpus = open_corpus(name, args)
        if corpus is None:
            print(f"{name}: not found under {SHARED}; skipped")
            continue
        print(f"{name}: {len(corpus.docs)} documents, {len(corpus.qa.questions)} questions", file=sys.stderr)
        sets = chunkings(corpus, args)
        hits0, misses0 = (store.hits, store.misses) if store else (0, 0)
        results = evaluate(corpus, sets, args, store)
        measures = corpus.measures
        deltas, same = compare(results, sets, measures), same_size(results, sets, measures=measures)
        values = {r: {lab: x["values"] for lab, x in by.items()} for r, by in results.items()}
        checked = bar(values, sets, primary=corpus.primary)
        m4 = mean_of_four(values, sets, corpus.primary)
        ceiling = ceilings(corpus) if corpus.paged else None
        if corpus.paged:
            text = page_table(corpus, sets, results, deltas, same, m4, ceiling)
        else:
            text = table(name, corpus.qa, sets, results, deltas, same)
        md.append(text + "\n\n" + mean_table(m4) + "\n\n" + bar_table(checked))
        print(md[-1] + "\n", flush=True)
        seconds = round(time.perf_counter() - t_corpus, 1)
        cache_use = {"hits": store.hits - hits0, "misses": store.misses - misses0} if store else None
        print(f"{name}: {seconds} s; vector cache {cache_use}", file=sys.stderr)
        report[name] = {"questions": len(corpus.qa.questions), "scope": corpus.scope, "measures": measures,
                        "primary": corpus.primary,
                        "chunkings": [{k: v for k, v in cs.items() if k not in ("spans", "prefixes")} for cs in sets],
                        "summary": {r: {lab: x["summary"] for lab, x in by.items()} for r, by in results.items()},
                        "deltas": deltas, "same_size": same, "bar": checked, "mean_of_four": m4,
                        "settings": {"prefix_retrievers": args.prefix_retrievers, "prefix_costs": not args.prefix_free,
                                     "prefix_forms": args.prefix_forms},
                        "seconds": seconds, "vector_cache": cache_use,
                        # Per-question values, so that any other pair can be compared later.
                        "values": values}
        if ceiling:
            report[name]["ceilings"] = ceiling
    if store is not None:  # one shard per embedding call: merge them when they pile up
        for fp in store.fingerprints():
            if store.shards(fp) > 64:
                store.compact(fp)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval.json").write_text(json.dumps(report, indent=1))
    (args.out / "retrieval.md").write_text("\n\n".join(md) + "\n")
    print(f"wall time {time.perf_counter() - t_start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
