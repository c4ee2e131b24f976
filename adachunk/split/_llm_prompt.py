"""What ``llm_regex.v1`` shows the model: the prompt, and the document's beginning that fits it.

The system prompt says how the answer is used (one Python ``re`` delimiter, applied to the whole
document, every match starting a chunk) and what a good delimiter does; the user message holds
one worked example, then the first ~8,000 o200k tokens of the document in whole lines
(:func:`head_context`).
"""

from __future__ import annotations

import bisect
from typing import Any

from ..tokens import get_counter

CONTEXT_ENCODING = "o200k_base"  # the budget is the model's, whatever the profile's tokenizer
_CONTEXT_SLOT = "[[DOCUMENT]]"

SYSTEM_PROMPT = """\
You decide where long documents are cut into chunks for a retrieval-augmented generation (RAG) \
system. You never rewrite the document. You answer with ONE regular expression; a program then \
cuts the whole document at every match of it.

How your expression is used:
- It is compiled with Python's `re` module and applied to the entire document, of which you see \
only the beginning, so it must describe a pattern that recurs throughout.
- Every match starts a new chunk and the matched text stays at the start of that chunk. A \
zero-width pattern that only looks ahead, such as `(?m)^(?=## )`, cuts without moving anything.
- Put flags inline at the very start, for example `(?m)` so that `^` matches at each line start.

What a good delimiter does:
- It follows the document's own structure: headings, numbered articles, sections, clauses or \
notes. Pick the level that gives chunks of a few hundred to about a thousand words; never cut at \
every line or every sentence.
- It keeps every title or heading together with the text that follows it.
- It never cuts inside a table (`<Table>` ... `</Table>`) or a figure (`<Figure>` ... `</Figure>`).
- It never separates the items of a list from each other or from the sentence introducing them.
- It never separates a footnote from the text it belongs to, and never cuts through a paragraph.
- Without any visible structure, cut between paragraphs: `\\n\\n(?=\\S)`.

Answer format: `<regex>PATTERN</regex>` with the pattern written as in a raw Python string (a \
single backslash in `\\n`, `\\d`, `\\s`), without quotes, slashes or code fences. At most one \
short sentence may follow the tag."""

USER_TEMPLATE = """\
<example>
<document>
# Master Services Agreement

This Agreement is made between Northwind Ltd (the "Supplier") and Contoso SA (the "Client").

## Article 1 - Definitions

In this Agreement:
- "Services" means the services listed in Annex A;
- "Fees" means the amounts set out in Article 3.

## Article 2 - Term

The Agreement starts on 1 March 2024 and runs for three years.[^1]

[^1]: Renewal is governed by Article 9.

## Article 3 - Fees

<Table>
| Service | Monthly fee |
| --- | --- |
| Hosting | EUR 1,200 |
</Table>

Fees are invoiced monthly in arrears.
</document>
<answer><regex>(?m)^(?=## )</regex> One chunk per article, each with its heading, list, \
footnote and table.</answer>
</example>

Choose the delimiter for the following document. Reply with <regex>...</regex>.
<document>
[[DOCUMENT]]
</document>"""


def head_context(text: str, budget: int) -> tuple[str, dict[str, Any]]:
    """The longest run of whole lines from the start whose o200k count stays within ``budget``.

    Lines are counted one by one (cost proportional to the context, not the document). When even
    the first line is too long, it is cut at the last token boundary within the budget.
    """
    counter = get_counter(CONTEXT_ENCODING)
    pos, used, lines = 0, 0, 0
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl + 1
        n = counter.count(text[pos:end])
        if used + n > budget:
            break
        pos, used, lines = end, used + n, lines + 1
    truncated = pos < len(text)
    if pos == 0 and text:
        positions, sizes = counter.boundaries(text[: budget * 16])
        k = int(bisect.bisect_right(sizes.tolist(), budget)) - 1
        pos, used = int(positions[k]), int(sizes[k])
    return text[:pos], {"chars": pos, "tokens": used, "lines": lines, "truncated": truncated}


def build_messages(context: str) -> tuple[tuple[str, str], ...]:
    """System and user messages for one document's beginning."""
    return (("system", SYSTEM_PROMPT), ("user", USER_TEMPLATE.replace(_CONTEXT_SLOT, context)))
