"""Chunk metadata a legal or finance reader needs around a chunk, declared in the profile.

:func:`enrich_records` is the one entry point: it takes one document's chunk records (in index
order) and adds fields, never changing a boundary, a text or an id:

- ``prev_id`` / ``next_id``: the neighbouring chunks of the document (None at the ends), on
  every record; everything below only when the profile declares it (an ``emit:``,
  ``parents:`` or an ``index.embed_text`` recipe);
- ``structure_path`` / ``structure_covers`` (structures with ``emit: path``): the units
  enclosing the chunk's start (``["Chapter II", "Article 5", "paragraph 2", "point (b)"]``)
  and citations of the articles and paragraphs that start inside it;
- ``defines`` / ``defined_terms`` (``emit: definition``): the terms the chunk defines, and the
  defined terms it uses with the index and id of the chunk defining each;
- ``references`` (``emit: reference``): each cross-reference with its parsed target and the
  chunk holding it, or ``external: true`` for another act;
- ``table_context`` (``emit: table``): on a chunk that starts inside a table, its caption,
  unit line and header row;
- ``parent_id`` / ``parent_start`` / ``parent_end`` (the profile's ``parents:``);
- ``embed_prefix`` (a recipe in ``index.embed_text``): what is embedded before the text.

Everything is read from the spans the DP already had (the document's analysis), so enriching
costs no detection.
"""

from __future__ import annotations

from typing import Any

from ..datatypes import Document
from .parents import parent_records
from .relations import add_neighbours
from .spans import emitted


def _declared(policy: Any) -> tuple[dict[str, list[str]], Any, tuple[str, ...] | None]:
    """What the profile declares beyond the neighbour links: its ``emit:`` kinds, its
    ``parents:`` and its ``index.embed_text`` recipe (None for the legacy string forms)."""
    policy = getattr(policy, "policy", policy)
    parents = (getattr(policy, "data", None) or {}).get("parents")
    recipe = getattr(getattr(policy, "index", None), "embed_text", None)
    return emitted(policy), parents, tuple(recipe) if isinstance(recipe, (list, tuple)) else None


def declares_metadata(policy: Any) -> bool:
    """Whether the profile asks for metadata beyond the neighbour links (``emit:``, ``parents:``
    or an ``index.embed_text`` recipe): those need the whole document's text."""
    kinds, parents, recipe = _declared(policy)
    return bool(kinds or parents or recipe is not None)


# Fields a segment of a document gives alone: a table's context (title lines, header row) lies at
# its table, and a table never spans two segments (they are cut at blank lines, between blocks).
_SEGMENT_KINDS = frozenset({"table"})
_SEGMENT_PARTS = frozenset({"table_header", "table_context", "text"})


def segment_local(policy: Any) -> bool:
    """Whether every field the profile declares can be made from one segment of a long document
    (the streamed large-file mode, :mod:`adachunk.runner.file_records`), as the default's table
    context and ``[table_header, text]`` recipe can; paths, terms, references, parents and a
    heading path need the whole text."""
    kinds, parents, recipe = _declared(policy)
    return not parents and not set(kinds) - _SEGMENT_KINDS and not set(recipe or ()) - _SEGMENT_PARTS


def enrich_records(records: list[dict[str, Any]], doc: Document, policy: Any, ctx: Any = None) -> list[dict[str, Any]]:
    """Add the metadata fields (see module docstring) to one document's records, in place.

    Args:
        records: the document's chunk records, in index order.
        doc: the document they cut.
        policy: the resolved :class:`~adachunk.policy.Policy` (or a resolved profile) that made
            them; None (Chunk objects converted without their profile) adds only the neighbour
            links.
        ctx: a detection context of the document (optional; one is made when needed).

    Returns:
        ``records`` (the same list, for chaining).
    """
    policy = getattr(policy, "policy", policy)
    add_neighbours(records)
    if policy is None or not records or not declares_metadata(policy):
        return records
    from .metadata import add_metadata  # the declared fields' modules, only when declared

    return add_metadata(records, doc, policy, ctx)


def term_map(records: list[dict[str, Any]]) -> dict[str, int]:
    """term → index of the defining chunk, for one document's enriched records."""
    return {t: r["index"] for r in records for t in r.get("defines") or []}


__all__ = ["enrich_records", "parent_records", "segment_local", "term_map"]
