"""``precomputed.v1``: entity→pronoun pairs supplied with the document.

Sources, in order: ``doc.entity_pron_pairs`` (the paper's parsed JSON carries them), then a side
file next to the source, ``<source>.pairs.json`` (``report.md.pairs.json``) or
``<stem>.pairs.json`` (``report.pairs.json``). A side file holds either the list of pairs or an
object with an ``entity_pron_pairs`` list.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import notice
from ...components.registry import coref
from ...datatypes import Document
from .base import CorefBackend, PairSet, validate_pairs


NAME = "precomputed.v1"


def side_files(doc: Document) -> list[Path]:
    """Candidate side files for ``doc`` (none for in-memory text)."""
    if not doc.source:
        return []
    src = Path(doc.source)
    out = [src.with_name(src.name + ".pairs.json")]
    if src.suffix:
        out.append(src.with_name(src.stem + ".pairs.json"))
    return out


def find_side_file(doc: Document) -> Path | None:
    """The first existing side file of ``doc``, or None."""
    return next((p for p in side_files(doc) if p.is_file()), None)


def has_pairs(doc: Document) -> bool:
    """Whether the document carries precomputed pairs (possibly an empty list)."""
    return doc.entity_pron_pairs is not None or find_side_file(doc) is not None


def _read_side_file(path: Path) -> tuple[list | None, str | None]:
    """The raw pair list of a side file, or None with the reason it is unusable."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"cannot read {path.name}: {exc}"
    if isinstance(obj, dict):
        obj = obj.get("entity_pron_pairs")
    if not isinstance(obj, list):
        return None, f"{path.name} holds no list of entity→pronoun pairs"
    return obj, None


@coref.register(NAME)
class PrecomputedBackend(CorefBackend):
    """Pairs that came with the document (no model runs)."""

    name = NAME

    def pairs(self, doc: Document) -> PairSet:
        """Validated pairs from the document or its side file (see module docstring)."""
        raw, origin = doc.entity_pron_pairs, "the document"
        if raw is None:
            path = find_side_file(doc)
            if path is None:
                return PairSet(reason="the document carries no precomputed entity→pronoun pairs", backend=NAME)
            raw, problem = _read_side_file(path)
            if raw is None:
                return PairSet(reason=problem, backend=NAME)
            origin = path.name
        if not isinstance(raw, (list, tuple)):
            return PairSet(reason=f"entity_pron_pairs of {origin} is not a list", backend=NAME)
        pairs, dropped = validate_pairs(raw, len(doc.text))
        reason = None
        if dropped:
            reason = f"{dropped} of {len(raw)} precomputed pairs dropped (offsets outside the text or malformed)"
            notice("ADA402", reason, doc.source or doc.id)
        if not pairs:
            reason = "no entity→pronoun pairs" + (f" ({reason})" if reason else "")
        return PairSet(pairs=pairs, dropped=dropped, reason=reason, backend=NAME)
