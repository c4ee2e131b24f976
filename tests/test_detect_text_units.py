"""sentence.v1 and word.v1: behaviour, contract and properties on random Unicode text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect.base import DetectContext
from adachunk.detect.text_units import (
    WORD_RE,
    SentenceDetector,
    WordDetector,
    split_sentences,
    split_words,
)
from adachunk.components.registry import detectors
from adachunk.datatypes import Structure


def sents(text: str, **kw) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text, **kw)]


# --- sentence.v1 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("One. Two.", ["One.", "Two."]),
        ("See Art. 5 of the Act. It applies.", ["See Art. 5 of the Act.", "It applies."]),
        ("Under Article 6(1)(a). Then.", ["Under Article 6(1)(a).", "Then."]),
        ("It is 3.5 m. Version 1.2.3 is out.", ["It is 3.5 m.", "Version 1.2.3 is out."]),
        ("Mr. Smith, e.g. today, i.e. Monday. Ok.", ["Mr. Smith, e.g. today, i.e. Monday.", "Ok."]),
        ("J. Smith came. He sat.", ["J. Smith came.", "He sat."]),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("A (see below.) B", ["A (see below.)", "B"]),
        ("Why? Because! yes", ["Why?", "Because! yes"]),
        ("a; b; c.", ["a; b; c."]),
        ("甲。乙！丙？丁", ["甲。", "乙！", "丙？", "丁"]),
        ("क है। ख", ["क है।", "ख"]),
        ("ما؟ نعم", ["ما؟", "نعم"]),
        ("ሰላም። ደህና", ["ሰላም።", "ደህና"]),
        ("no terminator at all", ["no terminator at all"]),
        ("line one\nline two", ["line one\nline two"]),
        ("para one\n\npara two", ["para one", "para two"]),
        ("# Title\nBody text", ["# Title", "Body text"]),
        ("Intro\n> quoted", ["Intro", "> quoted"]),
        ("Intro\n- item\n+ item\n3) item", ["Intro", "- item", "+ item", "3) item"]),
        ("No. 5 applies. The no. 6 too.", ["No. 5 applies.", "The no. 6 too."]),
        ("The answer is no. The end.", ["The answer is no.", "The end."]),
        ("M. Dupont arrive. Il part.", ["M. Dupont arrive.", "Il part."]),
    ],
)
def test_sentence_examples(text, expected):
    assert sents(text) == expected


def test_heading_inner_periods_do_not_split():
    text = "## 2. Scope. Definitions\nText."
    assert sents(text) == ["## 2. Scope. Definitions", "Text."]


def test_heading_on_first_line_without_newline():
    assert sents("# Only a heading. With a period") == ["# Only a heading. With a period"]


def test_extra_abbreviations_with_and_without_period():
    text = "See Sch. 2 and Cl. 4. Then stop."
    assert sents(text) == ["See Sch.", "2 and Cl. 4.", "Then stop."]
    expected = ["See Sch. 2 and Cl. 4.", "Then stop."]
    assert sents(text, extra_abbreviations=["Sch.", "Cl"]) == expected


def test_spans_exclude_surrounding_whitespace():
    text = "\n\t  First.  \u3000Second.\u00a0 \n"
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["First.", "Second."]


def test_empty_and_whitespace_only():
    assert split_sentences("") == []
    assert split_sentences(" \n\t\u3000 ") == []


def test_sentence_detector_through_registry_and_memo():
    cls = detectors.get("sentence.v1")
    assert cls is SentenceDetector
    params = cls.Params.model_validate({"extra_abbreviations": ["Cl."], "language": "en"})
    det = cls(params, name="sentence")
    ctx = DetectContext("See Cl. 5. Done.")
    out = det.detect(ctx)
    assert out == [Structure(0, 10, "sentence", 0), Structure(11, 16, "sentence", 0)]
    # A second structure with the same settings reuses the per-document segmentation.
    other = cls(params, name="sent2")
    calls = len(ctx._cache)
    assert [(s.start, s.end) for s in other.detect(ctx)] == [(0, 10), (11, 16)]
    assert len(ctx._cache) == calls


def test_sentence_params_are_strict_and_described():
    with pytest.raises(Exception):
        SentenceDetector.Params.model_validate({"extra_abbreviation": []})
    for model in (SentenceDetector.Params, WordDetector.Params):
        for name, f in model.model_fields.items():
            assert f.description, f"{model.__qualname__}.{name} lacks a description"


def test_agreement_with_pysbd_on_english():
    pysbd = pytest.importorskip("pysbd")
    text = (
        "The European Commission published its proposal in April 2021. It was amended by the "
        "Council and the Parliament. Mr. Breton presented the final text on Dec. 8, 2023. "
        "The Regulation applies from 2 August 2026, with exceptions. Some provisions, e.g. the "
        "prohibitions, apply earlier. Fines can reach EUR 35 million or 7% of turnover. "
        "Is the system high-risk? That depends on Annex III. Providers must register it! "
        "The U.S. approach differs. Dr. Smith et al. compared both regimes in 2024. "
        "Their conclusion was clear. Version 2.1 of the guidance followed."
    )
    seg = pysbd.Segmenter(language="en", clean=False)
    theirs, pos = set(), 0
    for s in seg.segment(text):
        s = s.strip()
        i = text.find(s, pos)
        if s and i >= 0:
            pos = i + len(s)
            theirs.add(pos)
    ours = {e for _, e in split_sentences(text)}
    agree = len(ours & theirs) / max(len(ours | theirs), 1)
    print(f"pysbd boundaries={len(theirs)} ours={len(ours)} jaccard={agree:.2f}")
    assert agree >= 0.85


def test_agreement_with_pysbd_on_clair(clair_docs):
    """Sanity on real documents: our boundaries are (nearly all) boundaries for pysbd too."""
    pysbd = pytest.importorskip("pysbd")
    seg = pysbd.Segmenter(language="en", clean=False)
    tp = ours_n = 0
    for _, doc in [d for d in clair_docs if d[1].get("language") == "en"][:4]:
        text = doc["full_text"][:8000]
        theirs, pos = set(), 0
        for s in seg.segment(text):
            s = s.strip()
            i = text.find(s, pos)
            if s and i >= 0:
                pos = i + len(s)
                theirs.add(pos)
        ours = {e for _, e in split_sentences(text)}
        tp += len(ours & theirs)
        ours_n += len(ours)
    assert ours_n and tp / ours_n >= 0.9


# --- word.v1 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("two words", ["two", "words"]),
        ("  a\u00a0b\u2029c  ", ["a", "b", "c"]),
        ("中文abc日本", ["中", "文", "abc", "日", "本"]),
        ("ひらがなカタカナ", list("ひらがなカタカナ")),
        ("한국 말", ["한", "국", "말"]),
        ("ไทย", ["ไ", "ท", "ย"]),
        ("", []),
    ],
)
def test_word_examples(text, expected):
    assert [text[s:e] for s, e in split_words(text)] == expected


def test_word_detector_through_registry():
    cls = detectors.get("word.v1")
    det = cls(cls.Params.model_validate({}), name="w")
    assert [(s.start, s.end, s.label) for s in det.detect(DetectContext("a bc"))] == [
        (0, 1, "w"),
        (2, 4, "w"),
    ]
    with pytest.raises(Exception):
        cls.Params.model_validate({"min_length": 2})


# --- properties --------------------------------------------------------------------------------

_SPICY = st.sampled_from(
    list("aZ .!?…。！？।؟;:\n\n\t \u00a0\u3000\"'()«»”#|>-*+1234567890")
    + ["Art. ", "e.g. ", "U.S. ", "Mr. ", "\n# ", "\n- ", "1. ", "(a) ", "中", "ภ", "한", "𠀀"]
)
_TEXT = st.lists(st.one_of(_SPICY, st.characters(), st.text(max_size=5)), max_size=60).map("".join)


def _check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    prev_end = 0
    for s, e in spans:
        assert 0 <= prev_end <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        prev_end = e


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_sentence_spans_properties(text):
    spans = split_sentences(text, extra_abbreviations=["Cl."])
    _check_spans(text, spans)
    # Everything outside the sentences is whitespace: no text is lost.
    covered = [False] * len(text)
    for s, e in spans:
        covered[s:e] = [True] * (e - s)
    assert all(c or ch.isspace() for c, ch in zip(covered, text))


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_word_spans_properties(text):
    spans = split_words(text)
    _check_spans(text, spans)
    assert spans == [m.span() for m in WORD_RE.finditer(text)]
    assert not any(c.isspace() for s, e in spans for c in text[s:e])


def test_char_class_table_whitespace_is_str_isspace():
    """The word scan's class table marks exactly the code points that ``str.isspace`` accepts."""
    import numpy as np

    from adachunk.detect.text_units.words import _SPACE, _char_classes

    table = _char_classes()
    assert table.shape == (0x110000,)
    spaces = np.flatnonzero(table == _SPACE).tolist()
    assert spaces == [c for c in range(0x110000) if chr(c).isspace()]
