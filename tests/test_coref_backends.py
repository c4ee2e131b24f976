"""Coreference backends for RC: heuristic.v1 (spaCy rules), maverick.v1 (fail-fast loading,
windowing, paper pair extraction without its bugs) and the shared windowing helpers."""

from __future__ import annotations

import importlib.util
import socket
import sys
import textwrap

import pytest

from adachunk.errors import ProfileError
from adachunk.models.coref import _spacy, get_backend
from adachunk.models.coref import maverick as mv
from adachunk.models.coref.base import PairSet
from adachunk.models.coref.heuristic import HeuristicBackend, HeuristicParams
from adachunk.components.registry import coref
from adachunk.datatypes import Document

CURIE = (
    "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891, where she studied physics at the "
    "Sorbonne. There she met Pierre Curie, and he soon became her husband. Together they discovered polonium "
    "and radium.\n\nThe Nobel committee honored the couple in 1903. It awarded them the physics prize jointly "
    "with Henri Becquerel. After Pierre died in 1906, Marie took over his teaching post. She later won a second "
    "Nobel Prize, which made her the first person to win it twice.\n"
)
LEGAL = (
    "The Controller shall keep a record of processing activities. It shall make the record available to the "
    "supervisory authority on request. Member States shall ensure that their supervisory authorities have the "
    "powers they need. It is necessary that the US and one of the parties agree on the measures that apply. "
    "The processor shall notify the controller without undue delay after becoming aware of a personal data "
    "breach. Where it engages another processor, it shall inform the controller.\n"
)
FRENCH = (
    "Le responsable du traitement tient un registre des activités de traitement. Il le met à la disposition "
    "de l'autorité de contrôle sur demande. Les États membres veillent à ce que leurs autorités disposent des "
    "pouvoirs dont elles ont besoin pour exercer leurs missions dans le cadre de la loi.\n"
)

needs_spacy = pytest.mark.skipif(not HeuristicBackend.available(), reason="spaCy English model not installed")


def links(text: str, ps: PairSet) -> list[tuple[int, str, str]]:
    """(pronoun start, pronoun text, entity text) per pair; inclusive ends."""
    return [(p[0], text[p[0]:p[1] + 1], text[e[0]:e[1] + 1]) for e, p in ps.pairs]


def link_at(text: str, ps: PairSet, needle: str, occurrence: int = 0) -> str | None:
    """Entity text linked to the ``occurrence``-th pronoun whose context starts with ``needle``."""
    pos = -1
    for _ in range(occurrence + 1):
        pos = text.index(needle, pos + 1)
    return next((ent for start, _, ent in links(text, ps) if start == pos), None)


# ---------------------------------------------------------------- heuristic.v1


@pytest.fixture(scope="module")
def heuristic():
    return HeuristicBackend()


@needs_spacy
def test_heuristic_curie_links(heuristic):
    ps = heuristic.pairs(Document(id="curie", text=CURIE))
    assert ps.backend == "heuristic.v1" and ps.reason is None
    assert link_at(CURIE, ps, "She moved") == "Marie Curie"
    assert link_at(CURIE, ps, "he soon") == "Pierre Curie"
    assert link_at(CURIE, ps, "her husband") == "Marie Curie"
    assert link_at(CURIE, ps, "It awarded") == "The Nobel committee"
    assert link_at(CURIE, ps, "his teaching") == "Pierre"  # gender learnt from "he" → Pierre Curie
    assert link_at(CURIE, ps, "She later") == "Marie"  # subject of the previous sentence
    assert link_at(CURIE, ps, "it twice") == "a second Nobel Prize"


@needs_spacy
def test_heuristic_legal_links_and_exclusions(heuristic):
    ps = heuristic.pairs(Document(id="legal", text=LEGAL))
    assert link_at(LEGAL, ps, "It shall make") == "The Controller"
    assert link_at(LEGAL, ps, "their supervisory") == "Member States"
    assert link_at(LEGAL, ps, "it engages") == "The processor"
    assert link_at(LEGAL, ps, "it shall inform") == "The processor"
    pronouns = {p for _, p, _ in links(LEGAL, ps)}
    assert pronouns <= {"It", "it", "its", "their", "they", "them"}
    assert link_at(LEGAL, ps, "It is necessary") is None  # pleonastic
    for start, word, _ in links(LEGAL, ps):  # inclusive end: the span is exactly the word
        assert LEGAL[start:start + len(word)] == word and not LEGAL[start + len(word)].isalpha()


@needs_spacy
def test_heuristic_never_us_one_or_relatives(heuristic):
    text = ("The US said that it would act. One of the parties, which the US named, said that we could go. "
            "The parties who signed it said one should wait. They agreed with us.\n")
    ps = heuristic.pairs(Document(id="us", text=text))
    words = {w for _, w, _ in links(text, ps)}
    assert words & {"US", "us", "one", "One", "that", "which", "who", "we"} == set()
    assert all(ent != "US" or w != "US" for _, w, ent in links(text, ps))


@needs_spacy
def test_heuristic_emphatic_quoted_and_markup(heuristic):
    text = ("<!-- PageHeader: The Data Protection Board -->\n\nThe model itself stores no text. The word "
            '"it" is short. Providers document their models.\n')
    ps = heuristic.pairs(Document(id="m", text=text))
    assert link_at(text, ps, "itself") == "The model"  # emphatic: the phrase it stands next to
    assert link_at(text, ps, 'it"') is None  # a quoted word is mentioned, not used
    assert link_at(text, ps, "their") == "Providers"
    assert all("PageHeader" not in ent for _, _, ent in links(text, ps))
    paged = ("The Commission adopted the plan.\n\n<!-- PageFooter: Page 3 of 9 -->\n<!-- PageBreak -->\n\n"
             "<!-- PageHeader: Annual report. Draft. -->\n\nIt will publish the results.\n")
    # the markup lines are not sentences: the antecedent stays one sentence back
    assert link_at(paged, heuristic.pairs(Document(id="p", text=paged)), "It will") == "The Commission"


@needs_spacy
def test_heuristic_french_is_unsupported(heuristic):
    by_guess = heuristic.pairs(Document(id="fr", text=FRENCH))
    by_meta = heuristic.pairs(Document(id="fr", text=LEGAL, meta={"language": "fr"}))
    for ps in (by_guess, by_meta):
        assert ps.pairs == () and ps.reason.startswith("unsupported language")


@needs_spacy
def test_heuristic_deterministic_and_windowed():
    doc = Document(id="legal", text="\n\n".join([LEGAL.strip()] * 6) + "\n")
    one = HeuristicBackend().pairs(doc)
    again = HeuristicBackend().pairs(doc)
    small = HeuristicBackend(HeuristicParams(window_chars=1000)).pairs(doc)
    assert one == again
    assert small.pairs == one.pairs  # paragraph-aligned windows with left context change nothing
    single = HeuristicBackend().pairs(Document(id="one", text=LEGAL))
    assert len(one.pairs) == 6 * len(single.pairs)


def test_registered_and_built_from_profile_spec():
    doc = Document(id="x", text="plain")
    assert isinstance(get_backend({"type": "heuristic.v1", "sentences": 2}, doc), HeuristicBackend)
    assert isinstance(get_backend({"type": "maverick.v1", "device": "cpu"}, doc), mv.MaverickBackend)
    assert {"heuristic.v1", "maverick.v1"} <= set(coref.names())
    with pytest.raises(ProfileError) as err:
        get_backend({"type": "heuristic.v1", "sentencez": 2}, doc)
    assert err.value.code == "ADA203"


# ---------------------------------------------------------------- shared windowing helpers


def test_group_windows_paper_cases():
    assert _spacy.group_windows([2, 2, 2], 10, 1) == [(0, 3)]
    assert _spacy.group_windows([2, 2, 2, 2], 4, 1) == [(0, 2), (1, 3), (2, 4)]
    assert _spacy.group_windows([5], 3, 1) == [(0, 1)]  # an oversized block is its own window
    assert _spacy.group_windows([1, 1, 1, 1, 1], 2, 2) == [(0, 2), (1, 3), (2, 4), (3, 5)]  # always advances


def test_blocks_tile_and_respect_size():
    text = "Title\n\nFirst para. Second sentence here.\n\n\n" + "word " * 60 + "\nlast line"
    blocks = _spacy.paragraph_blocks(text)
    assert blocks[0] == (0, 7) and blocks[-1][1] == len(text)
    sized = _spacy.sized_blocks(text, len, 40)
    assert "".join(text[a:b] for a, b in sized) == text
    assert all(b - a <= 40 for a, b in sized)
    windows = _spacy.char_windows(text, 60)
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
    assert all(s <= own <= e for s, e, own in windows)
    assert [own for _, _, own in windows[1:]] == [e for _, e, _ in windows[:-1]]


def test_guess_language():
    assert _spacy.guess_language(LEGAL) == "en"
    assert _spacy.guess_language(FRENCH) == "fr"
    assert _spacy.guess_language("12 34 56") is None


# ---------------------------------------------------------------- maverick.v1: pure pair extraction


def test_merge_clusters_paper_case():
    assert mv.merge_clusters([[(0, 1), (2, 3)], [(2, 3), (4, 5)]]) == [[(0, 1), (2, 3), (4, 5)]]
    assert mv.merge_clusters([[(9, 9), (0, 1)], [(4, 5)], [(4, 5), (12, 13)], [(0, 1), (12, 13)]]) == [
        [(0, 1), (4, 5), (9, 9), (12, 13)]]
    assert mv.merge_clusters([[(4, 5)], [(0, 1)]]) == [[(0, 1)], [(4, 5)]]


def test_filter_clusters_paper_cases():
    assert mv.filter_clusters([[(0, 2), (4, 6)]], "aaa aaa bbb 999") == []
    assert mv.filter_clusters([[(8, 10), (12, 14)]], "aaa aaa bbb 999") == [[(8, 10)]]
    assert mv.filter_clusters([[(0, 2), (4, 6)]], "999 888") == []
    assert mv.filter_clusters([[(0, 5), (7, 13)]], "the EU\nthe  EU") == []  # whitespace ignored


def test_pronoun_span_rules():
    text = "The US said it. One of them, that I know, went to Chapter I. (i) IT rules. Their obligations."
    at = lambda word, k=0: (lambda s: (s, s + len(word) - 1))(  # noqa: E731
        [i for i in range(len(text)) if text.startswith(word, i)][k])
    assert mv.pronoun_span(text, at("it")) == at("it")
    assert mv.pronoun_span(text, at("them")) == at("them")
    assert mv.pronoun_span(text, at("I")) == at("I")  # "that I know"
    for word, k in (("US", 0), ("One", 0), ("that", 0), ("I", 1), ("i", 0), ("IT", 0)):
        assert mv.pronoun_span(text, at(word, k)) is None, word
    assert mv.pronoun_span(text, at("Their obligations")) is None  # contains a pronoun: an entity
    assert mv.pronoun_span(text, (12, 15)) == (12, 13)  # " it." → the word only


def test_extract_pairs_nearest_cataphora_nested():
    text = "Before it was signed, the Act was debated. The Act and its annex apply. It binds them."
    pos = lambda w, k=0: [i for i in range(len(text)) if text.startswith(w, i)][k]  # noqa: E731
    span = lambda w, k=0: (pos(w, k), pos(w, k) + len(w) - 1)  # noqa: E731
    act1, act2 = span("the Act"), span("The Act")
    cluster = [span("it"), act1, act2, span("its"), span("It"), span("Act", 1)]  # "Act" nested in act2
    pairs = mv.extract_pairs([cluster], text)
    assert pairs == [(act1, span("it")), (act2, span("its")), (act2, span("It"))]
    assert mv.extract_pairs([[span("it"), span("its")]], text) == []  # no entity: nothing to pair
    assert mv.extract_pairs([[act1, span("them")], [act2, span("them")]], text) == [(act2, span("them"))]


def test_clusters_to_pairs_drops_repetition_and_digits():
    text = "Article 5 applies. Article 5 binds it. 2024 saw it."
    pos = lambda w, k=0: [i for i in range(len(text)) if text.startswith(w, i)][k]  # noqa: E731
    span = lambda w, k=0: (pos(w, k), pos(w, k) + len(w) - 1)  # noqa: E731
    repeated = [span("Article 5"), span("Article 5", 1)]
    digits = [span("2024"), span("it", 1)]
    assert mv.clusters_to_pairs([repeated, digits], text) == []
    linked = [span("Article 5"), span("it", 0)]
    assert mv.clusters_to_pairs([repeated, linked], text) == [(span("Article 5", 1), span("it", 0))]


# ---------------------------------------------------------------- maverick.v1: fail fast, fake model


class _NoNetwork:
    def __init__(self, *a, **k):
        raise AssertionError("network access attempted")


@pytest.fixture
def no_network(monkeypatch):
    monkeypatch.setattr(socket, "socket", _NoNetwork)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv(mv.ENV_PATH, raising=False)
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", constants.HF_HUB_OFFLINE)
    mv._load_model.cache_clear()
    yield
    mv._load_model.cache_clear()


FAKE_MAVERICK = '''
class _Tok:  # one token per word
    def __call__(self, words, is_split_into_words=False, add_special_tokens=True):
        return {"input_ids": list(words) + (["[CLS]", "[SEP]"] if add_special_tokens else [])}

class Maverick:
    built, calls = [], []
    def __init__(self, hf_name_or_path, device):
        Maverick.built.append((hf_name_or_path, device))
        self.tokenizer = _Tok()
    def predict(self, sentences):
        words = [w for s in sentences for w in s]
        Maverick.calls.append(len(words))
        groups = {}
        for i, w in enumerate(words):
            if w in ("Curie", "She", "she", "her"):
                start = i - 1 if w == "Curie" else i
                groups.setdefault("curie", []).append((start, i))
            if w in ("Commission", "it", "its"):
                start = i - 1 if w == "Commission" else i
                groups.setdefault("commission", []).append((start, i))
        return {"clusters_token_offsets": [tuple(v) for _, v in sorted(groups.items()) if len(v) > 1]}
'''


@pytest.fixture
def fake_maverick(tmp_path, monkeypatch, no_network):
    pkg = tmp_path / "fakepkgs" / "maverick"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(FAKE_MAVERICK), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "fakepkgs"))
    monkeypatch.delitem(sys.modules, "maverick", raising=False)
    importlib.invalidate_caches()
    yield pkg
    sys.modules.pop("maverick", None)


def test_maverick_absent_package_fails_fast(monkeypatch, no_network):
    real = importlib.util.find_spec
    monkeypatch.setattr(mv.importlib.util, "find_spec",
                        lambda name, *a: None if name == "maverick" else real(name, *a))
    backend = mv.MaverickBackend(mv.MaverickParams(model_path="/nonexistent", device="cpu"))
    with pytest.raises(ProfileError) as err:
        backend.pairs(Document(id="x", text=LEGAL))
    assert err.value.code == "ADA214" and "maverick-coref" in err.value.render()
    assert not mv.MaverickBackend.available()


def test_maverick_absent_weights_fails_fast(fake_maverick, tmp_path):
    import maverick

    missing = tmp_path / "no-weights"
    with pytest.raises(ProfileError) as err:
        mv.MaverickBackend(mv.MaverickParams(model_path=str(missing), device="cpu")).load()
    assert err.value.code == "ADA214" and str(missing / "weights.ckpt") in err.value.render()
    assert "huggingface-cli download sapienzanlp/maverick-mes-ontonotes" in err.value.render()
    with pytest.raises(ProfileError) as err:
        mv.MaverickBackend(mv.MaverickParams(device="cpu")).load()
    assert mv.ENV_PATH in err.value.render()
    (tmp_path / "weights.ckpt").write_bytes(b"")
    with pytest.raises(ProfileError) as err:
        mv.MaverickBackend(mv.MaverickParams(model_path=str(tmp_path), encoder="no-such-org/no-such-encoder",
                                             device="cpu")).load()
    assert err.value.code == "ADA214" and "no-such-org/no-such-encoder" in err.value.render()
    assert maverick.Maverick.built == []  # nothing was loaded before the checks failed


@needs_spacy
def test_maverick_windows_and_pairs_with_fake_model(fake_maverick, tmp_path):
    import maverick

    (tmp_path / "weights.ckpt").write_bytes(b"")
    paragraphs = ["Marie Curie was born in Warsaw.", "She moved to Paris.",
                  "The US welcomed the Commission, and it praised its staff.", "Later she won a prize and her fame grew."]
    text = "\n\n".join(paragraphs) + "\n"
    params = dict(model_path=str(tmp_path), encoder=str(tmp_path), device="cpu")
    whole = mv.MaverickBackend(mv.MaverickParams(**params)).pairs(Document(id="d", text=text))
    got = [(text[e[0]:e[1] + 1], text[p[0]:p[1] + 1]) for e, p in whole.pairs]
    assert got == [("Marie Curie", "She"), ("the Commission", "it"), ("the Commission", "its"),
                   ("Marie Curie", "she"), ("Marie Curie", "her")]
    assert maverick.Maverick.calls == [34]  # one window: 7 + 5 + 12 + 10 spaCy words
    # 32-token windows (27 after Maverick's 5 added tokens): paragraphs [1-3] (24 words) and
    # [2-4] (27). The last paragraph never shares a window with "Marie Curie"; its cluster
    # merges with the first window's through the "She" span of the blocks both windows hold.
    assert mv.token_windows(text, lambda s: len(s.split()), 24, 2) == [
        (0, text.index("Later")), (text.index("She"), len(text))]
    windowed = mv.MaverickBackend(mv.MaverickParams(**params, max_window_tokens=32, overlap_blocks=2))
    assert windowed.pairs(Document(id="d", text=text)).pairs == whole.pairs
    assert maverick.Maverick.calls == [34, 24, 27]
    assert maverick.Maverick.built == [(str(tmp_path / "weights.ckpt"), "cpu")]  # loaded once
    assert mv.MaverickBackend(mv.MaverickParams(**params)).pairs(
        Document(id="fr", text=FRENCH)).reason.startswith("unsupported language")
