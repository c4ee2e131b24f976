"""Hard limits a profile cannot lift, and warnings about settings that reach off this machine.

The profile schema caps its own fields with ``Field(le=...)``. Components (detectors, splitters,
embedders, plugins) bring their own ``Params`` models, and a missing ``le=`` there would let a
shared profile set ``timeout_s: 1000000000`` and never finish: :func:`component_limit_errors`
applies the same caps to every component's validated fields, by name.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..errors import ProfileError
from .yamlmarks import mark_at

MAX_TIMEOUT_S = 600.0  # any time limit: per attempt, per megabyte of text, ...
MAX_RETRIES = 8
MAX_SIZE = 10**9  # sizes and counts (tokens, characters, batch sizes)
_SIZE_WORDS = ("size", "tokens", "chars", "length", "window", "batch", "points")


def _cap_of(name: str) -> tuple[float, str] | None:
    """The hard maximum of a field by its name, with how it is shown; None when uncapped."""
    if name.endswith("timeout_s") or name.endswith("deadline_s"):
        return MAX_TIMEOUT_S, f"{MAX_TIMEOUT_S:g} s"
    if name.endswith("retries"):
        return MAX_RETRIES, str(MAX_RETRIES)
    if name.startswith(("max_", "min_")) or any(w in name for w in _SIZE_WORDS):
        return MAX_SIZE, "10^9"
    return None


def component_limit_errors(params: Any) -> Iterator[tuple[str, ProfileError]]:
    """``(field, ADA203 error)`` for each numeric field of ``params`` above its hard maximum."""
    fields = params.model_dump() if hasattr(params, "model_dump") else dict(params or {})
    for name, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        cap = _cap_of(str(name))
        if cap is not None and value > cap[0]:
            yield str(name), ProfileError(
                code="ADA203", message=f"{name} = {value:g} is above its hard maximum",
                allowed=[f"at most {cap[1]}"],
                hint="profiles are shared: limits they set are capped so that no run can hang")


def remote_llm_warnings(data: Any) -> list[str]:
    """One line per candidate of the merged profile ``data`` whose ``base_url`` is not local.

    Such a call is refused at use (``ADA219``) unless the user passes ``--allow-remote-llm``:
    the warning says so before any document is chunked.
    """
    from ..split._llm_client import is_local, redact_url

    cands = data.get("candidates") if isinstance(data, dict) else None
    out = []
    for i, spec in enumerate(cands if isinstance(cands, list) else []):
        url = spec.get("base_url") if isinstance(spec, dict) else None
        if not isinstance(url, str) or not url or is_local(url):
            continue
        mark = mark_at(data, ("candidates", i, "base_url"))
        where = f"{mark[0]}:{mark[1]}:{mark[2]}" if mark else "<input>"
        name = spec.get("name") or spec.get("type")
        out.append(f"warning {where} candidates.{i}.base_url: candidate '{name}' sends documents and the "
                   f"API key to {redact_url(url)}, which is not this machine; it is refused unless "
                   "the command is given --allow-remote-llm")
    return out
