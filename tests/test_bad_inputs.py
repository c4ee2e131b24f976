"""Hostile inputs: no crash, invariants hold, bounded behaviour."""

from __future__ import annotations

import pytest

from adachunk import chunk_text
from adachunk.tokens import get_counter

from .test_invariants import check_invariants

CASES = {
    "empty": "",
    "whitespace": " \n\t\n   \n",
    "nul": "abc\x00def\x00\n\nmore\x00 text here.\n",
    "crlf": "# Title\r\n\r\nFirst line.\r\nSecond line.\r\n\r\n- a\r\n- b\r\n",
    "emoji": "Emoji 😀🎉👩‍👩‍👧 test. " * 40,
    "cjk": "这是一个测试句子。日本語の文章です。한국어 문장입니다. " * 40,
    "rtl": "هذه جملة عربية. זהו משפט בעברית. " * 40,
    "special_tokens": "Text with <|endoftext|> and <|fim_prefix|> inside. " * 20,
    "lone_surrogate": "bad \ud800 surrogate text. " * 10,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_text(name):
    text = CASES[name]
    for gran, mx in (("tokens", 40), ("chars", 120)):
        chunks = chunk_text(text, "default", granularity=gran, max_size=mx, min_size=0)
        if not text:
            assert chunks == []
            continue
        if name == "lone_surrogate":
            assert "".join(c.text for c in chunks) == text
            continue
        check_invariants(text, chunks, gran, mx, 0)


def test_deep_nested_list():
    text = "".join("  " * i + "- item\n" for i in range(0, 300)) + "- " * 10000 + "deep\n"
    chunks = chunk_text(text, "default", max_size=200, min_size=0)
    check_invariants(text, chunks, "tokens", 200, 0)


def test_large_document_5mb():
    para = "This is a sentence about Article 6(1)(a) of Regulation No. 2016/679. " * 12
    text = "".join(f"## Section {i}\n\n{para}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" for i in range(6000))
    assert len(text) > 5_000_000
    chunks = chunk_text(text, "default", max_size=512)
    enc = get_counter("o200k_base")
    assert "".join(c.text for c in chunks) == text
    assert max(enc.count(c.text) for c in chunks) <= 512


@pytest.mark.slow
def test_large_document_50mb():
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 30
    text = "".join(f"# H{i}\n\n{para}\n\n" for i in range(30000))
    assert len(text) > 50_000_000
    chunks = chunk_text(text, "default", max_size=512)
    assert "".join(c.text for c in chunks) == text
