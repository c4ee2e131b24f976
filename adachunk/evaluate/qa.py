"""QA sets for extrinsic retrieval evaluation: a JSONL file of questions with located evidence.

Each line is a JSON object::

    {"id": "fin-01", "question": "...", "doc": "financial_report_excerpt",
     "evidence": [[1234, 1302]], "answer": "Revenue grew by 9.7%"}

* ``question`` (string) and ``doc`` (string) are required. ``doc`` names a document by its id
  (its path from the inputs' root, as ``adachunk run`` gives it), its source path, its file
  name or its file stem.
* ``evidence``: character spans ``[start, end)`` into the document text (code points, as every
  adachunk offset). All spans of a line are required evidence together (coverage counts them all).
  ``evidence_text`` (optional, one string per span) is checked against the slices, so a QA set
  whose document has changed warns instead of measuring the wrong text.
* ``answer``: a string located in the document when ``evidence`` is absent: the exact text first,
  then a whitespace-, case-, quote- and dash-normalised search. **Every occurrence** becomes an
  alternative evidence set (a measure takes the best alternative), because an answer that occurs
  twice (a figure in a summary and in a table) is answered by either occurrence; at most
  :data:`MAX_OCCURRENCES` are kept. With both fields, the spans win and ``answer`` is kept as
  information.

Lines that cannot be used (unknown document, spans out of range, an answer not found, a line that
is not JSON) become located warnings ``qa.jsonl:LINE: ...`` and are skipped, never a crash. A
file that cannot be read, a JSON line that is not an object with ``question`` and ``doc``
(this is not a QA file, e.g. a ``chunks.jsonl`` given by mistake), or a file without any usable
line is ``ADA315``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import InputError, Location
from ..datatypes import Document

MAX_OCCURRENCES = 20  # alternatives kept for an answer string found many times

Span = tuple[int, int]


@dataclass(frozen=True)
class QAWarning:
    """A skipped or doubtful QA line: ``file:line: message``."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Question:
    """One usable question with its evidence.

    Attributes:
        id: the line's ``id``, else ``q<line>``.
        question: the question text (the retrieval query).
        doc: the id of the document it is about (a key of the ``docs`` mapping).
        evidence: alternative evidence sets; each is a sorted, merged tuple of spans that are all
            needed together. Explicit ``evidence`` gives one set; an answer string one set per
            occurrence.
        answer: the answer string when given.
        line: 1-based line in the QA file.
    """

    id: str
    question: str
    doc: str
    evidence: tuple[tuple[Span, ...], ...]
    answer: str | None = None
    line: int = 0


@dataclass
class QASet:
    """The usable questions of a QA file and the located warnings about the others.

    ``documents`` (the mapping given to :func:`load_qa`) lets BM25 tokenise each document once
    for every chunking evaluated against this set.
    """

    questions: list[Question]
    warnings: list[QAWarning] = field(default_factory=list)
    path: str | None = None
    lines: int = 0
    documents: Mapping[str, Document] | None = field(default=None, repr=False)

    @property
    def docs(self) -> list[str]:
        """Document ids the questions are about, in first-seen order."""
        return list(dict.fromkeys(q.doc for q in self.questions))

    def record(self) -> dict[str, Any]:
        """A JSON summary (path, counts, warnings)."""
        return {"path": self.path, "lines": self.lines, "questions": len(self.questions),
                "documents": len(self.docs), "warnings": [str(w) for w in self.warnings]}


def merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Sorted spans with overlapping or touching ones merged."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return tuple((s, e) for s, e in out)


# --- answer location --------------------------------------------------------------------------

_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                       "\u2014": "-", "\u2212": "-", "\u00a0": " "})


def normalise_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` case-folded, quotes/dashes unified and whitespace runs collapsed to one space,
    with the original offset of each output character (so a match maps back to exact spans)."""
    out: list[str] = []
    where: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if not space and out:
                out.append(" ")
                where.append(i)
            space = True
            continue
        space = False
        for c in ch.translate(_FOLD).casefold():  # casefold may give several characters
            out.append(c)
            where.append(i)
    return "".join(out), where


def locate_answer(text: str, answer: str, norm: tuple[str, list[int]] | None = None) -> list[Span]:
    """Every occurrence of ``answer`` in ``text`` (exact; else normalised), at most
    :data:`MAX_OCCURRENCES`, as exact spans into ``text``; [] when not found."""
    if not answer.strip():
        return []
    spans = [(m.start(), m.start() + len(answer)) for m in re.finditer(re.escape(answer), text)]
    if spans:
        return spans[:MAX_OCCURRENCES]
    ntext, where = norm if norm is not None else normalise_with_map(text)
    nans = normalise_with_map(answer.strip())[0]
    out, i = [], ntext.find(nans)
    while i >= 0 and len(out) < MAX_OCCURRENCES:
        out.append((where[i], where[i + len(nans) - 1] + 1))
        i = ntext.find(nans, i + 1)
    return out


# --- loading ----------------------------------------------------------------------------------

def doc_lookup(docs: Mapping[str, Document]) -> dict[str, str]:
    """Names a QA line may use for a document (id, source path, file name, stem) → its id."""
    names: dict[str, str] = {}
    for doc_id, doc in docs.items():
        for name in _names(doc_id, doc):
            names.setdefault(name, doc_id)
    for doc_id in docs:  # the id itself always wins
        names[doc_id] = doc_id
    return names


def _names(doc_id: str, doc: Document) -> list[str]:
    out = [doc_id]
    if doc.source:
        p = Path(doc.source)
        out += [doc.source, os.path.normpath(doc.source), p.name, p.stem]
    return out


def _resolve_doc(name: str, names: dict[str, str]) -> str | None:
    if name in names:
        return names[name]
    p = Path(name)
    return names.get(os.path.normpath(name)) or names.get(p.name) or names.get(p.stem)


def _spans(value: Any, n: int) -> tuple[list[Span] | None, str | None]:
    """Validated spans from a JSON ``evidence`` value (None and a reason when malformed)."""
    if not isinstance(value, list) or not value:
        return None, "evidence must be a non-empty list of [start, end] pairs"
    spans = []
    for item in value:
        if (not isinstance(item, (list, tuple)) or len(item) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in item)):
            return None, f"malformed evidence span {json.dumps(item)} (expected [start, end] integers)"
        s, e = item
        if not 0 <= s < e <= n:
            return None, f"evidence span [{s}, {e}] is empty or outside the document (0..{n})"
        spans.append((s, e))
    return spans, None


def _check_texts(texts: Any, spans: list[Span], text: str) -> str | None:
    """Why ``evidence_text`` (when given: one string per span) disagrees with the spans."""
    if texts is None:
        return None
    if not isinstance(texts, list) or len(texts) != len(spans) or not all(isinstance(t, str) for t in texts):
        return "evidence_text must be a list with one string per evidence span"
    for (s, e), t in zip(spans, texts):
        if text[s:e] != t:
            return (f"evidence span [{s}, {e}] holds {text[s:e][:40]!r}, not the evidence_text {t[:40]!r} "
                    "(the document changed?)")
    return None


def _not_qa(file: str, line: int, why: str) -> InputError:
    return InputError(code="ADA315", message=f"not a QA file: {why}", location=Location(file, line),
                      hint='each line must be a JSON object with "question" and "doc" (and "evidence" or "answer")')


def parse_line(obj: Any, lineno: int, file: str, docs: Mapping[str, Document], names: dict[str, str],
               norms: dict[str, tuple[str, list[int]]]) -> Question | str:
    """One JSON object → a :class:`Question`, or the reason it cannot be used (a warning).

    Raises:
        InputError: ``ADA315`` when the object has no string ``question`` and ``doc``.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("question"), str) or not isinstance(obj.get("doc"), str):
        raise _not_qa(file, lineno, "line without a string \"question\" and \"doc\"")
    if not obj["question"].strip():
        return "empty question"
    doc_id = _resolve_doc(obj["doc"], names)
    if doc_id is None:
        return f"unknown document {obj['doc']!r} (not among the {len(docs)} input documents)"
    text = docs[doc_id].text
    answer = obj.get("answer") if isinstance(obj.get("answer"), str) else None
    if obj.get("evidence") is not None:
        spans, why = _spans(obj["evidence"], len(text))
        if spans is None:
            return why
        why = _check_texts(obj.get("evidence_text"), spans, text)
        if why:
            return why
        sets = (merge_spans(spans),)
    elif answer is not None:
        if doc_id not in norms:
            norms[doc_id] = normalise_with_map(text)
        found = locate_answer(text, answer, norms[doc_id])
        if not found:
            return f"answer {answer[:60]!r} not found in document {doc_id!r} (exact or normalised)"
        sets = tuple((s,) for s in found)
    else:
        return "no evidence and no answer"
    qid = obj.get("id")
    return Question(str(qid) if qid is not None else f"q{lineno}", obj["question"].strip(), doc_id, sets,
                    answer, lineno)


def load_qa(path: str | os.PathLike, docs: Mapping[str, Document]) -> QASet:
    """Read a QA file against the documents it is about: JSONL (the module docstring), or a
    ``.csv`` in the format of Chroma's chunking evaluation (:mod:`adachunk.evaluate.qa_csv`).

    Args:
        path: the QA file.
        docs: the documents, keyed by :attr:`Document.id`.

    Returns:
        The usable questions, and a located warning for every skipped line.

    Raises:
        InputError: ``ADA315`` when the file cannot be read, is not JSONL, has a JSON line that is
            not a question, or has no usable question.
    """
    file = os.fspath(path)
    try:
        raw = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(code="ADA315", message=f"QA file cannot be read: {getattr(exc, 'strerror', None) or exc}",
                         location=Location(file)) from None
    names, norms = doc_lookup(docs), {}
    questions: list[Question] = []
    warnings: list[QAWarning] = []
    parsed = lines = 0
    for lineno, obj in _objects(file, raw):
        lines += 1
        if isinstance(obj, str):
            warnings.append(QAWarning(file, lineno, obj + "; line skipped"))
            continue
        parsed += 1
        got = parse_line(obj, lineno, file, docs, names, norms)
        if isinstance(got, str):
            warnings.append(QAWarning(file, lineno, got + "; line skipped"))
        else:
            questions.append(got)
    if not parsed:
        raise _not_qa(file, 1 if lines else None, "no line is a JSON object" if lines else "the file is empty")
    if not questions:
        first = warnings[0] if warnings else None
        raise InputError(code="ADA315", message=f"no usable question in {lines} lines"
                         + (f" (first problem: line {first.line}: {first.message})" if first else ""),
                         location=Location(file))
    _check_ids(questions, warnings, file)
    return QASet(questions, warnings, file, lines, docs)


def load_qa_files(paths: Iterable[str | os.PathLike], docs: Mapping[str, Document]) -> QASet:
    """Several QA files (:func:`load_qa` each) as one set: their questions in file order, each
    question's id prefixed with its file's stem when two files are given."""
    paths = list(paths)
    sets = [load_qa(p, docs) for p in paths]
    if len(sets) == 1:
        return sets[0]
    questions = []
    for p, qs in zip(paths, sets):
        stem = Path(os.fspath(p)).stem
        questions += [dataclasses.replace(q, id=f"{stem}:{q.id}") for q in qs.questions]
    return QASet(questions, [w for qs in sets for w in qs.warnings], ";".join(map(os.fspath, paths)),
                 sum(qs.lines for qs in sets), docs)


def _objects(file: str, raw: str):
    """``(line, object or why it is not one)`` per non-blank line of a JSONL file, or per row of a
    Chroma CSV file (``.csv``).

    Raises:
        InputError: ``ADA315`` for a CSV file without Chroma's columns.
    """
    if file.lower().endswith(".csv"):
        from .qa_csv import csv_rows, header_problem

        why = header_problem(raw)
        if why:
            raise _not_qa(file, 1, why)
        yield from csv_rows(raw)
        return
    for lineno, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            yield lineno, f"not JSON ({exc.msg} at column {exc.colno})"


def _check_ids(questions: list[Question], warnings: list[QAWarning], file: str) -> None:
    """Warn about duplicate question ids (rows stay distinct: they are kept in file order)."""
    seen: dict[str, int] = {}
    for q in questions:
        if q.id in seen:
            warnings.append(QAWarning(file, q.line, f"duplicate id {q.id!r} (first on line {seen[q.id]})"))
        seen.setdefault(q.id, q.line)
