"""Defined terms: which chunk defines each term, and which terms every chunk uses.

A structure marked ``emit: definition`` (the legal pack's ``definition``: ``(6) ‘retention
period’ means ...``) names one or more quoted terms before its "means". Every chunk then lists
the defined terms it uses, with the chunk that defines each, so a reader (or the embedded
text) can carry "what 'provider' means *in this act*". Matching is case aware (a lower-case
term also matches with a capital first letter, a capitalised term such as "Material Adverse
Effect" only as written) and plural aware (``provider`` → ``providers``, ``authority`` →
``authorities``); a term's own quoted occurrence in its definition is not a use.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# ‘x’  'x'  "x"  “x”  «x»  *x*  **x**
_QUOTED = re.compile(r"‘(?P<a>[^‘’\n]{1,80})’|'(?P<b>[^'\n]{1,80})'|\"(?P<c>[^\"\n]{1,80})\"|“(?P<d>[^“”\n]{1,80})”"
                     r"|«[ \u00a0]?(?P<e>[^«»\n]{1,80}?)[ \u00a0]?»|\*\*(?P<f>[^*\n]{1,80})\*\*|\*(?P<g>[^*\n]{1,80})\*")
_MEANS = re.compile(r"\b(?:means|shall mean|mean|has the meaning|shall have the meaning|refers to|désigne|désignent"
                    r"|s'entend|bezeichnet)\b")


@dataclass(frozen=True)
class Definition:
    """One defined term: its text, the definition span, and where the quoted term stands."""

    term: str
    start: int
    end: int
    term_span: tuple[int, int]


def read_definitions(text: str, spans: list[tuple[int, int]]) -> list[Definition]:
    """The quoted terms before "means" in each definition span (first definition of a term wins)."""
    out, seen = [], set()
    for start, end in spans:
        m = _MEANS.search(text, start, end)
        head_end = m.start() if m else end
        for q in _QUOTED.finditer(text, start, head_end):
            term = next(g for g in q.groups() if g is not None).strip()
            key = term.lower()
            if len(term) < 2 or key in seen:
                continue
            seen.add(key)
            out.append(Definition(term, start, end, (q.start(), q.end())))
    return out


def _term_pattern(term: str) -> str:
    words = re.escape(term).replace(r"\ ", r"\s+")
    if term[-1:] == "y" and term[-2:-1] not in "aeiou":
        words = words[:-1] + "(?:y|ies)"
    elif term[-1:].isalpha():
        words += "(?:s|es)?"
    if term[:1].islower():
        first = re.escape(term[0])
        words = f"[{first}{first.upper()}]" + words[len(first):]
    return words


def _first_chars(term: str) -> str:
    """The characters the pattern of ``term`` (:func:`_term_pattern`) can match first."""
    first = term[0]
    return first + first.upper() if term[:1].islower() else first


class TermMatcher:
    """Finds uses of a document's defined terms (longest term first: "customer record" before
    "customer")."""

    def __init__(self, definitions: list[Definition]):
        self.definitions = definitions
        self.by_group = {}
        parts = []
        # Each alternative ends with an empty group naming its term (only the match's start and
        # that name are read), so the alternative itself opens with its first character: the
        # regex engine then skips an alternative whose first literal differs in one comparison
        # instead of entering it, and a lookahead on the characters a term can begin with
        # rejects most positions in one class test. With 100+ terms the plain alternation
        # (each term in its group) cost ~3 µs per character of every chunk; the matches are
        # the same (``tests/test_enrich_terms_regex.py``).
        for i, d in enumerate(sorted(definitions, key=lambda d: -len(d.term))):
            parts.append(f"{_term_pattern(d.term)}(?P<t{i}>)")
            self.by_group[f"t{i}"] = d
        firsts = "".join(sorted({c for d in definitions for c in _first_chars(d.term)}))
        alternation = r"(?<![\w])(?:" + "|".join(parts) + r")(?![\w])"
        self.regex = re.compile(f"(?=[{re.escape(firsts)}])" + alternation) if parts else None
        # the defining occurrences as disjoint sorted intervals: a match is inside one iff it
        # is inside the interval that opens last at or before it (bisect, not a scan per match)
        merged: list[list[int]] = []
        for a, b in sorted(d.term_span for d in definitions):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            elif a < b:
                merged.append([a, b])
        self._own_starts = [a for a, _ in merged]
        self._own_ends = [b for _, b in merged]

    def _in_own(self, pos: int) -> bool:
        """Whether ``pos`` lies in a defining occurrence (``a <= pos < b`` for a term span)."""
        k = bisect.bisect_right(self._own_starts, pos) - 1
        return k >= 0 and pos < self._own_ends[k]

    def uses(self, text: str, start: int, end: int) -> list[Definition]:
        """Defined terms used in ``text[start:end]``, in order of first use."""
        if self.regex is None:
            return []
        out, seen = [], set()
        for m in self.regex.finditer(text, start, end):
            d = self.by_group[m.lastgroup]
            if d.term in seen or self._in_own(m.start()):
                continue
            seen.add(d.term)
            out.append(d)
        return out
