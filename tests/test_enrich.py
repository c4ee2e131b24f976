"""Chunk metadata (adachunk.enrich): structure paths, defined terms, cross-references, table
context, neighbours and parents, the embed recipe; and that none of it moves a boundary."""

from __future__ import annotations

import copy
import json

import pytest

from adachunk import chunk_document, chunk_text, load_profile
from adachunk.datafiles import data_dir
from adachunk.enrich import enrich_records, parent_records, term_map
from adachunk.enrich.expand import expand_hits
from adachunk.enrich.terms import TermMatcher, read_definitions
from adachunk.enrich.xrefs import parse
from adachunk.ingest import read_document
from adachunk.sink.records import chunk_record, embed_prefix, embed_text
from adachunk.datatypes import Document

from .conftest import CLAIR, EXAMPLES

PROFILES = ["default", "legal", "finance", "technical", "darn", "paper"]
DOCS = sorted(EXAMPLES.glob("*.md"))


def records_of(profile, doc: Document, **overrides):
    rp = load_profile(profile, **overrides)
    chunking = chunk_document(doc, rp)
    return rp, [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]


@pytest.mark.parametrize("profile", PROFILES)
def test_enrich_adds_fields_and_changes_no_span_text_or_id(profile):
    for path in DOCS:
        doc = read_document(path)
        rp, recs = records_of(profile, doc)
        before = copy.deepcopy(recs)
        enrich_records(recs, doc, rp.policy)
        for old, new in zip(before, recs):
            assert {k: new[k] for k in old} == old  # only new keys
            assert doc.text[new["start"]:new["end"]] == new["text"]
        assert recs[0]["prev_id"] is None and recs[-1]["next_id"] is None  # links on every profile
        assert all(a["next_id"] == b["id"] and b["prev_id"] == a["id"] for a, b in zip(recs, recs[1:]))
        if profile not in ("legal", "finance"):  # the links, the recipe's prefix, a table's context
            assert all(set(r) - set(o) <= {"prev_id", "next_id", "embed_prefix", "table_context"}
                       for r, o in zip(recs, before))
            if profile in ("default", "technical"):  # the default's recipe: [heading_path, table_context, text]
                assert all("embed_prefix" in r for r in recs)


def _strip_metadata_keys(tmp_path):
    """Copies of the shipped legal and finance profiles and their packs without emit / parents /
    index recipe (the profiles as they were before chunk metadata), edited as text (YAML 1.1
    would read the rules' ``on:`` keys as booleans on a round trip)."""
    import re

    out = {}
    for name in ("legal", "finance"):
        pack = (data_dir("rules") / f"{name}.yaml").read_text(encoding="utf-8")
        pack = re.sub(r",\s*emit: \w+", "", pack)
        pack = re.sub(r"(?m)^ +emit: \w+.*\n", "", pack)
        pack = re.sub(r"(?m)^  note_reference:.*\n", "", pack)
        assert not re.search(r"(?m)^[^#]*emit:", pack)
        (tmp_path / f"{name}_pack.yaml").write_text(pack, encoding="utf-8")
        prof = (data_dir("profiles") / f"{name}.yaml").read_text(encoding="utf-8")
        prof = re.sub(r"(?m)^index:\n(?:  .*\n)+", "", prof)
        prof = re.sub(r"(?m)^parents:.*\n", "", prof)
        prof = re.sub(r"(?m)^structures:\n(?:  .*\n)+", "", prof)
        prof = prof.replace(f"include: [{name}]", f"include: [{name}_pack]")
        assert not re.search(r"(?m)^[^#]*(?:emit|parents):", prof)
        (tmp_path / f"{name}.yaml").write_text(prof, encoding="utf-8")
        out[name] = tmp_path / f"{name}.yaml"
    return out


@pytest.mark.parametrize("size", [256, 512])
def test_metadata_declarations_do_not_move_any_boundary(tmp_path, size):
    plain = _strip_metadata_keys(tmp_path)
    for name, path in plain.items():
        assert load_profile(name).fingerprint != load_profile(path).fingerprint
        for doc_path in DOCS:
            doc = read_document(doc_path)
            with_meta = chunk_document(doc, load_profile(name, max_size=size)).chunks
            without = chunk_document(read_document(doc_path), load_profile(path, max_size=size)).chunks
            assert [(c.start, c.end) for c in with_meta] == [(c.start, c.end) for c in without], (name, doc_path)


def test_ids_and_metadata_are_deterministic():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, a = records_of("legal", doc)
    enrich_records(a, doc, rp.policy)
    doc2 = read_document(EXAMPLES / "regulation_excerpt.md")
    _, b = records_of("legal", doc2)
    enrich_records(b, doc2, rp.policy)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_structure_path_labels_read_from_the_text():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    at = {r["start"]: r for r in recs}
    start = doc.text.index("2. The retention period of a customer record shall be:")
    assert at[start]["structure_path"] == ["Chapter II", "Article 5", "paragraph 2"]
    assert "Article 5(2)" in at[start]["structure_covers"]
    # a chunk that starts on a point carries it at the end of its path
    text = "## Article 5 — X\n\n1. Intro:\n\n(a) first point with words;\n\n(b) second point with words.\n"
    doc = Document(id="t", text=text)
    rec = [{"id": "a", "index": 0, "start": 0, "end": text.index("(b)"), "text": text[:text.index("(b)")], "size": 1},
           {"id": "b", "index": 1, "start": text.index("(b)"), "end": len(text), "text": text[text.index("(b)"):], "size": 1}]
    enrich_records(rec, doc, load_profile("legal").policy)
    assert rec[1]["structure_path"] == ["Article 5", "paragraph 1", "point (b)"]


def test_defined_terms_case_plural_and_quote_styles():
    body = "Data subjects and Supervisory authorities may claim a Material Adverse Effects."
    lines = ["(1) ‘data subject’ means a person;", '"Material Adverse Effect" shall mean harm;',
             "*supervisory authority* means a body;", "a material adverse effect", body]
    text = "\n".join(lines)
    spans, pos = [], 0
    for line in lines[:3]:
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    defs = read_definitions(text, spans)
    assert [d.term for d in defs] == ["data subject", "Material Adverse Effect", "supervisory authority"]
    matcher = TermMatcher(defs)
    # lower-case terms also match capitalised and in the plural (authority → authorities)
    assert {d.term for d in matcher.uses(text, len(text) - len(body), len(text))} == {
        "data subject", "supervisory authority", "Material Adverse Effect"}
    # a capitalised defined term matches only as written
    lower = text.index("a material adverse effect")
    assert matcher.uses(text, lower, lower + 25) == []
    # a term's own quoted occurrence in its definition is not a use
    assert matcher.uses(text, 0, len(lines[0])) == []


def test_defined_terms_point_to_the_defining_chunk():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc)
    enrich_records(recs, doc, rp.policy)
    terms = term_map(recs)
    definer = recs[terms["retention period"]]
    assert "‘retention period’ means" in definer["text"]
    users = [r for r in recs if any(d["term"] == "retention period" for d in r["defined_terms"])]
    assert users and all(d["chunk_id"] == definer["id"] for r in users for d in r["defined_terms"]
                         if d["term"] == "retention period")


def test_reference_parsing():
    t = parse("point (b) of paragraph 2")
    assert (t.article, t.paragraph, t.point) == (None, "2", "b")
    t = parse("Article 6(1)(a)")
    assert (t.article, t.paragraph, t.point) == ("6", "1", "a")
    assert parse("Chapter III, Section 2").divisions == [("chapter", "III"), ("section", "2")]
    assert parse("Note 12").divisions == [("note", "12")]


def test_references_resolve_to_the_chunk_holding_the_target():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    refs = {(x["text"], x["start"]): x for r in recs for x in r["references"]}
    target = next(r for r in recs if r["start"] <= doc.text.index("(a) five years from the end") < r["end"])
    # "point (a) of paragraph 2" inside Article 5(3) is Article 5(2)(a)
    hit = next(x for (t, _), x in refs.items() if t.endswith("point (a) of paragraph 2"))
    assert hit["target"] == "Article 5(2)(a)" and hit["chunk_id"] == target["id"]
    # "Article 41 thereof" is another act's; an article not in the excerpt stays unresolved
    assert next(x for (t, _), x in refs.items() if t == "Article 41")["other_act"]
    far = next(x for (t, _), x in refs.items() if t.endswith("Article 22"))
    assert far["external"] and far["chunk_index"] is None and not far["other_act"]
    # headings are not references
    assert not any(t.endswith("Article 5") and doc.text[s - 3:s] == "## " for (t, s) in refs)


def test_table_context_on_continuation_chunks_only_in_embed_text():
    doc = read_document(EXAMPLES / "financial_report_excerpt.md")
    rp, recs = records_of("finance", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    cont = [r for r in recs if r.get("table_context")]
    assert cont, "a table split at 256 tokens has continuation chunks"
    head = "*Table 2 — Consolidated balance sheet as at 31 December 2023*\n(in thousands of EUR)\n" \
           "| | Note | 31 Dec 2023 | 31 Dec 2022 |\n|:--|:--:|--:|--:|"
    balance = [r for r in cont if r["table_context"] == head]
    assert len(balance) >= 2
    mode = rp.policy.index.embed_text
    for r in cont:
        assert r["text"] == doc.text[r["start"]:r["end"]] and not r["text"].startswith("*Table")
        assert r["table_context"] in embed_text(r, mode)
        assert embed_text(r, mode).endswith(r["text"])
    starts = [r for r in recs if r["text"].lstrip().startswith("*Table")]
    assert starts and not any(r.get("table_context") for r in starts)


def test_embed_recipe_exact_string_and_legacy_modes():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    r = next(r for r in recs if r["structure_path"] == ["Chapter II", "Article 5", "paragraph 2"])
    lines = r["embed_prefix"].split("\n")
    assert lines[0] == " > ".join(r["heading_path"])
    assert lines[1] == "Chapter II > Article 5 > paragraph 2"
    assert lines[2].startswith("Definitions: (6) ‘retention period’ means the period, determined in accordance with")
    assert r["embed_prefix"].endswith("\n\n") and embed_text(r, rp.policy.index.embed_text) == r["embed_prefix"] + r["text"]
    # the two legacy values are unchanged
    assert embed_prefix(r, "heading_path+text") == " > ".join(r["heading_path"]) + "\n\n"
    assert embed_prefix(r, "text") == ""


def test_parents_are_runs_of_whole_leaves():
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    parents = parent_records(recs)
    assert 1 < len(parents) < len(recs)
    assert "".join(p["text"] for p in parents) == doc.text
    limit = rp.policy.data["parents"]["max_size"]
    for p in parents:
        leaves = [r for r in recs if r["parent_id"] == p["id"]]
        assert [r["id"] for r in leaves] == p["child_ids"]
        assert leaves[0]["start"] == p["start"] and leaves[-1]["end"] == p["end"]
        assert sum(r["size"] for r in leaves) <= limit


def test_default_profile_records_gain_the_neighbour_links_and_the_embedded_prefix():
    chunks = chunk_text("# T\n\nOne sentence. " * 200, max_size=100)
    doc = Document(id="text", text="# T\n\nOne sentence. " * 200)
    rp = load_profile("default", max_size=100)
    recs = [chunk_record(c, doc, rp.name, rp.fingerprint, "dp.v1") for c in chunks]
    enrich_records(recs, doc, rp.policy)
    # the default's recipe (table context, text): no table here, so no table_context and no prefix
    assert set(recs[0]) == set(chunk_record(chunks[0], doc, "", "", "")) | {"prev_id", "next_id", "embed_prefix"}
    assert any(r["heading_path"] for r in recs) and all(r["embed_prefix"] == "" for r in recs)
    # without a profile (Chunk objects handed to an integration), the neighbour links as well
    recs = [chunk_record(c, doc, rp.name, rp.fingerprint, "dp.v1") for c in chunks]
    enrich_records(recs, doc, None)
    assert recs[1]["prev_id"] == recs[0]["id"] and recs[0]["next_id"] == recs[1]["id"]


def test_expand_neighbours_without_links(tmp_path):
    doc = Document(id="d", text="# T\n\nOne sentence. " * 200)
    rp, recs = records_of("default", doc, max_size=100)
    enrich_records(recs, doc, rp.policy)
    (tmp_path / "chunks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    [wide] = expand_hits([{"id": recs[2]["id"]}], tmp_path, "neighbours")
    assert wide["expanded"]["ids"] == [recs[1]["id"], recs[2]["id"], recs[3]["id"]]


def test_search_expand_parent_and_neighbours(tmp_path):
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    (tmp_path / "chunks.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    hit = recs[5]
    [wide] = expand_hits([{"id": hit["id"], "score": 0.5}], tmp_path, "neighbours")
    assert wide["expanded"]["text"] == doc.text[recs[4]["start"]:recs[6]["end"]]
    [up] = expand_hits([{"id": hit["id"], "score": 0.5}], tmp_path, "parent")
    assert up["expanded"]["parent_id"] == hit["parent_id"]
    assert up["expanded"]["text"] == doc.text[hit["parent_start"]:hit["parent_end"]]


def test_parquet_and_payload_carry_the_metadata(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from adachunk.sink.parquet import ParquetWriter
    from adachunk.sink.vectors import _payload

    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp, recs = records_of("legal", doc, max_size=256)
    enrich_records(recs, doc, rp.policy)
    w = ParquetWriter(tmp_path / "chunks.parquet")
    w.add(recs)
    w.close()
    table = pq.read_table(tmp_path / "chunks.parquet").to_pylist()
    assert [t["parent_id"] for t in table] == [r["parent_id"] for r in recs]
    assert table[3]["structure_path"] == recs[3]["structure_path"]
    assert [x["target"] for x in table[13]["references"]] == [x["target"] for x in recs[13]["references"]]
    assert _payload(recs[1])["prev_id"] == recs[0]["id"]


def test_clair_gdpr_references_mostly_resolve():
    path = CLAIR / "Norma_legal_GDPR.json"
    if not path.is_file():
        pytest.skip("CLAIR corpus not available")
    doc = read_document(path)
    rp, recs = records_of("legal", doc)
    enrich_records(recs, doc, rp.policy)
    own = [x for r in recs for x in r["references"] if not x["other_act"]]
    assert len(own) > 300
    assert sum(x["chunk_index"] is not None for x in own) / len(own) > 0.9
    art6 = next(r for r in recs if "## Article 6" in r["text"] or "### Article 6" in r["text"])
    assert any(x["target"] == "Article 6(1)(a)" and x["chunk_id"] == art6["id"] for x in own)


@pytest.fixture()
def _llama():
    return pytest.importorskip("llama_index.core")


def test_llamaindex_small_to_big(_llama):
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.node_parser import get_leaf_nodes, get_root_nodes
    from llama_index.core.retrievers import AutoMergingRetriever
    from llama_index.core.schema import NodeRelationship
    from llama_index.core.storage.docstore import SimpleDocumentStore

    from adachunk.integrations import to_llamaindex

    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp = load_profile("legal", max_size=256)
    nodes = to_llamaindex(chunk_document(doc, rp).chunks, doc, profile=rp)
    leaves, roots = get_leaf_nodes(nodes), get_root_nodes(nodes)
    assert leaves and roots and len(leaves) + len(roots) == len(nodes)
    for leaf in leaves:
        parent = leaf.relationships[NodeRelationship.PARENT].node_id
        assert any(parent == r.id_ for r in roots)
    docstore = SimpleDocumentStore()
    docstore.add_documents(nodes)
    storage = StorageContext.from_defaults(docstore=docstore)
    index = VectorStoreIndex(leaves, storage_context=storage, embed_model=MockEmbedding(embed_dim=8))
    retriever = AutoMergingRetriever(index.as_retriever(similarity_top_k=len(leaves)), storage, simple_ratio_thresh=0.4)
    got = retriever.retrieve("retention period of customer records")
    # every leaf retrieved: each parent's children all hit, so the retriever returns the parents
    assert {n.node.node_id for n in got} == {r.id_ for r in roots}
    assert "".join(sorted((r.text for r in roots), key=lambda t: doc.text.index(t[:80]))) == doc.text


def test_langchain_metadata_carries_links():
    pytest.importorskip("langchain_core")
    from adachunk.integrations import to_langchain

    doc = read_document(EXAMPLES / "financial_report_excerpt.md")
    rp = load_profile("finance", max_size=256)
    docs = to_langchain(chunk_document(doc, rp).chunks, doc, profile=rp, contextualize=True)
    assert docs[1].metadata["prev_id"] == docs[0].id and docs[0].metadata["next_id"] == docs[1].id
    assert all(d.metadata.get("parent_id") for d in docs)
    cont = [d for d in docs if d.metadata.get("table_context")]
    assert cont and all(d.page_content.split("\n\n")[0] for d in cont)
    assert all(d.metadata["table_context"] in d.page_content for d in cont)


def test_shipped_profiles_declare_parents_and_recipe():
    for name in ("legal", "finance"):
        policy = load_profile(name).policy
        assert policy.data["parents"]["max_size"] > 0
        assert isinstance(policy.index.embed_text, list) and policy.index.embed_text[-1] == "text"


@pytest.mark.parametrize("above,title", [
    ("CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n(in millions)\n\n", ["CONSOLIDATED STATEMENTS OF CASH FLOWS", "(in millions)"]),
    ("A paragraph of prose that runs\nover two lines of the page.\n\n", []),  # the last line of a paragraph
    ("## Liquidity\n\n", []),  # a heading: the heading path says it already
    ("Note 7 — Leases\n\n", ["Note 7 — Leases"]),
    ("", []),
    ("Margins were as follows:\n\n<Table>\n", ["Margins were as follows:"]),  # the PDF reader's marker
])
def test_a_table_without_a_declared_caption_takes_its_title_lines(above, title):
    """The default profile declares no caption structure: the short one-line paragraphs right
    above a table (a statement's name, its unit line) are its title in the table context."""
    from adachunk.enrich.tables import table_contexts

    table = "| Item | 2022 | 2021 |\n|---|---:|---:|\n| Net cash | 21,079 | 14,645 |\n"
    text = "An introduction long enough to be prose, not a title: " + "it goes on " * 12 + ".\n\n" + above + table
    start = text.index("| Item")
    ((a, b, ctx),) = table_contexts(text, {"table": [(start, len(text))]})
    assert (a, b) == (start, len(text))
    assert ctx.split("\n") == title + ["| Item | 2022 | 2021 |", "|---|---:|---:|"]


def test_a_statement_printed_in_two_parts_keeps_its_years():
    """The second part of a statement whose reader started a new table (a line between the
    parts, an empty header row) takes the first part's title and header: its figures keep
    their years."""
    from adachunk.enrich.tables import table_contexts

    first = "| (in thousands) | 2017 | 2016 |\n| --- | --- | --- |\n| Net income | $ 558,929 | $ 186,678 |\n"
    second = "|  |  |  |\n| --- | --- | --- |\n| Deferred taxes | (208,688) | (46,847) |\n"
    other = "|  |  |\n| --- | --- |\n| Two columns | 1 |\n"
    text = ("CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n<Table>\n" + first + "</Table>\n\nAdjustments to reconcile:\n\n"
            "<Table>\n" + second + "</Table>\n\n" + "Prose. " * 40 + "\n\n<Table>\n" + other + "</Table>\n")
    spans = [(text.index(t), text.index(t) + len(t)) for t in (first, second, other)]
    contexts = [c for _, _, c in table_contexts(text, {"table": spans})]
    assert contexts[0].split("\n")[:2] == ["CONSOLIDATED STATEMENTS OF CASH FLOWS", "| (in thousands) | 2017 | 2016 |"]
    assert contexts[1].split("\n") == ["CONSOLIDATED STATEMENTS OF CASH FLOWS", "Adjustments to reconcile:",
                                       "| (in thousands) | 2017 | 2016 |", "| --- | --- | --- |"]
    assert contexts[2].split("\n")[0] == "|  |  |"  # other columns: not a continuation


def test_a_chunk_holding_rows_without_their_header_gets_the_context():
    from adachunk.enrich.tables import TableIndex, table_contexts

    table = "| Item | 2022 | 2021 |\n| --- | --- | --- |\n| Revenue | 10 | 9 |\n| Costs | 4 | 3 |\n"
    text = "Some prose before the table, long enough not to be its title: " + "words " * 30 + "\n\n" + table
    t0 = text.index("| Item")
    index = TableIndex(table_contexts(text, {"table": [(t0, len(text))]}))
    revenue, costs = text.index("| Revenue"), text.index("| Costs")
    assert index.context_for(text, 0, len(text)) is None  # holds the header itself
    assert index.context_for(text, 0, t0 + 5) is None  # no body row
    assert index.context_for(text, revenue, len(text)).startswith("| Item | 2022 | 2021 |")
    assert index.context_for(text, costs, len(text)) == index.context_for(text, revenue, len(text))


def test_table_header_part_embeds_the_header_row_alone():
    """``table_header``: the header row of the table a chunk continues, without its title lines
    and separator row (the title measured against retrieval; bench/RESULTS.md)."""
    from adachunk.enrich.embed import recipe_prefix, table_header

    ctx = "ACME CONSOLIDATED BALANCE SHEETS\n(in millions)\n| ASSETS | 2023 | 2022 |\n| --- | --- | --- |"
    assert table_header(ctx) == "| ASSETS | 2023 | 2022 |"
    rec = {"text": "| Cash | 1 | 2 |", "table_context": ctx}
    assert recipe_prefix(rec, ["table_header", "text"], {}, 0, len) == "| ASSETS | 2023 | 2022 |\n\n"
    assert recipe_prefix(rec, ["table_context", "text"], {}, 0, len) == ctx + "\n\n"
    assert recipe_prefix({"text": "prose"}, ["table_header", "text"], {}, 0, len) == ""
