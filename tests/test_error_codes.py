"""Error codes are data: every code the library raises is in the catalogue, and every catalogue
code is raised somewhere (a code nobody raises is a stale promise in the documentation)."""

from __future__ import annotations

import re
from pathlib import Path

from adachunk.errors import CODES

PACKAGE = Path(__file__).resolve().parents[1] / "adachunk"
CODE = re.compile(r"\bADA\d{3}\b")


def _used_codes() -> dict[str, list[str]]:
    """code → files of the package (the catalogue itself aside) that name it."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "errors.py" and path.parent == PACKAGE:
            continue
        for code in set(CODE.findall(path.read_text(encoding="utf-8"))):
            found.setdefault(code, []).append(str(path.relative_to(PACKAGE)))
    return found


def test_every_code_in_the_package_is_catalogued():
    missing = {code: files for code, files in _used_codes().items() if code not in CODES}
    assert not missing, f"codes used but not in adachunk.errors.CODES: {missing}"


def test_every_catalogued_code_is_used():
    unused = sorted(set(CODES) - set(_used_codes()))
    assert not unused, f"catalogued codes no module raises or documents: {unused}"


def test_catalogue_is_ordered_and_classed():
    codes = list(CODES)
    assert codes == sorted(codes)
    for code in codes:  # ADA1xx internal, ADA2xx profile, ADA3xx input, ADA4xx notices
        assert code[3] in "1234", code
        assert CODES[code].strip(), code
