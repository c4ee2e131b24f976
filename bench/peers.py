"""Adapters that give every chunker the same job: ``text -> list of chunk strings``.

Every tool gets the same cl100k_base vocabulary: Python tools a counter over ``encode_ordinary``
of the ``tiktoken.Encoding`` built by :func:`adachunk.tokens.offline_encoding`, so that a
``<|endoftext|>`` inside a document is text, as it is for adachunk (``Encoding.encode`` raises on
it, which is what chonkie would call if handed the Encoding itself). Two Rust tools cannot call
back into a given tokenizer without a per-call Python hop: darn-it (its only choice is a model
name; ``gpt-4`` selects cl100k_base from the vocabulary compiled into the wheel) and
semantic-text-splitter, which is measured both ways (``from_callback`` with our counter and
``from_tiktoken_model("gpt-4")``, its compiled-in cl100k). Nothing downloads a tokenizer.

A tool is built by ``factory(unit, size)`` outside the timed region (fresh per timed pass, so
memoised token counts never leak from one pass into the next) and then called per document.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Callable

from common import ascii_fold

Chunker = Callable[[str], list[str]]


@dataclass(frozen=True)
class Tool:
    """One peer configuration.

    Attributes:
        name: label in the tables.
        dist: PyPI distribution (for the version).
        factory: ``(unit, size) -> chunker``; ``unit`` is ``"tokens"`` or ``"chars"``.
        ascii_only: the tool rejects non-ASCII text, so it gets an ASCII-folded copy.
        tokens_native: how the tool gets cl100k in token mode (for the notes).
    """

    name: str
    dist: str
    factory: Callable[[str, int], Chunker]
    ascii_only: bool = False
    tokens_native: str = "offline cl100k tiktoken.Encoding (adachunk.tokens.offline_encoding)"

    @property
    def version(self) -> str:
        try:
            return metadata.version(self.dist)
        except metadata.PackageNotFoundError:
            return "not installed"


def encoding(name: str = "cl100k_base"):
    """The shared ``tiktoken.Encoding`` ``name`` (bundled ranks, no network)."""
    from adachunk.tokens import offline_encoding

    return offline_encoding(name)


def token_counter() -> Callable[[str], int]:
    """A fresh counter function (a new object, so per-function memo caches start empty)."""
    enc = encoding()
    return lambda text: len(enc.encode_ordinary(text))


def _adachunk(unit: str, size: int) -> Chunker:
    import adachunk

    if unit == "tokens":
        rp = adachunk.load_profile("default", tokenizer="cl100k_base", max_size=size)
    else:
        rp = adachunk.load_profile("default", granularity="chars", max_size=size, min_size=0)
    return lambda text: [c.text for c in adachunk.chunk_text(text, rp)]


def _darn(unit: str, size: int) -> Chunker:
    from darn_it import Chunker as Darn

    darn = Darn()
    kw = {"granularity": "tokens", "model": "gpt-4"} if unit == "tokens" else {"granularity": "characters"}
    return lambda text: [c.text for c in darn.get_chunks(text=text, chunk_size=size, **kw).chunks]


def _chonkie_tokenizer(name: str = "cl100k_base"):
    """The offline cl100k Encoding behind chonkie's Tokenizer interface, ``encode_ordinary`` in
    place of ``encode``; otherwise what chonkie's own tiktoken adapter does (batch encoding with
    tiktoken's thread pool, counts as lengths of single encodings)."""
    from chonkie.tokenizer import Tokenizer

    enc = encoding(name)

    class Cl100kOrdinary(Tokenizer):
        def __repr__(self) -> str:
            return "Cl100kOrdinary()"

        def encode(self, text):
            return enc.encode_ordinary(text)

        def decode(self, tokens):
            return enc.decode(list(tokens))

        def tokenize(self, text):
            return enc.encode_ordinary(text)

        def count_tokens(self, text):
            return len(enc.encode_ordinary(text))

        def encode_batch(self, texts):
            return enc.encode_ordinary_batch(list(texts))

        def decode_batch(self, token_sequences):
            return enc.decode_batch([list(t) for t in token_sequences])

    return Cl100kOrdinary()


def _chonkie(unit: str, size: int) -> Chunker:
    from chonkie import RecursiveChunker

    # Default RecursiveRules (the "markdown" recipe would be fetched from the Hugging Face hub).
    # Not the tiktoken.Encoding itself: chonkie calls its encode(), which raises on documents
    # that contain "<|endoftext|>" (several package READMEs do); a plain counter is refused too
    # (chonkie needs encode/decode for its last, token-window level).
    chunker = RecursiveChunker(tokenizer=_chonkie_tokenizer() if unit == "tokens" else "character", chunk_size=size)
    return lambda text: [c.text for c in chunker.chunk(text)]


def _semchunk(unit: str, size: int) -> Chunker:
    import semchunk

    chunker = semchunk.chunkerify(token_counter() if unit == "tokens" else len, size)
    return lambda text: chunker(text)


def _text_splitter_callback(unit: str, size: int) -> Chunker:
    from semantic_text_splitter import MarkdownSplitter

    splitter = MarkdownSplitter.from_callback(token_counter(), size) if unit == "tokens" else MarkdownSplitter(size)
    return splitter.chunks


def _text_splitter_native(unit: str, size: int) -> Chunker:
    from semantic_text_splitter import MarkdownSplitter

    splitter = MarkdownSplitter.from_tiktoken_model("gpt-4", size) if unit == "tokens" else MarkdownSplitter(size)
    return splitter.chunks


def _langchain(cls_name: str) -> Callable[[str, int], Chunker]:
    def factory(unit: str, size: int) -> Chunker:
        import langchain_text_splitters as lts

        cls = getattr(lts, cls_name)
        length = token_counter() if unit == "tokens" else len
        return cls(chunk_size=size, chunk_overlap=0, length_function=length).split_text

    return factory


ADACHUNK = Tool("adachunk (DP, default)", "adachunk", _adachunk)
TOOLS: tuple[Tool, ...] = (
    ADACHUNK,
    Tool("darn-it", "darn-it", _darn, ascii_only=True, tokens_native="model='gpt-4' (compiled-in cl100k_base)"),
    Tool("chonkie Recursive", "chonkie", _chonkie,
         tokens_native="chonkie Tokenizer over the offline cl100k Encoding (encode_ordinary)"),
    Tool("semchunk", "semchunk", _semchunk, tokens_native="counter over offline cl100k encode_ordinary"),
    Tool("text-splitter Markdown (callback)", "semantic-text-splitter", _text_splitter_callback,
         tokens_native="counter over offline cl100k encode_ordinary"),
    Tool("text-splitter Markdown (native cl100k)", "semantic-text-splitter", _text_splitter_native,
         tokens_native="from_tiktoken_model('gpt-4') (compiled-in cl100k_base)"),
    Tool("LangChain RecursiveCharacter", "langchain-text-splitters", _langchain("RecursiveCharacterTextSplitter"),
         tokens_native="length_function over offline cl100k encode_ordinary"),
    Tool("LangChain MarkdownText", "langchain-text-splitters", _langchain("MarkdownTextSplitter"),
         tokens_native="length_function over offline cl100k encode_ordinary"),
)


def tool_input(tool: Tool, text: str) -> str:
    """The text a tool is given (ASCII-folded for ASCII-only tools)."""
    return ascii_fold(text) if tool.ascii_only else text
