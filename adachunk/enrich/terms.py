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


class TermMatcher:
    """Finds uses of a document's defined terms (longest term first: "customer record" before
    "customer")."""

    def __init__(self, definitions: list[Definition]):
        self.definitions = definitions
        self.by_group = {}
        parts = []
        for i, d in enumerate(sorted(definitions, key=lambda d: -len(d.term))):
            parts.append(f"(?P<t{i}>{_term_pattern(d.term)})")
            self.by_group[f"t{i}"] = d
        self.regex = re.compile(r"(?<![\w])(?:" + "|".join(parts) + r")(?![\w])") if parts else None
        self.own = [d.term_span for d in definitions]

    def uses(self, text: str, start: int, end: int) -> list[Definition]:
        """Defined terms used in ``text[start:end]``, in order of first use."""
        if self.regex is None:
            return []
        out, seen = [], set()
        for m in self.regex.finditer(text, start, end):
            d = self.by_group[m.lastgroup]
            if d.term in seen or any(a <= m.start() < b for a, b in self.own):
                continue
            seen.add(d.term)
            out.append(d)
        return out
