"""Hostile HTML pages (issue 50, item 3): deep nesting is refused before parsing (``ADA321``),
a deep subtree below the cap is flattened without its scripts, styles, navigation and hidden
text, a ``<meta charset>`` that names no web text encoding is ignored, and a UTF-16 file cut in a
code unit is ``ADA301`` (replaced with ``--errors replace``).

Before: 100,000 nested ``<div>`` took 44 s and ``<ol><li>`` over 120 s; rot13, base64, zlib
charsets and the odd UTF-16 byte were tracebacks; utf-7 was honoured.
"""

from __future__ import annotations

import pytest

from adachunk.errors import InputError
from adachunk.ingest import read_document
from adachunk.ingest.html._depth import MAX_NESTING, nesting_depth
from adachunk.ingest.html import declared_encoding

from . import gen
from .bounded import BOUND_S, RSS_MB, cli_in_child, read_in_child, write_file

def test_deep_nesting_is_refused_before_parsing(tmp_path):
    files = [write_file(tmp_path, "div.html", gen.deep_html(100_000)),
             write_file(tmp_path, "ol.html", gen.deep_html(100_000, "<ol><li>", "</li></ol>")),
             write_file(tmp_path, "table.html", gen.deep_html(30_000, "<table><tr><td>", "</td></tr></table>")),
             write_file(tmp_path, "selfclosed.html", gen.deep_html(100_000, "<div/>", "")),
             write_file(tmp_path, "b.html", gen.deep_html(100_000, "<b>", ""))]
    o = read_in_child(*files)
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB
    for name, row in o.rows().items():
        assert row["code"] == "ADA321", (name, row["message"])
        assert row["seconds"] < 5, name


def test_nesting_at_the_cap_is_read(tmp_path):
    o = read_in_child(write_file(tmp_path, "ok.html", gen.deep_html(MAX_NESTING - 5, "<ol><li>", "</li></ol>")))
    row = o.rows()["ok.html"]
    assert row["code"] is None and "deep text" in row["text"]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB


def test_the_depth_scan_counts_what_a_parser_nests_and_only_that():
    assert nesting_depth("<p>a<p>b<p>c" * 1000) == 0  # p, li, td close themselves
    assert nesting_depth("<li>" * 5000 + "<br>" * 5000) == 0
    assert nesting_depth("<div>" * 10 + "</span>" * 50 + "<div>" * 10) == 20  # stray end tags lower nothing
    assert nesting_depth("<svg>" + "<path/>" * 5000 + "</svg>") == 1
    assert nesting_depth("<div/>" * 7) == 7  # HTML has no self-closing div
    assert nesting_depth("<!--" + "<div>" * 50) == 0
    assert nesting_depth("<script>" + "<div>" * 50 + "</script><div>") == 1


def test_unclosed_comments_and_tags_scan_in_linear_time():
    import time

    for text in ("<!--" * 200_000, "<a" * 200_000, "<script>" * 100_000):
        t = time.monotonic()
        nesting_depth(text, 10)
        assert time.monotonic() - t < BOUND_S


def test_a_deep_subtree_below_the_cap_drops_scripts_styles_nav_and_hidden_text(tmp_path):
    text = read_document(write_file(tmp_path, "deep.html", gen.deep_with_chrome(300))).text
    assert "visible words" in text
    for secret in ("secret_script", "secret_style", "secret_nav", "secret_hidden", "secret_none"):
        assert secret not in text, secret


@pytest.mark.parametrize("label", ["rot13", "base64", "zlib", "hex", "bz2", "uu", "utf-7", "unicode_escape",
                                   "idna", "punycode", "no-such-codec"])
def test_a_charset_that_is_no_web_text_encoding_is_ignored(tmp_path, label):
    assert declared_encoding(gen.charset(label)) is None
    doc = read_document(write_file(tmp_path, "c.html", gen.charset(label)))
    assert "hello plain words" in doc.text


@pytest.mark.parametrize("label,codec", [("windows-1251", "cp1251"), ("shift_jis", "shift_jis"),
                                         ("latin1", "cp1252"), ("utf-16", "utf-8"), ("gb18030", "gb18030")])
def test_web_text_encodings_are_honoured(label, codec):
    assert declared_encoding(gen.charset(label)) == codec


def test_a_utf16_file_cut_in_a_code_unit(tmp_path):
    f = write_file(tmp_path, "odd.html", gen.utf16_odd())
    with pytest.raises(InputError) as err:
        read_document(f)
    assert err.value.code == "ADA301" and "utf-16" in err.value.message
    assert "hello words" in read_document(f, errors="replace").text


def test_convert_answers_bad_charsets_and_utf16_with_codes_not_tracebacks(tmp_path):
    rot = write_file(tmp_path, "rot.html", gen.charset("rot13"))
    odd = write_file(tmp_path, "odd.html", gen.utf16_odd())
    deep = write_file(tmp_path, "deep.html", gen.deep_html(100_000))
    o = cli_in_child("convert", str(rot), str(odd), str(deep), "-o", str(tmp_path / "out"))
    assert o.rc == 2 and "Traceback" not in o.err, o.err[-2000:]
    assert "ADA301" in o.err and "ADA321" in o.err and (tmp_path / "out" / "rot.md").exists()
    o = cli_in_child("convert", str(odd), "--errors", "replace", "-o", str(tmp_path / "odd.md"))
    assert o.rc == 0 and "hello words" in (tmp_path / "odd.md").read_text(), o.err[-2000:]
