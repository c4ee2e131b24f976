"""The questions a document asks about itself: probes for the retrieval-fit metric (``rf.v1``).

No labels, no LLM: a probe is an *answer passage* of the document and a keyword *query* about it.

* **Passages**: ``n`` prose sentences spread evenly over the document (the eligible sentences of
  :func:`adachunk.retrieval.questions.sentences`: no headings, tables or code; 8 to 80 words), each
  with the next sentence when only whitespace separates them: answers of real questions are
  one to three sentences (Chroma's evaluation: 1.6 excerpts of ~170 characters on average).
* **Query**: the passage's rarest content words in the document (half of ``words``) and the rarest
  words of its context, the ``window`` characters on each side of it (the other half), as a
  reader's question names its topic (an article, a party, a defined term) while the passage
  itself often refers to it by a pronoun.

What this rewards, measured on chroma-dev (``bench/RESULTS.md``, "Retrieval fit"): a chunk too
small to hold the passage with its topic misses the context half of the query; a chunk too large
dilutes or truncates what the embedder reads, and costs more of the reader's budget. The
passages are different sentences from ``adachunk eval generate``'s (which asks about one sentence
with its own words only), but both are lexical proxies: they favour BM25 over dense retrieval.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

Span = tuple[int, int]
SPREAD = 600  # most characters between the two sentences of a passage


@dataclass(frozen=True)
class Probe:
    """One question the document asks about itself.

    Attributes:
        query: the keyword query.
        evidence: the answer passage, as sorted disjoint spans of the document text.
    """

    query: str
    evidence: tuple[Span, ...]


def _rank_key(df: Counter):
    return lambda w: (df[w.casefold()], -len(w), w)


def document_probes(text: str, n: int = 32, window: int = 800, words: int = 6,
                    keep: Callable[[tuple[Span, ...]], bool] | None = None) -> list[Probe]:
    """Up to ``n`` probes of ``text`` (deterministic; see the module docstring).

    ``keep``, when given, selects probes by their evidence before their queries are made: the
    result is the full list filtered by it (``retrieval.sample`` keeps about a tenth of a long
    document's, and a query costs more than its passage).
    """
    from ..retrieval.questions import _WORD, sentences
    from ..retrieval.retrievers import STOPWORDS

    spans = sentences(text)
    if not spans or n <= 0:
        return []

    def content(w: str) -> bool:
        return len(w) > 2 and w.casefold() not in STOPWORDS

    df = Counter(w.casefold() for w in _WORD.findall(text))
    key = _rank_key(df)
    own, ctx_n = max(1, words // 2), max(0, words - words // 2)
    step = len(spans) / min(n, len(spans))
    out: list[Probe] = []
    for j in range(min(n, len(spans))):
        i = int(step * j + step / 2)
        ev = [spans[i]]
        gap = 1 + (j % 3 == 2)  # a third of the passages skip a sentence: answers spread over a paragraph
        if i + gap < len(spans) and spans[i + gap][0] - spans[i][1] <= SPREAD and \
                "\n\n" not in text[spans[i][1]:spans[i + gap][0]]:
            ev.append(spans[i + gap])
        if keep is not None and not keep(tuple(ev)):
            continue
        a, b = ev[0][0], ev[-1][1]
        passage = list(dict.fromkeys(w for w in _WORD.findall(text, a, b) if content(w)))
        if not passage:
            continue
        mine = set(sorted(passage, key=key)[:own])
        seen = {w.casefold() for w in passage}
        around = _WORD.findall(text, max(0, a - window), a) + _WORD.findall(text, b, min(len(text), b + window))
        context = [w for w in dict.fromkeys(around) if content(w) and w.casefold() not in seen]
        query = [w for w in passage if w in mine] + sorted(context, key=key)[:ctx_n]
        out.append(Probe(" ".join(query), tuple(ev)))
    return out
