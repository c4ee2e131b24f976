"""The embedded string of a chunk from the profile's recipe (``index.embed_text``).

A recipe is a list of parts, each one line (or block) before the chunk text::

    index:
      embed_text: [heading_path, structure_path, definitions, text]
      definition_tokens: 200

gives, for chunk 12 of ``examples/regulation_excerpt.md`` under ``--profile legal --max-size 256``
(exactly; the definitions are those of the terms the chunk uses, in order of first use, whole,
while they fit in 200 tokens)::

    CHAPTER II — Principles > Article 5 — Principles relating to the retention of customer records
    Chapter II > Article 5 > paragraph 2
    Definitions: (6) ‘retention period’ means the period, determined in accordance with Article 5(2), during which a customer record shall be kept; (2) ‘customer record’ means any document, [...] in relation to an identified or identifiable customer; (1) ‘customer’ means any natural or legal person [...] under a power of attorney;

    2. The retention period of a customer record shall be:
    ...

``table_context`` adds the caption, unit line and header row of the table a chunk continues;
``table_header`` its header row alone (the columns' years), without the title lines or the
separator row: on financebench-dev's grown statements the title in the prefix pulls a
statement's every piece up for any question naming the statement (dense @1,000: text 44.9,
table_context 38.8, table_header 44.4; bench/RESULTS.md "A statement's rows together").
The two legacy values stay: ``heading_path+text`` and ``text``.
"""

from __future__ import annotations

from typing import Any, Callable


def recipe_prefix(record: dict[str, Any], parts: list[str], definitions: dict[str, str],
                  budget: int, count: Callable[[str], int]) -> str:
    """The text embedded before the chunk text for one record ("" when no part applies).

    Args:
        record: the chunk record (with the enrich fields).
        parts: the recipe (``text`` marks the end of the prefix; parts after it are ignored).
        definitions: term → definition text of the document.
        budget: most tokens of definitions.
        count: token counter of the profile's tokenizer.
    """
    lines: list[str] = []
    for part in parts:
        if part == "text":
            break
        if part == "heading_path" and record.get("heading_path"):
            lines.append(" > ".join(record["heading_path"]))
        elif part == "structure_path" and record.get("structure_path"):
            lines.append(" > ".join(record["structure_path"]))
        elif part == "definitions":
            text = _definitions(record, definitions, budget, count)
            if text:
                lines.append(text)
        elif part == "table_context" and record.get("table_context"):
            lines.append(record["table_context"])
        elif part == "table_header" and record.get("table_context"):
            header = table_header(record["table_context"])
            if header:
                lines.append(header)
    return "\n".join(lines) + "\n\n" if lines else ""


def _definitions(record: dict[str, Any], definitions: dict[str, str], budget: int, count) -> str:
    """Definitions of the terms the chunk uses but does not define, whole, in order of first use,
    while they fit in ``budget`` tokens."""
    own = {t.lower() for t in record.get("defines") or []}
    picked, used = [], 0
    for item in record.get("defined_terms") or []:
        term = item["term"]
        if term.lower() in own or term not in definitions:
            continue
        text = definitions[term]
        if text in picked:  # one definition may name two terms ('provider' or 'financial service provider')
            continue
        n = count(text)
        if used + n > budget:
            continue
        picked.append(text)
        used += n
    return "Definitions: " + " ".join(picked) if picked else ""


def table_header(context: str) -> str:
    """The header row(s) of a table context (its lines that are table rows, the separator row
    left out)."""
    from ..detect.tables import is_separator_row

    rows = [ln for ln in context.split("\n") if ln.lstrip().startswith("|") and not is_separator_row(ln)]
    return "\n".join(rows)
