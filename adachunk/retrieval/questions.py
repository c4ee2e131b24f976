"""``adachunk eval generate``: a proxy QA set made from the documents themselves (offline, no LLM).

For each document, prose sentences are found (lines that are not headings, table rows, code,
front matter or HTML comments; 8..80 words, at least 4 content words). The eligible sentences are
cut into ``per_doc`` equal runs in document order and one sentence is drawn from each run with
``random.Random`` seeded by ``seed`` and the document id, so the questions spread over the whole
document and the same seed gives the same file. The question is a keyword query made of the
sentence's rarest content words in the document (at most five, in sentence order): "What does
the document say about X, Y and Z?"; the evidence is the sentence span, and ``answer`` is its text.

**This is a proxy, with known biases.** The query shares its words with the evidence, which
favours BM25 over dense retrieval and inflates every absolute number; the evidence is one whole
sentence, which favours chunkings that keep sentences whole; nothing tests multi-hop questions,
tables, or answers spread over several passages. Use it to rank chunkings against each other on
a corpus without a QA set, not as an estimate of real retrieval quality; a hand-written set
(``examples/qa.jsonl``) paraphrases instead.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from ..datatypes import Document
from .retrievers import STOPWORDS

# a sentence runs to . ! or ? not followed by a word character ("9.7%", "e.g" stay inside)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\w))+(?:[.!?]+[\"')\]\u201d\u2019]*|$)")
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,]\d+)*", re.UNICODE)
_SKIP_LINE = re.compile(r"^\s*(#|\||```|~~~|<!--|---|>|\*[^*]+\*\s*$|`[^`]+`\s*$)")
_MARKER = re.compile(r"\s*(?:(?:[-*+]|\d{1,3}[.)]|\(?[a-z\d]{1,4}\))\s+)?\s*")
MIN_WORDS, MAX_WORDS, MIN_CONTENT, QUERY_WORDS = 8, 80, 4, 5


def _prose_lines(text: str) -> Iterable[tuple[int, str]]:
    """``(offset, line)`` of the lines that hold prose (no headings, tables, code, front matter)."""
    pos, fence, front = 0, False, text.startswith("---\n")
    for i, line in enumerate(text.splitlines(keepends=True)):
        start, pos = pos, pos + len(line)
        bare = line.strip()
        if front:
            front = not (i > 0 and bare == "---")
            continue
        if bare.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not bare or _SKIP_LINE.match(line) or line.startswith(("    ", "\t")):
            continue
        yield start, line


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans of eligible prose sentences (stripped of surrounding spaces and list markers)."""
    out = []
    for off, line in _prose_lines(text):
        for m in _SENTENCE.finditer(line):
            s, e = m.start(), m.end()
            raw = line[s:e]
            lead = _MARKER.match(raw).end()  # list markers: "- ", "1. ", "(a) ", "iv) "
            s, e = s + lead, s + len(raw.rstrip())
            words = _WORD.findall(line[s:e])
            content = [w for w in words if w.casefold() not in STOPWORDS and len(w) > 2]
            if MIN_WORDS <= len(words) <= MAX_WORDS and len(content) >= MIN_CONTENT:
                out.append((off + s, off + e))
    return out


def _query_words(sentence: str, df: Counter) -> list[str]:
    """The sentence's rarest content words in the document (ties: longer first), sentence order."""
    words = list(dict.fromkeys(w for w in _WORD.findall(sentence) if w.casefold() not in STOPWORDS and len(w) > 2))
    ranked = sorted(words, key=lambda w: (df[w.casefold()], -len(w), w))[:QUERY_WORDS]
    return [w for w in words if w in ranked]


def _question(words: list[str]) -> str:
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"What does the document say about {listed}?"


def generate_for(doc: Document, per_doc: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """Up to ``per_doc`` generated QA records for one document (deterministic for a seed)."""
    spans = sentences(doc.text)
    if not spans or per_doc <= 0:
        return []
    df = Counter(w.casefold() for w in _WORD.findall(doc.text))
    rng = random.Random(seed * 1_000_003 + zlib.crc32(doc.id.encode("utf-8", "surrogatepass")))
    n = min(per_doc, len(spans))
    picks = []
    for b in range(n):  # one sentence from each of n equal runs: spread over the document
        lo, hi = b * len(spans) // n, (b + 1) * len(spans) // n
        picks.append(spans[rng.randrange(lo, hi)])
    out = []
    for i, (s, e) in enumerate(picks, 1):
        text = doc.text[s:e]
        out.append({"id": f"{doc.id}-g{i:02d}", "question": _question(_query_words(text, df)), "doc": doc.id,
                    "evidence": [[s, e]], "answer": text, "generated": "keywords.v1"})
    return out


def generate_qa(docs: Iterable[Document], per_doc: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """Generated QA records for every document, in document order."""
    return [r for d in docs for r in generate_for(d, per_doc, seed)]


def write_qa(records: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write QA records as JSONL (UTF-8); returns the number of lines.

    Raises:
        InputError: ``ADA307`` when the file cannot be written.
    """
    from ..errors import InputError, Location

    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    except OSError as exc:
        raise InputError(code="ADA307", message=f"cannot write {path}: {exc.strerror or exc}",
                         location=Location(str(path))) from None
    return len(lines)
