"""The declared metadata fields of :func:`adachunk.enrich.enrich_records` (see that package).

Imported only when a profile declares metadata (``emit:``, ``parents:``, an ``embed_text``
recipe), so that chunking with a profile that declares none does not load the cross-reference,
term, path and table readers.
"""

from __future__ import annotations

from typing import Any

from ..datatypes import Document
from .embed import recipe_prefix
from .parents import add_parents
from .spans import ChunkLocator, core_start, emitted, spans_of
from .tables import TableIndex, table_contexts

_COVER_RANK = 5  # articles and paragraphs are listed in structure_covers, points are not


def add_metadata(records: list[dict[str, Any]], doc: Document, policy: Any, ctx: Any = None) -> list[dict[str, Any]]:
    """Add every field ``policy`` declares to one document's records (in place); returns them."""
    kinds = emitted(policy)
    parents = (getattr(policy, "data", None) or {}).get("parents")
    labels = [lb for group in kinds.values() for lb in group]
    spans = spans_of(doc, policy, labels, ctx)
    text = doc.text
    locate = ChunkLocator.of(records)
    index = None
    if "path" in kinds or "reference" in kinds:
        # Imported here: a profile that embeds only table context (the default) never pays for
        # the legal path, term and cross-reference readers at start-up.
        from .paths import PathIndex, build_units

        index = PathIndex(build_units(text, {lb: spans[lb] for lb in kinds.get("path", [])}))
    if "path" in kinds:
        _add_paths(records, index)
    definitions: dict[str, str] = {}
    if "definition" in kinds:
        definitions = _add_terms(records, text, [s for lb in kinds["definition"] for s in spans[lb]], locate)
    if "reference" in kinds:
        _add_references(records, text, index, sorted(s for lb in kinds["reference"] for s in spans[lb]), locate)
    if "table" in kinds:
        tables = TableIndex(table_contexts(text, {lb: spans[lb] for lb in kinds["table"]}))
        for r in records:
            found = tables.context_for(text, core_start(r), int(r["end"]))
            if found:
                r["table_context"] = found
    if parents:
        add_parents(records, doc, policy, parents)
    _add_embed_prefix(records, policy, definitions)
    return records


def _add_paths(records: list[dict[str, Any]], index: Any) -> None:
    from .paths import citation

    chains = index.chains([core_start(r) for r in records])
    for r, chain in zip(records, chains):
        r["structure_path"] = [u.label for u in chain]
        covers = []
        for u in index.between(core_start(r), int(r["end"])):
            if u.rank <= _COVER_RANK:
                chain = index.chain(u.start)
                cite = citation(chain) if any(c.kind in ("article", "clause") for c in chain) else u.label
                if cite and cite not in covers:
                    covers.append(cite)
        r["structure_covers"] = covers


def _add_terms(records, text, spans, locate: ChunkLocator) -> dict[str, str]:
    from .terms import TermMatcher, read_definitions

    defs = read_definitions(text, sorted(spans))
    home = {}
    for d in defs:
        home[d.term] = locate.at(d.start)
    matcher = TermMatcher(defs)
    defined_in: dict[Any, list[str]] = {}  # home record -> its terms, in definition order
    for d in defs:
        defined_in.setdefault(home[d.term], []).append(d.term)
    for i, r in enumerate(records):
        r["defines"] = defined_in.get(i, [])
        r["defined_terms"] = [
            {"term": d.term, "chunk_index": _index(records, home[d.term]), "chunk_id": _id(records, home[d.term])}
            for d in matcher.uses(text, core_start(r), int(r["end"]))]
    return {d.term: " ".join(text[d.start:d.end].split()) for d in defs}


def _add_references(records, text, index: Any, spans, locate: ChunkLocator) -> None:
    from .xrefs import XrefResolver

    resolver = XrefResolver(text, index)
    per_chunk: list[list[dict[str, Any]]] = [[] for _ in records]
    for start, end in spans:
        if resolver.is_label(start, end):
            continue
        home = locate.at(start)
        if home is None:
            continue
        ref, target, unit = resolver.resolve(start, end)
        where = None if unit is None else locate.at(unit.start)
        item = {"text": " ".join(ref.split()), "target": target.text(), "start": start, "end": end,
                "target_start": None if unit is None else unit.start, "chunk_index": _index(records, where), "chunk_id": _id(records, where), "external": target.external,
                "other_act": target.other_act}
        per_chunk[home].append(item)
    for r, refs in zip(records, per_chunk):
        r["references"] = refs


def _add_embed_prefix(records, policy, definitions: dict[str, str]) -> None:
    recipe = getattr(getattr(policy, "index", None), "embed_text", None)
    if not isinstance(recipe, (list, tuple)):
        return
    from ..tokens import get_counter

    count = get_counter(policy.solver.tokenizer).count
    budget = policy.index.definition_tokens
    for r in records:
        r["embed_prefix"] = recipe_prefix(r, list(recipe), definitions, budget, count)


def _index(records, i):
    return None if i is None else records[i]["index"]


def _id(records, i):
    return None if i is None else records[i]["id"]
