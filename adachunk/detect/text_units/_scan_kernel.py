"""The loop of :mod:`._scan` and its helpers (plain Python, Numba-compiled).

Every helper mirrors one regular expression or one step of the reference in
:mod:`adachunk.detect.text_units` / :mod:`adachunk.detect._re_fast`; the reasoning that makes
a backtracking pattern a single forward look is written next to it. Offsets are int64 indices
into ``codes`` (code points); ``f`` is the property table of
:mod:`adachunk.detect.text_units._scan_tables` (its bit values are repeated here as literals so that
this module imports nothing but numpy).

The loop and all its helpers stay in this one file on purpose: Numba's disk cache
(``cache=True``) is invalidated by edits to the file of the compiled function only, so a helper
in another module could be edited without the cached machine code noticing.
"""

from __future__ import annotations

import numpy as np

# bits of _scan_tables (checked equal by the parity tests)
SPACE, WORDC, DEC, UPPER, LOWER, DIGIT, SINGLE, RXSPACE = 1, 2, 4, 8, 16, 32, 64, 128
CLOSER, OPENER, TERM, MARK = 256, 512, 1024, 2048
TITLE, STARTER = 1, 2
NEVER_END, NUMBERED, SOMETIMES = 1, 2, 4
NL, CR, HASH, BAR, LT, GT, LPAR, RPAR, LBRK = 10, 13, 35, 124, 60, 62, 40, 41, 91
NO_ASCII = 0x110000  # what a character lowercases to when the result is not ASCII


def _is(codes, f, n, i, bit):
    """Whether position ``i`` exists and its character has property ``bit``."""
    return i < n and (f[codes[i]] & bit) != 0


def _nl_space(codes, f, n, i):
    """``[^\\S\\n]`` at ``i``: whitespace other than a line feed."""
    return i < n and codes[i] != NL and (f[codes[i]] & SPACE) != 0


def _is_alpha(c):
    return (65 <= c <= 90) or (97 <= c <= 122)


def _line_kind(codes, f, n, p):
    """After ``[^\\S\\n]{0,3}`` at ``p``: 2 a line-block (heading, table row, fence, HTML),
    1 a quote or list item, 0 neither (``_NEWLINE`` / ``_FIRST_LINE_BLOCK``).

    Backtracking to fewer spaces leaves a space in front, which no alternative accepts, so
    skipping up to three spaces greedily decides it.
    """
    q = p
    while q < p + 3 and _nl_space(codes, f, n, q):
        q += 1
    if q >= n:
        return 0
    c = codes[q]
    if c == HASH or c == BAR:
        return 2
    if (c == 96 or c == 126) and q + 2 < n and codes[q + 1] == c and codes[q + 2] == c:
        return 2  # ``` or ~~~
    if c == LT and q + 1 < n:
        d = codes[q + 1]
        if _is_alpha(d) or d == 47 or d == 33 or d == 63:  # [A-Za-z/!?]
            return 2
    if c == GT:
        return 1
    if (c == 45 or c == 42 or c == 43) and _nl_space(codes, f, n, q + 1):  # [-*+] then a space
        return 1
    d = q
    while _is(codes, f, n, d, DEC):
        d += 1
    if 1 <= d - q <= 9 and d < n and (codes[d] == 46 or codes[d] == RPAR) and _nl_space(codes, f, n, d + 1):
        return 1
    return 0


def _newline_kind(codes, f, n, i):
    """``_NEWLINE`` at the line feed ``i``: 3 blank line follows, 2/1 as :func:`_line_kind`, 0 no match."""
    k = i + 1
    while _nl_space(codes, f, n, k):
        k += 1
    if k < n and codes[k] == NL:
        return 3
    return _line_kind(codes, f, n, i + 1)


def _term_end(codes, f, n, r):
    """End of a ``_TERM`` match whose terminator run ends at ``r`` (-1: no match).

    After the run come closers and ``[ \\xa0\\u202f][»›]`` pairs (the two never start alike),
    then ``(?=\\s|\\Z)``; backtracking tries the item boundaries from the last one back, and
    inside the run the next character is a terminator, never whitespace.
    """
    best = -1
    k = r
    while True:
        if k >= n or (f[codes[k]] & SPACE) != 0:
            best = k
        if k < n and (f[codes[k]] & CLOSER) != 0:
            k += 1
        elif k + 1 < n and (codes[k] == 32 or codes[k] == 0xA0 or codes[k] == 0x202F) and (
                codes[k + 1] == 0xBB or codes[k + 1] == 0x203A):
            k += 2
        else:
            return best


def _enum_start(codes, f, n, q):
    """``_ENUM_START`` at ``q``: ``\\(?(?:[a-z]{1,2}|[ivxlc]{1,6}|\\d{1,3})\\)\\s``.

    ``)`` is in none of the classes, so each alternative can only end at the end of its
    maximal run; without the optional ``(`` the text would start with one, which fails.
    """
    if q < n and codes[q] == LPAR:
        q += 1
    a = q
    while a < n and 97 <= codes[a] <= 122:
        a += 1
    r = q
    while r < n and (codes[r] == 105 or codes[r] == 118 or codes[r] == 120 or codes[r] == 108
                     or codes[r] == 99):
        r += 1
    d = q
    while _is(codes, f, n, d, DEC):
        d += 1
    return _closes(codes, f, n, q, a, 2) or _closes(codes, f, n, q, r, 6) or _closes(codes, f, n, q, d, 3)


def _closes(codes, f, n, q, e, most):
    """A run ``q..e`` of 1 to ``most`` characters, then ``)`` and whitespace."""
    return 1 <= e - q <= most and e < n and codes[e] == RPAR and _is(codes, f, n, e + 1, SPACE)


def _lower_ascii(c):
    """``chr(c).lower()`` when it is one ASCII character, else :data:`NO_ASCII`."""
    if 65 <= c <= 90:
        return c + 32
    if c < 128:
        return c
    if c == 0x212A:  # KELVIN SIGN -> "k"
        return 107
    return NO_ASCII


def _lookup(codes, a, b, rows, lens, bits, lower):
    """Bits of the row equal to ``codes[a:b]`` (lowercased when ``lower``), 0 when none."""
    size = b - a
    if size > rows.shape[1]:
        return 0
    lo, hi = 0, lens.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        m = lens[mid]
        cmp = 0
        k = 0
        while k < size and k < m:
            c = np.int64(codes[a + k])
            if lower:
                c = _lower_ascii(c)
            d = rows[mid, k]
            if c != d:
                cmp = -1 if c < d else 1
                break
            k += 1
        if cmp == 0:
            cmp = -1 if size < m else (1 if size > m else 0)
        if cmp == 0:
            return bits[mid]
        if cmp < 0:
            hi = mid
        else:
            lo = mid + 1
    return 0


def _is_enumerator(codes, f, a, b):
    """``_ENUMERATOR`` on ``codes[a:b]``: ``1`` ``1.2.`` groups of 1-3 digits, a roman numeral of
    up to 6 letters, or one ASCII letter."""
    size = b - a
    if size == 1 and _is_alpha(codes[a]):
        return True
    if size <= 6:
        roman = True
        for k in range(a, b):
            c = codes[k]
            if not (c == 105 or c == 118 or c == 120 or c == 108 or c == 99 or c == 100 or c == 109
                    or c == 73 or c == 86 or c == 88 or c == 76 or c == 67 or c == 68 or c == 77):
                roman = False
                break
        if roman and size >= 1:
            return True
    run = 0
    for k in range(a, b):
        if (f[codes[k]] & DEC) != 0:
            run += 1
            if run > 3:
                return False
        elif codes[k] == 46 and run > 0:
            run = 0
        else:
            return False
    return run > 0


def _is_dotted(codes, a, b):
    """``_DOTTED`` on ``codes[a:b]``: ``(?:[A-Za-z]\\.)+[A-Za-z]``."""
    size = b - a
    if size < 3 or size % 2 == 0:
        return False
    for k in range(size):
        c = codes[a + k]
        if k % 2 == 0:
            if not _is_alpha(c):
                return False
        elif c != 46:
            return False
    return True


def _is_roman_word(codes, a, b):
    """``_ROMAN`` on ``codes[a:b]``: ``[IVXLCDM]{1,7}``."""
    if not 1 <= b - a <= 7:
        return False
    for k in range(a, b):
        c = codes[k]
        if not (c == 73 or c == 86 or c == 88 or c == 76 or c == 67 or c == 68 or c == 77):
            return False
    return True


def _list_prefix(codes, f, p):
    """``_LINE_PREFIX``: only whitespace and ``#>*+|-`` between the line start and ``p``."""
    j = p - 1
    while j >= 0 and codes[j] != NL:
        c = codes[j]
        if (f[c] & SPACE) == 0 and not (c == 35 or c == 62 or c == 42 or c == 43 or c == 124 or c == 45):
            return False
        j -= 1
    return True


def _decide(codes, f, n, start, end, r, xr, xl, xb, lr, ll, lb):
    """``_is_boundary`` for the ``_TERM`` match ``start..end`` with terminator run ``start..r``
    (no extra abbreviations): ``(1 cut / 0 not, token start, token end)``, the token being
    what ``extra`` would be looked up with (-1, -1 when the decision came before it)."""
    k = end
    while _is(codes, f, n, k, SPACE):  # _NEXT: \s*([openers]*)(\w*), deterministic
        k += 1
    g1 = k
    while _is(codes, f, n, k, OPENER):
        k += 1
    after = k
    if after >= n:
        return 1, -1, -1
    w = after
    while _is(codes, f, n, w, WORDC):
        w += 1
    fa = f[codes[after]]
    lower = (fa & LOWER) != 0
    upper = (fa & UPPER) != 0
    fixed = False
    if lower and _enum_start(codes, f, n, g1):
        lower, upper, fixed = False, True, True  # "(a) in writing": as if capitalised
    asks, ellipsis = False, False
    for i in range(start, r):
        if codes[i] == 63 or codes[i] == 33:
            asks = True
        elif codes[i] == 0x2026:
            ellipsis = True
    if asks:
        return (0 if lower else 1), -1, -1
    if r - start > 1 or ellipsis:
        return (1 if upper else 0), -1, -1
    if lower:
        return 0, -1, -1
    if start == 0 or (f[codes[start - 1]] & SPACE) != 0:
        return 1, -1, -1
    # the token: the last whitespace-free run of the 48 characters before, minus openers
    lo = max(0, start - 48)
    ts = start
    while ts > lo and (f[codes[ts - 1]] & SPACE) == 0:
        ts -= 1
    while ts < start and (f[codes[ts]] & OPENER) != 0:
        ts += 1
    if ts == start:
        return 1, -1, -1
    return _decide_token(codes, f, start, ts, g1, after, w, fa, fixed, xr, xl, xb, lr, ll, lb), ts, start


def _decide_token(codes, f, start, ts, g1, after, w, fa, fixed, xr, xl, xb, lr, ll, lb):
    """The part of ``_is_boundary`` that looks at the token ``codes[ts:start]``."""
    if (_lookup(codes, ts, start, xr, xl, xb, False) & TITLE) != 0:
        return 0
    low = _lookup(codes, ts, start, lr, ll, lb, True)
    if (low & NEVER_END) != 0:
        return 0
    if (low & NUMBERED) != 0:
        opened = g1 < after and (codes[g1] == LPAR or codes[g1] == LBRK)
        numeric = not fixed and ((fa & DIGIT) != 0 or codes[after] == 0xA7)  # a digit or "§"
        if numeric or opened or _is_roman_word(codes, after, w) or w - after == 1:
            return 0
        return 1
    if _is_enumerator(codes, f, ts, start):
        if _list_prefix(codes, f, ts):
            return 0
        if start - ts == 1 and (f[codes[ts]] & UPPER) != 0:
            return _is_starter(codes, after, w, xr, xl, xb)
        return 1
    if (low & SOMETIMES) != 0 or _is_dotted(codes, ts, start):
        # (the reference's own case for "etc" cannot be reached: it is in neither list)
        return _is_starter(codes, after, w, xr, xl, xb)
    return 1


def _is_starter(codes, a, b, xr, xl, xb):
    """1 when ``codes[a:b]`` is a typical sentence opener (``_STARTERS``), else 0."""
    return 1 if (_lookup(codes, a, b, xr, xl, xb, False) & STARTER) != 0 else 0


def _next_visible(codes, f, n, c):
    while c < n and (f[codes[c]] & SPACE) != 0:
        c += 1
    return c


def _prev_visible_end(codes, f, c):
    while c > 0 and (f[codes[c - 1]] & SPACE) != 0:
        c -= 1
    return c


def _line_break(codes, f, n, i, out_s, out_e, k):
    """``\\n`` + regex-``\\s`` run from ``i``, and the match ``\\S[ \\t]*\\r?\\n\\s*`` it ends
    (written at ``k`` when there is one): ``(end of the run, next k)``."""
    e = i + 1
    while _is(codes, f, n, e, RXSPACE):
        e += 1
    g = i - 1 if i > 0 and codes[i - 1] == CR else i
    while g > 0 and (codes[g - 1] == 32 or codes[g - 1] == 9):
        g -= 1
    if g > 0 and (f[codes[g - 1]] & RXSPACE) == 0:
        out_s[k] = g - 1
        out_e[k] = e
        k += 1
    return e, k


def _room(buf, k):
    """``buf``, or a copy about twice as long when index ``k`` does not fit in it."""
    if k < buf.shape[0]:
        return buf
    out = np.empty(2 * buf.shape[0] + 64, buf.dtype)
    out[: buf.shape[0]] = buf
    return out


def _visible_bounds(codes, f, n, pos):
    nxt = np.empty(pos.shape[0], np.int64)
    prv = np.empty(pos.shape[0], np.int64)
    for j in range(pos.shape[0]):
        nxt[j] = _next_visible(codes, f, n, pos[j])
        prv[j] = _prev_visible_end(codes, f, pos[j])
    return nxt, prv


def sentence_spans(n, cuts, c_nx, c_pv, t_end, t_nx, t_pv, keep, n_prev):
    """Sentence starts and ends from the sorted cuts and the kept terminator ends (sorted too).

    The reference sorts the cuts, adds ``n`` and strips each piece between consecutive ones;
    ``*_nx`` (first visible character at or after a cut) and ``*_pv`` (end of the last visible
    one before it) are that stripping, so a two-way merge of the cuts is enough.
    """
    nc, nt = cuts.shape[0], t_end.shape[0]
    starts = np.empty(nc + nt + 1, np.int64)
    ends = np.empty(nc + nt + 1, np.int64)
    k, i, j = 0, 0, 0
    last, last_nx = -1, 0
    while True:
        while j < nt and keep[j] == 0:
            j += 1
        done = False
        if i < nc and (j >= nt or cuts[i] <= t_end[j]):
            pos, nx, pv = cuts[i], c_nx[i], c_pv[i]
            i += 1
        elif j < nt:
            pos, nx, pv = t_end[j], t_nx[j], t_pv[j]
            j += 1
        else:
            pos, nx, pv, done = n, n, n_prev, True
        if pos != last:
            if last >= 0 and last_nx < pos:  # the piece last..pos holds a visible character
                starts[k] = last_nx
                ends[k] = pv
                k += 1
            last, last_nx = pos, nx
        if done:
            return starts[:k].copy(), ends[:k].copy()


# From this many characters the word arrays (8 bytes per character each) pass glibc's largest
# mmap threshold (32 MB): each is a fresh mapping, resident only where it was written. Trimming
# them by a copy then faults in two more arrays (at 20 MB of text 16 K page faults of the scan's
# 35 K); below, the arrays come from the reused heap and a copy returns their unused tail.
MAPPED_CHARS = 1 << 22


# One long loop on purpose: Numba compiles it whole, and the three scans share each code point's
# table look-up and the running state (open quotes, the current word, the pending break);
# split into functions, the state would travel through arguments and returns on every character.
# Why it and its helpers stay in this one file: the module docstring (Numba's disk cache).
def fused_scan(codes, f, xr, xl, xb, lr, ll, lb, view_from):
    """Words, line breaks and sentence pieces in one pass (see :mod:`._scan`).

    ``view_from``: from this many code points the word arrays come back as views of the arrays
    the scan wrote (:data:`MAPPED_CHARS`), below as trimmed copies; the same values either way.
    """
    n = codes.shape[0]
    ws, we = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)  # up to one word per character
    # the rest is one entry per line feed or terminator at most: grown as needed (_room)
    cap = 64 + n // 64
    ls, le, cuts = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64)
    t_end, t_cut = np.empty(cap, np.int64), np.empty(cap, np.uint8)
    t_ts, t_te = np.empty(cap, np.int64), np.empty(cap, np.int64)
    n_ws, n_we, nb, nt = 0, 0, 0, 0
    cuts[0] = 0
    nc = 1
    in_block = n > 0 and _line_kind(codes, f, n, 0) == 2  # _FIRST_LINE_BLOCK
    prev = 0  # the previous code point: bit 0 part of a word, bit 1 a word on its own
    lb_last, term_last, mark_last = 0, 0, 0
    for i in range(n):
        c = codes[i]
        fc = np.int64(f[c])
        # words: a cut between two code points where wordness changes or either stands alone;
        # written without branches (a word boundary every few characters defeats prediction)
        w = 1 - (fc & SPACE)
        single = (fc >> 6) & 1  # SINGLE
        cut = (w ^ (prev & 1)) | single | (prev >> 1)
        we[n_we] = i
        n_we += cut & prev & 1
        ws[n_ws] = i
        n_ws += cut & w
        prev = w | (single << 1)
        if (fc & (TERM | MARK)) == 0 and c != NL:
            continue
        if c == NL:
            cuts = _room(cuts, nc + 1)
            if in_block:  # a line-block ends at the next line feed
                cuts[nc] = i
                nc += 1
                in_block = False
            kind = _newline_kind(codes, f, n, i)
            if kind != 0:
                cuts[nc] = i
                nc += 1
                in_block = kind == 2
            if i >= lb_last:
                ls, le = _room(ls, nb), _room(le, nb)
                lb_last, nb = _line_break(codes, f, n, i, ls, le, nb)
        elif (fc & TERM) != 0:
            if i >= term_last:
                r = i
                while _is(codes, f, n, r, TERM):
                    r += 1
                e = _term_end(codes, f, n, r)
                if e < 0:
                    term_last = r  # every later start in the run ends it at r too, and fails
                else:
                    term_last = e
                    if not in_block:
                        d, ts, te = _decide(codes, f, n, i, e, r, xr, xl, xb, lr, ll, lb)
                        t_end, t_cut = _room(t_end, nt), _room(t_cut, nt)
                        t_ts, t_te = _room(t_ts, nt), _room(t_te, nt)
                        t_end[nt], t_cut[nt], t_ts[nt], t_te[nt] = e, d, ts, te
                        nt += 1
        elif (fc & MARK) != 0:
            if i >= mark_last:
                r = i
                while _is(codes, f, n, r, MARK):
                    r += 1
                while _is(codes, f, n, r, CLOSER):
                    r += 1
                mark_last = r
                if not in_block:
                    cuts = _room(cuts, nc)
                    cuts[nc] = r
                    nc += 1
    if prev & 1:
        we[n_we] = n
        n_we += 1
    if in_block:
        cuts = _room(cuts, nc)
        cuts[nc] = n
        nc += 1
    cuts = cuts[:nc].copy()
    t_end = t_end[:nt].copy()
    c_nx, c_pv = _visible_bounds(codes, f, n, cuts)
    t_nx, t_pv = _visible_bounds(codes, f, n, t_end)
    t_cut = t_cut[:nt].copy()
    n_prev = _prev_visible_end(codes, f, n)
    s_start, s_end = sentence_spans(n, cuts, c_nx, c_pv, t_end, t_nx, t_pv, t_cut, n_prev)
    if n < view_from:  # trimmed copies: the word arrays hold one entry per character
        ws, we = ws[:n_ws].copy(), we[:n_we].copy()
    else:  # views: the untouched tail of a mapped array is never faulted in, a copy would be
        ws, we = ws[:n_ws], we[:n_we]
    return (ws, we, ls[:nb].copy(), le[:nb].copy(), cuts, c_nx, c_pv,
            t_end, t_cut, t_ts[:nt].copy(), t_te[:nt].copy(), t_nx, t_pv, n_prev, s_start, s_end)


HELPERS = (_is, _nl_space, _is_alpha, _line_kind, _newline_kind, _term_end, _enum_start, _closes,
           _lower_ascii, _lookup, _is_enumerator, _is_dotted, _is_roman_word, _list_prefix,
           _decide, _decide_token, _is_starter, _next_visible, _prev_visible_end, _line_break, _room,
           _visible_bounds, sentence_spans)
