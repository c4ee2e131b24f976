"""WordprocessingML names and a hardened XML parser for the parts of a ``.docx``.

The parser never resolves entities, loads a DTD or touches the network: a ``.docx`` is untrusted
input and its parts are plain XML, so entity expansion (billion laughs, external files) is refused.
Everything else in the ``_docx_*`` modules uses only the ElementTree API (``find``, ``iter``,
``get``, ``tag``), which lxml and ``xml.etree`` share, so the pure functions are testable with either.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from ...errors import InputError, Location

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
W = "{" + W_NS + "}"


def w(tag: str) -> str:
    """The Clark name of a ``w:`` element or attribute (``w("p")`` → ``{...main}p``)."""
    return W + tag


def val(el: Any, child: str | None = None, attr: str = "val") -> str | None:
    """The ``w:val`` (or ``w:<attr>``) of ``el`` or of its child ``w:<child>``; None when absent."""
    if el is None:
        return None
    if child is not None:
        el = el.find(W + child)
        if el is None:
            return None
    return el.get(W + attr)


def on(el: Any, child: str) -> bool:
    """Whether the toggle property ``w:<child>`` of ``el`` is on (present and not val="0"/"false")."""
    if el is None:
        return False
    c = el.find(W + child)
    return c is not None and c.get(W + "val", "true") not in ("0", "false", "off")


def int_val(el: Any, child: str | None = None, default: int | None = None) -> int | None:
    """``w:val`` as an integer (``default`` when absent or not a number)."""
    raw = val(el, child)
    try:
        return int(raw) if raw is not None else default
    except ValueError:
        return default


_PARSER = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False,
                          remove_comments=True, remove_pis=True)


def parse_xml(data: bytes, source: str, part: str) -> Any:
    """Parse one part of the package; malformed XML is ``ADA304`` naming the part."""
    try:
        return etree.fromstring(data, parser=_PARSER)
    except etree.XMLSyntaxError as exc:
        raise InputError(code="ADA304", message=f"malformed Word document: {part} is not valid XML ({exc})",
                         location=Location(source)) from None
