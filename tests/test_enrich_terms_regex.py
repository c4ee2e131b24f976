"""TermMatcher finds exactly the uses its plain formulation finds.

The matcher's regex is arranged for speed (each alternative opens with its first character and
names its term with an empty group at its end; a lookahead on the possible first characters),
and the defining occurrences are looked up by bisection. The reference below is the plain
formulation: each term's pattern in its own named group, a scan over every definition per match.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.enrich.terms import Definition, TermMatcher, _term_pattern


def reference_uses(definitions: list[Definition], text: str, start: int, end: int) -> list[Definition]:
    by_group, parts = {}, []
    for i, d in enumerate(sorted(definitions, key=lambda d: -len(d.term))):
        parts.append(f"(?P<t{i}>{_term_pattern(d.term)})")
        by_group[f"t{i}"] = d
    if not parts:
        return []
    regex = re.compile(r"(?<![\w])(?:" + "|".join(parts) + r")(?![\w])")
    own = [d.term_span for d in definitions]
    out, seen = [], set()
    for m in regex.finditer(text, start, end):
        d = by_group[m.lastgroup]
        if d.term in seen or any(a <= m.start() < b for a, b in own):
            continue
        seen.add(d.term)
        out.append(d)
    return out


TERMS = ["Business", "Business purpose", "consumer", "Consumer record", "party", "Data Subject", "(a) item",
         "ßtraße", "Élan", "x", "Agency", "agency", "Personal data", "personal information", "Ω-value"]
WORDS = ["the", "a", "of", "Businesses", "consumers", "parties", "Party", "data", "subject", "Subjects", "Xy",
         "élan", "Élans", "ÉLAN", "SSTRASSE", "Straße", "Agencies", "agencies", "purpose", "record", "-", ",",
         "(a)", "item", "Ω-values", "Personal", "information", "\n", "  ", "_", "1"]


@settings(max_examples=300, deadline=None)
@given(terms=st.lists(st.sampled_from(TERMS), min_size=1, max_size=8, unique=True),
       words=st.lists(st.sampled_from(WORDS + TERMS), max_size=60),
       own_at=st.lists(st.integers(0, 59), max_size=4), cut=st.integers(0, 40))
def test_same_uses_as_the_plain_formulation(terms, words, own_at, cut):
    text, offsets = "", []
    for w in words:
        offsets.append(len(text))
        text += w + " "
    defs = []
    for k, term in enumerate(terms):  # some definitions stand inside the text, others outside
        if k < len(own_at) and own_at[k] < len(offsets):
            a = offsets[own_at[k]]
            defs.append(Definition(term, a, a + 5, (a, a + len(term))))
        else:
            defs.append(Definition(term, 0, 0, (len(text) + 10 * k, len(text) + 10 * k + len(term))))
    start = min(cut, len(text))
    got = TermMatcher(defs).uses(text, start, len(text))
    assert [d.term for d in got] == [d.term for d in reference_uses(defs, text, start, len(text))]


def test_same_uses_on_a_definitions_article():
    text = ("Article 4\n\nFor the purposes of this Regulation: (1) 'personal data' means any information; "
            "(2) 'processing' means any operation; (3) 'Controller' means the body.\n\n"
            "The controller shall process personal data. Processing of Personal Data by a Controller "
            "requires consent. Controllers and processings are not defined terms here.\n")
    defs = []
    for term in ("personal data", "processing", "Controller"):
        a = text.index(f"'{term}'")
        defs.append(Definition(term, a, a + 40, (a, a + len(term) + 2)))
    matcher = TermMatcher(defs)
    for start in range(0, len(text), 17):
        assert matcher.uses(text, start, len(text)) == reference_uses(defs, text, start, len(text))
    assert [d.term for d in matcher.uses(text, 0, len(text))] == ["personal data", "processing", "Controller"]
