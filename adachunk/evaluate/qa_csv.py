"""QA sets in the CSV format of Chroma's chunking evaluation (``questions_df.csv``).

Columns ``question``, ``references`` and ``corpus_id``: ``references`` is a JSON list of
``{"content", "start_index", "end_index"}`` excerpts (Python string offsets into the corpus file
read as UTF-8, which are adachunk's code-point offsets), all of them the evidence of the question
together; ``corpus_id`` names the document (its file stem). Each row becomes the JSON object a
QA JSONL line would hold (``question``, ``doc``, ``evidence``, ``evidence_text``), so both formats
go through the same checks and warnings (:func:`adachunk.evaluate.qa.parse_line`); warnings name
the row's line in the file.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterator

REQUIRED = ("question", "references", "corpus_id")


def header_problem(raw: str) -> str | None:
    """Why ``raw`` is not a Chroma QA CSV (None when its header has the three columns)."""
    first = next(csv.reader(io.StringIO(raw)), None)
    if not first:
        return "the file is empty"
    missing = [c for c in REQUIRED if c not in first]
    return f"CSV header without column(s) {', '.join(missing)} (Chroma's format: {', '.join(REQUIRED)})" \
        if missing else None


def csv_rows(raw: str) -> Iterator[tuple[int, Any]]:
    """``(line, object)`` per data row: the QA object of the row, or a string saying why the row
    cannot be one (its ``references`` are not a JSON list of excerpts)."""
    reader = csv.DictReader(io.StringIO(raw))
    line = reader.line_num + 1
    for row in reader:
        yield line, _row_object(row)
        line = reader.line_num + 1


def _row_object(row: dict[str, Any]) -> Any:
    try:
        refs = json.loads(row.get("references") or "")
    except json.JSONDecodeError as exc:
        return f"references are not JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(refs, list) or not refs or not all(isinstance(r, dict) for r in refs):
        return "references must be a non-empty JSON list of {content, start_index, end_index} objects"
    obj: dict[str, Any] = {"question": row.get("question") or "", "doc": row.get("corpus_id") or "",
                           "evidence": [[r.get("start_index"), r.get("end_index")] for r in refs]}
    if all(isinstance(r.get("content"), str) for r in refs):
        obj["evidence_text"] = [r["content"] for r in refs]
    return obj
