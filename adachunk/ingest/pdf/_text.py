"""Text rules of PDF → Markdown: re-flowing lines, de-hyphenation, list markers, escaping."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

# Bullets seen in PDFs: •, ‣, ▪, ●, ◦, ⁃, ∙, ·, –, —, -, *, ■, □, ➢, →, and the Symbol/Wingdings
# bullets Word exports into the private use area.
_BULLETS = ("\u2022\u2023\u25aa\u25cf\u25e6\u2043\u2219\u00b7\u2013\u2014\\-*\u25a0\u25a1\u27a2\u2192"
            "\uf0b7\uf0a7\uf0d8\uf076")
BULLET = re.compile(rf"^([{_BULLETS}])\s+(?=\S)")
# "1." "1)" "(1)" "a)" "(a)" "iv." "(iv)"; letters lower-case only ("J. Smith" is not a list)
ENUM = re.compile(r"^(\(\d{1,3}\)|\d{1,3}[.)]|\([a-z]\)|[a-z][.)]|\((?:[ivxlc]{1,6})\)|[ivxlc]{1,6}[.)])"
                  r"\s+(?=\S)")
_NATIVE_ORDERED = re.compile(r"^\d{1,9}[.)]$")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)
TAIL_FRAGMENT = re.compile(r"(?:^|(?<=[\s(\"'\u201c/]))((?:[^\W\d_]+-)*)([^\W\d_]+)-$")
_HEAD_WORD = re.compile(r"^([^\W\d_]+)")
# first parts that are written with a hyphen in compounds far more often than they are the
# first syllable of a word broken at the line end ("well-known", "self-assessment")
_COMPOUND_FIRST = frozenset({"self", "well", "half", "cross", "ill", "x", "e"})
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st"}
_LIG_RE = re.compile("[" + "".join(_LIGATURES) + "]")
_MD_START = re.compile(r"^(?:#{1,6}(?=\s|$)|[>+*\-](?=\s|$)|=+\s*$|-{3,}\s*$|`{3}|~{3}|\||<[A-Za-z!/?])")
_MD_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
# the last word is a web or mail address cut after a separator ("https://", "example.org/a/", "x@")
_URL_BREAK = re.compile(r"(?:^|\s)\(?(?:(?:https?://|www\.)\S*[/@_%-]|https?://|[\w.+-]+@(?:\S*[.-])?)$")


def vocabulary(lines: Iterable[str]) -> Counter[str]:
    """Lower-cased words of the document, not counting the two fragments of a word hyphenated at a
    line end (the last word of a line ending in "-" and the first word of the next line).

    De-hyphenation asks it whether "regulation" or "well-known" is a word of this document; a
    fragment counted as a word would vouch for itself ("for-" + "mation").
    """
    vocab: Counter[str] = Counter()
    after_hyphen = False
    for text in lines:
        text = text.strip()
        hyphen_end = text.endswith("-")
        if after_hyphen:
            text = text.split(" ", 1)[1] if " " in text else ""
        if hyphen_end:
            text = text[: text.rfind(" ") + 1] if " " in text else ""
        after_hyphen = hyphen_end
        for m in _WORD.finditer(text):
            word = m.group(0).lower()
            vocab[word] += 1
            if "-" in word:
                vocab.update(word.split("-"))
    return vocab


def keep_hyphen(prefix: str, left: str, right: str, vocab: Counter[str]) -> bool:
    """Is ``left-`` + ``right`` a hyphenated compound (True) or one word broken in two (False)?

    Evidence in order: a compound chain ("state-of-" + "the-art"); a right part in upper case
    ("Anglo-" + "Saxon"); which spelling the document itself uses elsewhere; a first part that is
    a usual compound head; both parts being words of the document while the joined form is not.
    """
    if prefix or right[:1].isupper():
        return True
    joined, hyphenated = (left + right).lower(), f"{left}-{right}".lower()
    if vocab[joined] != vocab[hyphenated]:
        return vocab[hyphenated] > vocab[joined]
    if left.lower() in _COMPOUND_FIRST:
        return True
    return len(left) > 2 and vocab[left.lower()] > 0 and vocab[right.lower()] > 0


def join_lines(texts: list[str], vocab: Counter[str]) -> str:
    """Re-flow the lines of one paragraph: spaces between lines, words broken by a hyphen joined."""
    out = texts[0].strip() if texts else ""
    for nxt in texts[1:]:
        nxt = nxt.strip()
        if not nxt:
            continue
        if not out:
            out = nxt
        elif out.endswith("\u00ad"):  # soft hyphen: always a break inside a word
            out = out[:-1] + nxt
        elif _URL_BREAK.search(out):  # a web address broken at a slash, dash or "@" goes on unspaced
            out = out + nxt
        elif out.endswith("-") and (m := TAIL_FRAGMENT.search(out)) and (h := _HEAD_WORD.match(nxt)):
            keep = keep_hyphen(m.group(1), m.group(2), h.group(1), vocab)
            out = out + nxt if keep else out[:-1] + nxt
        elif out.endswith("-") and out[-2:-1].isdigit() and nxt[:1].isdigit():
            out = out + nxt  # a number range broken after its dash: "2019-" + "2020"
        elif out.endswith(("\u2013", "\u2014")) and not out.endswith((" \u2013", " \u2014")):
            out = out + nxt
        else:
            out = out + " " + nxt
    return out


def clean(text: str) -> str:
    """Expand typographic ligatures and collapse runs of spaces."""
    if _LIG_RE.search(text):
        text = _LIG_RE.sub(lambda m: _LIGATURES[m.group(0)], text)
    return re.sub(r"[ \t\u00a0]{2,}", " ", text).strip()


def list_marker(text: str) -> tuple[str, str] | None:
    """``(marker, rest)`` when a line starts a list item (bullet or enumerator), else None."""
    m = BULLET.match(text) or ENUM.match(text)
    if m is None:
        return None
    return m.group(1), text[m.end():]


def item_markdown(marker: str, text: str) -> str:
    """A list item in Markdown: bullets become ``-``; ``1.``/``1)`` stay native ordered items;
    other enumerators (``(a)``, ``iv.``) are kept as text after a ``-`` bullet."""
    if BULLET.match(marker + " x"):
        return f"- {escape_block_start(text)}"
    if _NATIVE_ORDERED.match(marker):
        return f"{marker} {escape_block_start(text)}"
    return f"- {marker} {text}"


def escape_block_start(text: str) -> str:
    """Backslash-escape a paragraph start that Markdown would read as a heading, list, quote,
    rule, table or HTML ("1990. A year..." must stay a paragraph)."""
    m = _MD_ORDERED.match(text)
    if m:
        return f"{m.group(1)}\\{text[m.end(1):]}"
    if _MD_START.match(text):
        return "\\" + text
    return text


def comment_text(text: str) -> str:
    """Text safe inside an HTML comment (no ``-->``; single line)."""
    return " ".join(text.replace("-->", "- ->").replace("<!--", "< !--").split())
