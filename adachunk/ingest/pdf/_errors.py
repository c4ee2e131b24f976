"""The PDF readers' coded errors, shared by both backends (pdfplumber and pymupdf).

``ADA308`` encrypted, ``ADA309`` no text layer (with why OCR did not read the scans), ``ADA310``
corrupt or truncated. A leaf module: the backends and :mod:`adachunk.ingest.pdf` import it, it
imports neither.
"""

from __future__ import annotations

from ...errors import InputError, Location


def encrypted_error(source: str, had_password: bool) -> InputError:
    """``ADA308``: the PDF is encrypted and the password is missing or wrong."""
    what = "the password given is wrong" if had_password else "it needs a password to open"
    return InputError(code="ADA308", message=f"the PDF is encrypted and {what}", location=Location(source),
                      hint="pass the user password (adachunk convert --password), or decrypt it first (qpdf --decrypt)")


def corrupt_error(source: str, detail: str) -> InputError:
    """``ADA310``: the PDF is corrupt or truncated."""
    return InputError(code="ADA310", message=f"corrupt or truncated PDF: {detail}", location=Location(source),
                      hint="re-download or re-export the file; 'qpdf --check' shows what is broken")



# why OCR did not give a scanned page its text: the message's ending, and the way out
_NO_OCR = {
    "missing": ("OCR is not installed", "install the OCR extra to read scans: pip install 'adachunk[ocr]' (with "
                "Debian's tesseract-ocr: apt-get install tesseract-ocr), or run OCR first ('ocrmypdf in.pdf "
                "out.pdf'), or convert with --scanned-pages warn to keep the text pages and leave those empty"),
    "off": ("OCR is off", "convert with --ocr auto to read scans by OCR (extra: pip install 'adachunk[ocr]'), or "
            "with --scanned-pages warn to keep the text pages and leave those empty"),
    "backend": ("the pymupdf backend does not OCR", "convert with the default backend (--backend pdfplumber), "
                "which reads scans by OCR where the extra is installed (pip install 'adachunk[ocr]')"),
    "empty": ("OCR found no text there", "check the scan (blank, a picture, or print too faint or too coarse "
              "to read), or convert with --scanned-pages warn to keep the text pages and leave those empty"),
}


def no_text_error(source: str, n_pages: int, pages: list[int] | None = None, why: str = "missing") -> InputError:
    """``ADA309``: no page has a text layer, or ``pages`` are scans (images, no text layer);
    ``why`` (``missing``, ``off``, ``empty``, ``backend``) says why OCR did not read them."""
    if pages:
        shown = ", ".join(map(str, pages[:10])) + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
        what = f"no text layer on page{'s' if len(pages) > 1 else ''} {shown} of {n_pages} (scanned images)"
    else:
        what = f"no text layer on any of its {n_pages} page(s) (a scan or images only)"
    ending, hint = _NO_OCR[why]
    return InputError(code="ADA309", message=f"{what}; {ending}", location=Location(source), hint=hint)
