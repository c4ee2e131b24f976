"""The compiled top-level block reader of ``markdown.block.v1`` (plain Python, Numba-compiled).

:func:`advance` is mistletoe's top-level loop (:func:`adachunk.detect.markdown._fast.tokenize_top`
then ``walk_top``) over the line table of :mod:`adachunk.detect.markdown._line_table`, for the
blocks whose extent and spans the table decides:

* a paragraph opening on a safe line, when the next line that is not safe is blank or the end
  (a paragraph reads through safe lines and stops at a blank one);
* ``"\\n"`` lines (skipped), ATX headings and one-line HTML comments (one line each);
* lists whose every item is one paragraph of safe lines (``_fast_list.read_list``'s rule,
  with safe lines where it asks for plain ones);
* fenced code (``CodeFence.start``/``read``) and GFM tables whose header opens with ``|``
  (``GfmTable.read``), with ``_Walker._table``'s rows and cells.

Anywhere else it stops and returns the line: :mod:`adachunk.detect.markdown._compiled` runs
mistletoe's readers there, at the same position of the same ``FileWrapper``, and calls it again
after the block. Each row is the ``(start, end, label, level)`` the Python walk makes;
``tests/test_md_compiled_parity.py`` compares them with mistletoe's on corpora and generated
Markdown, and every reader here with the mistletoe reader it replaces.

The loop and its helpers stay in this file: Numba's disk cache watches the compiled function's
own file only.
"""

from __future__ import annotations

SPACE = 1  # _scan_tables.SPACE: str.isspace

# the line bits of _line_table (checked equal by the tests)
PLAIN, EMPTY, MBLANK, COMMENT, LBLANK, FORCED, SAFE, PIPE = 1, 2, 4, 8, 16, 32, 64, 128
CSAFE, MSAFE, THEMATIC, OPEN_COMMENT = 256, 512, 1024, 2048
TABLE = 32768

# row labels: _compiled.LABELS
L_PARAGRAPH, L_HEADING, L_HTML, L_LIST, L_ITEM, L_CODE, L_TABLE, L_ROW, L_CELL = range(9)

TAB, NL, SP, LT, DASH, GT, BAR, COLON, BSL = 9, 10, 32, 60, 45, 62, 124, 58, 92


def _space(f, c):
    """``str.isspace`` of the character ``c``."""
    return (f[c] & SPACE) != 0


def _opening(codes, s, e):
    """Where the first character after at most three spaces of the line ``[s, e)`` is."""
    i = s
    while i < s + 3 and i < e and codes[i] == SP:
        i += 1
    return i


def _skip_space(codes, f, s, e):
    """The first position in ``[s, e)`` that is not whitespace (``e``: none)."""
    while s < e and _space(f, codes[s]):
        s += 1
    return s


def _content_start(codes, f, starts, ends, i, bom):
    """``LineMap.content_start(i)`` at the top level: a BOM and leading whitespace skipped."""
    s = starts[i]
    if s == 0 and bom:
        s = 1
    return _skip_space(codes, f, s, ends[i])


def _last_nonblank(bits, first, stop):
    """``LineMap.last_nonblank(first, stop)``."""
    last = stop - 1
    while last > first and (bits[last] & LBLANK):
        last -= 1
    return last if last > first else first


def _same_type(codes, a0, a1, b0, b1):
    """``List.same_marker_type`` of the leaders ``codes[a0:a1]`` and ``codes[b0:b1]``."""
    if a1 - a0 == 1:
        return b1 - b0 == 1 and codes[a0] == codes[b0]
    return b1 - b0 > 1 and codes[a1 - 1] == codes[b1 - 1]


def _read_item(codes, f, starts, ends, bits, levels, markers, i, prepend, hi):
    """``ListItem.read`` after the item's first line ``i``, for an item of one paragraph:
    ``(j, blank lines before j, whether line j is the next item's marker)``; ``j`` -1 where the
    item may hold more, or where this reader leaves a line to mistletoe (tabs, a wrapper, an
    interrupter other than a heading, a quote, a comment or a thematic break right after the
    item's text: after a blank line any line that cannot open an item ends it)."""
    j = i + 1
    blanks = 0
    while j < hi:
        b = bits[j]
        if b & FORCED:
            return -1, 0, False
        s = starts[j]
        e = ends[j]
        k = s
        while k < e and codes[k] == SP:
            k += 1
        if k < e and codes[k] == TAB:
            return -1, 0, False
        if k == e:  # parse_continuation: "\n"
            blanks += 1
            j += 1
            continue
        if not _space(f, codes[k]) and k - s >= prepend:  # a continuation line
            if blanks or k - s - prepend > 3 or not (b & CSAFE):
                return -1, 0, False  # a second block, or a line that may open one
            j += 1
            continue
        if b & SAFE:  # interrupts nothing, no marker: lazy, unless after a blank line
            if blanks:
                return j, blanks, False
            j += 1
            continue
        o = _opening(codes, s, e)
        first = codes[o] if o < e else NL
        if levels[j] > 0 or first == GT or (b & OPEN_COMMENT):
            return j, blanks, False  # Heading, Quote, Html (a comment) interrupt
        if not (first == 45 or first == 43 or first == 42 or 48 <= first <= 57):
            if blanks:
                # after a blank line, a line that is no continuation (ListItem's
                # continuation_pattern: spaces and tabs, then a non-space) and cannot open an
                # item ends the item whether or not it interrupts a paragraph: both of
                # ListItem.read's branches step back alike
                return j, blanks, False
            return -1, 0, False  # _interrupts would ask every interrupter
        if b & TABLE:
            return -1, 0, False  # "- a | b" may interrupt as a table before it is an item
        if b & THEMATIC:
            return j, blanks, False
        if markers[j] > 0:
            return j, blanks, True
        if markers[j] == 0 and blanks:
            return j, blanks, False
        return -1, 0, False
    return j, blanks, False


def _read_list(codes, f, starts, ends, bits, levels, markers, leads, pos, hi, rows, k):
    """``List.read`` at ``pos`` for a list of one-paragraph items, and its rows (those of
    ``_fast._simple_list``): ``(the line read next, rows)``, or ``(-1, k)`` to leave the
    list to the Python readers."""
    if markers[pos] <= 0 or not (bits[pos] & MSAFE):
        return -1, k
    k0 = k
    k += 1  # row k0: the list, written once its last line is known
    lead0 = _opening(codes, starts[pos], ends[pos])
    lead1 = starts[pos] + leads[pos]
    l0 = lead0
    content = starts[pos] + markers[pos]
    i = pos
    while True:
        j, blanks, more = _read_item(codes, f, starts, ends, bits, levels, markers, i,
                                     content - starts[i], hi)
        if j < 0:
            return -1, k0
        end = j
        if more:
            if not (bits[j] & MSAFE):
                return -1, k0  # the next item's first line may open a block
            m0 = _opening(codes, starts[j], ends[j])
            if not _same_type(codes, lead0, lead1, m0, starts[j] + leads[j]):
                more = False  # List.read stops before this item
        elif blanks:
            end = j - 1  # ListItem.read steps back one line
        stop = j if more else end
        # the item (its marker to its last non-blank line) and its paragraph
        ilast = _last_nonblank(bits, i, stop)
        rows[k, 0] = l0
        rows[k, 1] = ends[ilast]
        rows[k, 2] = L_ITEM
        rows[k, 3] = 1
        rows[k + 1, 0] = content
        rows[k + 1, 1] = ends[ilast]
        rows[k + 1, 2] = L_PARAGRAPH
        rows[k + 1, 3] = 0
        k += 2
        if not more:
            last = _last_nonblank(bits, pos, end)
            rows[k0, 0] = lead0
            rows[k0, 1] = ends[last]
            rows[k0, 2] = L_LIST
            rows[k0, 3] = 1
            return end, k
        i = j
        l0 = m0
        content = starts[j] + markers[j]


def _fence_open(codes, s, e):
    """``CodeFence.start`` on the line ``[s, e)``: the length of its run of backticks or tildes
    (0: no fence). `` {0,3}(`{3,}|~{3,})``, and no backtick after a backtick run."""
    o = _opening(codes, s, e)
    if o >= e or (codes[o] != 96 and codes[o] != 126):
        return 0
    c = codes[o]
    r = o
    while r < e and codes[r] == c:
        r += 1
    if r - o < 3:
        return 0
    if c == 96:
        for k in range(r, e):
            if codes[k] == 96:
                return 0
    return r - o


def _fence_closes(codes, f, s, e, c, run):
    """``CodeFence.read``'s closing test: fewer than four spaces, the opening run, and no
    second word (``len(line.lstrip(' ').split(maxsplit=1)) == 1``)."""
    i = s
    while i < e and codes[i] == SP:
        i += 1
    if i - s >= 4 or i + run > e:
        return False
    for k in range(i, i + run):
        if codes[k] != c:
            return False
    k = i + run
    while k < e and not _space(f, codes[k]):
        k += 1
    while k < e and _space(f, codes[k]):
        k += 1
    return k == e


def _read_fence(codes, f, starts, ends, bits, pos, hi, run):
    """The line after a fenced code block opened at ``pos`` (``hi``: it runs to the end), or
    -1 where a wrapper's masked lines could be inside it (mistletoe reads those)."""
    c = codes[_opening(codes, starts[pos], ends[pos])]
    j = pos + 1
    while j < hi:
        if bits[j] & FORCED:
            return -1
        if _fence_closes(codes, f, starts[j], ends[j], c, run):
            return j + 1
        j += 1
    return hi


def _blank_cell(codes, f, a, b):
    """Whether ``codes[a:b]`` is all whitespace (``cell.strip() == ""``)."""
    return _skip_space(codes, f, a, b) >= b


def _stripped(codes, f, s, e):
    """``line.strip()`` of the line ``[s, e)`` as offsets ``(a, b)``."""
    a = _skip_space(codes, f, s, e)
    b = e
    while b > a and _space(f, codes[b - 1]):
        b -= 1
    return a, b


def _is_cut(codes, k, a, escaped):
    """Whether ``codes[k]`` is a pipe that splits cells (``escaped``: not after a backslash,
    as ``_PIPE`` = ``(?<!\\\\)\\|`` splits them; else every pipe, as ``str.split("|")``)."""
    return codes[k] == BAR and not (escaped and k > a and codes[k - 1] == BSL)


def _cells(codes, f, a, b, escaped):
    """``_n_cells`` of ``codes[a:b]`` split on pipes: ``(cells, segments, first blank, last
    blank)`` (GFM ignores a blank segment before the first pipe and after the last one)."""
    count = 0
    first_blank = False
    last_blank = False
    seg = a
    for k in range(a, b + 1):
        if k == b or _is_cut(codes, k, a, escaped):
            blank = _blank_cell(codes, f, seg, k)
            if count == 0:
                first_blank = blank
            last_blank = blank
            count += 1
            seg = k + 1
    cells = count - (1 if first_blank else 0) - (1 if count > 1 and last_blank else 0)
    return cells, count, first_blank, last_blank


def _header_cells(codes, f, s, e):
    """``_n_cells(_PIPE.split(header.strip()))``: cells between unescaped pipes."""
    a, b = _stripped(codes, f, s, e)
    return _cells(codes, f, a, b, True)[0]


def _delimiter_cell(codes, f, x, y):
    """Whether ``codes[x:y]``, stripped, is ``:?-+:?`` (``_DELIMITER_CELL.fullmatch``)."""
    x, y = _stripped(codes, f, x, y)
    if x < y and codes[x] == COLON:
        x += 1
    if y > x and codes[y - 1] == COLON:
        y -= 1
    if x >= y:
        return False
    for q in range(x, y):
        if codes[q] != DASH:
            return False
    return True


def _delimiter_cells(codes, f, s, e):
    """``_is_delimiter_row(line)`` and ``_n_cells(line.strip().split("|"))``: the number of
    cells of a delimiter row, -1 when the line is none."""
    a, b = _stripped(codes, f, s, e)
    cells, count, first_blank, last_blank = _cells(codes, f, a, b, False)
    # the segments between a blank first and a blank last one must each be a delimiter cell
    lo = 1 if first_blank else 0
    hi = count - 1 if last_blank else count
    if hi <= lo:
        return -1
    index = 0
    seg = a
    for k in range(a, b + 1):
        if k == b or _is_cut(codes, k, a, False):
            if lo <= index < hi and not _delimiter_cell(codes, f, seg, k):
                return -1
            index += 1
            seg = k + 1
    return cells


def _table_end(codes, f, starts, ends, bits, levels, pos, hi):
    """The line after a GFM table whose header is line ``pos`` (``GfmTable.read``), or -1:
    no table there, or a line this reader leaves to mistletoe (``_ends_table`` would probe it)."""
    if pos + 1 >= hi:
        return -1
    width = _delimiter_cells(codes, f, starts[pos + 1], ends[pos + 1])
    if width < 0 or width != _header_cells(codes, f, starts[pos], ends[pos]):
        return -1
    j = pos + 2
    while j < hi:
        b = bits[j]
        if b & MBLANK:
            break
        if b & FORCED:
            return -1
        s = starts[j]
        e = ends[j]
        o = _opening(codes, s, e)
        if (o < e and codes[o] == BAR) or (b & SAFE):
            j += 1  # a row: " {0,3}|" ends nothing, nor does a safe line
            continue
        if levels[j] > 0 or (b & OPEN_COMMENT):
            break  # Heading.start, Html.check_interrupts_paragraph (a comment)
        return -1
    return j


def _table_rows(codes, f, starts, ends, bom, pos, end, rows, k):
    """``_Walker._table``'s rows for the table on lines ``[pos, end)``: the table, then each
    row but the delimiter row and its cells (``table_cells``: split on unescaped pipes, each
    stripped, empty ones skipped)."""
    last = end - 1
    rows[k, 0] = _content_start(codes, f, starts, ends, pos, bom)
    rows[k, 1] = ends[last]
    rows[k, 2] = L_TABLE
    rows[k, 3] = 0
    k += 1
    for row in range(pos, end):
        if row == pos + 1:
            continue
        start = _content_start(codes, f, starts, ends, row, bom)
        e = ends[row]
        rows[k, 0] = start
        rows[k, 1] = e
        rows[k, 2] = L_ROW
        rows[k, 3] = 0
        k += 1
        seg = start
        for q in range(start, e + 1):
            if q == e or _is_cut(codes, q, 0, True):  # table_cells' _PIPE, which looks behind
                a = _skip_space(codes, f, seg, q)
                if a < q:
                    b = q
                    while _space(f, codes[b - 1]):
                        b -= 1
                    rows[k, 0] = a
                    rows[k, 1] = b
                    rows[k, 2] = L_CELL
                    rows[k, 3] = 0
                    k += 1
                seg = q + 1
    return k


def advance(codes, f, starts, ends, bits, levels, pipes, markers, leads, bom, pos, hi, rows, k):
    """mistletoe's top-level loop over lines ``[pos, hi)`` while it reads blocks this module
    knows (module docstring).

    Writes a ``(start, end, label, level)`` row per block into ``rows`` from row ``k`` on, and
    returns ``(the line where the loop defers to mistletoe's readers, or hi; rows written)``.
    """
    while pos < hi:
        b = bits[pos]
        if b & SAFE:  # a paragraph to the next line that is not safe, when that one is blank
            nxt = pos + 1
            while nxt < hi and (bits[nxt] & SAFE):
                nxt += 1
            if nxt < hi and not (bits[nxt] & MBLANK):
                return pos, k
            rows[k, 0] = _content_start(codes, f, starts, ends, pos, bom)
            rows[k, 1] = ends[nxt - 1]  # its lines are not blank
            rows[k, 2] = L_PARAGRAPH
            rows[k, 3] = 0
            k += 1
            pos = nxt
            continue
        if b & EMPTY:
            pos += 1
            continue
        if levels[pos] > 0 or ((b & COMMENT) and not (b & FORCED)):
            # one line each; the lines up to the next block are blank
            rows[k, 0] = _content_start(codes, f, starts, ends, pos, bom)
            rows[k, 1] = ends[pos]
            rows[k, 2] = L_HEADING if levels[pos] > 0 else L_HTML
            rows[k, 3] = levels[pos]
            k += 1
            pos += 1
            continue
        if (b & FORCED) or (pos == 0 and bom):
            return pos, k
        s = starts[pos]
        e = ends[pos]
        o = _opening(codes, s, e)
        c = codes[o] if o < e else NL
        if c == 96 or c == 126:
            run = _fence_open(codes, s, e)
            got = _read_fence(codes, f, starts, ends, bits, pos, hi, run) if run else -1
            if got < 0:
                return pos, k
            rows[k, 0] = _content_start(codes, f, starts, ends, pos, bom)
            rows[k, 1] = ends[_last_nonblank(bits, pos, got)]
            rows[k, 2] = L_CODE
            rows[k, 3] = 0
            k += 1
        elif c == BAR:
            got = _table_end(codes, f, starts, ends, bits, levels, pos, hi)
            if got < 0:
                return pos, k
            need = 1
            for row in range(pos, got):
                need += 2 + pipes[row]
            if k + need > rows.shape[0]:
                return pos, k
            k = _table_rows(codes, f, starts, ends, bom, pos, got, rows, k)
        else:
            got, k = _read_list(codes, f, starts, ends, bits, levels, markers, leads, pos, hi,
                                rows, k)
            if got < 0:
                return pos, k
        pos = got
    return pos, k


HELPERS = (_space, _opening, _skip_space, _content_start, _last_nonblank, _same_type,
           _read_item, _read_list, _fence_open, _fence_closes, _read_fence, _blank_cell,
           _stripped, _is_cut, _cells, _header_cells, _delimiter_cell, _delimiter_cells,
           _table_end, _table_rows)
