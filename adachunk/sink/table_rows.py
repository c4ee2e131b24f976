"""A chunk's tables written as plain rows for the embedder (``index.table_rows: plain``).

The chunk's ``text`` keeps its pipe tables: a reader (a person, an LLM) gets the columns. The
*embedded* string may write each row as its cells joined by spaces instead, without the
separator row and the ``<Table>``/``</Table>`` wrapper lines::

    <Table>                                       Total current assets 16,525 15,134
    | Total current assets | 16,525 | 15,134 |    ->
    | --- | --- | --- |                           (the separator and wrapper lines dropped)
    </Table>

Why: a sentence embedder reads pipes and dashes as words. On financebench-dev's 10-K filings,
MiniLM ranked Nike's balance sheet 28th for "total current assets at the end of FY2019" as our
605-token pipe table and 2nd as a splitter's plain text of the same page; embedding the rows
plain moved the run's dense evidence recall @1,000 tokens from 46.2 to 54.6 with the same chunks
where a vector reads a chunk's first model window (a store that truncates), but not with this
package's index, which pools a long chunk over its pieces (−0.85 on the mean of four), so it is
opt-in (bench/RESULTS.md, "Tables embedded as plain rows"). Empty cells are dropped; an escaped pipe
(``\\|``) inside a cell stays a pipe. Lines that are not table rows are left as they are.
"""

from __future__ import annotations

import re

from ..detect.tables import is_separator_row

_WRAPPER = re.compile(r"[ \t]*</?(?:Table)>[ \t]*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def plain_rows(text: str) -> str:
    """``text`` with every pipe-table row written as its non-empty cells joined by one space,
    the separator rows and ``<Table>`` wrapper lines dropped (the text itself when it has none).

    A table row is a line that starts and ends with an unescaped ``|`` (after spaces); anything
    else is kept verbatim, so prose holding a ``|`` is safe. A row whose cells are all empty is
    dropped, and so is a separator row (only dashes and colons between the pipes).
    """
    if "|" not in text and "<Table>" not in text and "</Table>" not in text:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        bare = line.strip()
        if _WRAPPER.fullmatch(line) or (bare.startswith("|") and is_separator_row(line)):
            continue
        if len(bare) >= 2 and bare[0] == "|" and bare[-1] == "|" and bare[-2:] != "\\|":
            cells = (c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(bare[1:-1]))
            line = " ".join(c for c in cells if c)
            if not line:  # a row of empty cells says nothing
                continue
        out.append(line)
    return "\n".join(out)
