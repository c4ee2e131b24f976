"""A linear pre-scan of an HTML page's nesting depth, before the parser builds its tree.

The HTML parser's time grows faster than linearly with nesting (Lexbor: 100,000 nested
``<div>`` take 44 s, ``<ol><li>`` over 120 s; 3,000 of either take under 0.1 s), and nothing
bounds it once it has started. So the page's tags are counted first, with one regular
expression pass that cannot backtrack (every alternative consumes to the end of the text
when its closing mark is missing), and a page nesting deeper than :data:`MAX_NESTING` is refused
(``ADA321``) before it is parsed.

Most pages have fewer start tags that may nest than the cap, which a C-level count of the tag
names shows without a Python loop (1.7 ms on a 450 kB EUR-Lex page); only the others are scanned.

The count is an upper bound of the parser's depth, never below it where it matters: elements
whose end tag is optional and which a parser closes by itself (``<p>``, ``<li>``, ``<td>``, ...)
and void elements (``<br>``, ``<img>``) are not counted, nor self-closed ``<x/>`` inside
``<svg>``/``<math>`` (elsewhere ``<div/>`` opens a div); an end tag only closes an element of its
name that is open (a stray ``</div>`` lowers nothing); comments and the raw text of
``<script>``/``<style>``/``<textarea>``/``<title>`` are skipped.
"""

from __future__ import annotations

import re
from collections import Counter

from ...errors import InputError, Location

#: Deepest element nesting a page may have; real pages stay under 100, and 3,000 parse in < 0.1 s.
MAX_NESTING = 3000
_TOKEN = re.compile(
    r"<!--(?:.*?-->|.*)"                                              # a comment (unclosed: to the end)
    r"|<(?:script|style|textarea|title|xmp)\b(?:.*?</(?:script|style|textarea|title|xmp)\s*>|.*)"  # raw text
    r"|<(/?)([A-Za-z][A-Za-z0-9:-]*)(?:[^>]*?(/?)>|[^>]*)",          # a tag (unclosed: to the end)
    re.IGNORECASE | re.DOTALL)
# never open on the stack (void) or closed by the parser when a sibling starts (optional end tag)
_UNCOUNTED = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    "param", "keygen", "frame", "basefont", "bgsound", "image",
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot",
    "colgroup", "rb", "rt", "rtc", "rp", "caption", "html", "head", "body"})


# the name of every start tag (and of anything that looks like one, in a script or a comment)
_START = re.compile(r"<([A-Za-z][A-Za-z0-9:-]*)")


def _may_count(text: str) -> int:
    """How many start tags may count: an upper bound of the depth, found without a Python loop
    over the tags (a C-level findall and Counter; the loop is over distinct names)."""
    return sum(n for name, n in Counter(_START.findall(text)).items() if name.lower() not in _UNCOUNTED)


def nesting_depth(text: str, stop: int | None = None) -> int:
    """The deepest nesting of counted elements in ``text`` (an upper bound of the parse tree's
    depth, see the module docstring); stops counting once ``stop`` is exceeded."""
    if stop is not None and (text.count("<") <= stop or _may_count(text) <= stop):
        # fewer tags that may nest than the cap: the depth cannot exceed it (the common case,
        # found without a Python loop over the tags)
        return 0
    open_: dict[str, int] = {}
    depth = deepest = 0
    # findall's tuples (end slash, name, self-closing slash) cost less than match objects: the
    # loop runs once per tag of pages with more tags than the cap
    for end, name, selfclosing in _TOKEN.findall(text):
        if not name:
            continue  # a comment or raw text
        name = name.lower()
        if name in _UNCOUNTED:
            continue
        if end:  # an end tag closes only an element of that name that is open
            if open_.get(name):
                open_[name] -= 1
                depth -= 1
        elif not (selfclosing and (open_.get("svg") or open_.get("math"))):
            # "<div/>" opens a div in HTML: only SVG and MathML elements close themselves
            open_[name] = open_.get(name, 0) + 1
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
    return deepest


def check_nesting(text: str, source: str, limit: int = MAX_NESTING) -> None:
    """``ADA321`` when ``text`` nests elements deeper than ``limit``."""
    depth = nesting_depth(text, limit)
    if depth > limit:
        raise InputError(code="ADA321", message=f"the page nests elements more than {limit} deep: refused before "
                         "parsing (parsing time grows faster than linearly with the depth)",
                         location=Location(source),
                         hint="the page is machine-generated or hostile; flatten its markup, or save it as text")


__all__ = ["MAX_NESTING", "check_nesting", "nesting_depth"]
