"""``maverick.v1``: the paper's coreference model (Maverick, ``sapienzanlp/maverick-mes-ontonotes``).

Needs the ``maverick-coref`` package (install it in its own environment: it pins
``protobuf==3.20``, ``nltk==3.8.1`` ...) and the model files on local disk: the checkpoint
``weights.ckpt`` (``metrics.coref.model_path`` or ``$ADACHUNK_MAVERICK_PATH``) and its encoder
``microsoft/deberta-v3-large`` in the Hugging Face cache. Nothing is ever downloaded:
``HF_HUB_OFFLINE=1`` is set before maverick is imported, so a missing file fails at once with
``ADA214`` saying what was looked for and how to get it, instead of retrying the hub.

Pipeline (paper §1.5, without its known bugs):

1. **Windows.** The text is cut into paragraph blocks (over-long ones split at line breaks,
   sentence ends, spaces: never cropped, so offsets stay exact); blocks are grouped into
   windows of at most ``max_window_tokens`` encoder tokens (counted on the spaCy words exactly
   as Maverick encodes them, plus its 5 added tokens), consecutive windows sharing
   ``overlap_blocks`` blocks. Each window is tokenised and sentence-split by spaCy on the
   original text (no lower-casing) and given to Maverick as pre-tokenised sentences, so
   maverick itself never loads spaCy or NLTK data.
2. **Merge.** Clusters of all windows that share an identical mention span are merged.
3. **Filter.** Drop clusters whose mentions are all the same text once whitespace is removed;
   drop all-digit mentions; drop clusters left empty.
4. **Pairs.** In each cluster, mentions nested inside a longer mention of the cluster are
   removed. A *pronoun mention* is a mention that is exactly one personal pronoun (first,
   second or third person). Not pronouns: "one"/"oneself", relative and demonstrative
   "that/which/who", all-capital words ("US" the country, "IT"), a lower-case "i" or a
   Roman-numeral "I". (The paper tagged a lower-cased text, so "US" and "Id." became
   pronouns, and any mention *containing* a pronoun, like "their obligations", counted as one.)
   Each pronoun is paired with the nearest entity mention of its cluster starting before it,
   else (cataphora) with the cluster's first entity; a pronoun keeps the pair of the last
   cluster that holds it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from pydantic import Field

from ...errors import ProfileError
from ...components.registry import coref
from ...datatypes import Document
from . import _spacy
from .base import CorefBackend, CorefParams, Pair, PairSet, Span, validate_pairs

NAME = "maverick.v1"
HF_REPO = "sapienzanlp/maverick-mes-ontonotes"
ENV_PATH = "ADACHUNK_MAVERICK_PATH"
UNSUPPORTED = "unsupported language"

PERSONAL_PRONOUNS = frozenset({
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
    "you", "your", "yours", "yourself", "yourselves",
    "he", "him", "his", "himself", "she", "her", "hers", "herself",
    "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
})
_RESERVED = 5  # tokens Maverick adds to a window: [CLS], [SEP] and its three speaker tokens
_EDGE = re.compile(r"^[\W_]*(.*?)[\W_]*$", re.S)
_WS = re.compile(r"\s+")
_NUMBERED = re.compile(r"\b(chapter|title|part|annex|section|article|book|volume|phase|tier|level|type|"
                       r"schedule|appendix|stage|class|category|war)\s+$", re.I)


class MaverickParams(CorefParams):
    """Parameters of ``maverick.v1``."""

    model_path: str | None = Field(
        default=None,
        description=f"local directory holding weights.ckpt of {HF_REPO} (or the .ckpt file itself); "
                    f"default ${ENV_PATH}")
    encoder: str = Field(default="microsoft/deberta-v3-large",
                         description="encoder the checkpoint was trained on: a local directory or a model "
                                     "already in the Hugging Face cache")
    device: str = Field(default="auto",
                        description="'auto' (cuda when available, else cpu), 'cpu', 'cuda', 'cuda:1'")
    max_window_tokens: int = Field(default=2000, ge=32, le=8000,
                                   description="encoder tokens per window (paper 2000)")
    overlap_blocks: int = Field(default=2, ge=0, le=20,
                                description="blocks shared by consecutive windows (paper 2)")
    spacy_model: str = Field(default=_spacy.DEFAULT_MODEL,
                             description="spaCy pipeline used for words and sentences")


# ---------------------------------------------------------------- pure cluster → pair logic


def merge_clusters(clusters: Iterable[Iterable[Span]]) -> list[list[Span]]:
    """Merge clusters that share an identical mention span (transitively).

    Returns clusters of distinct spans sorted by position, ordered by their first span.
    """
    parent: dict[Span, Span] = {}

    def find(x: Span) -> Span:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cluster in clusters:
        spans = [tuple(s) for s in cluster]
        for s in spans:
            parent.setdefault(s, s)
        for s in spans[1:]:
            a, b = find(spans[0]), find(s)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[Span, list[Span]] = {}
    for s in parent:
        groups.setdefault(find(s), []).append(s)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def filter_clusters(clusters: Iterable[Sequence[Span]], text: str) -> list[list[Span]]:
    """Drop pure-repetition clusters and all-digit mentions (paper §1.5 C), then empty clusters."""
    out = []
    for cluster in clusters:
        texts = {_WS.sub("", text[s:e + 1]) for s, e in cluster}
        if len(texts) <= 1:
            continue
        kept = [(s, e) for s, e in cluster if not _WS.sub("", text[s:e + 1]).isdigit()]
        if kept:
            out.append(kept)
    return out


def remove_nested(cluster: Sequence[Span]) -> list[Span]:
    """Spans not strictly inside a longer span of the same cluster."""
    spans = sorted(set(cluster))
    return [a for a in spans if not any(b != a and b[0] <= a[0] and a[1] <= b[1] for b in spans)]


def pronoun_span(text: str, span: Span) -> Span | None:
    """The pronoun's span when the mention is exactly one personal pronoun, else None."""
    s, e = span
    m = _EDGE.match(text[s:e + 1])
    word = m.group(1)
    if word.lower() not in PERSONAL_PRONOUNS:
        return None
    if word.lower() == "i":
        # only the capital "I" used as a subject, not "(i)", "I. Introduction" nor "Chapter I"
        after, before = text[e + 1:e + 3], text[max(0, s - 24):s]
        if word != "I" or after[:1] in (".", ")") or before.endswith("(") or not after.strip() \
                or _NUMBERED.search(before):
            return None
    elif len(word) > 1 and word.isupper():
        return None  # "US", "IT", "ITS": acronyms (or headings in capitals)
    start = s + m.start(1)
    return (start, start + len(word) - 1)


def extract_pairs(clusters: Iterable[Sequence[Span]], text: str) -> list[Pair]:
    """Entity→pronoun pairs (inclusive ends) from filtered clusters, sorted by pronoun."""
    by_pronoun: dict[Span, Span] = {}
    for cluster in clusters:
        pronouns, entities = [], []
        for span in remove_nested(cluster):
            p = pronoun_span(text, span)
            (pronouns if p is not None else entities).append(p if p is not None else span)
        if not entities:
            continue
        for p in pronouns:
            before = [e for e in entities if e[0] < p[0]]
            by_pronoun[p] = max(before) if before else entities[0]
    return [(by_pronoun[p], p) for p in sorted(by_pronoun)]


def clusters_to_pairs(clusters: Iterable[Iterable[Span]], text: str) -> list[Pair]:
    """Merge, filter and extract: the whole paper post-processing on character-span clusters."""
    return extract_pairs(filter_clusters(merge_clusters(clusters), text), text)


# ---------------------------------------------------------------- model loading (fail fast)


def _unavailable(message: str, hint: str) -> ProfileError:
    return ProfileError(code="ADA214", message=f"coreference model not available: {message}",
                        key_path="metrics.coref", hint=hint)


def _force_offline() -> None:
    """Make the Hugging Face stack fail instead of retrying the hub (even if already imported)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        constants.HF_HUB_OFFLINE = True


def locate_checkpoint(params: MaverickParams) -> Path:
    """The local ``weights.ckpt``, or ``ADA214`` naming the path looked for and how to get it."""
    get = (f"On a machine with network: `huggingface-cli download {HF_REPO} weights.ckpt --local-dir DIR`, "
           f"copy DIR here and set metrics.coref.model_path (or ${ENV_PATH}) to it")
    raw = params.model_path or os.environ.get(ENV_PATH)
    if not raw:
        raise _unavailable(f"no local path to the {HF_REPO} weights is configured "
                           f"(metrics.coref.model_path and ${ENV_PATH} are both unset)", get)
    path = Path(raw).expanduser()
    ckpt = path if path.is_file() else path / "weights.ckpt"
    if not ckpt.is_file():
        raise _unavailable(f"{ckpt} not found", get)
    return ckpt


def check_encoder(name: str) -> None:
    """``ADA214`` unless the encoder is a local directory or already in the Hugging Face cache."""
    if Path(name).expanduser().is_dir():
        return
    hint = (f"On a machine with network run `huggingface-cli download {name}` and copy the Hugging Face "
            f"cache (HF_HOME) here, or set metrics.coref.encoder to a local directory holding it")
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        raise _unavailable("huggingface_hub is not installed (maverick-coref needs transformers)",
                           hint) from None
    try:
        cached = try_to_load_from_cache(name, "config.json")
    except ValueError:  # not a valid repo id either (a path that does not exist)
        cached = None
    if not isinstance(cached, str):
        raise _unavailable(f"encoder '{name}' is neither a local directory nor in the Hugging Face cache", hint)


def _check_package() -> None:
    if importlib.util.find_spec("maverick") is None:
        raise _unavailable(
            "the maverick-coref package is not installed",
            "Install it with `pip install maverick-coref` (best in its own environment: it pins "
            "protobuf==3.20, nltk==3.8.1), or use metrics.coref.type heuristic.v1 / precomputed.v1")


@lru_cache(maxsize=2)
def _load_model(ckpt: str, encoder: str, device: str):
    """Load Maverick once per process (checks first: never downloads, never waits on the hub)."""
    _force_offline()
    if device == "auto":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    from maverick import Maverick

    try:
        return Maverick(hf_name_or_path=ckpt, device=device)
    except (OSError, ValueError, RuntimeError) as exc:  # a missing encoder file surfaces as OSError
        raise _unavailable(f"loading {ckpt} failed: {exc}",
                           f"the encoder '{encoder}' must be in the local Hugging Face cache") from exc


# ---------------------------------------------------------------- windows → clusters


def _window_clusters(model, nlp, text: str, start: int, end: int) -> list[list[Span]]:
    """Maverick clusters of ``text[start:end]`` as document character spans (inclusive ends)."""
    sentences, offsets = [], []
    for sent in nlp(text[start:end]).sents:
        words = [t for t in sent if not t.is_space]
        if words:
            sentences.append([t.text for t in words])
            offsets.extend((start + t.idx, start + t.idx + len(t.text) - 1) for t in words)
    if not sentences:
        return []
    result = model.predict(sentences)
    return [[(offsets[a][0], offsets[b][1]) for a, b in cluster]
            for cluster in result["clusters_token_offsets"] if cluster]


def token_windows(text: str, count, max_tokens: int, overlap: int) -> list[tuple[int, int]]:
    """Character windows of whole blocks, each at most ``max_tokens`` by ``count``."""
    blocks = _spacy.sized_blocks(text, count, max_tokens)
    sizes = [count(text[a:b]) for a, b in blocks]
    return [(blocks[i][0], blocks[j - 1][1]) for i, j in _spacy.group_windows(sizes, max_tokens, overlap)]


@coref.register(NAME)
class MaverickBackend(CorefBackend):
    """Maverick coreference over block-aligned windows, paper pair extraction without its bugs."""

    name = NAME
    Params = MaverickParams

    @classmethod
    def available(cls) -> bool:
        """The package is installed and ``$ADACHUNK_MAVERICK_PATH`` points at a checkpoint."""
        try:
            _check_package()
            locate_checkpoint(MaverickParams())
        except ProfileError:
            return False
        return True

    def load(self):
        """The loaded model; ``ADA214`` at once when the package, weights or encoder are absent."""
        _check_package()
        ckpt = locate_checkpoint(self.params)
        check_encoder(self.params.encoder)
        return _load_model(str(ckpt), self.params.encoder, self.params.device)

    def pairs(self, doc: Document) -> PairSet:
        """Entity→pronoun pairs of ``doc`` (inclusive ends), or none with the reason."""
        lang = doc.meta.get("language")
        guessed = _spacy.guess_language(doc.text)
        if (lang is not None and str(lang).lower()[:2] != "en") or guessed not in (None, "en"):
            return PairSet(reason=f"{UNSUPPORTED}: maverick.v1 uses an English OntoNotes model", backend=NAME)
        model = self.load()
        nlp = _spacy.load_nlp(self.params.spacy_model, exclude=("tagger", "parser", "attribute_ruler",
                                                                "lemmatizer", "ner"), enable=("senter",))
        tok = model.tokenizer

        def count(s: str) -> int:
            # exactly as Maverick will see the block: spaCy words, encoded as pre-split words
            words = [t.text for t in nlp.tokenizer(s) if not t.is_space]
            if not words:
                return 0
            return len(tok(words, is_split_into_words=True, add_special_tokens=False)["input_ids"])

        budget = self.params.max_window_tokens - _RESERVED
        clusters = []
        for start, end in token_windows(doc.text, count, budget, self.params.overlap_blocks):
            clusters.extend(_window_clusters(model, nlp, doc.text, start, end))
        pairs, dropped = validate_pairs(clusters_to_pairs(clusters, doc.text), len(doc.text))
        return PairSet(pairs=pairs, dropped=dropped, reason=None if pairs else "no entity→pronoun pairs",
                       backend=NAME)
