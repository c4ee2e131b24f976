"""Token boundaries from a whole-text encoding (:meth:`adachunk.tokens.TiktokenCounter.boundaries`).

Per token a *code*: ``2 * (characters that start in its bytes) + (1 if its first byte is a
UTF-8 continuation byte)``. A token's end is a candidate cut unless the next token opens with a
continuation byte. :func:`token_edges_of_ids` (compiled by :func:`adachunk.runtime.jit.compiled`, its
own plain twin) turns the tokens' ids and a table of codes into offsets and prefix token counts
in one loop, :func:`_token_edges_numpy` the codes themselves in numpy passes. The compiled
function stays in this file: Numba's disk cache watches the compiled function's own file only.
"""

from __future__ import annotations

import numpy as np


def _token_edges_numpy(codes: np.ndarray, ascii_text: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`token_edges_of_ids` of the codes themselves, in numpy passes (for processes that
    have not loaded Numba)."""
    ends = np.cumsum(codes >> 1)  # characters begun up to each token's end
    if ascii_text:  # one byte per code point: every token end is a candidate
        return np.concatenate(([0], ends)).astype(np.int64), np.arange(len(codes) + 1, dtype=np.int64)
    # A token's end lies on a character boundary unless the next token opens with a
    # continuation byte; there, the characters begun before it are the code-point offset.
    keep = np.append(np.flatnonzero((codes[1:] & 1) == 0), len(codes) - 1)
    positions = np.concatenate(([0], ends[keep])).astype(np.int64)
    sizes = np.concatenate(([0], keep + 1)).astype(np.int64)
    return positions, sizes


def token_edges_of_ids(ids: np.ndarray, table: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    """What :meth:`TiktokenCounter.boundaries` returns, from the ids and their codes ``table``
    (``table[ids]`` are the tokens' ``_char_codes``), in one loop and without that row:
    ``(True, positions, sizes)``, or ``(False, ...)`` as soon as an id has no code in ``table``
    yet (the caller fills the table and asks again). :func:`_token_edges_numpy` is the
    reference twin (``tests/test_tokenize.py`` compares them).

    A token that opens with a character (its code's low bit 0) closes the run before it as a
    candidate; the last token's end always is one (``ids`` is not empty).
    """
    n = ids.shape[0]
    m = table.shape[0]
    positions = np.empty(n + 1, np.int64)
    sizes = np.empty(n + 1, np.int64)
    positions[0] = 0
    sizes[0] = 0
    end, k = 0, 1
    for t in range(n):
        i = ids[t]
        if i < 0 or i >= m or table[i] < 0:
            return False, positions[:0], sizes[:0]
        c = table[i]
        if t > 0 and (c & 1) == 0:
            positions[k] = end
            sizes[k] = t
            k += 1
        end += c >> 1
    positions[k] = end
    sizes[k] = n
    return True, positions[: k + 1], sizes[: k + 1]


def _token_codes(raw: bytes, stops: np.ndarray) -> np.ndarray:
    """:meth:`TiktokenCounter._char_codes` of the tokens that tile ``raw`` and end at ``stops``
    (every token has at least one byte)."""
    opens = (np.frombuffer(raw, dtype=np.uint8) & 0xC0) != 0x80  # bytes that begin a character
    begun = np.concatenate(([0], np.cumsum(opens)))
    starts = np.concatenate(([0], stops[:-1]))
    return 2 * (begun[stops] - begun[starts]) + ~opens[starts]
