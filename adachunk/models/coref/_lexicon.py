"""Word lists and mention features of the ``heuristic.v1`` resolver (rules 1, 2 and 4).

Which words are third-person pronouns, pleonastic heads, person / party / collective nouns, and
how a spaCy noun phrase or pronoun is described for agreement: number, kind, gender, role.
Kept apart from the resolver so the lexicon can be reviewed (and extended) on its own.
"""

from __future__ import annotations

import re

_PLEONASTIC_HEADS = {"be", "seem", "appear", "happen", "remain", "become", "follow", "matter", "take", "mean",
                     "suffice", "emerge", "turn", "prove", "expect", "recommend", "note", "suggest", "say",
                     "believe", "consider", "require", "assume", "understand", "know", "clear", "possible",
                     "necessary", "important", "essential", "likely", "difficult", "easy", "useful", "crucial"}
_PLEONASTIC_OBJ_HEADS = {"make", "find", "consider", "deem", "render", "keep"}
_CLAUSAL = {"ccomp", "xcomp", "csubj", "csubjpass"}
_QUOTES = {'"', "'", "“", "”", "„", "‘", "’", "«", "»", "`", "``", "''"}
# Markup the parsers leave in the text: HTML comments (<!-- PageHeader: ... -->, page breaks,
# footers) and tags. Invisible to the resolver: no mention, no pronoun, no sentence distance.
_MARKUP = re.compile(r"<!--.*?-->|</?[A-Za-z][^>\n]{0,80}>", re.S)
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "such", "any", "each", "every"}

# Third-person pronouns: lower-case form → (number, gender). "they" is plural (or singular "they").
PRONOUNS: dict[str, tuple[str, str | None]] = {
    **dict.fromkeys(("he", "him", "his", "himself"), ("sing", "masc")),
    **dict.fromkeys(("she", "her", "hers", "herself"), ("sing", "fem")),
    **dict.fromkeys(("it", "its", "itself"), ("sing", "neut")),
    **dict.fromkeys(("they", "them", "their", "theirs", "themselves"), ("plur", None)),
}
REFLEXIVE = frozenset({"himself", "herself", "itself", "themselves"})
_MALE = {"man", "men", "boy", "father", "husband", "son", "brother", "king", "gentleman", "mr", "sir", "uncle"}
_FEMALE = {"woman", "women", "girl", "mother", "wife", "daughter", "sister", "queen", "lady", "mrs", "ms",
           "madam", "aunt"}
# Nouns that denote people: he/she and singular "they", never "it".
_PERSON = _MALE | _FEMALE | {
    "person", "people", "individual", "child", "citizen", "consumer", "worker", "employee", "judge", "author",
    "officer", "minister", "president", "commissioner", "chairman", "chairperson", "candidate", "victim",
    "patient", "student", "teacher", "researcher", "scientist", "engineer", "resident", "spouse", "parent",
    "lawyer", "expert", "rapporteur", "ombudsman", "physicist", "chemist", "professor", "doctor", "human",
    "adult", "minor", "subject", "journalist", "voter", "defendant", "plaintiff", "claimant", "complainant",
}
# Parties that may be a natural or a legal person ("the developer ... its", "the applicant ... his").
_AGENT = {
    "developer", "user", "owner", "holder", "client", "customer", "member", "representative", "deployer",
    "provider", "controller", "processor", "operator", "manufacturer", "importer", "distributor", "applicant",
    "recipient", "buyer", "seller", "beneficiary", "supervisor", "party", "director", "manager", "head",
    "deputy", "licensee", "licensor", "signatory", "contractor", "employer", "insurer", "debtor", "creditor",
}
_COLLECTIVE = {
    "committee", "government", "commission", "council", "parliament", "board", "company", "public", "team",
    "group", "police", "staff", "couple", "family", "pair", "authority", "court", "union", "community",
    "industry", "organisation", "organization", "agency", "office", "body", "administration", "secretariat",
}
_NOT_NOMINAL = {"PRP", "PRP$", "WP", "WDT", "EX", "CD"}
_GROUP_ENTS = {"ORG", "NORP", "GPE"}
_NAMED_ENTS = {"PERSON", "ORG", "NORP", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"}
_NUMERIC_ENTS = {"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"}
_ROLES = {"nsubj": "subj", "nsubjpass": "subj", "csubj": "subj", "dobj": "obj", "obj": "obj",
          "dative": "dat", "iobj": "dat", "attr": "attr", "oprd": "attr", "appos": "attr"}


def _role(tok) -> str:
    """Grammatical role of a nominal head: subj, obj, dat, attr, poss or obl."""
    while tok.dep_ == "conj" and tok.head.i != tok.i:
        tok = tok.head
    if tok.dep_ == "poss":
        return "poss"
    return _ROLES.get(tok.dep_, "obl")


def _number(root) -> str:
    """sing, plur or any (ambiguous: organisations, collectives, 'Member States')."""
    if root.tag_ in ("NNS", "NNPS") or "Plur" in root.morph.get("Number"):
        return "plur"
    text = root.text
    if root.tag_ == "NNP" and len(text) > 3 and text.endswith("s") and not text.endswith(("ss", "us", "is")):
        return "any"
    if root.ent_type_ in _GROUP_ENTS or root.lower_ in _COLLECTIVE:
        return "any"
    return "sing"


def mention_features(root, pronoun: bool = False):
    """``(number, kind, gender, role, governor, entity)`` of a noun phrase headed by ``root``.

    None when the phrase cannot be an antecedent (a pronoun, a number, a date). With
    ``pronoun=True`` the features of a resolved pronoun (it then passes on its antecedent).
    """
    if pronoun:
        number, gender = PRONOUNS[root.lower_]
        kind = "person" if gender in ("masc", "fem") else "thing"
        return number, kind, gender, _role(root), root.head.i, False
    if root.pos_ == "PRON" or root.tag_ in _NOT_NOMINAL or root.ent_type_ in _NUMERIC_ENTS \
            or not any(c.isalpha() for c in root.text):
        return None
    low, ent = root.lower_, root.ent_type_
    if ent == "PERSON" or low in _PERSON:
        kind = "person"
    elif low in _AGENT or low.rstrip("s") in _AGENT or low[:-3] + "y" in _AGENT:
        kind = "agent"
    elif ent in _GROUP_ENTS or low in _COLLECTIVE:
        kind = "group"
    else:
        kind = "thing"
    gender = "masc" if low in _MALE else "fem" if low in _FEMALE else None
    return _number(root), kind, gender, _role(root), root.head.i, ent in _NAMED_ENTS


def pronoun_role(tok) -> str:
    """Grammatical role of a pronoun token (``poss`` for his/its/their ...)."""
    return "poss" if tok.tag_ == "PRP$" or tok.dep_ == "poss" else _role(tok)


def agrees(pronoun: str, m, mention_gender: str | None = None) -> bool:
    """Number, gender and animacy agreement between a pronoun and a mention (rule 4).

    ``mention_gender`` overrides the mention's own (learnt from earlier he/she of that name).
    """
    number, gender = PRONOUNS[pronoun]
    if gender in ("masc", "fem"):
        return (m.kind in ("person", "agent") and m.number != "plur"
                and (mention_gender or m.gender) in (None, gender))
    if gender == "neut":
        return m.kind != "person" and m.number != "plur"
    # singular "they": a generic person or party ("a user", "the data subject"), not "her husband"
    return m.number != "sing" or m.kind == "group" or m.generic
