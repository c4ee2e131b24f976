"""Table cells as printed, and the phrases that head columns rather than sections (all readers).

Statements in 10-K filings set a currency sign at the left edge of its figure's column and
close a negative or a percentage in a narrow column of its own: HTML and Word exhibits write
``$`` in its own ``<td>``/``w:tc``, ``)`` and ``%`` in the next one, and a PDF reader that cuts
columns at text alignment sees the same. Read cell by cell, the same column then holds ``$`` in
one row and the figure in the next, and a chunk holding a row no longer says which column a
figure belongs to. :func:`tidy_rows` puts every sign back into its figure's cell (``$ 1,184``,
``15.6%``, ``(4,378)``) and drops the columns this empties, so that a row's cells line up with
its header's again.

Column headers of statements (``2022 2021 2020``, ``Year Ended December 31,``, ``Fiscal 2023``,
``(In millions, except per share data)``) are often set bold or large, like headings; they head
columns, never a section. :func:`is_period_phrase` recognises them, so the readers never emit
them as Markdown headings, and :func:`stack_header` folds a table's leading header rows
(``Year Ended December 31,`` over ``2022``) into the one header row a pipe table has.
"""

from __future__ import annotations

import re

# a currency sign as statements print it before a figure
CURRENCY = re.compile(r"^(?:[$€£¥₹₩₽₺₪]|(?:US|U\.S\.|C|CA|A|AU|HK|NZ|NT|R|S|MX)\$|Rs\.?)$")
# what ends a figure printed in a column of its own: a percent sign, a closing parenthesis
_CLOSER = re.compile(r"^(?:%|\)|%\)|\)%)$")
# a figure: optional sign or parentheses, digits with separators, an optional percent sign; or
# a nil marker (a dash alone)
_NUM = r"\d(?:[\d,.\u00a0\u2009\u202f]*\d)?"
_FIGURE = re.compile(rf"^(?:\({_NUM}%?\)%?|[-\u2212\u2013]?\s*{_NUM}\s*%?|\(?[-\u2013\u2014]{{1,3}}\)?)$")
_SIGN_AT_END = re.compile(r"^(.*\S)\s+([^\s]+)$")
_SPACED_CLOSER = re.compile(r"(\d)\s+(%\)?|\)%?)$")
_SIGN_PREFIX = re.compile(CURRENCY.pattern.rstrip("$") + r"\s*")

_YEAR = r"(?:19|20)\d\d"
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
# tokens that make a phrase a period: a year, a month, a fiscal or quarter mark, a span of weeks
_STRONG = re.compile(rf"^(?:{_YEAR}(?:[-/\u2013]\d\d(?:\d\d)?)?|'\d\d|{_MONTHS}|fy\s?\d\d(?:\d\d)?|f{_YEAR}|"
                     rf"q[1-4](?:'?\d\d(?:\d\d)?)?|[1-4]q(?:'?\d\d(?:\d\d)?)?|h[12]|[12]h|ytd|qtd|ltm|ttm|"
                     r"fiscal|quarters?|months|weeks|ended|ending|\d{1,2}/\d{1,2}/\d{2,4})$", re.I)
# tokens that may accompany them: counts, days, connectives, "unaudited"
_WEAK = re.compile(r"^(?:\d{1,2}|year|years|month|week|period|periods|three|six|nine|twelve|thirteen|fourteen|"
                   r"fifty-two|fifty-three|twenty-six|thirty-nine|first|second|third|fourth|half|full|the|of|"
                   r"as|at|for|and|to|through|from|end|unaudited|audited|restated|actual|vs|versus)$", re.I)
_UNIT = re.compile(r"^\(?\s*(?:(?:u\.?s\.?\s*)?(?:dollars|amounts|euros?|[$€£¥]|shares|\w+\s+and\s+\w+)\s+)?in\s+"
                   r"(?:millions|thousands|billions)(?:\s+of\s+(?:u\.?s\.?\s*)?(?:dollars|euros|[$€£¥]))?"
                   r"(?:\s*[,;]\s*(?:except|other\s+than)\b[^()]{0,60})?\s*\)?$"
                   r"|^\((?:millions|thousands|billions|unaudited)\)$", re.I)
_TOKEN_TRIM = ",.;:()*"


def is_currency(text: str) -> bool:
    """A currency sign alone (``$``, ``€``, ``US$``, ...)."""
    return bool(CURRENCY.match(text.strip()))


def is_figure(text: str) -> bool:
    """A figure as statements print it: ``1,184``, ``(4,378)``, ``-5.0%``, ``$ 12``, or a dash
    standing for nil."""
    t = _SIGN_PREFIX.sub("", text.strip(), count=1)
    return bool(t) and bool(_FIGURE.match(t))


def is_unit_phrase(text: str) -> bool:
    """``(In millions)``, ``(Dollars in thousands, except per share data)``, ``(Unaudited)``."""
    return bool(_UNIT.match(" ".join(text.split())))


def is_period_phrase(text: str) -> bool:
    """Only years, periods or units: ``2022``, ``2022 2021 2020``, ``Year Ended December 31,``,
    ``December 31, 2022``, ``Fiscal 2023``, ``Q1 2021``, ``Three Months Ended March 31,``,
    ``(In millions, except per share data)``. Such a line heads columns, never a section; a
    heading with a word of its own (``2022 Results``, ``Fiscal Year 2023 Compared with Fiscal
    Year 2022``) is not one."""
    t = " ".join(text.replace("\u2019", "'").split())
    if not t or len(t) > 120:
        return False
    if is_unit_phrase(t):
        return True
    tokens = [w.strip(_TOKEN_TRIM) for w in t.split()]
    tokens = [w for w in tokens if w and w not in ("-", "\u2013", "&")]
    if not tokens:
        return False
    strong = 0
    for w in tokens:
        if _STRONG.match(w):
            strong += 1
        elif not _WEAK.match(w):
            return False
    return strong > 0


def _takes_sign(text: str, stack: bool = False) -> bool:
    """Can a currency sign go before this cell's text: a figure without a sign of its own, or with
    ``stack`` a stack of such figures (``92.7 230.5 (449.9)``: a column a PDF reader read as one
    cell, the sign printed before its first figure)?"""
    t = text.strip()
    if not t or is_currency(t) or is_currency(t.split()[0]):
        return False
    return is_figure(t) or (stack and all(is_figure(w) for w in t.split()))


def _takes_closer(text: str, closer: str) -> bool:
    """Does ``closer`` (``%``, ``)``) end this cell's figure (``(4,378`` + ``)``, ``15.6`` + ``%``)?"""
    t = text.strip()
    return bool(t) and t[-1] != closer[0] and is_figure(t + closer)


def _split_trailing_sign(row: list[str], c: int, n: int) -> None:
    """``Net sales $`` | ``3,226,773`` → ``Net sales`` | ``$ 3,226,773``: a sign glued to the end
    of a label or of the figure before it goes to the figure after it."""
    m = _SIGN_AT_END.match(row[c].strip())
    if not m or not is_currency(m.group(2)):
        return
    nxt = next((j for j in range(c + 1, n) if row[j].strip()), None)
    if nxt is not None and _takes_sign(row[nxt]):
        row[c] = m.group(1)
        row[nxt] = f"{m.group(2)} {row[nxt].strip()}"


def _merge_signs(row: list[str]) -> dict[int, int]:
    """Move signs in ``row`` (in place) into their figures' cells; returns, per cell emptied, the
    cell that took its sign."""
    n = len(row)
    moved: dict[int, int] = {}
    for c in range(n - 1, -1, -1):  # right to left: "415 $" | "415 $" | "—"
        _split_trailing_sign(row, c, n)
    for c in range(n):  # "2 %" as one figure is "2%"
        t = row[c].strip()
        if _SPACED_CLOSER.search(t) and is_figure(spaced := _SPACED_CLOSER.sub(r"\1\2", t)):
            row[c] = spaced
    for c in range(n):  # closers first: "$" | "(5" | "%)" is "$ (5%)"
        t = row[c].strip()
        if _CLOSER.match(t):
            prv = next((j for j in range(c - 1, -1, -1) if row[j].strip()), None)
            if prv is not None and prv > 0 and _takes_closer(row[prv], t):
                row[prv], row[c], moved[c] = row[prv].rstrip() + t, "", prv
    for c in range(n):
        t = row[c].strip()
        if is_currency(t):
            nxt = next((j for j in range(c + 1, n) if row[j].strip()), None)
            # a cell of its own holds the sign of the next cell's first figure, stacked or not (a
            # sign glued to a label above is less sure: "2021 $ 170,684 $" | "2021 192,052 ...")
            if nxt is not None and _takes_sign(row[nxt], stack=True):
                row[nxt], row[c], moved[c] = f"{t} {row[nxt].strip()}", "", nxt
    return moved


def _drop_lost_signs(rows: list[list[str]], head: int) -> None:
    """Empty (in place) a body cell holding only a currency sign that ends its row after a figure,
    where the table prints that sign before its figures (``$ 47.12`` in another cell) and the
    column is unnamed or holds figures elsewhere: the sign's figure went elsewhere (a PDF grid drawn
    by shading boxes, whose one cell took a column's figures), and a sign alone says nothing. A sign
    printed after its figures (``12,00`` | ``€``), a named column of signs (``Currency``: ``$``) and
    a sign before text keep their cells."""
    prefixes = {m.group().strip() for r in rows for c in r
                if (m := _SIGN_PREFIX.match(c.strip())) and len(c.strip()) > m.end() and is_figure(c)}
    for r in rows[head:]:
        for c, cell in enumerate(r):
            if cell.strip() not in prefixes or any(x.strip() for x in r[c + 1:]):
                continue
            if not any(is_figure(x) for x in r[:c] if x.strip()):
                continue
            unnamed = not any(h[c].strip() for h in rows[:head])
            if unnamed or any(is_figure(o[c]) for o in rows[head:] if o is not r):
                r[c] = ""


def _droppable(rows: list[list[str]], c: int, head: int) -> bool:
    """Is column ``c`` empty in every body row, and in each header row empty or a copy of a
    neighbour's header (a header spanning the sign's column, its text repeated there)?"""
    if any(r[c].strip() for r in rows[head:]):
        return False
    for r in rows[:head]:
        t = r[c].strip()
        if t and not ((c > 0 and r[c - 1].strip() == t) or (c + 1 < len(r) and r[c + 1].strip() == t)):
            return False
    return True


def tidy_rows(rows: list[list[str]], head: int = 1) -> tuple[list[list[str]], list[int], dict[int, int]]:
    """Cells as printed: each sign in its figure's cell, the columns this empties dropped.

    A cell holding only a currency sign goes into the next filled cell of its row when that holds
    a figure or a stack of figures (``$`` | ``1,184`` → ``$ 1,184``); a cell holding only ``%`` or
    ``)`` into the previous one (``(4,378`` | ``)`` → ``(4,378)``); a sign glued to the end of a
    label or of a neighbouring figure goes to the figure after it; a sign left alone at the end of a
    row after a figure, in a table that prints that sign before its figures, is dropped
    (:func:`_drop_lost_signs`). A header set over an empty column beside
    its figures moves over them (:func:`_align_header`). A column is then dropped when every body
    row leaves it empty and each header row leaves it empty or repeats a neighbour's header there.

    Args:
        rows: the table's rows, header rows first (padded to one width here).
        head: how many leading rows are header rows.

    Returns:
        The rows, the indices of the columns kept, and for each dropped column whose signs moved,
        the column that took them (so a caller can merge column extents the same way).
    """
    n = max((len(r) for r in rows), default=0)
    out = [list(r) + [""] * (n - len(r)) for r in rows]
    into: dict[int, int] = {}
    for r in out:
        for c, target in _merge_signs(r).items():
            into.setdefault(c, target)
    _drop_lost_signs(out, head)
    _align_header(out, head)
    keep = [c for c in range(n) if not _droppable(out, c, head)]
    if not keep or len(keep) == n:
        return out, list(range(n)), {}
    kept = [[r[c] for c in keep] for r in out]
    return kept, keep, {c: t for c, t in into.items() if c not in keep}


def _align_header(rows: list[list[str]], head: int) -> None:
    """Move a header text standing over a column that no body row fills to the neighbouring
    column that body rows fill and no header names (a lattice cell of the header spanning the
    sign's column and the figure's: ``2022`` over ``|  | $ 4,075 |``), in place."""
    body = rows[head:]
    if not body:
        return
    n = len(rows[0])
    filled = [any(r[c].strip() for r in body) for c in range(n)]
    for r in rows[:head]:
        for c in range(1, n):
            if not r[c].strip() or filled[c]:
                continue
            for d in (c + 1, c - 1):
                if 0 < d < n and filled[d] and not r[d].strip():
                    r[d], r[c] = r[c], ""
                    break


def _header_like(row: list[str]) -> str:
    """Is this a header row of a statement? No figure anywhere (a year or a period is no figure
    here), and either the stub empty or a unit or period phrase with something right of it (or
    alone: ``(In millions)``): ``"header"``; or a label in the stub beside two periods or more
    (``Assets | December 31, 2022 | December 31, 2021``), the last header row: ``"last"``; else
    ``""``."""
    stub = row[0].strip() if row else ""
    rest = [c.strip() for c in row[1:] if c.strip()]
    if any(is_figure(c) and not is_period_phrase(c) for c in rest):
        return ""
    if not stub or is_period_phrase(stub):
        return "header" if rest or stub else ""
    return "last" if sum(1 for c in rest if is_period_phrase(c)) >= 2 else ""


def _fill_spans(heads: list[list[str]]) -> None:
    """Repeat each upper header's text rightwards over the columns the rows below it head, up to
    the next text of its row (a merged lattice cell's text stands in its first column), in place.

    A row's one label that is a period (``Year ended December 31,``) heads every column whose
    header below is a year or date, left of it too: shaded rows draw a grid with no merged cell,
    and the label sits centred over the years, in the middle one's column."""
    for i, row in enumerate(heads[:-1]):
        labels = [c for c in range(1, len(row)) if row[c].strip()]
        if len(labels) == 1 and not is_unit_phrase(row[labels[0]]) and is_period_phrase(row[labels[0]]):
            for c in range(1, len(row)):
                below = " ".join(h[c] for h in heads[i + 1:]).strip()
                if not row[c].strip() and below and is_period_phrase(below):
                    row[c] = row[labels[0]]
        label = ""
        for c in range(1, len(row)):
            if row[c].strip():
                label = row[c]
            elif label and any(h[c].strip() for h in heads[i + 1:]):
                row[c] = label


def stack_header(rows: list[list[str]], most: int = 4, fill: bool = False) -> list[list[str]]:
    """One header row from a statement's leading header rows, each column's texts top to bottom
    (``Year Ended December 31,`` over ``2022`` → ``Year Ended December 31, 2022``).

    Leading empty rows are dropped. Applies only to a table holding figures, and only to leading
    rows that are header-like (see :func:`_header_like`; empty rows between them are dropped); a
    text repeated from the row above (a vertical merge) is said once.

    Args:
        rows: the table's rows.
        most: the most header rows stacked.
        fill: repeat an upper header over the columns it spans (:func:`_fill_spans`), for tables
            whose merged cells are not repeated already (PDF lattices; HTML and Word repeat them).
    """
    rows = rows[next((i for i, r in enumerate(rows) if any(c.strip() for c in r)), len(rows)):]
    lead = k = 0
    while lead < len(rows) and k < most:
        if any(c.strip() for c in rows[lead]):
            kind = _header_like(rows[lead])
            if not kind:
                break
            k = most if kind == "last" else k + 1
        lead += 1
    heads = [list(r) for r in rows[:lead] if any(c.strip() for c in r)]
    body = rows[lead:]
    if len(heads) < 2 or not any(is_figure(c) and not is_period_phrase(c) for r in body for c in r[1:] if c.strip()):
        return rows
    width = max(len(r) for r in heads)
    heads = [r + [""] * (width - len(r)) for r in heads]
    if fill:
        _fill_spans(heads)
    merged = []
    for c in range(width):
        parts: list[str] = []
        for r in heads:
            t = r[c].strip()
            if t and (not parts or parts[-1] != t):
                parts.append(t)
        merged.append(" ".join(parts))
    return [merged] + body


__all__ = ["CURRENCY", "is_currency", "is_figure", "is_period_phrase", "is_unit_phrase", "stack_header",
           "tidy_rows"]
