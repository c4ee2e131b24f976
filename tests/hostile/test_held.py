"""The hostile inputs that already held before issue 50, kept in the corpus so they keep holding:
XXE, billion laughs, zip-slip, zip bombs (``ADA304``/``ADA318``), YAML object tags, an encrypted
PDF; and a folder run where a bomb fails only its own document (issue 50, item 4).
"""

from __future__ import annotations

import json

import pytest

from adachunk.errors import InputError, ProfileError
from adachunk.ingest import read_document
from adachunk.profile.resolve import resolve

from ..conftest import FAST_PROFILE
from . import gen
from .bounded import BOUND_S, RSS_MB, cli_in_child, read_in_child, write_file

def test_an_external_entity_is_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    f = write_file(tmp_path, "xxe.docx", gen.xxe(secret))
    try:
        text = read_document(f).text
    except InputError as err:  # refusing the file is as good as not reading the entity
        assert err.code == "ADA304"
        return
    assert "TOP-SECRET-CONTENT" not in text


def test_billion_laughs_and_zip_bombs_answer_in_bounded_time_and_memory(tmp_path):
    laughs = write_file(tmp_path, "laughs.docx", gen.billion_laughs())
    bomb = gen.zip_bomb(tmp_path / "bomb.docx", 600)  # 600 MB of spaces in a 600 kB file
    not_zip = write_file(tmp_path, "notzip.docx", b"PK\x03\x04 this is no zip archive at all")
    o = read_in_child(laughs, bomb, not_zip)
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB
    rows = o.rows()
    laughs_row = rows["laughs.docx"]
    assert laughs_row["code"] == "ADA304" or "lol" * 1000 not in laughs_row["text"]
    assert rows["bomb.docx"]["code"] == "ADA318"
    assert rows["notzip.docx"]["code"] == "ADA304"


def test_zip_slip_members_are_never_written(tmp_path):
    work = tmp_path / "deep" / "work"
    work.mkdir(parents=True)
    f = write_file(work, "slip.docx", gen.zip_slip())
    o = cli_in_child("convert", str(f), "-o", str(work / "out.md"))
    assert o.rc == 0, o.err[-2000:]
    assert "safe text" in (work / "out.md").read_text()
    assert not (tmp_path / "evil.txt").exists() and not list(tmp_path.rglob("evil*"))


def test_a_yaml_object_tag_is_ada201(tmp_path):
    path = tmp_path / "evil.yaml"
    marker = tmp_path / "pwned"
    path.write_text(f"schema_version: 1\nname: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ProfileError) as err:
        resolve(path)
    assert err.value.code == "ADA201" and not marker.exists()


def test_an_encrypted_pdf_is_ada308(tmp_path):
    from ..pdf_factory import build_encrypted

    f = build_encrypted(tmp_path / "enc.pdf")
    with pytest.raises(InputError) as err:
        read_document(f)
    assert err.value.code == "ADA308"


def test_a_folder_run_writes_the_good_documents_beside_each_bomb(tmp_path):
    """Every reader bomb of this folder in one folder run: each failing file fails alone with its
    code (named on its own error line), every file a reader defuses is chunked, the good one too."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "good.md").write_text("# Good document\n\nPlain words of a good document, read and chunked.\n")
    failing = {  # file -> its code
        "ilvl.docx": ("ADA304", gen.numbered("lowerRoman", 10**18, ilvl="x")),
        "glossary.docx": ("ADA304", gen.main_part("w:glossaryDocument")),
        "notzip.docx": ("ADA304", b"PK\x03\x04 this is no zip archive at all"),
        "deep.html": ("ADA321", gen.deep_html(100_000)),
        "odd.html": ("ADA301", gen.utf16_odd()),
    }
    defused = {  # read, with the bomb's value clamped or ignored
        "roman.docx": gen.numbered("lowerRoman", 10**18),
        "span.docx": gen.spans(grid_span=10**8),
        "sym.docx": gen.sym("FFFFFFFF"),
        "rot.html": gen.charset("rot13"),
    }
    for name, (_, data) in failing.items():
        write_file(corpus, name, data)
    for name, data in defused.items():
        write_file(corpus, name, data)
    gen.zip_bomb(corpus / "bomb.docx", 600)
    profile = tmp_path / "fast.yaml"
    profile.write_text(FAST_PROFILE)
    out = tmp_path / "out"
    # (a PDF bomb would stop at its reader's budget, 60 s by default: test_pdf_bombs reads one
    # beside good PDFs with a shorter budget)
    o = cli_in_child("run", str(corpus), "-o", str(out), "--sink", "none", "--profile", str(profile), limit_s=180)
    assert not o.timed_out and o.rc == 2, (o.rc, o.err[-3000:])
    assert "Traceback" not in o.err
    codes = {name: code for name, (code, _) in failing.items()} | {"bomb.docx": "ADA318"}
    for name, code in codes.items():
        assert any(name in line and code in line for line in o.err.splitlines()), (name, o.err[-3000:])
    docs = {json.loads(line)["doc_id"] for line in (out / "chunks.jsonl").read_text().splitlines()}
    assert docs == {"good.md", *defused}


def test_xml_nested_past_the_parser_depth_is_ada304(tmp_path):
    from ..docx_builder import build_docx, p

    body = "<w:sdt><w:sdtContent>" * 5000 + p("deep") + "</w:sdtContent></w:sdt>" * 5000
    with pytest.raises(InputError) as err:
        read_document(write_file(tmp_path, "deep.docx", build_docx(body)))
    assert err.value.code == "ADA304" and "depth" in err.value.message
