"""The character sets and word lists of the text units, shared by the reference segmenters
(:mod:`adachunk.detect.text_units`, :mod:`~adachunk.detect.text_units.words`) and the lookup
tables of their compiled scan (:mod:`~adachunk.detect.text_units._scan_tables`).

One definition for both twins: the tables tabulate exactly what the reference asks of a
character or a token. A leaf module: it imports neither twin.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

# Characters that close a quotation or bracket and stay with the sentence they end: `."` `.)`
_CLOSERS = "\"'\u201d\u2019\u00bb\u203a)]}\u300d\u300f\uff09\u3011\u3009\u300b\u3015"
# Characters that may open the next sentence before its first word.
_OPENERS = "\"'\u201c\u2018\u00ab\u2039([{\u00bf\u00a1\u300c\u300e\uff08"

# 。！？｡ (CJK) and । ॥ ؟ ۔ ። ፧ ։ need no following space; trailing closers stay with them.
_MARK_FIRST = "\u3002\uff01\uff1f\uff61\u0964\u0965\u061f\u06d4\u1362\u1367\u0589"
# Latin terminators (with closers) count only when whitespace or the end of text follows.
# French typography puts a (narrow) no-break space before the closing guillemet: ". »".
_TERM_FIRST = ".!?\u2026"

# Titles are followed by a name, so they never end a sentence (case-sensitive: "me." is a word).
_TITLES = frozenset(
    "Mr Mrs Ms Mx Dr Prof St Hon Rev Gen Gov Sen Rep Capt Lt Col Sgt Messrs "
    "M MM Mme Mmes Mlle Mlles Me Mgr Pr Dres Hr Fr Frau Herr".split()
)
# Reference abbreviations: not a boundary when a number, bracket or enumerator follows.
_NUMBERED = frozenset(
    "art arts no nos nr nrs para paras p pp sec secs s ss ch chap fig figs vol vols cl cls "
    "reg dir rec recs ann op n nn subpara subparas pt pts tit sect rn ziff abs lit cir "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# Never a sentence end, whatever follows ("Smith v. Jones", "e.g. Germany").
_NEVER_END = frozenset(
    "e.g i.e eg ie cf vs v viz approx incl esp resp ca cca seq sq sqq z.b d.h u.a bzw vgl "
    "ggf usw sog".split()
)
# End a sentence only when the next word is a typical sentence opener ("Apple Inc. The ...").
_SOMETIMES = frozenset(
    "inc ltd co corp llc plc bros al jr sr ed eds u.s u.k e.u u.n u.s.a u.s.c".split()
)
_STARTERS = frozenset(
    "The This That These Those It Its In On At As By For From To With Without A An We They He "
    "She I You Our Their His Her There Here However Moreover Furthermore Therefore Thus Hence "
    "Such Each Every All Any No Not Where When While If Although Though Since Because But And "
    "Or Yet So Also Accordingly Consequently Finally First Second Third Nevertheless Le La Les "
    "Il Elle Ils Elles Un Une Des Ce Cette Ces Dans En Pour Par Sur Nous Vous Der Die Das Ein "
    "Eine Es Sie Wir".split()
)

# Scripts written without spaces: every character is its own word.
_NO_SPACE = (
    "\u0e00-\u0e7f"  # Thai
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana (+ half-width)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (ext A, unified, compatibility)
    "\U00020000-\U0002fa1f\U00030000-\U0003134f"  # CJK ideographs in the supplementary planes
    "\uac00-\ud7a3"  # Hangul syllables
)
_SPACE, _SINGLE = 1, 2


@lru_cache(maxsize=1)
def _char_classes() -> np.ndarray:
    """Code point -> 0 (word character), 1 (whitespace, as ``str.isspace``), 2 (alone)."""
    table = np.zeros(0x110000, dtype=np.uint8)
    # Every Unicode whitespace character is in the BMP, so scanning it is enough: one regex
    # pass over the BMP as a string (surrogates, never whitespace, read as spaces and are
    # dropped) takes a third of the time of calling str.isspace 65,536 times.
    bmp = np.arange(0x10000, dtype="<u4")
    bmp[0xD800:0xE000] = 0x20
    spaces = [m.start() for m in re.finditer(r"\s", bmp.tobytes().decode("utf-32-le"))]
    table[[c for c in spaces if not 0xD800 <= c < 0xE000]] = _SPACE
    for lo, hi in re.findall(r"(.)(?:-(.))?", _NO_SPACE):
        table[ord(lo) : ord(hi or lo) + 1] = _SINGLE
    return table
